"""The Sicily (PBr) module against its seed text (seed 001, RePh 3.6-3.623).

Each test checks one transcribed datum (or a small group) and cites its rule number.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from rules.loader import load_file
from rules.schema import CountLimit, DateWindow, Module, Prerequisite, RollForSide

MODULE_FILE = Path(__file__).resolve().parents[2] / "rules" / "modules" / "sicily.yaml"


@pytest.fixture(scope="module")
def m() -> Module:
    return load_file(MODULE_FILE, overrides=False)


def group(m: Module, side: str, rg: str):
    chart = m.chart(side)
    assert chart is not None
    return next(g for g in chart.groups if g.id == rg)


def restrictions_for(m: Module, side: str, rg: str, kind: type):
    chart = m.chart(side)
    assert chart is not None
    return [
        r for r in chart.restrictions if isinstance(r, kind) and rg in (r.applies_to.groups or [])
    ]


# --------------------------------------------------------------------------- structure


def test_module_loads_with_both_sides_and_three_cgs(m):
    """3.51-.53: CG I, II, III; sides Axis and British."""
    assert m.id == "sicily"
    assert [s.id for s in m.sides] == ["axis", "british"]
    assert [v.id for v in m.variants] == ["i", "ii", "iii"]


def test_3_6161_eleven_cg_dates_july_14_am_to_july_17_pm(m):
    """3.6161: the CPP Base table lists July 14 AM ... July 17 PM; N dates are Night."""
    assert len(m.dates) == 11
    assert m.dates[0].id == "jul14am" and m.dates[-1].id == "jul17pm"
    assert [d.id for d in m.dates if d.night] == ["jul14n", "jul15n", "jul16n"]


def test_3_601_to_3_623_steps_in_order_after_results(m):
    """3.6: steps 3.601-3.623 are performed simultaneously, in order."""
    ids = [s.id for s in m.steps if not s.start]
    first = next(s for s in m.steps if not s.start)
    assert ids[0] == "3.6" and first.kind == "results"
    numbered = [i for i in ids if len(i) == 5]
    assert numbered == [f"3.6{n:02d}" for n in range(1, 24)]
    assert all(s.acts == "both" for s in m.steps)


def test_3_6212_idle_repeats_steps_3_612_to_3_6212(m):
    """3.6212 footnote 2: Idle repeats RePh steps 3.612-.6212."""
    assert m.flow.idle_loop_from == "3.612"
    assert m.flow.idle_loop_to == "3.621"
    idle = next(r for r in m.initiative.results if r.id == "idle")
    assert idle.scenario is False and idle.loops_to == "3.612"


def test_3_51_attack_chit_limits_declared_missing(m):
    """3.51-.53 are not in the seed: no attack_chits, and a missing entry."""
    assert all(v.attack_chits is None for v in m.variants)
    assert any(x.rule.startswith("3.51") for x in m.missing)


# --------------------------------------------------------------------------- CPP


def test_3_6161_cpp_base_july_15_am_british_is_80(m):
    """3.6161: July 15 AM, British CPP Base 80 (Axis 30)."""
    assert m.date("jul15am").base_points == {"axis": 30, "british": 80}


def test_3_6161_cpp_base_july_14_n_axis_42_british_4(m):
    """3.6161: July 14 N, Axis 42, British 4."""
    assert m.date("jul14n").base_points == {"axis": 42, "british": 4}


def test_3_6161_cpp_base_july_14_am_and_july_17_pm(m):
    """3.6161: July 14 AM 39/17; July 17 PM 12/16."""
    assert m.date("jul14am").base_points == {"axis": 39, "british": 17}
    assert m.date("jul17pm").base_points == {"axis": 12, "british": 16}


def test_3_6161_cpp_base_axis_column_total(m):
    """3.6161: Axis column sums to 319, British column (17+12+4+80+65+65+62+60+18+16+16) to 415."""
    assert sum(d.base_points["axis"] for d in m.dates) == 319
    assert sum(d.base_points["british"] for d in m.dates) == 415


def test_3_6162_loss_points_two_times_and_eight_more_gives_a_dr(m):
    """3.6162: CVP lost >= 2x and >= 8 more than the opponent's: add a dr."""
    rep = m.currency.replenishment
    assert rep.mechanism == "base_table"
    assert (rep.loss_points.ratio, rep.loss_points.margin, rep.loss_points.dice) == (2, 8, "dr")


def test_3_617_cpp_left_after_july_14_pm_are_lost(m):
    """3.617 EXC: any CPP remaining after this step on the 14 PM date are lost."""
    assert m.currency.carry_over.lost_after_dates == ["jul14pm"]


# --------------------------------------------------------------------------- RG charts


def test_3_617_group_counts(m):
    """3.617: 24 German/Italian and 23 British RGs."""
    assert len(m.chart("axis").groups) == 24
    assert len(m.chart("british").groups) == 23


def test_3_617_axis_i1_pioneer_coy_cell(m):
    """3.617 Axis chart: I1 Fallschirmjaeger Pioneer Coy 12/9, 21 CPP, Date Max 1, 3/2/0."""
    g = group(m, "axis", "I1")
    assert (g.full, g.depleted, g.units, g.cost, g.date_max) == (12, 9, "4-6-8", 21, 1)
    assert g.cg_max == {"i": 3, "ii": 2, "iii": 0}
    assert g.footnotes == ["b", "c", "k", "m"] and "coy" in g.tags


def test_3_6182_axis_pioneer_coy_sw_3_lmg_6_dc_3_ft(m):
    """3.6182: Fallschirmjaeger Pioneer Coy receives 3 LMG, 6 DC, 3 FT."""
    assert group(m, "axis", "I1").sw == {"LMG": 3, "DC": 6, "FT": 3}


def test_3_617_axis_i5_alert_coy_cg_max_and_date_window(m):
    """3.617 Axis chart: I5 Alert Infantry Coy 14 CPP, 2/0/2; footnote l: before July 14 N."""
    g = group(m, "axis", "I5")
    assert g.cost == 14 and g.date_max == 2 and g.cg_max == {"i": 2, "ii": 0, "iii": 2}
    (w,) = restrictions_for(m, "axis", "I5", DateWindow)
    assert w.not_after == "jul14pm" and w.not_before is None


def test_3_617_axis_footnote_k_first_eligible_july_14_n(m):
    """Axis footnote k: 'only eligible for purchase after July 14 PM' -> from July 14 N."""
    (w,) = restrictions_for(m, "axis", "G5", DateWindow)
    assert w.not_before == "jul14n"


def test_3_617_axis_footnote_o_i6_only_after_july_16_n(m):
    """Axis footnote o: I6 only after July 16 N -> from July 17 AM."""
    (w,) = restrictions_for(m, "axis", "I6", DateWindow)
    assert w.not_before == "jul17am"


def test_3_617_axis_footnote_m_coy_limits(m):
    """Axis footnote m: <= 2 coy-type RG per CG Date and <= 4 per calendar day."""
    limits = {
        (r.per, r.max)
        for r in m.chart("axis").restrictions
        if isinstance(r, CountLimit) and r.applies_to.tags == ["coy"]
    }
    assert limits == {("date", 2), ("day", 4)}


def test_3_617_axis_footnote_n_i3_after_all_i1(m):
    """Axis footnote n: I3 not before all I1 ('11' read as 'I1') are purchased."""
    (p,) = restrictions_for(m, "axis", "I3", Prerequisite)
    assert p.requires.groups == ["I1"] and p.count == group(m, "axis", "I1").cg_max["i"]


def test_3_617_axis_m3_fortification_grants_20_fpp(m):
    """Axis chart M3: 20 FPP for 1 CPP, Date Max 5, 20/19/1."""
    g = group(m, "axis", "M3")
    assert g.grants == {"fortification_points": 20}
    assert (g.cost, g.date_max, g.cg_max) == (1, 5, {"i": 20, "ii": 19, "iii": 1})


def test_3_617_axis_m1_sniper_and_m2_recon(m):
    """Axis chart: M1 Sniper SAN +1 for 2 CPP; M2 Recon '1 (2)'."""
    assert group(m, "axis", "M1").grants == {"san": 1} and group(m, "axis", "M1").cost == 2
    m2 = group(m, "axis", "M2")
    assert m2.cost == 1 and m2.costs == {"recon_plus5": 2} and m2.grants == {"recon": 1}


def test_3_617_british_v1_sherman_troop(m):
    """British chart: V1 Med Tank Troop 3/2, 12 CPP, Date Max 4, 15/13/0, footnote p."""
    g = group(m, "british", "V1")
    assert (g.full, g.depleted, g.cost, g.date_max) == (3, 2, 12, 4)
    assert g.cg_max == {"i": 15, "ii": 13, "iii": 0}
    (w,) = restrictions_for(m, "british", "V1", DateWindow)
    assert w.not_before == "jul14n"


def test_3_617_british_i1_rifle_coy_cost_18_max_12(m):
    """British chart: I1 Lgt Inf Rifle Coy 12/9, 18 CPP, Date Max 2, 12/12/0, coy."""
    g = group(m, "british", "I1")
    assert (g.full, g.depleted, g.cost, g.date_max) == (12, 9, 18, 2)
    assert g.cg_max == {"i": 12, "ii": 12, "iii": 0} and "coy" in g.tags


def test_3_617_british_airborne_only_on_or_before_july_14_pm(m):
    """British footnote k: I2, I4 (and F1) only on or before July 14 PM."""
    for rg in ("I2", "I4", "F1"):
        (w,) = restrictions_for(m, "british", rg, DateWindow)
        assert w.not_after == "jul14pm"
    assert group(m, "british", "I2").cg_max == {"i": 2, "ii": 0, "iii": 2}


def test_3_617_british_g2_airlanding_date_max_na(m):
    """British chart: G2 Airlanding AT Pltn, CG Date Max 'NA' -> 0."""
    g = group(m, "british", "G2")
    assert g.date_max == 0 and g.cost == 8 and "airlanding" in g.tags


def test_3_617_british_footnote_e_one_o4_held(m):
    """British footnote e: no more than 1 O4 in a side's OB at any given time."""
    (c,) = restrictions_for(m, "british", "O4", CountLimit)
    assert (c.per, c.max) == ("held", 1)


def test_3_617_british_m3_costs_2_date_max_1(m):
    """British chart M3: 20 FPP for 2 CPP, Date Max 1, 5/4/1."""
    g = group(m, "british", "M3")
    assert (g.cost, g.date_max, g.cg_max) == (2, 1, {"i": 5, "ii": 4, "iii": 1})


# --------------------------------------------------------------------------- cost variants


def test_3_6175_axis_reserve_21_cpp_costs_16(m):
    """3.6175: Axis I/G RG in Reserve for 20% less (FRD): 21 -> 16."""
    cv = next(c for c in m.cost_variants if c.id == "reserve")
    assert cv.rounding == "FRD" and cv.applies_to.sides == ["axis"]
    assert sorted(cv.applies_to.id_prefixes) == ["G", "I"]
    cost = group(m, "axis", "I1").cost
    assert math.floor(cost * Fraction(cv.factor)) == 16


def test_3_6175_standard_on_map_21_cpp_costs_26(m):
    """3.6175: 'I' RG for Standard On-Map Setup for 20% more (FRU): 21 -> 26, both sides."""
    cv = next(c for c in m.cost_variants if c.id == "on_map")
    assert cv.rounding == "FRU" and cv.applies_to.sides is None
    assert cv.applies_to.id_prefixes == ["I"]
    assert math.ceil(21 * Fraction(cv.factor)) == 26


# --------------------------------------------------------------------------- tables


def test_3_606_escape_ocr_corrected_ends(m):
    """3.606: printed '>= 8' / '<= 12' corrected to <= 8 Escapes / >= 12 Eliminated."""
    t = m.table("escape")
    assert t.dice == "DR" and t.columns == ["Infantry", "Mobile Vehicle"]
    assert t.lookup(2).results["Infantry"].startswith("Escapes")
    assert t.lookup(10).results["Infantry"] == "Escapes; Casualty Reduced [3]"
    assert t.lookup(14).results["Mobile Vehicle"] == "Eliminated; crew (if any) is Eliminated"


def test_3_606_escape_drms(m):
    """3.606: -2 adjacent to friendly Setup Area, +2 Isolated, +2 Encircled, -1 CT AFV."""
    drms = {d.id: d.value for d in m.table("escape").drms}
    assert drms["adjacent_setup_area"] == -2 and drms["two_hexes_setup_area"] == -1
    assert drms["isolated"] == 2 and drms["encircled"] == 2 and drms["ct_afv"] == -1


def test_3_610_wounded_leaders(m):
    """3.610: <= 1 unwounded, 2-4 wounded, >= 5 evacuated; -1 British Airborne RG."""
    t = m.table("wounded_leaders")
    assert t.lookup(1).result == "Retained unwounded"
    assert t.lookup(4).result == "Retained wounded"
    assert t.lookup(5).effect == "eliminated"
    assert {d.id: d.value for d in t.drms}["british_airborne"] == -1


def test_3_6122_san_adjustment_drm_is_san_minus_4(m):
    """3.6122: dr + (SAN - 4); Final dr >= 5 reduces SAN by two."""
    t = m.table("san_adjustment")
    (d,) = t.drms
    assert (d.of, d.offset, d.value, d.per) == ("san", -4, 1, 1)
    assert t.lookup(5).effect == "san_minus_2" and t.lookup(4).effect is None


def test_3_613_shift_table(m):
    """3.613: <= 8 safe, 9-10 no Shift, 11 casualties, >= 12 eliminated; -1 road path."""
    t = m.table("shift")
    assert [t.lookup(v).effect for v in (8, 9, 10, 11, 12)] == [
        "shifted",
        "no_shift",
        "no_shift",
        "shifted_with_casualties",
        "eliminated",
    ]
    assert {d.id: d.value for d in t.drms}["road"] == -1


def test_3_6141_immobilization_and_stun(m):
    """3.6141b: <= 2 becomes Mobile; 3.6141d: <= 2 recover, 3-5 retain, >= 6 eliminated."""
    assert m.table("immobilization_repair").lookup(2).effect == "mobile"
    assert m.table("immobilization_repair").lookup(3).result == "No change"
    stun = m.table("stun_recovery")
    assert [stun.lookup(v).result for v in (2, 5, 6)] == [
        "Recover, remove stun",
        "Retain stun",
        "Eliminated",
    ]


def test_3_6142_weapon_repair_has_variable_repair_number(m):
    """3.6142: <= 1 Repaired, >= 2 Eliminated; -x Weapon Repair Number entered by player."""
    t = m.table("weapon_repair")
    assert t.lookup(1).effect == "repaired" and t.lookup(2).effect == "eliminated"
    assert next(d for d in t.drms if d.id == "repair_number").variable


def test_3_61422_captured_equipment_declared_missing(m):
    """3.61422: the table is cut from the seed."""
    assert m.table("captured_equipment").missing


def test_3_61424_special_ammo(m):
    """3.61424: <= 3 restores the special ammunition type."""
    t = m.table("special_ammo")
    assert t.lookup(3).effect == "restored" and t.lookup(4).effect is None


def test_3_6181_rg_strength_table_and_g_v_drm(m):
    """3.6181: DR <= 9 Full, >= 10 Depleted; -1 for G and V RGs [EXC British Airlanding]."""
    t = m.table("rg_strength")
    assert t.dice == "DR"
    assert t.lookup(9).effect == "full" and t.lookup(10).effect == "depleted"
    gv = next(d for d in t.drms if d.id == "g_v_type")
    assert gv.value == -1 and sorted(gv.when.id_prefixes) == ["G", "V"]
    assert gv.when.not_tags == ["airlanding"]


def test_3_6183_leader_allotment_rows(m):
    """3.6183: dr 3 -> 9-2 / 9-2; 8-9 -> 8-0 / no armor leader; >= 12 -> 6+1."""
    t = m.table("leader_allotment")
    assert t.columns == ["Personnel Leader", "Armor Leader"]
    assert t.lookup(3).results == {"Personnel Leader": "9-2", "Armor Leader": "9-2"}
    assert t.lookup(8).results == {"Personnel Leader": "8-0", "Armor Leader": "none"}
    assert t.lookup(12).results["Personnel Leader"] == "6+1"


def test_3_6183_leader_drms(m):
    """3.6183: +2 Italian RG, +2 British V, -1 German V, +1 Depleted, -4 Signal Coy 1st roll."""
    d = {x.id: x for x in m.table("leader_allotment").drms}
    assert d["italian"].value == 2 and d["italian"].when.tags == ["italian"]
    assert d["british_v"].value == 2 and d["british_v"].when.sides == ["british"]
    assert d["german_v"].value == -1 and d["german_v"].when.sides == ["axis"]
    assert d["depleted"].when.strength == "depleted"
    assert d["signal_first_roll"].value == -4


# --------------------------------------------------------------------------- fortifications, recon


def test_3_619_fortification_costs(m):
    """3.619: Foxhole 3/2/1, Roadblock 10, '?' 1, HIP 5/3/2/1, Trench 10."""
    items = {i.id: i for i in m.fortifications.items}
    assert items["foxhole"].cost_text == "3/2/1"
    assert items["roadblock"].cost == 10
    assert items["unknown_counter"].cost == 1
    assert items["hip"].cost_text == "5/3/2/1"
    assert items["trench"].cost == 10
    assert m.fortifications.forfeit_unspent


def test_3_619_caps_and_airborne_requirement(m):
    """3.619 d, f, b: <= 6 AT mines per CG, British only with airborne MMC retained;
    <= 5 Axis roadblocks per CG; HIP <= 10% (FRU) of retained squads."""
    items = {i.id: i for i in m.fortifications.items}
    assert items["at_mines"].per_cg_max == 6
    assert items["at_mines"].requires_retained == ["airborne"]
    assert items["roadblock"].per_cg_max == 5 and "AXIS ONLY" in items["roadblock"].note
    assert Fraction(items["hip"].hip_fraction) == Fraction(1, 10)


def test_3_620_recon_options(m):
    """3.620: 1 CPP, or 2 CPP for +5 drm; not for an Initial Scenario; Idle cumulative."""
    r = m.recon
    assert [(o.cost, o.drm) for o in r.options] == [(1, 0), (2, 5)]
    assert r.not_for_initial and r.cumulative_over_idle and r.dice == "dr"


# --------------------------------------------------------------------------- initiative


def test_3_6212_initiative_matrix(m):
    """3.6212: both Attack -> Dual; Axis only -> Axis Attack; British only -> British;
    both Idle -> Idle."""
    cells = {tuple(sorted(c.chits.items())): c.result for c in m.initiative.matrix}
    assert cells[(("axis", "attack"), ("british", "attack"))] == "dual_attack"
    assert cells[(("axis", "attack"), ("british", "idle"))] == "axis_attack"
    assert cells[(("axis", "idle"), ("british", "attack"))] == "british_attack"
    assert cells[(("axis", "idle"), ("british", "idle"))] == "idle"


def test_3_6213a_dual_attack_british_dr_3_or_less_sets_up_first(m):
    """3.6213a: British dr <= 3 British set up first, else Axis; 3.623 moves-first dr."""
    dual = next(r for r in m.initiative.results if r.id == "dual_attack")
    assert isinstance(dual.sets_up_first, RollForSide)
    assert dual.sets_up_first.roller == "british"
    assert dual.sets_up_first.rows == [
        {"range": "≤3", "side": "british"},
        {"range": "≥4", "side": "axis"},
    ]
    assert isinstance(dual.moves_first, RollForSide) and dual.moves_first.rule == "3.623"
    assert dual.night is not None and set(dual.night.attackers) == {"axis", "british"}


def test_3_6213cd_assaults(m):
    """3.6213c/d: Axis Assault - British set up first, Axis moves first; and vice versa."""
    res = {r.id: r for r in m.initiative.results}
    assert (res["axis_attack"].sets_up_first, res["axis_attack"].moves_first) == ("british", "axis")
    assert (res["british_attack"].sets_up_first, res["british_attack"].moves_first) == (
        "axis",
        "british",
    )


def test_3_6212_axis_cannot_attack_without_british_on_map(m):
    """3.6212 '*': Axis cannot select Attack if the British have no on-map Retained units."""
    (c,) = m.initiative.restrictions
    assert (c.side, c.chit, c.forbidden_when) == (
        "axis",
        "attack",
        "opponent_has_no_on_map_retained_units",
    )


def test_3_6211_initial_scenario_not_counted(m):
    """3.6211: neither side has selected an Attack Chit for an Initial Scenario: no
    initiative step runs before it (the start's steps are purchases, strength rolls and
    fortifications only), and 3.620: no Recon before it."""
    start = [s for s in m.steps if s.start]
    assert [s.kind for s in start] == ["purchase", "strength", "fortify"]


# --------------------------------------------------------------------------- post-purchase


def test_3_6181_strength_roll_for_i_v_g_rgs(m):
    """3.6181: each RG whose ID begins with I, V or G makes a Strength DR."""
    p = next(x for x in m.post_purchase if x.table == "rg_strength")
    assert sorted(p.applies_to.id_prefixes) == ["G", "I", "V"]


def test_3_6183_leader_rolls_for_footnote_b_rgs(m):
    """3.6183 / footnote b: leader rolls for the RGs marked b."""
    sides: dict[str, set[str]] = {}
    columns = {}
    for p in m.post_purchase:
        if p.table == "leader_allotment":
            sides.setdefault(p.applies_to.sides[0], set()).update(p.applies_to.groups)
            for g in p.applies_to.groups:
                columns[(p.applies_to.sides[0], g)] = p.column
    assert sides["axis"] == {"I1", "I3", "I4", "I5", "I6", "I7", "I10", "V1"}
    assert sides["british"] == {"I1", "I2", "I3", "I4", "V1"}
    assert columns[("axis", "V1")] == columns[("british", "V1")] == "Armor Leader"
    assert columns[("axis", "I1")] == "Personnel Leader"
