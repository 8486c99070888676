"""Issue 44, Sicily pass 9 part B in real Chromium: British chart footnote i on screen.
A Bombardment bought without its Pre-Registered hex is refused where the player
clicked, with the footnote, and nothing is spent; with the hex typed beside its price
it is bought, and the owner's record line shows the hex (class 1, a condition from a
footnote; class 2, what a footnote asks for offered where the player acts)."""

import pytest

from campaign.models import Purchase, Seat
from tests.purchase_helpers import campaign_at

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_british_footnote_i_the_bombardment_asks_for_its_pre_registered_hex(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax9"), make_user("br9")))
    cid, british = players.campaign_id, players.users["british"]
    before = Seat.objects.get(campaign_id=cid, side="british").points
    page = browser_login(new_context(), british).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{cid}/")
    page.locator("body[data-live]").wait_for(state="attached")
    row = page.locator("#rg-B1")
    buy = row.get_by_role("button", name="Buy B1 Bombardment for 3 CPP", exact=True)
    buy.click()
    refusal = page.locator("#rg-B1 .refusal [role=alert]")
    refusal.wait_for()
    said = refusal.inner_text()
    assert "Pre-Registered hex" in said and "3.617 British chart footnote i" in said, said
    assert not Purchase.objects.filter(campaign_id=cid, group_id="B1").exists()
    assert Seat.objects.get(campaign_id=cid, side="british").points == before
    page.reload()
    page.locator("body[data-live]").wait_for(state="attached")
    page.get_by_label("Pre-Registered hex of B1 Bombardment").fill("23G5")
    page.locator("#rg-B1").get_by_role("button", name="Buy B1 Bombardment for 3 CPP").click()
    page.locator(".purchases li", has_text="Bombardment").wait_for()
    assert Purchase.objects.get(campaign_id=cid, group_id="B1").recorded_hex == "23G5"
    page.locator("#campaign-record tr", has_text="Pre-Registered hex 23G5").wait_for()
