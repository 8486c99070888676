"""Purple Heart Draw, twenty-fifth pass (issue 44): where two rules meet.  Each test
plays, through both seats' pages (tests/page_play.py), two sentences of seed 000 that
apply to one unit, purchase, roll or figure: two DRMs on one roll, a cap counting
items bought at two dates with a take-back between, a correction of the result a later
step reads.  The hand reading is in each docstring (docs/rules-audit/pass-25-phd25.md).
"""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.page_play import Seat, text_of
from tests.test_phd16_pass16 import plain
from tests.test_phda19_pass19 import log_texts, seats
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

REDEPLOY = "Roll DR: Redeployment Table"
# The German's chart row for the Scen Max / TM Max test: Scen Max 1, TM Max 2.
GRENS_MAX = {
    "id": "I1",
    "type": "Gren Pl",
    "units": "4-6-7",
    "unit_kind": "squad",
    "cost": "4",
    "date_max": "1",
    "cg_max-tm": "2",
}


def forged_ticks(seat: Seat, words: str, ticks: list[str], **typed: str):
    """Press ``words`` with several boxes of its form ticked at once (page_play's press
    sends one value per field): the answer's status and words, the page read again."""
    form = seat.form_of(words)
    data: dict[str, list[str]] = {}
    for name, value in form.fields:
        data.setdefault(name, []).append(value)
    data.update({name: [value] for name, value in typed.items()})
    data["tick"] = ticks
    answer = seat.client.post(form.action, data, HTTP_HX_REQUEST="true")
    seat.open()
    return answer.status_code, text_of(answer.content.decode())


def test_c5_14_enemy_feba_and_no_mans_land_never_both_on_one_redeployment_dr(
    users, modules, fixed_dice
):
    """Two DRMs of C5.14's Redeployment Table on one DR.

    * "+2 Unit is in enemy FEBA" and "+1 Unit is in No-Man's Land" cannot both apply:
      C5.14 "Each side's units can end a scenario in any one of the following
      situations: i) Behind the enemy's FEBA ... iv) In No-Man's Land"; C2.0 FEBA "any
      friendly controlled hexes ... and all hexes of all friendly TAC [EXC: No Man's
      Land]"; No-Man's Land "A non-Tactical Location".  A hex of the enemy's FEBA is
      never No-Man's Land, so "All DRM are cumulative" adds DRMs that apply, never
      these two together.  Both ticked (two boxes of one form, as a player can tick
      them) is refused citing C5.14, nothing rolled, the squad unchanged.
    * "+2 Unit is in enemy FEBA" with "+1 Unit is Isolated" (the squad's Isolated
      marker, C2.0 "Isolated Location: Any location from which a player cannot draw a
      line of enterable hexes to his friendly FEBA free of any enemy TAC": a unit
      behind the enemy's FEBA may well be Isolated): cumulative, +3.  DR 4+5 = 9 + 3 =
      12: "Remains in hex, Reduced", and i) "if they fail to redeploy (i.e.; any result
      that stipulates that the unit remains in hex), they are eliminated": the 6-6-7
      leaves the US's retained forces (its Original DR 9 alone would have redeployed).
    """
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    both = add(players, "us", "6-6-7", "squad", location="E1")
    isolated = add(players, "us", "6-6-7", "squad", location="E2", markers=("isolated",))
    us = seats(players)["us"]
    us.open()
    ticks = us.form_of(REDEPLOY).choices.get("tick", [])
    assert {"enemy_feba", "no_mans_land"} <= set(ticks), ticks
    status, said = forged_ticks(us, REDEPLOY, ["enemy_feba", "no_mans_land"], unit=both.ref)
    assert 400 <= status < 500, (status, said[:400])
    words = said
    assert "C5.14" in words and "No-Man" in words and "enemy FEBA" in words, words[:400]
    plain(words)
    assert not Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    assert Unit.objects.get(pk=both.pk).markers == []

    fixed_dice.append([4, 5])
    rolled = us.press(REDEPLOY, unit=isolated.ref, tick="enemy_feba")
    assert rolled.status == 200, rolled.text[:400]
    (roll,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    assert sorted(d["value"] for d in roll.drms) == [1, 2], roll.drms
    assert roll.final == 12, roll.final
    assert not Unit.objects.filter(pk=isolated.pk).exists()
    line = [t for t in log_texts(players) if "Redeployment Table for 6-6-7: DR 4+5" in t][-1]
    assert "C5.14 i" in line, line
    plain(line)


def test_footnote_p_two_hexes_counted_across_dates_and_a_take_back_on_both_rosters(
    users, modules, fixed_dice
):
    """RG footnote p "Two additional TPs per pre-Registered hex (C1.73) purchased with a
    module. If the OBA module is unused during current TM Scenario, an additional two
    TP expenditure may be made to requisition each additional Pre-Registered hex. Note
    there is a limit of two Pre-Registered hexes per OBA module" meets itself at two
    dates, with a take-back (C5.31 "TP Cost ... is subtracted from the purchasing
    side's current TP total"; a purchase cancelled at its step refunded) and the TM
    Roster's line of each TM Scenario (C1.3, "Start | Repl | Total | Used | Left").

    * ConPh after 0600 hrs: O1 (p) bought With 1 Pre-Registered hex, 6 TP, on the
      0930 line (the TM Scenario it is bought for): one hex.
    * 1230 hrs (after a Lull at 0930): a further hex, 2 TP (two hexes: the limit);
      no third offered; the further hex taken back (2 TP refunded, one hex); bought
      again (2 TP, two hexes).  The 1230 line's Spent is 2 (once, not 4, not 0).
    * 1530 hrs (after a Lull at 1230): two hexes already, the most it may have: no
      further hex offered; one forged is refused citing footnote p, no TP spent.
    * Each date's Start is the previous Left on the US's roster; the German's roster
      shows none of the US's TP figures ("·"), no word of the hex before the date's
      purchases are revealed (the campaign's policy: both Done at C5.31), then the one
      hex kept, never the one taken back."""
    from tests.test_phd24_pass24 import US_TP, points_cells, roster_rows, tp_drawn
    from tests.test_phd_conph import phd_after
    from tests.test_phda18_pass18 import forge
    from tests.test_phdb19_pass19 import GRENS, MODULE_P, RIFLES, points
    from tests.test_rule_mechanisms import supply_chart

    players, module = phd_after(users, "C5.31")
    supply_chart(players, "us", [MODULE_P, RIFLES])
    supply_chart(players, "german", [GRENS])
    page = seats(players)
    us, de = page["us"], page["german"]
    us.open()
    de.open()
    assert us.press("Buy O1 81mm OBA Module for 6 TP, With 1 Pre-Registered hex").status == 200
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")  # a Lull at 0930 hrs
    fixed_dice.extend([[3, 4], [3, 4]])
    players.until_step("C5.31")
    assert module.dates[players.campaign.date_index].label == "1230 hrs"
    us.open()
    further = "Buy: A further Pre-Registered hex (2 TP)"
    take_back = "Cancel for O1 81mm OBA Module: A further Pre-Registered hex (2 TP)"
    start = points(us)[0]
    assert us.press(further, affirmed="yes").status == 200
    assert points(us)[0] == start - 2
    assert further not in us.buttons(), us.buttons()
    assert us.press(take_back).status == 200
    assert points(us)[0] == start
    assert further in us.buttons(), us.buttons()
    assert us.press(further, affirmed="yes").status == 200
    assert points(us)[0] == start - 2
    assert further not in us.buttons() and take_back in us.buttons(), us.buttons()
    before_reveal = roster_rows(players, "german")["1230 hrs"]
    assert "Pre-Registered" not in " ".join(before_reveal), before_reveal
    for seat in (us, de):
        seat.open()
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")  # a Lull at 1230 hrs
    fixed_dice.extend([[3, 4], [3, 4]])
    players.until_step("C5.31")
    assert module.dates[players.campaign.date_index].label == "1530 hrs"
    us.open()
    assert further not in us.buttons(), us.buttons()
    left = points(us)[0]
    from campaign.models import Purchase

    o1 = Purchase.objects.get(campaign_id=players.campaign_id, group_id="O1")
    forged = forge(us, "add-later", purchase=o1.ref, item="prereg_hex", affirmed="yes")
    assert forged.refused, (forged.status, forged.text[:300])
    assert "already has 2, the most it may have" in forged.text, forged.text[:300]
    assert "footnote p" in forged.text, forged.text[:300]
    plain(forged.text)
    assert points(us)[0] == left

    us_0930 = US_TP[tp_drawn(players, "us", 1)]
    assert tp_drawn(players, "us", 2) == 7 and tp_drawn(players, "us", 3) == 7
    expected = [
        ["30", "0", "30", "0", "30"],
        ["30", str(us_0930), str(30 + us_0930), "6", str(24 + us_0930)],
        [str(24 + us_0930), "30", str(54 + us_0930), "2", str(52 + us_0930)],
        [str(52 + us_0930), "30", str(82 + us_0930), "0", str(82 + us_0930)],
    ]
    mine, theirs = roster_rows(players, "us"), roster_rows(players, "german")
    dates = ["0600 hrs", "0930 hrs", "1230 hrs", "1530 hrs"]
    assert [points_cells(mine[d], "us") for d in dates] == expected, mine
    assert mine["1230 hrs"][6] == "O1: A further Pre-Registered hex (2 TP)", mine["1230 hrs"]
    for d in dates[1:]:
        assert points_cells(theirs[d], "us") == ["·"] * 5, (d, theirs[d])
    # Revealed with the date's purchases (the campaign's reveal policy): the one hex
    # kept, not the one taken back.
    assert theirs["1230 hrs"][6] == mine["1230 hrs"][6], theirs["1230 hrs"]
    assert left == 82 + us_0930


def cvp_cell(cells: list[str], side: str) -> str:
    """The "CVP · SAN" cell of ``side`` in a CG Roster row's cells."""
    return cells[9 if side == "us" else 18]


def test_c5_1_an_amended_result_at_0930_read_by_c5_23_and_c5_29_on_both_pages(
    users, modules, fixed_dice
):
    """C5.1 "All ConPh losses count for the previous scenario for all purposes" meets
    the two DRMs that read the scenario's CVP, at a later date (0930 hrs: pass 22
    amended the Initial TM Scenario's), the result amended at C5.14 by consent:

    * 0930 hrs, US Attack, German Idle; entered: US lost 20 CVP, German 10.  At C5.14
      the US proposes 30 (a platoon behind the German FEBA failed to redeploy, C5.14
      i); the German accepts on his page.
    * C5.23 "-1 per 10 CVP (FRD) amassed by the friendly side in this scenario": the
      German amassed the US's 30: -3, DR 4+4 = 8 - 3 = 5, "1 MMC may Battle Harden";
      the US amassed the German's 10: -1, DR 4+4 = 7, "0 MMC".
    * Once C5.23's rolls have read it, no further amendment is offered.
    * C5.29 (TP for 1230 hrs): "+1 if the friendly side selected the Attack chit in
      the previous scenario" and "-1 per 10 CVP (FRD) suffered by the friendly side in
      the previous TM Scenario", both on one DR: the US 3+4 +1 -3 = 5, +32 TP; the
      German 3+4 -1 = 6, +21 TP (the amended 30, not the 20 entered: -2 would have
      given 6, +31).
    * The CG Roster's 0930 hrs line reads the US's 30 CVP on both pages (public); the
      1230 line's Repl 32 / 21 on each side's own page, "·" on the opponent's."""
    from tests.test_phd24_pass24 import points_cells, roster_rows
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, result_values

    players, module = phd_after(users, "C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module, cvp_lost_us=20, cvp_lost_german=10))
    players.until_step("C5.14")
    page = seats(players)
    us, de = page["us"], page["german"]
    us.open()
    form = us.form_of("Propose the amendment")
    field = next(n for n, _ in form.fields if "cvp_lost" in n and n.endswith("us"))
    reason = "a platoon behind the German FEBA failed to redeploy (C5.14 i)"
    assert us.press("Propose the amendment", **{field: "30", "reason": reason}).status == 200
    de.open()
    assert de.press("Accept the amendment").status == 200
    add(players, "us", "6-6-7", "squad", location="A1")  # MMC the DRs may harden
    add(players, "german", "4-6-7", "squad", location="B1")
    players.until_step("C5.23")
    roll_bp = "Roll DR: Battlefield Promotion Table"
    for seat in (de, us):
        seat.open()
        fixed_dice.append([4, 4])
        rolled = seat.press(roll_bp)
        assert rolled.status == 200, rolled.text[:400]
    promotion = {
        r.side: (r.final, [d["value"] for d in r.drms], r.result)
        for r in Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.23")
    }
    assert promotion == {
        "german": (5, [-3], "1 MMC may Battle Harden"),
        "us": (7, [-1], "0 MMC"),
    }, promotion
    us.open()
    assert "Propose the amendment" not in us.buttons(), us.buttons()
    players.until_step("C5.28")
    fixed_dice.extend([[3, 4], [3, 4]])
    players.until_step("C5.31")
    assert module.dates[players.campaign.date_index].label == "1230 hrs"
    tp = {
        r.side: (r.final, sorted(d["value"] for d in r.drms))
        for r in Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.29", date_index=2)
    }
    assert tp == {"us": (5, [-3, 1]), "german": (6, [-1])}, tp

    mine, theirs = roster_rows(players, "us"), roster_rows(players, "german")
    for rows in (mine, theirs):
        assert cvp_cell(rows["0930 hrs"], "us").startswith("30"), rows["0930 hrs"]
        assert cvp_cell(rows["0930 hrs"], "german").startswith("10"), rows["0930 hrs"]
    assert points_cells(mine["1230 hrs"], "us")[1] == "32", mine["1230 hrs"]
    assert points_cells(theirs["1230 hrs"], "german")[1] == "21", theirs["1230 hrs"]
    assert points_cells(mine["1230 hrs"], "german") == ["·"] * 5, mine["1230 hrs"]
    assert points_cells(theirs["1230 hrs"], "us") == ["·"] * 5, theirs["1230 hrs"]


def test_one_leader_through_c5_14_c5_19_and_c5_24_wounded_evacuated_then_the_next_lower(
    users, modules, fixed_dice
):
    """Three sentences on one leader, each step reading what the one before wrote, on
    the US's page.

    * C5.14, Infantry column: DR 5+6 = 11 "Redeploys, Reduced"; Reduced is Casualty
      Reduction (A7.302): the 8-1 is wounded.
    * C5.19 "Roll a dr on the Leader Evacuation Table for each wounded leader": the dr
      is owed for him (Done not offered, a forged one refused, until it is made);
      dr 6 "Evacuated (removed from play)": he leaves the retained forces.
    * C5.24 "Battle Harden one Retained Non-Wounded Infantry Leader", DR 3+3 = 6 "5-6 |
      8-1"; footnote * "If that side does not currently retain the leader selected,
      then the player must Battle Harden the next lower quality non-wounded leader
      (i.e. if a 9-1 is selected, but there is no 9-1, then the next lower quality
      would be an 8-1, followed by an 8-0, etc.)": no 8-1 is retained (evacuated), no
      8-0, so the 7-0 Battle Hardens: an 8-0.  The German's page reads the
      redeployment and the evacuation (open rolls of the US's open units), never the
      secret C5.24 DR's hardening nor the 8-0."""
    from tests.test_phd_conph import phd_after
    from tests.test_phda18_pass18 import forge
    from tests.test_rule_mechanisms import add, supply_leader_evacuation, unit_names

    players, _ = phd_after(users, "C5.14")
    supply_leader_evacuation(players, "Retained Wounded", "none")
    eight = add(players, "us", "8-1 leader", "leader", location="L1")
    add(players, "us", "7-0 leader", "leader", location="L2")
    s = seats(players)
    us, de = s["us"], s["german"]
    us.open()
    fixed_dice.append([5, 6])
    assert us.press(REDEPLOY, unit=eight.ref).status == 200
    assert Unit.objects.get(pk=eight.pk).markers == ["wounded"]
    players.until_step("C5.19")
    us.open()
    assert "Done with C5.19" not in us.buttons(), us.buttons()
    refused = forge(us, "finish")
    assert refused.refused and "Leader Evacuation Table" in refused.text, refused.text[:300]
    fixed_dice.append([6])
    evacuate = next(b for b in us.buttons() if "Leader Evacuation Table" in b)
    assert us.press(evacuate, unit=eight.ref).status == 200
    assert not Unit.objects.filter(pk=eight.pk).exists()
    players.until_step("C5.24")
    us.open()
    fixed_dice.append([3, 3])
    rolled = us.press("Roll DR: Leader Promotion Table")
    assert rolled.status == 200, rolled.text[:400]
    line = [t for t in log_texts(players) if "Leader Promotion Table" in t][-1]
    assert "7-0 leader Battle Hardens: now 8-0 leader" in line, line
    plain(line)
    names = sorted(n for n, kind, *_ in unit_names(players, "us") if kind == "leader")
    assert names == ["8-0 leader"], names
    words = de.open()
    assert "8-0 leader" not in words and "Battle Hardens" not in words, words[-1500:]


def test_c5_25b_a_booby_trap_take_back_after_the_reduction_returns_to_b_not_a(users, modules):
    """C5.35 note 8 "Creates Level C Booby Traps, or increases a pre-existing Level to
    the next Level" meets C5.25b "If the German has a Booby Trap Level that is > Level
    B, it will be reduced to Level B prior to making any requisitions (C5.31)" and a
    take-back at C5.35 ("Take back my last fortification"; its DSP refunded):

    * I-C5.35, 120 DSP: three Booby Traps purchases: C, B, A (30 DSP left, lost).
    * 0930 hrs: C5.25b reduces A to B before the requisitions; D1 (30 DSP for 2 TP)
      bought at C5.31; at C5.35 one Booby Traps purchase: A.  Taken back: the Level
      is the one before that purchase, B (as reduced), never the A of 0600 hrs; the
      30 DSP are his again; bought again: A, 0 DSP.
    * The US's page names no Level and offers no Booby Traps at any point (note G)."""
    from campaign.models import Seat as SeatRow
    from tests.test_phd24_pass24 import BOOBY, STORES_30, level_shown
    from tests.test_phdb18_pass18 import step_part
    from tests.test_phdb19_pass19 import GRENS, RIFLES, dsp
    from tests.test_rule_mechanisms import module_of, result_values, supply_chart
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="us", through_start=False)
    players = players_of(c, a, b)
    players.until_step("I-C5.35")
    SeatRow.objects.filter(campaign_id=c.pk, side="german").update(fortification_points=120)
    s = seats(players)
    us, de = s["us"], s["german"]
    for level in ("C", "B", "A"):
        de.open()
        assert de.press(BOOBY).status == 200
        assert level_shown(de) == level
    players.until("results")
    players.results(**result_values(module_of(c)))
    supply_chart(players, "us", [RIFLES])
    supply_chart(players, "german", [GRENS, STORES_30])
    players.until_step("C5.31")
    de.open()
    assert de.press("Buy D1 Defensive Stores for 2 TP").status == 200
    players.until_step("C5.35")
    assert level_shown(de) == "B"
    assert dsp(de) == 30
    assert de.press(BOOBY).status == 200
    assert level_shown(de) == "A" and dsp(de) == 0
    take_back = next(w for w in de.buttons() if w.startswith("Take back my last fortification"))
    assert "Booby" in take_back, take_back
    assert de.press(take_back).status == 200
    assert level_shown(de) == "B", step_part(de)[:800]
    assert dsp(de) == 30
    assert de.press(BOOBY).status == 200
    assert level_shown(de) == "A" and dsp(de) == 0
    us.open()
    assert "Level now" not in step_part(us), step_part(us)
    assert not [w for w in us.buttons() if "Booby" in w], us.buttons()


def test_tm20_the_two_shermans_bought_at_c5_31_roll_one_dr_each_at_tm20(users, modules, fixed_dice):
    """C5.31 (an RG requisitioned for the coming TM Scenario) meets TM20 "The US player
    may make a secret dr, to determine if an eligible Sherman tank has a functioning
    Gyrostabilizer" (C3.0 "All PHD TM Mission Special Rules (MSR) below apply in all TM
    Scenarios"): the US buys A1 Sherman Pl (two M4A1, one line "2 × M4A1") at the
    ConPh's C5.31 for 0930 hrs (a US Attack); once its units are his (C5.33), TM20
    offers the line; the dr made for one tank splits it off (its result is its own),
    the other is offered and rolled: two drs, one per tank.  A third, posted for
    either tank with the form the page had, is refused, nothing rolled.  The German's
    page shows that secret rolls were made, never their dice."""
    from tests.test_phd_conph import phd_after
    from tests.test_phdb19_pass19 import GRENS, SHERMANS, post
    from tests.test_rule_mechanisms import supply_chart

    players, _ = phd_after(users, "C5.31")
    supply_chart(players, "us", [SHERMANS])
    supply_chart(players, "german", [GRENS])
    s = seats(players)
    us, de = s["us"], s["german"]
    us.open()
    assert us.press("Buy A1 Sherman Pl for 8 TP, On-Map set up").status == 200
    players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until_step("TM20")
    us.open()
    gyro = next(b for b in us.buttons() if "Gyrostabilizer" in b)
    (line,) = us.options(gyro, "unit")
    assert line[1].startswith("2 × M4A1"), line
    fixed_dice.append([3])
    assert us.press(gyro, unit=line[0]).status == 200
    # The tank rolled for is a line of its own; the other is still offered.
    (other,) = us.options(gyro, "unit")
    assert other[1].startswith("M4A1"), other
    form = us.form_of(gyro)
    fixed_dice.append([5])
    assert us.press(gyro, unit=other[0]).status == 200
    assert gyro not in us.buttons(), us.buttons()
    rolled = [u.ref for u in Unit.objects.filter(campaign_id=players.campaign_id, side="us")]
    assert len(rolled) == 2, rolled
    for ref in rolled:
        again = post(us, form, unit=ref)
        assert again.refused, (again.status, again.text[:300])
        plain(again.text)
    rolls = Roll.objects.filter(campaign_id=players.campaign_id, table_id="gyrostabilizer")
    assert rolls.count() == 2
    mine = [t for t in log_texts(players) if "Gyrostabilizer" in t and "rolled" in t]
    assert len(mine) == 2, mine
    words = de.open()
    assert "dr 3" not in words and "dr 5" not in words, words[-1500:]


def test_c5_14_then_c5_15_the_mmg_of_a_squad_the_redeployment_eliminated_is_eliminated(
    users, modules, fixed_dice
):
    """C5.14 i (the squad behind the enemy FEBA that fails to redeploy is eliminated)
    meets C5.15 "after which, any SW/Guns that are not possessed are eliminated", on
    one MMG: its possessor, the 6-6-7, DR 6+6 +2 (enemy FEBA) = 14 "Eliminated", leaves
    the retained forces; the MMG it possessed is possessed by no one (ASL: a SW of an
    eliminated unit is left in its Location), so at C5.15's Done it is eliminated.  A
    second MMG whose possessor redeployed (DR 4+5 = 9) stays."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    lost = add(players, "us", "6-6-7", "squad", location="E1")
    kept = add(players, "us", "6-6-7", "squad", location="F1")
    orphan = add(players, "us", "MMG", "sw", possessor=lost.ref, location="E1")
    held = add(players, "us", "MMG", "sw", possessor=kept.ref, location="F1")
    s = seats(players)
    us = s["us"]
    us.open()
    fixed_dice.append([6, 6])
    assert us.press(REDEPLOY, unit=lost.ref, tick="enemy_feba").status == 200
    fixed_dice.append([4, 5])
    assert us.press(REDEPLOY, unit=kept.ref).status == 200
    assert not Unit.objects.filter(pk=lost.pk).exists()
    players.until_step("C5.15")
    for side in ("us", "german"):
        s[side].open()
        assert s[side].press("Done with C5.15").status == 200
    left = set(Unit.objects.filter(campaign_id=players.campaign_id).values_list("pk", flat=True))
    assert held.pk in left, "the MMG of the squad that redeployed stays"
    assert orphan.pk not in left, Unit.objects.get(pk=orphan.pk).markers


def test_c5_31_scen_max_and_tm_max_with_a_cancel_and_a_lull_between(users, modules):
    """C5.31 "Scen Max: Lists the maximum number of RG of this type that may be
    requisitioned per TM Scenario" and "TM Max: ... during the course of the TM" meet a
    purchase cancelled at its step (refunded: it is not requisitioned) and a Lull
    (C2.0 "Lull: A TM Scenario in which neither side has requisitioned an attack
    option": a TM Scenario all the same).  The German's chart: I1 Gren Pl, 4 TP, Scen
    Max 1, TM Max 2.

    * For 0930 hrs: I1 bought, cancelled (4 TP back), bought again (the cancelled one
      does not count); a second refused naming "Scen Max", nothing spent.
    * 0930 hrs is a Lull.  For 1230 hrs: I1 bought (a new TM Scenario: Scen Max 1
      again; TM Max: 2 of 2 with the one bought for the Lull, never entered but
      requisitioned).
    * For 1530 hrs: refused naming "TM Max", nothing spent."""
    from tests.test_phd_conph import phd_after
    from tests.test_phda18_pass18 import forge
    from tests.test_phdb19_pass19 import RIFLES, points
    from tests.test_rule_mechanisms import supply_chart

    players, _ = phd_after(users, "C5.31")
    supply_chart(players, "us", [RIFLES])
    supply_chart(players, "german", [GRENS_MAX])
    de = seats(players)["german"]
    de.open()
    buy = "Buy I1 Gren Pl for 4 TP, On-Map set up"
    form, button = de.form_of(buy), de.button(buy).attrs
    action = form.action.rstrip("/").split("/")[-1]
    fields = {n: v for n, v in form.fields if n not in ("at", "csrfmiddlewaretoken")}
    fields[button["name"]] = button["value"]
    start = points(de)[0]
    assert de.press(buy).status == 200
    cancel = next(w for w in de.buttons() if w.startswith("Cancel RG") and "I1" in w)
    assert de.press(cancel).status == 200
    assert points(de)[0] == start
    assert de.press(buy).status == 200
    assert points(de)[0] == start - 4

    def refused(word: str) -> None:
        """The buy the page no longer offers, posted as its button did."""
        tp = points(de)[0]
        answer = forge(de, action, **fields)
        assert answer.refused and word in answer.text and "C5.31" in answer.text, answer.text[:300]
        plain(answer.text)
        assert points(de)[0] == tp

    refused("Scen Max")
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")  # a Lull at 0930 hrs
    players.until_step("C5.31")
    de.open()
    assert de.press(buy).status == 200
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")
    players.until_step("C5.31")
    de.open()
    refused("TM Max")
