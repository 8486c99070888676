"""Playtest 26 (``docs/playtest-26.md``): talking across pages, and a start sheet that
survives a change of device.  Two real Chromium browsers, one a 390 px touch phone:
a message arriving while the player reads the roster, the scenario sheet, the dice
page or the start sheet showed nowhere there; a start sheet withdrawn on the phone
came back blank on the desk (its figures were kept in the phone's session)."""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.services.messages import send_message
from tests.browser.helpers import PHONE, drawn, horizontal_overflow
from tests.browser.play import fill
from tests.browser.test_start_sheet_browser import SICILY_START
from tests.purchase_helpers import campaign_at
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOUCH = {"viewport": PHONE, "is_mobile": True, "has_touch": True}
DESK = {"viewport": {"width": 1280, "height": 800}}
COUNT = "#unread-messages"


def _page(new_context, browser_login, url, user, options):
    page = browser_login(new_context(**options), user).new_page()
    page.on("dialog", lambda d: d.accept())
    page.goto(url)
    drawn(page)
    return page


def _says(page, words: str) -> None:
    page.wait_for_function(
        "w => (document.querySelector('#unread-messages')?.innerText || '').trim() === w",
        arg=words,
    )


def test_an_unread_count_on_every_page_kept_on_the_server_and_cleared_once_seen(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The British player writes from his desk while the Axis player, on his phone,
    reads the roster: the roster says "1 new message from your opponent", live,
    through its socket (it said nothing: the roster only linked to the messages).
    The count is the seat's, kept on the server: the sheet, the dice page and the
    start sheet say it as they load, on the phone or anywhere else.  It is a polite
    live region.  Once the messages are in sight on his campaign page it is cleared,
    on every page.  The writer's own pages count nothing: a seat counts only the
    messages it was sent."""
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax26"), make_user("br26")))
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    axis, british = players.users["axis"], players.users["british"]
    phone = _page(new_context, browser_login, url + "roster/", axis, TOUCH)
    desk = _page(new_context, browser_login, url, british, DESK)
    count = phone.locator(COUNT)
    assert count.get_attribute("aria-live") == "polite"
    assert count.inner_text().strip() == ""
    desk.get_by_label("Message to your opponent").fill("Nine tonight?")
    desk.get_by_role("button", name="Send").click()
    _says(phone, "1 new message from your opponent")
    send_message(campaign_id=players.campaign_id, user=british, text="Or ten.")
    _says(phone, "2 new messages from your opponent")
    assert desk.locator(COUNT).inner_text().strip() == ""  # the writer's own: none
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").messages_unread == 2
    # Every other page of the campaign says it as it loads.
    for other in ("sheet/", "dice/", "start-sheet/"):
        phone.goto(url + other)
        _says(phone, "2 new messages from your opponent")
        assert horizontal_overflow(phone) <= 0, other
    # A second device of the same player knows it too: the count is the seat's.
    second = _page(new_context, browser_login, url + "dice/", axis, DESK)
    _says(second, "2 new messages from your opponent")
    # The count leads to the messages; in sight there, they are seen, on every page.
    phone.goto(url + "roster/")
    _says(phone, "2 new messages from your opponent")
    roster = phone
    reader = _page(new_context, browser_login, url, axis, TOUCH)
    reader.locator(COUNT).get_by_role("link").tap()
    reader.locator("#campaign-messages .theirs", has_text="Or ten.").wait_for()
    _says(reader, "")
    _says(roster, "")  # live, through the roster's socket
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").messages_unread == 0
    second.reload()
    _says(second, "")


def test_a_start_sheet_withdrawn_on_the_phone_comes_back_filled_in_on_the_desk(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Sicily CG I's start sheet proposed and withdrawn on the phone, then opened on the
    desk: it came back blank (the figures were kept in the phone's session), sixteen
    cells to type again.  They are kept with the seat: the desk shows them."""
    axis, british = make_user("ax26s"), make_user("br26s")
    campaign = host_game("sicily", "i", british, axis, through_start=False)
    players = players_of(campaign, british, axis)
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    phone = _page(new_context, browser_login, url + "start-sheet/", british, TOUCH)
    phone.locator("form.supply-form").wait_for()
    fill(phone, "form.supply-form", SICILY_START)
    phone.get_by_role("button", name="Propose the start sheet to my opponent").tap()
    package = phone.locator("#campaign-supplies .package", has_text="Waiting for your opponent")
    package.wait_for()
    package.get_by_role("button", name="Withdraw the start sheet").tap()
    package.wait_for(state="detached")
    desk = _page(new_context, browser_login, url + "start-sheet/", british, DESK)
    desk.locator("#sheet-kept").wait_for()
    for name, value in SICILY_START.items():
        assert desk.locator(f"form.supply-form [name='{name}']").input_value() == value, name
    # The opponent's sheet is not filled with his.
    other = _page(new_context, browser_login, url + "start-sheet/", axis, DESK)
    assert not other.locator("#sheet-kept").count()
    assert other.locator("[name='variants.i.start.points|value.axis']").input_value() != "39"
