"""Issue 44, Sicily pass 18 played in real Chromium by two players (one browser context per
side): the last date of CG I (July 17 PM), from 3.617 to 3.621. The British buy only a
B1 (a Pregame Bombardment), its Pre-Registered hex typed beside the price; the Done of
both through 3.617-3.620 goes through the services (tests/browser/at_step.py; both
players clicking through those steps is the whole-campaign browser runs'
(tests/browser/test_play15_campaign.py)); at 3.621 the Axis "Lock Attack" is disabled,
the sentence beside it citing 3.6212 matrix footnote * (the British have no on-map
Retained units, a Bombardment being resolved off the map), and "Lock Idle" is accepted.
The prefix (the walk to July 17 PM) goes through the services."""

import pytest

from campaign.models import InitiativeChit, Purchase
from tests.browser.at_step import back, park
from tests.browser.play import press, title
from tests.purchase_helpers import campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _open(page, url):
    page.goto(url)
    page.locator("body[data-live]").wait_for(state="attached")


def test_sicily_3_6212_star_a_bombardment_only_british_force_refuses_the_axis_attack(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at("sicily", "i", "jul17pm", (make_user("ax18"), make_user("br18")))
    cid = players.campaign_id
    url = f"{asgi_server.url}/campaigns/{cid}/"
    axis = browser_login(new_context(), players.users["axis"]).new_page()
    british = browser_login(new_context(), players.users["british"]).new_page()
    _open(axis, url)
    _open(british, url)
    assert title(axis).startswith("3.617") and title(british).startswith("3.617")

    # 3.617: the B1 with its Pre-Registered hex (British chart footnote i).
    british.get_by_label("Pre-Registered hex of B1 Bombardment").fill("21C5")
    british.get_by_role("button", name="Buy B1 Bombardment for 3 CPP", exact=True).click()
    british.locator("#campaign-record tr", has_text="B1").first.wait_for()
    assert Purchase.objects.filter(campaign_id=cid, side="british", group_id="B1").count() == 1

    def at_initiative(page):
        return title(page).startswith("3.621")

    park(axis, british)
    players.until_step("3.621")  # Done by both: 3.617 to 3.620
    back(axis, url)
    assert at_initiative(axis)
    assert players.step.id == "3.621"  # the British too

    # 3.621: the Axis Attack chit is not offered, the sentence beside it says why
    # (3.6212 *).
    attack = axis.get_by_role("button", name="Lock Attack")
    assert attack.is_disabled()
    said = axis.locator("#attack-refusal").inner_text()
    assert "3.6212" in said and "choose Idle" in said, said
    assert not InitiativeChit.objects.filter(campaign_id=cid).exists()
    press(axis, axis.get_by_role("button", name="Lock Idle"), dialog=True)
    axis.locator("body", has_text="Your chit is locked: Idle").wait_for()
