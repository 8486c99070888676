"""Playtest 25 (``docs/playtest-25.md``): two people who play it every week, one on a
touch phone.  What one of them could give up alone, or before the other was there,
pinned in real Chromium: the host alone could finish the first step, or go on
without the data his opponent had not yet seen, before his opponent had joined."""

from __future__ import annotations

import pytest

from campaign.services import hosting
from campaign.services.errors import ActionRefused
from campaign.services.steps import finish_step
from tests.browser.helpers import PHONE, drawn, horizontal_overflow
from tests.purchase_helpers import campaign_at
from tests.walk import host_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOUCH = {"viewport": PHONE, "is_mobile": True, "has_touch": True}
DESK = {"viewport": {"width": 1280, "height": 800}}


def _page(new_context, browser_login, url, user, options):
    page = browser_login(new_context(**options), user).new_page()
    page.on("dialog", lambda d: d.accept())
    page.goto(url)
    drawn(page)
    return page


@pytest.mark.parametrize(
    ("module_id", "variant", "guest_side"),
    [("sicily", "i", "British"), ("purple-heart-draw", "tm", "German")],
)
def test_the_host_alone_prepares_and_the_step_waits_for_his_opponent(
    asgi_server, new_context, browser_login, modules, make_user, module_id, variant, guest_side
):
    """The host has hosted and sent the link; his opponent has not joined.  At the
    first step (Sicily I-3.617, both sides buy in secret; PHD I-C5.12, both sides'
    checklist) he could press Done, or "Go on without it" (the start's points his
    opponent had not yet seen, let alone accepted): one player deciding, alone, a
    step each side does (Sicily 3.6: "performed simultaneously by each side").  Now
    the step says what waits for the opponent and why, and what he may do alone
    meanwhile; neither button is offered, and the action is refused with that
    sentence.  When the opponent joins, the host's step offers them, live."""
    host = make_user("host25")
    campaign = host_game(module_id, variant, host)
    url = f"{asgi_server.url}/campaigns/{campaign.pk}/"
    phone = _page(new_context, browser_login, url, host, TOUCH)
    waits = phone.locator("#finish-unjoined")
    waits.wait_for()
    words = waits.inner_text()
    assert f"the {guest_side} side has no player yet" in words, words
    assert "waits until your opponent has joined" in words, words
    if module_id == "sicily":  # the start's points are missing: nothing to buy with yet
        assert "Meanwhile you may fill in the start sheet" in words, words
    step = phone.locator("#campaign-step")
    for button in ("Go on without it", "Done with"):
        assert not step.get_by_role("button", name=button).count(), button
    assert horizontal_overflow(phone) <= 0
    with pytest.raises(ActionRefused, match="has no player yet"):
        finish_step(campaign_id=campaign.pk, user=host, without_data=True)
    # The link in the sentence leads to the invitation to send.
    waits.get_by_role("link", name="Send the invitation link.").tap()
    phone.wait_for_url("**#invitation")

    guest = make_user("guest25")
    hosting.join_campaign(token=campaign.invitations.get().token, user=guest)
    waits.wait_for(state="detached")  # live, without a reload
    offered = step.get_by_role("button", name="Go on without it").or_(
        step.get_by_role("button", name="Done with")
    )
    offered.first.wait_for()


def test_a_message_arriving_out_of_sight_is_counted_on_the_phone_s_screen(
    asgi_server, new_context, browser_login, modules, make_user
):
    """On a phone the messages are screens below the step: a message arriving while
    the player buys at the step (the page kept where he is) showed nothing on his
    screen (a notification only when the tab is hidden).  Now a button at the foot of
    his screen counts the messages arriving out of sight and leads to them; seen, it
    goes.  The roster, the sheet and the dice page lead to the messages too."""
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax25"), make_user("br25")))
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    phone = _page(new_context, browser_login, url, players.users["axis"], TOUCH)
    desk = _page(new_context, browser_login, url, players.users["british"], DESK)
    pill = phone.locator("#new-messages")
    assert pill.is_hidden()
    for n, words in ((1, "1 new message"), (2, "2 new messages")):
        desk.get_by_label("Message to your opponent").fill(f"Message {n}: nine tonight?")
        desk.get_by_role("button", name="Send").click()
        phone.locator("#campaign-messages .theirs", has_text=f"Message {n}").wait_for(
            state="attached"
        )
        phone.wait_for_function(
            "w => document.getElementById('new-messages').textContent === w", arg=words
        )
    box = pill.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
    assert box["height"] >= 44, box
    assert phone.locator("#step-title").is_visible()  # he was left at the step
    pill.tap()
    pill.wait_for(state="hidden")
    assert phone.locator("#campaign-messages .theirs", has_text="Message 2").is_visible()
    # The desk's messages are beside the step, in sight: nothing to count there.
    phone.get_by_label("Message to your opponent").fill("Nine it is.")
    phone.get_by_role("button", name="Send").click()
    desk.locator("#campaign-messages .theirs", has_text="Nine it is.").wait_for()
    assert desk.locator("#new-messages").is_hidden()
    for other in ("roster/", "sheet/", "dice/"):
        phone.goto(url + other)
        phone.get_by_role("link", name="Messages", exact=True).tap()
        phone.wait_for_url(f"{url}#campaign-messages")


# The chart's cells whose words run past the right edge of the box it scrolls in
# (cut off there: the box hides what is past it), with their words.
CUT = """() => {
    const box = document.getElementById('chart-box');
    const edge = box.getBoundingClientRect().right;
    return [...box.querySelectorAll('td')]
        .filter(td => td.checkVisibility() && td.getBoundingClientRect().right > edge + 1)
        .map(td => td.innerText.replace(/\\s+/g, ' ').trim().slice(0, 60));
}"""


def test_the_chart_on_a_320_px_phone_cuts_no_unit_or_rg_name(
    asgi_server, new_context, browser_login, modules, make_user
):
    """On a 320 px phone (the narrowest still sold) the RG chart's cards kept each
    cell on one line: "4-5-8;4-5-7;4-4-7 (4/3 each)" read "4-5-8;4-5-7;4-4-7 (4/3 ea",
    the British carriers and "Fallschirmjäger Pioneer Coy" ran past the card's edge,
    hidden there unless the player thought to swipe the chart sideways.  A card's
    cells wrap, at a space or a hyphen, within the screen; the page never scrolls
    sideways."""
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax25"), make_user("br25")))
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    narrow = {**TOUCH, "viewport": {"width": 320, "height": 640}}
    for side in ("british", "axis"):
        phone = _page(new_context, browser_login, url, players.users[side], narrow)
        assert phone.locator("#chart-box button[aria-label^='Buy ']").count() > 5
        cut = phone.evaluate(CUT)
        assert not cut, (side, cut)
        assert horizontal_overflow(phone) <= 0
