"""Sicily (seed 001), RePh 3.6-3.623 with both RG charts, the twenty-fifth pass of the
sentence audit (issue 44): sentences that meet.  Two rules that apply to one unit,
purchase, roll, step or figure, played through the pages (tests/page_play.py) as two
players would, each figure read against a hand computation quoting both sentences
(docs/rules-audit/pass-25-sic25.md)."""

from __future__ import annotations

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _log, _markers
from tests.test_sica22_pass22 import _rolled

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

LIST = "Record my Setup Areas"
ESCAPE = "Roll DR: Escape"


def _listed(players, axis: str, british: str):
    """Both sides' 3.605 pages: each lists its Setup Areas (3.605 MARKING THE MAP) and
    presses Done; the 3.606 pages."""
    a, b = _seat(players, "axis"), _seat(players, "british")
    _rolled(a, LIST, areas=axis)
    _rolled(b, LIST, areas=british)
    _rolled(a, "Done with 3.605")
    _rolled(b, "Done with 3.605")
    assert players.step.id == "3.606", players.step.id
    return _seat(players, "axis"), _seat(players, "british")


# ------------------------------------------------------------ 3. two modifiers, one roll


def test_3_606_in_enemy_setup_area_applies_by_itself_with_night_encircled_and_stack(
    users, modules, fixed_dice
):
    """3.606: "+1 | If in enemy Setup Area, or if it must trace a path through ≥ one
    enemy Setup Area to its intended Area of Retention |", "-1 | If current CG Date is
    Night* |", "+2 | if Encircled* |", "+1 | per HS-equivalent > one HS using the same
    Escape DR* |"; 3.6056 chart "in enemy Setup Area | must attempt Escape (3.606)";
    3.605 "each side should record ... an ID for each one".  Four modifiers on one DR.
    CG I, the RePh after July 14 Night (3.606 on that Night date).  At 3.605 the Axis
    list A, the British North.  The Axis Encircled 4-6-7 entered in North stands in a
    Setup Area the British list: the first half of the +1 is on the record, so it
    applies by itself, said with its source, and is not ticked (a forged tick of the
    whole sentence is refused: one +1, never two; the squad still owes its DR).  Hand:
    DR 2+3 = 5, -1 Night, +1 in enemy Setup Area, +2 Encircled, +1 for a squad alone
    (two HS-equivalents, one beyond the first) = 8: "≤ 8 Escapes"; one more pip would
    be 9 (Replaced).  The Axis 2-4-7 HS in A (their own): no +1 by itself, but the
    path half is the player's (the path is the map's), ticked: DR 3+3 = 6, -1 Night,
    +1 ticked = 6.  The British page's log reads the same roll and its source."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.605")
    squad = add(players, "axis", "4-6-7", "squad", location="North", status="encircled")
    half = add(players, "axis", "2-4-7", "half_squad", location="A")
    axis, british = _listed(players, "A", "North")
    assert _markers(squad) == ["encircled", "escape_due"], _markers(squad)
    # The tick of the whole sentence for the squad: refused where the page is.
    forged = _forge(axis, "roll", table="escape", unit=squad.ref, tick="enemy_setup_area")
    assert forged.refused and forged.status < 500, (forged.status, forged.text[:400])
    assert "it stands in a Setup Area the enemy lists" in forged.text, forged.text[:600]
    assert "(3.606)" in forged.text and "escape_due" in _markers(squad)
    fixed_dice.append([2, 3])
    _rolled(axis, ESCAPE, unit=squad.ref, stack="")
    said = _log(players).rsplit("Escape for", 1)[1]
    assert (
        "+1 If in enemy Setup Area: 4-6-7 in Setup Area North, which the British list (3.605)"
        in said
    ), said
    assert "-1 If current CG Date is Night" in said and "+2 If Encircled" in said, said
    assert "→ 8: Infantry: Escapes" in said, said
    assert "escape_due" not in _markers(squad)
    fixed_dice.append([3, 3])
    _rolled(axis, ESCAPE, unit=half.ref, stack="", tick="enemy_setup_area")
    said = _log(players).rsplit("Escape for", 1)[1]
    assert "+1 If in enemy Setup Area, or if it must trace a path" in said, said
    assert "which the British list" not in said and "→ 6:" in said, said
    theirs = british.open()
    assert "which the British list (3.605)" in theirs, theirs[:3000]


def test_3_6142_footnote_star_an_isolated_afv_recalled_by_its_ma_roll_gets_3_6141c(
    users, modules, fixed_dice
):
    """3.6142: "≥ 2 | Eliminated*", "* If vehicular-mounted, the Weapon is Disabled; if
    MA, the AFV is immediately Recalled (3.6141c applies)", "-1 | if vehicular-mounted",
    "-x | (Weapon Repair Number)", "+1 | if Isolated"; 3.6141c: "If Mobile, under Recall,
    and Isolated, such an AFV begins the next scenario under Recall (as well as
    suffering from Ammunition Shortage;A19.131)"; 3.61425: "Each Low Ammo marker on each
    non-captured, non-Isolated vehicle is removed".  CG I, 3.614 of July 15 PM (3.6141c's
    own settling ran as 3.613 completed, before this roll).  The Isolated, Mobile
    Sherman's MA: dr 3 -1 vehicular -1 (Repair Number 1) +1 Isolated = 2: Disabled, the
    AFV Recalled, and, 3.6141c applying, Low Ammo at once; still Recalled and Low Ammo
    once 3.614 completes (Isolated: 3.61425 leaves it).  The non-Isolated Sherman's MA:
    dr 4 -1 -1 = 2: Disabled and Recalled, no Low Ammo (3.6141c's second sentence is for
    an Isolated AFV; it keeps its Recall: the module's reading of the cut first
    sentence, step 3.613's note).  On main the Isolated one was never marked Low Ammo
    (fixed).  The Axis page reads the rolls and their consequences."""
    from campaign.models import Unit
    from tests.purchase_helpers import add_vehicle

    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.614")
    iso, _ = add_vehicle(
        players, "british", "Sherman III", ("ma", ["malfunctioned"]), status="isolated"
    )
    free, _ = add_vehicle(players, "british", "Sherman III", ("ma", ["malfunctioned"]))
    british = _seat(players, "british")
    refs = {
        u.pk: r
        for r, _ in british.options("Roll dr: Weapon Repair", "unit")
        for u in (iso, free)
        if r.startswith(u.ref)
    }
    fixed_dice.append([3])
    _rolled(british, "Roll dr: Weapon Repair", unit=refs[iso.pk], **{"typed.repair_number": "-1"})
    said = _log(players).rsplit("Weapon Repair for", 1)[1]
    assert "+1 if Isolated → 2: Eliminated [*]" in said, said
    assert "Low Ammo (Ammunition Shortage, A19.131) (3.6142 footnote *; 3.6141c)" in said, said
    assert _markers(iso) == ["isolated", "low_ammo", "recalled"], _markers(iso)
    fixed_dice.append([4])
    _rolled(british, "Roll dr: Weapon Repair", unit=refs[free.pk], **{"typed.repair_number": "-1"})
    said = _log(players).rsplit("Weapon Repair for", 1)[1]
    assert "→ 2: Eliminated [*]" in said and "Low Ammo" not in said, said
    assert _markers(free) == ["recalled"], _markers(free)
    theirs = _seat(players, "axis").text
    assert "(3.6142 footnote *; 3.6141c)" in theirs, theirs[:3000]
    players.until_step("3.615")
    assert _markers(iso) == ["isolated", "low_ammo", "recalled"], _markers(iso)
    assert _markers(free) == ["recalled"], _markers(free)
    disabled = [w["markers"] for u in (iso, free) for w in Unit.objects.get(pk=u.pk).weapons]
    assert disabled == [["disabled"], ["disabled"]], disabled


def test_3_610_three_drms_on_one_wounded_leader_and_the_airborne_drm_not_the_axiss(
    users, modules, fixed_dice
):
    """3.610: "≤ 1 | Retained unwounded", "2-4 | Retained wounded", "≥ 5 | Eliminated
    (evacuated)"; drm "+1 if Isolated", "-1 if Heroic", "-1 if part of British Airborne
    RG".  Three on one dr.  CG II, 3.610 after July 16 AM: the British wounded, Isolated,
    heroic 8-1 of an Airborne RG (added by hand, so the Airborne drm ticked): dr 5 +1 -1
    -1 = 4: Retained wounded (without the two -1s it would be 6: evacuated).  The Axis
    wounded, Isolated, heroic 8-1: dr 5 +1 -1 = 5: Eliminated (evacuated); the British
    drm is not offered to him, and a forged tick of it is refused citing 3.610, no roll
    made.  Each side's page reads the other's roll."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.610")
    theirs = add(
        players, "british", "8-1 leader", "leader", status="wounded", markers=["isolated", "heroic"]
    )
    ours = add(
        players, "axis", "8-1 leader", "leader", status="wounded", markers=["isolated", "heroic"]
    )
    british, axis = _seat(players, "british"), _seat(players, "axis")
    words = "Roll dr: Wounded Leaders"
    fixed_dice.append([5])
    _rolled(british, words, unit=theirs.ref, tick="british_airborne_no_rg")
    said = _log(players).rsplit("Wounded Leaders for", 1)[1]
    assert "+1 if Isolated" in said and "-1 if Heroic" in said, said
    assert "-1 if part of British Airborne RG" in said and "→ 4: Retained wounded" in said, said
    assert "wounded" in _markers(theirs)
    assert "british_airborne_no_rg" not in axis.form_of(words).choices.get("tick", [])
    forged = _forge(
        axis, "roll", table="wounded_leaders", unit=ours.ref, tick="british_airborne_no_rg"
    )
    assert forged.refused and "(3.610)" in forged.text, (forged.status, forged.text[:400])
    assert (
        "Wounded Leaders for 8-1 leader: dr" not in _log(players).rsplit("Retained wounded", 1)[1]
    )
    fixed_dice.append([5])
    _rolled(axis, words, unit=ours.ref)
    said = _log(players).rsplit("Wounded Leaders for", 1)[1]
    assert "→ 5: Eliminated (evacuated)" in said, said
    assert "→ 4: Retained wounded" in british.open() and "→ 5: Eliminated" in british.text


# ------------------------------------------------------------ 1. combined limits


def test_british_fn_e_one_o4_at_a_time_meets_fn_j_cost_per_module_and_creeping_meets_date_max(
    users, modules
):
    """British chart footnote j: "Off board observer ... Cost is per module.  Each Off
    board Observer is retained as long as the module he is assigned to is retained";
    footnote e: "No more than 1 O4 may be in a sides OB at any given time", and "Use as
    a creeping barrage increases the cost of a module by 50%"; the chart's O1 row: CG
    Date Max 1.  Each alone allows a second buy; together they refuse it.  Hand reading:
    "cost is per module" prices an observer by the module he serves, it does not lift
    footnote e's one O4 at a time: with the O1 and O2 both held, one O4 is bought (1
    CPP) and a second is refused citing footnote e.  The O1 bought as a Creeping
    Barrage (7 + 50% = 10.5, FRU 11) is still the date's one O1: a second O1 at its
    printed 7 is refused by the date's maximum.  CG I, July 16 Night, 60 CPP: 60 - 11 -
    8 - 1 = 40 left after the refusals; the Axis page reads the same before and after
    the British refusals (3.617: "may all be kept secret")."""
    from tests.test_sicb18_pass18 import _seats

    players, _ = campaign_at("sicily", "i", "jul16n", users, points=60)
    seats = _seats(players)
    british, axis = seats["british"], seats["axis"]
    british.open()
    for words in (
        "Buy O1 Btln Mtr for 11 CPP, OBA module as a Creeping Barrage (50% more, FRU)",
        "Buy O2 Lgt Arty for 8 CPP",
        "Buy O4 Offboard Observer for 1 CPP",
    ):
        _rolled(british, words)
    before = axis.open()
    said = british.open()
    assert not [b for b in british.buttons() if b.startswith(("Buy O4 ", "Buy O1 "))], (
        british.buttons()
    )
    forged = _forge(british, "buy", group="O4")
    assert forged.refused and "footnote e" in forged.text, forged.text[:400]
    assert "Nothing was changed" in forged.text, forged.text[:400]
    forged = _forge(british, "buy", group="O1")
    assert forged.refused and "Nothing was changed" in forged.text, forged.text[:400]
    said = british.open()
    assert "You have 40 CPP" in said, said[:2000]
    assert axis.open() == before


def _cg_iii_july_14_pm_replenished(users, fixed_dice):
    """CG III, the July 14 AM scenario's result (British lose 20 CVP, Axis 2), walked to
    3.616 of July 14 PM, the British loss-point dr a 4 (3.6162): British 12 + 4 = 16,
    Axis 29 (3.6161)."""
    from campaign.selectors import module_of
    from rules import machine
    from tests.walk import host_game, players_of

    alice, bob = users
    c = host_game("sicily", "iii", alice, bob, name="forgo")
    module = module_of(c)
    c.date_index = machine.date_index(module, "jul14pm") - 1
    c.save(update_fields=["date_index"])
    players = players_of(c, alice, bob)
    players.results(**mechanisms.result_values(module, cvp_lost_british=20, cvp_lost_axis=2))
    fixed_dice.append([4])
    players.until_step("3.616")
    return players


def test_3_616_exc_the_forgo_bound_counts_the_loss_point_dr_of_3_6162(users, modules, fixed_dice):
    """3.616: "the CPP Base # (3.6161) plus CG Scenario Loss Points (3.6162) equals the
    final amount of CPP replenished.  [EXC: On the July 14 PM date of CG III the British
    player may fore go all or a portion of the allotted CPP.  The number of CPP fore gone
    is subtracted from the Axis CPP base.]"; 3.6162: "If the CVP lost by a player for the
    prior CG scenario (only) are ≥ two times, and ≥ 8 more than, the CVP lost by the
    other Player, that player may make a dr and add this value to the CPP Base Number".
    Hand reading: the allotted CPP are the whole replenishment, base and loss points.
    CG III, the July 14 AM scenario: British lose 20 CVP, Axis 2 (20 ≥ 2 × 2 and ≥ 2 +
    8).  July 14 PM: British base 12 + loss-point dr 4 = 16 allotted, so 16 may be
    forgone, 17 may not; the Axis 29 (no loss points: 2 < 2 × 20).  The British forgo 16:
    British 16 fewer, Axis 16 fewer (29 - 16 = 13 from this date).  3.617: "write the
    number of CPP remaining, even if zero, in the "Left" column": each side's CG Roster
    row of July 14 PM reads what it keeps (British Repl 16 - 16 = 0, Left 0; Axis Repl
    29 - 16 = 13, Left 13); it read Repl 16 / Left 16 and Repl 29 / Left 29 while the
    sides held 0 and 13 (fixed).  Then a correction meeting the step that used the
    figure: the Axis CVP lost amended 2 → 3 at 3.617 (accepted; the loss-point dr still
    called for): the replenishment is computed again (16 and 29) and the forgone 16 stay
    forgone, on both rosters and in both sides' CPP."""
    from campaign.models import Seat as SeatRow
    from tests.test_sicb18_pass18 import _seats

    players = _cg_iii_july_14_pm_replenished(users, fixed_dice)
    c = players.campaign
    seats = _seats(players)
    british, axis = seats["british"], seats["axis"]
    said = british.open()
    assert "You may forgo up to 16 CPP; the Axis lose as many (3.616 EXC)" in said, said[:3000]
    answer = british.press("Forgo and finish", amount="17")
    assert answer.refused and "Forgo between 0 and 16 CPP" in answer.text, answer.text[:400]
    points = dict(SeatRow.objects.filter(campaign_id=c.pk).values_list("side", "points"))
    _rolled(british, "Forgo and finish", amount="16")
    after = dict(SeatRow.objects.filter(campaign_id=c.pk).values_list("side", "points"))
    assert after == {"axis": points["axis"] - 16, "british": points["british"] - 16}, after
    log = _log(players)
    assert "loss-point dr 4 (3.6162)" in log, log[-1500:]
    assert "British CPP: base for July 14 PM 12 (3.6161)" in log and "total 16 (3.616)" in log
    # The CG Roster's July 14 PM rows read what each side keeps (3.617's "Left"):
    # British Start 0 + Repl 16 - 16 = 0; Axis Start 0 + Repl 29 - 16 = 13.
    mine = _seat(players, "british", "roster/").text
    assert "July 14 PM — · · · · · 0 0 0 0 0" in mine, mine[:1500]
    theirs = _seat(players, "axis", "roster/").text
    assert "July 14 PM — 0 13 13 0 13" in theirs, theirs[:1500]
    assert "British forgoes 16 CPP; the Axis CPP are reduced by 16 (3.616 EXC)." in log
    assert "the Axis CPP are reduced by 16 (3.616 EXC)" in axis.open()
    # A correction after the forgo used the replenishment: at 3.617 the Axis CVP lost
    # amended 2 -> 3 (20 ≥ 2 × 3 and ≥ 3 + 8: the dr still called for, as rolled); the
    # replenishment computed again gives 16 and 29 again, and the forgone 16 stay
    # forgone: both sides hold what they held, their rows read as before.
    from tests.test_sicb22_pass22 import _amend

    players.until("purchase")
    held = dict(SeatRow.objects.filter(campaign_id=c.pk).values_list("side", "points"))
    answer, offered = _amend(axis, british, "cvp_lost.axis", "3")
    assert answer.status == 200 and not answer.refused and offered, answer.text[:400]
    _rolled(british, "Accept the amendment")
    assert "16 → 16 replenished" in _log(players), _log(players)[-800:]
    again = dict(SeatRow.objects.filter(campaign_id=c.pk).values_list("side", "points"))
    assert again == held, (held, again)
    assert "July 14 PM — · · · · · 0 0 0 0 0" in _seat(players, "british", "roster/").text
    assert "July 14 PM — 0 13 13 0 13" in _seat(players, "axis", "roster/").text


def test_3_6181_a_depleted_strength_dr_gives_the_3_6183_leader_dr_its_plus_1_with_british_v(
    users, modules, fixed_dice
):
    """3.6181: "DR | RG Strength | ≤ 9 | Full Strength | ≥ 10 | Depleted", "-1 | "G" and "V"
    type RG [EXC: British Airlanding]", "-1 | Non-Airborne/"; 3.6183: "+1 Depleted RG",
    "+2 British "V" RG", the Armor Leader column "6-7 | 8-1", "8-9 | -".  One roll's result
    is the next roll's modifier.  CG I, July 15 AM, the British buy two V1 Med Tank
    Troops; at 3.618 each makes its secret rolls, the Non-Airborne DRM ticked.  First:
    strength DR 6+6 = 12 -1 -1 = 10: Depleted; its leader DR 3+2 = 5 +1 Depleted +2
    British V = 8: no Armor Leader.  Second: strength DR 5+4 = 9 -1 -1 = 7: Full; the
    same leader DR 3+2 = 5 +2 = 7: an 8-1 Armor Leader (the Depleted +1 alone made the
    difference).  The Axis page reads the same before and after (3.6181 "one Secret
    DR")."""
    from tests.test_sicb18_pass18 import _press_through, _seats

    players, _ = campaign_at("sicily", "i", "jul15am", users, points=100)
    seats = _seats(players)
    british, axis = seats["british"], seats["axis"]
    british.open()
    _rolled(british, "Buy V1 Med Tank Troop for 12 CPP")
    _rolled(british, "Buy V1 Med Tank Troop for 12 CPP")
    _press_through(seats, "3.617")
    before = axis.open()
    british.open()
    tick = "rg_strength:non_airborne"
    fixed_dice.extend([[6, 6], [3, 2]])
    _rolled(british, "Make its secret rolls: RG 1 of the list, V1 Med Tank Troop", claim=tick)
    fixed_dice.extend([[5, 4], [3, 2]])
    _rolled(british, "Make its secret rolls: RG 2 of the list, V1 Med Tank Troop", claim=tick)
    assert not fixed_dice
    said = british.open()
    strength = '-1 "G" and "V" type RG [EXC: British Airlanding], -1 Non-Airborne/'
    depleted, full = said.split("V1 Med Tank Troop — 12 CPP, July 15 AM")[1:3]
    assert "D, 2 units" in depleted and f"Depleted (DR 6+6, {strength}" in depleted, depleted
    assert 'Armor Leader: none (DR 3+2, +1 Depleted RG, +2 British "V" RG → 8)' in depleted, (
        depleted
    )
    assert "F, 3 units" in full and f"Full Strength (DR 5+4, {strength}" in full, full
    assert 'Armor Leader: 8-1 (DR 3+2, +2 British "V" RG → 7)' in full, full[:800]
    assert axis.open() == before


# ------------------------------------------------ 4. once / required meeting a repeat


def test_3_61426_owed_on_the_idle_repeat_that_falls_on_a_night_date(users, modules, fixed_dice):
    """3.61426: "If this is a Night CG Date, ... all mobile Isolated British Tanks must
    now attempt Escape"; 3.6212 footnote 2: "No scenario generated for this CG Date; each
    side repeats RePh steps 3.612-.6212"; 3.606: "+2 | If Isolated", "-1 | if CT AFV".
    CG I, the RePh after July 15 AM: 3.614 falls on July 15 PM, a day: the Isolated
    Sherman owes no Escape and the British Done is offered.  Both Idle: the repeated
    3.612 makes July 15 Night, and the repeated 3.614 on it owes the Escape of both
    Isolated Shermans (Done waits; a forged Done is refused citing 3.61426).  Hand: DR
    4+3 = 7, +2 Isolated, -1 CT AFV (ticked) = 8: "≤ 8 Escapes", no longer Isolated;
    the other's DR 4+4 +2 -1 = 9: "Abandoned; crew (if any) Escapes".  Once each: a
    second Escape for the first is refused.  The Axis page reads the rolls (not secret)
    and owes none."""
    from tests.test_sica21_pass21 import _dones
    from tests.test_sicb18_pass18 import _seats

    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.614")
    one = add(players, "british", "Sherman III", "vehicle", status="isolated")
    two = add(players, "british", "Sherman III", "vehicle", status="isolated")
    british = _seat(players, "british")
    assert not [b for b in british.buttons() if "tanks at Night" in b], british.buttons()
    assert "Done with 3.614" in british.buttons(), british.buttons()
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until_step("3.614")
    assert "July 15 Night" in _seat(players, "axis").text
    seats = _seats(players)
    british, axis = seats["british"], seats["axis"]
    british.open()
    words = next(b for b in british.buttons() if "British tanks at Night" in b)
    assert sorted(v for v, _ in british.options(words, "unit")) == sorted([one.ref, two.ref])
    assert not _dones(british), british.buttons()
    forged = _forge(british, "finish")
    assert forged.refused and "3.61426" in forged.text, (forged.status, forged.text[:400])
    fixed_dice.append([4, 3])
    _rolled(british, words, unit=one.ref, tick="ct_afv")
    said = _log(players).rsplit("Escape:", 1)[1]
    assert "+2 If Isolated" in said and "-1 If CT AFV" in said and "→ 8:" in said, said
    assert "isolated" not in _markers(one)
    fixed_dice.append([4, 4])
    _rolled(british, words, unit=two.ref, tick="ct_afv")
    said = _log(players).rsplit("Escape:", 1)[1]
    assert "→ 9: Mobile Vehicle: Abandoned" in said, said
    again = _forge(british, "roll", table="tank_escape", unit=one.ref)
    assert again.refused, (again.status, again.text[:300])
    assert "Done with 3.614" in british.open() or _dones(british), british.buttons()
    axis.open()
    assert not [b for b in axis.buttons() if "tanks at Night" in b], axis.buttons()
    assert "→ 9: Mobile Vehicle: Abandoned" in axis.text, axis.text[:3000]


def test_3_616_exc_forgo_then_3_617_exc_the_rest_lost_on_the_roster(users, modules, fixed_dice):
    """3.616 EXC: "the British player may fore go all or a portion of the allotted CPP";
    3.617: "write the number of CPP remaining, even if zero, in the "Left" column ...
    [EXC: Any CPP remaining after this step on the 14 PM date are lost]".  Three
    sentences on one figure.  CG III, July 14 PM: British 12 + loss-point dr 4 = 16
    allotted (Start 0), 6 forgone: Repl 10; an I2 Airborne Pltn bought (7): Spent 7,
    Left 3, those 3 lost when the purchase step ends: the British hold 0 and their row
    reads "0 10 10 7 3" with the 3 marked lost; the Axis row: Repl 29 - 6 = 23, nothing
    spent, their 23 lost as well."""
    from campaign.models import Seat as SeatRow
    from tests.test_sicb18_pass18 import _press_through, _seats

    players = _cg_iii_july_14_pm_replenished(users, fixed_dice)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    _rolled(british, "Forgo and finish", amount="6")
    players.until_step("3.617")
    british.open()
    _rolled(british, "Buy I2 Airborne Pltn for 7 CPP")
    _press_through(seats, "3.617")
    held = dict(
        SeatRow.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
    )
    assert held == {"axis": 0, "british": 0}, held
    mine = _seat(players, "british", "roster/").text
    row = mine[mine.index("July 14 PM —") :][:200]
    assert row.startswith("July 14 PM — · · · · · 0 10 10 7 3"), row
    assert "lost" in row, row
    theirs = _seat(players, "axis", "roster/").text
    row = theirs[theirs.index("July 14 PM —") :][:200]
    assert row.startswith("July 14 PM — 0 23 23 0 23"), row
