"""Issue 44, pass 21, A Pleasant Diversion (seed 002): the Left items of pass 20 (the
last purchase's unspent PP, the header during the Midday's Clean-Up), the ledger's
``map``/``recorded`` claims challenged against the facts the app holds, what carries to
the next CG date, and 20 sentences drawn at random (random.Random(21)), each read
through the pages (tests/page_play.py) on both sides.  Each test cites its rule;
docs/rules-audit/pass-21-apd21.md lists what was tried."""

from __future__ import annotations

import pytest

from tests import test_rule_mechanisms
from tests.page_play import Seat
from tests.test_apd12_pass12 import apd
from tests.test_apd17_pass17 import midday
from tests.test_apd18_pass18 import seats
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def header(seat: Seat) -> str:
    """The page's header card as text (the campaign's position and who moves first)."""
    text = seat.text
    return text.split("Scenario sheet", 1)[1][:400] if "Scenario sheet" in text else text[:1500]


def reminder(seat: Seat, rule: str, words: str = "") -> str:
    """The reminder line of ``rule`` on the step card ("... (2.6): your ...") that reads
    ``words``, or ""."""
    text = seat.text
    mark = f"({rule}): your "
    at = text.find(mark)
    while at != -1:
        line = text[text.rfind(". ", 0, at) + 2 : text.index(".", at + len(mark)) + 1]
        if words in line:
            return line
        at = text.find(mark, at + 1)
    return ""


# ------------------------------------------------------------ Left of pass 20: 3.4 at the Midday


def test_3_4_the_last_purchase_says_unspent_pp_are_lost_with_the_cgs_end(users, modules):
    """3.4 "Unused Purchase Points may be retained for future use" with CG DATES (the
    Afternoon the last): the Midday's 3.4 sets up the Afternoon, the CG's last scenario,
    after which no purchase comes.  The American's 3.4 page says that PP left unspent
    there are lost with the CG's end, citing the dates' rule and 3.4; the Morning's 3.4
    (a purchase follows at the Midday) does not.  On main the step said only "unused PP
    are kept" (pass 20's Left).  Since pass 25 it is said once, where Done is pressed
    (here, the chart missing, beside "Go on without it" and in its confirmation)."""
    from html import unescape

    players, _ = apd(users, "3.4")
    morning, _ = seats(players)
    assert "lost with the CG's end" not in unescape(morning.html)
    players, _ = midday(users, "3.4")
    american, german = seats(players)
    text = unescape(american.html)
    assert "lost with the CG's end" in text, american.text[-2500:]
    line = (
        text.split("lost with the CG's end", 1)[0][-300:]
        + text.split("lost with the CG's end", 1)[1][:140]
    )
    assert "December 6 Afternoon" in line and "3.4" in line and "CG Dates" in line, line
    assert "lost with the CG's end" in american.text  # beside "Go on without it"
    assert "unused PP are kept." not in american.text
    assert "lost with the CG's end" not in unescape(german.html)


# ------------------------------------------------------------ Left of pass 20: the header


def test_2_9_the_header_in_the_middays_clean_up_does_not_read_as_the_next_scenarios_order(
    users, modules
):
    """2.9 "The winning side moves first in the following scenario" and 4.0 "Play then
    commences with the RPh of the player who won the previous scenario": during the
    Midday's Clean-Up (its result entered, 2.9 not reached) the header named the Morning's
    winner as moving first, which read as the Afternoon's order before 2.9 decides it
    (pass 20's Left).  Now both headers say whose result it is and that the Midday's
    winner, who moves first next, is decided at 2.9; once 2.9 has recorded it (103 < 120:
    the German), both read "German won the December 6 Midday scenario: German moves
    first"."""
    players, _ = midday(users, "2.1")
    for seat in seats(players):
        top = header(seat)
        assert "American won the December 6 Morning scenario" in top, top
        assert "American moves first" not in top, top
        assert "December 6 Midday scenario's winner" in top and "2.9" in top, top
    players.until_step("3.1")
    for seat in seats(players):
        top = header(seat)
        assert "German won the December 6 Midday scenario: German moves first" in top, top


# ------------------------------------------- Part 2A: map/recorded claims the app holds facts for


def test_2_4_2_6_2_7_2_8_the_clean_up_pages_name_each_sides_own_vehicles_concerned(users, modules):
    """2.4 "All Mobile vehicles may automatically change their current Stopped/Motion
    status ... and may change TCA as desired" and its EXC "PzVG must still roll for Stall
    to gain Motion"; 2.6 "Each non-abandoned, Bogged/Mired vehicle must undergo ≥ one Bog
    Removal attempt (D8.3) until it is either unbogged or immobilized"; 2.7 "Each
    Shocked/UK AFV must undergo ≥ one recuperation attempt (C7.42)"; 2.8 "Vehicles in
    Blaze locations are eliminated and removed from play" and "Infantry units in Blaze
    locations must immediately Withdraw as if from Melee".  The ledger called them the
    map's, yet the retained forces hold each side's vehicles and their markers
    (immobilized, abandoned) and Locations: each step's page names the viewer's own
    vehicles the sentence concerns, with its rule, the opponent's never.  The Morning's
    Clean-Up: the American's mobile M4A3(75)W at 12L6, an immobilized M4A3(76)W and an
    abandoned M4A1 and a 7-4-7 at 12L5; the German's PzVG at 20A1."""
    players, _ = apd(users, "2.4")
    add(players, "american", "M4A3(75)W", "vehicle", location="12L6")
    add(players, "american", "M4A3(76)W", "vehicle", "immobilized")
    add(players, "american", "M4A1", "vehicle", "abandoned")
    add(players, "german", "PzVG", "vehicle", location="20A1")
    add(players, "american", "7-4-7", "squad", location="12L5")
    american, german = seats(players)
    line = reminder(american, "2.4")
    assert "Stopped/Motion" in line and "TCA" in line and "M4A3(75)W" in line, line
    assert "M4A3(76)W" not in line and "M4A1" not in line, line
    assert not reminder(american, "2.4 EXC")
    assert "PzVG" not in line
    stall = reminder(german, "2.4 EXC")
    assert "Stall" in stall and "PzVG" in stall, german.text[-2500:]
    assert "PzVG" in reminder(german, "2.4") and "M4A3" not in reminder(german, "2.4")
    done(players, "american")
    done(players, "german")
    players.until_step("2.6")
    american, german = seats(players)
    bog = reminder(american, "2.6")
    assert "Bog Removal" in bog and "M4A3(75)W" in bog, american.text[-2500:]
    assert "M4A3(76)W" not in bog and "M4A1" not in bog, bog
    assert "PzVG" in reminder(german, "2.6") and "M4A3" not in reminder(german, "2.6")
    done(players, "american")
    done(players, "german")
    american, german = seats(players)
    shock = reminder(american, "2.7")
    assert "C7.42" in shock and "M4A3(75)W" in shock and "M4A3(76)W" in shock, shock
    assert "M4A1" not in shock, shock
    done(players, "american")
    done(players, "german")
    american, german = seats(players)
    withdraw = reminder(american, "2.8", "Withdraw")
    assert "7-4-7" in withdraw and "at 12L5" in withdraw and "M4A3" not in withdraw, withdraw
    blaze = reminder(american, "2.8", "Vehicles")
    assert "Blaze" in blaze and "M4A3(75)W" in blaze and "at 12L6" in blaze, blaze
    assert "7-4-7" not in blaze, blaze
    assert "PzVG" in reminder(german, "2.8", "Vehicles")
    assert "at 20A1" in reminder(german, "2.8", "Vehicles")
    assert "M4A3" not in reminder(german, "2.8", "Vehicles")
    assert not reminder(german, "2.8", "Withdraw")


# ------------------------------------------------------- Part 2B: what carries to the next date


def test_3_31_one_repair_attempt_is_per_setup_phase_the_next_date_offers_it_again(
    users, modules, fixed_dice
):
    """3.3 "Players may now roll on the Repair Table, making a dr per repair attempt for
    malfunctioned, non-captured weapons" and 3.31 "Each weapon/Vehicle may make only one
    Repair attempt", carried over two CG dates: the German's LMG, possessed by his 4-6-7,
    rolls dr 4 (NE) at the Morning's 3.3 and stays malfunctioned.  At the Midday's 3.3
    (the next Setup Phase) it is offered again on the German's page, his one attempt of
    that phase; the American's page offers no Repair roll for it."""
    from tests.test_apd12_pass12 import supply_value
    from tests.test_roster_possession import possess
    from tests.test_rule_mechanisms import result_values

    players, module = apd(users, "3.3")
    done(players, "american")
    squad = add(players, "german", "4-6-7", "squad", location="20A1")
    lmg = possess(players, "german", add(players, "german", "LMG", "sw", "malfunctioned"), squad)
    _, german = seats(players)
    words = "Roll dr: Repair Table: Repair SW"
    fixed_dice.append([4])
    assert german.press(words, unit=lmg.ref).status == 200
    german.open()
    if words in german.buttons():
        assert lmg.ref not in [v for v, _ in german.options(words, "unit")]
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until_step("3.3")
    done(players, "american")
    american, german = seats(players)
    assert words in german.buttons(), german.buttons()
    assert [v for v, _ in german.options(words, "unit")] == [lmg.ref]
    assert not [b for b in american.buttons() if b.startswith("Roll")]


def test_3_8_at_the_middays_entry_only_the_reinforcements_of_this_setup_phase_enter(
    users, modules, fixed_dice
):
    """3.8 "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    Board Edge", carried over two CG dates: the American's A1 bought at the Morning's 3.4
    and the German's RB1 from his Morning Row B dr entered in the Midday scenario.  At
    the Midday's 3.8 each side's page names only the reinforcements of this Setup Phase
    (the American's second A1, the German's second RB1) as entering; on main it listed
    every RG of the CG again, the Midday's entered ones as if entering the Afternoon."""
    from tests.test_apd12_pass12 import supply_value
    from tests.test_rule_mechanisms import _armor_group, buy, result_values, roll, supply_german

    players, module = apd(users, "3.4")
    supply_german(players)
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    supply_value(players, "dates.dec6midday.vp_required", "120")
    for date in ("Morning", "Midday"):
        buy(players, "american", "A1")
        players.until_step("3.5")
        fixed_dice.extend([[4], [1], [1]])
        for row in ("a", "b", "c"):
            roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
        players.until_step("3.8")
        american, german = seats(players)
        a_step = american.text.split("3.8 Entry", 1)[1].split("Amend the scenario result")[0]
        g_step = german.text.split("3.8 Entry", 1)[1].split("Amend the scenario result")[0]
        assert a_step.count("A1 Armor Group: along the American Friendly Board Edge") == 1, (
            date,
            a_step,
        )
        assert g_step.count("RB1 PzIV Section: along the German Friendly Board Edge") == 1, (
            date,
            g_step,
        )
        if date == "Morning":
            players.until("results")
            players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
            players.until_step("3.4")


# ------------------------------------------------------------------- Part 2C: the draw, in play


def test_2_91_a_vp_differential_of_0_is_shown_with_its_figures_on_the_americans_page(
    users, modules
):
    """2.91 "This can result in a positive or negative number, or 0" (drawn, D08): the
    Morning with 55 VP scored against the 55 required and no CVP suffered.  The
    American's page reads the differential 55 − 55 = 0 with its source and 0 PP at 3.4;
    the German's page shows none of the American's figures."""
    players, _ = apd(users, "3.4", vp=55, cvp=0)
    american, german = seats(players)
    assert "VP differential 55 required − 55 amassed = 0 · 0 + 0 CVP suffered = 0" in (
        american.text
    ), american.text[-3000:]
    assert "You have 0 PP" in american.text
    assert "55 required − 55" not in german.text


def test_3_1_footnote_the_evacuated_leaders_7_0_and_his_sw_are_there_at_the_next_date(
    users, modules, fixed_dice
):
    """3.1 footnote * "An Evacuated leader is permanently removed from play, but is
    immediately replaced with a 7-0 leader ... Any SW Possessed by an Evacuated leader is
    considered Transferred to the MMC as well", carried to the next CG date: the
    German's wounded 8-1 (with an LMG) rolls dr 6 at the Morning's 3.1.  At the Midday's
    3.1 his roster page holds the 7-0 at the 5-4-8's Location and the LMG possessed by
    the 5-4-8, no 8-1; neither side's 3.1 page offers a Recovery roll (no leader is
    wounded)."""
    from tests.test_apd12_pass12 import supply_value
    from tests.test_roster_possession import possess
    from tests.test_rule_mechanisms import result_values

    players, module = apd(users, "3.1")
    done(players, "american")
    add(players, "german", "5-4-8", "squad", location="20A4")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="20A3")
    possess(players, "german", add(players, "german", "LMG", "sw"), leader)
    _, german = seats(players)
    fixed_dice.append([6])
    assert german.press("Roll dr: Recovery Table", unit=leader.ref).status == 200
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until_step("3.1")
    roster = Seat(players.users["german"], players.campaign_id, "roster/")
    roster.open()
    forces = roster.text
    assert "8-1 leader" not in forces.split("Log")[0], forces[:3000]
    assert "7-0 leader" in forces and "20A4" in forces, forces[:3000]
    lmg = forces[forces.index("LMG") :][:200]
    assert "5-4-8" in lmg, lmg
    for seat in seats(players):
        assert not [b for b in seat.buttons() if b.startswith("Roll")], seat.buttons()


def test_3_6_3_8_the_entry_page_names_each_groups_leader_entering_with_a_unit_of_it(
    users, modules, fixed_dice
):
    """3.6 "Each Leader must enter with a unit of his Group" with 3.8 "All
    reinforcements enter on/after Turn 1 along the owning side's Friendly Board Edge":
    the American's A1 and the German's RB1 each roll a Leader Table DR (1+2: a 9-2 for
    the American Armor column, a 9-1 for the German Armor).  At 3.8 each side's page
    names, beside its own RG's entry, the leader the group received entering with a
    unit of it (3.6); the opponent's leader is never on it.  On main the ledger called
    the sentence the map's though the RG Purchase Record holds the leader."""
    from tests.test_rule_mechanisms import _armor_group, buy, rg_roll, roll, supply_german

    players, _ = apd(users, "3.4")
    supply_german(players)
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    a1 = buy(players, "american", "A1")
    players.until_step("3.5")
    fixed_dice.extend([[4], [1], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.until_step("3.6")
    from campaign.models import Purchase

    rb1 = Purchase.objects.get(campaign_id=players.campaign_id, side="german", group_id="RB1")
    fixed_dice.extend([[1, 2]])
    rg_roll(players, "american", a1)
    done(players, "american")
    fixed_dice.extend([[1, 2]])
    rg_roll(players, "german", rb1)
    players.until_step("3.8")
    american, german = seats(players)
    a_step = american.text.split("3.8 Entry", 1)[1].split("Amend the scenario result")[0]
    g_step = german.text.split("3.8 Entry", 1)[1].split("Amend the scenario result")[0]
    assert (
        "A1 Armor Group: along the American Friendly Board Edge, on/after Turn 1 (3.8); its "
        "9-2 leader enters with a unit of his Group (3.6)"
    ) in a_step, a_step
    assert (
        "RB1 PzIV Section: along the German Friendly Board Edge, on/after Turn 1 (3.8); its "
        "9-1 leader enters with a unit of his Group (3.6)"
    ) in g_step, g_step
    assert "9-1 leader" not in a_step and "9-2 leader" not in g_step


def test_3_4_3_8_after_a_cancelled_purchase_at_the_midday_the_entry_page_names_none(users, modules):
    """3.4 and 3.8 after an undo: at the Midday's 3.4 (the last purchase) the American
    buys A1 through the page and cancels it (his PP back).  The page still says that PP
    left unspent there are lost with the CG's end, with his PP as before the purchase;
    at the Midday's 3.8 his page names no RG entering (the cancelled A1 is not there,
    nor the Morning's RGs)."""
    from campaign.models import Seat as SeatRow
    from tests.test_rule_mechanisms import _armor_group

    players, _ = midday(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    american, _ = seats(players)
    assert american.press(next(b for b in american.buttons() if b.startswith("Buy A1"))).status
    cancel = next(b for b in american.buttons() if b.startswith("Cancel RG"))
    assert american.press(cancel).status == 200
    assert SeatRow.objects.get(campaign_id=players.campaign_id, side="american").points == 20
    assert "lost with the CG's end" in american.text
    assert "You have 20 PP" in american.text
    players.until_step("3.8")
    american, _ = seats(players)
    step = american.text.split("3.8 Entry", 1)[1].split("Amend the scenario result")[0]
    assert "A1 Armor Group" not in step, step
