"""Purple Heart Draw, ninth pass, part B (issue 44): C5.26 to the end of C5, the RG
chart's footnotes, the TM scenario / initiative / victory rules and C4.  Each test drives
sentences of ``rules/ledger/sentences/purple-heart-draw-c5-late.yaml`` through the
services, as a player would, and cites its rule."""

from __future__ import annotations

import pytest

from campaign.models import Event, InitiativeOutcome, Purchase, Roll, Seat
from campaign.selectors import module_of
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from tests.purchase_helpers import add_vehicle, campaign_at
from tests.test_phd_conph_late import OBA
from tests.test_rule_mechanisms import (
    add,
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    start,
    supply_chart,
    unit_names,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]  # the fixtures this file shares


def at_conph(users, step_id: str | None = None, side: str = "us"):
    """A PHD TM whose Initial TM Scenario was played (nothing lost), its result
    confirmed; then at ``step_id`` of the 0930 TM Scenario's ConPh, if given."""
    players, module = start("purple-heart-draw", "tm", users, side)
    players.results(**result_values(module))
    if step_id:
        players.until_step(step_id)
    return players, module


def _count(players, **filters) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id, **filters).count()


# --------------------------------------------------------------------------- C5.26


def test_c5_26b_a_repaired_baz_psk_ft_dc_rejoins_the_retained_forces(users, modules, fixed_dice):
    """C5.26b "Each side makes a separate dr on the table below for each Baz, Psk, FT,
    and DC of its nationality that was removed from play ... [table] <=3 Repaired, >=4
    Eliminated": a Bazooka removed from play in the scenario and Repaired on a dr of 3
    is back in the US retained forces (a SW, possessed), said in the log; one Eliminated
    on a dr of 4 stays out of play (it was already removed), and nothing joins."""
    players, _ = at_conph(users, "C5.26")
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
    players, _ = at_conph(users)
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


# --------------------------------------------------------------------------- C5.27


def test_c5_27a_the_armour_leader_drm_is_a_leaders_modifier(users, modules, fixed_dice):
    """C5.27a Immobilization Repair "+/- Per Armour Leader DRM": the player types the
    Armour Leader's modifier (who leads which vehicle is the map's), but it is a
    leader's, between +1 (6+1) and -3 (10-3) as the leader ladder runs: a typed +5 is
    refused in words with the rule and nothing is rolled; -1 is applied."""
    players, _ = at_conph(users)
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
    players, _ = at_conph(users)
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
    players, _ = at_conph(users)
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
    players, _ = at_conph(users, "C5.28")
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
            {**gren, "id": "I1"},
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
    with pytest.raises(ActionRefused, match=r"cannot buy Booby Traps \(C5.35\)"):
        purchases.buy_fortification(
            campaign_id=c.pk, user=players.users["us"], item_id="booby_traps"
        )
    assert Seat.objects.get(campaign=c, side="us").fortification_points == 40
    purchases.buy_fortification(
        campaign_id=c.pk, user=players.users["german"], item_id="booby_traps"
    )
    assert Seat.objects.get(campaign=c, side="german").fortification_points == 30


__all__ += ["add_vehicle", "module_of"]
