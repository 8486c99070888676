"""Issue 44, Sicily pass 7 part B in real Chromium: 3.619 footnote e on screen.  A
Trench is refused, with the footnote, where no hex is named; it is bought for the hex
whose Foxhole the side placed on the previous CG Date, and the purchase names the
Foxhole removed (class 1, a condition from a footnote)."""

import pytest

from campaign.models import Event, FortificationBuy, Seat
from campaign.services import purchases
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import buy

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_3_619_footnote_e_a_trench_is_bought_for_the_hex_of_a_foxhole(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("ax"), make_user("br")))
    cid, axis_user = players.campaign_id, players.users["axis"]
    buy(players, "axis", "M3")
    players.until("fortify")
    purchases.buy_fortification(
        campaign_id=cid, user=axis_user, item_id="foxhole", tier=1, location="12F4"
    )
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    buy(players, "axis", "M3")
    players.until("fortify")
    page = browser_login(new_context(), axis_user).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{cid}/")
    page.locator("body[data-live]").wait_for(state="attached")
    row = page.locator("#fort-trench")
    row.get_by_role("button", name="Buy").click()
    shown = page.locator("#fort-trench .refusal, #flash .refusal, #flash [role=alert]").first
    shown.wait_for()
    said = shown.inner_text()
    assert "name the hex (Where) that held a Foxhole on the previous CG Date" in said, said
    assert "(3.619 footnote e)" in said, said
    assert not FortificationBuy.objects.filter(campaign_id=cid, item_id="trench").exists()
    assert Seat.objects.get(campaign_id=cid, side="axis").fortification_points == 20
    page.locator("#fort-where-trench").fill("12F4")
    page.locator("#fort-trench").get_by_role("button", name="Buy").click()
    page.locator("body", has_text="Trench").locator("ul li", has_text="Trench").first.wait_for()
    assert FortificationBuy.objects.get(campaign_id=cid, item_id="trench").location == "12F4"
    line = Event.objects.filter(campaign_id=cid, kind="fortify").latest("id").text
    assert "the Foxhole placed there on July 14 PM is removed (3.619 footnote e)" in line
