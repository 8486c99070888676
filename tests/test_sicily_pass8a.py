"""Sicily 3.6-3.614, the eighth audit pass: pass 7's left items and unsampled
sentences, each through the services as a player would meet it."""

from __future__ import annotations

import pytest

from campaign.services import units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def at_step(users, date, step_id):
    players, module = campaign_at("sicily", "i", date, users, step=step_id)
    return players, module


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
