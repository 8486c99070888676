"""Issue 44, pass 19, A Pleasant Diversion (seed 002): the Left items of pass 18 (the
7-0 an Evacuated leader's dr placed from the 3.1 page, 3.1 footnote *; the correction
form of a line the roll took away keeping its kind; a leader's own 1TC while another
leader in his Location still owes, 2.5/A10.7), then sentences drawn at random from the
seed's Clean-Up and Setup text (random.Random(19)) and the ledger's weakest claims,
each read through the pages (tests/page_play.py) on a path other passes used little.
Each test cites its rule; docs/rules-audit/pass-19-apd19.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests import test_rule_mechanisms
from tests.page_play import Answer, Seat
from tests.test_apd12_pass12 import apd
from tests.test_apd17_pass17 import midday
from tests.test_apd18_pass18 import ROLL_1TC, fresh, rolls, seats
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

RECOVERY = "Roll dr: Recovery Table"


def forge(seat: Seat, url: str, **data: str) -> Answer:
    """A post the page does not offer this seat, sent as htmx would (``url`` relative
    to the campaign's); the page is read again.  (tests/page_play.py presses only the
    buttons a page shows.)"""
    answer = seat.client.post(seat.url + url, data, HTTP_HX_REQUEST="true")
    result = Answer(answer.status_code, answer.content.decode())
    seat.open()
    return result


# ------------------------------------------------------------ Left of pass 18: 3.1 footnote *


def test_3_1_footnote_the_7_0_is_placed_from_the_step_page_with_a_select_of_mmc_locations(
    users, modules, fixed_dice
):
    """3.1 footnote *: "immediately replaced with a 7-0 leader in the same location as
    the friendly MMC nearest (in hexes) ... The owning player may choose which location
    in the event of a tie".  The Midday, the American's 3.1 page: his wounded 9-1 at
    14A1 rolls dr 6 (Evacuated).  The page now offers "Place the 7-0 leader" with a
    select of his MMC Locations only (not the German's, not his Captured squad's), the
    German's page offers nothing of it; a forged Location with none of his MMC is
    refused in words and nothing changes; the offered one places him."""
    players, _ = midday(users, "3.1")
    leader = add(players, "american", "9-1 leader", "leader", "wounded", location="14A1")
    add(players, "american", "6-6-6", "squad", location="14B2")
    add(players, "american", "4-6-6", "half_squad", location="15C3")
    add(players, "american", "6-6-6", "squad", "captured", location="16D4")
    add(players, "german", "4-6-7", "squad", location="14A2")
    american, german = seats(players)
    fixed_dice.append([6])
    assert american.press(RECOVERY, unit=leader.ref).status == 200
    seven = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    assert seven.location == ""
    offered = [v for v, _ in american.options("Place the 7-0 leader", "location")]
    assert offered == ["14B2", "15C3"], offered
    german.open()
    assert not [b for b in german.buttons() if b.startswith("Place")]
    answer = american.press("Place the 7-0 leader", location="16D4")
    assert answer.refused and "none of your MMC is at 16D4" in answer.text, answer.text[:300]
    assert fresh(seven).location == ""
    assert american.press("Place the 7-0 leader", location="15C3").status == 200
    assert fresh(seven).location == "15C3"
    assert not [b for b in american.buttons() if b.startswith("Place")]


# ------------------------------------------------ Left of pass 18: the correction form's kind


def test_3_1_after_an_evacuated_dr_the_correction_form_keeps_the_leaders_kind(
    users, modules, fixed_dice
):
    """3.1 Recovery Table "4-6 Evacuated*": the 8-1's line is gone.  His owner's page
    offers "Correct what the Recovery Table roll ... wrote"; its kind select reads
    "leader" for the line that has gone (on main it fell back to "other").  The German's
    side, the Morning's sequence."""
    players, _ = apd(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="20A1")
    _, german = seats(players)
    fixed_dice.append([4])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    assert not Unit.objects.filter(pk=leader.pk).exists()
    form = german.form_of("Propose the correction")
    kind = dict(form.fields)["kind"]
    assert kind == "leader", kind


# ------------------------------------------------ Left of pass 18: 2.5, two leaders who owe


def test_2_5_a10_7_a_leaders_1tc_while_another_leader_there_owes_is_owed_typed_never_zero(
    users, modules, fixed_dice
):
    """2.5 "(leadership applies normally)": two Encircled leaders in one Location, each
    owing his 1TC.  Whether the one leads the other's check before both have rolled is
    not in the CG text (A10.7 is the rulebook's): the module declares it missing, the
    page says the DRM is to be typed and why; a press with it blank is refused in words
    (on main it rolled with no DRM, i.e. 0); typed, it rolls.  The German at the
    Midday."""
    players, module = midday(users, "2.5")
    assert any("A10.7" in m.rule for m in module.missing)
    done(players, "american")
    one = add(players, "german", "9-2 leader", "leader", "encircled", location="22C4")
    add(players, "german", "8-0 leader", "leader", "encircled", location="22C4")
    _, german = seats(players)
    offered = dict(german.options(ROLL_1TC, "unit"))
    assert "leadership to type" in offered[one.ref], offered
    before = rolls(players)
    answer = german.press(ROLL_1TC, unit=one.ref)
    assert answer.refused and "A10.7" in answer.text, answer.text[:300]
    assert "not made without it" in answer.text
    assert rolls(players) == before
    fixed_dice.append([1, 1])
    assert german.press(ROLL_1TC, **{"unit": one.ref, "typed.leadership": "0"}).status == 200
    assert rolls(players) == before + 1


# ------------------------------------------------------------ Part 2: the draw, in play


def test_3_1_footnote_the_evacuated_leaders_sw_goes_to_the_mmc_the_page_placed_him_with(
    users, modules, fixed_dice
):
    """3.1 footnote *: "Any SW Possessed by an Evacuated leader is considered
    Transferred to the MMC as well" (drawn, D20), the German's side at the Midday: his
    wounded 8-0 at 21A1 possesses an LMG; dr 5, Evacuated; his MMC are at 21B1 and
    21C1.  Done is refused while the LMG waits; the 7-0 placed at 21C1 through the 3.1
    page's select, the LMG is the 4-6-7's there, and Done is offered."""
    from tests.test_roster_possession import held, possess

    players, _ = midday(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "8-0 leader", "leader", "wounded", location="21A1")
    lmg = possess(players, "german", add(players, "german", "LMG", "sw"), leader)
    add(players, "german", "5-4-8", "squad", location="21B1")
    add(players, "german", "4-6-7", "squad", location="21C1")
    _, german = seats(players)
    fixed_dice.append([5])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    assert "Done with 3.1" not in german.buttons()
    assert "LMG" in german.text and "Transferred to the MMC" in german.text
    assert german.press("Place the 7-0 leader", location="21C1").status == 200
    assert held(lmg) == ("4-6-7", [])
    assert "Done with 3.1" in german.buttons()


def test_3_2_exc_a_wounded_hero_with_no_mmc_stays_unwounded_through_the_german_page(users, modules):
    """3.2 EXC "If unable to Battle Harden any MMC, the Hero remains onboard unwounded
    instead" (drawn, D21), the German's side at the Morning with only a vehicle and a
    wounded Hero: his page says the Hero stays, with no select to press; after his Done
    the Hero is on his forces, unwounded, and the 3.2 "Any SW Possessed by an
    eliminated Hero" does not apply: his Psk stays his."""
    from tests.test_roster_possession import held, possess

    players, _ = apd(users, "3.2")
    done(players, "american")
    hero = add(players, "german", "1-4-9 hero", "hero", "wounded", location="20A1")
    psk = possess(players, "german", add(players, "german", "PSK", "sw"), hero)
    add(players, "german", "PzIVH", "vehicle", location="20A2")
    _, german = seats(players)
    assert "each of your Heroes stays, in good order (3.2)" in german.text
    assert not [b for b in german.buttons() if b.startswith("Mark")]
    assert german.press("Done with 3.2").status == 200
    assert fresh(hero).markers == []
    assert held(psk) == ("1-4-9 hero", [])


def test_3_2_the_heros_sw_goes_to_the_mmc_battle_hardened_through_the_page(users, modules):
    """3.2 "Any SW Possessed by an eliminated Hero is considered Transferred to the
    Battle Hardened MMC" (drawn, D22), the German's side at the Midday: his Hero
    possesses an MMG; "Mark battle hardened" pressed for his 4-6-7: the Hero leaves and
    the MMG is the 4-6-7's.  The American's page offers him nothing of it."""
    from tests.test_roster_possession import held, possess

    players, _ = midday(users, "3.2")
    done(players, "american")
    hero = add(players, "german", "2-4-8 hero", "hero", location="22A1")
    mmg = possess(players, "german", add(players, "german", "MMG", "sw"), hero)
    squad = add(players, "german", "4-6-7", "squad", location="22B1")
    american, german = seats(players)
    assert not [b for b in american.buttons() if b.startswith("Mark")]
    assert german.press("Mark battle hardened", give=hero.ref, mark=squad.ref).status == 200
    assert not Unit.objects.filter(pk=hero.pk).exists()
    assert held(mmg) == ("4-6-7", [])


def test_3_3_3_31_abandoned_vehicles_and_unpossessed_guns_are_not_offered_and_forged_refused(
    users, modules
):
    """3.3 "Players may now roll on the Repair Table, making a dr per repair attempt for
    malfunctioned, non-captured weapons" and 3.31 "In all cases, vehicles must not be
    Abandoned and Guns/SW must be Possessed to attempt Repair" (drawn, D23-D24), the
    American's side at the Morning with only vehicles and a Gun: his page offers the
    M4A3(75)W's MA only, not the Abandoned M4A3(76)W's nor the unpossessed 57L AT; each
    forged is refused in words, nothing rolled.  Repair is offered, not owed: Done is
    there."""
    from tests.purchase_helpers import add_vehicle

    players, _ = apd(users, "3.3", vp=100, cvp=0)
    good, (ma,) = add_vehicle(players, "american", "M4A3(75)W", ("ma", ["malfunctioned"]))
    gone, (ma2,) = add_vehicle(
        players, "american", "M4A3(76)W", ("ma", ["malfunctioned"]), markers=["abandoned"]
    )
    gun = add(players, "american", "57L AT", "gun", "malfunctioned", markers=["unpossessed"])
    american, _ = seats(players)
    words = "Roll dr: Repair Table: Repair MA/Gun"
    offered = [v for v, _ in american.options(words, "unit")]
    assert offered == [f"{good.ref}.{ma}"], offered
    assert "Done with 3.3" in american.buttons()
    before = rolls(players)
    for wrong in (f"{gone.ref}.{ma2}", gun.ref):
        answer = american.press(words, unit=wrong)
        assert answer.refused and answer.text, (wrong, answer.status)
    assert rolls(players) == before


def test_3_4_no_group_past_the_points_or_the_scenario_maximum_through_the_page(
    users, modules, fixed_dice
):
    """3.4 "He may purchase as many of each group as he has Purchase Points available,
    but the scenario maximum allowed for each group may not be exceeded" (drawn, D25),
    the American's page at the Morning's 3.4 with 20 PP and A1 (10 PP, scenario maximum
    1): A1 bought once, its Buy button goes; a second posted anyway is refused in words
    citing 3.4, his PP unchanged; the German's page offers no Buy."""
    from campaign.models import Seat as SeatRow
    from tests.test_apd18_pass18 import at_of
    from tests.test_apd18_pass18 import forge as forge_act
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group

    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], date_max=1)
    american, german = seats(players)
    buy = next(b for b in american.buttons() if b.startswith("Buy A1"))
    assert american.press(buy).status == 200
    left = SeatRow.objects.get(campaign_id=players.campaign_id, side="american").points
    assert not [b for b in american.buttons() if b.startswith("Buy A1")], american.buttons()
    answer = forge_act(american, "buy", at=at_of(american), group="A1")
    assert answer.refused and "3.4" in answer.text, answer.text[:300]
    assert SeatRow.objects.get(campaign_id=players.campaign_id, side="american").points == left
    assert not [b for b in german.buttons() if b.startswith("Buy")]


def test_3_8_each_sides_3_8_page_says_where_its_own_reinforcements_enter(
    users, modules, fixed_dice
):
    """3.8 "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    Board Edge" (drawn, D30), the Morning's sequence: the American's A1 bought at 3.4,
    the German's RA1 and RB1 from his Row drs.  At 3.8 each side's step page names where
    each of its own RGs enters, as its RG Purchase Record holds it (on main the step
    page said only the rule, the entry being on the roster page and the sheet); neither
    names the other's."""
    from tests.test_rule_mechanisms import _armor_group, buy, roll, supply_german

    players, _ = apd(users, "3.4")
    supply_german(players)
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    buy(players, "american", "A1")
    players.until_step("3.5")
    fixed_dice.extend([[1], [1], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.until_step("3.8")
    american, german = seats(players)
    step = american.text.split("3.8 Entry", 1)[1].split("Amend the scenario result")[0]
    assert "A1 Armor Group: along the American Friendly Board Edge, on/after Turn 1 (3.8)" in step
    assert "RA1" not in step
    step = german.text.split("3.8 Entry", 1)[1].split("Amend the scenario result")[0]
    assert "RA1 PzGr Platoon I: along the German Friendly Board Edge, on/after Turn 1" in step
    assert "RB1 PzIV Section: along the German Friendly Board Edge" in step
    assert "A1 Armor" not in step


def test_2_9_2_91_2_92_points_at_zero_the_figures_and_their_sources_on_the_pages(users, modules):
    """2.9 "The American player totals his amassed VP", 2.91 "This number is subtracted
    from the VP required to win the previous scenario", 2.92 "Negative Purchase Points
    are ignored" and 2.9 "The winning side moves first" (drawn, D11-D16), the Morning
    with 100 VP and no CVP suffered: 55 − 100 = −45, −45 + 0 = −45, ignored: 0 PP.  The
    American's page gives each figure with its source and his 0 PP at 3.4; the German's
    log keeps the American's figures secret; both read that the American moves
    first."""
    players, _ = apd(users, "3.4", vp=100, cvp=0)
    american, german = seats(players)
    assert (
        "American PP: VP differential 55 required − 100 amassed = -45 · -45 + 0 CVP "
        "suffered = -45 · negative purchase points are ignored: 0 · total 0"
    ) in american.text
    assert "You have 0 PP" in american.text
    assert (
        "American wins the December 6 Morning scenario: VP scored by the American in the "
        "scenario (CG total) 100 ≥ 55 (2.9; 4.0)"
    ) in american.text
    assert "55 required − 100" not in german.text
    for seat in (american, german):
        assert "American moves first in the next scenario" in seat.text


def test_2_9_the_scenario_cgv_requirement_wins_the_midday_below_the_vp_on_both_pages(
    users, modules
):
    """2.9 "If the VP total is ≥ the required CG scenario total and/or the American
    achieved the scenario-specific CGV Building VC requirements then the American is the
    winner of the current scenario" (drawn, D12), the Midday, the late date: 63 + 10 =
    73 < 120 VP, but the requirement achieved: both pages read that the American wins
    it, the requirement named as the reason, and that he moves first."""
    players, _ = midday(users, "3.1", vp=10, cgv_scenario_american=True)
    american, german = seats(players)
    for seat in (american, german):
        assert "American wins the December 6 Midday scenario" in seat.text, seat.text[-3000:]
        won = seat.text.split("American wins the December 6 Midday scenario", 1)[1][:300]
        assert "CGV Building requirement" in won, won
        assert "German wins the December 6 Midday" not in seat.text


def test_2_5_an_encircled_immobile_vehicle_loses_its_marker_and_takes_no_1tc(users, modules):
    """2.5 "Each Encircled unit must take a 1TC" and "All Encircled markers are then
    removed" (drawn, D07), the German's side at the Morning holding only vehicles: his
    Encircled, immobilized PzIVH is offered no 1TC (a vehicle takes none; its
    Vulnerable PRC's fate, the EXC, is the map's); his page names the marker removed at
    Done, nothing owed; after both Dones it is gone, the immobilized marker kept."""
    players, _ = apd(users, "2.5")
    done(players, "american")
    tank = add(players, "german", "PzIVH", "vehicle", "encircled", markers=["immobilized"])
    _, german = seats(players)
    assert not [b for b in german.buttons() if b.startswith("Roll")]
    assert "PzIVH loses its Encircled marker (2.5)" in german.text
    assert german.press("Done with 2.5").status == 200
    assert fresh(tank).markers == ["immobilized"]


def test_3_5_three_row_drs_each_once_the_germans_and_done_waits_for_them(
    users, modules, fixed_dice
):
    """3.5 "The German player now secretly makes three Reinforcement drs (one each on
    Rows A-C)" (drawn, D26), the Morning, the German's page: one Roll button per Row;
    Row A rolled, its button goes and a forged second is refused citing 3.5, nothing
    rolled; no Done until all three are made; the American's page shows none of his
    results."""
    from tests.test_apd18_pass18 import at_of
    from tests.test_apd18_pass18 import forge as forge_act
    from tests.test_rule_mechanisms import supply_german

    players, _ = apd(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    american, german = seats(players)
    rows = [f"Roll dr: German Reinforcement Table, Row {r}" for r in "ABC"]
    assert all(r in german.buttons() for r in rows)
    assert "Done with 3.5" not in german.buttons()
    fixed_dice.append([2])
    assert german.press(rows[0]).status == 200
    assert rows[0] not in german.buttons()
    before = rolls(players)
    answer = forge_act(german, "roll", at=at_of(german), table="german_reinforcement_row_a")
    assert answer.refused and "3.5" in answer.text, answer.text[:300]
    assert rolls(players) == before
    assert "Done with 3.5" not in german.buttons()
    fixed_dice.extend([[5], [1]])
    assert german.press(rows[1]).status == 200
    assert german.press(rows[2]).status == 200
    assert "Done with 3.5" in german.buttons()
    american.open()
    assert "PzGr Platoon I" not in american.text.split("Campaign log")[0].split("3.5 German")[1]


# ------------------------------------------------ Part 2: the ledger's weakest claims


ABANDON = "Its Vulnerable PRC are Eliminated: mark it Abandoned (2.5 EXC)"


def test_2_5_exc_an_encircled_immobile_vehicle_is_marked_abandoned_from_the_retained_forces(
    users, modules
):
    """2.5 EXC "the Encircled Vulnerable PRC of an Immobile vehicle are Eliminated,
    leaving the vehicle Abandoned" (ledger: recorded, challenged): the retained forces
    hold Encircled and immobilized, so at 2.5 the American's roster page offers, on his
    Encircled immobilized M4A3(75)W only (not his Encircled mobile M4A3(76)W), one
    press that marks it Abandoned, its Vulnerable PRC being his to state (whether a
    vehicle has any is the map's); the German's page offers nothing on it.  On main
    he edited the markers by hand.  Done at 2.5 then takes its Encircled marker."""
    players, _ = apd(users, "2.5")
    tank = add(players, "american", "M4A3(75)W", "vehicle", "encircled", markers=["immobilized"])
    add(players, "american", "M4A3(76)W", "vehicle", "encircled")
    american = Seat(players.users["american"], players.campaign_id, "roster/")
    german = Seat(players.users["german"], players.campaign_id, "roster/")
    american.open()
    german.open()
    offered = [b for b in american.buttons() if b.startswith(ABANDON)]
    assert offered == [f"{ABANDON} (M4A3(75)W)"], american.buttons()
    assert not [b for b in german.buttons() if b.startswith(ABANDON)]
    assert american.press(f"{ABANDON} (M4A3(75)W)").status == 200
    assert "abandoned" in fresh(tank).markers
    done(players, "american")
    done(players, "german")
    assert sorted(fresh(tank).markers) == ["abandoned", "immobilized"], fresh(tank).markers
