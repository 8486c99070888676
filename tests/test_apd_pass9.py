"""Issue 44, pass 9, A Pleasant Diversion (seed 002): 3.8-4.0 sampled in play (pass 8
left them), then sentences of 1.x-3.7 no pass had tried — cumulative figures across
CG dates, one-side-only rules, the rows each table's dice reach, what a step removes
or keeps by itself.  Each test cites the sentence it tries
(rules/ledger/sentences/pleasant-diversion.yaml); docs/rules-audit/pass-9-apd.md lists
each sentence tried and what was found."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll, ScenarioResult, Unit
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_apd_pass5 import done
from tests.test_computations import pd_result, supply_midday_vp
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    _armor_group,
    add,
    apd_at,
    buy,
    edit,
    exchange,
    rg_roll,
    roll,
    start,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


# --------------------------------------------------------------------------- CG VC


@pytest.mark.parametrize(("midday_cvp", "won"), [(44, True), (45, False)])
def test_cg_vc_the_105_cvp_are_amassed_over_the_cg_at_the_midday_end(
    users, modules, midday_cvp, won
):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end": the Morning's 100 VP and 60 CVP,
    the Midday's 50 VP: the VP total 150 wins at the Midday's end while the CVP amassed
    over both scenarios are 104, not with 105."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    supply_midday_vp(players, 120)
    players.results(**pd_result(vp=100, cvp_american=60))
    players.until("results")
    assert players.campaign.ended_at is None
    players.results(**pd_result(vp=50, cvp_american=midday_cvp))
    if won:
        players.until_step("2.9")
    else:
        players.until("results")  # the Afternoon's: the CG went on
    c = players.campaign
    assert (c.ended_at is not None) is won
    if won:
        assert "American wins the CG" in c.outcome


def test_3_2_the_german_hardens_a_half_squad_an_mmc_for_his_unwounded_hero(users, modules):
    """3.2: "Heroes (whether wounded or unwounded) are eliminated, but for each such
    eliminated Hero the owning player may Battle Harden ... any one MMC": the German's
    unwounded Hero is given up for his half-squad (an MMC, A1.1), which is marked Battle
    Hardened; his Hero leaves; the German's leader is no MMC and is refused."""
    players, _ = apd_at(users, "3.2")
    hero = add(players, "german", "2-3-8 Hero", "hero")
    leader = add(players, "german", "8-0 leader", "leader")
    hs = add(players, "german", "2-4-7", "half_squad")
    done(players, "american")
    with pytest.raises(ActionRefused, match=r"\(3.2\)"):
        exchange(players, "german", hero, leader)
    exchange(players, "german", hero, hs)
    assert unit_names(players, "german") == [
        ("2-4-7", "half_squad", "battle_hardened", 1),
        ("8-0 leader", "leader", "ok", 1),
    ]


# --------------------------------------------------------------------------- 3.3


def test_3_3_a_vehicular_mg_repair_6_eliminates_the_mg_not_the_vehicle(users, modules, fixed_dice):
    """3.3 Repair Table "Repair vehicular MG 1-2 | 3-5 | 6": a 6 eliminates the MG; the
    vehicle stays (its MA is not the MG), and the 3 Note adds no CVP."""
    players, _ = apd_at(users, "3.3")
    tank, (ma, mg) = add_vehicle(
        players, "american", "M4A3(75)W", ("ma", []), ("mg", ["malfunctioned"], "BMG")
    )
    fixed_dice.append([6])
    r = roll(players, "american", "repair_vehicular_mg", tank, weapon=mg)
    assert r.result.startswith("Eliminated")
    tank.refresh_from_db()
    assert unit_names(players, "american") == [("M4A3(75)W", "vehicle", "ok", 1)]
    assert [w["kind"] for w in tank.weapons if "disabled" not in w["markers"]] == ["ma"]
    assert (
        ScenarioResult.objects.get(campaign_id=players.campaign_id).data["cvp_lost"]["american"]
        == 41
    )


# --------------------------------------------------------------------------- 2.5


def test_2_5_all_encircled_markers_are_removed_when_the_step_is_completed(
    users, modules, fixed_dice
):
    """2.5 ENCIRCLEMENT: "Each Encircled unit must take a 1TC ... All Encircled markers
    are then removed": the retained forces hold the Encircled marker (A7.7); after the
    1TC (made in the app since pass 10: DR 2 +1 passes against Morale 6), each side's
    Encircled markers leave at 2.5's completion, both sides' — the unit's other
    markers stay."""
    players, _ = apd_at(users, "2.5")
    squad = add(players, "american", "6-6-6", "squad", "encircled")
    tank = add(players, "german", "PzIVH", "vehicle", markers=["encircled", "immobilized"])
    assert Unit.objects.get(pk=squad.pk).markers == ["encircled"]
    fixed_dice.extend([[1, 1]])
    roll(players, "american", "encirclement_1tc", squad)
    done(players, "american")
    done(players, "german")
    assert players.step.id == "2.6"
    assert unit_names(players, "american") == [("6-6-6", "squad", "ok", 1)]
    assert Unit.objects.get(pk=tank.pk).markers == ["immobilized"]
    texts = list(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert any("6-6-6 is now in good order" in t and "(2.5)" in t for t in texts), texts


# --------------------------------------------------------------------------- 4.0


def test_4_0_the_next_cg_scenarios_instructions_are_said_when_it_is_in_play(users, modules):
    """4.0 NEXT CG SCENARIO: "Sniper values are reset ... The number of PF allowed ...
    is recalculated ... Players now begin the next CG scenario by first determining
    Concealment for onboard units and then placing Snipers.  Play then commences with
    the RPh of the player who won the previous scenario."  The step passes by itself
    (the server resets the SAN and knows who moves first), so the players never had its
    panel: the log line that puts the Midday scenario in play says what 4.0 asks of them,
    in order, and who moves first."""
    players, _ = apd_at(users, "3.9")
    players.until("results")
    line = Event.objects.filter(kind="scenario").order_by("pk").last().text
    assert line.startswith("The December 6 Midday scenario is in play."), line
    assert "4.0 Next CG Scenario:" in line
    assert line.index("Determine Concealment for onboard units") < line.index("place Snipers")
    assert "recalculate PF allowed (C13.31)" in line
    assert "American moves first" in line
    assert line.endswith("Enter its result when it is over.")


def test_2_9_4_0_the_german_who_won_moves_first_and_the_log_says_so(users, modules):
    """2.9: "otherwise the German wins.  The winning side moves first in the following
    scenario"; 4.0: "Play then commences with the RPh of the player who won the
    previous scenario": 40 VP of 55, the German won the Morning, and the line that puts
    the Midday in play names him."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    players.results(**pd_result(vp=40, cvp_american=41))
    players.until("results")
    line = Event.objects.filter(kind="scenario").order_by("pk").last().text
    assert "German moves first (2.9; 4.0)." in line, line


# --------------------------------------------------------------------------- 1.2


@pytest.mark.parametrize("step", ["2.5", "2.8", "3.8", "3.9"])
def test_1_2_american_first_at_the_steps_both_players_do_on_the_map(users, modules, step):
    """1.2: "Both players (if applicable), American first, complete each step before
    moving on to the next step": at 2.5 Encirclement, 2.8 Flames/Blazes, 3.8 Entry and
    3.9 OBA the German's Done before the American's is refused in words, and nothing
    moves; after the American's, it is taken."""
    players, _ = apd_at(users, step)
    with pytest.raises(ActionRefused, match=rf"American acts first at {step}"):
        done(players, "german")
    assert players.step.id == step
    done(players, "american")
    done(players, "german")
    assert players.step.id != step


# --------------------------------------------------------------------------- 3.1, 3.31


def test_3_1_3_31_one_recovery_dr_and_one_repair_attempt_per_setup_phase_not_per_cg(
    users, modules, fixed_dice
):
    """3.1: "The owning player rolls ... to determine each wounded leader's fate"; 3.31:
    "Each weapon/Vehicle may make only one Repair attempt": the once is per Setup Phase.
    A leader recovered in the Morning's 3.1 and wounded again in the Midday scenario
    rolls again at the Midday's 3.1; a BAZ left malfunctioned by the Morning's repair dr
    (NE) makes a new attempt at the Midday's 3.3, once again."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    supply_midday_vp(players, 120)
    players.results(**pd_result(vp=63, cvp_american=41))
    players.until_step("3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded")
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    fixed_dice.append([3])
    assert roll(players, "american", "recovery", leader).result == "Retain Unwounded"
    players.until_step("3.3")
    fixed_dice.append([4])
    assert roll(players, "american", "repair_sw", baz).result == "NE"
    with pytest.raises(ActionRefused):
        roll(players, "american", "repair_sw", Unit.objects.get(pk=baz.pk))
    players.until("results")
    players.results(**pd_result(vp=30, cvp_american=10))
    players.until_step("3.1")
    edit(players, "american", Unit.objects.get(pk=leader.pk), "wounded")
    fixed_dice.append([2])
    assert roll(players, "american", "recovery", Unit.objects.get(pk=leader.pk)).result == (
        "Retain Unwounded"
    )
    players.until_step("3.3")
    fixed_dice.append([1])
    assert roll(players, "american", "repair_sw", Unit.objects.get(pk=baz.pk)).result == (
        "Repaired"
    )
    assert unit_names(players, "american") == [
        ("8-1 leader", "leader", "ok", 1),
        ("BAZ 44", "sw", "ok", 1),
    ]


# --------------------------------------------------------------------------- 3.2


def test_3_2_exc_a_hero_who_stays_for_want_of_an_mmc_keeps_his_sw(users, modules):
    """3.2 [EXC: If unable to Battle Harden any MMC, the Hero remains onboard unwounded
    instead]; "Any SW Possessed by an eliminated Hero is considered Transferred": a
    Hero who is not eliminated transfers nothing — the German's wounded Hero, with no
    MMC to harden, stays unwounded and still possesses his Panzerschreck."""
    players, _ = apd_at(users, "3.2")
    hero = add(players, "german", "2-3-8 Hero", "hero", "wounded")
    add(players, "german", "PSK", "sw", possessor=hero.ref)
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "german") == [
        ("2-3-8 Hero", "hero", "ok", 1),
        ("PSK", "sw", "ok", 1),
    ]
    psk = Unit.objects.get(campaign_id=players.campaign_id, name="PSK")
    assert psk.possessor_id == Unit.objects.get(pk=hero.pk).pk


# --------------------------------------------------------------------------- 3.7


@pytest.mark.parametrize("full", [None, 1])
def test_3_7_the_record_counts_the_tanks_the_group_received(users, modules, fixed_dice, full):
    """3.7: "make a secret DR on the following M4 Model Table to determine the tanks
    received by that Group": the M4 Model DR 2 gives 2 × M4A3(76)W and an M4A3E2(L),
    so the RG Purchase Record's #units for the group is 3 — the tanks it received —
    whatever count (none, or another) the players' chart prints for it."""
    from campaign.models import Purchase

    players, _ = apd_at(users, "3.4")
    group = {} if full is None else {"full": full}
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], **group)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[1]])  # armor type M4 (3.4)
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])  # leader (3.6)
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([[1, 1], [2, 2], [3, 3], [4, 4]])  # M4 Model DR 2, three gyros
    rg_roll(players, "american", a1)
    assert Purchase.objects.get(pk=a1.pk).units == 3
    tanks = Unit.objects.filter(campaign_id=players.campaign_id, kind="vehicle")
    assert sum(tanks.values_list("count", flat=True)) == 3
    if full is None:
        return
    # 3.8: "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    # Board Edge": the group's line, with its tanks and its leader, on the sheet.
    from campaign.seat_views.sheet import scenario_sheet, sheet_text

    players.until_step("3.8")
    text = sheet_text(scenario_sheet(players.campaign, "american"))
    line = next(x for x in text.splitlines() if x.strip().startswith("A1 Armor Group"))
    assert "; 3 units;" in line, line
    assert "entry/set-up: along the American Friendly Board Edge, on/after Turn 1 (3.8)" in line
    for unit in ("2 × M4A3(76)W (A1)", "M4A3E2(L) (A1)", "8-1 leader (A1)"):
        assert f"  {unit} (in good order)" in text, text


# --------------------------------------------------------------------------- CG VC, 4.0


@pytest.mark.parametrize(("afternoon_cvp", "winner"), [(24, "American"), (25, "German")])
def test_cg_vc_cgv_buildings_at_the_last_end_and_no_quarter_from_the_midday(
    users, modules, afternoon_cvp, winner
):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win ...
    if they control all existing CGV Buildings" at the last CG-Scenario end: 40 + 40 CVP
    before, the Afternoon's 24 make 104 and the buildings win the CG; its 25 make 105,
    and the German wins.  4.0: "Once invoked, No Quarter will remain in effect for the
    duration of the CG": invoked in the Midday only, the Afternoon's sheet says so from
    the Midday, although the Afternoon's own result says no."""
    from campaign.seat_views.sheet import scenario_sheet

    players, _ = start("pleasant-diversion", "cg", users, "american")
    supply_midday_vp(players, 110)
    players.results(**pd_result(vp=20, cvp_american=40))
    players.until("results")
    players.results(**pd_result(vp=20, cvp_american=40), **{"no_quarter.american": True})
    players.until("results")
    for side in ("american", "german"):
        assert scenario_sheet(players.campaign, side).in_effect == [
            "No Quarter invoked (4.0): since the December 6 Midday scenario, for the rest of "
            "the CG."
        ]
    players.results(**pd_result(vp=20, cvp_american=afternoon_cvp, buildings=True))
    c = players.campaign
    assert c.ended_at is not None
    assert f"{winner} wins" in c.outcome, c.outcome


# --------------------------------------------------------------------------- 2.1


def test_2_1_a_captured_hero_and_half_squad_are_prisoners_a_captured_gun_is_not(users, modules):
    """2.1: "All Prisoners are then removed from play": the American's Hero and
    half-squad marked Captured are men held Prisoner and leave when 2.1 is completed;
    the Gun marked Captured (a weapon the German took) stays on his record."""
    players, _ = apd_at(users, "2.1")
    add(players, "american", "1-4-9 Hero", "hero", "captured")
    add(players, "american", "3-3-6", "half_squad", "captured")
    add(players, "american", "57L AT", "gun", "captured")
    add(players, "american", "6-6-6", "squad")
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "american") == [
        ("57L AT", "gun", "captured", 1),
        ("6-6-6", "squad", "ok", 1),
    ]


# --------------------------------------------------------------------------- 3.6 note a


def test_3_6_note_a_reaches_the_leader_tables_first_row_from_a_dr_of_2(users, modules, fixed_dice):
    """3.6 Leader Table "≤ 2: 9-2 | 9-2 | 10-2 | 10-2" and note a "-1 DRM for PzGr
    Platoon I/PzV Section": the row reads "≤ 2" because note a takes a DR of 2 to a
    Final DR of 1, which only that row covers: the German's PzGr Platoon I (Row A, the
    Infantry column) receives a 9-2 on a DR of 2."""
    from tests.test_rule_mechanisms import supply_german

    players, _ = apd_at(users, "3.5")
    supply_german(players)
    fixed_dice.extend([[1], [1], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.until_step("3.6")
    from campaign.models import Purchase

    ra1 = Purchase.objects.get(campaign_id=players.campaign_id, group_id="RA1")
    fixed_dice.extend([[1, 1]])
    rg_roll(players, "german", ra1)
    leader = Roll.objects.get(table_id="leader", item__startswith="RA1")
    assert (leader.final, leader.result) == (1, "German Infantry: 9-2")
    assert ("9-2 leader (RA1)", "leader", "ok", 1) in unit_names(players, "german")


# --------------------------------------------------------------------------- 3.4, 1.2


def test_1_2_3_4_done_at_3_4_makes_the_armor_type_dr_an_armor_group_still_owes(
    users, modules, fixed_dice
):
    """3.4: "For each Armor Group purchased, make a dr to determine armor type"; 1.2:
    "complete each step before moving on to the next step".  The American buys an Armor
    Group and presses Done without its armor-type dr: his Done makes it, at 3.4 (secret,
    in his log), not at 3.6 with the Leader DR; a group that owes no dr at 3.4 (the
    Armored Infantry Platoon) rolls nothing there."""
    from campaign.models import Purchase

    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=3)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[4]])
    done(players, "american")
    assert players.step.id == "3.5"
    rolled = list(Roll.objects.values_list("step_id", "table_id", "final"))
    assert rolled == [("3.4", "american_reinforcement", 4)], rolled
    a1 = Purchase.objects.get(pk=a1.pk)
    assert a1.rolled_at is None  # its Leader and M4 Model DRs wait for 3.6 and 3.7
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])
    rg_roll(players, "american", a1)
    assert Roll.objects.filter(table_id="american_reinforcement").count() == 1


def test_1_2_a_done_ahead_stops_before_3_4_which_rolls_while_buying(users, modules):
    """1.2 "complete each step before moving on"; 3.4 "For each Armor Group purchased,
    make a dr to determine armor type": a Done with the steps ahead never runs on into
    3.4, whose own Done makes the armor-type drs its Armor Groups owe; a Done through
    it is refused."""
    from campaign.seat_views.campaign_page import campaign_view
    from campaign.selectors import module_of
    from campaign.services import steps

    players, _ = apd_at(users, "3.3")
    order = [s.id for s in module_of(players.campaign).steps]
    view = campaign_view(players.users["american"], players.campaign_id)
    assert view.panel is not None
    lasts = [last for last, *_ in view.panel.ahead]
    assert all(order.index(last) < order.index("3.4") for last in lasts), lasts
    with pytest.raises(ActionRefused, match="cannot be finished together"):
        steps.finish_step(
            campaign_id=players.campaign_id, user=players.users["american"], through="3.4"
        )
