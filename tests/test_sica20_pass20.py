"""Sicily (seed 001), RePh 3.601-3.614, the twentieth pass of the sentence audit (issue
44): the items pass 19 left (a HS its owner added by its own counter recombining, the
CG's end), then sentences drawn at random from the seed (random.Random(20)), the
ledger's offered and computed claims, and what the other systems fixed in pass 19,
played through the pages (tests/page_play.py) for each side, on paths the earlier
passes used little: the Axis side, CG III's last date and its end, CG I on its last
date, odd holdings (only a captured weapon, a stunned German vehicle, a heroic 10-3)
(docs/rules-audit/pass-20-sica20.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Unit
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Answer, Seat
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, edit, unit_names
from tests.test_sica18_pass18 import _seat

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _done(players, side) -> Answer:
    return _seat(players, side).press(f"Done with {players.step.id}")


def _markers(unit) -> list[str]:
    return sorted(Unit.objects.get(pk=unit.pk).markers)


def _dones(seat: Seat) -> list[str]:
    return [b for b in seat.buttons() if b.startswith("Done with")]


def _log(players) -> str:
    return " ".join(
        e.text for e in Event.objects.filter(campaign_id=players.campaign_id).order_by("id")
    )


# --------------------------------------------------------------------------- Part 1


def test_3_6111_two_hs_lines_of_one_counter_recombine_into_the_squad_their_owner_names(
    users, modules, fixed_dice
):
    """3.6111 "RECOMBINING: All Retained same-class HS with the same strength factors
    within the same Setup/" for HS the owner added by their own counter (pass 19's Left:
    a "2-4-7" line names no squad, and was not offered), through the Axis pages of CG
    III on its last date (the RePh after July 14 AM).  Two "2-4-7" HS lines (and a
    "2-3-7" line alone, and a "2-2-8 crew" pair: a crew is no HS of a squad) : the 3.611
    page offers "Recombine the two HS" naming the 2-4-7 lines only, with the squad they
    form to name, the side's squad lines offered (a 4-6-7 held); unnamed, refused citing
    3.6111, nothing changed; a 2-4-7 paired with the 2-3-7, refused citing 3.6111; named
    4-4-7, the two become one 4-4-7 squad.  The British page offers none. Finishing
    ahead from 3.610 stops at 3.611 while the pair is held."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.610")
    one = add(players, "axis", "2-4-7", "half_squad")
    two = add(players, "axis", "2-4-7", "half_squad")
    lone = add(players, "axis", "2-3-7", "half_squad")
    add(players, "axis", "2-2-8 crew", "half_squad", number=2)
    add(players, "axis", "4-6-7", "squad")
    axis = _seat(players, "axis")
    assert not [b for b in axis.buttons() if "to 3.615" in b], axis.buttons()
    players.until_step("3.611")
    axis.open()
    words = "Recombine the two HS"
    assert words in axis.buttons(), axis.buttons()
    assert [v for v, _ in axis.options(words, "give")] == [one.ref, two.ref], axis.options(
        words, "give"
    )
    assert "4-6-7" in axis.html[axis.html.find("recombine-squads") :][:400]
    assert words not in _seat(players, "british").buttons()
    unnamed = axis.press(words, give=one.ref, mark=two.ref, forms="")
    assert unnamed.refused and "3.6111" in unnamed.text, unnamed.text
    assert Unit.objects.filter(pk__in=[one.pk, two.pk]).count() == 2
    odd = axis.press(words, give=one.ref, mark=lone.ref, forms="4-4-7")
    assert odd.refused and "3.6111" in odd.text, odd.text
    assert Unit.objects.filter(pk__in=[one.pk, two.pk, lone.pk]).count() == 3
    made = axis.press(words, give=one.ref, mark=two.ref, forms="4-4-7")
    assert made.status == 200 and not made.refused, made.text[:300]
    names = unit_names(players, "axis")
    assert ("4-4-7", "squad", "ok", 1) in names, names
    assert not [n for n in names if n[0] == "2-4-7"], names
    assert "two 2-4-7 HS recombine into one 4-4-7 squad (3.6111)" in _log(players)
    assert "Done with 3.611" in _dones(axis)


# --------------------------------------------------------------------------- Part 2: the draw


def test_drawn_3_6051_3_606_the_axis_pages_after_a_night_date(users, modules, fixed_dice):
    """Sentences drawn at random (Random(20)), 3.6051-3.6061, through the Axis pages of CG
    I after a Night date (the RePh after July 16 Night, Escape on the Night date).
    3.6051 "Each manned, Immobile vehicle without functioning MA in No-Man's Land
    becomes Abandoned, and its crew (if any) must attempt Escape per 3.606" (drawn #4;
    "See also 3.6056 and 3.6072", drawn #11): the Axis Abandon an immobilized StuG on
    the roster, its 2-2-8 crew owes its Escape citing 3.6051.  Footnote 2 "A crew, or
    unit, that would become Disrupted is Eliminated instead" (drawn #2): the crew's DR
    12 -1 (Night, by itself) = 11 "Replaced, then Casualty Reduced": Eliminated, citing
    footnote 2.  "+2 If Isolated" (drawn #5): an Isolated 4-6-7's DR 5 is Final 7 by
    itself (+1 HS-equivalent, -1 Night, +2 Isolated), and "If a unit survives the Escape
    attempt, it ... [is] Retained into a friendly Setup Area" (3.6061, drawn #21): its
    Isolated marker is off.  "+1 If stunned" and "* NA to vehicle Escape attempt"
    (drawns #13, #22): a stunned, Encircled PSW's DR 5 is Final 6 (+1 stunned; neither
    -1 Night nor +2 Encircled for a vehicle).  The British page owes nothing and offers
    no Escape of an Axis unit."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, step="3.605")
    add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    isolated = add(players, "axis", "4-6-7", "squad", markers=["isolated"])
    psw = add(players, "axis", "PSW 234/1", "vehicle", markers=["stunned", "encircled"])
    roster = _seat(players, "axis", "roster/")
    pressed = roster.press("Abandon in No-Man's Land (3.6051) (StuG IIIG)")
    assert pressed.status == 200, pressed.text[:300]
    assert "2-2-8 crew — must attempt Escape" in roster.text, roster.text
    players.until_step("3.606")
    axis = _seat(players, "axis")
    assert "July 16 Night — step" in axis.text, axis.text[:300]
    assert "2-2-8 crew (3.606; 3.6051)" in axis.text, axis.text
    assert not _dones(axis), axis.buttons()
    british = _seat(players, "british")
    assert "Roll first" not in british.text
    refs = (
        {v for v, _ in british.options("Roll DR: Escape", "unit")}
        if ("Roll DR: Escape" in british.buttons())
        else set()
    )
    assert not refs & {isolated.ref, psw.ref}, refs
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="2-2-8 crew")
    fixed_dice.append([6, 6])
    made = axis.press("Roll DR: Escape", unit=crew.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    assert not Unit.objects.filter(pk=crew.pk).exists(), unit_names(players, "axis")
    log = _log(players)
    assert "-1 If current CG Date is Night (NA to vehicles) → 11" in log, log[-600:]
    assert "2-2-8 crew is Eliminated (3.606 footnote 2)" in log, log[-600:]
    fixed_dice.append([2, 3])
    made = axis.press("Roll DR: Escape", unit=isolated.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    log = _log(players)[-500:]
    assert "+2 If Isolated → 7: Infantry: Escapes" in log, log
    assert "isolated" not in _markers(isolated)
    fixed_dice.append([2, 3])
    made = axis.press("Roll DR: Escape", unit=psw.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    log = _log(players)[-400:]
    assert "DR 2+3 = 5, +1 If stunned → 6: Mobile Vehicle: Escapes" in log, log
    assert "Encircled" not in log.split("PSW")[-1] and "Night" not in log.split("PSW")[-1], log
    assert "Done with 3.606" in _dones(axis), axis.buttons()


def test_drawn_3_610_3_6113_the_axis_pages_of_cg_i_on_its_last_date(users, modules, fixed_dice):
    """Drawn sentences, 3.610-3.6113, through the Axis pages of CG I on its last date (the
    RePh after July 17 AM).  3.610 "≥ 5 | Eliminated (evacuated)" (drawn #23): the
    wounded Isolated 8-1's dr 4 +1 (Isolated, by itself) = 5: he leaves the Axis forces,
    the log naming the result; the British page owes no dr.  3.6113 "On each side, each
    Retained Heroic leader Battle Hardens and loses his heroic status [EXC: a heroic
    10-3 loses his heroic status with no additional effect]" (drawn #16): at Done of
    3.611 the heroic 8-0 becomes a 8-1 (no longer heroic), the heroic 10-3 stays a 10-3,
    no longer heroic; the page says so before Done."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, step="3.610")
    leader = add(players, "axis", "8-1 leader", "leader", markers=["wounded", "isolated"])
    low = add(players, "axis", "8-0 leader", "leader", markers=["heroic"])
    top = add(players, "axis", "10-3 leader", "leader", markers=["heroic"])
    axis = _seat(players, "axis")
    assert "July 17 AM — step" in axis.text, axis.text[:300]
    assert "Roll first: the Wounded Leaders for 8-1 leader (3.610)" in axis.text, axis.text
    british = _seat(players, "british")
    assert "Roll dr: Wounded Leaders" not in british.buttons()
    fixed_dice.append([4])
    made = axis.press("Roll dr: Wounded Leaders", unit=leader.ref)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert not Unit.objects.filter(pk=leader.pk).exists(), unit_names(players, "axis")
    log = _log(players)[-400:]
    assert "+1 if Isolated → 5" in log and "Eliminated (evacuated)" in log, log
    assert axis.press("Done with 3.610").status == 200
    assert british.press("Done with 3.610").status == 200
    assert players.step.id == "3.611"
    axis.open()
    assert "Heroic leaders Battle Harden and lose heroic status" in axis.text, axis.text
    assert axis.press("Done with 3.611").status == 200
    british.open()
    assert british.press("Done with 3.611").status == 200
    names = unit_names(players, "axis")
    assert ("8-1 leader", "leader", "ok", 1) in names, names
    assert ("10-3 leader", "leader", "ok", 1) in names, names
    assert Unit.objects.filter(pk__in=[low.pk, top.pk]).count() == 2


def test_drawn_3_613_3_614_the_axis_pages_of_cg_iii_on_its_last_date(users, modules, fixed_dice):
    """Drawn sentences, 3.613-3.61422, through the Axis pages of CG III on its last date
    (the RePh after July 14 AM; the new date July 14 PM, its last).  3.613 footnote †
    "Roll separately for each unit" (drawn #25; "A Personnel/", drawn #14): a 4-6-7 and
    its stacked 8-1 Shift under one DR 11 ("Shifted with Casualties"): the subsequent dr
    is offered for each, Done waiting until both are made; the 4-6-7's dr 4 reduces it
    only.  3.6141d "A side Retaining a vehicle suffering the results of a stun ... must
    make a dr" and "3-5 | Retain stun" (drawns #6, #15): the German PSW's dr 2 +1
    (German: ticked, a counter no Axis chart row names) = 3: it keeps its stun.  3.6142
    "-x | (Weapon Repair Number)" (drawn #20): the MG 42's dr 3 - 2 = 1: Repaired.
    3.61421 "In all cases, the MG to be Eliminated must be Retained within the same
    Setup/" (drawn #17): the roster offers Repair AAMG by eliminating an LMG held, not a
    withdrawn one; pressed, the AAMG is in good order and the LMG gone.  3.61422 "Each
    side makes a separate dr for each functioning, Captured, Retained Weapon" (drawn
    #3): the table is cut from the seed, the page asks for it to be supplied, naming it
    (it said "Nothing can be rolled at 3.614 yet" once the step's other drs were made);
    supplied, the captured Bren's dr is owed (Done waits) and made; the British page
    owes none."""
    from tests.purchase_helpers import add_vehicle

    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad", location="a1")
    leader = add(players, "axis", "8-1 leader", "leader", location="a1")
    axis = _seat(players, "axis")
    fixed_dice.append([5, 6])
    shifted = axis.press("Roll DR: Shift", unit=squad.ref, stack=leader.ref)
    assert shifted.status == 200 and not shifted.refused, shifted.text[:300]
    words = "Roll dr: Shifted with Casualties (subsequent dr)"
    assert [v for v, _ in axis.options(words, "unit")] == [squad.ref, leader.ref]
    assert not _dones(axis), axis.buttons()
    fixed_dice.append([4])
    assert axis.press(words, unit=squad.ref).status == 200
    assert "reduced" in _markers(squad) and _markers(leader) == []
    assert [v for v, _ in axis.options(words, "unit")] == [leader.ref]
    assert not _dones(axis), axis.buttons()
    fixed_dice.append([2])
    assert axis.press(words, unit=leader.ref).status == 200
    assert _markers(leader) == []
    assert "Done with 3.613" in _dones(axis), axis.buttons()
    players.until_step("3.614")
    psw = add(players, "axis", "PSW 234/1", "vehicle", status="stunned")
    bren = add(players, "axis", "Bren LMG", "sw", markers=["captured"])
    mg = add(players, "axis", "MG 42", "sw", status="malfunctioned")
    stug, (aamg,) = add_vehicle(players, "axis", "StuG IIIG", ("mg", ["disabled"], "AAMG"))
    add(players, "axis", "LMG", "sw", status="withdrawn")
    lmg = add(players, "axis", "LMG", "sw")
    axis.open()
    assert "July 14 PM — step" in axis.text
    assert "The printed rules leave out this table: supply it" in axis.text
    fixed_dice.append([2])
    # A PSW no Axis chart row names has no nationality on the record: its owner ticks
    # "if German (a vehicle not of an RG)", offered on the Axis page only.
    assert "german_no_rg" in axis.form_of("Roll dr: Stun Recovery").choices.get("tick", [])
    stun = axis.press("Roll dr: Stun Recovery", unit=psw.ref, tick="german_no_rg")
    assert stun.status == 200 and not stun.refused, stun.text[:300]
    assert "+1 if German (a vehicle not of an RG) → 3: Retain stun" in _log(players)[-300:], _log(
        players
    )[-300:]
    assert _markers(psw) == ["stunned"]
    fixed_dice.append([3])
    made = axis.press("Roll dr: Weapon Repair", unit=mg.ref, **{"typed.repair_number": "-2"})
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "→ 1: Repaired" in _log(players)[-300:], _log(players)[-300:]
    assert _markers(mg) == []
    roster = _seat(players, "axis", "roster/")
    words = "Repair AAMG (3.61421)"
    assert words in roster.buttons(), roster.buttons()
    assert [v for v, _ in roster.options(words, "give")] == [lmg.ref], roster.options(words, "give")
    pressed = roster.press(words, give=lmg.ref)
    assert pressed.status in (200, 204, 302) and not pressed.refused, pressed.text[:300]
    stug.refresh_from_db()
    assert [w["markers"] for w in stug.weapons] == [[]], stug.weapons
    assert not Unit.objects.filter(pk=lmg.pk).exists()
    axis.open()
    # The table the seed cuts: the side holding a captured Bren may not simply press Done;
    # the words name that table, not the step's other rolls, which were made.
    assert not _dones(axis) and "Go on without it" in axis.buttons(), axis.buttons()
    assert "You roll nothing on the missing table at 3.614." in axis.html  # was "You buy"
    assert "Nothing can be rolled at 3.614" not in axis.text
    assert (
        "The printed rules leave out the Captured Equipment (3.61422): nothing can be rolled "
        "on it yet" in axis.text
    ), axis.text[axis.text.find("Go on without it") - 400 :][:500]
    mechanisms.supply(
        players,
        "tables.captured_equipment",
        mechanisms.row_table([("≤3", "Retained", "none"), ("≥4", "Eliminated", "eliminate")]),
        by="axis",
    )
    axis.open()
    assert "Roll first: the Captured Equipment for Bren LMG (3.61422)" in axis.text
    assert not _dones(axis), axis.buttons()
    assert [v for v, _ in axis.options("Roll dr: Captured Equipment", "unit")] == [bren.ref]
    fixed_dice.append([2])
    made = axis.press("Roll dr: Captured Equipment", unit=bren.ref)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "Done with 3.614" in _dones(axis), axis.buttons()
    british = _seat(players, "british")
    assert "Roll first" not in british.text and "Done with 3.614" in _dones(british)


def test_cg_iii_ends_after_its_last_date_no_reph_3_601_to_3_614_follows(users, modules):
    """The CG's end (pass 19's Left: walk there): CG III's last date is July 14 PM.  The
    RePh after July 14 AM leads to it (3.6121 "Each passage of this RePh step represents
    the start of a new CG Date": July 14 PM from 3.613 on); once that date's scenario
    result is entered and confirmed the CG ends: both sides' pages say it ended after
    its last date ("No one has anything more to do"), offer no Done and no step of
    3.601-3.614 (no RePh follows the last CG scenario), and the log names the ending."""
    from rules import machine
    from tests.walk import module_of

    players, module = campaign_at("sicily", "iii", "jul14pm", users, step="3.613")
    add(players, "axis", "4-6-7", "squad")
    add(players, "british", "4-5-8", "squad")
    axis = _seat(players, "axis")
    assert "July 14 PM — step" in axis.text, axis.text[:300]
    players.until_step("3.621")
    players.chits(axis="attack", british="idle")
    players.until("results")
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 0)
        for f in module_of(players.campaign).result_fields
        for s in ("axis", "british")
    }
    players.results(**values)
    players.campaign.refresh_from_db()
    assert players.campaign.ended_at is not None
    assert machine.date_index(module, "jul14pm") == players.campaign.date_index
    for side in ("axis", "british"):
        page = _seat(players, side)
        assert "The CG ends after its last date, July 14 PM." in page.text, page.text[:1500]
        assert not _dones(page), page.buttons()
        assert "July 14 PM — the CG has ended No one has anything more to do" in page.text
        # The newest log lines: the end, after the result; no step of the RePh after it.
        newest = page.text[page.text.find("Log") :]
        assert "3.601" not in newest[: newest.find("entered the scenario result")]
    assert "The CG ends after its last date, July 14 PM." in _log(players)


def test_drawn_map_sentences_3_605_3_609_read_on_both_sides_pages(users, modules):
    """Drawn sentences the map holds, read on both sides' pages of CG III (the RePh after
    July 14 AM): 3.605 "Each side now determines its Setup Area(s) for the next CG
    scenario", "Each side should now record its Setup Area(s) on a new photocopy of the
    reduced-size map", "A No-Man's Land hex can never be part of a Setup Area",
    "Subsequent changes in the status of (potential) Strategic Locations ... do not alter
    ... either side's Setup Area(s)" (drawns #10, #12, #24, #1): each side's 3.605 page
    tells it to mark them on its copy of the reduced map, with nothing to roll (Done
    offered to both).  The 3.6056 chart's "is Captured or Eliminated (enemy's choice;
    3.6071)*" (drawns #7, #19): the roster offers its owner the captured marker and
    Remove on his line.  3.609 "All Fortifications/" and "Place the correct Rubble
    counter ..." (drawns #8, #9): the step's words name the rubble and what burned, and
    Done is offered to both."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.605")
    add(players, "axis", "4-6-7", "squad")
    for side in ("axis", "british"):
        page = _seat(players, side)
        assert (
            "marks its Controlled Strategic Locations, No-Man's Land and Setup Areas on a "
            "copy of the reduced map" in page.text
        ), page.text[:1500]
        assert "Done with 3.605" in _dones(page), page.buttons()
    roster = _seat(players, "axis", "roster/")
    assert "Remove 4-6-7" in roster.buttons(), roster.buttons()
    assert "captured" in roster.html
    players.until_step("3.609")
    for side in ("axis", "british"):
        page = _seat(players, side)
        assert "place stone rubble, eliminate what burned" in page.text, page.text[:1500]
        assert "Done with 3.609" in _dones(page), page.buttons()


# --------------------------------------------------------------------------- Part 2B: claims


def test_claims_3_606_offered_and_computed_escape_on_the_british_page(users, modules, fixed_dice):
    """The ledger's offered/computed claims of 3.606 whose tests never opened a page,
    through the British page of CG II (the RePh after July 16 AM).  "+2 If Isolated"
    following the record: a 4-5-8 marked Isolated has its marker taken off by its owner
    before the roll: its DR 8 +1 (HS-equivalent) = 9, no +2 (the recorded fact changed,
    the figure with it): "9 | Escapes; Replaced".  "+1 per HS-equivalent > one HS using
    the same Escape DR": the 4-4-7 with a 2-4-7 stacked: +2.  "≥ 12 | All units and
    Equipment Eliminated": the 4-4-7 and 2-4-7's DR 9 +2 +1 (enemy Setup Area, ticked) =
    12: both leave, with the Bren the 4-4-7 possessed.  "-1 | If lone, unwounded SMC":
    offered for the unwounded 9-1; forged for the wounded 8-0, refused citing 3.606,
    nothing rolled.  "+1 | If a Captured vehicle": the captured StuG the British hold:
    by itself.  The Axis page offers none of these units."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.606")
    reduced = add(players, "british", "4-5-8", "squad", markers=["isolated"])
    big = add(players, "british", "4-4-7", "squad")
    half = add(players, "british", "2-4-7", "half_squad")
    bren = add(players, "british", "Bren LMG", "sw", possessor=big.ref)
    leader = add(players, "british", "9-1 leader", "leader")
    wounded = add(players, "british", "8-0 leader", "leader", markers=["wounded"])
    stug = add(players, "british", "StuG IIIG", "vehicle", markers=["captured"])
    british = _seat(players, "british")
    assert "July 16 AM — step" in british.text, british.text[:300]
    refs = [v for v, _ in british.options("Roll DR: Escape", "unit")]
    assert {reduced.ref, big.ref, half.ref, leader.ref, wounded.ref, stug.ref} <= set(refs)
    axis = _seat(players, "axis")
    if "Roll DR: Escape" in axis.buttons():
        assert not set(v for v, _ in axis.options("Roll DR: Escape", "unit")) & set(refs)
    # The recorded fact changes: its owner takes the Isolated marker off his line.
    edit(players, "british", reduced, "ok")
    assert _markers(reduced) == []
    british.open()
    fixed_dice.append([4, 4])
    made = british.press("Roll DR: Escape", unit=reduced.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    said = _log(players)[-300:]
    assert "DR 4+4 = 8, +1 per HS-equivalent" in said and "Isolated" not in said, said
    assert "→ 9: Infantry: Escapes; Replaced" in said, said
    forged = british.press("Roll DR: Escape", unit=wounded.ref, stack="", tick="lone_smc")
    assert forged.refused and "3.606" in forged.text, forged.text
    assert "lone_smc" in british.form_of("Roll DR: Escape").choices.get("tick", [])
    fixed_dice.append([3, 2])
    made = british.press("Roll DR: Escape", unit=leader.ref, stack="", tick="lone_smc")
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "-1 If lone, unwounded SMC → 4" in _log(players)[-300:], _log(players)[-300:]
    fixed_dice.append([4, 5])
    made = british.press("Roll DR: Escape", unit=big.ref, stack=half.ref, tick="enemy_setup_area")
    assert made.status == 200 and not made.refused, made.text[:300]
    said = _log(players)[-500:]
    assert "+2 at +1 per HS-equivalent" in said and "→ 12" in said, said
    left = {u.pk for u in Unit.objects.filter(campaign_id=players.campaign_id, side="british")}
    assert not left & {big.pk, half.pk, bren.pk}, unit_names(players, "british")
    fixed_dice.append([2, 2])
    made = british.press("Roll DR: Escape", unit=stug.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "+1 If a Captured vehicle → 5" in _log(players)[-300:], _log(players)[-300:]


def test_claims_3_613_3_614_offered_and_computed_on_the_british_pages(users, modules, fixed_dice):
    """The ledger's offered/computed claims of 3.613-3.61424 whose tests never opened a
    page, through the British pages of CG II (the RePh after July 16 AM; the new date
    July 16 PM).  3.613 "≤ 8 | Shifted safely" and "+1 | Per five (FRD) Uncontrolled-
    Territory hexes": a 4-5-8's DR 5 with 12 hexes typed: +2 → 7, safely; "-1 | If that
    entire path can be traced on road hexes" offered as a tick: a 4-4-7's DR 10 -1 = 9
    "No Shift".  3.6141b "≥ 3 | No change" and "+1 | if in a Front-Line hex" (offered):
    the immobilized Sherman's dr 2 +1 = 3: still immobilized.  3.6141d "≤ 2 | Recover,
    remove stun": the stunned Daimler's dr 2 (no German DRM for a British vehicle): stun
    off.  3.6142 "-1 | if vehicular-mounted" (by itself, a vehicle's MA), "≥ 2 |
    Eliminated*" and footnote * "if MA, the AFV is immediately Recalled": the Sherman's
    malfunctioned MA, dr 4 -1 -1 (Repair Number typed) = 2: its MA Disabled, the Sherman
    recalled.  3.61424 "≥ 4 | NA, weapon still depleted": the Daimler's AP, dr 5.  The
    Axis page offers none of it."""
    from tests.purchase_helpers import add_vehicle

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.613")
    squad = add(players, "british", "4-5-8", "squad", location="a1")
    other = add(players, "british", "4-4-7", "squad", location="b1")
    british = _seat(players, "british")
    fixed_dice.append([2, 3])
    made = british.press(
        "Roll DR: Shift", unit=squad.ref, stack="", **{"typed.uncontrolled_hexes": "12"}
    )
    assert made.status == 200 and not made.refused, made.text[:300]
    said = _log(players)[-300:]
    assert "DR 2+3 = 5, +2" in said and "→ 7: Shifted safely" in said, said
    assert "road" in " ".join(british.form_of("Roll DR: Shift").choices.get("tick", []))
    fixed_dice.append([4, 6])
    road = british.form_of("Roll DR: Shift").choices["tick"][0]
    made = british.press("Roll DR: Shift", unit=other.ref, stack="", tick=road)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "→ 9: No Shift" in _log(players)[-300:], _log(players)[-300:]
    players.until_step("3.614")
    sherman, _ = add_vehicle(
        players, "british", "Sherman III", ("ma", ["malfunctioned"]), status="immobilized"
    )
    daimler = add(players, "british", "Daimler AC", "vehicle", status="stunned")
    british.open()
    assert "July 16 PM — step" in british.text
    assert "front_line" in british.form_of("Roll dr: Immobilization Repair").choices["tick"]
    fixed_dice.append([2])
    made = british.press("Roll dr: Immobilization Repair", unit=sherman.ref, tick="front_line")
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "→ 3: No change" in _log(players)[-300:], _log(players)[-300:]
    assert "immobilized" in _markers(sherman)
    fixed_dice.append([2])
    made = british.press("Roll dr: Stun Recovery", unit=daimler.ref)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "dr 2: Recover, remove stun" in _log(players)[-300:], _log(players)[-300:]
    assert "stunned" not in _markers(daimler)
    ((target, words),) = british.options("Roll dr: Weapon Repair", "unit")
    assert words == "Sherman III: MA (malfunctioned)", words
    fixed_dice.append([4])
    made = british.press("Roll dr: Weapon Repair", unit=target, **{"typed.repair_number": "-1"})
    assert made.status == 200 and not made.refused, made.text[:300]
    said = _log(players)[-400:]
    assert "-1 if vehicular-mounted" in said and "→ 2: Eliminated" in said, said
    sherman.refresh_from_db()
    assert "recalled" in sherman.markers, sherman.markers
    assert "disabled" in sherman.weapons[0]["markers"], sherman.weapons
    fixed_dice.append([5])
    made = british.press("Roll dr: Special Ammo", unit=daimler.ref, item="AP")
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "NA, weapon still depleted" in _log(players)[-300:], _log(players)[-300:]
    axis = _seat(players, "axis")
    for words in ("Roll dr: Immobilization Repair", "Roll dr: Stun Recovery"):
        assert words not in axis.buttons()


# --------------------------------------------------------------------------- Part 2C


def test_3_6122_the_san_drm_is_shown_from_the_recorded_san_before_the_roll(
    users, modules, fixed_dice
):
    """As PHD/APD's pass 19 showed a DRM computed from the scenario's recorded figures
    before the roll: 3.6122 "If a side has a SAN ≥ 4, a SAN adjustment dr must be made
    with a +drm equal to the current SAN minus 4", the British side of CG II (the RePh
    after July 16 AM): with SAN 5 the page shows the +1 and where it comes from before
    the dr; the Axis (SAN 3) owes none; the British dr 4 +1 = 5 lowers the SAN to 3."""
    from campaign.models import Seat as SeatModel

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.611")
    SeatModel.objects.filter(campaign_id=players.campaign_id, side="british").update(san=5)
    SeatModel.objects.filter(campaign_id=players.campaign_id, side="axis").update(san=3)
    players.until_step("3.6122")
    british, axis = _seat(players, "british"), _seat(players, "axis")
    assert "+ (current SAN - 4) — applied by itself: +1 now: your SAN is 5" in british.text
    assert "Roll dr: SAN Adjustment" in british.buttons()
    assert "Roll dr: SAN Adjustment" not in axis.buttons()
    assert not _dones(british), british.buttons()
    fixed_dice.append([4])
    made = british.press("Roll dr: SAN Adjustment")
    assert made.status == 200 and not made.refused, made.text[:300]
    assert SeatModel.objects.get(campaign_id=players.campaign_id, side="british").san == 3
