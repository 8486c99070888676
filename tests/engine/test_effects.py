"""Issue 16, "Rules as data, honestly": what a table result does is named by an effect
of a closed vocabulary and applied by one engine function (``rules.effects``); limits,
costs and SAN follow the rules' own numbers.  Engine tests: plain data, no database.

Each test cites the rule it checks and uses the rule's own numbers and examples."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import ValidationError

from rules import availability, effects, victory
from rules.drm import RollContext, applicable_drms
from rules.effects import GroupOutcome, UnitState
from rules.purchase import cost_options, unavailable
from rules.schema import Effect, Module, ReinforcementGroup, TableRow
from rules.snapshot import Bought, FortificationBought, Holdings, Snapshot
from tests.engine.conftest import at

pytestmark = pytest.mark.rules


def group(m: Module, side: str, rg: str) -> ReinforcementGroup:
    g = m.group(side, rg)
    assert g is not None
    return g


def leader(status: str = "wounded", name: str = "8-1 leader") -> UnitState:
    return UnitState(name, "leader", (status,))


# --------------------------------------------------------------------------- the vocabulary


def test_an_effect_outside_the_vocabulary_is_refused() -> None:
    """Issue 16: "an effect such as san_minus_2 is accepted by the schema and ignored":
    the vocabulary is closed, and each effect needs what it acts with."""
    with pytest.raises(ValidationError, match="san_minus_2"):
        Effect.model_validate({"do": "san_minus_2"})
    with pytest.raises(ValidationError, match="effect 'san' needs 'by'"):
        Effect.model_validate({"do": "san"})
    with pytest.raises(ValidationError, match="effect 'replace' needs 'unit'"):
        Effect.model_validate({"do": "replace"})
    with pytest.raises(ValidationError, match="effect 'units' needs 'kind'"):
        Effect.model_validate({"do": "units", "unit": "M4A3"})
    assert Effect(do="san", by=-2).by == -2


def test_a_result_naming_no_effect_changes_nothing() -> None:
    """A row without an effect does nothing to a unit, an RG or a SAN (its meaning is
    never read from its text: "Eliminated" in words alone eliminates nothing)."""
    row = TableRow(range="6", result="Eliminated")
    assert effects.row_effects(row) == []
    assert not effects.on_unit([], leader()).changes
    out = GroupOutcome()
    effects.on_group([], out)
    assert out == GroupOutcome()
    assert effects.san_after([], 5) == 5


def test_each_unit_effect_by_its_one_function() -> None:
    """eliminate / status / replace / none on the unit rolled for."""
    u = UnitState("MMG", "sw", ("malfunctioned",))
    assert effects.on_unit([Effect(do="eliminate")], u).removed
    assert effects.on_unit([Effect(do="status", status="ok")], u).status == "ok"
    replaced = effects.on_unit([Effect(do="replace", unit="7-0 leader")], leader())
    assert replaced.removed and replaced.added == (("7-0 leader", "leader"),)
    assert not effects.on_unit([Effect(do="none")], u).changes
    # A status the unit already has is no change.
    assert not effects.on_unit([Effect(do="status", status="malfunctioned")], u).changes


def test_group_and_side_effects() -> None:
    """strength / leader / units on the RG rolled for; san, side and group on the side."""
    out = GroupOutcome()
    effects.on_group(
        [
            Effect(do="strength", strength="depleted"),
            Effect(do="leader", unit="8-1 leader"),
            Effect(do="units", unit="M4A3", count=2, kind="vehicle"),
        ],
        out,
    )
    assert out.strength == "depleted" and out.leaders == ["8-1 leader"]
    assert out.units == [effects.NewUnits("M4A3", "vehicle", 2)]
    assert effects.named_side([Effect(do="side", side="axis")]) == "axis"
    assert effects.granted_group([Effect(do="group", group="RA1")]) == "RA1"
    assert effects.units_given([Effect(do="units", unit="PzIV", kind="vehicle")]) == [
        effects.NewUnits("PzIV", "vehicle", 1)
    ]
    assert effects.san_after([Effect(do="san", by=-2)], 1) == 0  # never below 0


@pytest.mark.parametrize(
    "text",
    [
        "none",
        "eliminate",
        "status: ok",
        "strength: full",
        "leader: 8-1 leader",
        "replace: 7-0 leader",
        "units: 2 x M4A3(76)W (vehicle)",
        "group: RA1",
        "san: -2",
        "side: axis",
        "type: m4",
    ],
)
def test_a_typed_effect_reads_back_as_typed(text: str) -> None:
    """A supplied table's effect is typed by the players ("san: -2", "group: RA1") and
    shown back in the same words."""
    effect = Effect.model_validate(effects.parse_short(text))
    assert effects.short(effect) == text


def test_a_typed_effect_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="SAN changes by a whole number"):
        effects.parse_short("san: minus two")
    with pytest.raises(ValueError, match="is not an effect"):
        effects.parse_short("Eliminated!")
    with pytest.raises(ValueError, match="'vanish' is not an effect"):
        effects.parse_short("vanish")


# --------------------------------------------------------------------------- SAN


def test_3_6122_a_san_below_2_is_raised_to_2(sicily: Module) -> None:
    """3.6122: "A side whose SAN is currently < 2 has it automatically raised to 2 (no
    CPP expenditure is necessary)."  Nothing lowers a high SAN without the dr."""
    rule = sicily.san
    assert rule is not None
    assert effects.clamp_san(0, rule.minimum, rule.maximum) == 2
    assert effects.clamp_san(1, rule.minimum, rule.maximum) == 2
    assert effects.clamp_san(2, rule.minimum, rule.maximum) == 2
    assert effects.clamp_san(7, rule.minimum, rule.maximum) == 7


def test_3_6122_san_4_or_more_rolls_dr_plus_san_minus_4_and_5_loses_two(sicily: Module) -> None:
    """3.6122: "If a side has a SAN ≥ 4, a SAN adjustment dr must be made with a +drm
    equal to the current SAN minus 4. A Final dr ≥ 5 immediately reduces that sides SAN by
    two."  SAN 6: +2 drm; dr 3 → 5 → SAN 4; dr 2 → 4 → no change."""
    table = sicily.table("san_adjustment")
    drms = applicable_drms(table, RollContext(side="axis", inputs={"san": 6}))
    assert [(d.value, d.how) for d in drms] == [(2, "auto")]
    assert effects.san_after(effects.result_effects(table, 3 + 2), 6) == 4
    assert effects.san_after(effects.result_effects(table, 2 + 2), 6) == 6
    # SAN 4 rolls with +0; SAN 3 makes no roll.
    assert applicable_drms(table, RollContext(side="axis", inputs={"san": 4})) == []
    assert availability.no_san_roll(sicily, _with_san(sicily, 4)) == ""
    assert availability.no_san_roll(sicily, _with_san(sicily, 3)) == (
        "SAN 3 is below 4: no SAN roll (3.6122)"
    )


def test_c5_25_san_raised_below_2_and_lowered_above_4_with_no_roll(phd: Module) -> None:
    """C5.25: "Any side with a SAN of < 2 has its SAN adjusted to '2' ... Any side with a
    SAN that is > 4 has it reduced to '4' prior to making any requisitions."""
    rule = phd.san
    assert rule is not None
    assert [effects.clamp_san(s, rule.minimum, rule.maximum) for s in (0, 1, 2, 4, 5, 7)] == [
        2,
        2,
        2,
        4,
        4,
        4,
    ]
    assert availability.no_san_roll(phd, _with_san(phd, 7)) == (
        "the SAN is adjusted by the server (C5.25)"
    )


def _with_san(m: Module, san: int) -> Snapshot:
    side = m.sides[0].id
    snap = at(m, side=side)
    return replace(snap, sides={**snap.sides, side: replace(snap.me, san=san)})


# --------------------------------------------------------------------------- 3.1, 3.3: units


def test_3_31_a_vehicle_ma_roll_of_6_is_bu_and_recalled_while_a_gun_is_removed(apd: Module) -> None:
    """3.31: "A vehicle that rolls a 6 on a MA repair becomes BU if CE and is marked with
    a Recall counter (D5.431), while a Gun is removed from the board."  The tank stays in
    the retained forces."""
    six = effects.result_effects(apd.table("repair_ma_gun"), 6)
    tank = effects.on_unit(six, UnitState("M4A3(75)W", "vehicle", ("malfunctioned",)))
    assert not tank.removed and tank.status == "recalled"
    gun = effects.on_unit(six, UnitState("57L AT", "gun", ("malfunctioned",)))
    assert gun.removed and gun.status is None
    for dr in (1, 4):
        fixed = effects.result_effects(apd.table("repair_ma_gun"), dr)
        assert effects.on_unit(fixed, UnitState("Gun", "gun", ("malfunctioned",))).status == "ok"
    assert not effects.on_unit(
        effects.result_effects(apd.table("repair_ma_gun"), 5),
        UnitState("Gun", "gun", ("malfunctioned",)),
    ).changes  # NE


def test_3_31_only_possessed_malfunctioned_weapons_are_rolled_for(apd: Module) -> None:
    """3.3: "a dr per repair attempt for malfunctioned, non-captured weapons": the MA/Gun
    row is rolled for vehicles and Guns, the SW row for SW, each only while malfunctioned."""
    ma, sw = apd.table("repair_ma_gun").for_units, apd.table("repair_sw").for_units
    assert effects.matches(ma, UnitState("Sherman", "vehicle", ("malfunctioned",)))
    assert not effects.matches(ma, UnitState("Sherman", "vehicle"))
    assert not effects.matches(ma, UnitState("BAZ", "sw", ("malfunctioned",)))
    assert effects.matches(sw, UnitState("BAZ", "sw", ("malfunctioned",)))
    assert not effects.matches(None, UnitState("BAZ", "sw", ("malfunctioned",)))


def test_3_1_an_evacuated_leader_is_replaced_by_a_7_0_leader(apd: Module) -> None:
    """3.1 Recovery Table footnote *: "An Evacuated leader is permanently removed from
    play, but is immediately replaced with a 7-0 leader"; 1-3 Retain Unwounded."""
    table = apd.table("recovery")
    for dr in (4, 5, 6):
        out = effects.on_unit(effects.result_effects(table, dr), leader())
        assert out.removed and out.added == (("7-0 leader", "leader"),)
    for dr in (1, 2, 3):
        assert effects.on_unit(effects.result_effects(table, dr), leader()).status == "ok"


def test_3_1_a_recovered_leader_is_not_rolled_for_again(apd: Module) -> None:
    """3.1: the roll is for "each wounded leader": once unwounded he is no longer one."""
    flt = apd.table("recovery").for_units
    assert effects.matches(flt, leader("wounded"))
    assert not effects.matches(flt, leader("ok"))
    assert not effects.matches(flt, UnitState("4-6-7", "squad", ("wounded",)))


def test_3_610_sicily_evacuated_leader_is_eliminated_not_replaced(sicily: Module) -> None:
    """3.610: ≥ 5 "Eliminated (evacuated)": unlike APD 3.1, no replacement."""
    out = effects.on_unit(effects.result_effects(sicily.table("wounded_leaders"), 5), leader())
    assert out.removed and out.added == ()


# --------------------------------------------------------------------------- leaders from words


@pytest.mark.parametrize("dr", [9, 10, 11, 12])
def test_3_6_a_dash_on_the_leader_table_makes_no_leader_unit(apd: Module, dr: int) -> None:
    """3.6 Leader Table: American Armor prints '-' from 9 up: the group receives no
    leader (the table's title says "Leader"; its result is not one)."""
    out = GroupOutcome()
    effects.on_group(effects.result_effects(apd.table("leader"), dr, "American Armor"), out)
    assert out.leaders == []


def test_3_6183_armor_leader_none_and_a_personnel_leader(sicily: Module) -> None:
    """3.6183: Final dr 8-9 → Personnel Leader 8-0, Armor Leader '-' (none)."""
    table = sicily.table("leader_allotment")
    armor, personnel = GroupOutcome(), GroupOutcome()
    effects.on_group(effects.result_effects(table, 8, "Armor Leader"), armor)
    effects.on_group(effects.result_effects(table, 8, "Personnel Leader"), personnel)
    assert armor.leaders == [] and personnel.leaders == ["8-0 leader"]


def test_3_7_the_m4_model_roll_gives_the_groups_three_tanks(apd: Module) -> None:
    """3.7 M4 Model Table: DR 2 gives "2 x M4A3(76)W; M4A3E2(L)"."""
    assert effects.units_given(effects.result_effects(apd.table("m4_model"), 2)) == [
        effects.NewUnits("M4A3(76)W", "vehicle", 2),
        effects.NewUnits("M4A3E2(L)", "vehicle", 1),
    ]


def test_a_missing_table_has_no_effects(apd: Module) -> None:
    """3.5: Rows A-C are not in the text: until supplied, a roll on one does nothing."""
    assert effects.result_effects(apd.table("german_reinforcement_row_a"), 3) == []


# --------------------------------------------------------------------------- DRMs from the RG


def test_3_6183_signal_coy_minus_4_on_its_first_leader_roll_only(sicily: Module) -> None:
    """3.6183 DRM: "-4 1st Signal Coy RG Leader Roll": the Axis I4 Signal Coy's first
    leader roll, by itself; not its second, not another coy's."""
    table = sicily.table("leader_allotment")
    i4, i1 = group(sicily, "axis", "I4"), group(sicily, "axis", "I1")
    first = applicable_drms(table, RollContext(side="axis", group=i4, roll_number=1))
    assert ("signal_first_roll", -4, "auto") in [(d.id, d.value, d.how) for d in first]
    second = applicable_drms(table, RollContext(side="axis", group=i4, roll_number=2))
    assert "signal_first_roll" not in [d.id for d in second]
    other = applicable_drms(table, RollContext(side="axis", group=i1, roll_number=1))
    assert "signal_first_roll" not in [d.id for d in other]


def test_3_610_minus_1_for_a_leader_of_a_british_airborne_rg(sicily: Module) -> None:
    """3.610 drm: "-1 if part of British Airborne RG": by itself for a leader of the
    British I2 Airborne Pltn, not for one of the British I1 Rifle Coy."""
    table = sicily.table("wounded_leaders")
    airborne = RollContext(side="british", group=group(sicily, "british", "I2"))
    rifles = RollContext(side="british", group=group(sicily, "british", "I1"))
    assert [(d.id, d.value) for d in applicable_drms(table, airborne)] == [("british_airborne", -1)]
    assert applicable_drms(table, rifles) == []
    assert applicable_drms(table, RollContext(side="british")) == []  # a leader of no RG


def test_3_6181_g_and_v_minus_1_except_british_airlanding(sicily: Module) -> None:
    """3.6181 DRM: "-1 'G' and 'V' type RG [EXC: British Airlanding]"."""
    table = sicily.table("rg_strength")

    def auto(side: str, rg: str) -> list[str]:
        ctx = RollContext(side=side, group=group(sicily, side, rg))
        return [d.id for d in applicable_drms(table, ctx)]

    assert "g_v_type" in auto("british", "V1") and "g_v_type" in auto("axis", "G1")
    assert "g_v_type" not in auto("british", "G2")  # Airlanding AT Pltn
    assert "g_v_type" not in auto("axis", "I1")


def test_c5_33_leader_roll_reaches_i_and_a_rgs_marked_l_only(phd: Module) -> None:
    """C5.33: "For each requisitioned/OB given 'I' or 'A' type RG marked with an RG
    Footnote 'l'"."""
    (pp,) = [p for p in phd.post_purchase if p.table == "leader_table"]
    from rules.drm import holds

    def rg(gid: str, footnotes: list[str]) -> ReinforcementGroup:
        return ReinforcementGroup(id=gid, type="x", units="x", cost=1, footnotes=footnotes)

    assert holds(pp.applies_to, RollContext(side="us", group=rg("I1", ["l"])))
    assert holds(pp.applies_to, RollContext(side="us", group=rg("A2", ["l"])))
    assert not holds(pp.applies_to, RollContext(side="us", group=rg("I1", [])))
    assert not holds(pp.applies_to, RollContext(side="us", group=rg("G1", ["l"])))


# --------------------------------------------------------------------------- the RG lifecycle


def test_3_617_footnote_e_one_o4_held_at_a_time_counts_the_rg_lifecycle(sicily: Module) -> None:
    """British footnote e: "No more than 1 O4 may be in a sides OB at any given time": an
    O4 still in the OB blocks another; once eliminated, withdrawn or used it does not.
    The CG Max (4 in CG I) still counts every O4 bought."""
    o4 = group(sicily, "british", "O4")
    jul14n, jul15am = 2, 3

    def reasons(state: str) -> list[str]:
        return unavailable(
            sicily,
            variant="i",
            side="british",
            group=o4,
            date_index=jul15am,
            bought=[Bought("O4", jul14n, state=state)],
            retained_tags={"oba"},  # the module it serves (footnote j)
        )

    held = "no more than 1 in the OB at a time (3.617 British chart footnote e)"
    assert held in reasons("held")
    for state in ("eliminated", "withdrawn", "used"):
        assert reasons(state) == [], state
    four = [Bought("O4", d, state="eliminated") for d in (2, 3, 4, 5)]
    full = unavailable(
        sicily,
        variant="i",
        side="british",
        group=o4,
        date_index=6,
        bought=four,
        retained_tags={"oba"},
    )
    assert any("the CG maximum is reached (4 of 4 bought in CG I" in r for r in full)


def test_3_6179_ob_rgs_count_only_toward_what_is_held(sicily: Module) -> None:
    """3.6179: RGs of the Initial-Scenario OB "do not apply towards RG purchase limits";
    an OB O4 still held is an O4 in the OB (footnote e)."""
    o4 = group(sicily, "british", "O4")
    ob = [Bought("O4", 0, initial=True)]
    reasons = unavailable(
        sicily,
        variant="i",
        side="british",
        group=o4,
        date_index=2,
        bought=ob,
        retained_tags={"oba"},
    )
    assert reasons == ["no more than 1 in the OB at a time (3.617 British chart footnote e)"]
    i1 = group(sicily, "british", "I1")
    assert (
        unavailable(
            sicily,
            variant="i",
            side="british",
            group=i1,
            date_index=2,
            bought=[Bought("I1", 2, initial=True)] * 2,
        )
        == []
    )


def test_requires_retained_reads_only_rgs_still_held(sicily: Module) -> None:
    """3.619 footnote d: AT Mines "only ... when ≥ 1 airborne MMC is currently retained":
    an airborne RG counts while a squad or HS of it is retained (``mmc_groups``); its
    line alone (squads all gone) does not."""
    forts = sicily.fortifications
    assert forts is not None
    mines = next(i for i in forts.items if i.id == "at_mines")
    held = Holdings(bought=(Bought("I2", 1),), mmc_groups=("I2",))
    gone = Holdings(bought=(Bought("I2", 1),))
    ok = at(sicily, side="british", fortification_points=20, holdings=held)
    assert availability.fortification_reasons(sicily, ok, mines) == []
    no = at(sicily, side="british", fortification_points=20, holdings=gone)
    assert availability.fortification_reasons(sicily, no, mines) == [
        "only with one of I2, I4 held, a squad or half-squad of it retained (3.619 footnote d)"
    ]


def test_3_619_footnote_e_no_trench_while_preparing_the_initial_scenario(sicily: Module) -> None:
    """3.619 footnote e: a Trench only "in a hex that held a Foxhole on the previous CG
    Date": before the Initial Scenario there is none."""
    forts = sicily.fortifications
    assert forts is not None
    trench = next(i for i in forts.items if i.id == "trench")
    start = at(sicily, side="axis", step="I-3.619", fortification_points=50)
    assert availability.fortification_reasons(sicily, start, trench) == [
        "not while preparing the Initial Scenario (3.619 footnote e)"
    ]
    later = at(sicily, side="axis", date="jul15am", step="3.619", fortification_points=50)
    assert availability.fortification_reasons(sicily, later, trench) == []


# --------------------------------------------------------------------------- recon (3.620)


def test_3_620_each_m2_bought_this_date_gives_one_recon_dr(sicily: Module) -> None:
    """3.620 with chart footnote r: each M2 Recon RG bought on the date gives one Recon
    dr, +5 if bought for 2 CPP; one already rolled, one bought earlier or one of the OB
    gives none."""
    jul14n = 2
    bought = (
        Bought("M2", jul14n, ref="a", variant="recon_plus5"),
        Bought("M2", jul14n, ref="b"),
        Bought("M2", 1, ref="old"),
        Bought("M2", jul14n, ref="ob", initial=True),
        Bought("M1", jul14n, ref="sniper"),
    )
    snap = at(
        sicily,
        side="axis",
        date="jul14n",
        step="3.620",
        holdings=Holdings(bought=bought, recon_rolled=frozenset({"b"})),
    )
    assert [b.ref for b in availability.recon_due(sicily, snap)] == ["a"]
    assert availability.recon_drm(sicily, "recon_plus5") == 5
    assert availability.recon_drm(sicily, "") == 0


def test_3_620_recon_limits_are_the_m2_rows_per_cg(sicily: Module) -> None:
    """3.617 charts, M2 Recon: Date Max 2; CG Max Axis 6/4/2, British 6/6/0 (CG I/II/III):
    the British buy no Recon in CG III; the Axis no third on one date."""
    m2 = group(sicily, "british", "M2")
    none_in_iii = unavailable(
        sicily, variant="iii", side="british", group=m2, date_index=1, bought=[]
    )
    assert any(r.startswith("not available in CG III") for r in none_in_iii)
    two = [Bought("M2", 1), Bought("M2", 1)]
    third = unavailable(
        sicily,
        variant="i",
        side="axis",
        group=group(sicily, "axis", "M2"),
        date_index=1,
        bought=two,
    )
    assert any("the CG date maximum is reached (2 of 2 on July 14 PM" in r for r in third)
    prices = {o.variant: o.cost for o in cost_options(sicily, "axis", group(sicily, "axis", "M2"))}
    assert prices == {"": 1, "recon_plus5": 2}


# --------------------------------------------------------------------------- forgone CPP (3.616)


def test_3_616_exc_only_the_british_of_cg_iii_on_july_14_pm_may_forgo(sicily: Module) -> None:
    """3.616 EXC: "On the July 14 PM date of CG III the British player may fore go all or
    a portion of the allotted CPP."  Anyone else has nothing to decide at 3.616."""
    step = next(s for s in sicily.steps if s.id == "3.616")
    british = at(sicily, side="british", date="jul14pm", step="3.616", variant="iii", points=12)
    rule = availability.forgo_rule(sicily, british)
    assert rule is not None and rule.from_side == "axis"
    assert availability.nothing_to_do(sicily, british, step) == ""
    for snap in (
        at(sicily, side="british", date="jul14pm", step="3.616", variant="i"),
        at(sicily, side="axis", date="jul14pm", step="3.616", variant="iii"),
        at(sicily, side="british", date="jul14n", step="3.616", variant="iii"),
    ):
        assert availability.forgo_rule(sicily, snap) is None
        assert availability.nothing_to_do(sicily, snap, step) == "the server does this step"
    assert availability.check_forgo(sicily, british, 12, 12) is rule
    with pytest.raises(Exception, match=r"Forgo between 0 and 12 CPP"):
        availability.check_forgo(sicily, british, 13, 12)


# --------------------------------------------------------------------------- fortifications (3.619)


def test_3_619_foxhole_costs_by_capacity_3_2_1(sicily: Module) -> None:
    """3.619: Foxhole "3/2/1" FPP (footnote c: 3S/2S/1S): with 2 FPP a 2S or a 1S Foxhole
    can be bought, a 3S cannot."""
    forts = sicily.fortifications
    assert forts is not None
    foxhole = next(i for i in forts.items if i.id == "foxhole")
    snap = at(sicily, side="axis", fortification_points=2)
    assert availability.fortification_reasons(sicily, snap, foxhole, tier=0) == [
        "not enough FPP (3 needed, 2 left)"
    ]
    assert availability.fortification_reasons(sicily, snap, foxhole, tier=1) == []
    assert availability.fortification_reasons(sicily, snap, foxhole, count=2, tier=2) == []
    assert "choose one of the prices of Foxhole" in availability.fortification_reasons(
        sicily, snap, foxhole, tier=3
    )


def test_3_619_footnote_b_hip_for_no_more_than_10_percent_fru_of_squads(sicily: Module) -> None:
    """3.619 footnote b: "No more than 10% (FRU) of a side's Retained Infantry squads may
    use HIP": 11 squads → 1.1 → 2; 10 → 1; half-squads are not squads."""
    forts = sicily.fortifications
    assert forts is not None
    hip = next(i for i in forts.items if i.id == "hip")

    def cap(squads: int, half_squads: int = 0) -> int | None:
        held = Holdings(squads=squads, half_squads=half_squads)
        return availability.hip_cap(sicily, hip, at(sicily, side="axis", holdings=held))

    assert (cap(11), cap(10), cap(10, 6), cap(0)) == (2, 1, 1, 0)
    snap = at(sicily, side="axis", fortification_points=50, holdings=Holdings(squads=11))
    assert availability.fortification_reasons(sicily, snap, hip, count=2) == []
    assert availability.fortification_reasons(sicily, snap, hip, count=3) == [
        "no more than 2 HIP (1/10 FRU of 11 retained squads; 3.619 footnote b); 0 taken so far"
    ]
    earlier = Holdings(squads=11, fortifications=(FortificationBought("hip", 0, 2),))
    later = at(sicily, side="axis", date="jul14pm", fortification_points=50, holdings=earlier)
    assert availability.fortification_reasons(sicily, later, hip) == []  # per date
    same = at(sicily, side="axis", date="jul14am", fortification_points=50, holdings=earlier)
    assert "2 taken so far" in availability.fortification_reasons(sicily, same, hip)[0]


def test_3_619_footnote_b_the_hip_cap_binds_by_day_only(sicily: Module) -> None:
    """3.619 footnote b caps HIP "in a daytime Scenario": on a Night date (July 14 N)
    the 10% cap does not bind."""
    forts = sicily.fortifications
    assert forts is not None
    hip = next(i for i in forts.items if i.id == "hip")
    held = Holdings(squads=11)
    night = at(sicily, side="axis", date="jul14n", fortification_points=50, holdings=held)
    assert availability.hip_cap(sicily, hip, night) is None
    assert availability.fortification_reasons(sicily, night, hip, count=5) == []
    day = at(sicily, side="axis", date="jul15am", fortification_points=50, holdings=held)
    assert availability.hip_cap(sicily, hip, day) == 2


def test_c5_35_hip_for_no_more_than_10_percent_frd_of_squad_equivalents(phd: Module) -> None:
    """C5.35 note 3: "No > 10% (FRD) of a side's non-reserve Infantry squad-equivalents
    may be set up using HIP": 15 squads and 3 HS are 16.5 → 1.65 → 1; 20 squads → 2."""
    forts = phd.fortifications
    assert forts is not None
    hip = next(i for i in forts.items if i.id == "hip")
    held = Holdings(squads=15, half_squads=3)
    snap = at(phd, side="german", fortification_points=60, holdings=held)
    assert availability.hip_cap(phd, hip, snap) == 1
    assert availability.fortification_reasons(phd, snap, hip, count=2, tier=1) == [
        "no more than 1 HIP (1/10 FRD of 16.5 retained squad-equivalents; C5.35 note 3); "
        "0 taken so far"
    ]
    twenty = at(phd, side="german", holdings=Holdings(squads=19, half_squads=2))
    assert availability.hip_cap(phd, hip, twenty) == 2


# --------------------------------------------------------------------------- APD 2.9, 2.92


def results(vp: int, buildings: bool = False, cvp: int = 0) -> dict[str, dict[str, object]]:
    """A result; ``buildings``: the American met the scenario's CGV Building requirement
    (2.9) and controls all CGV Buildings (CG VC)."""
    return {
        "vp": {"american": vp},
        "cgv_buildings": {"american": buildings},
        "cgv_scenario": {"american": buildings},
        "cvp_lost": {"american": cvp, "german": 0},
    }


def test_2_9_the_american_wins_the_scenario_at_the_required_vp_total(apd: Module) -> None:
    """2.9: "If the VP total is ≥ the required CG scenario total and/or the American
    achieved the scenario-specific CGV Building VC requirements then the American is the
    winner of the current scenario; otherwise the German wins."  2.92 EX: 63 VP scored,
    55 needed."""
    win = victory.scenario_winner(apd, [results(63)], 55)
    assert win is not None and win.side == "american"
    assert win.because == "VP scored by the American in the scenario (CG total) 63 ≥ 55"
    assert victory.scenario_winner(apd, [results(55)], 55).side == "american"
    lost = victory.scenario_winner(apd, [results(54)], 55)
    assert lost is not None and lost.side == "german"
    assert lost.because.startswith("VP scored by the American in the scenario (CG total) 54 < 55")
    buildings = victory.scenario_winner(apd, [results(10, buildings=True)], 55)
    assert buildings is not None and buildings.side == "american"


def test_2_9_the_vp_total_is_the_cg_total_and_an_unknown_requirement_decides_nothing(
    apd: Module,
) -> None:
    """2.9: "The American player totals his amassed VP from all CG scenarios played":
    40 then 30 is 70.  Midday's VP requirement is cut from the text: no winner until it
    is supplied (unless the CGV Buildings decide)."""
    two = [results(40), results(30)]
    assert victory.scenario_winner(apd, two, 70).side == "american"
    assert victory.scenario_winner(apd, two, 71).side == "german"
    assert victory.scenario_winner(apd, two, None) is None
    assert victory.scenario_winner(apd, [results(0), results(0, True)], None).side == "american"
    assert victory.scenario_winner(apd, [], 55) is None


def test_cg_vc_150_vp_wins_the_cg_unless_105_cvp(apd: Module) -> None:
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end"."""
    assert victory.cg_winner(apd, [results(63, cvp=41), results(90, cvp=20)]) is not None
    assert victory.cg_winner(apd, [results(63, cvp=41), results(90, cvp=64)]) is None
    assert victory.cg_winner(apd, [results(63, cvp=41)]) is None
    assert victory.cg_winner(apd, []) is None


def test_cg_vc_105_cvp_puts_the_americans_out_of_the_running_once(apd: Module) -> None:
    """CG VC: "Provided the Germans have not amassed >= 105 CVP, the Americans win if
    ...": from the result that brings the CVP the American lost to 105, no American CG
    victory can come; said once (not again after later results)."""
    first = [results(63, cvp=60)]
    assert victory.sides_out_of_the_running(apd, first) == []
    second = [*first, results(20, cvp=45)]
    assert victory.sides_out_of_the_running(apd, second) == ["american"]
    assert victory.sides_out_of_the_running(apd, [*second, results(10, cvp=1)]) == []


@pytest.mark.parametrize(
    "line, unit",
    [
        ("2 x 4-6-7", ("4-6-7", "squad", 2)),
        ("9-1 leader", ("9-1 leader", "leader", 1)),
        ("6+1", ("6+1", "leader", 1)),
        ("2 × 2-3-8 HS", ("2-3-8 HS", "half_squad", 2)),
        ("3 x Sherman III(a) (vehicle)", ("Sherman III(a)", "vehicle", 3)),
        ("3 x Sherman III(a)", ("Sherman III(a)", "other", 3)),
        ("MMG (sw)", ("MMG", "sw", 1)),
    ],
)
def test_an_ob_line_joins_as_the_units_it_lists(line, unit):
    """An Initial-Scenario OB lists units as players write them: the count, ASL's
    notation for squads, half-squads and leaders, or a kind named in parentheses (so a
    wounded OB leader owes Sicily 3.610's dr, and OB squads count toward 3.619's HIP
    cap)."""
    from rules.effects import unit_line

    got = unit_line(line)
    assert (got.name, got.kind, got.count) == unit


LADDER = ("6+1", "7-0", "8-0", "8-1", "9-1", "9-2", "10-2", "10-3")


def test_a19_13_replaced_by_the_next_lower_quality_leader_a_6_1_retained():
    """PHD C5.19 row 2 "Retained Unwounded & Replaced (A19.13)* ... EXC: A wounded 6+1
    is retained Unwounded": a 9-1 becomes an 8-1 (a new counter), a 6+1 stays, unwounded."""
    row = [Effect(do="replace_lower", status="ok")]
    out = effects.on_unit(row, UnitState("9-1 leader (I1)", "leader", ("wounded",)), LADDER)
    assert out.removed and out.added == (("8-1 leader (I1)", "leader"),)
    six = effects.on_unit(row, UnitState("6+1 leader", "leader", ("wounded",)), LADDER)
    assert (six.removed, six.status) == (False, "ok")


def test_c5_24_battle_hardens_the_leader_named_or_the_next_lower_non_wounded():
    """PHD C5.24 footnote *: "if a 9-1 is selected, but there is no 9-1, then the next
    lower quality would be an 8-1, followed by an 8-0, etc. ... If there is no lower
    quality leader available, then no SMC will be Battle-Harden"; A15.3: the leader
    becomes the next higher quality."""
    result = [Effect(do="battle_harden", unit="9-1")]
    leaders = [
        UnitState("9-2 leader", "leader"),
        UnitState("8-1 leader", "leader", ("wounded",)),
        UnitState("8-0 leader", "leader"),
    ]
    assert effects.battle_hardened(result, leaders, LADDER) == (2, "8-1 leader")
    assert effects.battle_hardened(result, leaders[:2], LADDER) is None
    assert effects.battle_hardened([Effect(do="none")], leaders, LADDER) is None


def test_two_word_effects_are_typed_as_two_words():
    """A supplied table's effects as players type them: "replace lower: ok", "battle
    harden: 9-1" (the forms show them back so)."""
    for text in ("replace lower: ok", "battle harden: 9-1", "replace lower"):
        data = effects.parse_short(text)
        assert effects.short(Effect.model_validate(data)) == text
