"""The Sicily (PBr) module against its seed text (seed 001, RePh 3.6-3.623).

Each test checks one transcribed datum (or a small group) and cites its rule number.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from rules.loader import load_file
from rules.schema import CountLimit, DateWindow, Effect, Module, Prerequisite, RollForSide

pytestmark = pytest.mark.rules

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
    """3.6: steps 3.601-3.623 are performed simultaneously, in order: the step table's
    rows 3.601, 3.602, 3.603, 3.604, 3.605, 3.606, 3.607, 3.608, 3.609, 3.610, 3.611,
    3.612, 3.613, 3.614, 3.615, 3.616, 3.617, 3.618, 3.619, 3.620, 3.621, 3.622 and
    3.623 are the module's steps, each by both sides."""
    ids = [s.id for s in m.steps if not s.start]
    first = next(s for s in m.steps if not s.start)
    assert ids[0] == "3.6" and first.kind == "results"
    numbered = [i for i in ids if len(i) == 5]
    assert numbered == [f"3.6{n:02d}" for n in range(1, 24)]
    assert all(s.acts == "both" for s in m.steps)


def test_3_6212_idle_repeats_steps_3_612_to_3_6212(m):
    """3.6212 footnote 2: Idle repeats RePh steps 3.612-.6212: the Idle result loops back
    to 3.612 (New CG Date), and the repeated run ends at the initiative step 3.621."""
    assert m.flow.idle_loop_from == "3.612"
    idle = next(r for r in m.initiative.results if r.id == "idle")
    assert idle.scenario is False and idle.loops_to == "3.612"
    ids = [s.id for s in m.steps]
    repeated = m.steps[ids.index("3.612") : ids.index("3.621") + 1]
    assert repeated[0].kind == "date" and repeated[-1].kind == "initiative"


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


def test_3_616_exc_cg_iii_british_may_forgo_cpp_from_the_axis_base(m):
    """3.616 EXC: "On the July 14 PM date of CG III the British player may fore go all or
    a portion of the allotted CPP. The number of CPP fore gone is subtracted from the Axis
    CPP base." """
    (f,) = m.currency.forgo
    assert (f.variants, f.date, f.side, f.from_side, f.rule) == (
        ["iii"],
        "jul14pm",
        "british",
        "axis",
        "3.616 EXC",
    )
    step = next(s for s in m.steps if s.id == "3.616")
    assert step.kind == "compute" and step.effect == "replenish"


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
    """Axis chart: M1 Sniper SAN +1 for 2 CPP; M2 Recon '1 (2)' (3.620r): the Recon RG
    of the chart is what 3.620's Recon dr is bought as, +5 drm at 2 CPP (footnote r)."""
    assert group(m, "axis", "M1").grants == {"san": 1} and group(m, "axis", "M1").cost == 2
    m2 = group(m, "axis", "M2")
    assert m2.cost == 1 and m2.costs == {"recon_plus5": 2} and m2.grants == {}
    assert m2.unit_kind is None  # a Recon RG brings no unit
    assert m.recon.group == "M2"
    plus5 = next(c for c in m.cost_variants if c.id == "recon_plus5")
    assert plus5.recon_drm == 5 and plus5.applies_to.groups == ["M2"]


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


def test_3_617_footnotes_d_e_f_g_what_comes_with_an_rg(m):
    """Axis footnotes d/e/f/h: each German MG comes with a 2-4-8 HS, each Gun with a
    2-2-8 crew, each OBA module with a radio, the G4 gun with an SdKfz 7; British
    footnote q: each G2 Gun with a Jeep (a) and a British Glider.  Footnote g (Axis) / f
    (British): on-map set-up on the purchase date at no extra cost (no 3.6175 surcharge)."""
    i2 = group(m, "axis", "I2")
    assert i2.unit_kind == "sw"
    assert [(c.unit, c.kind, c.per) for c in i2.comes_with] == [("2-4-8 HS", "half_squad", "unit")]
    g4 = group(m, "axis", "G4")
    assert g4.unit_kind == "gun"
    assert [(c.unit, c.kind, c.per) for c in g4.comes_with] == [
        ("2-2-8 crew", "half_squad", "unit"),
        ("SdKfz 7", "vehicle", "unit"),
    ]
    o1 = group(m, "axis", "O1")
    assert o1.unit_kind is None and [(c.unit, c.per) for c in o1.comes_with] == [("radio", "group")]
    g2 = group(m, "british", "G2")
    assert [c.unit for c in g2.comes_with] == ["2-2-8 crew", "Jeep (a)", "British Glider"]
    assert all(group(m, "axis", g).setup_on_map_free for g in ("I2", "G1", "O1"))
    assert all(group(m, "british", g).setup_on_map_free for g in ("I5", "G1", "O1"))
    assert not group(m, "axis", "I1").setup_on_map_free  # no footnote g
    on_map = next(c for c in m.cost_variants if c.id == "on_map")
    assert on_map.on_map
    # So the 3.6175 On-Map price (+20%) is never offered to them: it costs them nothing.
    from rules.purchase import cost_options

    def variants(side, rg):
        return [o.variant for o in cost_options(m, side, group(m, side, rg))]

    assert "on_map" not in variants("axis", "I2") and "on_map" not in variants("british", "I5")
    assert "on_map" in variants("axis", "I1") and "on_map" in variants("british", "I1")


def test_3_617_unit_kinds_of_the_rgs(m):
    """3.617: the Unit Type column: squads (I coys), MGs (SW), Guns (G), vehicles (V);
    OBA modules, Bombardments and the M RGs bring no unit of their own."""
    kinds = {g.id: g.unit_kind for g in m.chart("axis").groups}
    assert kinds["I1"] == kinds["I7"] == "squad"
    assert kinds["I2"] == kinds["I8"] == "sw"
    assert kinds["G1"] == kinds["G5"] == "gun"
    assert kinds["V1"] == "vehicle"
    assert kinds["O1"] is kinds["M1"] is kinds["M3"] is None
    assert group(m, "british", "V1").unit_kind == "vehicle"


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
    """3.610: a dr "for each currently wounded Retained Leader": <= 1 Retained unwounded,
    2-4 Retained wounded, >= 5 Eliminated (evacuated); -1 if part of British Airborne RG
    (applies by itself to a leader a British airborne RG brought)."""
    t = m.table("wounded_leaders")
    assert t.for_units.kinds == ["leader"] and t.for_units.statuses == ["wounded"]
    assert t.once == "unit"
    assert t.lookup(1).result == "Retained unwounded"
    assert t.lookup(1).effect == Effect(do="status", status="ok")
    assert t.lookup(4).result == "Retained wounded" and t.lookup(4).effect.do == "none"
    assert t.lookup(5).effect.do == "eliminate"
    airborne = {d.id: d for d in t.drms}["british_airborne"]
    assert airborne.value == -1
    assert airborne.when.sides == ["british"] and airborne.when.tags == ["airborne"]


def test_3_6122_san_adjustment_drm_is_san_minus_4(m):
    """3.6122: a SAN < 2 is raised to 2; a side with SAN >= 4 makes a dr + (SAN - 4);
    a Final dr >= 5 reduces its SAN by two.  One dr per side."""
    t = m.table("san_adjustment")
    (d,) = t.drms
    assert (d.of, d.offset, d.value, d.per) == ("san", -4, 1, 1)
    assert t.lookup(5).effect == Effect(do="san", by=-2)
    assert t.lookup(4).effect == Effect(do="none")
    assert t.once == "side"
    assert (m.san.minimum, m.san.maximum, m.san.roll_from, m.san.table) == (
        2,
        None,
        4,
        "san_adjustment",
    )
    step = next(s for s in m.steps if s.id == "3.6122")
    assert step.kind == "san" and step.tables == ["san_adjustment"]


def test_3_613_shift_table(m):
    """3.613: <= 8 Shifted safely, 9-10 No Shift, 11 Shifted with Casualties, >= 12 all
    eliminated; -1 if the path is all road.  The players move the units on the map; the
    DR is made for a unit named, and >= 12 eliminates it with what it possesses."""
    t = m.table("shift")
    assert [t.lookup(v).result for v in (8, 9, 10, 11, 12)] == [
        "Shifted safely",
        "No Shift [*]",
        "No Shift [*]",
        "Shifted with Casualties [†]",
        "All units, Inherent Crews and Equipment Eliminated",
    ]
    assert [r.effect.do for r in t.rows if r.effect] == ["none", "none", "none", "eliminate"]
    assert t.for_units is not None and t.once == "unit"
    assert {d.id: d.value for d in t.drms}["road"] == -1


def test_3_6141_immobilization_and_stun(m):
    """3.6141b: <= 2 becomes Mobile; 3.6141d: <= 2 recover, 3-5 retain, >= 6 eliminated;
    each rolled once per immobilized / stunned vehicle."""
    immob = m.table("immobilization_repair")
    assert immob.lookup(2).effect == Effect(do="status", status="ok")
    assert immob.lookup(3).result == "No change" and immob.lookup(3).effect.do == "none"
    assert (immob.for_units.kinds, immob.for_units.statuses) == (["vehicle"], ["immobilized"])
    stun = m.table("stun_recovery")
    assert [stun.lookup(v).result for v in (2, 5, 6)] == [
        "Recover, remove stun",
        "Retain stun",
        "Eliminated",
    ]
    assert [stun.lookup(v).effect.do for v in (2, 5, 6)] == ["status", "none", "eliminate"]
    assert (stun.for_units.kinds, stun.for_units.statuses) == (["vehicle"], ["stunned"])
    assert immob.once == stun.once == "unit"


def test_3_6142_weapon_repair_has_variable_repair_number(m):
    """3.6142: <= 1 Repaired, >= 2 Eliminated (footnote *: a vehicular-mounted weapon is
    Disabled instead, the vehicle stays; "if MA, the AFV is immediately Recalled": a
    vehicle is rolled for here for its MA: the MA Disabled, the AFV Recalled); -x Weapon
    Repair Number entered by player."""
    t = m.table("weapon_repair")
    assert t.lookup(1).effect == Effect(do="status", status="ok")
    eliminated = t.lookup(2)
    assert eliminated.effect is None
    assert [(e.do, e.status, e.kinds, e.to) for e in eliminated.effects] == [
        ("eliminate", None, ["sw", "gun"], None),
        ("status", "recalled", ["vehicle"], "carrier"),
        ("status", "disabled", ["vehicle"], None),
    ]
    assert t.for_units.statuses == ["malfunctioned"] and t.once == "unit"
    assert t.for_units.weapons == ["ma"]
    assert m.table("vehicular_mg_repair").for_units.weapons == ["mg"]
    assert next(d for d in t.drms if d.id == "repair_number").variable


def test_3_61422_captured_equipment_declared_missing(m):
    """3.61422: the table is cut from the seed."""
    assert m.table("captured_equipment").missing


def test_3_61424_special_ammo(m):
    """3.61424: <= 3 restores the special ammunition type; >= 4 it stays depleted.  The
    dr is made for a weapon of the retained forces, but its ammunition is no mark of it:
    the result changes nothing on the unit."""
    t = m.table("special_ammo")
    assert t.lookup(3).result == "Restores special Ammunition type"
    assert t.lookup(4).result.startswith("NA, weapon still depleted")
    assert t.lookup(3).effect.do == "none" and t.lookup(4).effect.do == "none"


def test_3_6181_rg_strength_table_and_g_v_drm(m):
    """3.6181: DR <= 9 Full, >= 10 Depleted; -1 for G and V RGs [EXC British Airlanding]."""
    t = m.table("rg_strength")
    assert t.dice == "DR"
    assert t.lookup(9).effect == Effect(do="strength", strength="full")
    assert t.lookup(10).effect == Effect(do="strength", strength="depleted")
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
    """3.6183: +2 Italian RG, +2 British V, -1 German V, +1 Depleted, -4 Signal Coy 1st
    roll (the Axis I4 Signal Coy's first leader roll, by itself)."""
    d = {x.id: x for x in m.table("leader_allotment").drms}
    assert d["italian"].value == 2 and d["italian"].when.tags == ["italian"]
    assert d["british_v"].value == 2 and d["british_v"].when.sides == ["british"]
    assert d["german_v"].value == -1 and d["german_v"].when.sides == ["axis"]
    assert d["depleted"].when.strength == "depleted"
    signal = d["signal_first_roll"]
    assert signal.value == -4
    assert signal.when.tags == ["signal"] and signal.when.first_roll is True
    assert "signal" in group(m, "axis", "I4").tags


def test_3_6183_armor_leader_dash_is_no_leader(m):
    """3.6183: the Armor Leader column prints '-' from 8 up: no leader (effect none),
    while the Personnel Leader column gives a leader on every row."""
    t = m.table("leader_allotment")
    for dr in (8, 10, 12):
        assert t.lookup(dr).column_effects["Armor Leader"] == Effect(do="none")
    assert t.lookup(3).column_effects["Armor Leader"] == Effect(
        do="leader", unit="9-2 armor leader"
    )
    assert all(r.column_effects["Personnel Leader"].do == "leader" for r in t.rows)
    assert t.lookup(12).column_effects["Personnel Leader"].unit == "6+1 leader"


# --------------------------------------------------------------------------- fortifications, recon


def test_3_619_fortification_costs(m):
    """3.619: Foxhole 3/2/1 (footnote c: by squad capacity, 3S/2S/1S), Roadblock 10,
    '?' 1, HIP 5/3/2/1 (footnote a: per counter size), Trench 10, AT Mines 3."""
    items = {i.id: i for i in m.fortifications.items}
    foxhole, hip = items["foxhole"], items["hip"]
    assert [foxhole.price(n) for n in range(3)] == [3, 2, 1]
    assert foxhole.cost is None and foxhole.tiers[0].label.startswith("3S")
    assert [hip.price(n) for n in range(4)] == [5, 3, 2, 1]
    assert items["roadblock"].price(0) == items["roadblock"].cost == 10
    assert items["unknown_counter"].cost == 1
    assert items["trench"].cost == 10
    assert items["at_mines"].cost == 3
    assert m.fortifications.forfeit_unspent


def test_3_619_caps_and_airborne_requirement(m):
    """3.619 d, f, b: <= 6 AT mines per CG, British only with airborne MMC retained;
    <= 5 Axis roadblocks per CG; HIP <= 10% (FRU) of retained squads."""
    items = {i.id: i for i in m.fortifications.items}
    assert items["at_mines"].per_cg_max == 6
    assert items["at_mines"].requires_retained == ["airborne"]
    assert items["roadblock"].per_cg_max == 5 and items["roadblock"].cap_sides == ["axis"]
    assert items["at_mines"].sides == ["british"]
    hip = items["hip"].hip
    assert Fraction(hip.fraction) == Fraction(1, 10)
    assert (hip.rounding, hip.of, hip.rule) == ("FRU", "squads", "3.619 footnote b")


def test_3_620_recon_options(m):
    """3.620: one CPP (or two, for +5 drm) buys a Recon dr, bought as the chart's M2
    Recon RG (3.620r) whose Date Max (2) and CG Max per CG (Axis 6/4/2, British 6/6/0)
    apply; not for an Initial Scenario; Idle dates are cumulative."""
    r = m.recon
    assert r.group == "M2" and r.options == []
    assert r.not_for_initial and r.cumulative_over_idle and r.dice == "dr"
    axis, british = group(m, "axis", "M2"), group(m, "british", "M2")
    assert (axis.cost, axis.costs, axis.date_max) == (1, {"recon_plus5": 2}, 2)
    assert axis.cg_max == {"i": 6, "ii": 4, "iii": 2}
    assert british.cg_max == {"i": 6, "ii": 6, "iii": 0}


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
    """3.6213c/d: Axis Assault - British set up first, Axis moves first; and vice versa.
    Rules: 3.6213d."""
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


def test_3_6182_depleted_i_rgs_roll_per_sw_and_footnote_m_per_carrier(m):
    """3.6182: a Full-Strength I RG receives all its SW, a Depleted one rolls for each;
    British footnote m: a depleted V3/V4 rolls "for each Carrier as if a SW"."""
    per_sw = next(p for p in m.post_purchase if p.table == "sw_depleted" and p.per == "sw")
    assert per_sw.applies_to.id_prefixes == ["I"] and per_sw.applies_to.strength == "depleted"
    per_unit = next(p for p in m.post_purchase if p.table == "sw_depleted" and p.per == "unit")
    assert per_unit.applies_to.groups == ["V3", "V4"]
    assert per_unit.rule == "3.617 British chart footnote m"


def test_british_footnote_e_creeping_barrage_costs_half_as_much_again(m):
    """3.617 British chart footnote e: "Use as a creeping barrage increases the cost of a
    module by 50% and is not convertible" — offered for the three OBA modules (O1 7 ->
    11, O2 8 -> 12, O3 10 -> 15), not for the observer (O4) nor for the Axis.  Rules: 3.617."""
    from rules.purchase import cost_options

    def creeping(side, rg):
        return [
            o.cost for o in cost_options(m, side, group(m, side, rg)) if o.variant == "creeping"
        ]

    assert (creeping("british", "O1"), creeping("british", "O2")) == ([11], [12])
    assert creeping("british", "O3") == [15]
    assert creeping("british", "O4") == [] and creeping("axis", "O1") == []


def test_british_footnote_j_an_observer_needs_an_oba_module_held(m):
    """British chart footnote j: "Cost is per module ... Each Off board Observer is
    retained as long as the module he is assigned to is retained": O4 is refused while
    the British hold no OBA module, and offered once one is held."""
    from rules.purchase import unavailable

    jul15 = [d.id for d in m.dates].index("jul15am")
    o4 = group(m, "british", "O4")

    def why(tags):
        return unavailable(
            m,
            variant="i",
            side="british",
            group=o4,
            date_index=jul15,
            bought=(),
            retained_tags=frozenset(tags),
        )

    assert any("3.617 British chart footnote j" in r for r in why(set()))
    assert not why({"oba"})


def test_3_6142_vehicular_minus_1_applies_by_itself_to_a_vehicle_only(m):
    """3.6142 drm "-1 if vehicular-mounted": the app knows the kind of the unit rolled
    for, so the -1 applies by itself to a vehicle's weapon and never to a SW or Gun (it
    is no longer the player's tick, and cannot be claimed for a SW)."""
    from rules.drm import DrmRefused, RollContext, applicable_drms

    t = m.table("weapon_repair")
    r = {"repair_number": -2}  # required: every weapon has a Repair Number
    on_vehicle = applicable_drms(t, RollContext(side="axis", unit_kind="vehicle"), typed=r)
    assert [(d.id, d.value, d.how) for d in on_vehicle] == [
        ("vehicular", -1, "auto"),
        ("repair_number", -2, "typed"),
    ]
    on_sw = applicable_drms(t, RollContext(side="axis", unit_kind="sw"), typed=r)
    assert [d.id for d in on_sw] == ["repair_number"]
    with pytest.raises(DrmRefused, match="applies by itself"):
        applicable_drms(t, RollContext(side="axis", unit_kind="sw"), ticked=["vehicular"], typed=r)
