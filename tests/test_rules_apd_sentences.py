"""Issue 44, A Pleasant Diversion sentence by sentence: the sentences of the Clean-Up
and Setup Phases (seed 002) that the ledger (rules/ledger/sentences/
pleasant-diversion.yaml) says the app enforces or computes and that no other test
proved through play: each cites its rule number and, where the rules give one, uses
their numbers."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Roll, ScenarioResult, Unit
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from rules import replenish
from rules.drm import RollContext
from rules.loader import load_all
from tests import test_amendments, test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_amendments import amend
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    GERMAN_CHART,
    _armor_group,
    add,
    apd_at,
    buy,
    patch_module,
    rg_roll,
    roll,
    row_table,
    supply,
    supply_german,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

# The fixtures of the mechanisms' tests: the players and fixed dice.
users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

APD = load_all()["pleasant-diversion"]


def _pp(vp_total: int, cvp: int) -> replenish.Outcome:
    """The American's 2.91-2.92 arithmetic after the Morning (55 VP required)."""
    inputs = {
        "american": {"vp_total": vp_total, "cvp_lost_cg": cvp},
        "german": {"vp_total": 0, "cvp_lost_cg": 0},
    }
    return replenish.replenish(
        APD,
        side="american",
        date_index=1,
        played_date_index=0,
        points=0,
        inputs=inputs,
        context=RollContext(side="american"),
        roll=None,  # type: ignore[arg-type]  # the mechanism rolls nothing
    )


@pytest.mark.parametrize(("vp", "diff"), [(63, -8), (40, 15), (55, 0)], ids=["neg", "pos", "0"])
def test_2_91_the_vp_differential_is_the_vp_required_less_the_cg_vp_total(vp, diff):
    """2.91: "This number is subtracted from the VP required to win the previous
    scenario to calculate the VP Differential.  This can result in a positive or
    negative number, or 0." (2.92 EX: 55 - 63 = -8)."""
    out = _pp(vp, cvp=41)
    assert out.lines[0] == f"VP differential 55 required − {vp} amassed = {diff}"
    assert out.gained == diff + 41


def test_2_92_negative_purchase_points_are_ignored():
    """2.92: "Negative Purchase Points are ignored": 55 - 120 + 10 = -55 gives 0."""
    out = _pp(120, cvp=10)
    assert out.gained == 0
    assert "negative purchase points are ignored: 0" in out.lines


def test_3_note_cvp_are_na_for_units_eliminated_in_the_setup_phase(users, modules, fixed_dice):
    """3. SETUP PHASE Note: "CVP are NA for units/weapons eliminated in this phase": a
    Gun removed by a Repair dr of 6 (3.31) adds no CVP to the result; a late amendment
    is the opponent's to accept or refuse (Clean-Up losses count, Setup Phase ones do
    not: the app cannot tell which a loss remembered late is)."""
    players, module = apd_at(users, "3.3")
    gun = add(players, "american", "57L AT", "gun", "malfunctioned")
    fixed_dice.extend([[6]])
    roll(players, "american", "repair_ma_gun", gun)
    assert not Unit.objects.filter(pk=gun.pk).exists()
    result = ScenarioResult.objects.get(campaign_id=players.campaign_id)
    assert result.data["cvp_lost"]["american"] == 41
    # A loss remembered late is only a proposal: the German, who knows a Setup Phase
    # loss counts for nothing, refuses it, and the result stands.
    amend(players, "american", module, vp_american=63, cvp_lost_american=43)
    test_amendments.answer(players, "german", accept=False)
    result.refresh_from_db()
    assert result.data["cvp_lost"]["american"] == 41


def test_3_31_an_abandoned_vehicle_makes_no_repair_attempt(users, modules):
    """3.31: "In all cases, vehicles must not be Abandoned ... to attempt Repair": an
    Abandoned malfunctioned tank (2.5 EXC leaves one so) is refused both its MA and its
    MG repair dr, nothing rolled."""
    players, _ = apd_at(users, "3.3")
    tank, (ma, mg) = add_vehicle(
        players,
        "american",
        "M4A3(75)W",
        ("ma", ["malfunctioned"]),
        ("mg", ["malfunctioned"]),
        markers=["abandoned"],
    )
    for table, weapon in (("repair_ma_gun", ma), ("repair_vehicular_mg", mg)):
        with pytest.raises(ActionRefused, match=r"not abandoned|Abandoned|abandoned"):
            roll(players, "american", table, tank, weapon=weapon)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_4_the_scenario_maximum_of_each_group_may_not_be_exceeded(users, modules, fixed_dice):
    """3.4: "He may purchase as many of each group as he has Purchase Points available,
    but the scenario maximum allowed for each group may not be exceeded": A1 (10 PP,
    scenario maximum 1) is bought once with 20 PP; a second is refused."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], date_max=1)
    buy(players, "american", "A1")
    with pytest.raises(ActionRefused):
        buy(players, "american", "A1")
    assert Purchase.objects.filter(campaign_id=players.campaign_id).count() == 1


def test_3_6_only_armored_infantry_and_armor_groups_roll_a_leader(users, modules, fixed_dice):
    """3.6: "For each American Armored Infantry Platoon and Armor Reinforcement Group ...
    make one secret DR on the ... Leader Table"; 3.4 note 1 "per Group received" reads
    with it: an American group of another kind (an OBA module) rolls no leader."""
    players, _ = apd_at(users, "3.4")

    def supplied(data):
        chart = next(c for c in data["rg_charts"] if c["side"] == "american")
        chart.update(
            missing=False,
            groups=[
                {
                    "id": "I1",
                    "type": "Armored Infantry Platoon",
                    "units": "6-6-6",
                    "unit_kind": "squad",
                    "full": 3,
                    "cost": 6,
                    "tags": ["armored_infantry"],
                },
                {"id": "O1", "type": "OBA Module", "units": "105mm OBA", "cost": 4},
            ],
        )

    patch_module(players.campaign, supplied)
    from campaign.models import Seat

    Seat.objects.filter(campaign_id=players.campaign_id, side="american").update(points=20)
    i1, o1 = buy(players, "american", "I1"), buy(players, "american", "O1")
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])
    rg_roll(players, "american", i1)
    rg_roll(players, "american", o1)
    leaders = Roll.objects.filter(table_id="leader")
    assert [r.item for r in leaders] == ["I1 Armored Infantry Platoon"]
    assert leaders[0].result == "American Infantry: 8-1"


def test_3_5_note_2_one_schuerzen_dr_per_pziv(users, modules, fixed_dice):
    """3.5 note 2: "Make one DR on the H1.42 Schuerzen Table per PzIV": the PzIV Section
    Row B gives (two PzIVH) makes two Schuerzen DRs, once the players supply the ASL
    table; the PzGr Platoon I of Row A, none."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    supply(
        players,
        "tables.schuerzen",
        row_table([("2-7", "Schuerzen", "none"), ("8-12", "No Schuerzen", "none")]),
    )
    players.until_step("3.5")
    fixed_dice.extend([[1], [1], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.finish()
    players.until_step("3.6")
    ra1, rb1 = Purchase.objects.filter(side="german").order_by("id")
    rg_roll(players, "german", ra1)
    rg_roll(players, "german", rb1)
    schuerzen = list(Roll.objects.filter(table_id="schuerzen").values_list("item", flat=True))
    assert schuerzen == ["RB1 PzIV Section", "RB1 PzIV Section"]
    assert GERMAN_CHART["row-1-units"].startswith("PzIV")
    assert unit_names(players, "german", kind="vehicle") == [
        ("PzIVH (RB1 PzIV Section)", "vehicle", "ok", 2)
    ]


def test_3_6_3_7_the_leader_and_m4_model_drs_wait_for_their_steps(users, modules, fixed_dice):
    """1.2: "complete each step before moving on to the next step"; 3.4: "For each Armor
    Group purchased, make a dr to determine armor type" (while buying); 3.6 and 3.7:
    the Leader DR and the M4 Model DR.  At 3.4 an Armor Group's line makes its
    armor-type dr only: the American does not learn its leader and tanks while he can
    still buy, nor cancel it once rolled; at 3.6 the rest are made, the armor type
    kept.  At 3.6 the Leader DR only; the M4 Model DR and the Gyrostabilizer DRs of the
    tanks it gives (3.4 note 3) at 3.7."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[4]])
    rg_roll(players, "american", a1)
    assert list(Roll.objects.values_list("table_id", flat=True)) == ["american_reinforcement"]
    with pytest.raises(
        ActionRefused, match=r"A1 has no roll to make at 3.4: its rolls are made at 3.6"
    ):
        rg_roll(players, "american", a1)
    with pytest.raises(ActionRefused, match="can no longer be cancelled"):
        purchases.cancel_purchase(
            campaign_id=players.campaign_id,
            user=players.users["american"],
            purchase_id=Purchase.objects.get(pk=a1.pk).ref,
        )
    assert Purchase.objects.get(pk=a1.pk).rolled_at is None
    assert not Unit.objects.filter(campaign_id=players.campaign_id, kind="vehicle").exists()
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])  # leader 8-1
    rg_roll(players, "american", a1)
    tables = list(Roll.objects.order_by("seq").values_list("table_id", flat=True))
    assert tables == ["american_reinforcement", "leader"]
    assert Purchase.objects.get(pk=a1.pk).rolled_at is None
    with pytest.raises(
        ActionRefused, match=r"A1 has no roll to make at 3.6: its rolls are made at 3.7"
    ):
        rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([[1, 2]])  # M4 Model DR 3
    rg_roll(players, "american", a1)
    tables = list(Roll.objects.order_by("seq").values_list("table_id", flat=True))
    # 3.4 note 3: then one Gyrostabilizer DR per tank the M4 Model DR gave.
    assert tables == ["american_reinforcement", "leader", "m4_model", *["gyrostabilizer"] * 3]
    line = Purchase.objects.get(pk=a1.pk)
    assert [r["table"] for r in line.details["rolls"]][:3] == [
        "American Reinforcement Table",
        "Leader Table",
        "M4 Model Table",
    ]
    assert line.rolled_at is not None
    assert Unit.objects.filter(purchase=line, kind="vehicle").count() == 3
