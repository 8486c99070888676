"""The Purple Heart Draw (PHD) TM module against its seed text (seed 000, ConPh C5.1-C5.41).

Each test checks one transcribed datum (or a small group) and cites its rule number.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import effects
from rules.drm import RollContext, applicable_drms
from rules.loader import load_file
from rules.schema import Effect, Module, RollForSide, TableRollReplenishment

pytestmark = pytest.mark.rules

MODULE_FILE = Path(__file__).resolve().parents[2] / "rules" / "modules" / "purple-heart-draw.yaml"


@pytest.fixture(scope="module")
def m() -> Module:
    return load_file(MODULE_FILE, overrides=False)


def final(m: Module, table: str, roll: int):
    return m.table(table).lookup(roll)


# --------------------------------------------------------------------------- structure


def test_c4_2_module_sides_and_five_tm_scenarios_on_11_july_1944(m):
    """C4.2 TM-DATES: 0600 to 1930 hrs, 11 July 1944, five TM Scenarios; US vs German."""
    assert m.id == "purple-heart-draw"
    assert {s.id for s in m.sides} == {"us", "german"}
    assert [d.id for d in m.dates] == ["t0600", "t0930", "t1230", "t1530", "t1930"]
    assert [d.label for d in m.dates][0] == "0600 hrs"
    assert all(d.day == "11 July 1944" for d in m.dates)
    assert not any(d.night for d in m.dates)
    assert [d.id for d in m.dates if d.initial] == ["t0600"]


def test_c4_2_initial_tp_and_dsp(m):
    """C4.2 OB: German 20 TP and 60 DSP, US 30 TP; I3: the US has no Defensive Stores."""
    v = m.variant("tm")
    assert (v.start_date, v.last_date) == ("t0600", "t1930")
    assert v.start.points == {"german": 20, "us": 30}
    assert v.start.fortification_points == {"german": 60}
    assert v.start.san == {"german": 3, "us": 2} and v.start.elr == {"german": 3, "us": 4}
    assert (v.start.sets_up_first, v.start.moves_first) == ("german", "us")  # C4.2
    assert v.attack_chits is None


def test_c5_0_steps_c5_1_to_c5_41_in_rule_order(m):
    """C5.0: steps C5.1-C5.41 in numbered order; the unnumbered New TM Date header sits
    between C5.24 and C5.25."""
    ids = [s.id for s in m.steps if not s.start]
    numbered = [i for i in ids if i.startswith("C5.")]
    # C5.12 "Control Prior to Initial TM Scenario" is a start step only (I-C5.12).
    assert numbered == [f"C5.{n}" for n in range(1, 42) if n != 12]
    assert ids.index("NEW-TM-DATE") == ids.index("C5.24") + 1
    first = next(s for s in m.steps if not s.start)
    assert first.id == "C5.1" and first.kind == "results"


def test_c4_2_the_start_requisitions_leaders_and_fortifications_without_recon_or_chits(m):
    """Before the Initial TM Scenario: requisitions (I2 speaks of German purchased RGs),
    the C5.33 leader DR for OB-given and requisitioned RGs, the German DSP (C5.35);
    no Recon (C5.36c) and no chits (C4.2 fixes the US Attack)."""
    start = [s for s in m.steps if s.start]
    assert [(s.id, s.kind) for s in start] == [
        ("I-C5.12", "checklist"),  # C5.12: control before the Initial TM Scenario only
        ("I-C5.31", "purchase"),
        ("I-C5.33", "strength"),
        ("I-C5.34", "table"),  # C5.34: a DR for each OBA module requisitioned
        ("I-C5.35", "fortify"),
        ("I-TM20", "table"),  # C3.0: the TM's special rules apply in all TM Scenarios
    ]


def test_c5_12_control_prior_to_the_initial_tm_scenario_is_a_start_step_only(m):
    """C5.12 "CONTROL PRIOR TO INITIAL TM SCENARIO: That side controls all Tactical
    Locations within a side's Initial set up area": shown before the Initial TM Scenario
    (first, in its numbered place before the requisitions), never after a TM Scenario."""
    (step,) = [s for s in m.steps if "C5.12" in s.id]
    assert (step.id, step.kind, step.start) == ("I-C5.12", "checklist", True)
    assert m.steps[0] is step


def test_c5_step_kinds(m):
    """C5.29 compute/replenish, C5.31 purchase, C5.35 fortify, C5.36 recon, C5.37
    initiative, C5.39 setup, C5.41 commence, C5.25 SAN."""
    kinds = {s.id: s.kind for s in m.steps}
    assert kinds["C5.25"] == "san"
    assert (
        kinds["C5.29"] == "compute"
        and m.steps[[s.id for s in m.steps].index("C5.29")].effect == "replenish"
    )
    assert kinds["C5.31"] == "purchase"
    assert kinds["C5.35"] == "fortify"
    assert kinds["C5.36"] == "recon"
    assert kinds["C5.37"] == "initiative"
    assert kinds["C5.39"] == "setup"
    assert kinds["C5.41"] == "commence"
    assert kinds["NEW-TM-DATE"] == "date"


def test_c5_40_reconnaissance_alternates_german_first(m):
    """C5.40: recon locations are declared alternating, German first."""
    step = next(s for s in m.steps if s.id == "C5.40")
    assert step.acts == "in_order"
    assert m.flow.order == ["german", "us"]


def test_c5_37_lull_repeats_new_tm_date_through_initiative(m):
    """C5.37d: a Lull plays no scenario and proceeds to the next TM Scenario: the
    sequence repeats from the New TM Date header through the initiative step C5.37."""
    assert m.flow.idle_loop_from == "NEW-TM-DATE"
    lull = next(r for r in m.initiative.results if r.id == "lull")
    assert lull.scenario is False and lull.loops_to == "NEW-TM-DATE"
    ids = [s.id for s in m.steps]
    repeated = m.steps[ids.index("NEW-TM-DATE") : ids.index("C5.37") + 1]
    assert repeated[0].kind == "date" and repeated[-1].kind == "initiative"


# --------------------------------------------------------------------------- TP


def test_c5_29_currency_is_tp_by_table_roll_without_initial_roll(m):
    """C5.29 EXC / I5: TP by DR on the TP Replenishment Table; no roll for the Initial
    Scenario; unspent TP are added to the next total."""
    assert m.currency.code == "TP" and m.currency.name == "Tactical Points"
    rep = m.currency.replenishment
    assert isinstance(rep, TableRollReplenishment)
    assert rep.table == "tp_replenishment" and rep.no_roll_on_initial
    assert m.currency.carry_over.retained


def test_c5_29_tp_replenishment_dr_2_gives_german_25_us_35(m):
    """C5.29 TP Replenishment Table, first row: ≤2 → German +25, US +35."""
    t = m.table("tp_replenishment")
    assert t.column_for_side == {"german": "German", "us": "US"}
    assert final(m, "tp_replenishment", 2).results == {"German": "+25", "US": "+35"}
    assert final(m, "tp_replenishment", 0).results == {"German": "+25", "US": "+35"}


def test_c5_29_tp_replenishment_dr_7_gives_german_20_us_30(m):
    """C5.29: Final DR 7 → German +20, US +30; DR 11 → +16/+26; DR 5 → +22/+32."""
    assert final(m, "tp_replenishment", 7).results == {"German": "+20", "US": "+30"}
    assert final(m, "tp_replenishment", 11).results == {"German": "+16", "US": "+26"}
    assert final(m, "tp_replenishment", 5).results == {"German": "+22", "US": "+32"}
    assert final(m, "tp_replenishment", 9).results == {"German": "+18", "US": "+28"}


def test_c5_29_tp_drms_attack_plus_1_and_minus_1_per_10_cvp_suffered(m):
    """C5.29 DRM: +1 if the side chose Attack in the previous scenario; -1 per 10 CVP (FRD)
    suffered in the previous TM Scenario."""
    drms = {d.id: d for d in m.table("tp_replenishment").drms}
    assert drms["attack_previous"].value == 1
    assert drms["attack_previous"].when.chose_attack_previous is True
    cvp = drms["cvp_suffered"]
    assert (cvp.value, cvp.per, cvp.of, cvp.rounding) == (-1, 10, "cvp_lost_prior_scenario", "FRD")
    ctx = RollContext(side="us", chose_attack_previous=True, inputs={"cvp_lost_prior_scenario": 29})
    applied = {a.id: a.value for a in applicable_drms(m.table("tp_replenishment"), ctx)}
    assert applied == {"attack_previous": 1, "cvp_suffered": -2}


# --------------------------------------------------------------------------- weather


def test_c5_30_weather_table_rows(m):
    """C5.30 Weather Table: I 0600 Moist/Mist, II 0930 Moderate/Overcast, III-V Moderate/
    Clear, no wind."""
    w = {d.id: d.weather for d in m.dates}
    assert "Moist" in w["t0600"] and "Mist" in w["t0600"]
    assert "Moderate" in w["t0930"] and "Overcast" in w["t0930"]
    for d in ("t1230", "t1530", "t1930"):
        assert "Moderate" in w[d] and "Clear" in w[d]
    assert all("no wind" in x for x in w.values())


# --------------------------------------------------------------------------- ConPh tables


def test_c5_14_redeployment_table_and_enemy_feba_drm(m):
    """C5.14 Redeployment Table: 12-13 Infantry 'Remains in hex, Reduced', Vehicle
    'Eliminated, CS NA'; +2 DRM in enemy FEBA; -1 adjacent to friendly Front Line Hex."""
    row = final(m, "redeployment", 12)
    assert row.results == {
        "Infantry": "Remains in hex, Reduced",
        "Mobile Vehicle": "Eliminated, CS NA",
    }
    assert final(m, "redeployment", 2).results["Infantry"] == "Redeploys"
    drms = {d.id: d for d in m.table("redeployment").drms}
    assert drms["enemy_feba"].value == 2 and drms["front_line"].value == -1
    assert drms["leadership"].of == "stack_leadership"  # C5.13a: computed from the stack


def test_c5_19_leader_evacuation_6_evacuated(m):
    """C5.19 Leader Evacuation Table: dr 1 retained unwounded; dr 6 evacuated (removed
    from play).  The rows between 2 and 6 are lost: the table is to be supplied, the
    surviving rows prefill the form; one dr for each wounded leader."""
    t = m.table("leader_evacuation")
    assert t.missing
    assert any(x.supply == "tables.leader_evacuation" for x in m.missing)
    assert final(m, "leader_evacuation", 1).result == "Retained Unwounded"
    assert final(m, "leader_evacuation", 1).effect == Effect(do="status", status="ok")
    assert final(m, "leader_evacuation", 6).result.startswith("Evacuated")
    assert final(m, "leader_evacuation", 6).effect == Effect(do="eliminate")
    # Row 2 "Retained Unwounded & Replaced (A19.13)*": Replaced by the next lower
    # quality leader, unwounded; "* EXC: A wounded 6+1 is retained Unwounded".
    assert final(m, "leader_evacuation", 2).effect == Effect(do="replace_lower", status="ok")
    assert (t.for_units.kinds, t.for_units.statuses, t.once) == (["leader"], ["wounded"], "unit")


def test_c5_23_battlefield_promotion_3_4_gives_2_mmc(m):
    """C5.23 Battlefield Promotion Table: 3-4 → 2 MMC, ≥7 → 0; secret DR."""
    t = m.table("battlefield_promotion")
    assert t.secret and t.dice == "DR"
    assert final(m, "battlefield_promotion", 4).result.startswith("2 MMC")
    assert final(m, "battlefield_promotion", 9).result.startswith("0")


def test_c5_24_leader_promotion_3_is_9_2_and_10_11_is_7_0(m):
    """C5.24 Leader Promotion Table: DR 3 → 9-2, 5-6 → 8-1, 10-11 → 7-0, each the
    leader Battle Hardened (the next lower one if the side has none, footnote *), along
    the leaders' qualities (9-1, then 8-1, 8-0 ...; the 6+1 lowest, C5.19 EXC); C5.24a:
    a 7-0 out of the Ranks instead, at most one leader per four squad-equivalents."""
    assert final(m, "leader_promotion", 3).result == "9-2"
    assert final(m, "leader_promotion", 6).result == "8-1"
    assert final(m, "leader_promotion", 10).result == "7-0"
    assert final(m, "leader_promotion", 4).effect == Effect(do="battle_harden", unit="9-1")
    assert final(m, "leader_promotion", 12).effect is None  # lost in the OCR
    ratings = m.leader_ladder.ratings
    assert ratings[0] == "6+1" and ratings.index("8-0") < ratings.index("8-1") < ratings.index(
        "9-1"
    )
    instead = m.table("leader_promotion").instead
    assert (instead.unit, instead.kind, instead.squads_per_leader, instead.rule) == (
        "7-0 leader",
        "leader",
        4,
        "C5.24a",
    )


def test_c5_26a_weapon_repair_2_repaired_3_eliminated_vehicular_minus_2(m):
    """C5.26a Weapon Repair: a dr "for each malfunctioned, non-captured Retained weapon":
    ≤2 Repaired, ≥3 Eliminated; -2 if Vehicular-mounted."""
    assert final(m, "weapon_repair", 2).result == "Repaired"
    assert final(m, "weapon_repair", 2).effect == Effect(do="status", status="ok")
    assert final(m, "weapon_repair", 3).result == "Eliminated"
    assert final(m, "weapon_repair", 3).effects == [
        Effect(do="eliminate", kinds=["sw", "gun"]),
        Effect(do="status", status="disabled", kinds=["vehicle"]),
    ]
    t = m.table("weapon_repair")
    assert t.for_units.statuses == ["malfunctioned"] and t.once == "unit"
    drms = {d.id: d.value for d in m.table("weapon_repair").drms}
    assert drms == {"non_qualified": 1, "ammo_shortage": 1, "isolated": 1, "vehicular": -2}
    # The -2 applies by itself to a vehicle's weapon, never to a SW or Gun.
    vehicle = applicable_drms(t, RollContext(side="us", unit_kind="vehicle"))
    assert [(d.id, d.value, d.how) for d in vehicle] == [("vehicular", -2, "auto")]
    assert applicable_drms(t, RollContext(side="us", unit_kind="gun")) == []


def test_c5_26b_baz_psk_ft_dc_repair_3_repaired_non_qualified_plus_2(m):
    """C5.26b BAZ/PSK/FT/DC Repair: ≤3 Repaired, ≥4 Eliminated; +2 Non-Qualified."""
    assert final(m, "baz_psk_ft_dc_repair", 3).result == "Repaired"
    assert final(m, "baz_psk_ft_dc_repair", 4).result == "Eliminated"
    assert [d.value for d in m.table("baz_psk_ft_dc_repair").drms] == [2]


def test_c5_26c_captured_equipment_3_retained(m):
    """C5.26c Captured Equipment: ≤3 Retained, ≥4 Eliminated (one dr per captured
    weapon: a vehicle's MA and MGs each; an eliminated vehicular weapon is disabled,
    its vehicle stays)."""
    assert final(m, "captured_equipment", 3).result == "Retained"
    assert final(m, "captured_equipment", 3).effect == Effect(do="none")
    assert final(m, "captured_equipment", 4).result == "Eliminated"
    assert final(m, "captured_equipment", 4).effects == [
        Effect(do="eliminate", kinds=["sw", "gun"]),
        Effect(do="status", status="disabled", kinds=["vehicle"]),
    ]
    assert m.table("captured_equipment").for_units.statuses == ["captured"]
    assert m.table("captured_equipment").for_units.weapons == ["ma", "mg"]


def test_c5_27a_immobilization_repair_armour_leader_is_typed(m):
    """C5.27a Immobilization Repair: ≤2 Become Mobile; armour leader DRM typed by the player."""
    assert final(m, "immobilization_repair", 2).effect == Effect(do="status", status="ok")
    assert final(m, "immobilization_repair", 3).result == "No Change"
    assert final(m, "immobilization_repair", 3).effect == Effect(do="none")
    assert m.table("immobilization_repair").for_units.statuses == ["immobilized"]
    drms = {d.id: d for d in m.table("immobilization_repair").drms}
    assert drms["armour_leader"].variable and drms["front_line"].value == 1


def test_c5_28_fortification_clearance_3_eliminated_engineers_minus_1(m):
    """C5.28 Fortification Clearance: ≤3 Eliminated, ≥4 No Effect; -1 with Pionerie/
    Engineer squads."""
    assert final(m, "fortification_clearance", 3).result == "Eliminated (1)"
    # the fortification is on the map, not in the retained forces: no effect is named
    assert final(m, "fortification_clearance", 3).effect is None
    assert final(m, "fortification_clearance", 4).result.startswith("No Effect")
    drms = {d.id: d.value for d in m.table("fortification_clearance").drms if not d.variable}
    assert drms == {"minefield_adjacent": 1, "roadblock_front": 1, "engineers": -1}


def test_c5_34_us_oba_6_plentiful_7_11_normal_12_scarce(m):
    """C5.34 US OBA Table: ≤6 Plentiful, 7-11 Normal, ≥12 Scarce; German 4-9 Normal.
    One table, each side reading its own column: neither rolls on the other's."""
    t = m.table("oba")
    assert t.column_for_side == {"german": "German", "us": "US"}

    def us(dr):
        return final(m, "oba", dr).results["US"]

    def german(dr):
        return final(m, "oba", dr).results["German"]

    assert (us(6), us(7), us(11), us(12)) == ("Plentiful", "Normal", "Normal", "Scarce")
    assert (german(3), german(4), german(9), german(10)) == (
        "Plentiful",
        "Normal",
        "Normal",
        "Scarce",
    )


# --------------------------------------------------------------------------- DSP, recon


def test_c5_35_fortification_dsp_costs(m):
    """C5.35 Fortification Table: Foxhole 3/2/1 (note 1: for 3-, 2- and 1-squad
    capacity), Trench 5, HIP 5/3/2/2/1 (note 3: AFV/Squad/HS/Crew/SMC), Roadblock 5;
    note 3: "No > 10% (FRD) of a side's non-reserve Infantry squad-equivalents may be set
    up using HIP"; unspent DSP are lost."""
    f = m.fortifications
    assert f.currency == "DSP" and f.forfeit_unspent
    items = {i.id: i for i in f.items}
    foxhole, hip = items["foxhole"], items["hip"]
    assert [foxhole.price(n) for n in range(3)] == [3, 2, 1]
    assert [t.label for t in foxhole.tiers] == [
        "3-squad capacity",
        "2-squad capacity",
        "1-squad capacity",
    ]
    assert items["trench"].cost == 5
    assert items["roadblock"].cost == 5
    assert [(t.label, t.cost) for t in hip.tiers] == [
        ("AFV", 5),
        ("Squad", 3),
        ("HS", 2),
        ("Crew", 2),
        ("SMC", 1),
    ]
    assert (hip.hip.fraction, hip.hip.rounding, hip.hip.of) == (
        "1/10",
        "FRD",
        "squad_equivalents",
    )
    assert "30 DSP per TM Scenario on Mines" in f.footnotes["6"]


def test_c5_36_recon_1_tp_or_2_tp_for_plus_5(m):
    """C5.36 / RG note n: Recon for 1 TP, +5 drm for 1 additional TP; not for the Initial
    Scenario; bought at the step itself (no Recon RG), and the text says nothing of
    Locations adding up over a Lull."""
    r = m.recon
    assert [(o.cost, o.drm) for o in r.options] == [(1, 0), (2, 5)]
    assert r.dice == "dr" and r.not_for_initial
    assert r.group is None and not r.cumulative_over_idle


# --------------------------------------------------------------------------- initiative


def test_c5_37_initiative_matrix_cells(m):
    """C5.37 Initiative Determination Table: both Attack → Dual Attack; German Attack/US
    Idle → German Attack; German Idle/US Attack → US Attack; both Idle → Lull."""
    cells = {(c.chits["german"], c.chits["us"]): c.result for c in m.initiative.matrix}
    assert cells == {
        ("attack", "attack"): "dual_attack",
        ("attack", "idle"): "german_attack",
        ("idle", "attack"): "us_attack",
        ("idle", "idle"): "lull",
    }


def test_c5_37_follow_ups_who_sets_up_and_moves_first(m):
    """C5.37: US Attack - German sets up first, US moves first; German Attack - US sets up
    first, German moves first; Dual Attack - dr ≤3 German sets up first, dr ≥4 US moves first.
    Rules: C5.37a, C5.37b, C5.37c."""
    res = {r.id: r for r in m.initiative.results}
    assert (res["us_attack"].sets_up_first, res["us_attack"].moves_first) == ("german", "us")
    assert (res["german_attack"].sets_up_first, res["german_attack"].moves_first) == (
        "us",
        "german",
    )
    dual = res["dual_attack"]
    assert isinstance(dual.sets_up_first, RollForSide) and isinstance(dual.moves_first, RollForSide)
    assert dual.sets_up_first.rows == [
        {"range": "≤3", "side": "german"},
        {"range": "≥4", "side": "us"},
    ]
    assert dual.moves_first.rows[-1] == {"range": "≥4", "side": "us"}


# --------------------------------------------------------------------------- missing


def test_c5_31_rg_charts_declared_missing(m):
    """C5.31: both TM RG Charts are lost in the OCR and say so."""
    assert {c.side for c in m.rg_charts} == {"us", "german"}
    assert all(c.missing and not c.groups for c in m.rg_charts)
    assert any("C5.31" in x.rule for x in m.missing)
    assert m.table("leader_table").missing  # C5.33


# --------------------------------------------------------------------------- SAN, leaders


def test_c5_25_san_below_2_raised_to_2_above_4_lowered_to_4(m):
    """C5.25: "Any side with a SAN of < 2 has its SAN adjusted to '2' ... Any side with a
    SAN that is > 4 has it reduced to '4' prior to making any requisitions."  No roll."""
    assert (m.san.minimum, m.san.maximum, m.san.rule) == (2, 4, "C5.25")
    assert m.san.table is None and m.san.roll_from is None
    ids = [s.id for s in m.steps]
    assert m.steps[ids.index("C5.25")].kind == "san"
    assert ids.index("C5.25") < ids.index("C5.31")  # before any requisitions


def test_c5_33_leader_dr_for_i_and_a_rgs_marked_l(m):
    """C5.33: "For each requisitioned/OB given 'I' or 'A' type RG marked with an RG
    Footnote 'l' make one secret DR" on the (lost) Leader Table."""
    (p,) = [x for x in m.post_purchase if x.table == "leader_table"]
    assert p.table == "leader_table" and p.rule == "C5.33"
    assert sorted(p.applies_to.id_prefixes) == ["A", "I"] and p.applies_to.footnotes == ["l"]
    assert (p.per, p.count) == ("group", 1)


def _with_chart(m: Module, side: str, groups: list[dict]) -> Module:
    """``m`` with ``side``'s lost chart supplied (as the players would, in the app)."""
    from rules.schema import ReinforcementGroup

    charts = [
        c.model_copy(
            update={
                "missing": False,
                "groups": [ReinforcementGroup.model_validate(g) for g in groups],
            }
        )
        if c.side == side
        else c
        for c in m.rg_charts
    ]
    return m.model_copy(update={"rg_charts": charts})


def test_c5_31_footnote_x_only_on_or_after_tm_scenario_iii(m):
    """RG footnote x: "May only be requisitioned on/after TM Scenario III" (1230 hrs):
    an RG the players mark x on their supplied chart is refused at 0600 and 0930."""
    from rules.purchase import unavailable

    supplied = _with_chart(
        m,
        "us",
        [
            {"id": "A1", "type": "Armor", "units": "M4A1", "cost": 6, "footnotes": ["x"]},
            {"id": "I1", "type": "Rifle Pl", "units": "6-6-6", "cost": 4},
        ],
    )
    late, plain = supplied.group("us", "A1"), supplied.group("us", "I1")
    for date_index, refused in ((0, True), (1, True), (2, False), (4, False)):
        why = unavailable(
            supplied, variant="tm", side="us", group=late, date_index=date_index, bought=()
        )
        assert bool(why) is refused, (date_index, why)
        assert not unavailable(
            supplied, variant="tm", side="us", group=plain, date_index=date_index, bought=()
        )
    why = unavailable(supplied, variant="tm", side="us", group=late, date_index=0, bought=())
    assert any("C5.31 RG footnote x" in w for w in why)


def test_c5_23_c5_24_one_secret_promotion_dr_per_side(m):
    """C5.23 "Each side makes a secret DR"; C5.24 "Each side has the option to make a
    secret DR": one each, never rerolled until a better result comes."""
    assert m.table("battlefield_promotion").once == "side"
    assert m.table("leader_promotion").once == "side"
    assert not m.table("leader_promotion").required  # "has the option"


def test_c5_35_booby_traps_are_german_only(m):
    """Fortification note G "Only available for German requisition"; C5.25b knows only
    a German Booby Trap Level."""
    item = next(i for i in m.fortifications.items if i.id == "booby_traps")
    assert item.sides == ["german"]


def test_c5_31_footnote_u_rgs_roll_for_their_type(m):
    """C5.31 RG footnote u: "Determine RG type as per following table": a dr for each
    RG marked u, on the RG type table (lost: the players supply it)."""
    (p,) = [x for x in m.post_purchase if x.table == "rg_type"]
    assert p.applies_to.footnotes == ["u"] and p.rule == "C5.31 RG footnote u"
    assert m.table("rg_type").missing


def test_c5_32_every_rg_with_units_is_requisitioned_on_map_in_reserve_or_as_reinforcements(m):
    """C5.31/C5.32: "Any reinforcement group may be requisitioned for On-Map set up; In
    Reserve set up; or enter as Reinforcements ... [its] TP cost increased or decreased"
    by the (lost) RG Set Up Cost Table: an RG with units is offered the three set-ups,
    never the bare printed cost; C5.31b: only A, G, HW and I RGs In Reserve, even at a
    cost the chart gives; an RG the table does not name keeps its printed cost, one the
    supplied chart prices per set-up costs that; an OBA module has no set-up."""
    from rules.purchase import cost_options

    supplied = _with_chart(
        m,
        "german",
        [
            {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": 4},
            {
                "id": "A1",
                "type": "StuG Pl",
                "units": "StuG IIIG",
                "unit_kind": "vehicle",
                "cost": 6,
                "costs": {"onmap": 8, "reserve": 5},
            },
            {
                "id": "W2",
                "type": "Pak Section",
                "units": "7.5cm Pak 40",
                "unit_kind": "gun",
                "cost": 3,
                "costs": {"reserve": 2},
            },
            {"id": "O1", "type": "105mm OBA Module", "units": "OBA", "cost": 6},
        ],
    )

    def prices(gid):
        group = supplied.group("german", gid)
        return [(o.variant, o.cost) for o in cost_options(supplied, "german", group)]

    # C5.32 "Set up <2 hexes from enemy FEBA" (+1 TP over On-Map, cumulative: pass 15).
    assert prices("I1") == [("onmap", 4), ("onmap_near", 5), ("reserve", 4), ("reinforcement", 4)]
    assert prices("A1") == [("onmap", 8), ("onmap_near", 9), ("reserve", 5), ("reinforcement", 6)]
    assert prices("W2") == [("onmap", 3), ("onmap_near", 4), ("reinforcement", 3)]
    assert prices("O1") == [("", 6)]
    assert [cv.rule for cv in m.cost_variants if cv.rule.endswith("C5.32")] == [
        "C5.31a, C5.32",
        "C5.32",
        "C5.31b, C5.32",
        "C5.31, C5.32",
    ]


def test_c1_1_in_the_conph_rgs_are_requisitioned_with_tp(m):
    """C1.1: "In the ConPh, the players may requisition [Rein]forcement Groups (RGs)
    using Tactical Points (TP)": the ConPh has a purchase step (C5.31) paid in TP, after
    each TM Scenario (not only at the start)."""
    conph = [s for s in m.steps if not s.start]
    assert [s.id for s in conph if s.kind == "purchase"] == ["C5.31"]
    assert m.currency.code == "TP" and m.currency.name == "Tactical Points"


def test_c5_23_each_row_names_the_mmc_it_lets_battle_harden(m):
    """C5.23: the DR determines "the number of MMC that may be Battle-Hardened": each
    row's effect names that number (≤2: 3, 3-4: 2, 5-6: 1, ≥7: none), typed in a
    supplied table as "harden mmc: 2"."""
    t = m.table("battlefield_promotion")
    assert [effects.mmc_to_harden(effects.row_effects(t.lookup(f))) for f in (2, 4, 6, 7)] == [
        3,
        2,
        1,
        0,
    ]
    typed = Effect.model_validate(effects.parse_short("harden mmc: 2"))
    assert typed.count == 2 and effects.short(typed) == "harden mmc: 2"
