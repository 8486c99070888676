"""Issue 44, pass 15, A Pleasant Diversion (seed 002): the Left items of passes 9-12,
then sentences of the CG rules, the Clean-Up 2.-2.92 and the Setup 3.-4.0 no earlier
pass quoted, tried in play as a player would (the wrong side, twice, skipped, another
unit kind, another row, a result that should follow by itself, what the player reads).
Each test cites its rule; docs/rules-audit/pass-15-apd15.md lists what was tried and
what held."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.services import units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_apd12_pass12 import apd, lost, page_of, supply_value
from tests.test_apd_pass5 import done
from tests.test_apd_pass11 import _american_infantry
from tests.test_rule_mechanisms import (
    _armor_group,
    add,
    buy,
    exchange,
    result_values,
    rg_roll,
    roll,
    start,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def remove(players, side, unit, eliminated=False):
    units.remove_unit(
        campaign_id=players.campaign_id,
        user=players.users[side],
        unit_id=unit.ref,
        eliminated=eliminated,
    )


def rolls(players) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id).count()


# --------------------------------------------------------------------------- 2.5


def test_2_5_a7_7_a_heroic_encircled_leader_keeps_his_morale(users, modules, fixed_dice):
    """2.5: "Each Encircled unit must take a 1TC"; A7.7 drops the Morale of every
    non-berserk, NON-HEROIC Personnel unit so marked.  A leader his owner marks heroic
    (A15.2) takes his 1TC at his printed Morale: an Encircled, heroic 8-1 rolling DR 7
    (7 +1 = 8 ≤ 8) passes; the same leader not heroic is one level lower and fails."""
    players, _ = apd(users, "2.5")
    heroic = add(players, "american", "8-1 leader", "leader", "encircled", markers=["heroic"])
    plain = add(players, "american", "8-1 leader", "leader", "encircled")
    fixed_dice.extend([[3, 4], [3, 4]])
    r = roll(players, "american", "encirclement_1tc", heroic)
    assert all("A7.7" not in d["label"] for d in r.drms), r.drms
    assert r.result.startswith("Passed"), (r.drms, r.final, r.result)
    r = roll(players, "american", "encirclement_1tc", plain)
    assert any("A7.7" in d["label"] for d in r.drms), r.drms
    assert r.result.startswith("Failed"), (r.drms, r.final, r.result)


def test_2_5_an_encircled_vehicle_takes_no_1tc_and_loses_its_marker(users, modules):
    """2.5: "Each Encircled unit must take a 1TC ... [EXC: the Encircled Vulnerable PRC
    of an Immobile vehicle are Eliminated, leaving the vehicle Abandoned]. All Encircled
    markers are then removed."  A vehicle makes no TC (its PRC's fate is the map's): the
    American's Encircled, immobilized Sherman is refused a 1TC in words, nothing is
    rolled, Done is not held for it, and its Encircled marker goes at the step's end
    (immobilized stays); the step's page carries the EXC for its owner."""
    players, _ = apd(users, "2.5")
    sherman = add(players, "american", "M4A3(75)W", "vehicle", "encircled", markers=["immobilized"])
    before = rolls(players)
    with pytest.raises(ActionRefused) as refused:
        roll(players, "american", "encirclement_1tc", sherman)
    assert "2.5" in str(refused.value)
    assert rolls(players) == before
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "american") == [("M4A3(75)W", "vehicle", "immobilized", 1)]


def test_2_5_the_german_takes_no_1tc_for_the_americans_unit(users, modules, fixed_dice):
    """2.5: "Each Encircled unit must take a 1TC": its owner's.  The German trying the
    American's Encircled squad's 1TC (after the American's Done: 1.2) is refused; the
    German's own squad's 1TC is his; before the American's Done it waits (1.2)."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    mine = add(players, "german", "4-6-7", "squad", "encircled")
    before = rolls(players)
    with pytest.raises(ActionRefused, match="American"):
        roll(players, "german", "encirclement_1tc", mine)
    assert rolls(players) == before
    fixed_dice.append([1, 1])
    roll(players, "american", "encirclement_1tc", squad)
    done(players, "american")
    with pytest.raises(ActionRefused):
        roll(players, "german", "encirclement_1tc", squad)
    fixed_dice.append([1, 1])
    assert roll(players, "german", "encirclement_1tc", mine).result.startswith("Passed")


def test_2_5_done_without_the_1tc_is_refused_and_the_unit_stays_encircled(users, modules):
    """2.5: "Each Encircled unit MUST take a 1TC": skipped, the American's Done is
    refused in words naming the unit; the squad keeps its Encircled marker."""
    players, _ = apd(users, "2.5")
    add(players, "american", "4-6-7", "squad", "encircled")
    with pytest.raises(ActionRefused, match="4-6-7"):
        done(players, "american")
    assert unit_names(players, "american") == [("4-6-7", "squad", "encircled", 1)]


# --------------------------------------------------------------------------- 2 Note


def test_2_1_2_note_prisoners_removed_add_no_cvp_a_second_time(users, modules):
    """2.1: "All Prisoners are then removed from play"; 2 Note: "CVP are recorded
    normally".  A Prisoner's CVP belong to the scenario's result (its player counted
    him lost when he was captured); his removal at 2.1 adds none again: with a squad's
    CVP supplied, the American's Captured squad leaves and his CVP lost stay 41."""
    players, _ = apd(users, "2.1")
    supply_value(players, "cvp_per_kind.squad", "2")
    add(players, "american", "6-6-6", "squad", "captured")
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "american") == []
    assert lost(players)["american"] == 41


def test_2_note_2_7_an_afv_eliminated_in_the_clean_up_counts_and_3_note_not_after(users, modules):
    """2 Note: "CVP are recorded normally throughout this phase"; 2.7: a Shocked/UK AFV
    "eliminated and flipped over to its Wreck side"; 3 Note: "CVP are NA for units/
    weapons eliminated in this phase".  At 2.7 the American removes his Sherman saying
    it was eliminated: with a vehicle's CVP supplied (5), his CVP lost go 41 → 46; at
    3.3 the same removal of a second Sherman is refused in words citing 3 Note, and
    nothing changes."""
    players, _ = apd(users, "2.7")
    supply_value(players, "cvp_per_kind.vehicle", "5")
    first = add(players, "american", "M4A3(75)W", "vehicle")
    second = add(players, "american", "M4A3(76)W", "vehicle")
    remove(players, "american", first, eliminated=True)
    assert lost(players)["american"] == 46
    players.until_step("3.3")
    with pytest.raises(ActionRefused, match="3 Note"):
        remove(players, "american", second, eliminated=True)
    assert lost(players)["american"] == 46
    assert [n[0] for n in unit_names(players, "american")] == ["M4A3(76)W"]


# --------------------------------------------------------------------------- 3.1, 3.2


def test_3_1_a_wounded_hero_owes_no_recovery_dr(users, modules):
    """3.1: "The owning player rolls on the following Recovery Table to determine each
    wounded LEADER's fate": a wounded Hero is no leader (3.2 takes him): refused a dr,
    nothing rolled, and the American's Done is not held for him."""
    players, _ = apd(users, "3.1")
    hero = add(players, "american", "1-4-9 Hero", "hero", "wounded")
    before = rolls(players)
    with pytest.raises(ActionRefused):
        roll(players, "american", "recovery", hero)
    assert rolls(players) == before
    done(players, "american")


def test_3_note_3_1_an_evacuated_leader_counts_no_cvp(users, modules, fixed_dice):
    """3.1 footnote: "An Evacuated leader is permanently removed from play"; 3 Note:
    "CVP are NA for units/weapons eliminated in this phase".  With a leader's CVP
    supplied, the American's wounded 8-1 Evacuated (dr 5) is replaced by a 7-0 and his
    CVP lost stay 41."""
    players, _ = apd(users, "3.1")
    supply_value(players, "cvp_per_kind.leader", "1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded")
    add(players, "american", "6-6-6", "squad")
    fixed_dice.append([5])
    assert roll(players, "american", "recovery", leader).result.startswith("Evacuated")
    assert "7-0 leader" in [n[0] for n in unit_names(players, "american")]
    assert lost(players)["american"] == 41


def test_3_note_3_2_an_eliminated_hero_counts_no_cvp_and_may_harden_nobody(users, modules):
    """3.2: "Heroes ... are eliminated, but for each such eliminated Hero the owning
    player MAY Battle Harden ... any one MMC"; 3 Note: CVP NA.  The American, able to
    harden his squad, declines (Done without the exchange): the Hero is eliminated, the
    squad stays as it was, and with a Hero's CVP supplied his CVP lost stay 41."""
    players, _ = apd(users, "3.2")
    supply_value(players, "cvp_per_kind.hero", "1")
    add(players, "american", "1-4-9 Hero", "hero")
    add(players, "american", "6-6-6", "squad")
    done(players, "american")
    assert unit_names(players, "american") == [("6-6-6", "squad", "ok", 1)]
    assert lost(players)["american"] == 41


def test_3_2_a_half_squad_is_an_mmc_a_leader_is_not(users, modules):
    """3.2: "the owning player may Battle Harden ... any one MMC": a half-squad is an
    MMC and is hardened for the Hero; a leader (an SMC) is refused in words, nothing
    changes."""
    players, _ = apd(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    leader = add(players, "american", "8-1 leader", "leader")
    half = add(players, "american", "3-3-6", "half_squad")
    with pytest.raises(ActionRefused):
        exchange(players, "american", hero, leader)
    exchange(players, "american", hero, half)
    assert unit_names(players, "american") == [
        ("3-3-6", "half_squad", "battle_hardened", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]


# --------------------------------------------------------------------------- 3.3, 3.31


def test_3_31_an_abandoned_vehicles_mg_makes_no_repair_attempt(users, modules):
    """3.31: "In all cases, vehicles must not be Abandoned ... to attempt Repair": the
    vehicular MG of an Abandoned Sherman is refused its Repair dr, nothing rolled, and
    the refusal cites 3.31, the sentence that refuses it (not 3.3 alone)."""
    players, _ = apd(users, "3.3")
    sherman, (mg,) = add_vehicle(
        players, "american", "M4A3(75)W", ("mg", ["malfunctioned"]), markers=["abandoned"]
    )
    before = rolls(players)
    with pytest.raises(ActionRefused, match="3.31") as refused:
        roll(players, "american", "repair_vehicular_mg", sherman, weapon=mg)
    assert "abandoned" in str(refused.value)
    assert rolls(players) == before


def test_3_3_a_vehicular_mg_6_eliminates_the_mg_and_the_vehicle_stays(users, modules, fixed_dice):
    """3.3 Repair Table "Repair vehicular MG ... 6 Eliminated"; 3.31 "Each weapon/Vehicle
    may make only one Repair attempt": the MG rolling 6 is gone from the Sherman's
    record (disabled), the Sherman stays, and a second attempt for it is refused."""
    players, _ = apd(users, "3.3")
    sherman, (mg,) = add_vehicle(players, "american", "M4A3(75)W", ("mg", ["malfunctioned"]))
    fixed_dice.append([6])
    assert roll(players, "american", "repair_vehicular_mg", sherman, weapon=mg).result.startswith(
        "Eliminated"
    )
    line = Unit.objects.get(pk=sherman.pk)
    assert line.kind == "vehicle" and line.weapons[0]["markers"] == ["disabled"]
    with pytest.raises(ActionRefused, match="3.31"):
        roll(players, "american", "repair_vehicular_mg", sherman, weapon=mg)


def test_3_31_a_second_ma_attempt_after_a_6_is_refused_citing_3_31(users, modules, fixed_dice):
    """3.31: "Each weapon/Vehicle may make only one Repair attempt. A vehicle that rolls
    a 6 on a MA repair ... is marked with a Recall counter": after the 6 the Sherman's MA
    is disabled; a second dr for it is refused and the refusal cites 3.31 (pass 11 left
    it citing 3.3 only), nothing rolled."""
    players, _ = apd(users, "3.3")
    sherman, (ma,) = add_vehicle(players, "american", "M4A3(75)W", ("ma", ["malfunctioned"]))
    fixed_dice.append([6])
    roll(players, "american", "repair_ma_gun", sherman, weapon=ma)
    before = rolls(players)
    with pytest.raises(ActionRefused, match="3.31"):
        roll(players, "american", "repair_ma_gun", sherman, weapon=ma)
    assert rolls(players) == before


# --------------------------------------------------------------------------- 3.6


@pytest.mark.parametrize(
    ("dice", "leader"),
    [([1, 2], "9-2"), ([2, 2], "9-1"), ([2, 3], "9-1"), ([3, 3], "8-1"), ([4, 4], "8-1")],
    ids=["3", "4", "5", "6", "8"],
)
def test_3_6_american_infantry_column_rows_3_to_8(users, modules, fixed_dice, dice, leader):
    """3.6 Leader Table, American Infantry: "3 9-2", "4-5 9-1", "6-8 8-1"."""
    players, _ = apd(users, "3.4")
    _american_infantry(players)
    i1 = buy(players, "american", "I1")
    players.until_step("3.6")
    fixed_dice.append(dice)
    rg_roll(players, "american", i1)
    (r,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="leader")
    assert r.result == f"American Infantry: {leader}"


@pytest.mark.parametrize(
    ("dice", "leader"),
    [([4, 5], "8-0"), ([5, 5], "8-0")],
    ids=["9", "10"],
)
def test_3_6_american_infantry_column_rows_9_10(users, modules, fixed_dice, dice, leader):
    """3.6 Leader Table, American Infantry: "9-10 8-0" (the American Armor cell there
    is "-")."""
    players, _ = apd(users, "3.4")
    _american_infantry(players)
    i1 = buy(players, "american", "I1")
    players.until_step("3.6")
    fixed_dice.append(dice)
    rg_roll(players, "american", i1)
    (r,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="leader")
    assert r.result == f"American Infantry: {leader}"
    assert (f"{leader} leader (I1)", "leader", "ok", 1) in unit_names(players, "american")


@pytest.mark.parametrize(
    ("dice", "leader"),
    [([1, 2], "9-2"), ([2, 3], "9-1"), ([3, 5], "8-1"), ([5, 6], None)],
    ids=["3", "5", "8", "11"],
)
def test_3_6_american_armor_column_rows_3_to_11(users, modules, fixed_dice, dice, leader):
    """3.6 Leader Table, American Armor: "3 9-2", "4-5 9-1", "6-8 8-1", "11 -" (no
    leader)."""
    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([4])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append(dice)
    rg_roll(players, "american", a1)
    leaders = Unit.objects.filter(campaign_id=players.campaign_id, kind="leader", purchase=a1)
    assert [u.name.split(" (")[0] for u in leaders] == ([f"{leader} leader"] if leader else [])


def test_3_6_note_a_a_final_dr_of_1_reads_the_row_at_or_below_2(users, modules, fixed_dice):
    """3.6 Leader Table "≤ 2 9-2 9-2 ..." and note a "-1 DRM for PzGr Platoon I": the
    PzGr Platoon I's DR 2 - 1 = 1 falls below the table's first printed figure and reads
    its "≤ 2" row: a 9-2."""
    from tests.test_apd12_pass12 import _german_groups

    players, _ = apd(users, "3.4")
    ra1, _rb1 = _german_groups(players, fixed_dice)
    fixed_dice.append([1, 1])
    rg_roll(players, "german", ra1)
    (r,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="leader")
    assert r.final == 1 and r.result == "German Infantry: 9-2"


# --------------------------------------------------------------------------- CG VC, 2.9


def test_cg_vc_149_vp_is_short_of_150(users, modules):
    """CG VC: "the Americans win if their VP total is ≥ 150": 149 VP at the Morning's
    end with no CVP lost and no CGV Building is one short: the Clean-Up and Setup go
    on, the CG does not end."""
    from campaign.models import Campaign

    players, _ = apd(users, "3.1", vp=149, cvp=0)
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is None


def test_2_9_the_midday_at_exactly_its_required_total_is_the_americans(users, modules, client):
    """2.9: "If the VP total is ≥ the required CG scenario total ... the American is the
    winner"; 2.91: the CG VP total.  Midday required 120 (supplied): 63 + 57 = 120 wins
    the Midday for the American, who moves first in the Afternoon; 2.91 gives 0, 2.92 the
    CVP of the CG (41 + 0) plus the 33 PP kept: 74."""
    from tests.test_apd_pass5 import points

    players, module = apd(users, "3.4")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=57, cvp_lost_american=0))
    players.until_step("3.1")
    assert "American won the December 6 Midday scenario" in page_of(client, players, "german")
    assert points(players, "american") == 33 + 41


# --------------------------------------------------------------------------- 3.4, 3.5 again


def test_3_4_the_scenario_maximum_counts_anew_for_the_next_scenario(users, modules, fixed_dice):
    """3.4: "but the SCENARIO maximum allowed for each group may not be exceeded": A1 at
    most 2 a scenario.  Two bought for the Midday; at the Midday's Clean-Up two more are
    bought for the Afternoon and a third is refused citing 3.4.  3.5: the German's Row
    A-C drs are made again for the Afternoon (one each per Setup Phase, not one per CG)."""
    from campaign.models import Seat
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, supply_german

    players, module = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], date_max=2)
    Seat.objects.filter(campaign_id=players.campaign_id, side="american").update(points=60)
    buy(players, "american", "A1")
    buy(players, "american", "A1")
    supply_german(players)
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=0))
    players.until_step("3.4")
    buy(players, "american", "A1")
    buy(players, "american", "A1")
    with pytest.raises(ActionRefused, match="3.4"):
        buy(players, "american", "A1")
    players.until_step("3.5")
    fixed_dice.append([2])
    r = roll(players, "german", "german_reinforcement_row_a", item="Row A")
    assert r.cycle == players.campaign.cycle
    with pytest.raises(ActionRefused):
        roll(players, "german", "german_reinforcement_row_a", item="Row A")


# --------------------------------------------------------------------------- pages


def test_1_2_the_first_result_is_sg1_played_with_the_cg_scenario_vc(users, modules, client):
    """1.2: "Players begin the CG by playing scenario SG1 (which serves as the Morning
    Scenario), but use the CG Scenario VC": the first result's page names SG1 (the
    December 6 Morning) and the 55 VP it takes to win it."""

    players, _ = start("pleasant-diversion", "cg", users, "american")
    page = page_of(client, players, "american")
    assert "SG1" in page, page[:3000]
    assert "55" in page


def test_2_5_the_page_tells_the_owner_of_an_encircled_vehicle_what_2_5_exc_does(
    users, modules, client
):
    """2.5 EXC: "the Encircled Vulnerable PRC of an Immobile vehicle are Eliminated,
    leaving the vehicle Abandoned": the app does not hold whether PRC are Vulnerable, so
    the 2.5 page carries the sentence's condition for the owner to mark it."""
    players, _ = apd(users, "2.5")
    add(players, "american", "M4A3(75)W", "vehicle", "encircled", markers=["immobilized"])
    page = page_of(client, players, "american")
    assert "Vulnerable PRC of an Immobile vehicle" in page, page[:3000]
    assert "Abandoned" in page


def test_3_2_the_sw_of_a_hero_eliminated_without_hardening_is_left_unpossessed(users, modules):
    """3.2: "Any SW Possessed by an eliminated Hero is considered Transferred to the
    Battle Hardened MMC": the owner, who MAY Battle Harden, declines; the Hero is
    eliminated and his BAZ, transferred to no MMC, stays on the retained forces, not
    possessed (3.31 then refuses it a Repair dr until a unit takes it)."""
    players, _ = apd(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    add(players, "american", "6-6-6", "squad")
    add(players, "american", "BAZ 44", "sw", possessor=hero.ref)
    done(players, "american")
    names = unit_names(players, "american")
    assert ("6-6-6", "squad", "ok", 1) in names
    assert ("BAZ 44", "sw", "unpossessed", 1) in names, names


# --------------------------------------------------------------------------- over the CG


def test_2_92_negative_pp_are_ignored_and_never_eat_the_pp_retained(users, modules):
    """2.92: "Negative Purchase Points are ignored"; 3.4: "Unused Purchase Points may be
    retained for future use".  Morning 63 VP / 10 CVP: 55 - 63 + 10 = 2 PP, kept unused.
    Midday (120 required, supplied) 70 VP: 120 - 133 + 10 = -3, ignored: the American
    still holds his 2 PP at the Midday's 3.4 (not -1)."""
    from tests.test_apd_pass5 import points

    players, module = apd(users, "3.4", vp=63, cvp=10)
    assert points(players, "american") == 2
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=70, cvp_lost_american=0))
    players.until_step("3.4")
    assert points(players, "american") == 2


@pytest.mark.parametrize(
    ("afternoon_vp", "cvp", "cgv", "winner"),
    [
        (47, 0, False, "American"),
        (46, 0, False, "German"),
        (0, 0, True, "American"),
        (47, 95, False, "German"),
    ],
    ids=["150-vp", "149-vp", "all-cgv", "150-vp-105-cvp"],
)
def test_cg_vc_at_the_afternoons_end(users, modules, afternoon_vp, cvp, cgv, winner):
    """CG VC: "the Americans win if their VP total is ≥ 150 at ANY CG-Scenario end
    and/or if they control all existing CGV Buildings"; CG DATES: the Afternoon is the
    last.  Morning 63 VP, Midday 40 VP (103): an Afternoon of 47 VP makes 150 and the
    American wins the CG; 46 (149) leaves the German the winner; all CGV Buildings
    controlled at the Afternoon's end win it for the American with no VP; 150 VP with
    41 + 10 + 95 = 146 CVP amassed by the Germans ("Provided the Germans have not amassed
    ≥ 105 CVP") leave the German the winner."""
    from campaign.models import Campaign

    players, module = apd(users, "3.4")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until("results")
    players.results(
        **result_values(
            module, vp_american=afternoon_vp, cvp_lost_american=cvp, cgv_buildings_american=cgv
        )
    )
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is not None
    assert f"{winner} wins" in c.outcome, c.outcome


# --------------------------------------------------------------------------- 3.6, 3.7 groups


def test_3_6_a_german_leader_enters_with_his_group(users, modules, fixed_dice):
    """3.6: "Each Leader must enter with a unit of his Group": the PzGr Platoon I's
    leader joins the German's forces on his group's line, named with it (RA1), and
    enters with it (3.8: along the German Friendly Board Edge)."""
    from tests.test_apd12_pass12 import _german_groups

    players, _ = apd(users, "3.4")
    ra1, _rb1 = _german_groups(players, fixed_dice)
    fixed_dice.append([2, 2])  # 4 - 1 = 3: a 9-1
    rg_roll(players, "german", ra1)
    leader = Unit.objects.get(campaign_id=players.campaign_id, side="german", kind="leader")
    assert leader.name == "9-1 leader (RA1)" and leader.purchase_id == ra1.pk


def test_3_7_each_m4_group_makes_its_own_m4_model_dr(users, modules, fixed_dice):
    """3.7: "For EACH M4 Armor Reinforcement Group, make a secret DR on the following M4
    Model Table to determine the tanks received by THAT Group"; 3.4 note 2 "one DR on
    the M4 Table per group received": two M4 groups bought, two M4 Model DRs at 3.7,
    each group's line receiving the tanks of its own DR (DR 2 and DR 12)."""
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE

    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    first = buy(players, "american", "A1")
    second = buy(players, "american", "A1")
    fixed_dice.extend([[1], [1]])
    rg_roll(players, "american", first)
    rg_roll(players, "american", second)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3], [3, 3]])
    rg_roll(players, "american", first)
    rg_roll(players, "american", second)
    players.until_step("3.7")
    fixed_dice.extend([[1, 1], [6, 6], [6, 6], [6, 6], [6, 6], [6, 6], [6, 6]])
    rg_roll(players, "american", first)
    rg_roll(players, "american", second)
    assert Roll.objects.filter(campaign_id=players.campaign_id, table_id="m4_model").count() == 2

    def tanks(p):
        return sorted(
            (u.name.split(" (")[0], u.count)
            for u in Unit.objects.filter(purchase=p, kind="vehicle")
        )

    assert tanks(first) == [("M4A3(76)W", 2), ("M4A3E2(L)", 1)]
    assert tanks(second) == [("M4A3", 1), ("M4A3(75)", 2)]


# --------------------------------------------------------------------------- map steps' pages


@pytest.mark.parametrize(
    ("step_id", "words"),
    [
        ("2.1", "ATTACKER"),
        ("2.2", "Wall Advantage"),
        ("2.3", "even if Disrupted"),
        ("2.4", "Stall"),
        ("2.6", "Bog Removal"),
        ("2.7", "recuperation"),
        ("2.8", "Blaze"),
        ("3.9", "Draw Piles"),
    ],
)
def test_map_steps_pages_carry_their_sentences_conditions(users, modules, client, step_id, words):
    """2.1-2.8, 3.9: the facts these sentences need (Melee, markers, broken units,
    Motion, Bog, Shock, Blazes, OBA modules) are on the map, not in the app: each step's
    page carries its sentence's condition in ASL words for the players to apply."""
    players, _ = apd(users, step_id)
    assert words in page_of(client, players, "american")


def test_2_5_a_unit_whose_counter_gives_no_morale_is_asked_for_it(users, modules):
    """2.5: "Each Encircled unit must take a 1TC": a TC is taken against the unit's
    Morale, which the app reads from its counter; a line naming none ("Rifle squad") is
    refused in ASL words asking for the counter, nothing rolled (never a guessed
    Morale)."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "Rifle squad", "squad", "encircled")
    before = rolls(players)
    with pytest.raises(ActionRefused, match="Morale, read from its counter"):
        roll(players, "american", "encirclement_1tc", squad)
    assert rolls(players) == before


def test_cg_vc_2_note_the_clean_ups_cvp_count_toward_the_105(users, modules, fixed_dice):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end"; 2 Note: "CVP are recorded normally
    throughout this phase".  150 VP with 103 CVP lost at the Morning's result; at 2.5
    an American squad (2 CVP, supplied) fails its 1TC: 105 CVP amassed, so the CG goes
    on past the Clean-Up (the CG VC is read once the Clean-Up's losses are in)."""
    from campaign.models import Campaign

    players, _ = apd(users, "2.5", vp=150, cvp=103)
    supply_value(players, "cvp_per_kind.squad", "2")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    fixed_dice.append([6, 6])
    roll(players, "american", "encirclement_1tc", squad)
    assert lost(players)["american"] == 105
    players.until_step("3.1")
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is None


def test_3_3_each_player_repairs_his_own_weapons_only(users, modules):
    """3.3: "Players may now roll on the Repair Table, making a dr per repair attempt for
    malfunctioned, non-captured weapons": each his own.  After the American's Done (1.2)
    the German trying the American's malfunctioned BAZ is refused in words that do not
    confirm what the American holds ("You have no such unit."), nothing rolled."""
    players, _ = apd(users, "3.3")
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    done(players, "american")
    before = rolls(players)
    with pytest.raises(ActionRefused, match="You have no such unit"):
        roll(players, "german", "repair_sw", baz)
    assert rolls(players) == before
