"""Issue 44, pass 16, A Pleasant Diversion in two browsers: 3.1 footnote * "Any SW
Possessed by an Evacuated leader is considered Transferred to the MMC as well".  The
American's wounded 8-1 holding a BAZ is Evacuated (dr 5, fixed, through the services)
while he holds two MMC: his 3.1 page offers no Done and says the BAZ waits; on the
roster's Edit fold, naming his 8-0 leader as the BAZ's possessor is refused (not an
MMC); naming the 2-4-7 gives it the BAZ, the German's roster shows it live, and the 7-0
is placed with it; then his Done goes through."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests import test_rule_mechanisms
from tests.browser.helpers import live_page
from tests.test_rule_mechanisms import add, apd_at, roll

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

fixed_dice = test_rule_mechanisms.fixed_dice


_open = live_page


def test_3_1_footnote_the_evacuated_leaders_baz_goes_to_the_mmc_named_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user, fixed_dice
):
    players, _ = apd_at((make_user("us_p"), make_user("de_p")), "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded", location="12K5")
    baz = add(players, "american", "BAZ 45", "sw", possessor=leader.ref)
    add(players, "american", "7-4-7", "squad", location="12L6")
    half = add(players, "american", "2-4-7", "half_squad", location="12J2")
    add(players, "american", "8-0 leader", "leader", location="12J2")
    fixed_dice.append([5])
    assert roll(players, "american", "recovery", leader).result == "Evacuated*"
    seven = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")

    us = _open(asgi_server, new_context, browser_login, players, "american")
    # Pass 19: no Done is offered while the BAZ waits for its MMC; the page says why.
    us.locator("#campaign-step", has_text="Transferred to the MMC").wait_for()
    assert "BAZ 45" in us.locator("#campaign-step").inner_text()
    assert us.get_by_role("button", name="Done with 3.1", exact=True).count() == 0

    de = _open(asgi_server, new_context, browser_login, players, "german", "roster/")
    seen = de.locator(f"#unit-{baz.ref}")
    seen.wait_for()

    us.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/roster/")
    us.wait_for_selector("body[data-live]")
    line = us.locator(f"#unit-{baz.ref}")
    line.locator("summary", has_text="Edit").click()
    line.get_by_label("Who possesses BAZ 45").select_option(label="8-0 leader")
    line.get_by_role("button", name="Save BAZ 45", exact=True).click()
    us.get_by_role("alert").filter(has_text="8-0 leader is not one of your MMC").wait_for()
    assert Unit.objects.get(pk=baz.pk).possessor_id is None
    line.get_by_label("Who possesses BAZ 45").select_option(label="2-4-7")
    line.get_by_role("button", name="Save BAZ 45", exact=True).click()
    seen.get_by_text("possessed by 2-4-7").wait_for()
    assert Unit.objects.get(pk=baz.pk).possessor_id == half.pk
    assert Unit.objects.get(pk=seven.pk).location == "12J2"

    us.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    us.locator("body[data-live]").wait_for(state="attached")
    us.get_by_role("button", name="Done with 3.1", exact=True).click()
    us.locator("#campaign-log", has_text="American finished 3.1 Wounded Leaders").wait_for()
