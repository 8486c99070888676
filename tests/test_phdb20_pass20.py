"""Purple Heart Draw, twentieth pass, second half (issue 44): pass 19's Left items of
C5.25-C5.41 (C5.28 note 2's classes below Elite, the German's +5 Recon), then
sentences of C5.25-C5.41, the RG chart notes and C2-C3 drawn at random
(``random.Random(20)``) and tried in play through each side's page
(tests/page_play.py), on paths the named tests use little: the German side, the last
ConPh (before 1930 hrs), odd holdings (no Engineer, no Elite MMC, no TP left)
(docs/rules-audit/pass-20-phdb20.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Roll, Unit
from tests.page_play import Seat
from tests.test_phdb17_pass17 import plain
from tests.test_phdb18_pass18 import seats, step_part, tp_shown
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

ROLL_C5_28 = "Roll dr: Fortification Clearance Table"
REDUCE = "Casualty Reduce this MMC: Fortification Clearance Table"


def reduce_choices(seat: Seat) -> list[str]:
    return [words for _, words in seat.options(REDUCE, "unit")]


# --------------------------------------------------------------------------- Part 1


def test_c5_28_note_2_below_elite_the_next_highest_class_read_from_the_counters_figures(
    users, modules, fixed_dice
):
    """C5.28 note 2 "vs a Known Minefield, an original dr of 6 results in Casualty
    Reduction for one MMC (Engineer if possible, otherwise owner's choice of Elite MMC,
    or next highest class 1st, 2nd, etc.)" (pass 19's Left: below Elite the owner chose
    freely).  The rules text prints no MMC's class; ASL's counters do (A1.25, Chapter
    H): the module declares the PHD nationalities' squad and HS figures by class as
    supplied by the app.  Played on both pages before the 1930 hrs TM Scenario: the US,
    holding no Engineer and no Elite MMC, a 6-6-7 (1st Line) and a 6-6-6 (below it),
    rolls an original 6 vs A-P mines: the page names the order and its source, offers
    the 6-6-7 only; the 6-6-6 forged is refused in words naming the 1st Line MMC held,
    nothing changed; the 6-6-7 is reduced.  The German, holding a 4-4-7 (2nd Line) and a
    4-3-6 (Conscript), is offered the 4-4-7 only."""
    from tests.test_phdb19_pass19 import us_attacks_last
    from tests.test_rule_mechanisms import add

    players = us_attacks_last(users, "C5.27")
    first = add(players, "us", "6-6-7", "squad")
    below = add(players, "us", "6-6-6", "squad")
    second = add(players, "german", "4-4-7", "squad")
    add(players, "german", "4-3-6", "squad")
    players.until_step("C5.28")
    page = seats(players)
    us, de = page["us"], page["german"]
    fixed_dice.append([6])
    assert us.press(ROLL_C5_28, item="A-P mines in 23M12").status == 200
    part = step_part(us)
    assert "1st Line" in part and "ASL" in part and "supplied" in part, part
    plain(part)
    assert reduce_choices(us) == ["6-6-7"], reduce_choices(us)
    forged = us.press(REDUCE, unit=below.ref)
    assert forged.refused, (forged.status, forged.text[:300])
    assert "1st Line" in forged.text and "6-6-7" in forged.text and "C5.28" in forged.text
    plain(forged.text)
    assert Unit.objects.get(pk=below.pk).markers in ([], None)
    assert us.press(REDUCE, unit=first.ref).status == 200
    de.open()
    assert REDUCE not in de.buttons()
    fixed_dice.append([6])
    assert de.press(ROLL_C5_28, item="A-P mines in 23K4").status == 200
    # Pass 21: MSR7 "All units in the German OB are Elite": both are his to choose.
    assert sorted(reduce_choices(de)) == ["4-3-6", "4-4-7"], reduce_choices(de)
    assert "MSR7" in step_part(de), step_part(de)
    assert second.ref in [v for v, _ in de.options(REDUCE, "unit")]


def test_c5_36_the_german_buys_the_plus_5_recon_for_2_tp_before_the_last_scenario(
    users, modules, fixed_dice
):
    """C5.36 "If a player spends one additional TP, he receives a +5 drm to the
    Reconnaissance dr" and RG footnote n "If purchased for 2 TP, the player receives a
    +5 drm" pressed on the German page (pass 18 pressed it for the US only), before the
    1930 hrs TM Scenario: dr 2 +5 = 7 Locations, his TP fall by 2, once; the US page
    shows neither the dr nor the TP; his roster's Recce column reads 7."""
    from tests.test_phdb18_pass18 import last_conph

    players = last_conph(users, "C5.36")
    page = seats(players)
    de, us = page["german"], page["us"]
    tp = tp_shown(de)
    fixed_dice.append([2])
    answer = de.press("Recon for 2 TP (+5 drm)")
    assert answer.status == 200, answer.text[:300]
    assert "Recon dr: 7 Locations" in de.text, step_part(de)
    assert f"TP: {tp - 2}" in de.text, step_part(de)
    assert not [b for b in de.buttons() if b.startswith("Recon for")]
    recon = Roll.objects.get(campaign_id=players.campaign_id, step_id="C5.36", side="german")
    assert recon.final == 7
    us.open()
    assert "7 Locations" not in us.text
    for seat in (de, us):
        assert seat.press("Done with C5.36").status == 200
    roster = Seat(players.users["german"], players.campaign_id, "roster/")
    line = re.search(r"1930 hrs EC \S+; \S+; [^ ]+ wind (.*?) RG Purchase", roster.open())
    assert line and " 7 " in f" {line.group(1)} ", (line, roster.text[:1500])


# --------------------------------------------------------------------------- Part 2


def test_c2_0_idle_when_no_attack_option_then_c5_37b_and_the_tm_end_after_1930(users, modules):
    """Drawn: C2.0 "A side is assumed to be idle if they did not requisition an attack
    option during the ConPh" and "Attack Option: ... allows a side to set up second and
    move first", on the last ConPh (before 1930 hrs), the sides reversed from the named
    test (there the German pressed Done): the US presses Done at C5.37 on its page
    without locking a chit, the German locks Attack; both pages then read C5.37b's
    "German Attack: US sets up first" at C5.39.  C5.38 "neither side 'wins' or 'loses'
    a TM Scenario, only the TM itself": after the 1930 hrs result (the last TM date)
    the campaign ends and both pages name the TM's outcome."""
    from tests.test_phdb19_pass19 import us_attacks_last
    from tests.test_rule_mechanisms import module_of, result_values

    players = us_attacks_last(users, "C5.37")
    page = seats(players)
    us, de = page["us"], page["german"]
    assert "Lock Attack" in us.buttons() and "Lock Attack" in de.buttons()
    assert de.press("Lock Attack").status == 200
    assert "your Done locks Idle for you (C2.0)" in us.text, step_part(us)
    answer = us.press("Done with C5.37")
    assert answer.status == 200, answer.text[:300]
    players.until_step("C5.39")
    order = (
        "Initiative for 1930 hrs: American Idle, German Attack → German Attack; American "
        "sets up first; German moves first"
    )
    for seat in (us, de):
        seat.open()
        assert order in seat.text, step_part(seat)
    players.until("results")
    players.results(**result_values(module_of(players.campaign)))
    c = players.campaign
    assert c.ended_at is not None
    for seat in (us, de):
        seat.open()
        # C4.2's TM Objective decides the TM at its end (no US condition met here)
        assert "The CG ends after its last date, 1930 hrs. German wins" in seat.text


def test_c5_31_footnote_c_the_german_mmg_rg_brings_its_2_3_8_hs_its_price_his_only(users, modules):
    """Drawn: RG footnote c "Each German MMG/HMG comes with a 2-3-8 HS" (the named test
    calls the services before the Initial TM Scenario), pressed on the German page before
    the 1930 hrs TM Scenario: his MG Section bought as Reinforcements joins his
    retained forces with a 2-3-8 HS per MMG; C2.0 "RG Requisition Record: Sheet used to
    record information and units requisitioned" — the line on his record with its
    price; the US's (purchases revealed when both finish the step) without it, nor his
    TP."""
    from tests.test_phdb19_pass19 import GRENS, us_attacks_last
    from tests.test_rule_mechanisms import supply_chart

    mg = {
        "id": "W1",
        "type": "MG Section",
        "units": "MMG",
        "unit_kind": "sw",
        "full": "2",
        "cost": "3",
        "footnotes": "c",
    }
    players = us_attacks_last(users, "C5.30")
    supply_chart(players, "german", [GRENS, mg])
    players.until_step("C5.31")
    page = seats(players)
    us, de = page["us"], page["german"]
    buy = [b for b in de.buttons() if b.startswith("Buy W1 MG Section") and "Reinforcements" in b]
    assert buy, de.buttons()
    assert de.press(buy[0]).status == 200
    for seat in (de, us):
        assert seat.press("Done with C5.31").status == 200
    # C5.33 passes by itself: no RG of his is marked l; his MG Section joins then.
    players.until_step("C5.34")
    assert players.step.id == "C5.34", players.step.id
    roster = Seat(players.users["german"], players.campaign_id, "roster/")
    held = roster.open()
    assert "2-3-8 HS (W1)" in held, held[:3000]
    theirs = Seat(players.users["us"], players.campaign_id, "roster/").open()
    # This campaign reveals purchases when both finish the purchase step: the US sees the
    # RG and its units then, never its price or the German's TP (C5.29).
    assert "W1 (3)" in held and "W1 (3)" not in theirs, theirs[-2500:]
    assert re.search(r"\d+ \d+ \d+ 3 \d+ W1 \(3\)", held), held[:1500]
    assert "· · · · · W1" in theirs, theirs[:1500]


def test_c5_26a_a_failed_repair_eliminates_and_c5_27c_skips_the_isolated_on_the_us_page(
    users, modules, fixed_dice
):
    """Drawn: C5.26a "≥4 Eliminated" (computed; its named test calls the services): the
    US's malfunctioned MMG rolls dr 5 on his page before the 1930 hrs TM Scenario and
    leaves his retained forces.  C5.27c "Each non-captured, non-isolated weapon has all
    of its Depleted ammunition type(s) ... replenished" (the named test played the
    German's Gun): of the US's two Shermans only the one not Isolated is offered the
    Special Ammunition dr on his page; the German page offers him none of the US's."""
    from tests.test_phdb19_pass19 import us_attacks_last
    from tests.test_rule_mechanisms import add

    players = us_attacks_last(users, "C5.24")
    mmg = add(players, "us", "MMG", "sw", markers=("malfunctioned",))
    add(players, "us", "M4A1 cut off", "vehicle", markers=("isolated",))
    add(players, "us", "M4A1 free", "vehicle")
    players.until_step("C5.26")
    page = seats(players)
    us, de = page["us"], page["german"]
    fixed_dice.append([5])
    assert us.press("Roll dr: Weapon Repair Table").status == 200
    roll = Roll.objects.get(campaign_id=players.campaign_id, step_id="C5.26", side="us")
    assert roll.final == 5 and "Eliminated" in roll.result, (roll.final, roll.result)
    assert not Unit.objects.filter(pk=mmg.pk).exists()
    roster = Seat(players.users["us"], players.campaign_id, "roster/").open()
    assert "MMG (malfunctioned)" not in roster
    players.until_step("C5.27")
    us.open()
    special = "Roll dr: Special Ammunition Replenishment"
    assert [w for _, w in us.options(special, "unit")] == ["M4A1 free (in good order)"]
    de.open()
    theirs = [w for b in de.buttons() if b == special for _, w in de.options(special, "unit")]
    assert not [w for w in theirs if "M4A1" in w], theirs


def test_tm20_the_us_shermans_bought_for_1930_roll_their_gyrostabilizer_dr_on_his_page(
    users, modules, fixed_dice
):
    """Drawn: TM20 "On a dr of < 3, the vehicle is equipped with a functioning
    Gyrostabilizer" (computed; its named test calls the services), on the US page
    before the last TM Scenario (1930 hrs): his Sherman Pl bought at C5.31 is offered
    its dr at TM20 (after a US Attack for 1930 hrs), a dr of 3 reads a functioning
    Gyrostabilizer (≤3, the OCR's "< 3" read as elsewhere); the German page offers no
    such roll."""
    from tests.test_phdb19_pass19 import us_attacks_last

    players = us_attacks_last(users, "C5.31")
    page = seats(players)
    us, de = page["us"], page["german"]
    assert us.press("Buy A1 Sherman Pl for 4 TP, Enters as Reinforcements").status == 200, (
        us.buttons()
    )
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.37")
    # Both Idle would be a Lull: at the last date the TM ends without a TM20 (C5.37).
    players.chits(us="attack", german="idle")
    players.until_step("TM20")
    us.open()
    de.open()
    gyro = [b for b in us.buttons() if b.startswith("Roll dr: Sherman Gyrostabilizer")]
    assert gyro, (us.buttons(), step_part(us)[:1500])
    assert not [b for b in de.buttons() if "Gyrostabilizer" in b]
    fixed_dice.append([3])
    assert us.press(gyro[0]).status == 200
    rolled = Roll.objects.filter(campaign_id=players.campaign_id, step_id="TM20", side="us")
    assert [r.result for r in rolled][:1] == ["Functioning Gyrostabilizer (D11.1)"], [
        (r.final, r.result) for r in rolled
    ]
