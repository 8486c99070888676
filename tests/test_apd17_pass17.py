"""Issue 44, pass 17, A Pleasant Diversion (seed 002): the Left items of pass 16 (2.5
"leadership applies normally" typed; 3.1's nearest hexes; 2.5 EXC's Vulnerable PRC;
A26.2 CVP per kind), then the between-scenario sequence walked step by step in rule
order, as a player meets it: on paths the earlier tests use little (the German's side,
the Midday's Clean-Up and the Afternoon's Setup, a side with no leaders or only
vehicles, points at zero, after a correction), each step rendered for both sides and
read sentence by sentence next to the seed.  Each test cites its rule;
docs/rules-audit/pass-17-apd17.md lists what was tried and what held."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Event, Roll, Unit
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_apd12_pass12 import apd, lost, page_of, supply_value
from tests.test_apd_pass5 import done, points
from tests.test_rule_mechanisms import add, result_values, roll, unit_names

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def rolls(players) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id).count()


def fresh(unit: Unit) -> Unit:
    return Unit.objects.get(pk=unit.pk)


def last_log(players) -> str:
    return Event.objects.filter(campaign_id=players.campaign_id).latest("id").text


def midday(users, step_id, vp=40, cvp=10, required="120", before=None, **more):
    """The CG walked through its Morning (63 VP, 41 CVP: 33 PP kept) and its Midday
    scenario (required ``required``, supplied; ``vp`` VP, ``cvp`` CVP lost by the
    American), to the Midday's ``step_id``: the last between-scenario sequence, the one
    that sets up the Afternoon.  ``before(players)`` runs before the Midday's result."""
    players, module = apd(users, "3.4")
    supply_value(players, "dates.dec6midday.vp_required", required)
    players.until("results")
    if before is not None:
        before(players)
    players.results(**result_values(module, vp_american=vp, cvp_lost_american=cvp, **more))
    players.until_step(step_id)
    return players, module


# --------------------------------------------------------------------------- Left: 2.5 leadership


def test_2_5_a10_7_the_leader_in_the_units_location_gives_its_drm_by_itself(
    users, modules, fixed_dice
):
    """2.5 "(leadership applies normally)", the Midday's Clean-Up, the German's side:
    his Encircled 4-6-7 at 20A1 shares its Location with his 8-1 leader (not Encircled),
    and every leader of his has a Location on his retained forces: the app holds the
    facts, so the 8-1's -1 applies by itself (A10.7), and a typed 0 is refused in words.
    DR 5 +1 (1TC) +1 (A7.7) -1 = 6 ≤ 7: passed."""
    players, _ = midday(users, "2.5")
    done(players, "american")
    squad = add(players, "german", "4-6-7", "squad", "encircled", location="20A1")
    add(players, "german", "8-1 leader", "leader", location="20A1")
    with pytest.raises(ActionRefused, match=r"is -1 on the record \(8-1 leader at 20A1\), not 0"):
        roll(players, "german", "encirclement_1tc", squad, typed={"leadership": 0})
    fixed_dice.append([2, 3])
    r = roll(players, "german", "encirclement_1tc", squad)
    assert any(d["value"] == -1 and "Leadership" in d["label"] for d in r.drms), r.drms
    assert r.result.startswith("Passed"), r.result
    assert fresh(squad).markers == ["encircled"]


def test_2_5_a10_7_no_leader_in_the_units_location_gives_no_drm(users, modules, fixed_dice):
    """2.5 "(leadership applies normally)": the American's Encircled 7-4-7 at 12L6, his
    only leader (9-2) at 12K5, both Locations entered: no leader is in its Location, so
    a typed -2 is refused (the record says 0) and the 1TC is taken without one."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "7-4-7", "squad", "encircled", location="12L6")
    add(players, "american", "9-2 leader", "leader", location="12K5")
    with pytest.raises(ActionRefused, match=r"is 0 on the record \(no leader at 12L6\), not -2"):
        roll(players, "american", "encirclement_1tc", squad, typed={"leadership": -2})
    fixed_dice.append([1, 1])
    r = roll(players, "american", "encirclement_1tc", squad)
    assert not any("Leadership" in d["label"] for d in r.drms), r.drms


def test_2_5_a10_7_a_leaders_own_drm_never_modifies_his_own_1tc(users, modules, fixed_dice):
    """2.5 + A10.7: the Encircled 9-1 leader at 20A1 alone in his Location, the
    German's only leader: his own -1 does not modify his own 1TC; typed -1 refused."""
    players, _ = apd(users, "2.5")
    done(players, "american")
    leader = add(players, "german", "9-1 leader", "leader", "encircled", location="20A1")
    with pytest.raises(
        ActionRefused, match=r"is 0 on the record \(no other leader at 20A1\), not -1"
    ):
        roll(players, "german", "encirclement_1tc", leader, typed={"leadership": -1})


def test_2_5_a10_7_where_a_location_is_missing_the_drm_is_still_typed(users, modules, fixed_dice):
    """2.5: where the app lacks the facts it types: the Encircled squad has no Location
    entered, or one of the side's leaders has none (he may be in it): the typed -1 is
    accepted, as before."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "7-4-7", "squad", "encircled")
    add(players, "american", "8-1 leader", "leader", location="12K5")
    other = add(players, "american", "6-6-6", "squad", "encircled", location="12K6")
    add(players, "american", "9-1 leader", "leader")
    fixed_dice.extend([[1, 1], [1, 1]])
    r = roll(players, "american", "encirclement_1tc", squad, typed={"leadership": -1})
    assert any(d["value"] == -1 for d in r.drms if "Leadership" in d["label"]), r.drms
    r = roll(players, "american", "encirclement_1tc", other, typed={"leadership": -1})
    assert any(d["value"] == -1 for d in r.drms if "Leadership" in d["label"]), r.drms


def test_2_5_a10_7_the_best_of_two_leaders_in_the_location_applies(users, modules, fixed_dice):
    """2.5 + A10.7: a 7-0 and a 9-2 with the German's Encircled 4-6-7 at 20A1: the
    best, -2, applies by itself (one leader's DRM, never both added)."""
    players, _ = apd(users, "2.5")
    done(players, "american")
    squad = add(players, "german", "4-6-7", "squad", "encircled", location="20A1")
    add(players, "german", "7-0 leader", "leader", location="20A1")
    add(players, "german", "9-2 leader", "leader", location="20a1 ")
    fixed_dice.append([6, 6])
    r = roll(players, "german", "encirclement_1tc", squad)
    assert [d["value"] for d in r.drms if "Leadership" in d["label"]] == [-2], r.drms


# ------------------------------------------------------ Part 2: the Midday's Clean-Up


def test_2_1_the_middays_prisoners_leave_the_germans_forces_his_captured_sherman_stays(
    users, modules
):
    """2.1 "All Prisoners are then removed from play", the Midday's Clean-Up, the
    German's side: his 4-6-7 and 8-0 leader marked Captured (held by the American) leave
    his forces at his Done; the Sherman he captured stays with him."""

    def holdings(players):
        add(players, "german", "4-6-7", "squad", "captured")
        add(players, "german", "8-0 leader", "leader", "captured")
        add(players, "german", "Sherman", "vehicle", "captured")

    players, _ = midday(users, "2.1", before=holdings)
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "german") == [("Sherman", "vehicle", "captured", 1)]


def test_1_2_at_the_middays_2_1_the_german_waits_for_the_americans_done(users, modules):
    """1.2 "Both players (if applicable), American first, complete each step": at the
    Midday's 2.1 the German's Done is refused in words until the American's."""
    players, _ = midday(users, "2.1")
    with pytest.raises(ActionRefused, match="American"):
        done(players, "german")
    assert players.step.id == "2.1"


def test_2_5_2_92_an_american_squad_lost_at_the_middays_2_5_counts_in_the_middays_pp(
    users, modules, fixed_dice
):
    """2 Note "CVP are recorded normally throughout this phase" + 2.5 + 2.92 "the total
    of his CVP suffered in the CG thus far", at the Midday: the American's Encircled
    4-6-6 fails its 1TC (DR 12); squads' CVP 2 (supplied): the Midday's CVP lost 10 →
    12, and the Midday's PP are 120 − (63 + 40) = 17, + 41 + 12 = 70, with the 33 kept:
    103 at the Midday's 3.4."""
    players, _ = midday(users, "2.5")
    supply_value(players, "cvp_per_kind.squad", "2")
    squad = add(players, "american", "4-6-6", "squad", "encircled")
    fixed_dice.append([6, 6])
    assert roll(players, "american", "encirclement_1tc", squad).result.startswith("Failed")
    assert lost(players)["american"] == 12
    players.until_step("3.4")
    assert points(players, "american") == 33 + 17 + 41 + 12


def test_2_5_2_note_the_germans_leader_lost_at_the_middays_2_5_joins_the_middays_cvp(
    users, modules, fixed_dice
):
    """2 Note + 2.5 at the Midday, the German's side: his Encircled 7-0 leader fails its
    1TC (DR 6+5 +1 +1 > 7); a leader's CVP 1 (supplied): the Midday's German CVP lost 20
    → 21; the Morning's result is untouched."""
    players, _ = midday(users, "2.5", cvp_lost_german=20)
    supply_value(players, "cvp_per_kind.leader", "1")
    done(players, "american")
    leader = add(players, "german", "7-0 leader", "leader", "encircled")
    fixed_dice.append([6, 5])
    assert roll(players, "german", "encirclement_1tc", leader).result.startswith("Failed")
    from campaign.models import ScenarioResult

    first, second = ScenarioResult.objects.filter(campaign_id=players.campaign_id).order_by("id")
    assert second.data["cvp_lost"]["german"] == 21
    assert first.data["cvp_lost"]["german"] == 0


def test_2_5_exc_an_encircled_immobilized_vehicle_takes_no_1tc_and_keeps_its_immobilized(
    users, modules, client
):
    """2.5 [EXC: the Encircled Vulnerable PRC of an Immobile vehicle are Eliminated,
    leaving the vehicle Abandoned], the German's side at the Midday: his Encircled,
    immobilized PzIV is refused a 1TC (its PRC's fate is the map's: whether they are
    Vulnerable is not kept); his page at 2.5 carries the EXC's words; at Done its
    Encircled marker goes, immobilized stays."""
    players, _ = midday(users, "2.5")
    done(players, "american")
    pz, _refs = add_vehicle(players, "german", "PzIV H", markers=["encircled", "immobilized"])
    with pytest.raises(ActionRefused):
        roll(players, "german", "encirclement_1tc", pz)
    text = page_of(client, players, "german")
    assert "Vulnerable PRC of an Immobile vehicle are Eliminated" in text, text[:2000]
    done(players, "german")
    assert unit_names(players, "german") == [("PzIV H", "vehicle", "immobilized", 1)]


def test_2_6_2_note_the_germans_vehicle_eliminated_at_the_middays_2_6_counts_his_cvp(
    users, modules
):
    """2.6 "... until it is either unbogged or immobilized" / 2 Note, at the Midday: the
    German's PzIV lost there is removed by him as eliminated (vehicle CVP 5, supplied):
    the Midday's German CVP lost 20 → 25; the American's stay 10."""
    from campaign.services import units

    players, _ = midday(users, "2.6", cvp_lost_german=20)
    supply_value(players, "cvp_per_kind.vehicle", "5")
    done(players, "american")
    pz, _refs = add_vehicle(players, "german", "PzIV H")
    units.remove_unit(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        unit_id=pz.ref,
        eliminated=True,
    )
    assert lost(players) == {"american": 10, "german": 25}


def test_2_9_4_0_the_german_wins_the_midday_and_moves_first_in_the_afternoon(
    users, modules, client
):
    """2.9 "otherwise the German wins. The winning side moves first in the following
    scenario" at the Midday: 63 + 40 = 103 < 120: the German won the Midday; both pages
    at the Afternoon's 3.1 say so and that the German moves first (4.0: "Play then
    commences with the RPh of the player who won the previous scenario")."""
    players, _ = midday(users, "3.1")
    for side in ("american", "german"):
        text = page_of(client, players, side)
        assert "German won the December 6 Midday scenario" in text, text[:1500]
        assert "German moves first" in text, text[:1500]


def test_2_9_the_cgv_requirement_wins_the_midday_for_the_american_below_its_vp(users, modules):
    """2.9 "and/or the American achieved the scenario-specific CGV Building VC
    requirements" at the Midday: 103 VP < 120 but the requirement met: the American won
    the Midday; the CG goes on (150 not reached, CGV Buildings not all controlled)."""
    players, _ = midday(users, "3.1", cgv_scenario_american=True)
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is None
    said = Event.objects.filter(
        campaign_id=players.campaign_id, text__contains="December 6 Midday scenario"
    )
    assert any("American wins the December 6 Midday scenario" in e.text for e in said)


def test_2_91_2_92_a_negative_midday_differential_is_ignored_and_the_kept_pp_stay(users, modules):
    """2.91 "This can result in a positive or negative number, or 0"; 2.92 "Negative
    Purchase Points are ignored"; 3.4 "Unused Purchase Points may be retained": the
    Midday of 100 VP (required 120; CG total 163) with 0 CVP: 120 − 163 + 41 = −2,
    ignored: the American keeps his 33, neither more nor fewer."""
    players, _ = midday(users, "3.4", vp=100, cvp=0)
    assert points(players, "american") == 33


# ---------------------------------------------- Part 2: the Setup for the Afternoon


def test_3_1_the_germans_done_waits_for_his_wounded_leaders_dr_at_the_midday(
    users, modules, fixed_dice
):
    """3.1 "The owning player rolls on the following Recovery Table to determine each
    wounded leader's fate", the German at the Midday's Setup: his Done is refused while
    his wounded 9-1's dr is owed; dr 2 (Retain Unwounded) takes the Wound off; a second
    dr is refused; Done goes."""
    players, _ = midday(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "9-1 leader", "leader", "wounded", location="20B1")
    with pytest.raises(ActionRefused, match="9-1 leader"):
        done(players, "german")
    fixed_dice.append([2])
    assert roll(players, "german", "recovery", leader).result == "Retain Unwounded"
    assert fresh(leader).markers == []
    with pytest.raises(ActionRefused):
        roll(players, "german", "recovery", leader)
    done(players, "german")
    assert players.step.id == "3.2"


def test_3_1_footnote_a_side_of_vehicles_only_gets_its_7_0_and_its_done_goes(
    users, modules, fixed_dice, client
):
    """3.1 footnote * with no MMC at all (the German holds only a PzIV and his wounded
    8-1): dr 6, Evacuated: the 8-1 leaves, a 7-0 joins (the rules name no MMC to place
    him with: none is asked), his Done is not held, and his page says nothing of an MMC
    owed."""
    players, _ = midday(users, "3.1")
    done(players, "american")
    add_vehicle(players, "german", "PzIV H")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="20B1")
    fixed_dice.append([6])
    assert roll(players, "german", "recovery", leader).result == "Evacuated*"
    assert ("7-0 leader", "leader", "ok", 1) in unit_names(players, "german")
    assert not Unit.objects.filter(pk=leader.pk).exists()
    done(players, "german")
    assert players.step.id == "3.2"


def test_3_1_a_wounded_hero_is_no_leader_and_rolls_no_recovery_dr(users, modules):
    """3.1 "each wounded leader's fate": the German's wounded Hero at the Midday is
    refused a Recovery dr (3.2 decides a Hero's fate), and owes none at Done."""
    players, _ = midday(users, "3.1")
    done(players, "american")
    hero = add(players, "german", "1-4-9 hero", "hero", "wounded")
    with pytest.raises(ActionRefused):
        roll(players, "german", "recovery", hero)
    done(players, "german")


def test_3_2_exc_a_german_of_vehicles_only_keeps_his_wounded_hero_unwounded(users, modules, client):
    """3.2 [EXC: If unable to Battle Harden any MMC, the Hero remains onboard unwounded
    instead], the German at the Midday holding a PzIV and a wounded Hero: his page says
    the Hero stays, unwounded (not that he leaves); at Done the Hero stays, unwounded."""
    players, _ = midday(users, "3.2")
    done(players, "american")
    add_vehicle(players, "german", "PzIV H")
    hero = add(players, "german", "1-4-9 hero", "hero", "wounded")
    text = page_of(client, players, "german")
    assert "stays, in good order" in text or "stays, unwounded" in text, text[:3000]
    assert "left leaves your forces" not in text
    done(players, "german")
    assert fresh(hero).markers == []


def test_3_2_3_note_a_hero_not_given_up_leaves_at_done_and_counts_no_cvp(users, modules):
    """3.2 "the owning player may Battle Harden": the German at the Midday holds a
    4-6-7 and a Hero and hardens nothing: Done goes (it is his choice), the Hero is
    eliminated, the 4-6-7 is not hardened, and (3 Note) the Midday's CVP are unchanged
    even with a Hero's CVP supplied."""
    players, _ = midday(users, "3.2", cvp_lost_german=20)
    supply_value(players, "cvp_per_kind.hero", "1")
    done(players, "american")
    add(players, "german", "4-6-7", "squad")
    add(players, "german", "1-4-9 hero", "hero")
    done(players, "german")
    assert unit_names(players, "german") == [("4-6-7", "squad", "ok", 1)]
    assert lost(players) == {"american": 10, "german": 20}


def test_3_2_a_german_half_squad_hardened_takes_the_heros_sw(users, modules):
    """3.2 "any one MMC" + "Any SW Possessed by an eliminated Hero is considered
    Transferred to the Battle Hardened MMC", the German at the Midday: his Hero with an
    LMG is given up for his 2-4-7 half-squad: it is Battle Hardened and takes the LMG."""
    from tests.test_rule_mechanisms import exchange

    players, _ = midday(users, "3.2")
    done(players, "american")
    half = add(players, "german", "2-4-7", "half_squad")
    hero = add(players, "german", "1-4-9 hero", "hero")
    lmg = add(players, "german", "LMG", "sw", possessor=hero.ref)
    exchange(players, "german", hero, half)
    assert fresh(half).markers == ["battle_hardened"]
    assert fresh(lmg).possessor_id == half.pk


def test_3_3_a_weapon_the_german_captured_makes_no_repair_attempt(users, modules):
    """3.3 "for malfunctioned, non-captured weapons", the German at the Midday: the BAZ
    he captured (marked captured on his forces), malfunctioned, is refused its Repair
    dr, in words citing 3.3; nothing is rolled; his Done goes (repair is "may")."""
    players, _ = midday(users, "3.3")
    done(players, "american")
    baz = add(players, "german", "BAZ 44", "sw", "malfunctioned", markers=["captured"])
    before = rolls(players)
    with pytest.raises(ActionRefused, match="3.3"):
        roll(players, "german", "repair_sw", baz)
    assert rolls(players) == before
    done(players, "german")


def test_3_31_the_germans_ma_rolls_a_6_recalled_and_bu_the_vehicle_stays(
    users, modules, fixed_dice
):
    """3.31 "A vehicle that rolls a 6 on a MA repair becomes BU if CE and is marked with
    a Recall counter" (3 Note: no CVP), the German at the Midday: his PzIV's MA dr 6:
    the PzIV stays, recalled, its MA disabled; the Midday's CVP unchanged; a vehicular
    MG dr of the same PzIV is its own attempt (3.31 "Each weapon")."""
    players, _ = midday(users, "3.3", cvp_lost_german=20)
    supply_value(players, "cvp_per_kind.vehicle", "5")
    done(players, "american")
    pz, (ma, mg) = add_vehicle(
        players, "german", "PzIV H", ("ma", ["malfunctioned"]), ("mg", ["malfunctioned"])
    )
    fixed_dice.extend([[6], [1]])
    assert roll(players, "german", "repair_ma_gun", pz, weapon=ma).result == "Eliminated"
    assert "recalled" in fresh(pz).markers
    assert roll(players, "german", "repair_vehicular_mg", pz, weapon=mg).result == "Repaired"
    assert lost(players) == {"american": 10, "german": 20}


def test_3_4_the_midday_purchase_reads_the_kept_and_new_pp_and_refuses_beyond(
    users, modules, fixed_dice
):
    """3.4 "He may purchase as many of each group as he has Purchase Points available"
    at the Midday: the chart's A1 costs 10 and the American holds 20 at 3.4: two are
    bought... no: the scenario maximum is 1 (one refused citing the maximum); then with 5
    PP left another group of 10 is refused for points."""
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, buy

    players, _ = midday(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], date_max=1)
    buy(players, "american", "A1")
    with pytest.raises(ActionRefused, match="3.4"):
        buy(players, "american", "A1")
    assert points(players, "american") == 10


def test_3_4_the_german_buys_nothing_at_the_middays_3_4(users, modules):
    """3.4 "The American player secretly spends his Purchase Points": the German's
    purchase at the Midday's 3.4 is refused; he holds no PP (2.92)."""
    from tests.test_rule_mechanisms import buy

    players, _ = midday(users, "3.4")
    with pytest.raises(ActionRefused):
        buy(players, "german", "A1")
    assert points(players, "german") == 0


def test_2_5_a10_7_a_leader_who_passed_his_1tc_first_leads_one_who_failed_does_not(
    users, modules, fixed_dice
):
    """2.5 "(leadership applies normally)" at the Midday: the German's Encircled 8-1
    and two Encircled 4-6-7 lines at 20A1 and 20A2 with an Encircled 9-1 (every leader
    located).  Before a leader has made his own 1TC the squad's DRM is still typed;
    the 8-1 passes (DR 2): the 4-6-7 at 20A1 then reads his -1 by itself; the 9-1 fails
    (DR 12, eliminated): the 4-6-7 at 20A2 reads 0, a typed -1 refused."""
    players, _ = midday(users, "2.5")
    done(players, "american")
    eight = add(players, "german", "8-1 leader", "leader", "encircled", location="20A1")
    first = add(players, "german", "4-6-7", "squad", "encircled", location="20A1")
    nine = add(players, "german", "9-1 leader", "leader", "encircled", location="20A2")
    second = add(players, "german", "4-6-7", "squad", "encircled", location="20A2")
    fixed_dice.extend([[1, 1], [1, 1], [6, 6], [1, 1]])
    assert roll(players, "german", "encirclement_1tc", eight).result.startswith("Passed")
    r = roll(players, "german", "encirclement_1tc", first)
    assert [d["value"] for d in r.drms if "Leadership" in d["label"]] == [-1], r.drms
    assert any("8-1 leader at 20A1" in d["label"] for d in r.drms), r.drms
    assert roll(players, "german", "encirclement_1tc", nine).result.startswith("Failed")
    with pytest.raises(ActionRefused, match="is 0 on the record"):
        roll(players, "german", "encirclement_1tc", second, typed={"leadership": -1})
    r = roll(players, "german", "encirclement_1tc", second)
    assert not any("Leadership" in d["label"] for d in r.drms), r.drms


def test_3_31_the_mmg_of_a_leader_eliminated_at_2_5_is_unpossessed_at_3_3(
    users, modules, fixed_dice
):
    """3.31 "Guns/SW must be Possessed to attempt Repair", across the Midday's steps: the
    German's Encircled 8-1 possessing a malfunctioned MMG fails his 1TC at 2.5 (DR 12):
    the MMG is left unpossessed, and at 3.3 its Repair dr is refused citing 3.31 until
    its owner names a possessor (his 4-6-7): then it rolls."""
    from tests.test_rule_mechanisms import edit

    players, _ = midday(users, "2.5")
    done(players, "american")
    leader = add(players, "german", "8-1 leader", "leader", "encircled")
    mmg = add(players, "german", "MMG", "sw", "malfunctioned", possessor=leader.ref)
    squad = add(players, "german", "4-6-7", "squad")
    fixed_dice.append([6, 6])
    assert roll(players, "german", "encirclement_1tc", leader).result.startswith("Failed")
    assert "unpossessed" in fresh(mmg).markers
    players.until_step("3.3")
    done(players, "american")
    with pytest.raises(ActionRefused, match="3.31"):
        roll(players, "german", "repair_sw", fresh(mmg))
    edit(players, "german", fresh(mmg), None, possessor=squad.ref, markers=["malfunctioned"])
    fixed_dice.append([1])
    assert roll(players, "german", "repair_sw", fresh(mmg)).result == "Repaired"


def test_3_4_secretly_the_germans_pages_show_nothing_of_the_american_purchase(
    users, modules, client
):
    """3.4 "The American player secretly spends his Purchase Points", at the Midday:
    after the American bought A1, the German's campaign page and roster name no A1, no
    Armor Group and not the American's PP (20 held, 10 left)."""
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, buy

    players, _ = midday(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    buy(players, "american", "A1")
    text = page_of(client, players, "german")
    client.force_login(players.users["german"])
    roster = client.get(f"/campaigns/{players.campaign_id}/roster/").content.decode()
    # The chart and the step's words are public; what was bought is not.
    assert "No RG bought yet (or none of your opponent's revealed)" in text
    for said in (text, roster):
        assert "A1 Armor Group" not in said and "3 tanks" not in said
    assert "PP: 10" not in text and "PP: 20" not in text


def test_3_5_the_middays_rows_are_owed_again_once_each_and_secret(
    users, modules, fixed_dice, client
):
    """3.5 "The German player now secretly makes three Reinforcement drs (one each on
    Rows A-C)", again at the Midday: the Morning's rolls do not stand for them (his Done
    is refused while they are owed), each row once (a second Row A refused), and the
    American's page names no group they gave (the rows themselves are public)."""
    from tests.test_rule_mechanisms import supply_german

    players, _ = midday(users, "3.4", before=supply_german)
    players.until_step("3.5")
    with pytest.raises(ActionRefused, match="Row A"):
        done(players, "german")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    with pytest.raises(ActionRefused, match="in this pass"):
        roll(players, "german", "german_reinforcement_row_a", item="Row A")
    # The rows are public (their table is on the page); what they gave is not.
    text = page_of(client, players, "american")
    assert "RA1" not in text and "RB1" not in text
    done(players, "german")


def test_cg_vc_2_note_a_loss_at_the_middays_2_5_takes_the_germans_to_105_cvp(
    users, modules, fixed_dice
):
    """CG VC "Provided the Germans have not amassed ≥ 105 CVP" + 2 Note "CVP are
    recorded normally throughout this phase": 100 + 50 = 150 VP at the Midday's end with
    60 + 43 = 103 CVP; the American's Encircled 4-6-6 fails its 1TC at the Midday's 2.5
    (squads 2 CVP): 105 amassed, so the CG does not end with the American's win at 2.9;
    it goes on to the Afternoon."""
    players, module = apd(users, "3.4", vp=100, cvp=60)
    supply_value(players, "dates.dec6midday.vp_required", "160")
    supply_value(players, "cvp_per_kind.squad", "2")
    players.until("results")
    players.results(**result_values(module, vp_american=50, cvp_lost_american=43))
    players.until_step("2.5")
    squad = add(players, "american", "4-6-6", "squad", "encircled")
    fixed_dice.append([6, 6])
    assert roll(players, "american", "encirclement_1tc", squad).result.startswith("Failed")
    players.until_step("3.1")
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is None


def test_4_0_no_quarter_invoked_at_the_midday_lasts_into_the_afternoon(users, modules, client):
    """4.0 "Once invoked, No Quarter will remain in effect for the duration of the CG":
    invoked in the Midday (not the Morning): the Afternoon's scenario sheet, read by the
    German, says so."""
    import html
    import re

    players, _ = midday(users, "3.9", no_quarter_american=True)
    players.until("results")
    client.force_login(players.users["german"])
    sheet = html.unescape(
        client.get(f"/campaigns/{players.campaign_id}/sheet.txt").content.decode()
    )
    assert "No Quarter invoked (4.0): since the December 6 Midday scenario" in re.sub(
        r"\s+", " ", sheet
    ), sheet


def test_1_2_the_middays_steps_follow_in_rule_order_and_2_9_to_3_pass_by_themselves(users, modules):
    """1.2 "the entire sequence below is followed at the end of each CG scenario", at
    the Midday: each Done leads to the step the rules name next, 2.1 to 2.8, then 2.9,
    2.91, 2.92 and the Setup header pass by themselves (the log says each), 3.1 to 3.5,
    3.6 and 3.7 passed with no RG to roll for (said), 3.8, 3.9, then 4.0 puts the
    Afternoon in play."""
    players, _ = midday(users, "2.1")
    seen = []
    for _ in range(30):
        seen.append(players.step.id)
        if players.step.kind == "results":
            break
        players.finish()
    assert seen == [
        "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8",
        "3.1", "3.2", "3.3", "3.4", "3.5", "3.8", "3.9", "1.2",
    ], seen  # fmt: skip
    # 3.6 and 3.7 with no RG bought or rolled: each side passes, said in the log.
    texts = list(
        Event.objects.filter(campaign_id=players.campaign_id)
        .order_by("id")
        .values_list("text", flat=True)
    )
    passes = [t for t in texts if "the server does this step" in t]
    assert any("2.91 VP Differential" in t for t in passes), passes
    assert any("3.6 Leaders: no RG of its chart has secret rolls to make" in t for t in texts)
    assert any("December 6 Afternoon scenario is in play" in t for t in texts)


@pytest.mark.parametrize(
    ("step_id", "words"),
    [
        ("2.2", "Remove CX, Berserk, Fanatic, Wall Advantage, Dispersed SMOKE"),
        ("2.3", "All broken units of both sides rally automatically, even if Disrupted"),
        ("2.4", "a PzVG must still roll for Stall to gain Motion"),
        ("2.6", "makes at least one Bog Removal attempt (D8.3)"),
        ("2.7", "until the marker goes or the AFV is eliminated and becomes a Wreck"),
        ("2.8", "Check Blazes (Wreck Blazes included), then Flames, for Spread (A25.6)"),
        ("3.9", "Draw Piles are restored to their original composition"),
    ],
)
def test_clean_up_and_setup_map_steps_say_the_rule_to_both_sides_at_the_midday(
    users, modules, client, step_id, words
):
    """2.2-2.4, 2.6-2.8, 3.9 (played on the map): at the Midday each side's page at the
    step says what the rule asks, in ASL words, with no module word."""
    players, _ = midday(users, step_id)
    for side in ("american", "german"):
        text = page_of(client, players, side)
        assert words in text, (side, text[:2500])
        for schema_word in ("losses_count", "for_units", "settles", "cvp_na", "in_order"):
            assert schema_word not in text, (side, schema_word)


def test_3_3_after_a_done_taken_back_the_american_still_makes_one_attempt(
    users, modules, fixed_dice
):
    """3.31 "Each weapon/Vehicle may make only one Repair attempt", after an undo: at the
    Midday's 3.3 the American's BAZ rolls NE (dr 4); he presses Done, takes it back
    (the German has not acted), and a second dr for the BAZ is still refused."""
    players, _ = midday(users, "3.3")
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    fixed_dice.append([4])
    assert roll(players, "american", "repair_sw", baz).result == "NE"
    done(players, "american")
    steps.take_back_done(campaign_id=players.campaign_id, user=players.users["american"])
    with pytest.raises(ActionRefused, match="3.31|one"):
        roll(players, "american", "repair_sw", fresh(baz))


def test_3_6_the_germans_midday_armor_group_6_to_8_gets_no_leader(
    users, modules, fixed_dice, client
):
    """3.6 Leader Table, German Armor column "6-8 -", at the Midday: the German's Row B
    group (PzIV Section, no -1 of note a) rolls DR 7: no leader; his Row A group
    (PzGr Platoon I, -1) DR 7 -1 = 6: an 8-0."""
    from campaign.models import Purchase
    from tests.test_rule_mechanisms import rg_roll, supply_german

    players, _ = midday(users, "3.4", before=supply_german)
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.until_step("3.6")
    got = list(Purchase.objects.filter(campaign_id=players.campaign_id, side="german"))
    ra1 = next(p for p in got if p.group_id == "RA1")
    rb1 = next(p for p in got if p.group_id == "RB1")
    fixed_dice.extend([[3, 4], [3, 4]])
    rg_roll(players, "german", rb1)
    rg_roll(players, "german", ra1)
    armor, infantry = Roll.objects.filter(
        campaign_id=players.campaign_id, table_id="leader"
    ).order_by("seq")
    assert armor.result == "German Armor: No leader" and armor.drms == []
    assert infantry.result == "German Infantry: 8-0", infantry.result
    # "make one secret DR": the American reads nothing of them.
    text = page_of(client, players, "american")
    assert "8-0" not in text and "No leader" not in text


def test_2_5_a10_7_the_owner_reads_each_units_leadership_and_its_source_before_rolling(
    users, modules, client
):
    """2.5 "(leadership applies normally)": what the app reads is shown where the player
    rolls, with its source: at the Midday the American's choice of unit reads "4-6-6
    (Encircled): leadership -1, 8-1 leader at 12A1" for his squad there, and "leadership
    typed" for one whose Location is not entered."""
    players, _ = midday(users, "2.5")
    add(players, "american", "4-6-6", "squad", "encircled", location="12A1")
    add(players, "american", "8-1 leader", "leader", location="12A1")
    add(players, "american", "2-4-6", "half_squad", "encircled")
    text = page_of(client, players, "american")
    assert "4-6-6 (Encircled): leadership -1, 8-1 leader at 12A1" in text, text[:4000]
    assert "2-4-6 (Encircled): leadership typed" in text, text[:4000]


def test_3_4_the_germans_page_at_3_4_says_only_the_american_buys_there(users, modules, client):
    """3.4 "The American player secretly spends his Purchase Points", read by the German
    at the Midday's 3.4 (his chart supplied): his page says only the American buys there
    and offers him nothing; it does not tell him of his own PP and "purchases", nor that
    his chart must be supplied "before anything can be bought" at a step where he buys
    nothing (3.5: his reinforcements are rolled, not bought)."""
    from tests.test_rule_mechanisms import supply_german

    players, _ = midday(users, "3.4", before=supply_german)
    text = page_of(client, players, "german")
    assert "Only the American buys at 3.4" in text, text[:2500]
    assert "Your purchases are secret" not in text
    assert "before anything can be bought" not in text
    players2, _ = midday(users, "3.4")
    text = page_of(client, players2, "german")
    assert "before anything can be bought" not in text, text[:2500]


def test_3_7_the_germans_page_at_3_7_says_only_the_american_rolls_there(
    users, modules, client, fixed_dice
):
    """3.7 "For each M4 Armor Reinforcement Group, make a secret DR": the American's
    roll.  At the Midday the American bought an M4 Armor Group (armor-type dr 2: M4);
    at 3.7 the German's page says only the American rolls there, not "Make the secret
    rolls of each RG you bought"."""
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, buy, rg_roll

    players, _ = midday(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([2])
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    text = page_of(client, players, "german")
    assert "Only the American rolls at 3.7" in text, text[:2500]
    assert "each RG you bought" not in text


def test_3_2_finishing_ahead_stops_at_3_2_for_a_side_with_a_hero_to_give(users, modules, client):
    """3.2 "the owning player may Battle Harden": a choice; the American at the Midday's
    2.1 holds a Hero and a 4-6-6: the page's "Done with 2.1 to ..." (finishing several
    steps at once) stops before 3.2, so his Hero is not eliminated unasked."""
    players, _ = midday(users, "2.1")
    add(players, "american", "4-6-6", "squad")
    add(players, "american", "2-4-8 hero", "hero")
    text = page_of(client, players, "american")
    assert "Done with 2.1 to 3.2" not in text and "Done with 2.1 to 3.3" not in text, text[:3000]


def test_2_92_3_4_no_purchase_points_the_american_reads_0_and_his_done_goes(users, modules, client):
    """2.92 "Negative Purchase Points are ignored", the points-at-zero path: the Morning
    of 100 VP and 0 CVP: 55 − 100 + 0 = −45, ignored: the American reads "You have 0 PP"
    at 3.4, and his Done there goes through (nothing to spend)."""
    players, _ = apd(users, "3.4", vp=100, cvp=0)
    assert points(players, "american") == 0
    assert "You have 0 PP" in page_of(client, players, "american")
    done(players, "american", without_data=True)
    assert players.step.id != "3.4" or "american" not in players.waiting()


def test_3_8_the_germans_midday_row_group_enters_along_his_friendly_board_edge(
    users, modules, client, fixed_dice
):
    """3.8 "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    Board Edge", the German's Row A group at the Midday: his roster says where it
    enters."""
    from tests.test_rule_mechanisms import supply_german

    players, _ = midday(users, "3.4", before=supply_german)
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.until_step("3.8")
    client.force_login(players.users["german"])
    import html
    import re

    roster = html.unescape(client.get(f"/campaigns/{players.campaign_id}/roster/").content.decode())
    roster = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", roster))
    assert "along the German Friendly Board Edge, on/after Turn 1" in roster, roster[:3000]


def test_3_1_the_owning_player_rolls_the_american_cannot_roll_for_the_germans_leader(
    users, modules
):
    """3.1 "The owning player rolls on the following Recovery Table": at the Midday the
    American's Recovery dr named for the German's wounded 9-1 is refused; nothing is
    rolled."""
    players, _ = midday(users, "3.1")
    leader = add(players, "german", "9-1 leader", "leader", "wounded")
    before = rolls(players)
    with pytest.raises(ActionRefused, match="no such unit"):
        roll(players, "american", "recovery", leader)
    assert rolls(players) == before


def test_cg_vc_all_cgv_buildings_at_the_afternoons_end_win_the_cg(users, modules):
    """CG VC "and/or if they control all existing CGV Buildings", at the last CG-Scenario
    end: the Afternoon's result with all CGV Buildings controlled, 63 + 40 + 10 = 113 VP
    (< 150) and 41 + 10 + 5 = 56 CVP amassed (< 105): the CG ends, the American wins."""
    players, module = midday(users, "3.9")
    players.until("results")
    players.results(
        **result_values(module, vp_american=10, cvp_lost_american=5, cgv_buildings_american=True)
    )
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is not None and "American wins" in c.outcome, c.outcome


def test_3_4_an_armor_group_whose_type_dr_is_made_cannot_be_cancelled_and_bought_again(
    users, modules, fixed_dice
):
    """3.4 "For each Armor Group purchased, make a dr to determine armor type", after an
    undo, at the Midday: the American buys A1 and rolls its armor type (dr 6: M5A1);
    cancelling that purchase to buy A1 again would roll its type a second time, so the
    cancel is refused (dice rolled stand) and the PP stay spent."""
    from campaign.services import purchases
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, buy, rg_roll

    stuarts = {"do": "units", "unit": "M5A1", "count": 3, "kind": "vehicle"}
    players, _ = midday(users, "3.4")
    _armor_group(
        players,
        [
            {"range": "1-3", "result": "M4", "effect": _M4_ARMOR_TYPE},
            {"range": "4-6", "result": "M5A1", "effect": stuarts},
        ],
    )
    a1 = buy(players, "american", "A1")
    fixed_dice.append([6])
    rg_roll(players, "american", a1)
    with pytest.raises(ActionRefused):
        purchases.cancel_purchase(
            campaign_id=players.campaign_id, user=players.users["american"], purchase_id=a1.ref
        )
    assert points(players, "american") == 10
