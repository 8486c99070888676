"""The audit's check of a page "as left" (``tests/browser/helpers.py``, ``PageAudit``):
only the parts re-drawn since the page was last checked, the whole document where
something outside the parts changed, nothing where nothing was re-drawn.  A violation
a socket frame brings into a part is found; an unchanged page is not checked again."""

from __future__ import annotations

import pytest

from tests.browser.helpers import AUDITED, PageAudit, accessibility_problems
from tests.walk import players_of

pytestmark = [
    pytest.mark.browser,
    pytest.mark.presentation,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not AUDITED, reason="axe-core runs in the real run only"),
]

# The page's WebSockets, as it opens them (htmx's socket extension opens them with
# ``new WebSocket``): a frame is dispatched on the campaign socket as if it had come.
_SOCKETS = """(() => {
    const Native = window.WebSocket;
    window.refitSockets = [];
    window.WebSocket = class extends Native {
        constructor(...args) { super(...args); window.refitSockets.push(this); }
    };
})();"""

# axe-core's runs from now on, each "document" or "include" (what it was asked to check).
_COUNT_RUNS = """() => {
    window.axeRuns = [];
    const run = axe.run;
    axe.run = function (context, options) {
        window.axeRuns.push(context === document ? "document" : "include");
        return run.apply(axe, arguments);
    };
}"""

# The header part as the socket would push it, with a button that has no name.
_PUSH_NAMELESS_BUTTON = """() => {
    const part = document.querySelector("[data-part=header]");
    const nameless = '<button type="button" id="nameless"></button>';
    const html = part.outerHTML.replace("</h1>", "</h1>" + nameless);
    const socket = window.refitSockets.find(s => s.url.includes("/ws/campaigns/"));
    socket.dispatchEvent(new MessageEvent("message", {data: html}));
}"""


def _checked(audit, page) -> tuple[str, list[str]]:
    """What the audit's check of ``page`` "as left" checked, and what it found."""
    before = len(audit.problems)
    assert audit.check(page, "as left")
    return audit.checked[-1][2], audit.problems[before:]


def test_a_violation_pushed_into_a_part_is_found_as_left(
    asgi_server, new_context, browser_login, hosted
):
    campaign, alice, bob = hosted
    players = players_of(campaign, alice, bob)
    side = next(iter(players.users))
    context = browser_login(new_context(), players.users[side])
    context.add_init_script(_SOCKETS)
    page = context.new_page()
    page.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    # Its socket open, the live badge and the digest drawn (each swapped in after load).
    page.locator("body[data-live='1'] #live-status.on").wait_for(state="attached")
    page.locator("section#digest").wait_for(state="attached")
    assert accessibility_problems(page) == []  # the whole page, as it is now
    audit = PageAudit()
    PageAudit.seen.add(audit.kind(page))  # its kind checked (just above)
    page.evaluate(_COUNT_RUNS)

    page.evaluate(_PUSH_NAMELESS_BUTTON)
    page.locator("[data-part=header] #nameless").wait_for(state="attached")
    checked, found = _checked(audit, page)
    assert checked == "header", checked
    assert any("button-name (critical)" in p and "#nameless" in p for p in found), found
    assert page.evaluate("window.axeRuns") == ["include"]

    # Nothing re-drawn since: not checked again.
    assert _checked(audit, page) == ("none", [])
    assert page.evaluate("window.axeRuns") == ["include"]

    # A change outside every part: the whole document, the pushed button still found.
    page.evaluate("document.querySelector('.page-nav').setAttribute('aria-label', 'Sections')")
    checked, found = _checked(audit, page)
    assert checked == "page"
    assert any("button-name (critical)" in p for p in found), found
    assert page.evaluate("window.axeRuns") == ["include", "document"]
    page.close()  # not left with its violation for the test's own audit


def test_a_page_left_as_it_was_checked_is_not_checked_again(asgi_server, new_context):
    page = new_context().new_page()
    page.goto(asgi_server.url + "/no/such/page/")
    assert accessibility_problems(page) == []
    audit = PageAudit()
    PageAudit.seen.add(audit.kind(page))
    page.evaluate(_COUNT_RUNS)
    assert _checked(audit, page) == ("none", [])
    assert page.evaluate("window.axeRuns") == []
    # A later load of the kind, left as it loaded: nothing checked, axe-core not even
    # injected into it.
    page.reload()
    assert _checked(audit, page) == ("none", [])
    assert page.evaluate("typeof axe") == "undefined"
