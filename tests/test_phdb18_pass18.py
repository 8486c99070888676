"""Purple Heart Draw, eighteenth pass, second half (issue 44): pass 17's Left items of
C5.25-C5.41 (C5.28 note 2's Casualty Reduction owed, its roll taken back or corrected,
the MMC classes below Elite), then the between-scenario steps C5.25-C5.41 played as a
browser plays them: each side's page read, its buttons pressed (tests/page_play.py),
including what the rules forbid, on paths the named tests use little (the other side,
a late TM Scenario, a side holding no MMC), each test citing its rule
(docs/rules-audit/pass-18-phdb18.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, StepMark, Unit
from tests.page_play import Seat
from tests.test_phdb17_pass17 import late_conph, plain
from tests.test_rule_mechanisms import add, fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

ROLL_C5_28 = "Roll dr: Fortification Clearance Table"
REDUCE = "Casualty Reduce this MMC: Fortification Clearance Table"


def seats(players) -> dict[str, Seat]:
    """Each side's browser at the campaign page, opened."""
    out = {side: Seat(players.users[side], players.campaign_id) for side in ("us", "german")}
    for seat in out.values():
        seat.open()
    return out


def done_at(players, side) -> bool:
    c = players.campaign
    c.refresh_from_db()
    return StepMark.objects.filter(
        campaign=c, cycle=c.cycle, side=side, step_index=c.step_index
    ).exists()


# --------------------------------------------------------------------------- Part 1


def test_c5_28_note_2_a_minefields_original_6_owes_its_casualty_reduction_before_done(
    users, modules, fixed_dice
):
    """C5.28 "If a location contains more than one type of fortification ... must
    announce which one is currently being rolled for" and note 2 "vs a Known Minefield,
    an original dr of 6 results in Casualty Reduction for one MMC (Engineer if possible,
    otherwise owner's choice of Elite MMC ...)" (pass 17's Left: offered, not owed),
    played through the US page after the 0930 hrs TM Scenario: a roll naming no
    fortification is refused in a sentence; an original 6 vs Wire offers no Casualty
    Reduction; an original 6 vs A-P mines (a minefield the side clears is one it knows,
    B24.7) owes it: Done is refused in a sentence naming the roll until the Elite 7-4-7
    is named (the 6-6-6 not offered), then accepted.  The German's page offers nothing."""
    players = late_conph(users, "C5.28")
    elite = add(players, "us", "7-4-7", "squad", markers=("elite",))
    add(players, "us", "6-6-6", "squad")
    page = seats(players)
    us = page["us"]
    unnamed = us.press(ROLL_C5_28, item="K6")
    assert unnamed.refused and "C5.28" in unnamed.text, (unnamed.status, unnamed.text[:400])
    plain(unnamed.text)
    assert not Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.28").exists()
    fixed_dice.append([6])
    wire = us.press(ROLL_C5_28, item="Wire in K5")
    assert wire.status == 200, wire.text[:400]
    assert REDUCE not in us.buttons()
    fixed_dice.append([6])
    mines = us.press(ROLL_C5_28, item="A-P mines in K6")
    assert mines.status == 200, mines.text[:400]
    assert REDUCE in us.buttons(), us.buttons()
    offered = [words for _, words in us.options(REDUCE, "unit")]
    assert offered == ["7-4-7"], offered
    assert "If it was" not in us.text
    early = us.press("Done with C5.28")
    assert early.refused, early.status
    assert "A-P mines in K6" in early.text and "C5.28" in early.text, early.text[:400]
    plain(early.text)
    assert not done_at(players, "us")
    page["german"].open()
    assert REDUCE not in page["german"].buttons()
    named = us.press(REDUCE)
    assert named.status == 200, named.text[:400]
    assert "reduced" in Unit.objects.get(pk=elite.pk).markers
    finished = us.press("Done with C5.28")
    assert finished.status == 200, finished.text[:400]
    assert done_at(players, "us")


def test_c5_28_note_2_a_side_with_no_mmc_owes_nothing_and_the_roll_stands(
    users, modules, fixed_dice
):
    """C5.28 note 2 on the German side holding no MMC (a side of only vehicles): after
    his original 6 vs a minefield the page says he holds no MMC to suffer it and Done
    goes on.  Pass 17's Left "a take-back or correction of the original-6 roll": a roll
    for an item (not a unit) is offered no correction on the page, and taking back the
    Done leaves the roll, and so what it owes, as they were (dice stand, DESIGN)."""
    players = late_conph(users, "C5.28")
    add(players, "german", "PzKpfw IVH", "vehicle")
    page = seats(players)
    german = page["german"]
    fixed_dice.append([6])
    assert german.press(ROLL_C5_28, item="Minefield in 23K4").status == 200
    assert "You hold no MMC to suffer the Casualty Reduction (C5.28)" in german.text
    assert REDUCE not in german.buttons()
    assert not [b for b in german.buttons() if "orrect" in b], german.buttons()
    assert german.press("Done with C5.28").status == 200
    back = german.press("Take back my Done at C5.28")
    assert back.status == 200, back.text[:400]
    assert not done_at(players, "german")
    assert Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.28").count() == 1
    assert german.press("Done with C5.28").status == 200


# --------------------------------------------------------------------------- Part 2


def test_c5_27b_the_roster_offers_the_mg_exchange_at_c5_27_only_and_only_a_german_lmg(
    users, modules
):
    """C5.27b "A disabled, non-captured, AFV MG may be automatically repaired ... by
    using a German LMG if the AFV is German ... the MG to be eliminated must be
    possessed", played on the German's retained forces page after the 0930 hrs TM
    Scenario (the named tests call the service): at C5.26 the page offers no exchange
    (it was offered at every step and refused when pressed); at C5.27 its select lists
    his possessed German LMG only, not his MMG nor a captured LMG; pressing it repairs
    the BMG and the LMG leaves; the US page offers nothing for it."""
    from tests.purchase_helpers import add_vehicle

    players = late_conph(users, "C5.26")
    tank, (bmg, _) = add_vehicle(
        players, "german", "PzKpfw IVH", ("mg", ["disabled"], "BMG"), ("ma", [], "75L")
    )
    mmg = add(players, "german", "MMG", "sw")
    add(players, "german", "LMG (US)", "sw", markers=("captured",))
    lmg = add(players, "german", "LMG", "sw")
    roster = Seat(players.users["german"], players.campaign_id, "roster/")
    roster.open()
    repair = "Repair BMG (C5.27b)"
    assert not [b for b in roster.buttons() if b.startswith("Repair BMG")], roster.buttons()
    players.until_step("C5.27")
    roster.open()
    offered = [words for _, words in roster.options(repair, "give")]
    assert offered == ["LMG"], offered
    forged = roster.press(repair, give=mmg.ref)
    assert forged.refused and "C5.27b" in forged.text, (forged.status, forged.text[:300])
    plain(forged.text)
    assert Unit.objects.filter(pk=mmg.pk).exists()
    answer = roster.press(repair)
    assert answer.status == 200, answer.text[:400]
    assert not Unit.objects.filter(pk=lmg.pk).exists()
    tank.refresh_from_db()
    assert not next(w for w in tank.weapons if w["ref"] == bmg)["markers"]
    us = Seat(players.users["us"], players.campaign_id, "roster/")
    us.open()
    assert not [b for b in us.buttons() if b.startswith("Repair")], us.buttons()
