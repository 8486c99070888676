"""The test walker plays as a player told "Roll first" would: it makes every
compulsory roll its side owes before Done, a vehicle's weapons' included."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.purchase_helpers import add_vehicle, campaign_at
from tests.test_rule_mechanisms import users  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db]


def test_the_walker_makes_a_vehicles_owed_weapon_repair_rolls_before_done(users, modules):  # noqa: F811
    """Sicily 3.6142: "a separate dr ... for each malfunctioned ... Weapon" is owed for
    a vehicle's MA, by its reference; Done without it is refused ("Roll first"), so the
    walker makes it (a non-interference trial's hider whose secret vehicle carries a
    malfunctioned MA once could not finish the step)."""
    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.614")
    tank, (ma,) = add_vehicle(players, "axis", "StuG IIIG", ("ma", ["malfunctioned"]))
    players.until_step("3.615")
    assert Roll.objects.filter(table_id="weapon_repair", unit_ref=f"{tank.ref}.{ma}").exists()
