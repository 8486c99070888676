"""Purple Heart Draw, eighteenth pass, second half (issue 44): pass 17's Left items of
C5.25-C5.41 (C5.28 note 2's Casualty Reduction owed, its roll taken back or corrected,
the MMC classes below Elite), then the between-scenario steps C5.25-C5.41 played as a
browser plays them: each side's page read, its buttons pressed (tests/page_play.py),
including what the rules forbid, on paths the named tests use little (the other side,
a late TM Scenario, a side holding no MMC), each test citing its rule
(docs/rules-audit/pass-18-phdb18.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Roll, StepMark, Unit
from tests.page_play import Seat, text_of
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


def step_part(seat: Seat) -> str:
    """The words of the step part of the page ``seat`` last read."""
    found = re.search(r'<section[^>]*id="campaign-step".*?</section>', seat.html, re.S)
    assert found, seat.text[:300]
    return text_of(found.group(0))


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


def tp_shown(seat: Seat) -> int:
    found = re.search(r"You have (\d+) TP", seat.text)
    assert found, seat.text[:600]
    return int(found.group(1))


def last_conph(users, step_id):
    """The ConPh before the last TM Scenario (1930 hrs): Lulls at 0930 and 1230 hrs, the
    German attacked at 1530 hrs; each side's RG chart supplied (a German Gren Pl with
    RG footnote l and an 81mm OBA module; a US Rifle Pl and the same module); walked to
    ``step_id``."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import module_of, result_values, supply_chart

    players, _ = phd_after(users, "C5.37")
    for _ in range(2):
        players.chits(us="idle", german="idle")
        players.until_step("C5.37")
    players.chits(us="idle", german="attack")
    players.until("results")
    players.results(**result_values(module_of(players.campaign), cvp_lost_german=14))
    oba = {"id": "O2", "type": "81mm OBA Module", "units": "OBA", "cost": "5", "tags": "oba"}
    gren = {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "4"}
    rifle = {"id": "I2", "type": "Rifle Pl", "units": "6-6-6", "unit_kind": "squad", "cost": "3"}
    supply_chart(players, "german", [{**gren, "footnotes": "l"}, oba])
    supply_chart(players, "us", [rifle, oba])
    players.until_step(step_id)
    return players


def test_c5_31_to_c5_41_played_through_both_pages_before_the_last_tm_scenario(
    users, modules, fixed_dice
):
    """C5.31-C5.41 before the 1930 hrs TM Scenario (the last; the named tests play the
    ConPh after 0600 or 0930 hrs), each step through both sides' pages and buttons:
    C5.31b "Any A, G, HW, or I Reinforcement Group may be requisitioned In Reserve" (the
    I RG offered In Reserve, the OBA module not); "TP Cost ... is subtracted"; a forged
    buy of the US's RG refused in words; the German's buys secret from the US page.
    C5.33 "For each requisitioned ... I ... RG marked l" its secret rolls offered.  C5.34
    "make a DR for each" (Done absent until made, once; the -1 for the German's Attack
    chit at 1530 hrs applied by itself; the US "holds no OBA module").  C5.36 the US's
    +5 Recon for 2 TP, once, unseen by the German.  C5.37 a forged chit refused citing
    C5.37.  C5.40 "alternating (German first)": the US page offers no Done before the
    German's.  C5.41 both SANs announced."""
    from campaign.models import Event

    players = last_conph(users, "C5.31")
    c = players.campaign
    page = seats(players)
    de, us = page["german"], page["us"]
    assert "Buy I1 Gren Pl for 4 TP, In Reserve" in de.buttons(), de.buttons()
    assert not [b for b in de.buttons() if b.startswith("Buy O2") and "Reserve" in b]
    forged = de.press("Buy I1 Gren Pl for 4 TP, On-Map set up", group="I2")
    assert forged.refused and "I2" in forged.text, (forged.status, forged.text[:300])
    before = tp_shown(de)
    assert de.press("Buy O2 81mm OBA Module for 5 TP").status == 200
    assert de.press("Buy I1 Gren Pl for 4 TP, On-Map set up").status == 200
    assert tp_shown(de) == before - 9
    us.open()
    assert "Gren Pl" not in us.text and "Cancel RG" not in " ".join(us.buttons())
    assert de.press("Done with C5.31").status == 200
    assert us.press("Done with C5.31").status == 200
    players.until_step("C5.33")
    de.open()
    assert "Make its secret rolls: RG 2 of the list, I1 Gren Pl" in de.buttons(), de.buttons()
    assert de.press("Done with C5.33").status == 200
    assert players.step.id == "C5.34"
    de.open()
    us.open()
    assert "Done with C5.34" not in de.buttons()
    assert "Roll first: the Offboard Artillery Table for O2 81mm OBA Module (C5.34)" in de.text
    assert "-1 Attack Chit was selected — applied by itself when it holds" in de.text
    assert "You hold no OBA module: there is nothing to roll for (C5.34)." in us.text
    assert de.press("Roll DR: Offboard Artillery Table").status == 200
    assert "Roll DR: Offboard Artillery Table" not in de.buttons()
    assert de.press("Done with C5.34").status == 200
    assert us.press("Done with C5.34").status == 200
    players.until_step("C5.36")
    us.open()
    before = tp_shown(us)
    fixed_dice.append([3])
    assert us.press("Recon for 2 TP (+5 drm)").status == 200
    assert "Recon dr: 8 Locations" in us.text, us.text[:800]
    assert f"TP: {before - 2}" in us.text
    assert not [b for b in us.buttons() if b.startswith("Recon for")]
    de.open()
    assert "8 Locations" not in de.text
    assert us.press("Done with C5.36").status == 200
    assert de.press("Done with C5.36").status == 200
    assert players.step.id == "C5.37"
    us.open()
    de.open()
    chit = us.press("Lock Attack", chit="charge")
    assert chit.refused and "C5.37" in chit.text, (chit.status, chit.text[:300])
    assert de.press("Lock Attack").status == 200
    assert us.press("Lock Idle").status == 200
    players.until_step("C5.40")
    us.open()
    assert not [b for b in us.buttons() if b.startswith("Done")], us.buttons()
    de.open()
    assert de.press("Done with C5.40").status == 200
    us.open()
    assert us.press("Done with C5.40").status == 200
    said = " ".join(Event.objects.filter(campaign=c).values_list("text", flat=True))
    assert "announces its current SAN: American" in said and "(C5.41)" in said


def test_c5_26_played_through_both_pages_before_the_last_tm_scenario(users, modules, fixed_dice):
    """C5.26 before the 1930 hrs TM Scenario, on both pages: (a) "a separate dr ... for
    each malfunctioned, non-captured Retained weapon" — the German's malfunctioned LMG
    is listed on his page only, its Done absent and its roll owed ("Roll first");
    rolled once (the LMG no longer offered); (b) "for each
    Baz, Psk, FT, and DC of its nationality" — the German's roll for a Baz refused in
    words citing C5.26b, nothing rolled; (c) the US's captured Baz owes its Captured
    Equipment roll, named on the US page only."""
    players = last_conph(users, "C5.24")
    lmg = add(players, "german", "LMG", "sw", markers=("malfunctioned",))
    add(players, "us", "Baz (German)", "sw", markers=("captured",))
    players.until_step("C5.26")
    page = seats(players)
    de, us = page["german"], page["us"]
    assert "Done with C5.26" not in de.buttons() and "Done with C5.26" not in us.buttons()
    assert "Roll first: the Weapon Repair Table for LMG (C5.26a)" in de.text, de.text[:2000]
    assert "Roll first: the Captured Equipment Table for Baz (German) (C5.26c)" in us.text
    assert "Baz (German)" not in step_part(de) and "LMG (malfunctioned)" not in step_part(us)
    refused = de.press("Roll dr: BAZ/PSK/FT/DC Repair Table", item="Baz in 23K4")
    assert refused.refused and "C5.26b" in refused.text, (refused.status, refused.text[:300])
    plain(refused.text)
    assert not Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.26").exists()
    fixed_dice.append([2])
    assert de.press("Roll dr: Weapon Repair Table").status == 200
    assert "malfunctioned" not in Unit.objects.get(pk=lmg.pk).markers
    assert "Roll dr: Weapon Repair Table" not in de.buttons()
    assert de.press("Done with C5.26").status == 200
