"""The "A Pleasant Diversion" CG module against its seed text (seed 002, Clean-Up 2.1-2.92,
Setup 3.1-4.0).

Each test checks one transcribed datum (or a small group) and cites its rule number.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.loader import load_file
from rules.schema import Effect, Module, VpDifferentialReplenishment

pytestmark = pytest.mark.rules

MODULE_FILE = Path(__file__).resolve().parents[2] / "rules" / "modules" / "pleasant-diversion.yaml"


@pytest.fixture(scope="module")
def m() -> Module:
    return load_file(MODULE_FILE, overrides=False)


def cell(m: Module, table: str, roll: int, column: str | None = None) -> str:
    row = m.table(table).lookup(roll)
    return row.results[column] if column else row.result


# --------------------------------------------------------------------------- structure


def test_cg_dates_three_dates_on_december_6_morning_is_initial_sg1(m):
    """CG DATES: December 6 Morning/Midday/Afternoon; 1.2: SG1 is the Morning Scenario."""
    assert m.id == "pleasant-diversion"
    assert [s.id for s in m.sides] == ["american", "german"]
    assert [d.id for d in m.dates] == ["dec6morning", "dec6midday", "dec6afternoon"]
    assert all(d.day == "December 6" for d in m.dates)
    assert [d.id for d in m.dates if d.initial] == ["dec6morning"]
    v = m.variant("cg")
    assert (v.start_date, v.last_date) == ("dec6morning", "dec6afternoon")
    assert v.start.points == {} and "ob" in v.start.missing  # SG1 is not in the seed (1.2)
    assert m.initiative is None


def test_1_2_american_first_and_steps_in_rule_order(m):
    """1.2: American first, each step completed before the next; 2.1-2.92, 3.1-4.0."""
    assert m.flow.order == ["american", "german"]
    ids = [s.id for s in m.steps]
    assert m.steps[0].kind == "results"
    numbered = [i for i in ids[1:] if i != "3"]
    assert numbered == [
        *(f"2.{n}" for n in range(1, 10)),
        "2.91",
        "2.92",
        *(f"3.{n}" for n in range(1, 10)),
        "4.0",
    ]
    # the SETUP PHASE header is the date step, between the Clean-Up and Setup Phases
    assert ids.index("3") == ids.index("2.92") + 1
    assert m.steps[ids.index("3")].kind == "date"


def test_2_91_2_92_3_4_3_5_step_kinds_and_actors(m):
    """2.91/2.92 compute (2.92 replenishes); 3.4 American purchase; 3.5 German drs;
    3.6/3.7 secret post-purchase rolls; 4.0 commences the next scenario."""
    steps = {s.id: s for s in m.steps}
    assert steps["2.91"].kind == "compute" and steps["2.92"].kind == "compute"
    assert steps["2.92"].effect == "replenish"
    assert (steps["3.4"].kind, steps["3.4"].acts) == ("purchase", "american")
    assert steps["3.5"].acts == "german"
    assert steps["3.5"].tables == [
        "german_reinforcement_row_a",
        "german_reinforcement_row_b",
        "german_reinforcement_row_c",
    ]
    assert steps["3.6"].kind == "strength" and steps["3.7"].kind == "strength"
    assert steps["2.1"].acts == "in_order"
    assert steps["4.0"].kind == "commence"


def test_2_92_currency_is_pp_from_vp_differential_negative_ignored(m):
    """2.91-2.92: PP = VP Differential + CVP suffered; negative ignored; 3.4 retained."""
    assert m.currency.code == "PP"
    rep = m.currency.replenishment
    assert isinstance(rep, VpDifferentialReplenishment)
    assert rep.side == "american" and rep.negative_ignored
    assert m.currency.carry_over.retained


def test_2_92_example_morning_needs_55_vp(m):
    """2.92 EX: the American 'needed 55 to win' the Morning Scenario."""
    assert m.date("dec6morning").vp_required == 55
    assert m.date("dec6midday").vp_required is None
    assert m.date("dec6afternoon").vp_required is None


def test_2_92_worked_example_gives_33_purchase_points(m):
    """2.92 EX: 55 - 63 = -8 VP Differential; -8 + 41 CVP = 33 Purchase Points."""
    required = m.date("dec6morning").vp_required
    scored, cvp_suffered = 63, 41
    differential = required - scored
    assert differential == -8
    points = differential + cvp_suffered
    if m.currency.replenishment.negative_ignored:
        points = max(points, 0)
    assert points == 33


def test_2_92_replenishment_arithmetic_through_the_mechanism(m):
    """2.91-2.92 EX run through rules.replenish: 33 PP for the American, none for the German."""
    from rules.drm import RollContext
    from rules.replenish import replenish

    inputs = {
        "american": {"vp_total": 63, "cvp_lost_cg": 41},
        "german": {"vp_total": 0, "cvp_lost_cg": 0},
    }

    def no_roll(*args, **kwargs):
        raise AssertionError("the VP-differential mechanism rolls no dice")

    out = replenish(
        m,
        side="american",
        date_index=0,
        played_date_index=0,
        points=0,
        inputs=inputs,
        context=RollContext(side="american"),
        roll=no_roll,
    )
    assert out.points == 33
    german = replenish(
        m,
        side="german",
        date_index=0,
        played_date_index=0,
        points=0,
        inputs=inputs,
        context=RollContext(side="german"),
        roll=no_roll,
    )
    assert german.points == 0


# --------------------------------------------------------------------------- tables


def test_3_1_recovery_table_1_3_unwounded_4_6_evacuated(m):
    """3.1 Recovery Table, rolled for "each wounded leader": 1-3 Retain Unwounded, 4-6
    Evacuated* ("permanently removed from play, but is immediately replaced with a 7-0
    leader in the same location as the friendly MMC nearest")."""
    t = m.table("recovery")
    assert (t.for_units.kinds, t.for_units.statuses, t.once) == (["leader"], ["wounded"], "unit")
    for dr in (1, 2, 3):
        assert cell(m, "recovery", dr) == "Retain Unwounded"
        assert t.lookup(dr).effect == Effect(do="status", status="ok")
    for dr in (4, 5, 6):
        assert cell(m, "recovery", dr) == "Evacuated*"
        assert t.lookup(dr).effect == Effect(do="replace", unit="7-0 leader", at="nearest_mmc")
    assert "7-0 leader" in t.footnotes["*"]


@pytest.mark.parametrize(
    ("table", "repaired", "ne", "eliminated"),
    [
        ("repair_ma_gun", (1, 2, 3, 4), (5,), (6,)),
        ("repair_sw", (1, 2, 3), (4, 5), (6,)),
        ("repair_vehicular_mg", (1, 2), (3, 4, 5), (6,)),
    ],
)
def test_3_3_repair_table_rows(m, table, repaired, ne, eliminated):
    """3.3 Repair Table: MA/Gun 1-4|5|6, SW 1-3|4-5|6, vehicular MG 1-2|3-5|6; 3.31:
    "Each weapon/Vehicle may make only one Repair attempt"."""
    t = m.table(table)
    assert t.dice == "dr" and t.once == "unit" and t.for_units.statuses == ["malfunctioned"]
    # A vehicle rolls for its MA on the MA/Gun row, for each MG on the vehicular MG row.
    weapons = {"repair_ma_gun": ["ma"], "repair_vehicular_mg": ["mg"]}.get(table)
    assert t.for_units.weapons == weapons
    for dr in repaired:
        assert cell(m, table, dr) == "Repaired"
        assert t.lookup(dr).effect == Effect(do="status", status="ok")
    for dr in ne:
        assert cell(m, table, dr) == "NE"
        assert t.lookup(dr).effect == Effect(do="none")
    for dr in eliminated:
        assert cell(m, table, dr).startswith("Eliminated")


def test_3_3_a_6_on_the_vehicular_mg_eliminates_the_mg_not_the_vehicle(m):
    """3.3 repairs "malfunctioned, non-captured weapons": a 6 on the vehicular-MG row
    eliminates the MG (disabled on the vehicle's record); the vehicle it is mounted on
    stays in the retained forces, unmarked."""
    from rules.effects import UnitState, WeaponState, on_weapon, row_effects

    row = m.table("repair_vehicular_mg").lookup(6)
    assert row.effect == Effect(do="status", status="disabled")
    mg = WeaponState("w1", "mg", "BMG", ("malfunctioned",))
    outcome = on_weapon(row_effects(row), UnitState("M4A3", "vehicle", (), (mg,)), mg)
    assert (outcome.removed, outcome.status, outcome.carrier_status) == (False, "disabled", None)


def test_3_31_ma_repair_6_recalls_a_vehicle_and_removes_a_gun(m):
    """3.31: "A vehicle that rolls a 6 on a MA repair becomes BU if CE and is marked with
    a Recall counter (D5.431), while a Gun is removed from the board."""
    t = m.table("repair_ma_gun")
    assert t.for_units.kinds == ["vehicle", "gun"]
    six = t.lookup(6)
    assert six.effect is None
    assert [(e.do, e.status, e.kinds, e.to) for e in six.effects] == [
        ("status", "recalled", ["vehicle"], "carrier"),  # the vehicle, for its MA's roll
        ("status", "disabled", ["vehicle"], None),  # the MA
        ("eliminate", None, ["gun"], None),
    ]
    assert m.table("repair_sw").lookup(6).effect == Effect(do="eliminate")
    assert m.table("repair_sw").for_units.kinds == ["sw"]


def test_3_6_leader_table_best_row_9_2_9_2_10_2_10_2(m):
    """3.6 Leader Table '≤ 29-29-210-210-2': ≤2 gives 9-2 | 9-2 | 10-2 | 10-2."""
    t = m.table("leader")
    assert t.dice == "DR" and t.secret
    assert t.columns == ["German Infantry", "German Armor", "American Infantry", "American Armor"]
    assert t.lookup(2).results == {
        "German Infantry": "9-2",
        "German Armor": "9-2",
        "American Infantry": "10-2",
        "American Armor": "10-2",
    }
    # the -1 DRM makes a final DR of 1 possible: still the ≤2 row
    assert t.lookup(1).results["American Infantry"] == "10-2"


def test_3_6_leader_table_german_infantry_column(m):
    """3.6 German Infantry: 9-2, 9-1, 8-1 (4-5), 8-0 (6-8), 7-0 (9-10), 6+1 (11), - (12)."""
    col = "German Infantry"
    got = [cell(m, "leader", dr, col) for dr in range(2, 13)]
    assert got == [
        "9-2",
        "9-1",
        "8-1",
        "8-1",
        "8-0",
        "8-0",
        "8-0",
        "7-0",
        "7-0",
        "6+1",
        "No leader",
    ]


def test_3_6_leader_table_german_armor_column_no_leader_from_6(m):
    """3.6 German Armor: 9-2, 9-1, 8-1 (4-5); '-' from 6 up ('8-0-8-18-1')."""
    col = "German Armor"
    assert [cell(m, "leader", dr, col) for dr in (2, 3, 4, 5)] == ["9-2", "9-1", "8-1", "8-1"]
    assert all(cell(m, "leader", dr, col) == "No leader" for dr in range(6, 13))


def test_3_6_leader_table_american_infantry_column_6_plus_1_on_12(m):
    """3.6 American Infantry: 10-2, 9-2, 9-1, 8-1, 8-0, 7-0 (11), 6+1 (12: '12--6+1-')."""
    col = "American Infantry"
    assert cell(m, "leader", 3, col) == "9-2"
    assert cell(m, "leader", 5, col) == "9-1"
    assert cell(m, "leader", 7, col) == "8-1"
    assert cell(m, "leader", 10, col) == "8-0"
    assert cell(m, "leader", 11, col) == "7-0"
    assert cell(m, "leader", 12, col) == "6+1"


def test_3_6_leader_table_american_armor_column_no_leader_from_9(m):
    """3.6 American Armor: 10-2, 9-2, 9-1, 8-1 (6-8); '-' from 9 up ('9-107-0-8-0-')."""
    col = "American Armor"
    assert [cell(m, "leader", dr, col) for dr in (2, 3, 4, 8)] == ["10-2", "9-2", "9-1", "8-1"]
    assert all(cell(m, "leader", dr, col) == "No leader" for dr in (9, 10, 11, 12))


def test_3_6_leader_table_minus_1_drm_for_pzgr_platoon_i_pzv_section(m):
    """3.6 note: -1 DRM for PzGr Platoon I/PzV Section: by itself, for a German group the
    supplied chart (Rows A-C are missing) tags as one of those two groups."""
    (drm,) = m.table("leader").drms
    assert drm.value == -1 and not drm.variable and drm.offer_when is None
    assert drm.when is not None and drm.when.sides == ["german"]
    assert drm.when.tags == ["pzgr_platoon_i", "pzv_section"]
    assert "PzGr Platoon I" in drm.label and "PzV Section" in drm.label


def test_3_6_leader_table_dash_is_no_leader(m):
    """3.6: a printed '-' is no leader received (effect none), never a leader unit; a
    rating is a leader of the group."""
    t = m.table("leader")
    assert t.lookup(12).column_effects["German Infantry"] == Effect(do="none")
    for dr in (9, 10, 11, 12):
        assert t.lookup(dr).column_effects["American Armor"] == Effect(do="none")
    assert t.lookup(12).column_effects["American Infantry"] == Effect(
        do="leader", unit="6+1 leader"
    )
    assert t.lookup(2).column_effects["American Armor"] == Effect(do="leader", unit="10-2 leader")


def test_3_7_m4_model_dr_2_gives_two_m4a3_76w_and_m4a3e2l(m):
    """3.7 M4 Model Table: DR 2 gives 2 x M4A3(76)W; M4A3E2(L)."""
    t = m.table("m4_model")
    assert t.dice == "DR" and t.secret
    assert cell(m, "m4_model", 2) == "2 x M4A3(76)W; M4A3E2(L)"
    assert [(e.do, e.unit, e.count, e.kind) for e in t.lookup(2).effects] == [
        ("units", "M4A3(76)W", 2, "vehicle"),
        ("units", "M4A3E2(L)", 1, "vehicle"),
    ]


def test_3_7_m4_model_rows_3_to_12(m):
    """3.7 M4 Model Table rows 3, 4-5, 6-8, 9-10, 11-12."""
    assert cell(m, "m4_model", 3) == "M4A3(76)W; M4A3(105); M4A3(75)W"
    assert cell(m, "m4_model", 4) == cell(m, "m4_model", 5) == "2 x M4A3(76)W; M4A3(75)W"
    assert cell(m, "m4_model", 6) == cell(m, "m4_model", 8) == "2 x M4A1(76); M4A3(75)W"
    assert cell(m, "m4_model", 9) == cell(m, "m4_model", 10) == "M4A1(76)W; 2 x M4A3"
    assert cell(m, "m4_model", 11) == cell(m, "m4_model", 12) == "2 x M4A3(75); M4A3"
    # every row gives the group its three tanks
    for row in m.table("m4_model").rows:
        assert sum(e.count for e in row.effects if e.do == "units") == 3, row.range


def test_3_4_3_5_reinforcement_and_h1_42_tables_declared_missing(m):
    """3.4/3.5: the reinforcement tables and the H1.42 Gyrostabilizer/Schuerzen tables are
    referenced but not printed."""
    for tid in (
        "american_reinforcement",
        "german_reinforcement_row_a",
        "german_reinforcement_row_b",
        "german_reinforcement_row_c",
        "gyrostabilizer",
        "schuerzen",
    ):
        t = m.table(tid)
        assert t.missing and not t.rows, tid
    assert {c.side for c in m.rg_charts if c.missing} == {"american", "german"}
    what = " ".join(x.what for x in m.missing)
    assert "Gyrostabilizer" in what and "Schuerzen" in what
    assert "Midday" in what


def test_3_6_3_7_post_purchase_rolls_point_at_leader_and_m4_tables(m):
    """3.6: one Leader DR per group on its column; 3.7: one M4 Model DR per M4 group."""
    rolls = {(p.table, p.column) for p in m.post_purchase}
    assert ("leader", "American Infantry") in rolls
    assert ("leader", "American Armor") in rolls
    assert ("leader", "German Infantry") in rolls
    assert ("leader", "German Armor") in rolls
    assert ("m4_model", None) in rolls
    per_unit = {p.table: p.per for p in m.post_purchase if p.per != "group"}
    assert per_unit == {"gyrostabilizer": "unit", "schuerzen": "unit"}  # per AFV / PzIV


def test_3_5_german_rows_a_c_one_dr_each(m):
    """3.5: "three Reinforcement drs (one each on Rows A-C)": each row is rolled once by
    the German, secretly, at step 3.5; the rows are not printed (supplied, each result
    naming the RG it gives)."""
    step = next(s for s in m.steps if s.id == "3.5")
    assert step.acts == "german" and step.kind == "table"
    for tid in step.tables:
        t = m.table(tid)
        assert t.once == "side" and t.secret and t.missing and t.dice == "dr"
        assert any(x.supply == f"tables.{tid}" for x in m.missing)
    assert any(x.supply == "rg_charts.german" for x in m.missing)


def test_2_9_scenario_winner_is_recorded_at_step_2_9(m):
    """2.9: "If the VP total is ≥ the required CG scenario total and/or the American
    achieved the scenario-specific CGV Building VC requirements then the American is the
    winner of the current scenario; otherwise the German wins. The winning side moves
    first in the following scenario." """
    step = next(s for s in m.steps if s.id == "2.9")
    assert step.effect == "record_winner" and step.acts == "american"
    w = m.scenario_winner
    assert (w.winner, w.otherwise) == ("american", "german")
    terms = {(t.field, t.side, t.total, t.op, t.value) for t in w.any}
    assert terms == {
        ("vp", "american", True, ">=", "vp_required"),
        ("cgv_scenario", "american", False, "==", True),
    }


def test_cg_victory_conditions_150_vp_or_cgv_buildings_unless_105_cvp(m):
    """CG VC: unless the Germans amassed ≥105 CVP, the Americans win with ≥150 VP or all
    CGV Buildings."""
    assert "105 CVP" in m.victory and "150" in m.victory
    vp_check, building_check = m.victory_checks
    assert vp_check.winner == building_check.winner == "american"
    terms = {(t.field, t.op, t.value) for t in vp_check.all}
    assert terms == {("vp", ">=", 150), ("cvp_lost", "<", 105)}
    assert ("cgv_buildings", "==", True) in {(t.field, t.op, t.value) for t in building_check.all}
    fields = {f.id: f for f in m.result_fields}
    assert fields["vp"].side == "american"
    assert fields["cgv_buildings"].kind == "bool"
    assert set(fields) == {"vp", "cvp_lost", "cgv_buildings", "cgv_scenario", "no_quarter"}


def test_2_9_the_scenarios_own_cgv_requirement_is_not_the_cg_vc(m):
    """2.9 reads "the scenario-specific CGV Building VC requirements"; the CG VC reads
    "control all existing CGV Buildings": two answers, two fields."""
    fields = {f.id: f for f in m.result_fields}
    assert fields["cgv_scenario"].kind == "bool" and fields["cgv_scenario"].side == "american"
    assert {t.field for t in m.scenario_winner.any} == {"vp", "cgv_scenario"}
    assert all(t.field != "cgv_scenario" for c in m.victory_checks for t in c.all)


def test_4_0_sniper_values_reset_so_no_san_is_entered(m):
    """4.0: "Sniper values are reset to their original numbers": no SAN is entered with
    a result (which would carry it to the next scenario)."""
    assert "san" not in {f.id for f in m.result_fields}
