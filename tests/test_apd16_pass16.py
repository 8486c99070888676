"""Issue 44, pass 16, A Pleasant Diversion (seed 002): the Left items of pass 15 (3.1
footnote's SW with several MMC; 2.5 "leadership applies normally"), then sentences of
the CG rules, the Clean-Up 2.-2.92 and the Setup 3.-4.0 tried once more in play in a
way their named tests do not (the other side, twice, skipped, after a correction,
another unit kind, another row, the step before or after, what the player reads).
Each test cites its rule; docs/rules-audit/pass-16-apd16.md lists what was tried and
what held."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Event, Roll, Unit
from campaign.services import purchases, steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_apd12_pass12 import apd, lost, page_of, supply_value
from tests.test_apd_pass5 import done, points
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    _armor_group,
    add,
    buy,
    edit,
    exchange,
    result_values,
    rg_roll,
    roll,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def rolls(players) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id).count()


def fresh(unit: Unit) -> Unit:
    return Unit.objects.get(pk=unit.pk)


def evacuated_with_two_mmc(players, fixed_dice, side="american"):
    """``side``'s wounded 8-1 at 12K5 possessing a BAZ rolls dr 5 (Evacuated) while the
    side holds two MMC, a 7-4-7 at 12L6 and a 2-4-7 at 12J2: the 7-0 joins unplaced and
    the BAZ waits for its MMC (3.1 footnote *)."""
    leader = add(players, side, "8-1 leader", "leader", "wounded", location="12K5")
    baz = add(players, side, "BAZ 45", "sw", possessor=leader.ref)
    squad = add(players, side, "7-4-7", "squad", location="12L6")
    half = add(players, side, "2-4-7", "half_squad", location="12J2")
    fixed_dice.append([5])
    assert roll(players, side, "recovery", leader).result == "Evacuated*"
    seven = Unit.objects.get(campaign_id=players.campaign_id, side=side, name="7-0 leader")
    return baz, squad, half, seven


# --------------------------------------------------------------------------- Left: 3.1 footnote


def test_3_1_footnote_done_waits_for_the_evacuated_leaders_sw_to_reach_its_mmc(
    users, modules, fixed_dice
):
    """3.1 footnote *: "Any SW Possessed by an Evacuated leader is considered
    Transferred to the MMC as well."  With two MMC the nearest is the map's; the
    American's Done at 3.1 is refused while the BAZ waits for its MMC, in words naming
    the BAZ, the 7-0 and what to do; nothing is finished."""
    players, _ = apd(users, "3.1")
    evacuated_with_two_mmc(players, fixed_dice)
    with pytest.raises(ActionRefused) as refused:
        done(players, "american")
    said = str(refused.value)
    assert "BAZ 45" in said and "7-0 leader" in said and "3.1" in said, said
    assert players.step.id == "3.1"


def test_3_1_footnote_entering_the_7_0s_location_transfers_the_sw_to_the_mmc_there(
    users, modules, fixed_dice
):
    """3.1 footnote *: the 7-0 is "in the same location as the friendly MMC nearest";
    the SW "Transferred to the MMC as well".  The owner enters the 7-0's location, 12J2:
    the 2-4-7 there takes the BAZ, the log says so, and Done at 3.1 goes through."""
    players, _ = apd(users, "3.1")
    baz, _, half, seven = evacuated_with_two_mmc(players, fixed_dice)
    edit(players, "american", seven, None, location="12J2")
    assert fresh(baz).possessor_id == half.pk
    text = Event.objects.filter(campaign_id=players.campaign_id).latest("id").text
    assert "BAZ 45 Transferred to 2-4-7" in text, text
    done(players, "american")


def test_3_1_footnote_the_7_0_goes_only_where_a_friendly_mmc_is(users, modules, fixed_dice):
    """3.1 footnote *: "replaced with a 7-0 leader in the same location as the friendly
    MMC nearest": entering for the 7-0 a location where none of the side's MMC is
    (12K5, the Evacuated leader's own) is refused in words naming the MMC locations;
    the 7-0 stays unplaced and the BAZ unpossessed."""
    players, _ = apd(users, "3.1")
    baz, _, _, seven = evacuated_with_two_mmc(players, fixed_dice)
    with pytest.raises(ActionRefused) as refused:
        edit(players, "american", seven, None, location="12K5")
    said = str(refused.value)
    assert "12J2" in said and "12L6" in said and "3.1" in said, said
    assert fresh(seven).location == ""
    assert fresh(baz).possessor_id is None


def test_3_1_footnote_naming_the_sws_possessor_refuses_a_unit_not_an_mmc_of_that_location(
    users, modules, fixed_dice
):
    """3.1 footnote *: the SW goes to "the MMC" the 7-0 is placed with.  At the step,
    the owner names the BAZ's possessor: a leader is refused (not an MMC); with the 7-0
    entered at 12L6, the 2-4-7 of 12J2 is refused (not an MMC of that location); the
    7-4-7 of 12L6 takes it, and Done goes through."""
    players, _ = apd(users, "3.1")
    baz, squad, half, seven = evacuated_with_two_mmc(players, fixed_dice)
    other = add(players, "american", "9-1 leader", "leader", location="12L6")
    with pytest.raises(ActionRefused, match="MMC"):
        edit(players, "american", baz, None, possessor=other.ref)
    assert fresh(baz).possessor_id is None
    # Two lines at 12L6 would leave the choice to him: here the 7-4-7 is the only one.
    Unit.objects.filter(pk=squad.pk).update(location="12L6")
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        unit_id=seven.ref,
        name=seven.name,
        location="12L6",
    )
    assert fresh(baz).possessor_id == squad.pk
    # A correction in the same pass is held to the same rule: none named, it is owed
    # again, and only an MMC of 12L6 may take it.
    edit(players, "american", baz, None, possessor="")
    with pytest.raises(ActionRefused, match="BAZ 45"):
        done(players, "american")
    with pytest.raises(ActionRefused, match="12L6"):
        edit(players, "american", baz, None, possessor=half.ref)
    edit(players, "american", baz, None, possessor=squad.ref)
    done(players, "american")


def test_3_1_footnote_the_7_0s_location_corrected_takes_the_sw_along(users, modules, fixed_dice):
    """3.1 footnote *, after a correction: the owner enters the 7-0 at 12J2 (the 2-4-7
    takes the BAZ), then corrects it to 12L6: the BAZ goes with the 7-0 to the 7-4-7
    there ("Transferred to the MMC" the 7-0 is placed with), not left with the 2-4-7."""
    players, _ = apd(users, "3.1")
    baz, squad, half, seven = evacuated_with_two_mmc(players, fixed_dice)
    edit(players, "american", seven, None, location="12J2")
    assert fresh(baz).possessor_id == half.pk
    edit(players, "american", fresh(seven), None, location="12L6")
    assert fresh(baz).possessor_id == squad.pk
    done(players, "american")


def test_3_1_footnote_naming_the_mmc_first_places_the_7_0_with_it(users, modules, fixed_dice):
    """3.1 footnote *, "(or at the step)": the owner names the 2-4-7 (12J2) as the BAZ's
    possessor before entering the 7-0's location: the BAZ is Transferred to it and the
    7-0 is placed with it, at 12J2; the German's Done is his own affair."""
    players, _ = apd(users, "3.1")
    baz, _, half, seven = evacuated_with_two_mmc(players, fixed_dice)
    edit(players, "american", baz, None, possessor=half.ref)
    assert fresh(baz).possessor_id == half.pk
    assert fresh(seven).location == "12J2"
    done(players, "american")


# --------------------------------------------------------------------------- Left: 2.5 leadership


def test_2_5_the_page_says_leadership_applies_normally_and_how_it_is_typed(users, modules, client):
    """2.5: "Each Encircled unit must take a 1TC (leadership applies normally)": the
    retained forces keep no reliable Locations (a unit's location is optional), so the
    leadership DRM (A10.7) is typed; the owner of an Encircled squad reads, at 2.5, the
    sentence's words and that the DRM is a leader's in the unit's Location, never his
    own."""
    players, _ = apd(users, "2.5")
    add(players, "american", "4-6-7", "squad", "encircled")
    text = page_of(client, players, "american")
    assert "leadership applies normally" in text, text[:3000]
    assert "A10.7" in text, text[:3000]


def test_3_1_footnote_with_no_mmc_the_sw_owes_nothing_and_done_goes_through(
    users, modules, fixed_dice
):
    """3.1 footnote *: the SW goes "to the MMC"; with no MMC (his only squad Captured,
    a Prisoner, is none) the rules say nothing more: the 7-0 joins, the BAZ is left
    with no possessor named, and the German's Done at 3.1 is not held for it."""
    players, _ = apd(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="12K5")
    baz = add(players, "german", "PSK", "sw", possessor=leader.ref)
    add(players, "german", "4-6-7", "squad", "captured", location="12L6")
    fixed_dice.append([4])
    assert roll(players, "german", "recovery", leader).result == "Evacuated*"
    assert fresh(baz).possessor_id is None
    done(players, "german")
    assert players.step.id == "3.2"


# --------------------------------------------------------------------------- 2.5, again


def test_2_5_a_line_of_two_encircled_squads_owes_two_1tcs(users, modules, fixed_dice):
    """2.5: "EACH Encircled unit must take a 1TC": a line of two Encircled 4-6-7 owes
    two.  After the first (passed), Done is still refused naming the 4-6-7; after the
    second, both stay and the Encircled markers go at 2.5's end."""
    players, _ = apd(users, "2.5")
    line = add(players, "american", "4-6-7", "squad", "encircled", number=2)
    fixed_dice.append([1, 1])
    assert roll(players, "american", "encirclement_1tc", line).result.startswith("Passed")
    with pytest.raises(ActionRefused, match="4-6-7"):
        done(players, "american")
    rolled = Roll.objects.filter(campaign_id=players.campaign_id).latest("seq").unit_ref
    rest = Unit.objects.exclude(ref=rolled).get(campaign_id=players.campaign_id, name="4-6-7")
    fixed_dice.append([1, 2])
    assert roll(players, "american", "encirclement_1tc", rest).result.startswith("Passed")
    done(players, "american")
    done(players, "german")
    assert sum(n[3] for n in unit_names(players, "american")) == 2
    assert all(n[2] == "ok" for n in unit_names(players, "american"))


@pytest.mark.parametrize("typed", [-4, 2])
def test_2_5_a_leadership_drm_out_of_the_range_is_refused(users, modules, typed):
    """2.5 "(leadership applies normally)": a leader's DRM runs from a 10-3's -3 to a
    6+1's +1 (A10.7); a typed -4 or +2 is refused in words and nothing is rolled."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    before = rolls(players)
    with pytest.raises(ActionRefused):
        roll(players, "american", "encirclement_1tc", squad, typed={"leadership": typed})
    assert rolls(players) == before


def test_2_5_a_6_plus_1_leaders_plus_1_fails_a_squad_that_would_pass(users, modules, fixed_dice):
    """2.5 "(leadership applies normally)" with a 6+1 in the Location: DR 5 +1 (1TC)
    +1 (A7.7) = 7 ≤ 7 passes a 4-6-7 alone; typed +1 it is 8 > 7 and fails: the squad
    is Eliminated."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    fixed_dice.append([2, 3])
    r = roll(players, "american", "encirclement_1tc", squad, typed={"leadership": 1})
    assert r.result.startswith("Failed"), (r.drms, r.final)
    assert unit_names(players, "american") == []


def test_2_5_an_encircled_hero_checks_at_his_own_morale_without_a7_7(users, modules, fixed_dice):
    """2.5: "Each Encircled unit": a Hero too; A7.7 exempts the heroic: a 1-4-9 Hero
    rolling DR 8 (+1 1TC = 9 ≤ 9) passes, no A7.7 DRM listed."""
    players, _ = apd(users, "2.5")
    hero = add(players, "american", "1-4-9 Hero", "hero", "encircled")
    fixed_dice.append([4, 4])
    r = roll(players, "american", "encirclement_1tc", hero)
    assert all("A7.7" not in d["label"] for d in r.drms), r.drms
    assert r.result.startswith("Passed"), (r.drms, r.final)


def test_2_5_2_note_the_germans_encircled_leader_fails_and_counts_his_cvp(
    users, modules, fixed_dice
):
    """2.5 "Failing the 1TC results in the unit's immediate Elimination"; 2 Note: the
    German side this time (second, 1.2): his Encircled 8-0 rolls DR 8 (+1 +1 = 10 > 8):
    Eliminated; with a leader's CVP supplied (1), the German's CVP lost go up by 1, the
    American's stay 41."""
    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.leader", "1")
    done(players, "american")
    leader = add(players, "german", "8-0 leader", "leader", "encircled")
    before = lost(players)
    fixed_dice.append([4, 4])
    assert roll(players, "german", "encirclement_1tc", leader).result.startswith("Failed")
    assert unit_names(players, "german") == []
    after = lost(players)
    assert after["german"] == (before["german"] or 0) + 1 and after["american"] == 41


def test_2_5_a_unit_that_rolled_keeps_its_result_and_rolls_no_second_1tc(
    users, modules, fixed_dice
):
    """2.5: one 1TC per Encircled unit: after his squad passed, the owner tries to
    correct its line (Encircled off, to be marked again): refused in words, the roll's
    result stands until the step ends; a second 1TC is refused, and Done is not held
    for it."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    fixed_dice.append([1, 1])
    roll(players, "american", "encirclement_1tc", squad)
    with pytest.raises(ActionRefused, match="one roll"):
        edit(players, "american", fresh(squad), "ok")
    assert fresh(squad).markers == ["encircled"]
    before = rolls(players)
    with pytest.raises(ActionRefused):
        roll(players, "american", "encirclement_1tc", fresh(squad))
    assert rolls(players) == before
    done(players, "american")


# --------------------------------------------------------------------------- 2 Note, 3 Note


def test_2_note_2_8_the_germans_vehicle_eliminated_in_a_blaze_counts_his_cvp(users, modules):
    """2 Note: "CVP are recorded normally throughout this phase"; 2.8 "Vehicles in Blaze
    locations are eliminated": the German removes his PzIV saying it was eliminated at
    2.8: with a vehicle's CVP supplied (5), the German's CVP lost go up by 5 and the
    American's PP base (his CVP lost, 41) is unchanged."""
    players, _ = apd(users, "2.8")
    supply_value(players, "cvp_per_kind.vehicle", "5")
    done(players, "american")
    pz = add(players, "german", "PzIVH", "vehicle")
    before = lost(players)
    units.remove_unit(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        unit_id=pz.ref,
        eliminated=True,
    )
    after = lost(players)
    assert after["german"] == (before["german"] or 0) + 5 and after["american"] == 41


def test_3_note_an_elimination_at_3_1_is_refused_a_correction_is_not(users, modules):
    """3 Note: "CVP are NA for units/weapons eliminated in this phase": at 3.1 (not
    3.3, tried before) the American's removal of a squad as eliminated is refused
    citing 3 Note; removed as a correction it goes, nothing counted."""
    players, _ = apd(users, "3.1")
    squad = add(players, "american", "4-6-7", "squad")
    with pytest.raises(ActionRefused, match="3 Note"):
        units.remove_unit(
            campaign_id=players.campaign_id,
            user=players.users["american"],
            unit_id=squad.ref,
            eliminated=True,
        )
    units.remove_unit(
        campaign_id=players.campaign_id, user=players.users["american"], unit_id=squad.ref
    )
    assert unit_names(players, "american") == [] and lost(players)["american"] == 41


# --------------------------------------------------------------------------- 2.1


def test_2_1_the_germans_captured_hero_is_a_prisoner_his_captured_halftrack_stays(users, modules):
    """2.1: "All Prisoners are then removed from play": the German's side (after the
    American, 1.2): his Hero marked captured leaves at 2.1's end; a halftrack he
    captured (a vehicle marked captured) is no Prisoner and stays."""
    players, _ = apd(users, "2.1")
    add(players, "german", "2-4-8 Hero", "hero", "captured")
    add(players, "german", "M3 Halftrack", "vehicle", "captured")
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "german") == [("M3 Halftrack", "vehicle", "captured", 1)]


# --------------------------------------------------------------------------- 3.1, 3.2


def test_3_1_1_2_the_german_rolls_no_recovery_before_the_americans_done(users, modules, fixed_dice):
    """1.2 "American first"; 3.1 "The owning player rolls": the German's wounded 9-1
    waits for the American's Done (refused in words, nothing rolled); then dr 3 keeps
    him, unwounded."""
    players, _ = apd(users, "3.1")
    leader = add(players, "german", "9-1 leader", "leader", "wounded")
    before = rolls(players)
    with pytest.raises(ActionRefused, match="American"):
        roll(players, "german", "recovery", leader)
    assert rolls(players) == before
    done(players, "american")
    fixed_dice.append([3])
    assert roll(players, "german", "recovery", leader).result == "Retain Unwounded"
    assert unit_names(players, "german") == [("9-1 leader", "leader", "ok", 1)]


def test_3_1_a_line_of_two_wounded_leaders_rolls_for_each(users, modules, fixed_dice):
    """3.1 "to determine EACH wounded leader's fate": a line of two wounded 8-1 rolls
    one dr per leader: after the first (dr 1, unwounded) Done waits for the other; dr 2
    keeps him too."""
    players, _ = apd(users, "3.1")
    line = add(players, "american", "8-1 leader", "leader", "wounded", number=2)
    fixed_dice.append([1])
    roll(players, "american", "recovery", line)
    with pytest.raises(ActionRefused, match="8-1 leader"):
        done(players, "american")
    rest = Unit.objects.get(campaign_id=players.campaign_id, name="8-1 leader", markers=["wounded"])
    fixed_dice.append([2])
    roll(players, "american", "recovery", rest)
    done(players, "american")
    assert sum(n[3] for n in unit_names(players, "american")) == 2


def test_3_1_footnote_a_half_squad_alone_is_the_mmc(users, modules, fixed_dice):
    """3.1 footnote *: "the friendly MMC nearest": a half-squad is an MMC; the American
    holding only a 2-4-7 at 12J2, his Evacuated 8-1's BAZ goes to it and the 7-0 with
    it, and his Done is not held."""
    players, _ = apd(users, "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded", location="12K5")
    baz = add(players, "american", "BAZ 45", "sw", possessor=leader.ref)
    half = add(players, "american", "2-4-7", "half_squad", location="12J2")
    fixed_dice.append([6])
    roll(players, "american", "recovery", leader)
    assert fresh(baz).possessor_id == half.pk
    seven = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    assert seven.location == "12J2"
    done(players, "american")


def test_3_2_the_germans_hero_hardens_his_squad_which_takes_the_heros_sw(users, modules):
    """3.2 for the German (second, 1.2): his wounded Hero ("whether wounded or
    unwounded") given up Battle Hardens his 4-6-7, which takes the Hero's PSK ("Any SW
    Possessed by an eliminated Hero is considered Transferred to the Battle Hardened
    MMC")."""
    players, _ = apd(users, "3.2")
    done(players, "american")
    hero = add(players, "german", "2-4-8 Hero", "hero", "wounded")
    psk = add(players, "german", "PSK", "sw", possessor=hero.ref)
    squad = add(players, "german", "4-6-7", "squad")
    exchange(players, "german", hero, squad)
    assert fresh(squad).markers == ["battle_hardened"]
    assert fresh(psk).possessor_id == squad.pk
    assert "2-4-8 Hero" not in [n[0] for n in unit_names(players, "german")]


def test_3_2_a_captured_squad_is_not_hardened_and_the_hero_then_stays(users, modules):
    """3.2 "any one MMC"; EXC "If unable to Battle Harden any MMC, the Hero remains
    onboard unwounded": the American's only squad is Captured: hardening it is refused,
    and at Done his wounded Hero stays, unwounded."""
    players, _ = apd(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero", "wounded")
    squad = add(players, "american", "6-6-6", "squad", "captured")
    with pytest.raises(ActionRefused):
        exchange(players, "american", hero, squad)
    done(players, "american")
    names = unit_names(players, "american")
    assert ("1-4-9 Hero", "hero", "ok", 1) in names, names


# --------------------------------------------------------------------------- 3.3, 3.31


def test_3_3_3_31_the_germans_ma_ne_stays_malfunctioned_and_rolls_once(users, modules, fixed_dice):
    """3.3 Repair MA/Gun "5" NE; 3.31 "Each weapon/Vehicle may make only one Repair
    attempt": the German's PzIV MA rolls dr 5: NE, still malfunctioned; a second
    attempt is refused citing 3.31."""
    players, _ = apd(users, "3.3")
    done(players, "american")
    pz = add(players, "german", "PzIVH", "vehicle")
    pz = units.add_weapon(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        unit_id=pz.ref,
        kind="ma",
        name="75L",
        markers=["malfunctioned"],
    )
    ma = pz.weapons[0]["ref"]
    fixed_dice.append([5])
    assert roll(players, "german", "repair_ma_gun", pz, weapon=ma).result == "NE"
    assert fresh(pz).weapons[0]["markers"] == ["malfunctioned"]
    with pytest.raises(ActionRefused, match="3.31"):
        roll(players, "german", "repair_ma_gun", fresh(pz), weapon=ma)


def test_3_3_a_sw_in_good_order_makes_no_repair_attempt(users, modules):
    """3.3 "a dr per repair attempt for MALFUNCTIONED ... weapons": the American's
    possessed BAZ in good order is refused a Repair dr in words; nothing is rolled."""
    players, _ = apd(users, "3.3")
    squad = add(players, "american", "6-6-6", "squad")
    baz = add(players, "american", "BAZ 45", "sw", possessor=squad.ref)
    before = rolls(players)
    with pytest.raises(ActionRefused, match="3.3"):
        roll(players, "american", "repair_sw", baz)
    assert rolls(players) == before


def test_3_3_3_note_the_germans_sw_eliminated_by_a_6_counts_no_cvp(users, modules, fixed_dice):
    """3.3 Repair SW "6" Eliminated; 3 Note: the German's malfunctioned MMG possessed by
    his squad rolls dr 6: it leaves; the German's CVP lost do not change."""
    players, _ = apd(users, "3.3")
    done(players, "american")
    squad = add(players, "german", "4-6-7", "squad")
    mmg = add(players, "german", "MMG", "sw", "malfunctioned", possessor=squad.ref)
    before = lost(players)
    fixed_dice.append([6])
    roll(players, "german", "repair_sw", mmg)
    assert "MMG" not in [n[0] for n in unit_names(players, "german")]
    assert lost(players) == before


# --------------------------------------------------------------------------- 2.9-2.92, CG VC


def test_2_92_the_german_receives_no_purchase_points(users, modules):
    """2.92: "The AMERICAN player adds ... to determine how many Purchase Points HE
    receives": at 3.4 the American holds 33 PP; the German's seat holds none."""
    players, _ = apd(users, "3.4")
    assert points(players, "american") == 33
    assert not points(players, "german")


def test_cg_vc_150_vp_reached_at_the_middays_end_across_two_scenarios(users, modules):
    """CG VC: "the Americans win if their VP TOTAL is ≥ 150 at ANY CG-Scenario end":
    100 VP at the Morning, 50 at the Midday (required 160, supplied), 104 CVP amassed in
    all (< 105): the CG ends at the Midday with the American's win."""
    players, module = apd(users, "3.4", vp=100, cvp=60)
    supply_value(players, "dates.dec6midday.vp_required", "160")
    players.until("results")
    players.results(**result_values(module, vp_american=50, cvp_lost_american=44))
    for _ in range(12):
        if Campaign.objects.get(pk=players.campaign_id).ended_at is not None:
            break
        players.finish()
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is not None and "American wins" in c.outcome, c.outcome


def test_cg_vc_105_cvp_amassed_over_two_scenarios_denies_the_150(users, modules):
    """CG VC "Provided the Germans have not amassed ≥ 105 CVP": amassed over the CG:
    60 + 45 = 105 CVP with 150 VP at the Midday's end: no American CG win there; the CG
    goes on to the Afternoon."""
    players, module = apd(users, "3.4", vp=100, cvp=60)
    supply_value(players, "dates.dec6midday.vp_required", "160")
    players.until("results")
    players.results(**result_values(module, vp_american=50, cvp_lost_american=45))
    players.until_step("3.1")
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is None


# --------------------------------------------------------------------------- 3.4-3.7


def test_3_4_a_purchase_cancelled_frees_its_pp_and_its_place_under_the_maximum(users, modules):
    """3.4 "the scenario maximum allowed for each group may not be exceeded", after an
    undo: A1 at most 1 a scenario; bought, then cancelled (before its dr): its 10 PP are
    back and A1 may be bought again (20 PP held, 10 each)."""
    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], date_max=1)
    held = points(players, "american")
    a1 = buy(players, "american", "A1")
    with pytest.raises(ActionRefused, match="3.4"):
        buy(players, "american", "A1")
    purchases.cancel_purchase(
        campaign_id=players.campaign_id, user=players.users["american"], purchase_id=a1.ref
    )
    assert points(players, "american") == held
    buy(players, "american", "A1")
    assert points(players, "american") == held - 10


def test_3_4_the_armor_type_dr_skipped_is_made_by_done_once(users, modules, fixed_dice):
    """3.4 "For each Armor Group purchased, make a dr to determine armor type":
    skipped, the American's Done makes it (one dr, 2: M4) rather than leave A1 without
    its type; none is made twice."""
    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    buy(players, "american", "A1")
    fixed_dice.append([2])
    done(players, "american")
    made = list(Roll.objects.order_by("seq").values_list("table_id", "result"))
    assert made == [("american_reinforcement", "M4")], made


def test_3_5_the_germans_row_dr_is_refused_at_3_4(users, modules):
    """3.5 "The German player NOW secretly makes three Reinforcement drs": at 3.4, the
    step before, his Row A dr is refused in words and nothing is rolled."""
    players, _ = apd(users, "3.4")
    before = rolls(players)
    with pytest.raises(ActionRefused):
        roll(players, "german", "german_reinforcement_row_a", item="Row A")
    assert rolls(players) == before


def test_3_6_3_7_the_leader_dr_is_once_per_group_and_the_m4_dr_waits_for_3_7(
    users, modules, fixed_dice
):
    """3.6 "make one secret DR" per group; 3.7 "For each M4 Armor Reinforcement Group,
    make a secret DR": at 3.6 the American's A1 (M4) rolls its leader DR (DR 6: 8-1),
    and no M4 Model DR is made there; at 3.7 the M4 Model DR is made once."""
    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append([3, 3])
    rg_roll(players, "american", a1)
    tables = list(Roll.objects.order_by("seq").values_list("table_id", flat=True))
    assert tables.count("leader") == 1 and "m4_model" not in tables, tables
    assert Roll.objects.get(table_id="leader").result == "American Armor: 8-1"
    players.until_step("3.7")
    fixed_dice.extend([[3, 4], [1, 1], [1, 1], [1, 1]])
    rg_roll(players, "american", a1)
    tables = list(Roll.objects.order_by("seq").values_list("table_id", flat=True))
    assert tables.count("m4_model") == 1, tables
    names = unit_names(players, "american")
    tanks = [n for n in names if n[1] == "vehicle"]
    assert sum(n[3] for n in tanks) == 3, names
    assert [n for n in names if n[1] == "leader"] == [("8-1 leader (A1)", "leader", "ok", 1)], names


def test_3_3_1_2_the_germans_repair_waits_for_the_americans_done(users, modules, fixed_dice):
    """1.2 "American first" at 3.3: the German's Repair dr for his malfunctioned MMG
    before the American's Done is refused naming the American; after it, dr 1
    repairs it."""
    players, _ = apd(users, "3.3")
    squad = add(players, "german", "4-6-7", "squad")
    mmg = add(players, "german", "MMG", "sw", "malfunctioned", possessor=squad.ref)
    with pytest.raises(ActionRefused, match="American"):
        roll(players, "german", "repair_sw", mmg)
    done(players, "american")
    fixed_dice.append([1])
    assert roll(players, "german", "repair_sw", mmg).result == "Repaired"
    assert fresh(mmg).markers == []


# --------------------------------------------------------------------------- more readings


def test_2_5_2_note_one_squad_of_a_line_fails_and_counts_once(users, modules, fixed_dice):
    """2.5 "Failing the 1TC results in the unit's immediate Elimination"; 2 Note: of a
    line of two Encircled 4-6-7 the first fails (DR 12): one squad leaves, the line
    keeps the other, and the American's CVP lost go up by one squad's CVP (2), not
    two."""
    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.squad", "2")
    line = add(players, "american", "4-6-7", "squad", "encircled", number=2)
    fixed_dice.append([6, 6])
    assert roll(players, "american", "encirclement_1tc", line).result.startswith("Failed")
    assert [n[3] for n in unit_names(players, "american")] == [1]
    assert lost(players)["american"] == 43


def test_2_9_2_92_a_result_amended_in_the_clean_up_gives_the_winner_and_pp(users, modules):
    """2.9 "If the VP total is ≥ the required CG scenario total ... otherwise the German
    wins", after a correction: at 2.8 the German proposes the American's VP as 50, not
    63, and the American accepts: 50 < 55, the German wins the Morning and moves
    first; 2.92: 55 - 50 + 41 = 46 PP."""
    players, module = apd(users, "2.8")
    steps.propose_result_amendment(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        values=result_values(module, vp_american=50, cvp_lost_american=41),
        reason="13 VP were counted twice",
    )
    steps.answer_result_amendment(
        campaign_id=players.campaign_id, user=players.users["american"], accept=True
    )
    players.until_step("3.4")
    assert points(players, "american") == 46
    texts = " ".join(
        Event.objects.filter(campaign_id=players.campaign_id).values_list("text", flat=True)
    )
    assert (
        "German wins the December 6 Morning scenario: VP scored by the American in the "
        "scenario (CG total) 50 < 55"
    ) in texts, texts[-2000:]
    assert "German moves first in the next scenario" in texts


def test_3_2_a_hero_given_up_once_cannot_be_given_again(users, modules):
    """3.2 "for EACH such eliminated Hero ... any ONE MMC": the American's Hero hardens
    his 6-6-6; giving the same Hero again for the 3-3-7 is refused and it stays as it
    was."""
    players, _ = apd(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    first = add(players, "american", "6-6-6", "squad")
    second = add(players, "american", "3-3-7", "half_squad")
    exchange(players, "american", hero, first)
    with pytest.raises(ActionRefused):
        exchange(players, "american", hero, second)
    assert fresh(second).markers == []


def test_3_1_footnote_what_the_owner_reads_has_no_schema_words(users, modules, fixed_dice, client):
    """3.1 footnote *: after the Evacuation, the American's page says where the 7-0 is
    to be placed and cites the rule, in ASL words: no schema word (nearest_mmc,
    to_place) shows."""
    players, _ = apd(users, "3.1")
    evacuated_with_two_mmc(players, fixed_dice)
    text = page_of(client, players, "american")
    assert "friendly MMC nearest (in hexes) to 12K5" in text, text[-3000:]
    assert "nearest_mmc" not in text and "to_place" not in text


def test_2_5_an_encircled_sw_takes_no_1tc_and_loses_its_marker(users, modules):
    """2.5 "Each Encircled unit must take a 1TC ... All Encircled markers are then
    removed": a SW is no unit that takes a TC: the American's BAZ marked Encircled is
    refused a 1TC, Done is not held for it, and its Encircled marker goes at 2.5's
    end."""
    players, _ = apd(users, "2.5")
    baz = add(players, "american", "BAZ 45", "sw", "encircled")
    with pytest.raises(ActionRefused):
        roll(players, "american", "encirclement_1tc", baz)
    done(players, "american")
    done(players, "german")
    assert fresh(baz).markers == []


def test_3_31_an_immobilized_vehicle_may_repair_its_ma(users, modules, fixed_dice):
    """3.31 "vehicles must not be ABANDONED": an immobilized (not Abandoned) Sherman's
    malfunctioned MA makes its Repair dr: 1 repairs it; the vehicle stays immobilized."""
    players, _ = apd(users, "3.3")
    tank, (ma,) = add_vehicle(players, "american", "M4A3(75)W", ("ma", ["malfunctioned"]))
    edit(players, "american", tank, "immobilized")
    fixed_dice.append([1])
    assert roll(players, "american", "repair_ma_gun", fresh(tank), weapon=ma).result == "Repaired"
    after = fresh(tank)
    assert after.markers == ["immobilized"] and after.weapons[0]["markers"] == []


@pytest.mark.parametrize("dice", [[4, 5], [6, 6]], ids=["9", "12"])
def test_3_6_american_armor_rows_9_and_12_give_no_leader(users, modules, fixed_dice, dice):
    """3.6 Leader Table, American Armor "9-10 -" and "12 -": the American's A1 (M4)
    rolls DR 9 or 12 at 3.6: no leader; after 3.7 the group holds its three tanks and
    no leader line."""
    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append(dice)
    rg_roll(players, "american", a1)
    assert Roll.objects.get(table_id="leader").result == "American Armor: No leader"
    players.until_step("3.7")
    fixed_dice.extend([[3, 4], [1, 1], [1, 1], [1, 1]])
    rg_roll(players, "american", a1)
    assert unit_names(players, "american", kind="leader") == []
