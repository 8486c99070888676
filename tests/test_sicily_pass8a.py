"""Sicily 3.6-3.614, the eighth audit pass: pass 7's left items and unsampled
sentences, each through the services as a player would meet it."""

from __future__ import annotations

import pytest

from campaign.services import units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, unit_names
from tests.test_sicily_refit import at_step

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def test_3_6112_a_hero_battle_hardens_a_non_crew_mmc_only(users, modules):
    """3.6112: "each such Elimination enables that side to Battle Harden one non-crew
    MMC": a crew (a half-squad line that says it is a crew) is refused with the rule,
    nothing changed; a half-squad that is no crew Battle Hardens."""
    players, _ = at_step(users, "jul15am", "3.611")
    hero = add(players, "british", "1-4-9 Hero", "hero")
    crew = add(players, "british", "2-2-8 Crew", "half_squad")
    half = add(players, "british", "2-4-8", "half_squad")
    with pytest.raises(ActionRefused, match=r"crew.*\(3\.6112\)") as refused:
        units.exchange_unit(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            give_id=hero.ref,
            mark_id=crew.ref,
        )
    assert refused.value.status == 400
    assert unit_names(players, "british") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("2-2-8 Crew", "half_squad", "ok", 1),
        ("2-4-8", "half_squad", "ok", 1),
    ]
    units.exchange_unit(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        give_id=hero.ref,
        mark_id=half.ref,
    )
    assert ("2-4-8", "half_squad", "battle_hardened", 1) in unit_names(players, "british")


def _drms(r) -> dict[str, tuple[int, str]]:
    return {d["label"]: (d["value"], d["how"]) for d in r.drms}


def test_3_606_plus_2_if_encircled_follows_from_the_encircled_marker(users, modules, fixed_dice):
    """3.606 "+2 If Encircled (NA to vehicles)": the roster holds an Encircled marker
    (A7.7); the +2 applies by itself to a unit so marked, never to a vehicle so marked,
    and a tick of it for a unit not marked Encircled is refused, nothing rolled."""
    from campaign.models import Roll
    from tests.purchase_helpers import add_vehicle
    from tests.test_rule_mechanisms import roll

    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    cut_off = add(players, "axis", "4-6-7", "squad", markers=["encircled"])
    free = add(players, "axis", "4-6-7", "squad")
    tank, _ = add_vehicle(players, "axis", "PzIVG", markers=["encircled"])
    with pytest.raises(ActionRefused, match=r"If Encircled"):
        roll(players, "axis", "escape", free, ticked=["encircled"])
    assert not Roll.objects.filter(table_id="escape").exists()
    fixed_dice.extend([[3, 3], [3, 3]])
    assert _drms(roll(players, "axis", "escape", cut_off))["If Encircled (NA to vehicles)"] == (
        2,
        "auto",
    )
    assert "If Encircled (NA to vehicles)" not in _drms(roll(players, "axis", "escape", tank))


def test_3_610_minus_1_if_heroic_follows_from_the_heroic_marker(users, modules, fixed_dice):
    """3.610 "-1 if Heroic": the roster holds a heroic marker for a leader (A15.2); the
    -1 applies by itself to a wounded leader so marked, and a tick of it for a leader not
    heroic is refused."""
    from tests.test_rule_mechanisms import roll

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    hero = add(players, "axis", "8-1", "leader", status="wounded", markers=["heroic"])
    plain = add(players, "axis", "8-0", "leader", status="wounded")
    with pytest.raises(ActionRefused, match=r"if Heroic"):
        roll(players, "axis", "wounded_leaders", plain, ticked=["heroic"])
    fixed_dice.append([2])
    r = roll(players, "axis", "wounded_leaders", hero)
    assert _drms(r) == {"if Heroic": (-1, "auto")} and r.final == 1
