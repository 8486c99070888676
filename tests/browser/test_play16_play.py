"""Playtest 16 (``docs/playtest-16.md``): the paths playtest 15 did not play, in two
browsers (the guest on a 390 px phone): the third scenario and the CG's end, a player
who leaves mid-step and comes back, each undo, a stale form, the keyboard only, the
chat on the phone, a start sheet refused then agreed.  Each test sets the campaign
where its path begins through the services (the earlier steps are playtest 15's),
then plays that path through the pages, branching on what they say; each page is
read as a player reads it (``Reader``: sideways scroll, author's words, unlabelled
fields, buttons named alike)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import PHONE, live_pages
from tests.browser.play import confirm, enter_result
from tests.browser.test_play15_campaign import DESKTOP
from tests.browser.test_play15_campaign import Reader as Reader15
from tests.test_rule_mechanisms import result_values, start, supply

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Reader(Reader15):
    """Playtest 15's reader, but "None yet." (the roster's empty list) is English, not
    Python's None."""

    def read(self, page, where: str = "") -> None:
        before = len(self.found)
        super().read(page, where)
        text = page.locator("main").first.inner_text() if page.locator("main").count() else ""
        if not re.search(r"\bNone\b(?! yet)", text):
            self.found[before:] = [f for f in self.found[before:] if "'None'" not in f]


def pages_of(asgi_server, new_context, browser_login, players, phone_side: str) -> dict:
    """Each side's campaign page: ``phone_side``'s on a 390 px phone, the other's on a
    desktop."""
    host = next(s for s in players.users if s != phone_side)
    desk = live_pages(
        asgi_server, new_context, browser_login, _only(players, host), viewport=DESKTOP
    )
    phone = live_pages(
        asgi_server, new_context, browser_login, _only(players, phone_side), viewport=PHONE
    )
    return {**desk, **phone}


class _only:
    def __init__(self, players, side):
        self.campaign_id = players.campaign_id
        self.users = {side: players.users[side]}


def test_the_third_scenario_ends_the_cg_with_the_seed_and_the_final_roster(
    asgi_server, new_context, browser_login, modules, make_user
):
    """A Pleasant Diversion's third date (Dec 6 Afternoon): its result entered on the
    desktop and confirmed on the phone ends the CG (4.0): both pages say so and who
    won, offer no further step, disclose the dice seed (the dice page verifies every
    roll with it) and show the final roster."""
    players, module = start(
        "pleasant-diversion", "cg", (make_user("am"), make_user("de")), "american"
    )
    players.results(**result_values(module, vp_american=63, cvp_lost_american=41))
    supply(players, "dates.dec6midday.vp_required", {"value": "120"}, by="american")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=20))
    players.until("results")
    pages = pages_of(asgi_server, new_context, browser_login, players, "german")
    desk, phone = pages["american"], pages["german"]
    reader = Reader()
    for side, page in pages.items():
        reader.read(page, f"the Afternoon's result ({side})")
    enter_result(desk, {"vp.american": 30, "cvp_lost.american": 12, "cvp_lost.german": 9})
    confirm(phone)
    for side, page in pages.items():
        page.locator("#campaign-header .outcome").wait_for()
        reader.read(page, f"the CG's end ({side})")
        header = page.locator("#campaign-header").inner_text()
        assert "the CG has ended" in header and "Waiting for" not in header, header
        assert "Midday scenario" not in header, header  # the last date's news, gone
        assert not page.locator("#campaign-step form").count()  # nothing more to do
        seed = page.locator("#campaign-sides").inner_text()
        assert re.search(r"Seed: [0-9a-f]{64}", seed), seed
    # The phone checks every roll against the disclosed seed, then reads the roster.
    phone.get_by_role("link", name="All rolls and their verification").click()
    phone.locator("#verified").wait_for()
    reader.read(phone, "the dice page at the end")
    phone.go_back()
    phone.get_by_role("link", name="CG Roster and retained forces").first.click()
    roster = phone.locator("#cg-roster")
    roster.wait_for()
    reader.read(phone, "the final CG Roster")
    assert "Afternoon" in roster.inner_text()
    reader.report()


FOCUSED = """() => {
    const e = document.activeElement;
    return e ? (e.getAttribute('aria-label') || e.innerText || e.tagName).trim().slice(0, 80) : '';
}"""


def tab_to(page, name: str, limit: int = 250) -> int:
    """Press Tab until the focused control's name starts with ``name``; how many."""
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED).startswith(name):
            return n
    raise AssertionError(f"{name!r} is not reached by Tab in {limit} presses")


def _holding(ws, held):
    """A page's socket whose pushes from the server stop once ``held`` is set."""
    server = ws.connect_to_server()
    server.on_message(lambda message: None if held else ws.send(message))


def test_a_purchase_by_keyboard_a_reload_a_cancel_and_a_stale_tab(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Sicily 3.617: the British player buys an RG with the keyboard only (Tab to its
    Buy, Enter): the focus stays in the step, so the next Tab goes on from there (it
    fell to the top of the page); a reload mid-step keeps the purchase; his second
    tab, whose pushes are lost, still offers *Cancel* after he cancelled it in the
    first (asked: its points are refunded): pressed, it is refused beside the click,
    in a sentence, and nothing changes."""
    from campaign.models import Purchase
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax"), make_user("br")))
    pages = pages_of(asgi_server, new_context, browser_login, players, "axis")
    desk, phone = pages["british"], pages["axis"]
    held: list[bool] = []
    second = desk.context.new_page()
    second.route_web_socket("**/ws/campaigns/**", lambda ws: _holding(ws, held))
    second.goto(desk.url)
    second.locator("body[data-live]").wait_for(state="attached")
    reader = Reader()
    reader.read(desk, "3.617 (British)")
    reader.read(phone, "3.617 (Axis)")
    desk.bring_to_front()
    assert tab_to(desk, "Buy V6") > 10
    desk.keyboard.press("Enter")
    line = desk.locator(".purchases li", has_text="V6")
    line.wait_for()
    desk.wait_for_timeout(300)  # the push's parts are in
    focus = desk.evaluate("() => !!document.activeElement.closest('#campaign-step')")
    assert focus, f"the focus fell to {desk.evaluate(FOCUSED)!r}"
    tab_to(desk, "Cancel RG 1", limit=60)  # on from the chart, not from the top
    second.locator(".purchases li", has_text="V6").wait_for()  # the second tab saw it
    held.append(True)  # from now on the second tab misses the pushes
    desk.reload()
    desk.locator("body[data-live]").wait_for(state="attached")
    line.wait_for()  # still bought after a reload
    asked = []
    desk.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    desk.get_by_role("button", name=re.compile("^Cancel RG 1 of the list")).click()
    line.wait_for(state="detached")
    assert "refunded" in asked[0], asked
    second.bring_to_front()
    second.once("dialog", lambda d: d.accept())
    second.get_by_role("button", name=re.compile("^Cancel RG 1 of the list")).click()
    refusal = second.locator(".purchases .refusal, #campaign-step .refusal")
    refusal.wait_for()
    assert "Nothing was changed" in refusal.inner_text(), refusal.inner_text()
    bought = Purchase.objects.filter(campaign_id=players.campaign_id)
    assert [p.status for p in bought] == [Purchase.Status.CANCELLED]
    reader.report()


def test_a_result_taken_back_an_amendment_withdrawn_and_the_chat_on_the_phone(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Sicily 3.6 (the Initial Scenario's result): the British enters it, sees a figure
    wrong and takes it back (asked first), enters it again; the Axis confirms on the
    phone, proposes an amendment and withdraws it.  Meanwhile they talk: a message
    arriving on the phone neither moves its page nor touches the reply being typed."""
    from campaign.models import Seat
    from tests.walk import host_game, players_of

    axis_user, british_user = make_user("ax"), make_user("br")
    campaign = host_game("sicily", "i", british_user, axis_user, side="british")
    players = players_of(campaign, british_user, axis_user)
    pages = pages_of(asgi_server, new_context, browser_login, players, "axis")
    desk, phone = pages["british"], pages["axis"]
    reader = Reader()
    figures = {"cvp_lost.axis": 5, "cvp_lost.british": 30, "san.axis": 3, "san.british": 3}
    enter_result(desk, figures)
    take_back = desk.get_by_role("button", name="Take back the result I entered")
    take_back.wait_for()
    phone.get_by_role("button", name="Confirm the result", exact=True).wait_for()
    reader.read(phone, "the result to confirm")
    asked: list[str] = []
    desk.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    take_back.click()
    desk.get_by_role("button", name="Enter the result").wait_for()
    assert asked and "enter it again" in asked[0], asked
    phone.get_by_role("button", name="Confirm the result", exact=True).wait_for(state="detached")
    enter_result(desk, {**figures, "cvp_lost.british": 3})
    # The chat on the phone while the result waits: a half-typed reply, the page
    # scrolled to it; the British writes; nothing moves.
    draft = phone.get_by_label("Message to your opponent")
    draft.fill("Was it 3 CVP or 30?")
    draft.scroll_into_view_if_needed()
    on_screen = (
        "() => Math.round(document.getElementById('message-text').getBoundingClientRect().top)"
    )
    where = phone.evaluate(on_screen)
    desk.get_by_label("Message to your opponent").fill("3 — I typed 30 first, sorry.")
    desk.get_by_role("button", name="Send").click()
    phone.locator("#campaign-messages .theirs", has_text="I typed 30 first").wait_for()
    phone.wait_for_timeout(300)
    assert abs(phone.evaluate(on_screen) - where) <= 2
    assert draft.input_value() == "Was it 3 CVP or 30?"
    phone.get_by_role("button", name="Send").click()
    desk.locator("#campaign-messages .theirs", has_text="3 CVP or 30?").wait_for()
    # The desk can see the message before the phone has read its own answer.
    expect(draft).to_have_value("")
    reader.read(phone, "the messages on the phone")
    confirm(phone)
    phone.locator("#campaign-step #amend").wait_for()
    phone.locator("#amend > summary").click()
    phone.locator("#amend input[name='cvp_lost.axis']").fill("6")
    phone.get_by_label("Why").fill("A crew lost in the last turn")
    reader.read(phone, "an amendment on the phone")
    phone.get_by_role("button", name="Propose the amendment").click()
    desk.get_by_role("button", name="Accept the amendment").wait_for()
    phone.get_by_role("button", name="Withdraw my amendment").click()
    desk.get_by_role("button", name="Accept the amendment").wait_for(state="detached")
    phone.get_by_role("button", name="Propose the amendment").wait_for()
    assert Seat.objects.filter(campaign=campaign).count() == 2
    reader.report()


def test_a_start_sheet_withdrawn_refused_then_agreed(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Purple Heart Draw's start (C4.2's OB, the lost RG charts, C5.33's Leader Table):
    the US player proposes the start sheet and withdraws it; proposes it again; the
    German refuses it on the phone with a reason; the US player reads the reason, finds
    his figures still on the sheet, changes one and proposes again; the German accepts
    all of it."""
    from tests.browser.play import fill
    from tests.browser.test_play15_campaign import PHD_START
    from tests.walk import host_game, players_of

    us_user, german_user = make_user("us"), make_user("de")
    campaign = host_game("purple-heart-draw", "tm", us_user, german_user, through_start=False)
    players = players_of(campaign, us_user, german_user)
    pages = pages_of(asgi_server, new_context, browser_login, players, "german")
    desk, phone = pages["us"], pages["german"]
    reader = Reader()

    def propose(values):
        desk.get_by_role("link", name="Fill in the start sheet").click()
        desk.locator("form.supply-form").wait_for()
        reader.read(desk, "the start sheet")
        fill(desk, "form.supply-form", values)
        desk.get_by_role("button", name="Propose the start sheet to my opponent").click()
        desk.locator("#campaign-supplies .package", has_text="Waiting for your opponent").wait_for()

    propose(PHD_START)
    package = phone.locator("#campaign-supplies .package", has_text="Start sheet proposed by")
    package.wait_for()
    desk.get_by_role("button", name="Withdraw the start sheet").click()
    package.wait_for(state="detached")
    propose(PHD_START)
    package.wait_for()
    reader.read(phone, "the start sheet to answer")
    package.get_by_label("Or refuse all of it — what is wrong?").fill("Our German I1 costs 7")
    package.get_by_role("button", name="Refuse all").click()
    package.wait_for(state="detached")
    desk.locator("#campaign-supplies", has_text="Our German I1 costs 7").wait_for()
    desk.get_by_role("link", name="Fill in the start sheet").click()
    form = desk.locator("form.supply-form")
    form.wait_for()
    kept = form.locator("[name='rg_charts.german|row-0-units']").input_value()
    assert kept == PHD_START["rg_charts.german|row-0-units"], kept
    desk.go_back()
    desk.locator("body[data-live]").wait_for(state="attached")
    propose({**PHD_START, "rg_charts.german|row-0-cost": "7"})
    package.wait_for()
    phone.once("dialog", lambda d: d.accept())
    package.get_by_role("button", name=re.compile(r"^Accept all")).click()
    package.wait_for(state="detached")
    reader.report()


def test_the_initiative_chits_picked_with_the_keyboard_and_revealed_on_both(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Sicily 3.621: the British player Tabs to *Lock Attack* and presses Enter; the
    page asks (he may take it back until the Axis locks), Enter accepts; the focus stays
    in the step.  He takes it back (the phone reads "has not chosen yet") and locks it
    again; the Axis on the phone locks Idle, asked first that both are then revealed;
    both pages show the reveal at once (British Attack)."""
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("ax"), make_user("br")), kind="initiative"
    )
    pages = pages_of(asgi_server, new_context, browser_login, players, "axis")
    desk, phone = pages["british"], pages["axis"]
    reader = Reader()
    reader.read(desk, "3.621 (British)")
    reader.read(phone, "3.621 (Axis)")
    desk.bring_to_front()
    tab_to(desk, "Lock Attack")
    asked: list[str] = []
    desk.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    desk.keyboard.press("Enter")
    desk.locator("#campaign-step .waiting", has_text="Your chit is locked").wait_for()
    assert asked and "take it back until your opponent locks" in asked[0], asked
    desk.wait_for_timeout(300)
    assert desk.evaluate("() => !!document.activeElement.closest('#campaign-step')"), desk.evaluate(
        FOCUSED
    )
    phone.locator("#campaign-step", has_text="has chosen").wait_for()
    desk.get_by_role("button", name="Take back my chit").click()
    phone.locator("#campaign-step", has_text="has not chosen yet").wait_for()
    desk.once("dialog", lambda d: d.accept())
    desk.get_by_role("button", name="Lock Attack").click()
    phone.locator("#campaign-step", has_text="British: has chosen").wait_for()
    phone.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    phone.get_by_role("button", name="Lock Idle").click()
    for page in (desk, phone):
        page.locator("#initiative-result", has_text="British Attack").wait_for()
    reader.read(phone, "the reveal on the phone")
    assert "Both chits are revealed at once and stand" in asked[-1], asked
    reader.report()
