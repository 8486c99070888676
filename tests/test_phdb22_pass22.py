"""Purple Heart Draw, twenty-second pass, second half (issue 44): C5.25-C5.41 and
C2.0-C3.0 tried at their edges: each number a player can reach at its boundary and one
past it, each exception and its complement, an undo followed to both pages, and twenty
sentences drawn at random (``random.Random(22)``), each through each side's page
(tests/page_play.py) (docs/rules-audit/pass-22-phdb22.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import AddedLater, Roll
from tests.test_phdb17_pass17 import plain
from tests.test_phdb18_pass18 import seats, step_part
from tests.test_phdb21_pass21 import REDUCE, ROLL_C5_28, rolls
from tests.test_rule_mechanisms import add, fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def german_mines_at(users, *where: str, wire: str = ""):
    """The PHD CG hosted by the German, his A-P mines bought at C5.35 before the Initial
    TM Scenario at each of ``where`` (and Wire at ``wire``), their lost costs supplied;
    walked to the C5.28 after it."""
    from campaign.services import purchases
    from tests.test_rule_mechanisms import module_of, result_values, supply
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players = players_of(c, a, b)
    players.until_step("I-C5.35")
    supply(players, "fortifications.items.ap_mines.cost", {"value": "1"})
    supply(players, "fortifications.items.wire.cost", {"value": "2"})
    german = players.users["german"]
    bought = [("ap_mines", at) for at in where] + ([("wire", wire)] if wire else [])
    for item, at in bought:
        purchases.buy_fortification(
            campaign_id=c.pk, user=german, item_id=item, count=2, location=at
        )
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.28")
    return players


# --------------------------------------------------------------------------- Part A/E


def test_c5_28_a_hex_named_without_its_board_is_the_hex_of_his_recorded_mines(
    users, modules, fixed_dice
):
    """C5.28 "Consequently, all A-P mines must be cleared from a location before a
    removal attempt on any other same location (non-mine) fortification can be made"
    (pass 21's Left: the German's mines bought for 23K4 did not bar a Wire roll typed
    "Wire in K4", the same hex with its board omitted).  On his page: "Wire in K4" is
    refused, naming his mines in 23K4, citing C5.28, nothing rolled; "Wire in 31K4" (the
    same hex row and number on another board) is rolled.  His mines roll typed "A-P
    mines in K4" (dr 2: Eliminated) clears 23K4: "Wire in 23K4" is then rolled.  The US
    page offers no "gone" box and names none of his mines."""
    players = german_mines_at(users, "23K4")
    page = seats(players)
    de, us = page["german"], page["us"]
    before = Roll.objects.filter(campaign_id=players.campaign_id).count()
    forged = de.press(ROLL_C5_28, item="Wire in K4")
    assert forged.refused, (forged.status, forged.text[:300])
    assert "A-P mines bought for 23K4 lie in 23K4" in forged.text, forged.text[:400]
    assert "C5.28" in forged.text
    plain(forged.text)
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == before
    fixed_dice.append([5])
    assert de.press(ROLL_C5_28, item="Wire in 31K4").status == 200
    fixed_dice.append([2])
    assert de.press(ROLL_C5_28, item="A-P mines in K4").status == 200
    fixed_dice.append([5])
    answer = de.press(ROLL_C5_28, item="Wire in 23K4")
    assert answer.status == 200, answer.text[:300]
    assert [r.item for r in rolls(players, "C5.28", "german")] == [
        "Wire in 31K4",
        "A-P mines in K4",
        "Wire in 23K4",
    ]
    us.open()
    assert "gone" not in us.form_of(ROLL_C5_28).choices
    assert "A-P mines bought for" not in us.text


def test_c5_28_one_attempt_per_item_and_location_the_next_refused_however_it_is_typed(
    users, modules, fixed_dice
):
    """C5.28 "Only one attempt may be made per “item” for each location during this
    step", at the limit and one past it: the German's mines roll at 23K4 (dr 5: No
    Effect) is made; the next one, typed "a-p mines at 23K4" or "A-P mines in K4" (the
    same item and hex), is refused citing C5.28, nothing rolled (it was accepted on
    ``main``: only the exact words were compared).  Its complement: the same item at
    another location (23K5), and at the same hex on another board (31K4), are rolled.
    His Wire at 23K4 stays barred, his mines not being cleared there (C5.28)."""
    players = german_mines_at(users, "23K4", "23K5", wire="23K4")
    page = seats(players)
    de = page["german"]
    fixed_dice.append([5])
    assert de.press(ROLL_C5_28, item="A-P mines in 23K4").status == 200
    made = Roll.objects.filter(campaign_id=players.campaign_id).count()
    for typed in ("a-p mines at 23K4", "A-P mines in K4", "A-P  mines in 23k4"):
        forged = de.press(ROLL_C5_28, item=typed)
        assert forged.refused, (typed, forged.status, forged.text[:300])
        assert "C5.28" in forged.text and "in this pass" in forged.text, forged.text[:400]
        plain(forged.text)
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == made
    forged = de.press(ROLL_C5_28, item="Wire in K4")
    assert forged.refused and "No Effect" in forged.text, forged.text[:400]
    for other in ("A-P mines in 23K5", "A-P mines in 31K4"):
        fixed_dice.append([5])
        answer = de.press(ROLL_C5_28, item=other)
        assert answer.status == 200, (other, answer.text[:300])
    assert len(rolls(players, "C5.28", "german")) == 3


def test_c5_28_the_final_dr_at_3_and_4_and_an_original_6_vs_wire_reduces_no_one(
    users, modules, fixed_dice
):
    """C5.28's table at its boundary: "≤3 Eliminated", "≥4 No Effect", each Final dr
    with a +1 DRM: the US's Foxhole roll, dr 2 +1 (Minefield/Entrenchment adjacent to an
    enemy Front Line Hex) = 3, Eliminated; his Roadblock roll, dr 3 +1 (along a
    hexside of an enemy Front Line Hex) = 4, No Effect.  Note 2's qualifier "vs a
    Known Minefield, an original dr of 6 results in Casualty Reduction": his original 6
    vs Wire offers no Casualty Reduction (the complement); the German's original 6 +1
    vs A-P mines (Final 7) owes one (the exception applies whatever the DRMs)."""
    from tests.test_phdb19_pass19 import us_attacks_last

    players = us_attacks_last(users, "C5.27")
    add(players, "german", "4-6-7", "squad")
    players.until_step("C5.28")
    page = seats(players)
    us, de = page["us"], page["german"]
    fixed_dice.append([2])
    assert us.press(ROLL_C5_28, item="Foxhole in 23M14", tick="minefield_adjacent").status == 200
    fixed_dice.append([3])
    assert us.press(ROLL_C5_28, item="Roadblock in 23M13", tick="roadblock_front").status == 200
    fixed_dice.append([6])
    assert us.press(ROLL_C5_28, item="Wire in 23M12").status == 200
    made = rolls(players, "C5.28", "us")
    assert [(r.final, r.result.split(" (")[0]) for r in made] == [
        (3, "Eliminated"),
        (4, "No Effect"),
        (6, "No Effect"),
    ], [(r.final, r.result) for r in made]
    assert REDUCE not in us.buttons(), step_part(us)
    fixed_dice.append([6])
    answer = de.press(ROLL_C5_28, item="A-P mines in 23K4", tick="minefield_adjacent")
    assert answer.status == 200, answer.text[:300]
    assert rolls(players, "C5.28", "german")[-1].final == 7
    assert REDUCE in de.buttons(), step_part(de)


def dsp_left(seat) -> int:
    found = re.search(r"You have (\d+) DSP", seat.text)
    assert found, seat.text[:600]
    return int(found.group(1))


def test_c5_35_note_6_thirty_dsp_on_mines_at_the_cap_one_past_it_and_after_a_take_back(
    users, modules
):
    """C5.35 note 6 "A side may not spend > 30 DSP per TM Scenario on Mines" on the
    German's page before the Initial TM Scenario (A-P 1 DSP a factor, A-T 2, their lost
    costs supplied): 20 A-P and 5 A-T factors (30 DSP on Mines) are bought; one A-P
    factor more is refused citing note 6, nothing spent.  Part C, the undo: "Take back
    my last fortification" (the 5 A-T) gives back its 10 DSP and its room under the
    cap: 11 A-P factors (31) are refused, 10 (exactly 30) bought.  Spending outside
    Mines is not capped by it: Booby Traps (30 DSP) are bought with what is left.  The
    US page (his own table, 0 DSP: I3) names none of it (the German's secret)."""
    from tests.test_rule_mechanisms import supply
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players = players_of(c, a, b)
    players.until_step("I-C5.35")
    supply(players, "fortifications.items.ap_mines.cost", {"value": "1"})
    supply(players, "fortifications.items.at_mines.cost", {"value": "2"})
    page = seats(players)
    de, us = page["german"], page["us"]
    assert dsp_left(de) == 60
    assert de.press(AP, count="20", location="23K4").status == 200
    assert de.press(AT, count="5", location="23K5").status == 200
    assert dsp_left(de) == 30
    forged = de.press(AP, count="1", location="23K6")
    assert forged.refused, (forged.status, forged.text[:300])
    assert "30 DSP on Mines" in forged.text and "C5.35 note 6" in forged.text, forged.text[:400]
    plain(forged.text)
    assert dsp_left(de) == 30
    take_back = [w for w in de.buttons() if w.startswith("Take back my last fortification")]
    assert take_back and "A-T" in take_back[0], de.buttons()
    assert de.press(take_back[0]).status == 200
    assert dsp_left(de) == 40
    forged = de.press(AP, count="11", location="23K6")
    assert forged.refused and "C5.35 note 6" in forged.text, forged.text[:400]
    assert dsp_left(de) == 40
    assert de.press(AP, count="10", location="23K6").status == 200
    assert dsp_left(de) == 30
    assert de.press("Buy Booby Traps", count="1").status == 200
    assert dsp_left(de) == 0
    us.open()
    # His own table (I3: he has no DSP before the Initial TM Scenario), none of the
    # German's Locations, spending or take-backs.
    assert "You have 0 DSP" in us.text, us.text[:600]
    for secret in ("23K4", "23K5", "23K6", "spent so far", "Take back"):
        assert secret not in us.text, secret


AP = "Buy Mines (per A-P factor)"
AT = "Buy Mines (per A-T factor)"


def test_footnote_p_two_pre_registered_hexes_the_second_further_one_refused_and_a_cancel(
    users, modules
):
    """RG footnote p "Note there is a limit of two Pre-Registered hexes per OBA module"
    at the limit and one past it, on the US page: his O1 81mm OBA Module (footnote p)
    bought with 1 Pre-Registered hex before the 0930 hrs TM Scenario; at the next C5.31
    (a Lull between) "If the OBA module is unused ... an additional two TP expenditure
    may be made to requisition each additional Pre-Registered hex": one further hex
    (the module's second) is bought for 2 TP; the next (a third) is refused citing
    footnote p, nothing spent (no longer offered; the line's earlier form posted again).
    Part C: the further hex could not be cancelled as any other purchase of the step
    is (fixed): "Cancel" on it refunds its 2 TP, the module's count of hexes comes back
    and the further hex may be bought again.  The German page names none of it."""
    from tests.test_phd_conph import phd_after
    from tests.test_phdb19_pass19 import GRENS, MODULE_P, RIFLES, points, post

    players, _ = phd_after(users, "C5.31")
    supply_chart_of(players, "us", [MODULE_P, RIFLES])
    supply_chart_of(players, "german", [GRENS])
    page = seats(players)
    us, de = page["us"], page["german"]
    assert us.press("Buy O1 81mm OBA Module for 6 TP, With 1 Pre-Registered hex").status == 200
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")
    players.until_step("C5.31")
    us.open()
    further = "Buy: A further Pre-Registered hex (2 TP)"
    before = points(us)[0]
    line = us.form_of(further)
    assert us.press(further, affirmed="yes").status == 200
    assert points(us)[0] == before - 2
    # At the limit the line offers no further hex; the form it sent before, posted
    # again (a second tab, a forged post), is refused.
    assert further not in us.buttons(), us.buttons()
    forged = post(us, line, affirmed="yes")
    assert forged.refused, (forged.status, forged.text[:300])
    assert "already has 2, the most it may have (C5.31 RG footnote p)" in forged.text, forged.text
    plain(forged.text)
    us.open()
    assert points(us)[0] == before - 2
    cancel = [w for w in us.buttons() if w.startswith("Cancel") and "Pre-Registered" in w]
    assert cancel, us.buttons()
    assert us.press(cancel[0]).status == 200
    assert points(us)[0] == before
    assert AddedLater.objects.filter(campaign_id=players.campaign_id).count() == 0
    assert "cancelled for O1 81mm OBA Module" in us.text, us.text[-1500:]
    assert further in us.buttons(), us.buttons()
    assert us.press(further, affirmed="yes").status == 200
    assert points(us)[0] == before - 2
    de.open()
    # His 0930 hrs O1 is revealed (its date's purchases are); this date's further hex,
    # bought, cancelled and bought again, is his secret.
    assert "further Pre-Registered" not in de.text and "cancelled for" not in de.text


def supply_chart_of(players, side, rows):
    from tests.test_rule_mechanisms import supply_chart

    supply_chart(players, side, rows)


def test_c5_36_recon_at_exactly_its_tp_and_one_short_on_the_cg_last_date(
    users, modules, fixed_dice
):
    """Drawn #14, RG footnote n / C5.36 "If purchased for 2 TP, the player receives a +5
    drm to the Reconnaissance dr" at the boundary of the TP a side holds, before the
    1930 hrs TM Scenario (the CG's last date): the German, holding exactly 2 TP, buys
    the +5 Recon (dr 6 +5 = 11 Locations), left with 0; the US, holding 1 TP, is
    refused the 2 TP Recon in words (nothing spent, no dr) and buys the 1 TP one (dr 1:
    1 Location).  Neither page shows the other's dr or TP."""
    from campaign.models import Seat as SeatRow
    from tests.test_phdb18_pass18 import last_conph, tp_shown

    players = last_conph(users, "C5.36")
    SeatRow.objects.filter(campaign_id=players.campaign_id, side="german").update(points=2)
    SeatRow.objects.filter(campaign_id=players.campaign_id, side="us").update(points=1)
    page = seats(players)
    de, us = page["german"], page["us"]
    assert tp_shown(de) == 2 and tp_shown(us) == 1
    fixed_dice.append([6])
    answer = de.press("Recon for 2 TP (+5 drm)")
    assert answer.status == 200, answer.text[:300]
    assert "Recon dr: 11 Locations" in de.text, step_part(de)
    assert points_of(players, "german") == 0
    short = us.press("Recon for 2 TP (+5 drm)")
    assert short.refused, (short.status, short.text[:300])
    plain(short.text)
    assert "not enough TP (2 needed, 1 left; C5.36)" in short.text, short.text[:300]
    us.open()
    assert tp_shown(us) == 1
    assert not Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.36", side="us")
    fixed_dice.append([1])
    recon = [b for b in us.buttons() if b.startswith("Recon for 1 TP")]
    assert recon, us.buttons()
    assert us.press(recon[0]).status == 200
    assert "Recon dr: 1 Location" in us.text, step_part(us)
    assert points_of(players, "us") == 0
    assert "11 Locations" not in us.text
    de.open()
    assert "Recon dr: 1 Location" not in de.text


def points_of(players, side: str) -> int:
    from campaign.models import Seat as SeatRow

    return SeatRow.objects.get(campaign_id=players.campaign_id, side=side).points


def test_c5_26_and_c5_27a_tables_at_their_thresholds_on_both_pages_before_1930(
    users, modules, fixed_dice
):
    """Drawn #3 (C5.26b "Baz/Psk/FT/DC: Each side makes a separate dr ..."), #15 (its
    table's "≥4 Eliminated") and #12 (C5.27a "Immobilization Repair: Each non-captured,
    non-abandoned, immobilized vehicle must make a dr"), each at its threshold and one
    past it, before the 1930 hrs TM Scenario: the US's Baz with "+2 If only
    Non-Qualified use is possible" ticked, dr 1 +2 = 3 Repaired, a second Baz dr 2 +2 =
    4 Eliminated; the German's Psk dr 3 Repaired and a second dr 4 Eliminated.  C5.26a
    "≤2 Repaired, ≥3 Eliminated": the US's two malfunctioned MMGs, dr 2 and dr 3.
    C5.27a "≤2 Become Mobile, ≥3 No Change", "+1 If Isolated": the US's Isolated
    M4A1 dr 2 +1 = 3 No Change, his other immobilized M4A1 dr 2 Becomes Mobile."""
    from tests.test_phdb19_pass19 import us_attacks_last

    players = us_attacks_last(users, "C5.24")
    add(players, "us", "MMG", "sw", markers=("malfunctioned",))
    add(players, "us", "MMG", "sw", markers=("malfunctioned",))
    add(players, "us", "M4A1", "vehicle", markers=("immobilized", "isolated"))
    add(players, "us", "M4A1", "vehicle", markers=("immobilized",))
    players.until_step("C5.26")
    page = seats(players)
    de, us = page["german"], page["us"]
    baz = "Roll dr: BAZ/PSK/FT/DC Repair Table"
    assert "non_qualified" in us.form_of(baz).choices.get("tick", []), us.form_of(baz).choices
    for face, item in ((1, "Baz in 23M12"), (2, "Baz in 23M13")):
        fixed_dice.append([face])
        answer = us.press(baz, item=item, tick="non_qualified")
        assert answer.status == 200, answer.text[:300]
    for face, item in ((3, "Psk in 23K4"), (4, "Psk in 23K5")):
        fixed_dice.append([face])
        assert de.press(baz, item=item).status == 200
    repair = "Roll dr: Weapon Repair Table"
    for face in (2, 3):
        fixed_dice.append([face])
        unit = us.options(repair, "unit")[0][0]
        assert us.press(repair, unit=unit).status == 200
    made = {
        side: [(r.final, r.result.split(" (")[0]) for r in rolls(players, "C5.26", side)]
        for side in ("us", "german")
    }
    assert made["us"] == [(3, "Repaired"), (4, "Eliminated"), (2, "Repaired"), (3, "Eliminated")]
    assert made["german"] == [(3, "Repaired"), (4, "Eliminated")], made
    for seat in (us, de):
        seat.open()
        assert seat.press("Done with C5.26").status == 200, step_part(seat)
    players.until_step("C5.27")
    us.open()
    immobilized = "Roll dr: Immobilization Repair Table"
    choices = us.options(immobilized, "unit")
    assert len(choices) == 2, choices
    for value, _ in choices:
        fixed_dice.append([2])
        assert us.press(immobilized, unit=value).status == 200
    found = sorted(
        (r.final, r.result.split(" (")[0], [d["value"] for d in r.drms])
        for r in rolls(players, "C5.27", "us")
    )
    assert found == [(2, "Becomes Mobile", []), (3, "No Change", [1])], found


def test_a_result_taken_back_then_amended_is_what_c5_25_and_c5_29_read_at_the_next_date(
    users, modules
):
    """Part C, an undo of a result followed to the next steps (pass 21's Left), with
    C5.29's "-1 per 10 CVP (FRD) suffered" and C5.25's "Any side with a SAN of < 2 has
    its SAN adjusted to 2" / "> 4 ... reduced to 4" at their boundaries.  After the 0930
    hrs TM Scenario (US Attack, German Idle) the US enters the result on his page with
    30 US CVP lost by mistake, takes it back ("Take back the result I entered") and
    enters 20; the German confirms.  The US then proposes an amendment on his page
    (10 CVP lost, SAN 5; the German's 9 CVP, SAN 1) and the German accepts it on his.
    At C5.25 the US SAN reads 4 and the German's 2; at C5.29 the US DR has -1 (10 CVP:
    exactly one 10), the German's none for 9 (FRD)."""
    from campaign.models import Seat as SeatRow
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    page = seats(players)
    us, de = page["us"], page["german"]
    figures = {"cvp_lost.german": "9", "san.us": "3", "san.german": "3"}
    figures |= {"crews_lost.us": "0", "crews_lost.german": "0"}
    assert us.press("Enter the result", **{"cvp_lost.us": "30"}, **figures).status == 200
    take_back = [w for w in us.buttons() if w.startswith("Take back the result")]
    assert take_back, us.buttons()
    assert us.press(take_back[0]).status == 200
    assert us.press("Enter the result", **{"cvp_lost.us": "20"}, **figures).status == 200
    de.open()
    confirm = [w for w in de.buttons() if w.startswith("Confirm")]
    assert confirm, de.buttons()
    assert de.press(confirm[0]).status == 200
    us.open()
    amend = us.form_of("Propose the amendment")
    names = [n for n, _ in amend.fields]
    typed = {}
    for name in names:
        for key, value in (
            ("cvp_lost.us", "10"),
            ("cvp_lost.german", "9"),
            ("san.us", "5"),
            ("san.german", "1"),
        ):
            if name.endswith(key):
                typed[name] = value
    assert len(typed) == 4, names
    answer = us.press("Propose the amendment", reason="figures entered wrong", **typed)
    assert answer.status == 200, answer.text[:300]
    de.open()
    assert de.press("Accept the amendment").status == 200
    players.until_step("C5.26")
    san = {
        side: SeatRow.objects.get(campaign_id=players.campaign_id, side=side).san
        for side in ("us", "german")
    }
    assert san == {"us": 4, "german": 2}, san
    players.until_step("C5.31")
    us.open()
    de.open()
    mine = rolls(players, "C5.29", "us")[-1]
    theirs = rolls(players, "C5.29", "german")[-1]
    assert [(d["value"], "10 CVP" in d["label"]) for d in mine.drms] == [(1, False), (-1, True)]
    assert theirs.drms == [], theirs.drms
    # On the pages (their logs): both SAN adjustments; the US TP line with its -1, his
    # own; the German reads that the US received its TP, not how many.
    for seat in (us, de):
        assert "American SAN 5 is lowered to 4 (C5.25)" in seat.text
        assert "German SAN 1 is raised to 2 (C5.25)" in seat.text
    assert "-1 per 10 CVP (FRD) suffered by the friendly side" in us.text
    assert "American TP: carried over" in us.text and "American TP: carried over" not in de.text


def test_c5_28_note_2_the_reduced_mmc_is_read_reduced_on_the_next_dates_roster(
    users, modules, fixed_dice
):
    """Pass 21's Left: C5.28 note 2 "vs a Known Minefield, an original dr of 6 results in
    Casualty Reduction for one MMC" was checked on the unit, not on a later date's page.
    After the 0930 hrs TM Scenario the German, holding a 4-3-6, rolls an original 6 vs
    A-P mines and Casualty Reduces it on his page; after the 1230 hrs TM Scenario (the
    ConPh before 1530 hrs) his roster page still reads it Casualty Reduced, and so does
    the US roster (a unit of no RG is open to both, and the roll was made openly)."""
    from tests.page_play import Seat
    from tests.test_phdb17_pass17 import late_conph
    from tests.test_rule_mechanisms import module_of, result_values

    players = late_conph(users, "C5.27")
    squad = add(players, "german", "4-3-6", "squad")
    players.until_step("C5.28")
    de = seats(players)["german"]
    fixed_dice.append([6])
    assert de.press(ROLL_C5_28, item="A-P mines in 23K4").status == 200
    assert de.press(REDUCE, unit=squad.ref).status == 200
    players.until("initiative")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module_of(players.campaign)))
    players.until_step("C5.26")
    roster = Seat(players.users["german"], players.campaign_id, "roster/")
    theirs = Seat(players.users["us"], players.campaign_id, "roster/")
    assert players.campaign.date_index == 3  # the 1530 hrs TM Scenario's ConPh
    assert "4-3-6 — casualty reduced" in roster.open(), roster.text[-3000:]
    # A unit of no RG (on the map since the start) is nobody's secret, and C5.28 rolls
    # are made openly: the US roster reads it so too.
    assert "German 4-3-6 — casualty reduced" in theirs.open()


def test_c5_35_note_g_booby_traps_are_the_germans_only_and_the_us_spends_to_exactly_0_dsp(
    users, modules
):
    """C5.35 note G "Only available for German requisition" and its complement, before
    the 1930 hrs TM Scenario (the CG's last date): the US, holding 10 DSP from his
    Defensive Stores, is offered no Booby Traps, and a forged post for them is refused
    citing note G, nothing spent; he spends his DSP to exactly 0 (two Roadblocks, 5
    each) and a third is refused (not enough DSP).  (The German, holding no DSP here,
    has nothing to buy; his Booby Traps are bought in the note 6 test.)"""
    from tests.test_phdb19_pass19 import dsp, post, us_attacks_last

    players = us_attacks_last(users, "C5.31")
    page = seats(players)
    us, de = page["us"], page["german"]
    assert us.press("Buy D1 Defensive Stores for 2 TP").status == 200
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.35")
    us.open()
    de.open()
    assert dsp(us) == 10
    assert "Buy Booby Traps" not in us.buttons(), us.buttons()
    forged = post(us, us.form_of("Buy Roadblock"), item="booby_traps", count="1")
    assert forged.refused, (forged.status, forged.text[:300])
    assert "C5.35 note G" in forged.text, forged.text[:300]
    plain(forged.text)
    assert dsp(us) == 10
    for _ in range(2):
        assert us.press("Buy Roadblock", count="1", location="23M13").status == 200
    assert dsp(us) == 0
    short = us.press("Buy Roadblock", count="1", location="23M14")
    assert short.refused, (short.status, short.text[:300])
    assert dsp(us) == 0
