"""Issue 44, pass 22, A Pleasant Diversion (seed 002): each sentence of the CG rules,
the Clean-Up Phase 2.-2.92 and the Setup Phase 3.-4.0 at its edges (a number at its
limit and one past it, an exception and its complement, an undo), 20 sentences drawn
at random (random.Random(22)) and pass 21's Left items, each read through the pages
(tests/page_play.py) on both sides.  Each test cites its rule;
docs/rules-audit/pass-22-apd22.md lists what was tried."""

from __future__ import annotations

import re

import pytest

from campaign.models import Event, Purchase
from campaign.models import Seat as SeatRow
from tests import test_rule_mechanisms
from tests.page_play import Seat
from tests.test_apd12_pass12 import apd
from tests.test_apd17_pass17 import midday
from tests.test_apd18_pass18 import seats
from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, patch_module, supply_german

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

M4 = [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}]


def pp(players, side: str = "american") -> int:
    return SeatRow.objects.get(campaign_id=players.campaign_id, side=side).points


def amend_vp(american: Seat, german: Seat, vp: str) -> None:
    """The American proposes the scenario's VP amended to ``vp`` through his page, the
    German accepts it through his."""
    form = american.form_of("Propose the amendment")
    field = next(n for n, _ in form.fields if "vp" in n and "american" in n and "cvp" not in n)
    assert american.press("Propose the amendment", **{field: vp, "reason": "miscounted"})
    german.open()
    assert german.press("Accept the amendment").status == 200
    american.open()


def at_3_4_with_a1_bought(users):
    """The Morning's 3.4: 55 required − 63 amassed + 41 CVP = 33 PP (2.92 EX); the
    American's chart's A1 Armor Group (10 PP, scenario maximum 2) bought through his
    page: 23 PP left."""
    players, _ = apd(users, "3.4")
    _armor_group(players, M4, date_max=2)
    SeatRow.objects.filter(campaign_id=players.campaign_id, side="american").update(points=33)
    american, german = seats(players)
    assert american.press("Buy A1 Armor Group for 10 PP").status == 200
    assert pp(players) == 23
    return players, american, german


def charts(players, date_max: int = 2) -> None:
    """The players' American chart (A1 Armor Group, 10 PP, scenario maximum
    ``date_max``; its armor-type dr always M4; the Gyrostabilizer rows) and the German
    chart and Rows A-C (``supply_german``), supplied without touching the PP on hand."""

    def supplied(data):
        chart = next(c for c in data["rg_charts"] if c["side"] == "american")
        a1 = {"id": "A1", "type": "Armor Group", "units": "3 tanks", "cost": 10}
        group = {**a1, "unit_kind": "vehicle", "tags": ["armor"], "date_max": date_max}
        chart.update(missing=False, groups=[group])
        armor = next(t for t in data["tables"] if t["id"] == "american_reinforcement")
        armor.update(missing=False, rows=M4)
        gyro = next(t for t in data["tables"] if t["id"] == "gyrostabilizer")
        gyro.update(missing=False, rows=[{"range": "≤12", "result": "Functioning"}])

    patch_module(players.campaign, supplied)
    supply_german(players)


# ------------------------------------------------------------------ A: numbers at their limit


def test_3_4_the_last_purchase_at_the_scenario_maximum_one_past_it_and_after_a_cancel(
    users, modules, fixed_dice
):
    """3.4 "He may purchase as many of each group as he has Purchase Points available,
    but the scenario maximum allowed for each group may not be exceeded", at the CG's
    last purchase (the Midday's 3.4, 101 PP) with A1's scenario maximum 2: the second A1
    is the last the maximum allows (81 PP), its Buy button goes and the page says why in
    3.4's words ("the scenario maximum is reached (2 of 2 ...; 3.4)"; on main "the CG
    date maximum", words the rule does not use); a third posted anyway is refused in
    those words, the PP unchanged.  Undone: one A1 cancelled gives its 10 PP and its
    place back (91 PP, A1 buyable again).  The German's page shows none of it."""
    from tests.test_apd18_pass18 import at_of, forge

    players, _ = midday(users, "3.4")
    charts(players)
    american, german = seats(players)
    assert pp(players) == 101
    buy = "Buy A1 Armor Group for 10 PP"
    assert american.press(buy).status == 200
    assert american.press(buy).status == 200
    assert pp(players) == 81
    assert buy not in american.buttons()
    said = "the scenario maximum is reached (2 of 2 on December 6 Afternoon; 3.4)"
    assert said in american.text, american.text[:3000]
    answer = forge(american, "buy", at=at_of(american), group="A1")
    assert answer.refused and said in answer.text, answer.text[:300]
    assert pp(players) == 81
    german.open()
    # "81" as a figure: the page's dice-seed hash (random per campaign) may hold the digits.
    assert "A1" not in german.text.split("Rules data")[0]
    assert not re.search(r"\b81\b", german.text)
    cancel = next(b for b in american.buttons() if b.startswith("Cancel"))
    assert american.press(cancel).status == 200
    assert pp(players) == 91
    assert buy in american.buttons() and said not in american.text


# ------------------------------------------------------------------ C: undo, an amended result


def test_3_4_2_92_a_result_amended_below_what_was_spent_asks_for_a_cancel_its_refund_pays_first(
    users, modules, fixed_dice
):
    """3.4 "He may purchase as many of each group as he has Purchase Points available"
    with 2.92's PP computed again from an amended result (the undo of a figure entered
    wrong): the American bought A1 for 10 of his 33 PP, then the Morning's VP are
    amended to 90 (55 − 90 + 41 = 6 PP).  On main his PP went to 0 and A1 stood, bought
    with 4 PP he never had, and cancelling it refunded all 10 (10 PP on hand where the
    rules give 6).  Now his page says the amended result gives him 4 PP fewer than his
    RGs cost and to cancel RGs for as much before Done (2.92; 3.4); his Done is refused
    in those words; the German's page says none of it; cancelling A1 refunds 10, 4 of
    them paying the shortfall: 6 PP, and Done goes."""
    players, american, german = at_3_4_with_a1_bought(users)
    amend_vp(american, german, "90")
    assert pp(players) == 0
    text = american.text
    said = "The amended result gives you 4 PP fewer than your RGs of this date cost"
    assert said in text, text[:3000]
    line = text[text.index(said) :][:260]
    assert "2.92" in line and "3.4" in line and "cancel RGs for at least 4 PP" in line, line
    german.open()
    assert "amended result gives you" not in german.text and "4 PP" not in german.text
    answer = american.press("Done with 3.4")
    assert answer.refused and "cancel RGs for at least 4 PP" in answer.text, answer.status
    assert "Done with 3.4" in american.buttons()
    cancel = next(b for b in american.buttons() if b.startswith("Cancel"))
    assert american.press(cancel).status == 200
    assert pp(players) == 6
    assert "amended result gives you" not in american.text
    assert "You have 6" in american.text
    mine = Event.objects.visible_to("american").filter(kind="cancel").last()
    assert "10 PP refunded, 4 of them paying what the amended result left short" in mine.shown
    theirs = Event.objects.visible_to("german").filter(kind="cancel").last()
    assert theirs is None or "4 of them" not in theirs.shown
    assert american.press("Done with 3.4").status == 200


def test_3_4_2_92_an_rg_rolled_stands_past_an_amended_result_and_amending_back_restores_the_pp(
    users, modules, fixed_dice
):
    """The complement of the test above (3.4 with 2.92 computed again): A1's armor-type
    dr is made while buying (3.4 "For each Armor Group purchased, make a dr"), so it can
    no longer be cancelled (dice stand).  Amended to 90 VP, the American's page says his
    RGs stand as bought and his Done is not held; amended back to 63 VP, 33 − 10 = 23
    PP are on hand again and the line is gone (the shortfall paid back by the new
    figures, not kept)."""
    players, american, german = at_3_4_with_a1_bought(users)
    fixed_dice.append([2])
    rolls = next(b for b in american.buttons() if b.startswith("Make its secret rolls"))
    assert american.press(rolls).status == 200
    amend_vp(american, german, "90")
    assert pp(players) == 0
    line = american.text[american.text.index("The amended result gives you 4 PP") :][:300]
    assert "none can be cancelled now" in line and "stand as bought" in line, line
    assert not [b for b in american.buttons() if b.startswith("Cancel")]
    amend_vp(american, german, "63")
    assert pp(players) == 23
    assert "The amended result gives you" not in american.text
    assert "You have 23" in american.text
    assert Purchase.objects.filter(campaign_id=players.campaign_id, status="active").count() == 1
    assert american.press("Done with 3.4").status == 200


# ------------------------------------------------------------------ C: undo, a roll corrected


def test_2_note_2_5_a_1tc_elimination_corrected_back_takes_its_cvp_out_on_both_pages(
    users, modules, fixed_dice
):
    """2 Note "CVP are recorded normally throughout this phase" with 2.5 "Failing the
    1TC results in the unit's immediate Elimination", undone: the German's Encircled
    4-6-7 fails its 1TC (DR 5+6) and its 2 CVP (a squad's, supplied, A26.2) join his
    CVP lost (0 → 2).  He proposes through his page that the roll's write-back be
    corrected, the 4-6-7 back on his retained forces; the American accepts through his.
    On main the 4-6-7 came back and its 2 CVP still counted as lost (which the CG VC's
    105 reads).  Now the correction's log line, on both pages, says they no longer
    count: "Its CVP for the scenario just played: German's CVP lost 2 → 0 (2 Note; 2.5)"."""
    from tests.test_apd12_pass12 import lost, supply_value
    from tests.test_apd18_pass18 import ROLL_1TC
    from tests.test_apd_pass5 import done
    from tests.test_rule_mechanisms import add

    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.squad", "2")
    done(players, "american")
    squad = add(players, "german", "4-6-7", "squad", "encircled", location="20A1")
    american, german = seats(players)
    fixed_dice.append([5, 6])
    assert german.press(ROLL_1TC, **{"unit": squad.ref, "typed.leadership": "0"}).status == 200
    assert lost(players)["german"] == 2
    assert german.press("Propose the correction", reason="misread the DR", gone="").status == 200
    american.open()
    assert american.press("Accept the correction").status == 200
    assert lost(players) == {"german": 0, "american": 41}
    for seat in (american, german):
        seat.open()
        log = seat.text[seat.text.index("Campaign log") :][:1200]
        assert (
            "Its CVP for the scenario just played: German's CVP lost 2 → 0 (2 Note; 2.5)" in log
        ), log


# ------------------------------------------------------------------ D: the draw, one walk


def test_drawn_the_middays_sequence_on_the_americans_side_with_odd_holdings(
    users, modules, fixed_dice
):
    """Drawn (random.Random(22)), played through both pages on the Midday's sequence
    (the CG's last, setting up the Afternoon), the American's side with holdings earlier
    passes used little:
    2.1 "All Prisoners are then removed from play": his Captured 7-4-7 is named on his
    page only, and leaves at 2.1;
    2.8 "Vehicles in Blaze locations are eliminated and removed from play" with 2 Note:
    his M4A3(75)W removed as eliminated there adds its 3 CVP (supplied, A26.2) to his
    Midday CVP lost (10 → 13);
    2.9/2.91/2.92 "totals his amassed VP from all CG scenarios played", "subtracted from
    the VP required to win the previous scenario", "adds the total of his CVP suffered
    in the CG thus far": 120 − (63 + 40) = 17, 17 + (41 + 13) = 71, with the 33 kept
    from the Morning (3.4 "Unused Purchase Points may be retained"): 104 PP;
    3.2 "Heroes (whether wounded or unwounded) are eliminated, but ... may Battle
    Harden any one MMC": his wounded Hero given up for his 6-6-6;
    3.31 "vehicles must not be Abandoned and Guns/SW must be Possessed": only his
    M4A3(76)W's MA is offered a Repair dr, not the abandoned M4A1's, not the unpossessed
    Bazooka;
    3.6 (with its note a) "make one secret DR ... to determine the type of leader": the
    German's PzGr Platoon I DR 3 − 1 = 2 gives a 9-2, his PzIV Section's 3 a 9-1;
    3.7 "For each M4 Armor Reinforcement Group, make a secret DR on the following M4 Model
    Table" with 3.4 notes 2-3 ("one DR on the M4 Table per group received", "one DR on
    the H1.42 Gyrostabilizer Table per AFV"): two A1 groups, one M4 Model DR each (2 and
    12: the table's first and last rows) and three Gyrostabilizer DRs each; none of it
    on the German's page."""
    from campaign.models import Unit
    from campaign.services import units as units_service
    from tests.purchase_helpers import add_vehicle
    from tests.test_apd12_pass12 import lost, supply_value
    from tests.test_apd_pass5 import done
    from tests.test_rule_mechanisms import add

    players, _ = midday(users, "2.1")
    charts(players)
    supply_value(players, "cvp_per_kind.vehicle", "3")
    add(players, "american", "7-4-7", "squad", "captured", location="12L1")
    add(players, "german", "4-6-7", "squad", "captured", location="20A2")
    sherman = add(players, "american", "M4A3(75)W", "vehicle", location="12L6")
    hero = add(players, "american", "2-4-7 Hero", "hero", "wounded", location="12L5")
    squad = add(players, "american", "6-6-6", "squad", location="12L5")
    good, (ma,) = add_vehicle(players, "american", "M4A3(76)W", ("ma", ["malfunctioned"]))
    add_vehicle(players, "american", "M4A1", ("ma", ["malfunctioned"]), markers=["abandoned"])
    add(players, "american", "BAZ 44", "sw", "malfunctioned", markers=["unpossessed"])
    american, german = seats(players)
    assert "7-4-7 leaves your retained forces (2.1)" in american.text
    assert "7-4-7" not in german.text.split("Rules data")[0]
    done(players, "american")
    done(players, "german")
    mine = Unit.objects.filter(campaign_id=players.campaign_id, side="american")
    assert not mine.filter(name="7-4-7").exists()
    players.until_step("2.8")
    units_service.remove_unit(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        unit_id=sherman.ref,
        eliminated=True,
    )
    assert lost(players)["american"] == 13
    players.until_step("3.2")
    american, german = seats(players)
    assert american.press("Mark battle hardened", give=hero.ref, mark=squad.ref).status == 200
    assert not mine.filter(name="2-4-7 Hero").exists()
    assert "battle_hardened" in Unit.objects.get(pk=squad.pk).markers
    done(players, "american")
    done(players, "german")
    american, german = seats(players)
    offered = [v for v, _ in american.options("Roll dr: Repair Table: Repair MA/Gun", "unit")]
    assert offered == [f"{good.ref}.{ma}"], offered
    assert "You have no malfunctioned SWs (not captured or unpossessed)" in american.text
    done(players, "american")
    done(players, "german")
    american, german = seats(players)
    assert pp(players) == 104
    assert "17 + 54 CVP suffered = 71 (CG total: 41 + 13)" in american.text, american.text[:4000]
    assert "120 required − 103 amassed = 17 (CG total: 63 + 40)" in american.text
    assert "CVP suffered" not in german.text
    buy = "Buy A1 Armor Group for 10 PP"
    assert american.press(buy).status == 200 and american.press(buy).status == 200
    fixed_dice.extend([[2], [2]])  # armor types: M4
    for n in (1, 2):
        assert american.press(f"Make its secret rolls: RG {n} of the list, A1 Armor Group")
    done(players, "american")
    american, german = seats(players)
    fixed_dice.extend([[1], [1], [1]])  # Rows A-C: RA1, RB1, nothing
    for row in "ABC":
        assert german.press(f"Roll dr: German Reinforcement Table, Row {row}").status == 200
    done(players, "german")
    fixed_dice.extend([[3, 3], [3, 3]])  # the A1s' leaders: 6, an 8-1 each
    done(players, "american")
    american, german = seats(players)
    fixed_dice.extend([[1, 2], [1, 2]])  # RA1: 3 - 1 = 2; RB1: 3
    for n, rg in ((1, "RA1 PzGr Platoon I"), (2, "RB1 PzIV Section")):
        assert german.press(f"Make its secret rolls: RG {n} of the list, {rg}").status == 200
    text = german.text
    assert "Leader Table: German Infantry: 9-2" in text, text[:4000]
    assert "Leader Table: German Armor: 9-1" in text
    done(players, "german")
    american, german = seats(players)
    assert "3.7 U.S. Medium Tank Models" in american.text
    fixed_dice.extend([[1, 1], [1, 1], [1, 1], [1, 1]])  # M4 Model 2 and three gyros
    fixed_dice.extend([[6, 6], [1, 1], [1, 1], [1, 1]])  # M4 Model 12 and three gyros
    for n in (1, 2):
        assert american.press(f"Make its secret rolls: RG {n} of the list, A1 Armor Group")
    text = american.text.split("Your RGs", 1)[1].split("Amend the scenario result")[0]
    assert "M4 Model Table: 2 x M4A3(76)W; M4A3E2(L) (DR 1+1 → 2)" in text, text[:4000]
    assert "M4 Model Table: 2 x M4A3(75); M4A3 (DR 6+6 → 12)" in text
    assert text.count("H1.42 Gyrostabilizer Table: Functioning") == 6
    german.open()
    assert "M4 Model Table" not in german.text.split("Rules data")[0]
    assert "Gyrostabilizer Table: Functioning" not in german.text
