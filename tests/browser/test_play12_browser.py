"""Playtest 12 in real Chromium (``docs/playtest-12.md``): two people play, one of them
on a 390 px phone, and nothing they do is lost or moved by the other's.

A message arriving while the phone's player has half typed a reply and scrolled up to
read the step neither moves the page nor loses the reply; an action that gives
something up for good asks first (PHD C5.24a's 7-0 out of the Ranks instead of the
Leader Promotion roll); the invitation's *Copy link* copies, or says to copy by hand,
where the browser offers no clipboard (a plain-http address on the players' network);
a refusal to a form that a push re-drew while the click was on its way is shown beside
the form as re-drawn.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from campaign.models import Unit
from tests.browser.helpers import PHONE, horizontal_overflow
from tests.purchase_helpers import add_unit
from tests.test_rule_mechanisms import result_values, start
from tests.walk import host_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _open(asgi_server, new_context, browser_login, campaign_id, user, **ctx):
    page = browser_login(new_context(**ctx), user).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{campaign_id}/")
    page.locator("body[data-live]").wait_for(state="attached")  # its socket is open
    return page


def test_a_message_arriving_keeps_the_phone_page_in_place_and_the_reply_typed(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The British player, on a phone, types half a reply, then scrolls back up to read
    the step (3.6, the scenario's result) with the reply's box still focused; the
    Axis player's message arrives: the phone's page stays where he left it, his reply
    keeps its text, focus and caret, and, sent, it reaches the Axis page live."""
    axis_user, british_user = make_user("axis_p"), make_user("brit_p")
    c = host_game("sicily", "i", axis_user, british_user, side="axis", name="Primosole")
    axis = _open(asgi_server, new_context, browser_login, c.pk, axis_user)
    phone = _open(asgi_server, new_context, browser_login, c.pk, british_user, viewport=PHONE)
    reply = phone.get_by_label("Message to your opponent")
    reply.fill("Sunday suits me, but")
    phone.evaluate("() => window.scrollTo(0, 0)")  # back up to the step; the box keeps focus
    assert phone.evaluate("() => document.activeElement.id") == "message-text"
    axis.get_by_label("Message to your opponent").fill("Shall we play 3.6's scenario Sunday?")
    axis.get_by_role("button", name="Send").click()
    phone.locator("#campaign-messages .theirs", has_text="Sunday?").wait_for()
    phone.wait_for_timeout(300)  # the focus is given back after the swap
    assert phone.evaluate("() => window.scrollY") == 0, "the arriving message moved the page"
    assert reply.input_value() == "Sunday suits me, but"
    assert phone.evaluate("() => document.activeElement.id") == "message-text"
    assert horizontal_overflow(phone) <= 0
    reply.press("End")
    reply.type(" after 8 pm.")
    phone.get_by_role("button", name="Send").click()
    axis.locator(
        "#campaign-messages .theirs", has_text="Sunday suits me, but after 8 pm."
    ).wait_for()
    phone.locator("#campaign-messages .mine", has_text="after 8 pm.").wait_for()
    expect(reply).to_have_value("")  # once the phone has read its own answer


def test_c5_24a_a_7_0_instead_of_the_roll_asks_first(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.24a: the 7-0 created out of the Ranks is taken instead of the Leader
    Promotion Table's DR, which is then gone for the pass.  The click asks first,
    naming what is given up; dismissed, nothing is sent and nothing changes; accepted,
    the 7-0 joins the German's retained forces."""
    players, module = start("purple-heart-draw", "tm", (make_user("us_p"), make_user("ge_p")), "us")
    players.results(**result_values(module))
    players.until_step("C5.24")
    add_unit(players, "german", "8-0 leader", "leader")
    add_unit(players, "german", "4-6-7", "squad", number=4)
    ge = _open(
        asgi_server, new_context, browser_login, players.campaign_id, players.users["german"]
    )
    offer = ge.get_by_role(
        "button", name="Instead of rolling: Promote a 7-0 leader out of the Ranks (C5.24a)"
    )
    asked: list[str] = []
    sent: list[str] = []
    ge.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    ge.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    offer.click()
    ge.wait_for_timeout(300)
    assert asked and "no roll on the Leader Promotion Table" in asked[0], asked
    assert not sent
    sevens = Unit.objects.filter(campaign_id=players.campaign_id, name="7-0 leader")
    assert not sevens.exists()
    ge.once("dialog", lambda d: d.accept())
    offer.click()
    ge.locator("#table-leader_promotion", has_text="You have done so in this pass").wait_for()
    assert sevens.count() == 1


NO_CLIPBOARD = "Object.defineProperty(navigator, 'clipboard', {get: () => undefined});"


def test_copy_link_without_a_clipboard_selects_the_link_and_says_so(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The host's browser reached on a plain-http address of the players' network has
    no clipboard API: *Copy link* still copies (or, failing that, leaves the link
    selected) and says which, instead of doing nothing."""
    host = make_user("host_p")
    c = host_game("sicily", "i", host, side="axis", name="Primosole")
    ctx = new_context(viewport=PHONE)
    ctx.add_init_script(NO_CLIPBOARD)
    page = browser_login(ctx, host).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{c.pk}/")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.locator("body[data-live]").wait_for(state="attached")  # the page's script ran
    button = page.get_by_role("button", name="Copy link")
    # Under load, the part holding the link may be re-drawn by the socket's first
    # frame just after a click (its status and selection then gone): the player clicks
    # again.  What the click said and selected is read in one step, as it stood.
    read_back = """() => {
        const said = document.getElementById('invite-copied');
        const url = document.getElementById('invite-url');
        if (!said || !url || !said.innerText.trim()) return null;
        return [said.innerText.trim(), url.value.substring(url.selectionStart, url.selectionEnd),
                url.value];
    }"""
    for attempt in range(3):
        button.click()
        try:
            text, selected, link = page.wait_for_function(read_back, timeout=5000).json_value()
            if text == "Copied." or selected == link:
                break
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise
    assert text in (
        "Copied.",
        "Your browser did not let the page copy it: the link is selected, copy it.",
    ), text
    assert selected == link
    assert not errors, errors


# What a push does to the step's panel: a new one in its place, its buttons ready.
REDRAW_STEP = """() => {
    const part = document.getElementById('campaign-step');
    const fresh = part.cloneNode(true);
    fresh.querySelectorAll('button').forEach(b => {
        b.disabled = false;
        b.removeAttribute('aria-busy');
    });
    fresh.querySelectorAll('.htmx-request').forEach(e => e.classList.remove('htmx-request'));
    part.replaceWith(fresh);
    htmx.process(fresh);
}"""


def _held(page, held: list):
    for _ in range(50):
        if held:
            return held.pop()
        page.wait_for_timeout(50)
    raise AssertionError("the click was never sent")


def test_a_refusal_lands_beside_the_form_a_push_redrew_while_it_was_sent(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.6: the British player, on a phone, disputes the Axis's result with a reason of
    blanks; while his click is on its way, a push re-draws the step's panel (as the
    opponent's every action does).  The refusal appears after the dispute form he sees
    now, where he clicked (htmx told it only to the form re-drawn away: it was shown
    nowhere); and so does "The server cannot be reached" when the click gets no
    answer at all."""
    axis_user, british_user = make_user("axis_r"), make_user("brit_r")
    c = host_game("sicily", "i", axis_user, british_user, side="axis", name="Primosole")
    axis = _open(asgi_server, new_context, browser_login, c.pk, axis_user)
    for name in ("cvp_lost.axis", "cvp_lost.british", "san.axis", "san.british"):
        axis.locator(f"[name='{name}']").fill("3")
    axis.get_by_role("button", name="Enter the result").click()
    phone = _open(asgi_server, new_context, browser_login, c.pk, british_user, viewport=PHONE)
    held: list = []
    phone.route("**/act/dispute/", lambda route: held.append(route))
    phone.locator("#dispute-reason").fill("   ")
    phone.get_by_role("button", name="Dispute").click()
    route = _held(phone, held)
    phone.evaluate(REDRAW_STEP)  # a push re-draws the panel the form was in
    route.continue_()
    beside = phone.locator("#campaign-step form.dispute + .refusal")
    beside.wait_for()
    assert "Say what is wrong with the result" in beside.inner_text()
    assert phone.locator("#flash").inner_text().strip() == ""
    # The same when the click gets no answer at all (the network is down).
    phone.get_by_role("button", name="Dispute").click()
    route = _held(phone, held)
    phone.evaluate(REDRAW_STEP)
    route.abort("failed")
    phone.locator(
        "#campaign-step form.dispute + .refusal", has_text="The server cannot be reached"
    ).wait_for()
    assert phone.locator("#flash").inner_text().strip() == ""
