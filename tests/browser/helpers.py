"""What every browser test checks of what the player sees: accessibility (axe-core,
shipped by axe-playwright-python), that the page fits a 390 px phone, and that the
server answered no click with a 5xx."""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Error as PlaywrightError

from tests.servers import ServerLog

__all__ = [
    "PageAudit",
    "ServerLog",
    "accessibility_problems",
    "assert_accessible",
    "horizontal_overflow",
]

PHONE = {"width": 390, "height": 844}
_axe = Axe()
# axe-core checks the HTML, and both backends serve the same HTML: it runs in the
# real run only (a check costs Chromium 0.4-1 s, half of it color-contrast; the
# embedded run would repeat every one of them).
AUDITED = os.environ.get("REFIT_TEST_BACKEND") != "embedded"


# axe-core is injected once per document; a check waits for one under way on the same
# document (a page's load handler may check it while the test does), and the page
# answers only the serious and critical violations (not every rule's help texts).
# A document checked and not changed since (no node, attribute or text added, removed
# or altered while the check ran or after it: a MutationObserver) answers what that
# check found: a kind's first load checked by the audit and again by the test, or a
# page left as it was last checked, is checked once.  A whole check also starts the
# page's record of what is re-drawn anew (``_REDRAWN``): it has seen all of it.
_INJECTED = "typeof axe !== 'undefined'"
_SERIOUS = """(results) => results.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.id} (${v.impact}): ${v.help} — ` + v.nodes.slice(0, 3)
        .map(n => n.target.length ? n.target[0] : "?").join("; "))"""
_BLOCKING_VIOLATIONS = f"""async () => {{
    const serious = {_SERIOUS};
    const unchanged = () => window.refitAxeFound && !window.refitAxeChanged;
    if (unchanged()) return window.refitAxeFound;
    const run = (window.refitAxeRun || Promise.resolve()).then(async () => {{
        if (unchanged()) return window.refitAxeFound;
        if (!window.refitAxeWatch) {{
            window.refitAxeWatch = new MutationObserver(() => {{ window.refitAxeChanged = true; }});
            window.refitAxeWatch.observe(document, {{
                subtree: true, childList: true, attributes: true, characterData: true}});
        }}
        window.refitAxeChanged = false;
        if (window.refitRedrawn) window.refitRedrawn = {{nodes: new Set(), whole: false}};
        const results = await axe.run(document, {{resultTypes: ["violations"]}});
        window.refitAxeFound = serious(results);
        return window.refitAxeFound;
    }});
    window.refitAxeRun = run.catch(() => null);
    return await run;
}}"""

# What the page re-drew since it was last checked (or, never checked, since its load
# event), recorded by an init script's MutationObserver from the load event on:
# - a change inside a part (``section[data-part]``: a fragment the page's htmx answers
#   and socket frames swap) records that part;
# - an element added outside every part (a part swapped whole, the live badge, the
#   digest, the flash: each a swap's new element) records that element, and a change
#   inside an element so recorded is its own;
# - anything else outside the parts (text, an attribute other than htmx's own
#   ``htmx-*`` classes and the body's ``data-live`` mark) records the whole document;
# - the head is read by whole-page rules only (the title's "Your move" badge), and an
#   element removed leaves nothing to check in it: neither is recorded.
_REDRAWN = """window.addEventListener('load', () => {
    window.refitRedrawn = {nodes: new Set(), whole: false};
    const ours = (names) => (names || '').split(/\\s+/).filter(c => c && !c.startsWith('htmx-'));
    const onlyHtmx = (r) => {
        const was = ours(r.oldValue), now = ours(r.target.getAttribute('class'));
        return was.length === now.length && was.every(c => now.includes(c));
    };
    new MutationObserver(records => {
        const at = window.refitRedrawn;
        for (const r of records) {
            const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
            if (!el || !el.isConnected || (document.head && document.head.contains(el))) continue;
            const part = el.closest('[data-part]');
            if (part) { at.nodes.add(part); continue; }
            if (r.type === 'attributes' && (r.attributeName === 'class' && onlyHtmx(r)
                    || r.target === document.body && r.attributeName === 'data-live')) continue;
            if ([...at.nodes].some(n => n.isConnected && n.contains(el))) continue;
            if (r.type !== 'childList') { at.whole = true; continue; }
            for (const n of r.addedNodes) {
                if (n.nodeType === 1) at.nodes.add(n);
                else if (n.nodeType === 3 && n.textContent.trim()) at.whole = true;
            }
        }
    }).observe(document, {subtree: true, childList: true, attributes: true,
                          characterData: true, attributeOldValue: true});
});"""

# The page's re-drawn parts checked, and its record started anew: ``null`` where the
# page keeps no record (its load event not reached), else what was checked ("page",
# "none", or the parts' names and the other elements' ids or tags) and what was found.
# axe-core's page-level rules (landmarks, the title, a skip link) do not run on an
# ``include``: they rest on the first load of the page's kind.
_NOTHING_REDRAWN = """() => !!window.refitRedrawn && !window.refitRedrawn.whole
    && window.refitRedrawn.nodes.size === 0"""
_REDRAWN_VIOLATIONS = f"""async () => {{
    if (!window.refitRedrawn) return null;
    const serious = {_SERIOUS};
    const run = (window.refitAxeRun || Promise.resolve()).then(async () => {{
        const at = window.refitRedrawn;
        window.refitRedrawn = {{nodes: new Set(), whole: false}};
        if (at.whole) return null;
        const regions = [];
        for (const n of at.nodes) {{
            const region = n.isConnected ? n.closest('[data-part]') || n : null;
            if (region && !regions.includes(region)) regions.push(region);
        }}
        const outer = regions.filter(r => !regions.some(o => o !== r && o.contains(r)));
        if (!outer.length) return {{checked: "none", found: []}};
        const results = await axe.run({{include: outer}}, {{resultTypes: ["violations"]}});
        const name = (r) => r.dataset.part || (r.id ? "#" + r.id : r.tagName.toLowerCase());
        return {{checked: outer.map(name).join(", "), found: serious(results)}};
    }});
    window.refitAxeRun = run.catch(() => null);
    return await run;
}}"""


def live_page(asgi_server, new_context, browser_login, players, side, path="", *, confirm=True):
    """``side``'s campaign page (or the page at ``path`` below it) in a browser context of
    its own, once its socket is open; ``confirm``: the player answers OK to every
    confirmation the page asks."""
    page = browser_login(new_context(), players.users[side]).new_page()
    if confirm:
        page.on("dialog", lambda d: d.accept())
    page.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/{path}")
    page.locator("body[data-live]").wait_for(state="attached")  # its socket is open
    return page


def live_pages(
    asgi_server, new_context, browser_login, players, viewport=None, *, sides=None
) -> dict:
    """Each side's campaign page (or only those of ``sides``), by side, in a browser
    context of its own (at ``viewport`` if given), once its socket is open."""
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    pages = {}
    for side, user in players.users.items():
        if sides is not None and side not in sides:
            continue
        context = new_context(viewport=viewport) if viewport else new_context()
        page = browser_login(context, user).new_page()
        page.goto(url)
        page.locator("body[data-live]").wait_for(state="attached")  # its socket is open
        pages[side] = page
    return pages


def drawn(page) -> None:
    """The page as its player first reads it: loaded, and where it has a campaign
    socket, that socket open (what it sends at connecting has been asked for).  No
    waiting for the network to idle, which costs every page half a second."""
    page.wait_for_load_state("load")
    if page.locator("[data-campaign-socket]").count():
        page.locator("body[data-live]").wait_for(state="attached")


def accessibility_problems(page) -> list[str]:
    """Serious and critical axe-core violations on the page as it is now (none looked
    for in the embedded run: see ``AUDITED``)."""
    if not AUDITED:
        return []
    if not page.evaluate(_INJECTED):
        page.evaluate(_axe.axe_script)
    return list(page.evaluate(_BLOCKING_VIOLATIONS))


class PageAudit:
    """axe-core on each kind of page (its path, ids and tokens aside) as it first
    loads in the test process, and on any page when asked (the states the tests
    name).  A page that navigates away while being checked is checked at its next
    load.  Each test's pages as they are left: the parts re-drawn since the page was
    last checked (its load, for a later load of a kind checked as loaded), not the
    whole document (``_REDRAWN``): a page with nothing re-drawn is not checked again,
    and a change outside the parts, or a page of a kind never checked, is checked
    whole.  ``checked`` says, per check, what was checked."""

    _IDS = re.compile(r"/[0-9a-f-]{32,36}/|/[A-Za-z0-9_-]{20,}/")
    # The kinds already checked as loaded, by any test of this process: a kind's later
    # loads show the same template (a check costs Chromium 0.2-0.5 s).
    seen: set[str] = set()

    def __init__(self) -> None:
        self.problems: list[str] = []
        # (the page's address, when, what was checked: "page", "none", or the parts)
        self.checked: list[tuple[str, str, str]] = []

    def watch(self, page) -> None:
        if AUDITED:
            page.add_init_script(_REDRAWN)
        page.on("load", lambda: self.first_load(page))
        page.on("pageerror", lambda e: self.problems.append(f"{page.url}: script error: {e}"))
        page.on("console", lambda m: self.console(page, m))

    # What the network did is checked elsewhere: a refusal is a 4xx answer by design
    # (shown where the player clicked; tests check where), the server's log holds no
    # 5xx (``no_server_errors``), and some tests cut a request or a socket on purpose.
    # Any other error a page logs (a script's, htmx's swaps) is a problem.
    _NETWORK = re.compile(
        r"Failed to load resource|Response Status Error Code|htmx:sendError|"
        r"htmx:afterRequest|WebSocket connection to"
    )

    def console(self, page, message) -> None:
        if message.type == "error" and not self._NETWORK.search(message.text):
            self.problems.append(f"{page.url}: console error: {message.text}")

    def kind(self, page) -> str:
        return self._IDS.sub("/<id>/", urlsplit(page.url).path)

    def first_load(self, page) -> None:
        kind = self.kind(page)
        if kind not in self.seen:
            self.seen.add(kind)
            if not self.check(page, "as loaded"):
                self.seen.discard(kind)

    def check(self, page, when: str) -> bool:
        """Record the page's serious and critical violations; False if it could not
        be checked (closed, or navigating)."""
        if not page.url.startswith("http") or page.is_closed():
            return True
        try:
            redrawn = None
            if when == "as left" and AUDITED and self.kind(page) in self.seen:
                if not page.evaluate(_INJECTED) and not page.evaluate(_NOTHING_REDRAWN):
                    page.evaluate(_axe.axe_script)
                redrawn = page.evaluate(_REDRAWN_VIOLATIONS)
            if redrawn is None:
                redrawn = {"checked": "page", "found": accessibility_problems(page)}
        except PlaywrightError:
            return False
        self.checked.append((page.url, when, redrawn["checked"]))
        self.problems += [f"{page.url} ({when}): {p}" for p in redrawn["found"]]
        return True


def assert_accessible(page, where: str = "") -> None:
    problems = accessibility_problems(page)
    assert not problems, f"axe on {where or page.url}:\n" + "\n".join(problems)


def horizontal_overflow(page) -> int:
    """How many pixels the page is wider than the window (0: it fits)."""
    return int(
        page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth,"
            " document.body.scrollWidth) - window.innerWidth"
        )
    )
