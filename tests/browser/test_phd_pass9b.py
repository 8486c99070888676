"""Issue 44, ninth PHD pass (B), in real Chromium: a result that now follows by itself
(C5.26b: a Bazooka Repaired rejoins the retained forces), seen on the player's pages."""

import pytest

import rules.dice
from campaign.models import Campaign, Roll
from tests.browser.test_rules_classes_sicily import _open
from tests.test_phd_conph import phd_after

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _seed_for_next_open_dr(campaign_id, at_most: int) -> None:
    """Give the campaign a dice seed whose next open dr is ``at_most`` or less (the
    players' dice are the campaign's seeded draws; this picks the seed, not the faces)."""
    c = Campaign.objects.get(pk=campaign_id)
    stream = rules.dice.stream_of("us", secret=False)
    draw = (c.draws or {}).get(stream, 0) + 1
    seed = next(
        f"pass9b-{n}"
        for n in range(1000)
        if rules.dice.faces(f"pass9b-{n}", draw, "dr", stream)[0] <= at_most
    )
    Campaign.objects.filter(pk=campaign_id).update(dice_seed=seed)


def test_c5_26b_a_repaired_bazooka_is_back_on_the_retained_forces(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.26b BAZ/PSK/FT/DC REPAIR TABLE "<=3 Repaired": the US player names the
    Bazooka removed from play in the scenario and clicks Roll dr; the roll line says it
    rejoins the retained forces, and his roster page lists a Bazooka he had not."""
    players, _ = phd_after((make_user("us_p"), make_user("ge_p")), "C5.26")
    _seed_for_next_open_dr(players.campaign_id, 3)
    us = _open(asgi_server, new_context, browser_login, players, "us")
    table = us.locator("#table-baz_psk_ft_dc_repair")
    us.locator("#item-baz_psk_ft_dc_repair").fill("Bazooka at 12H3")
    table.get_by_role("button", name="Roll dr").click()
    us.locator("#campaign-step .rolls li", has_text="Bazooka at 12H3").wait_for()
    (r,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="baz_psk_ft_dc_repair")
    assert r.result == "Repaired"
    us.locator("#campaign-log", has_text="Bazooka rejoins the retained forces").wait_for()
    us.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/roster/")
    us.locator("#retained-forces", has_text="Bazooka").wait_for()
