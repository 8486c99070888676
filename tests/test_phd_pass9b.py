"""Purple Heart Draw, ninth pass, part B (issue 44): C5.26 to the end of C5, the RG
chart's footnotes, the TM scenario / initiative / victory rules and C4.  Each test drives
sentences of ``rules/ledger/sentences/purple-heart-draw-c5-late.yaml`` through the
services, as a player would, and cites its rule."""

from __future__ import annotations

import contextlib

import pytest

from campaign.models import Event, InitiativeOutcome, Purchase, Roll, Seat, Unit
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from tests.purchase_helpers import campaign_at
from tests.test_phd_conph import phd_after
from tests.test_phd_conph_late import OBA
from tests.test_rule_mechanisms import (
    add,
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    supply_chart,
    unit_names,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]  # the fixtures this file shares


def _count(players, **filters) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id, **filters).count()


# --------------------------------------------------------------------------- C5.26


def test_c5_26b_a_repaired_baz_psk_ft_dc_rejoins_the_retained_forces(users, modules, fixed_dice):
    """C5.26b "Each side makes a separate dr on the table below for each Baz, Psk, FT,
    and DC of its nationality that was removed from play ... [table] <=3 Repaired, >=4
    Eliminated": a Bazooka removed from play in the scenario and Repaired on a dr of 3
    is back in the US retained forces (a SW, possessed), said in the log; one Eliminated
    on a dr of 4 stays out of play (it was already removed), and nothing joins."""
    players, _ = phd_after(users, "C5.26")
    before = unit_names(players, "us")
    fixed_dice.extend([[3], [4]])
    r = roll(players, "us", "baz_psk_ft_dc_repair", item="Bazooka at 12H3")
    assert r.result == "Repaired"
    assert unit_names(players, "us") == sorted([*before, ("Bazooka", "sw", "ok", 1)])
    line = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last()
    assert "Bazooka rejoins the retained forces" in line.text
    r = roll(players, "us", "baz_psk_ft_dc_repair", item="Baz at 12H4")
    assert r.result == "Eliminated"
    assert unit_names(players, "us") == sorted([*before, ("Bazooka", "sw", "ok", 1)])


def test_c5_26b_a_repaired_ft_counts_at_once_against_the_assault_engineer_cap(
    users, modules, fixed_dice
):
    """C5.26b "The total number of FT/DC (each) after the repair phase may not exceed
    the total number of (non-isolated) Assault Engineer squad-equivalents ...  Excess
    repaired FT/DC are eliminated instead": with one Pionier squad (RG footnote e) and no
    FT, a first FT is Repaired and rejoins; a second FT's dr could only eliminate it
    and is refused, nothing rolled."""
    from tests.test_phd_pass6 import with_pioneers

    players, c = with_pioneers(users, 1, "C5.26")
    fixed_dice.extend([[1]])
    roll(players, "german", "baz_psk_ft_dc_repair", item="FT at 23K4")
    assert ("FT", "sw", "ok", 1) in unit_names(players, "german")
    n = _count(players, table_id="baz_psk_ft_dc_repair")
    with pytest.raises(ActionRefused, match=r"FT.*\(C5.26b\)"):
        roll(players, "german", "baz_psk_ft_dc_repair", item="FT at 23K5")
    assert _count(players, table_id="baz_psk_ft_dc_repair") == n


def test_c5_26a_each_malfunctioned_possessed_non_captured_weapon_must_roll(
    users, modules, fixed_dice
):
    """C5.26a "Each side now makes a separate dr on the table below for each
    malfunctioned, non-captured Retained weapon that is possessed by a unit ... <=2
    Repaired, >=3 Eliminated": Done is refused until the malfunctioned MMG has rolled; an
    unpossessed or a captured malfunctioned LMG owes no roll and is refused one; a dr of
    2 repairs the MMG (its Malfunction marker is removed)."""
    players, _ = phd_after(users)
    mmg = add(players, "us", "MMG", "sw", "malfunctioned")
    loose = add(players, "us", "LMG", "sw", "malfunctioned", markers=["unpossessed"])
    players.until_step("C5.26")
    with pytest.raises(ActionRefused, match=r"Roll first: .*Weapon Repair"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    with pytest.raises(ActionRefused):
        roll(players, "us", "weapon_repair", loose)
    assert _count(players, table_id="weapon_repair") == 0
    fixed_dice.extend([[2]])
    assert roll(players, "us", "weapon_repair", mmg).result == "Repaired"
    mmg.refresh_from_db()
    assert mmg.markers == []
    with pytest.raises(ActionRefused):
        roll(players, "us", "weapon_repair", mmg)  # once per weapon
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])


def test_c5_26c_the_captured_equipment_table_keeps_or_eliminates(users, modules, fixed_dice):
    """C5.26c "Each player makes a separate dr on the table for each functioning,
    captured, and possessed weapon" and the CAPTURED EQUIPMENT TABLE "<=3 Retained, >=4
    Eliminated": a captured MG 42 on a dr of 3 is Retained (still captured); a captured
    Panzerschreck on a dr of 4 is Eliminated (it leaves the retained forces); an
    unpossessed captured LMG owes no dr and is refused one."""
    players, _ = phd_after(users)
    mg = add(players, "us", "MG 42", "sw", "captured")
    psk = add(players, "us", "Panzerschreck", "sw", "captured")
    loose = add(players, "us", "LMG 34", "sw", "captured", markers=["unpossessed"])
    players.until_step("C5.26")
    with pytest.raises(ActionRefused):
        roll(players, "us", "captured_equipment", loose)
    fixed_dice.extend([[3], [4]])
    assert roll(players, "us", "captured_equipment", mg).result == "Retained"
    assert roll(players, "us", "captured_equipment", psk).result == "Eliminated"
    mg.refresh_from_db()
    assert mg.markers == ["captured"]
    assert not Unit.objects.filter(pk=psk.pk).exists()
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])


def test_c5_26a_isolated_and_ammunition_shortage_apply_by_themselves(users, modules, fixed_dice):
    """C5.26a WEAPON REPAIR TABLE "+1 If suffering from Ammunition shortage", "+1 If
    Isolated" (Ammunition Shortage comes from ending the Redeployment Isolated, C5.13):
    an Isolated malfunctioned MMG's dr of 1 becomes 3, Eliminated, with both +1s applied
    by themselves; a non-Isolated one's dr of 2 is Repaired with none."""
    players, _ = phd_after(users)
    cut_off = add(players, "us", "MMG", "sw", "malfunctioned", markers=["isolated"])
    mmg = add(players, "us", "HMG", "sw", "malfunctioned")
    players.until_step("C5.26")
    fixed_dice.extend([[1], [2]])
    r = roll(players, "us", "weapon_repair", cut_off)
    assert (r.final, r.result) == (3, "Eliminated")
    assert sorted((d["value"], d["how"], d["label"]) for d in r.drms) == [
        (1, "auto", "+1 If Isolated"),
        (1, "auto", "+1 If suffering from Ammunition shortage"),
    ]
    assert not Unit.objects.filter(pk=cut_off.pk).exists()
    r = roll(players, "us", "weapon_repair", mmg)
    assert (r.final, r.result, r.drms) == (2, "Repaired", [])


# --------------------------------------------------------------------------- C5.27


def test_c5_27a_the_armour_leader_drm_is_a_leaders_modifier(users, modules, fixed_dice):
    """C5.27a Immobilization Repair "+/- Per Armour Leader DRM": the player types the
    Armour Leader's modifier (who leads which vehicle is the map's), but it is a
    leader's, between +1 (6+1) and -3 (10-3) as the leader ladder runs: a typed +5 is
    refused in words with the rule and nothing is rolled; -1 is applied."""
    players, _ = phd_after(users)
    tank = add(players, "us", "M4A1 Sherman", "vehicle", "immobilized")
    players.until_step("C5.27")
    with pytest.raises(ActionRefused, match=r"Armour Leader.*\(C5.27a\)"):
        roll(players, "us", "immobilization_repair", tank, typed={"armour_leader": 5})
    assert _count(players, table_id="immobilization_repair") == 0
    fixed_dice.extend([[3]])
    r = roll(players, "us", "immobilization_repair", tank, typed={"armour_leader": -1})
    assert (r.final, r.result) == (2, "Becomes Mobile")
    tank.refresh_from_db()
    assert tank.markers == []


def test_c5_27a_no_immobilization_dr_for_an_abandoned_or_captured_vehicle(users, modules):
    """C5.27a "Each non-captured, non-abandoned, immobilized vehicle must make a dr":
    an abandoned or a captured immobilized vehicle is refused the dr, and owes none (Done
    is accepted); a mobile vehicle has nothing to repair."""
    players, _ = phd_after(users)
    left = add(players, "us", "M4A1", "vehicle", "immobilized", markers=["abandoned"])
    taken = add(players, "us", "PzIVH", "vehicle", "immobilized", markers=["captured"])
    mobile = add(players, "us", "M10 GMC", "vehicle")
    players.until_step("C5.27")
    for unit in (left, taken, mobile):
        with pytest.raises(ActionRefused):
            roll(players, "us", "immobilization_repair", unit)
    assert _count(players, table_id="immobilization_repair") == 0


def test_c5_27c_special_ammunition_is_a_weapons_not_a_squads(users, modules, fixed_dice):
    """C5.27c "Each non-captured, non-isolated weapon has all of its Depleted ammunition
    type(s) if any replenished ... on a dr <4": a squad is no weapon (refused); a Gun
    rolls once, a dr of 4 restoring its ammunition."""
    players, _ = phd_after(users)
    squad = add(players, "us", "6-6-6", "squad")
    gun = add(players, "us", "57mm AT Gun", "gun")
    players.until_step("C5.27")
    with pytest.raises(ActionRefused):
        roll(players, "us", "special_ammunition", squad)
    fixed_dice.extend([[4]])
    r = roll(players, "us", "special_ammunition", gun)
    assert r.result.startswith("Depleted special ammunition restored")
    with pytest.raises(ActionRefused):
        roll(players, "us", "special_ammunition", gun)


# --------------------------------------------------------------------------- C5.29


def test_c5_29_the_tp_replenishment_rows_each_side_reads(users, modules, fixed_dice):
    """C5.29 TP Replenishment Table: "<2 +25 +35", "9 +18 +28", "11 +16 +26" (the
    German and US columns): the German's DR of 2 gives +25, the US's DR of 9 +28, each
    side reading its own column; no DRM after an Initial Scenario with no losses and no
    chit selected."""
    players, _ = phd_after(users, "C5.28")
    fixed_dice.extend([[1, 1], [4, 5]])
    players.until_step("C5.31")
    finals = {
        r.side: (r.final, r.drms)
        for r in Roll.objects.filter(campaign_id=players.campaign_id, table_id="tp_replenishment")
    }
    assert sorted(f for f, _ in finals.values()) == [2, 9]
    assert all(drms == [] for _, drms in finals.values())
    printed = {("german", 2): 25, ("german", 9): 18, ("us", 2): 35, ("us", 9): 28}
    for side, (final, _) in finals.items():
        event = Event.objects.get(
            campaign_id=players.campaign_id, kind="replenish", side=side, step_id="C5.29"
        )
        assert event.data["repl"] == printed[side, final], (side, final, event.data)


def test_c5_29_the_attack_chit_and_cvp_drms_read_the_previous_tm_scenario(users, modules):
    """C5.29 "+1 If the friendly side selected 'Attack' Chit in the previous scenario",
    "-1 per 10 CVP (FRD) suffered by the friendly side in the previous TM Scenario":
    after the 0930 TM Scenario (US Attack; the US lost 29 CVP, the German 9), the US's
    1230 TP DR has +1 and -2 by themselves; the German's has neither."""
    players, module = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="initiative")
    players.chits(german="idle", us="attack")
    players.until("results")
    players.results(**result_values(module, cvp_lost_us=29, cvp_lost_german=9))
    players.until("purchase")
    assert module.dates[players.campaign.date_index].id == "t1230"
    rolls = {
        r.side: sorted(d["value"] for d in r.drms)
        for r in Roll.objects.filter(
            campaign_id=players.campaign_id,
            table_id="tp_replenishment",
            cycle=players.campaign.cycle,
        )
    }
    assert rolls == {"us": [-2, 1], "german": []}


def test_c5_28_the_clearance_table_and_its_footnoted_results(users, modules, fixed_dice):
    """C5.28 FORTIFICATION CLEARANCE TABLE "<=3 Eliminated (1)", ">=4 No Effect (2)"
    and "+1 Minefield/Entrenchment is adjacent to enemy Front Line Hex" (ticked, the
    map's): Wire in K5 on a dr of 3 is Eliminated; an A-P minefield in K6 on a dr of 3,
    +1 ticked, is 4: No Effect; the roll must say what it is for (C5.28 "must announce
    which one is currently being rolled for")."""
    players, _ = phd_after(users, "C5.28")
    with pytest.raises(ActionRefused):
        roll(players, "us", "fortification_clearance", item="")
    fixed_dice.extend([[3], [3]])
    r = roll(players, "us", "fortification_clearance", item="Wire in K5")
    assert r.result == "Eliminated (1)"
    r = roll(
        players,
        "us",
        "fortification_clearance",
        item="A-P minefield in K6",
        ticked=["minefield_adjacent"],
    )
    assert (r.final, r.result) == (4, "No Effect (2)")


def test_c5_30_the_weather_table_gives_each_tm_scenarios_ec_and_weather(users, modules):
    """C5.30 WEATHER TABLE: "II 0930-hrs Moderate Overcast None", "III 1230-hrs Moderate
    Clear None" ... "V 1930-hrs Moderate Clear None": each TM Scenario's line on the TM
    Roster gives its EC, weather and (no) wind."""
    from tests.purchase_helpers import roster_of

    players, _ = campaign_at("purple-heart-draw", "tm", "t1930", users, kind="initiative")
    lines = roster_of(players.campaign, "us").lines
    assert [line.date for line in lines] == [
        "0600 hrs",
        "0930 hrs",
        "1230 hrs",
        "1530 hrs",
        "1930 hrs",
    ]
    assert "Moderate" in lines[1].weather and "Overcast" in lines[1].weather
    for line in lines[2:]:
        assert "Moderate" in line.weather and "Clear" in line.weather
        assert "no wind" in line.weather.lower()


def test_c5_33_a_leader_dr_for_an_i_or_a_rg_marked_l_only(users, modules, fixed_dice):
    """C5.33 "For each requisitioned/OB given 'I' or 'A' type RG marked with an RG
    Footnote 'l' make one secret DR on table below" (the table supplied, as the rules
    text lacks it): the German's I1 (marked l) rolls and receives its leader, secretly;
    his W1 (marked l, but not an I or A RG) and I2 (an I RG not marked l) roll nothing."""
    from tests.test_rule_mechanisms import row_table, supply

    gren = {"type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "2"}
    players, c = phd_with_chart(
        users,
        [
            {**gren, "id": "I1", "footnotes": "l"},
            {**gren, "id": "W1", "type": "MMG Sect", "footnotes": "l"},
            {**gren, "id": "I2"},
        ],
    )
    supply(
        players,
        "tables.leader_table",
        row_table([("2-7", "8-1", "leader: 8-1"), ("8-12", "8-0", "leader: 8-0")]),
    )
    german = players.users["german"]
    bought = {
        gid: purchases.purchase_rg(
            campaign_id=c.pk, user=german, group_id=gid, cost_variant="onmap"
        )
        for gid in ("I1", "W1", "I2")
    }
    players.until("strength")
    fixed_dice.extend([[3, 4]])
    purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=bought["I1"].ref)
    (r,) = Roll.objects.filter(campaign=c, table_id="leader_table")
    assert r.result == "8-1" and r.secret
    for gid in ("W1", "I2"):
        with contextlib.suppress(ActionRefused):
            purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=bought[gid].ref)
    assert Roll.objects.filter(campaign=c, table_id="leader_table").count() == 1
    assert ("8-1", "leader", "ok", 1) in [
        (n.split(" ")[0], k, m, x) for n, k, m, x in unit_names(players, "german")
    ]


# --------------------------------------------------------------------------- C5.31


def test_c5_31b_only_a_g_hw_i_rgs_may_be_requisitioned_in_reserve(users, modules):
    """C5.31b "In Reserve: Any 'A', 'G', 'HW', or 'I' Reinforcement Group may be
    requisitioned 'In Reserve'": a W2 RG (of the C5.32 table's IDs) is refused In
    Reserve, nothing spent; an I1 and an HW1 RG are bought In Reserve."""
    gren = {"type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "2"}
    players, c = phd_with_chart(
        users,
        [
            {**gren, "id": "W2", "type": "Gren MMG", "units": "MMG", "unit_kind": "sw"},
            {**gren, "id": "I1", "full": "3"},
            {**gren, "id": "HW1", "type": "sMG Pl", "units": "HMG", "unit_kind": "sw"},
        ],
    )
    german = players.users["german"]
    points = Seat.objects.get(campaign=c, side="german").points
    with pytest.raises(ActionRefused, match="cannot be bought at that price"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="W2", cost_variant="reserve")
    assert Seat.objects.get(campaign=c, side="german").points == points
    for gid in ("I1", "HW1"):
        p = purchases.purchase_rg(
            campaign_id=c.pk, user=german, group_id=gid, cost_variant="reserve"
        )
        assert p.cost_variant == "reserve"
    assert Purchase.objects.filter(campaign=c).count() == 2
    # C5.31 "TP Cost: ... This number is subtracted from the purchasing side's current
    # TP total"; "#: Lists the number of units/equipment that each RG contains".
    assert Seat.objects.get(campaign=c, side="german").points == points - 4
    players.until_step("I-C5.35")
    i1 = Purchase.objects.get(campaign=c, group_id="I1")
    assert Unit.objects.get(campaign=c, side="german", purchase=i1).count == 3


# --------------------------------------------------------------------------- C5.34


def test_c5_34_the_oba_table_rows_for_each_nationality(users, modules, fixed_dice):
    """C5.34 US Offboard Artillery Table "<=6 Plentiful, 7-11 Normal, >=12 Scarce" and
    the German "4-9 Normal", ">=10" Scarce: each side holding one OBA module, the US DR of
    12 reads Scarce, the German DR of 10 Scarce (each side its own table)."""
    players, c = phd_with_chart(users, [OBA])
    supply_chart(players, "us", [OBA])
    for side in ("german", "us"):
        purchases.purchase_rg(campaign_id=c.pk, user=players.users[side], group_id="O2")
    players.until_step("I-C5.34")
    fixed_dice.extend([[6, 6], [5, 5]])
    assert roll(players, "us", "oba", item="O2 81mm OBA").result == "US: Scarce"
    assert roll(players, "german", "oba", item="O2 81mm OBA").result == "German: Scarce"


# --------------------------------------------------------------------------- C5.37, C4.2


def test_c5_40_reconnaissance_alternates_german_first(users, modules):
    """C5.40 "Upon completion of set up, any side that has requisitioned a
    reconnaissance of the enemy's FEBA may, alternating (German first) declare the
    locations": both sides bought a Recon at C5.36; at C5.40 the US's Done is refused
    until the German has declared (done), then accepted."""
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="recon", points=5)
    for side in ("german", "us"):
        r = purchases.buy_recon(campaign_id=players.campaign_id, user=players.users[side], option=0)
        # C5.36 "A Reconnaissance Final dr is the number of locations ...  The TP cost
        # for the reconnaissance ... is now deducted from the current TP total".
        assert (r.cost, 1 <= r.locations <= 6) == (1, True)
        assert Seat.objects.get(campaign_id=players.campaign_id, side=side).points == 4
    players.until("initiative")
    players.chits(german="idle", us="attack")
    players.until_step("C5.40")
    assert players.waiting() == ["german"]
    with pytest.raises(ActionRefused):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])
    assert players.waiting() == ["us"]
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    assert players.step.id != "C5.40"


def test_c5_37d_a_lull_at_1930_ends_the_tm_on_the_highway_held_at_1530(users, modules):
    """C5.37d "Lull: ... No Scenario is played; proceed to the ConPh and the next TM
    Scenario" at the last TM Scenario (1930 hrs), and C4.2 TM Objective "The Americans
    achieve victory at the end of the last TM Scenario if they control the St-Lo-Bayeux
    Highway": the US held it when the 1530 TM Scenario ended, nothing was played since,
    so the TM ends with the American win."""
    players, module = campaign_at("purple-heart-draw", "tm", "t1530", users, kind="initiative")
    players.chits(german="idle", us="attack")
    players.until("results")
    players.results(**result_values(module, highway_controlled_us=True))
    assert players.campaign.ended_at is None
    players.until("initiative")
    assert module.dates[players.campaign.date_index].id == "t1930"
    players.chits(german="idle", us="idle")
    outcome = InitiativeOutcome.objects.filter(campaign_id=players.campaign_id).last()
    assert outcome.result == "lull"
    players.until("initiative", limit=60) if players.campaign.ended_at is None else None
    c = players.campaign
    assert c.ended_at is not None
    assert "American wins" in c.outcome, c.outcome


def test_c5_35_note_g_booby_traps_only_for_the_german(users, modules):
    """C5.35 note G "Only available for German requisition" (Booby Traps): the US,
    holding DSP, is refused Booby Traps in words, nothing spent."""
    from tests.walk import host_game, players_of

    c = host_game("purple-heart-draw", "tm", *users, side="german", through_start=False)
    players = players_of(c, *users)
    players.until_step("I-C5.35")
    Seat.objects.filter(campaign=c, side="us").update(fortification_points=40)
    with pytest.raises(ActionRefused, match=r"cannot buy Booby Traps \(C5.35 note G\)"):
        purchases.buy_fortification(
            campaign_id=c.pk, user=players.users["us"], item_id="booby_traps"
        )
    assert Seat.objects.get(campaign=c, side="us").fortification_points == 40
    purchases.buy_fortification(
        campaign_id=c.pk, user=players.users["german"], item_id="booby_traps"
    )
    assert Seat.objects.get(campaign=c, side="german").fortification_points == 30


def test_c5_41_each_side_announces_its_current_san_to_both(users, modules):
    """C5.41 "Each side announces its current SAN and places its Sniper Counter on the
    map": when the TM Scenario commences both logs read both sides' SAN, with the rule
    (the mechanism Sicily 3.623 reads, ``SanRule.announced``); before it, neither."""
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users)
    Seat.objects.filter(campaign_id=players.campaign_id, side="german").update(san=3)
    Seat.objects.filter(campaign_id=players.campaign_id, side="us").update(san=2)

    def said(side):
        return [
            e.text
            for e in Event.objects.visible_to(side).filter(campaign_id=players.campaign_id)
            if "announces" in e.text
        ]

    players.until("initiative")
    players.chits(german="idle", us="attack")
    players.until_step("C5.40")
    assert said("us") == said("german") == []
    players.finish()  # C5.40 done by both: C5.41 commences the TM Scenario
    assert players.step.id != "C5.40"
    expected = ["Each side announces its current SAN: American 2, German 3 (C5.41)."]
    assert said("german") == expected
    assert said("us") == expected
