"""Purple Heart Draw, twenty-fourth pass (issue 44): what carries, and what is computed,
across the TM's dates.  Each test plays two or three TM Scenarios (or Lulls) through
both seats' pages (tests/page_play.py) and checks the figure the next date reads
against a hand computation from the rules text, quoted in its docstring
(docs/rules-audit/pass-24-phd24.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Roll
from tests.page_play import Seat, text_of
from tests.test_phdb17_pass17 import plain
from tests.test_phdb18_pass18 import seats, step_part
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

# The TP Replenishment Table's US and German columns (C5.29), by Final DR.
US_TP = {2: 35, 3: 34, 4: 33, 5: 32, 6: 31, 7: 30, 8: 29, 9: 28, 10: 27, 11: 26, 12: 25}
GERMAN_TP = {dr: tp - 10 for dr, tp in US_TP.items()}


def roster_rows(players, side) -> dict[str, list[str]]:
    """``side``'s CG Roster as its roster page shows it: each date's cells (EC/weather,
    then each side's Start, Repl, Total, Spent, Left, RGs, Recon, Chit, CVP · SAN, the
    US's first, then the Initiative), by the date's label."""
    page = Seat(players.users[side], players.campaign_id, "roster/")
    page.open()
    found = re.search(r'<section[^>]*id="cg-roster".*?<tbody>(.*?)</tbody>', page.html, re.S)
    assert found, page.text[:500]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", found.group(1), re.S):
        cells = [text_of(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        rows[cells[0]] = cells[1:]
    return rows


def points_cells(cells: list[str], side: str) -> list[str]:
    """Start, Repl, Total, Spent, Left of ``side`` in a roster row's cells."""
    at = 1 if side == "us" else 10
    return cells[at : at + 5]


def tp_drawn(players, side, date_index) -> int:
    """The Final DR of ``side``'s C5.29 roll for the date ``date_index``."""
    (roll,) = Roll.objects.filter(
        campaign_id=players.campaign_id, step_id="C5.29", side=side, date_index=date_index
    )
    return roll.final


def test_c5_29_c5_31_c5_36_the_tp_carried_from_date_to_date_on_the_cg_roster(
    users, modules, fixed_dice
):
    """C5.29 "Each player now determines the number of TP they will receive, which is to
    be added to any TP remaining from the previous TM Scenario (if any)"; C5.31 "TP
    Cost: ... is subtracted from the purchasing side's current TP total"; RG footnote p
    "an additional two TP expenditure may be made to requisition each additional
    Pre-Registered hex"; C5.36 "The TP cost for the reconnaissance ... is now deducted
    from the current TP total"; the TM Roster's "Campaign Points Start | Repl | Total |
    Used | Left" line of each TM Scenario (C1.3).  Three dates played after the Initial
    TM Scenario, the US hosting:

    * 0600 hrs: Start 30 (C4.2 OB), nothing bought, Left 30.
    * 0930 hrs: Start 30, Repl = the US column of his C5.29 Final DR (the walk's dice),
      Spent 6 (O1 81mm OBA Module with 1 Pre-Registered hex) + 1 (Recon) = 7; a Lull.
    * 1230 hrs: Start = 0930's Left; DR 3+4 = 7 with no DRM (the previous scenario a
      Lull: no Attack chit, no CVP), Repl 30; Spent 2 (a further Pre-Registered hex for
      O1, bought at this C5.31); the US attacks, loses 20 CVP.
    * 1530 hrs: Start = 1230's Left; DR 3+4 +1 (Attack chit) -2 (20 CVP, FRD) = 6, Repl
      31; "You have N TP" on his page is that line's Left.

    TM11 "Each un-entered RG (or part thereof) is retained": his O1 and the German's
    Gren Pl, bought for 0930 hrs (a Lull: never entered), are in each OB at 1530 hrs.

    The German's Start at each date is his previous Left too (Spent 4 for his Gren Pl at
    0930; at 1530 his DR 7 -1 for 10 CVP = 6, Repl 21).  The German's roster shows
    none of the US's TP figures ("·"), nor the US's his."""
    from campaign.models import Purchase
    from tests.test_phd_conph import phd_after
    from tests.test_phdb19_pass19 import GRENS, MODULE_P, RIFLES, form_with, points
    from tests.test_rule_mechanisms import result_values, supply_chart

    players, module = phd_after(users, "C5.31")
    supply_chart(players, "us", [MODULE_P, RIFLES])
    supply_chart(players, "german", [GRENS])
    page = seats(players)
    us, de = page["us"], page["german"]
    assert us.press("Buy O1 81mm OBA Module for 6 TP, With 1 Pre-Registered hex").status == 200
    assert de.press("Buy I1 Gren Pl for 4 TP, On-Map set up").status == 200
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.36")
    us.open()
    fixed_dice.append([3])
    assert us.press("Recon for 1 TP").status == 200
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")  # a Lull at 0930 hrs
    players.until_step("C5.28")
    assert module.dates[players.campaign.date_index].label == "1230 hrs"
    fixed_dice.extend([[3, 4], [3, 4]])
    players.until_step("C5.31")
    us.open()
    further = "Buy: A further Pre-Registered hex (2 TP)"
    assert us.press(further, affirmed="yes").status == 200
    players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module, cvp_lost_us=20, cvp_lost_german=10))
    players.until_step("C5.28")
    fixed_dice.extend([[3, 4], [3, 4]])
    players.until_step("C5.31")
    assert module.dates[players.campaign.date_index].label == "1530 hrs"
    assert tp_drawn(players, "us", 2) == 7 and tp_drawn(players, "german", 2) == 7
    assert tp_drawn(players, "us", 3) == 6 and tp_drawn(players, "german", 3) == 6

    mine = roster_rows(players, "us")
    theirs = roster_rows(players, "german")
    dates = ["0600 hrs", "0930 hrs", "1230 hrs", "1530 hrs"]
    assert list(mine) == dates and list(theirs) == dates, (list(mine), list(theirs))
    us_0930 = US_TP[tp_drawn(players, "us", 1)]
    de_0930 = GERMAN_TP[tp_drawn(players, "german", 1)]
    expected = {
        "us": [
            ["30", "0", "30", "0", "30"],
            ["30", str(us_0930), str(30 + us_0930), "7", str(23 + us_0930)],
            [str(23 + us_0930), "30", str(53 + us_0930), "2", str(51 + us_0930)],
            [str(51 + us_0930), "31", str(82 + us_0930), "0", str(82 + us_0930)],
        ],
        "german": [
            ["20", "0", "20", "0", "20"],
            ["20", str(de_0930), str(20 + de_0930), "4", str(16 + de_0930)],
            [str(16 + de_0930), "20", str(36 + de_0930), "0", str(36 + de_0930)],
            [str(36 + de_0930), "21", str(57 + de_0930), "0", str(57 + de_0930)],
        ],
    }
    for side, rows in (("us", mine), ("german", theirs)):
        shown = [points_cells(rows[d], side) for d in dates]
        assert shown == expected[side], (side, shown, expected[side])
        other = "german" if side == "us" else "us"
        for d in dates[1:]:
            assert points_cells(rows[d], other) == ["·"] * 5, (side, d, rows[d])
    assert mine["1230 hrs"][6] == "O1: A further Pre-Registered hex (2 TP)", mine["1230 hrs"]
    # TM11 "Each un-entered RG (or part thereof) is retained": the O1 and the Gren Pl
    # bought for 0930 hrs (a Lull: never entered) are still in each OB at 1530 hrs, on
    # both pages, the Gren Pl's squads on the German's retained forces.
    for seat, group in ((us, "O1"), (de, "I1")):
        seat.open()
        (line,) = Purchase.objects.filter(campaign_id=players.campaign_id, group_id=group)
        assert ("state", Purchase.State.HELD) in form_with(seat, "purchase", line.ref).fields
        other = us if seat is de else de
        row = re.search(rf'<tr[^>]*id="record-{line.ref}".*?</tr>', other.html, re.S)
        assert row and "in the OB" in text_of(row.group(0)), (group, other.text[-2000:])
    de_roster = Seat(players.users["german"], players.campaign_id, "roster/")
    assert "4-6-7" in de_roster.open()
    for side, seat in (("us", us), ("german", de)):
        seat.open()
        assert points(seat)[0] == int(expected[side][-1][-1]), (side, points(seat))
        plain(step_part(seat))


BOOBY = "Buy Booby Traps"
STORES_30 = {"id": "D1", "type": "Defensive Stores", "units": "DSP", "cost": "2", "grants": "30"}


def level_shown(seat: Seat) -> str:
    """The Booby Trap Level the German's fortification page says he has."""
    seat.open()
    found = re.search(r"your Level now: (\w+) \(C5\.35 note 8, C5\.25b\)", step_part(seat))
    assert found, step_part(seat)[:1500]
    return found.group(1)


def test_c5_25b_the_booby_trap_level_above_b_falls_to_b_at_each_new_tm_scenario(users, modules):
    """C5.35 note 8 "Creates Level C Booby Traps, or increases a pre-existing Level to
    the next Level"; C5.25b "If the German has a Booby Trap Level that is > Level B, it
    will be reduced to Level B prior to making any requisitions (C5.31)" (pass 22's Left,
    played through the German's page over three dates).  Hand computation:

    * Initial TM Scenario (I-C5.35), the German given 120 DSP: three Booby Traps
      purchases make Level C, B, A; a fourth is refused (no Level above A) and spends
      nothing.
    * 0930 hrs, after the Initial TM Scenario: Level A > B, so B "prior to making any
      requisitions": his C5.35 page reads B before he buys; one purchase (30 DSP)
      makes A.
    * 1230 hrs (a Lull at 0930): B again at C5.35, not A; nothing bought: B.
    * 1530 hrs: still B (B is not > B).

    "Any unspent DSP are lost" (C5.35): the 30 DSP left at I-C5.35 after 3 × 30 are gone
    at 0930 (0 DSP before the 30 he buys there: C5.35 "the player first expends TP to
    requisition DSP", his supplied chart's D1 Defensive Stores, 2 TP for 30 DSP, bought
    at each later date's C5.31, unspent at 1230 and 1530).  The US's pages never read a
    Booby Trap Level (C5.35 note G: the German's only; his purchases are his secret)."""
    from campaign.models import Seat as SeatRow
    from tests.test_phdb19_pass19 import GRENS, RIFLES
    from tests.test_rule_mechanisms import module_of, result_values, supply_chart
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="us", through_start=False)
    players = players_of(c, a, b)
    module = module_of(c)
    players.until_step("I-C5.35")
    SeatRow.objects.filter(campaign_id=c.pk, side="german").update(fortification_points=120)
    page = seats(players)
    us, de = page["us"], page["german"]
    assert level_shown(de) == "none"
    for level in ("C", "B", "A"):
        answer = de.press(BOOBY)
        assert answer.status == 200, answer.text[:300]
        assert level_shown(de) == level
    assert "You have 30 DSP" in step_part(de), step_part(de)
    fourth = de.press(BOOBY)
    assert fourth.refused, (fourth.status, fourth.text[:300])
    assert "Level A" in fourth.text and "C5.25b" in fourth.text, fourth.text[:300]
    plain(fourth.text)
    assert "You have 30 DSP" in step_part(de), step_part(de)
    us.open()
    assert "Level now" not in step_part(us), step_part(us)
    assert not [w for w in us.buttons() if "Booby" in w], us.buttons()
    players.until("results")
    players.results(**result_values(module))

    supply_chart(players, "us", [RIFLES])
    supply_chart(players, "german", [GRENS, STORES_30])

    def to_fortifications() -> None:
        """On to the next C5.35, the German buying 30 DSP (D1) at C5.31 on his page."""
        players.until_step("C5.31")
        de.open()
        assert de.press("Buy D1 Defensive Stores for 2 TP").status == 200
        players.until_step("C5.35")

    players.until_step("C5.30")
    # The 30 DSP left unspent at I-C5.35 are lost (C5.35).
    assert SeatRow.objects.get(campaign_id=c.pk, side="german").fortification_points == 0
    to_fortifications()
    assert module.dates[players.campaign.date_index].label == "0930 hrs"
    assert level_shown(de) == "B"
    assert de.press(BOOBY).status == 200
    assert level_shown(de) == "A"
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")
    to_fortifications()
    assert module.dates[players.campaign.date_index].label == "1230 hrs"
    assert level_shown(de) == "B"
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")
    to_fortifications()
    assert module.dates[players.campaign.date_index].label == "1530 hrs"
    assert level_shown(de) == "B"
    us.open()
    assert "Level now" not in step_part(us), step_part(us)
    assert not [w for w in us.buttons() if "Booby" in w], us.buttons()


def test_c5_27b_a_captured_mmg_forged_is_refused_citing_non_captured(users, modules):
    """C5.27b "Vehicular-MG Exchange: A disabled, non-captured, AFV MG may be
    automatically repaired ... by using ... US MMG if the AFV is American. In all
    cases, the MG to be eliminated must be possessed" (pass 23's Left: a captured MMG
    forged was refused with "You have no such unit", citing nothing).  After the 0930
    hrs TM Scenario the US holds an M4A1 whose BMG is disabled, a possessed MMG and a
    captured German MMG (his, captured from the German).  His roster offers the
    possessed MMG only; the captured one, forged, is refused in words citing C5.27b,
    where he clicked, and stays; the BMG stays disabled."""
    from campaign.models import Unit
    from tests.purchase_helpers import add_vehicle
    from tests.test_phdb17_pass17 import late_conph
    from tests.test_rule_mechanisms import add

    players = late_conph(users, "C5.26")
    tank, (bmg, _) = add_vehicle(
        players, "us", "M4A1", ("mg", ["disabled"], "BMG"), ("ma", [], "75")
    )
    players.until_step("C5.27")
    add(players, "us", "MMG", "sw")
    taken = add(players, "us", "MMG (German)", "sw", markers=("captured",))
    roster = Seat(players.users["us"], players.campaign_id, "roster/")
    roster.open()
    repair = "Repair BMG (C5.27b)"
    assert [words for _, words in roster.options(repair, "give")] == ["MMG"]
    answer = roster.press(repair, give=taken.ref)
    assert answer.refused, (answer.status, answer.text[:300])
    plain(answer.text)
    assert "no such unit" not in answer.text, answer.text[:300]
    assert "captured" in answer.text and "(C5.27b)" in answer.text, answer.text[:300]
    assert Unit.objects.filter(pk=taken.pk).exists()
    tank.refresh_from_db()
    assert next(w for w in tank.weapons if w["ref"] == bmg)["markers"] == ["disabled"]


def test_once_per_conph_and_per_tm_scenario_limits_come_back_at_the_next_date(
    users, modules, fixed_dice
):
    """What must reset.  C5.22/C5.23 "No unit may Battle Harden more than once during
    the ConPh" (each ConPh's: a unit hardened in one ConPh may harden in the next);
    C5.36 "Requisitioning Reconnaissance" once per TM Scenario (its line of the TM
    Roster, "the Recce column of the current TM Scenario line").  Played through the US
    page over two ConPhs:

    * ConPh after 0600 hrs: a Hero combined with 6-6-7 A hardens it (C5.22); at C5.23
      his DR 2+2 = 4 (no CVP: no DRM) gives "3-4 | 2 MMC": A is not offered (hardened
      this ConPh), B is, and is hardened.  At C5.36 he pays 1 TP for Recon (dr 3): a
      second is not offered.
    * ConPh after 0930 hrs (he attacked): a second Hero is offered A again and hardens
      it; at C5.23, DR 2+2 = 4 again (0 CVP): B, hardened in the previous ConPh, is
      offered and hardened; A (this ConPh's) is not.  At C5.36 Recon is offered again
      and bought (dr 4); the CG Roster's 0930 and 1230 lines read 3 and 4 Locations."""
    from campaign.models import Unit
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, result_values

    players, module = phd_after(users, "C5.22")
    a = add(players, "us", "6-6-7", "squad", location="A1")
    b = add(players, "us", "6-6-7", "squad", location="B1")
    mark, harden = "Mark battle hardened", "Battle Harden this MMC"
    recon = "Recon for 1 TP"

    def conph(hero_name: str, locations: int) -> None:
        hero = add(players, "us", hero_name, "hero")
        us = seats(players)["us"]
        assert [v for v, _ in us.options(mark, "mark")] == [a.ref, b.ref]
        assert us.press(mark, give=hero.ref, mark=a.ref).status == 200
        players.until_step("C5.23")
        us.open()
        fixed_dice.append([2, 2])
        assert us.press("Roll DR: Battlefield Promotion Table").status == 200
        assert [v for v, _ in us.options(harden, "unit")] == [b.ref], us.options(harden, "unit")
        assert us.press(harden, unit=b.ref).status == 200
        players.until_step("C5.36")
        us.open()
        fixed_dice.append([locations])
        assert us.press(recon).status == 200
        assert recon not in us.buttons(), us.buttons()
        plain(step_part(us))

    conph("1-4-9 Hero", 3)
    players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module))
    players.until_step("C5.22")
    assert module.dates[players.campaign.date_index].label == "0930 hrs"
    conph("1-4-9 Hero", 4)
    assert all("battle_hardened" in Unit.objects.get(pk=u.pk).markers for u in (a, b))
    rows = roster_rows(players, "us")
    assert rows["0930 hrs"][7] == "3" and rows["1230 hrs"][7] == "4", rows


def test_rg_footnote_z_crews_lost_and_replacements_bought_add_up_across_the_tm(users, modules):
    """RG footnote z "Replacement Crews are only requisitioned for Gun/Vehicle crews that
    were eliminated during play", followed over four dates on the German's page (pass
    23 tried one date).  Crews lost are entered with each TM Scenario's result
    ("Gun/vehicle crews eliminated (incl. ConPh losses)"); the cap is those lost so far
    in the TM less those already replaced.  Hand computation:

    * after 0600 hrs: 1 lost, 0 bought → one Replacement Crew (2 TP) bought at the
      0930 hrs C5.31: "1 so far, 1 bought", no Buy;
    * 1230 hrs (a Lull at 0930: no scenario, no crew lost): still "1 so far, 1 bought",
      no Buy;
    * after 1230 hrs (the German attacked; 2 more crews lost): "3 so far, 1 bought" at
      the 1530 hrs C5.31: two bought (4 TP), "3 so far, 3 bought"; a fourth, forged, is
      refused citing footnote z and spends nothing."""
    from campaign.models import Seat as SeatRow
    from tests.test_phd_pass5 import CREW
    from tests.test_rule_mechanisms import module_of, phd_with_chart, result_values

    players, c = phd_with_chart(users, [CREW | {"cost": "2", "footnotes": "z"}])
    module = module_of(c)
    de = seats(players)["german"]
    eliminated = "Gun/vehicle crews eliminated (incl. ConPh losses)"
    crew = "Buy R1 Replacement Crew for 2 TP, Enters as Reinforcements"

    def tp() -> int:
        return SeatRow.objects.get(campaign_id=c.pk, side="german").points

    def at_purchase(label: str, so_far: int, bought: int) -> None:
        """At ``label``'s C5.31: the Buy offered while fewer were bought than lost, else
        none, and the row saying why."""
        players.until_step("C5.31")
        assert module.dates[players.campaign.date_index].label == label
        de.open()
        buys = [x for x in de.buttons() if x.startswith("Buy R1")]
        if bought < so_far:
            assert crew in buys, de.buttons()
            return
        said = f"{eliminated}: {so_far} so far, {bought} bought (C5.31 RG footnote z)"
        assert said in step_part(de), step_part(de)
        assert buys == [], de.buttons()

    players.until("results")
    players.results(**result_values(module, crews_lost_german=1))
    at_purchase("0930 hrs", 1, 0)
    assert de.press(crew).status == 200
    at_purchase("0930 hrs", 1, 1)
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")
    at_purchase("1230 hrs", 1, 1)
    players.until_step("C5.37")
    players.chits(us="idle", german="attack")
    players.until("results")
    players.results(**result_values(module, crews_lost_german=2))
    at_purchase("1530 hrs", 3, 1)
    before = tp()
    assert de.press(crew).status == 200
    at_purchase("1530 hrs", 3, 2)
    assert de.press(crew).status == 200
    assert tp() == before - 4
    at_purchase("1530 hrs", 3, 3)
    answer = de.client.post(
        f"/campaigns/{c.pk}/act/buy/", {"group": "R1", "variant": ""}, HTTP_HX_REQUEST="true"
    )
    text = answer.content.decode()
    assert 400 <= answer.status_code < 500, (answer.status_code, text[:300])
    assert "3 so far, 3 bought (C5.31 RG footnote z)" in text, text[:300]
    plain(text)
    assert tp() == before - 4


def test_c5_14_ii_the_attackers_isolated_unit_that_remains_is_eliminated_the_defenders_not(
    users, modules, fixed_dice
):
    """C5.14 ii "Any Attacker's units in an Isolated TAC may now attempt to redeploy,
    after first losing any concealment, and then accepting the same penalties for
    failure as per (i). Any Defender's units in an Isolated TAC may now attempt to
    redeploy"; (i) "if they fail to redeploy (i.e.; any result that stipulates that the
    unit remains in hex), they are eliminated (vehicles are replaced with their wrecked
    side with CS NA)" (passes 22 and 23's Left).  After the Initial TM Scenario the US
    is the Attacker (C4.2 "US Attack": he moved first, C5.3).  Hand computation, each
    marked Isolated on its owner's roster (+1 Unit is Isolated, computed):

    * the US 6-6-7, DR 5+6 +1 = 12 "Remains in hex, Reduced": eliminated (ii, as per i);
    * the US M4A1 Sherman, DR 4+6 +1 = 11 Mobile Vehicle "Remains in hex": eliminated;
    * the German (Defender) 4-6-7, DR 5+6 +1 = 12: only reduced, still there (and
      still Isolated);
    * an unmarked US 6-6-7, DR 6+6 = 12: only reduced (v).

    Each line's log cites C5.14 ii where it eliminates."""
    from campaign.models import Unit
    from tests.test_phd_conph import phd_after
    from tests.test_phda22_pass22 import REDEPLOY, last_line
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    squad = add(players, "us", "6-6-7", "squad", markers=("isolated",), location="I1")
    tank = add(players, "us", "M4A1 Sherman", "vehicle", markers=("isolated",), location="I2")
    home = add(players, "us", "6-6-7", "squad", location="F1")
    theirs = add(players, "german", "4-6-7", "squad", markers=("isolated",), location="J1")
    s = seats(players)
    us, de = s["us"], s["german"]
    for unit, faces in ((squad, [5, 6]), (tank, [4, 6]), (home, [6, 6])):
        fixed_dice.append(faces)
        rolled = us.press(REDEPLOY, unit=unit.ref)
        assert rolled.status == 200, rolled.text[:500]
    assert us.press("Done with C5.14").status == 200
    de.open()
    fixed_dice.append([5, 6])
    rolled = de.press(REDEPLOY, unit=theirs.ref)
    assert rolled.status == 200, rolled.text[:500]
    left = {u.pk: u for u in Unit.objects.filter(campaign_id=players.campaign_id)}
    assert squad.pk not in left and tank.pk not in left, [u.name for u in left.values()]
    assert left[home.pk].markers == ["reduced"], left[home.pk].markers
    assert {"reduced", "isolated"} <= set(left[theirs.pk].markers), left[theirs.pk].markers
    for words in ("Redeployment Table for 6-6-7: DR 5+6", "Redeployment Table for M4A1"):
        line = last_line(players, words)
        assert "C5.14 ii" in line, line
        plain(line)
