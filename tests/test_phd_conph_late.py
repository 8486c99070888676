"""Purple Heart Draw, Consolidation Phase C5.25-C5.41 and the TM start (C4.0-C4.2):
the sentences the sentence-level audit (issue 44,
``rules/ledger/sentences/purple-heart-draw-c5-late.yaml``) found the app getting
wrong, each tested through the services, plus the sentences it already kept that no
test cited."""

from __future__ import annotations

import pytest

from campaign.models import InitiativeChit, Purchase, Roll, ScenarioResult, Unit
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from rules.loader import MODULE_DIR, load_file
from tests.purchase_helpers import campaign_at, roster_of
from tests.test_rule_mechanisms import (
    add,
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    start,
    supply_chart,
    users,
)
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]  # the fixtures this file shares

OBA_P = {
    "id": "O1",
    "type": "105mm OBA Module",
    "units": "OBA",
    "cost": "6",
    "tags": "oba",
    "footnotes": "p",
}
OBA = {"id": "O2", "type": "81mm OBA Module", "units": "OBA", "cost": "5", "tags": "oba"}


def test_c5_31_footnote_p_an_oba_module_is_offered_with_one_or_two_pre_registered_hexes(
    users, modules
):
    """C5.31 RG footnote p: "Two additional TPs per pre-Registered hex (C1.73) purchased
    with a module ... Note there is a limit of two Pre-Registered hexes per OBA
    module": an RG marked p is bought at its printed cost, +2 TP with one Pre-Registered
    hex or +4 TP with two (no third is offered); its record line says which.  An RG
    without footnote p is refused the surcharge."""
    german, _ = users
    players, c = phd_with_chart(users, [OBA_P, OBA])
    with pytest.raises(ActionRefused, match="cannot be bought at that price"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2", cost_variant="prereg1")
    bought = purchases.purchase_rg(
        campaign_id=c.pk, user=german, group_id="O1", cost_variant="prereg2"
    )
    assert (bought.cost, bought.cost_variant) == (10, "prereg2")
    (line,) = [x for x in campaign_view(german, c.pk).record if x.mine]
    assert line.bought_as == "With 2 Pre-Registered hexes (+4 TP)"
    seat = players.campaign.seats.get(side="german")
    assert seat.points == 20 - 10
    assert not Purchase.objects.filter(campaign=c, group_id="O2").exists()


def test_c5_27c_special_ammunition_for_each_non_captured_non_isolated_weapon_once(
    users, modules, fixed_dice
):
    """C5.27c: "Each non-captured, non-isolated weapon has all of its Depleted
    ammunition type(s) if any replenished to normal availability levels on a dr <4":
    the dr is made for a retained weapon, once; a captured or an Isolated one is
    refused it, with the reason."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.27")  # added here: C5.26's Captured Equipment dr comes first
    gun = add(players, "german", "7.5cm Pak 40", "gun")
    captured = add(players, "german", "57mm AT Gun", "gun", status="captured")
    isolated = add(players, "german", "StuG IIIG", "vehicle", markers=("isolated",))
    fixed_dice.extend([[4]])
    r = roll(players, "german", "special_ammunition", gun)
    assert r.result == "Depleted special ammunition restored to normal availability"
    with pytest.raises(ActionRefused, match="its one Special Ammunition"):
        roll(players, "german", "special_ammunition", gun)
    for unit in (captured, isolated):
        with pytest.raises(ActionRefused, match=r"not captured or isolated.*\(C5.27c\)"):
            roll(players, "german", "special_ammunition", unit)
    with pytest.raises(ActionRefused):
        roll(players, "german", "special_ammunition", item="any weapon")


def test_i2_german_rgs_set_up_on_board_at_no_extra_cost_in_the_initial_scenario(users, modules):
    """I2: "All German OB-Given and purchased RG may set up on board at no extra cost":
    for the Initial Scenario a German RG bought On-Map costs its printed 4 TP although
    the supplied chart gives its On-Map set-up 6 (C5.32); the US's RG costs the 6."""
    german, us = users
    gren = {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad"}
    players, c = phd_with_chart(users, [{**gren, "cost": "4", "cost-onmap": "6"}])
    supply_chart(players, "us", [{**gren, "type": "Rifle Pl", "cost": "4", "cost-onmap": "6"}])
    bought = purchases.purchase_rg(
        campaign_id=c.pk, user=german, group_id="I1", cost_variant="onmap"
    )
    assert bought.cost == 4
    assert (
        purchases.purchase_rg(campaign_id=c.pk, user=us, group_id="I1", cost_variant="onmap").cost
        == 6
    )


def test_i2_after_the_initial_scenario_the_on_map_cost_is_the_charts():
    """I2 speaks of the Initial Scenario only: at a later TM Scenario's C5.31 the German
    RG's On-Map set-up costs what the supplied chart gives (C5.32)."""
    from rules.purchase import cost_options
    from rules.schema import Module, ReinforcementGroup

    m = load_file(MODULE_DIR / "purple-heart-draw.yaml", overrides=False)
    data = m.model_dump(mode="json")
    group = ReinforcementGroup(
        id="I1", type="Gren Pl", units="4-6-7", unit_kind="squad", cost=4, costs={"onmap": 6}
    )
    data["rg_charts"][0]["groups"] = [group.model_dump(mode="json")]
    data["rg_charts"][0]["missing"] = False
    supplied = Module.model_validate(data)
    g = supplied.group("german", "I1")

    def onmap(initial):
        return next(
            o.cost
            for o in cost_options(supplied, "german", g, initial=initial)
            if o.variant == "onmap"
        )

    assert (onmap(True), onmap(False)) == (4, 6)


def test_c4_0_the_start_steps_come_once_before_the_initial_tm_scenario(users, modules):
    """C4.0: "Depending upon the circumstances, the following steps are followed" (the
    chart itself is lost): the start's steps (I-C5.12 ... I-TM20) are played once, in
    order, before the Initial TM Scenario; after it each ConPh runs C5.1-C5.41 and no
    start step comes back."""
    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="us", through_start=False)
    players, module = players_of(c, a, b), module_of(c)
    seen = []
    while players.step.start:
        seen.append(players.step.id)
        players.finish()
    assert seen == [s.id for s in module.steps if s.start]
    assert players.step.id == "C5.1" and players.campaign.in_play
    players.results(**result_values(module))
    players.until_step("C5.31")
    assert not players.step.start and players.campaign.date_index == 1


def test_c4_2_i1_the_initial_scenarios_weather_is_shown_when_it_begins(users, modules):
    """C4.2 I1: "EC is Moist (B25.5), with no Wind at the start. The Weather is Mist":
    the Initial Scenario's line on the TM Roster gives it (C5.30's row I)."""
    players, _ = start("purple-heart-draw", "tm", users, "us")
    line = roster_of(players.campaign, "us").lines[0]
    assert "Moist" in line.weather and "Mist" in line.weather
    assert "no wind" in line.weather.lower()


def test_c5_28_one_clearance_attempt_per_item_and_location(users, modules):
    """C5.28: "Each side may attempt to clear ..."; "If a location contains more than one
    type of fortification ... that side may roll once for each, but must announce which
    one is currently being rolled for"; "Only one attempt may be made per 'item' for each
    location during this step": the dr is offered for each item named, and a second for
    the same item and location is refused."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.28")
    roll(players, "german", "fortification_clearance", item="Wire in K5")
    roll(players, "german", "fortification_clearance", item="A-P mines in K5")
    with pytest.raises(ActionRefused, match="C5.28"):
        roll(players, "german", "fortification_clearance", item="wire in  K5")
    roll(players, "us", "fortification_clearance", item="Wire in K5")


def test_c5_29_the_tp_replenished_are_kept_secret(users, modules):
    """C5.29: "This amount should be kept secret": each side's TP Replenishment DR is its
    own secret; the opponent's gate shows it none of it, nor its points."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until("purchase")
    us_roll = Roll.objects.get(
        campaign_id=players.campaign_id, side="us", table_id="tp_replenishment"
    )
    assert us_roll.secret
    assert not Roll.objects.visible_to("german").filter(pk=us_roll.pk).exists()
    assert Roll.objects.visible_to("us").filter(pk=us_roll.pk).exists()
    us_line = roster_of(players.campaign, "german").lines[1].sides[0]  # sides: US, German
    assert (us_line.repl, us_line.total) == (None, None)
    assert roster_of(players.campaign, "us").lines[1].sides[0].repl is not None


def test_c5_31_scen_max_and_tm_max_refuse_one_more_rg(users, modules):
    """C5.31: "Scen Max: Lists the maximum number of RG of this type that may be
    requisitioned per TM Scenario"; "TM Max: ... during the course of the TM": the chart
    the players supply gives I1 a Scen Max of 1 and I2 a TM Max of 1: a second of either
    is refused with the reason."""
    german, _ = users
    gren = {"type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "2"}
    players, c = phd_with_chart(
        users,
        [
            {**gren, "id": "I1", "date_max": "1"},
            {**gren, "id": "I2", "date_max": "3", "cg_max-tm": "1"},
        ],
    )
    for gid in ("I1", "I2"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id=gid, cost_variant="onmap")
    with pytest.raises(ActionRefused, match="I1 Gren Pl cannot be bought"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I1", cost_variant="onmap")
    with pytest.raises(ActionRefused, match="I2 Gren Pl cannot be bought"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I2", cost_variant="onmap")
    assert Purchase.objects.filter(campaign=c).count() == 2


def test_c5_34_the_attack_chit_drm_applies_by_itself(users, modules):
    """C5.34: "-1 Attack Chit was selected" (read as the previous TM Scenario's chit,
    C5.34 coming before C5.37): after a US Attack the US's OBA DR has the -1 by itself;
    the German, who stood Idle, has none.  (Each side holds an OBA module: one DR for
    each, C5.34.)"""
    players, module = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="purchase")
    for side in ("german", "us"):
        supply_chart(players, side, [OBA])
        purchases.purchase_rg(
            campaign_id=players.campaign_id, user=players.users[side], group_id="O2"
        )
    players.until("initiative")
    players.chits(german="idle", us="attack")
    players.until("results")
    players.results(**result_values(module))
    players.until_step("C5.34")
    us = roll(players, "us", "oba", item="O2 81mm OBA")
    german = roll(players, "german", "oba", item="O2 81mm OBA")
    assert [(d["value"], d["how"]) for d in us.drms] == [(-1, "auto")]
    assert german.drms == []


def test_c5_36_the_recce_locations_are_on_the_tm_roster_line(users, modules):
    """C5.36: "A Reconnaissance Final dr is the number of locations ... modified by +5 if
    the side has spent 1 additional TP ... recorded on the TM Roster in the 'Recce'
    column of the current TM Scenario line ... The TP cost ... is now deducted": 2 TP
    spent, the dr + 5 locations on the US's line of the 0930 TM Scenario."""
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="recon", points=3)
    r = purchases.buy_recon(campaign_id=players.campaign_id, user=players.users["us"], option=1)
    assert r.cost == 2 and 6 <= r.locations <= 11
    line = roster_of(players.campaign, "us").lines[1]
    assert line.date == "0930 hrs" and line.sides[0].recon == r.locations  # sides: US, German
    assert players.campaign.seats.get(side="us").points == 1


def test_c5_37_each_side_picks_its_chit_in_secret_revealed_together(users, modules):
    """C5.37: "Each side requisitions its Initiative for the current TM Scenario, to
    either 'Attack' or stand 'Idle'": the US's chit is its secret until the German has
    picked his; both are revealed at once and cross-indexed (US Attack)."""
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="initiative")
    players.chits(us="attack")
    c = players.campaign
    assert not InitiativeChit.objects.filter(campaign=c).visible_to("german").filter(side="us")
    players.chits(german="idle")
    assert InitiativeChit.objects.filter(campaign=c).visible_to("german").count() == 2
    assert "US Attack" in campaign_view(players.users["german"], c.pk).initiative


def test_c5_38_no_tm_scenario_is_won_or_lost_only_the_tm(users, modules):
    """C5.38: "individual TM Scenarios do not have Victory Conditions ... neither side
    'wins' or 'loses' a TM Scenario, only the TM itself": a scenario before the last,
    with the Highway held, records no winner and ends nothing."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module, highway_controlled_us=True))
    c = players.campaign
    assert c.ended_at is None
    assert [r.winner for r in ScenarioResult.objects.filter(campaign=c)] == [""]


def test_c5_39_the_set_up_step_names_who_sets_up_first(users, modules):
    """C5.39: "The order of set up for requisitioned units is determined as per C5.37":
    at the Unit Set-Up step after a German Attack the page says the US sets up first and
    the German moves first."""
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="initiative")
    players.chits(german="attack", us="idle")
    players.until_step("C5.39")
    shown = campaign_view(players.users["us"], players.campaign_id).initiative
    assert "American sets up first; German moves first" in shown


def test_c5_35_note_8_c5_25b_the_booby_trap_level_rises_per_purchase_and_falls_to_b():
    """C5.35 note 8: Booby Traps "Creates Level C Booby Traps, or increases a
    pre-existing Level to the next Level"; C5.25b: "If the German has a Booby Trap
    Level that is > Level B, it will be reduced to Level B prior to making any
    requisitions".  Two bought at 0600: Level B; one more at 0930: Level A, and a fourth
    then is refused (no Level above A: it could have no effect); at 1230 the Level is B
    again, so one more may be bought."""
    from rules import availability
    from rules.snapshot import FortificationBought, Holdings
    from tests.engine.conftest import at

    m = load_file(MODULE_DIR / "purple-heart-draw.yaml", overrides=False)
    item = next(i for i in m.fortifications.items if i.id == "booby_traps")

    def snap(date, *bought):
        held = Holdings(
            fortifications=tuple(FortificationBought("booby_traps", d, n) for d, n in bought)
        )
        return at(m, side="german", date=date, step="C5.35", fortification_points=90, holdings=held)

    def level(s):
        n = availability.fortification_level(item, s)
        return item.levels.names[n] if n >= 0 else None

    assert level(snap("t0600")) is None
    assert level(snap("t0600", (0, 2))) == "B"
    at_a = snap("t0930", (0, 2), (1, 1))
    assert level(at_a) == "A"
    (refusal,) = availability.fortification_reasons(m, at_a, item)
    assert refusal == (
        "Booby Traps at Level A: 1 more would pass Level A, the highest (C5.35 note 8, C5.25b)"
    )
    later = snap("t1230", (0, 2), (1, 1))
    assert level(later) == "B" and availability.fortification_reasons(m, later, item) == []
    assert availability.fortification_reasons(m, snap("t0600", (0, 1)), item, count=2) == []


def test_c5_27a_each_non_captured_non_abandoned_immobilized_vehicle_must_make_the_dr(
    users, modules, fixed_dice
):
    """C5.27a: "Each non-captured, non-abandoned, immobilized vehicle must make a dr on
    the following table": Done waits for the immobilized StuG's dr; a captured or an
    Abandoned immobilized vehicle is refused it; on a 2 the StuG becomes Mobile."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.27")
    stug = add(players, "german", "StuG IIIG", "vehicle", status="immobilized")
    captured = add(players, "german", "M4A1", "vehicle", "immobilized", markers=["captured"])
    abandoned = add(players, "german", "PzIVH", "vehicle", "immobilized", markers=["abandoned"])
    with pytest.raises(ActionRefused, match=r"Roll first: .*Immobilization Repair"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])
    for unit in (captured, abandoned):
        with pytest.raises(ActionRefused, match=r"\(C5.27a\)"):
            roll(players, "german", "immobilization_repair", unit)
    fixed_dice.extend([[2]])
    assert roll(players, "german", "immobilization_repair", stug).result == "Becomes Mobile"
    assert Unit.objects.get(pk=stug.pk).markers == []
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])


def test_c5_35_note_4_a_pillbox_is_bought_at_the_sum_of_its_counters_figures(users, modules):
    """C5.35 note 4: "Add the Capacity, the CA DRM, and the NCA DRM together to determine
    the DSP cost" of a Pillbox: the German buys a 1+5+7 Pillbox for 13 of his 60 DSP, its
    line naming the figures; one without its figures is refused in words and nothing is
    spent."""
    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players_of(c, a, b).until_step("I-C5.35")

    def buy(figures):
        return purchases.buy_fortification(
            campaign_id=c.pk, user=a, item_id="pillbox", figures=figures, location="K5"
        )

    with pytest.raises(ActionRefused, match="give the CA DRM as printed on the counter"):
        buy({"capacity": 1, "nca_drm": 7})
    assert c.seats.get(side="german").fortification_points == 60
    bought = buy({"capacity": 1, "ca_drm": 5, "nca_drm": 7})
    assert (bought.cost, bought.tier) == (13, "Capacity 1 + CA DRM 5 + NCA DRM 7")
    assert c.seats.get(side="german").fortification_points == 47
