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
        markers=["malfunctioned"],
    )
    fixed_dice.append([1])
    assert roll(players, "american", "repair_sw", mmg).result == "Repaired"


def exchange(players, side, unit, weapon, give):
    return units.exchange_weapon(
        campaign_id=players.campaign_id,
        user=players.users[side],
        unit_id=unit.ref,
        weapon_id=weapon,
        give_id=give.ref,
    )


def test_3_61421_a_disabled_vehicular_mg_is_repaired_by_eliminating_a_friendly_lmg(users, modules):
    """Sicily 3.61421: "A Disabled, non-Captured, vehicular MG may be automatically
    repaired (even if disabled in step 3.6142) by Eliminating a friendly SW LMG": at
    3.614 the Axis gives up one of his two LMG for his StuG's disabled AAMG, which is
    in good order again, the StuG unchanged; a PIAT-like SW, a captured LMG, a
    malfunctioned (not disabled) MG, a captured vehicle's MG, and the exchange at
    another step are refused in words, nothing changed."""
    from tests.purchase_helpers import add_vehicle, campaign_at

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    tank, (ma, aamg) = add_vehicle(
        players, "axis", "StuG IIIG", ("ma", ["malfunctioned"]), ("mg", ["disabled"], "AAMG")
    )
    lmg = add(players, "axis", "LMG", "sw", number=2)
    with pytest.raises(ActionRefused, match=r"only at the step the rules give it"):
        exchange(players, "axis", tank, aamg, lmg)
    players.until_step("3.614")
    captured_lmg = add(players, "axis", "LMG", "sw", "captured")
    faust = add(players, "axis", "Panzerschreck", "sw")
    prize, (prize_mg,) = add_vehicle(
        players, "axis", "Sherman III(a)", ("mg", ["disabled"]), status="captured"
    )
    for unit, weapon, give, words in (
        (tank, aamg, faust, r"Panzerschreck cannot repair it: it takes a friendly LMG"),
        (tank, aamg, captured_lmg, r"LMG cannot repair it: .*\(3\.61421\)"),
        (tank, ma, lmg, r"StuG IIIG MA is not a weapon this exchange repairs \(3\.61421\)"),
        (prize, prize_mg, lmg, r"is not a weapon this exchange repairs"),
    ):
        with pytest.raises(ActionRefused, match=words):
            exchange(players, "axis", unit, weapon, give)
    assert Unit.objects.get(pk=lmg.pk).count == 2
    exchange(players, "axis", tank, aamg, lmg)
    tank.refresh_from_db()
    assert [(w["name"], w["markers"]) for w in tank.weapons] == [
        ("MA", ["malfunctioned"]),
        ("AAMG", []),
    ]
    assert (tank.markers, Unit.objects.get(pk=lmg.pk).count) == ([], 1)
    said = Event.objects.filter(kind="unit").order_by("id").last().text
    assert said == (
        "Axis: one LMG is removed from the retained forces; for it, StuG IIIG's AAMG is "
        "repaired (3.61421)."
    )


def test_c5_27b_a_disabled_afv_mg_is_repaired_with_a_german_lmg_or_a_us_mmg(users, modules):
    """PHD C5.27b: "A disabled, non-captured, AFV MG may be automatically repaired ...
    by using a German LMG if the AFV is German or US MMG if the AFV is American": the
    US repairs his Sherman's BMG with an MMG, and is refused an LMG."""
    from tests.purchase_helpers import add_vehicle

    players, module = start("purple-heart-draw", "tm", users, "us")
    tank, (bmg,) = add_vehicle(players, "us", "M4A1", ("mg", ["disabled"], "BMG"))
    lmg = add(players, "us", "LMG", "sw")
    mmg = add(players, "us", "MMG", "sw")
    players.results(**result_values(module))
    players.until_step("C5.27")
    with pytest.raises(ActionRefused, match=r"LMG cannot repair it: it takes a friendly MMG"):
        exchange(players, "us", tank, bmg, lmg)
    exchange(players, "us", tank, bmg, mmg)
    tank.refresh_from_db()
    assert tank.weapons[0]["markers"] == []
    assert not Unit.objects.filter(pk=mmg.pk).exists()
    assert Unit.objects.filter(pk=lmg.pk).exists()


@pytest.mark.parametrize(
    "group, lacks",
    [("I1", "1 × 4-5-8, 1 × 4-5-7, 1 × 4-4-7"), ("I3", None)],
)
def test_3_6181_a_depleted_rg_joins_as_its_units_and_names_those_it_lacks(
    users, modules, fixed_dice, group, lacks
):
    """Sicily 3.6181: a Depleted RG has its chart row's Depleted count: I1 "4-5-8;4-5-7;
    4-4-7 (4/3 each)" joins as three lines of 3, and its (secret) log line says which
    of the Full row's units it lacks, by type — one of each; an RG of one type lacks
    Full minus Depleted of it."""
    from tests.test_rule_mechanisms import buy, campaign_at, rg_roll

    players, module = campaign_at("sicily", "i", "jul14n", users)
    row = module.group("british", group)
    bought = buy(players, "british", group)
    fixed_dice.extend([[6, 6], [6, 6]])  # DR 12: Depleted; the leader DR
    bought = rg_roll(players, "british", bought)
    assert bought.strength == "depleted" and bought.units == row.depleted
    lines = Unit.objects.filter(campaign_id=players.campaign_id, purchase=bought, kind="squad")
    types = row.unit_types or [row.units]
    each = row.depleted // len(types)
    assert sorted((u.name.split(" (")[0], u.count) for u in lines) == sorted(
        (t, each) for t in types
    )
    if lacks is None:
        lacks = f"{row.full - row.depleted} × {row.units}"
    text = Event.objects.filter(kind="rg-rolls").order_by("-id").first().text
    assert f"Depleted: lacks {lacks}." in text, text
