"""Issue 45: the roster the rules need, on rules of the three documents beyond the
examples the issue names.  A SW's possession is part of its record ("not possessed"):
the repair tables that need a possessed weapon refuse an unpossessed one, and PHD
C5.15 eliminates it."""

from __future__ import annotations

import pytest

from campaign.models import Event, Unit
from campaign.services import units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.test_rule_mechanisms import add, apd_at, result_values, roll, start

fixed_dice = mechanisms.fixed_dice
users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def test_c5_15_c5_26a_an_unpossessed_sw_rolls_no_repair_and_is_eliminated(
    users, modules, fixed_dice
):
    """PHD C5.15: "every SW/Gun still unpossessed after Redeployment is eliminated";
    C5.26a: a dr "for each malfunctioned, non-captured Retained weapon that is possessed
    by a unit": an MMG marked not possessed as well as malfunctioned leaves the
    retained forces when C5.15 is completed (and so is never rolled for); a possessed
    one stays, and rolls at C5.26."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    loose = add(players, "us", "MMG", "sw", "malfunctioned", markers=["unpossessed"])
    held = add(players, "us", "BAR", "sw", "malfunctioned")
    players.results(**result_values(module))
    players.until_step("C5.26")
    assert not Unit.objects.filter(pk=loose.pk).exists()
    assert Event.objects.filter(text__contains="MMG leaves the retained forces (C5.15)").exists()
    fixed_dice.append([1])
    assert roll(players, "us", "weapon_repair", held).result == "Repaired"


def test_3_31_an_unpossessed_sw_or_gun_makes_no_repair_attempt(users, modules, fixed_dice):
    """APD 3.31: "Guns/SW must be Possessed to attempt Repair": a malfunctioned SW or
    Gun marked not possessed is refused each Repair row in words; once possessed
    again (its marker taken off) it rolls."""
    players, _ = apd_at(users, "3.3")
    mmg = add(players, "american", "MMG", "sw", "malfunctioned", markers=["unpossessed"])
    gun = add(players, "american", "57L AT", "gun", "malfunctioned", markers=["unpossessed"])
    for table, unit in (("repair_sw", mmg), ("repair_ma_gun", gun)):
        with pytest.raises(ActionRefused, match=r"is not one of your .*not .*unpossessed"):
            roll(players, "american", table, unit)
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        unit_id=mmg.ref,
        name="MMG",
        status="malfunctioned",
        markers=[],
    )
    fixed_dice.append([1])
    assert roll(players, "american", "repair_sw", mmg).result == "Repaired"
