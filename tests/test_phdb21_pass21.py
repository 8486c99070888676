"""Purple Heart Draw, twenty-first pass, second half (issue 44): pass 20's Left items of
C5.25-C5.41 (C5.28 note 2's class table checked against what the seed prints, C5.34's
two DRMs pressed on a page), then the scope's ``map`` / ``recorded`` / ``narrative``
claims challenged where the app holds the facts they need, and sentences drawn at
random (``random.Random(21)``), each tried in play through each side's page
(tests/page_play.py) (docs/rules-audit/pass-21-phdb21.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Purchase, Roll, Unit
from tests.page_play import Seat
from tests.test_phdb17_pass17 import plain
from tests.test_phdb18_pass18 import seats, step_part
from tests.test_phdb19_pass19 import form_with, post
from tests.test_rule_mechanisms import add, fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

ROLL_C5_28 = "Roll dr: Fortification Clearance Table"
REDUCE = "Casualty Reduce this MMC: Fortification Clearance Table"
ROLL_C5_34 = "Roll DR: Offboard Artillery Table"


def reduce_choices(seat: Seat) -> list[str]:
    return [words for _, words in seat.options(REDUCE, "unit")]


def rolls(players, step_id: str, side: str) -> list[Roll]:
    return list(
        Roll.objects.filter(campaign_id=players.campaign_id, step_id=step_id, side=side).order_by(
            "seq"
        )
    )


# --------------------------------------------------------------------------- Part 1


def test_c5_28_note_2_msr7_every_german_mmc_is_elite_and_the_page_says_which_classes_it_supplies(
    users, modules, fixed_dice
):
    """C5.28 note 2 "Casualty Reduction for one MMC (Engineer if possible, otherwise
    owner's choice of Elite MMC, or next highest class 1st, 2nd, etc.)" read with what
    the seed itself prints: MSR7 "All units in the German OB are Elite" (TM2: all PHD
    MSR apply in the TM), so below an Engineer every German MMC is Elite and the
    choice is his: pass 20's table of German classes below Elite (4-4-7 2nd Line, 4-3-6
    Conscript), written from memory, offered his 4-4-7 only.  Played before the 1930 hrs
    TM Scenario on both pages: the German, holding a 4-4-7 and a 4-3-6, rolls an
    original 6 vs A-P mines: both are offered, and his page says MSR7 makes them Elite.
    The US page names which classes the app supplies (ASL's, not the rules text's) and
    that a line naming other figures is its owner's word."""
    from tests.test_phdb19_pass19 import us_attacks_last

    players = us_attacks_last(users, "C5.27")
    add(players, "german", "4-4-7", "squad")
    conscript = add(players, "german", "4-3-6", "squad")
    add(players, "us", "6-6-7", "squad")
    add(players, "us", "6-6-6", "squad")
    players.until_step("C5.28")
    page = seats(players)
    us, de = page["us"], page["german"]
    fixed_dice.append([6])
    assert de.press(ROLL_C5_28, item="A-P mines in 23K4").status == 200
    assert sorted(reduce_choices(de)) == ["4-3-6", "4-4-7"], reduce_choices(de)
    part = step_part(de)
    order = re.search(r"It falls on .*?\(C5\.28[^)]*\)\.", part)
    assert order, part
    assert "MSR7" in order.group(0) and "every German MMC is Elite" in order.group(0), part
    assert "2nd Line" not in order.group(0) and "Conscript" not in order.group(0), part
    plain(part)
    assert de.press(REDUCE, unit=conscript.ref).status == 200
    assert Unit.objects.get(pk=conscript.pk).markers
    fixed_dice.append([6])
    assert us.press(ROLL_C5_28, item="A-P mines in 23M12").status == 200
    part = step_part(us)
    order = re.search(r"It falls on .*?\(C5\.28[^)]*\)\.", part)
    assert order and "6-6-7" in order.group(0), part
    assert "supplied by the app" in part and "any other figures" in part, part
    assert "MSR7" not in part
    plain(part)
    assert reduce_choices(us) == ["6-6-7"], reduce_choices(us)


def test_c5_34_both_drms_pressed_on_the_german_page_the_us_page_shows_neither(
    users, modules, fixed_dice
):
    """C5.34 "-1 Attack Chit was selected" and "+1 If module placed a FFE counter in prior
    TM Scenario" pressed on a page (pass 18/19 pressed them through the services; pass
    20 left them).  Before the 0930 hrs TM Scenario each side buys an 81mm OBA module;
    the German Attacks at 0930 hrs, the US stands Idle.  After it the German marks his
    O2 "eliminated (placed an FFE)" on his RG Purchase Record (TM13) on his page, buys
    O2 again at C5.31 and presses his C5.34 DR on his page: both DRMs apply by
    themselves, named in the roll's line (-1 +1).  The US presses his DR: neither.
    What carries to the next date: the RG marked fired stays so on both records."""
    from campaign.services import purchases
    from tests.purchase_helpers import campaign_at
    from tests.test_rule_mechanisms import result_values, roll, supply_chart

    oba = {"id": "O2", "type": "81mm OBA Module", "units": "OBA", "cost": "5", "tags": "oba"}
    players, module = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="purchase")
    bought = {}
    for side in ("german", "us"):
        supply_chart(players, side, [oba])
        bought[side] = purchases.purchase_rg(
            campaign_id=players.campaign_id, user=players.users[side], group_id="O2"
        )
    players.until_step("C5.34")
    for side in ("german", "us"):
        roll(players, side, "oba", item="O2 81mm OBA Module")
    players.until("initiative")
    players.chits(german="attack", us="idle")
    players.until("results")
    players.results(**result_values(module))
    de = Seat(players.users["german"], players.campaign_id)
    de.open()
    form = form_with(de, "purchase", bought["german"].ref)
    assert post(de, form, state="fired").status == 200
    assert Purchase.objects.get(pk=bought["german"].pk).state == "fired"
    players.until_step("C5.31")
    page = seats(players)
    de, us = page["german"], page["us"]
    buy = [b for b in de.buttons() if b.startswith("Buy O2")]
    assert buy, de.buttons()
    assert de.press(buy[0]).status == 200
    for seat in (de, us):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.34")
    de.open()
    us.open()
    choices = [v for v, _ in de.options(ROLL_C5_34, "item")]
    assert choices, step_part(de)
    fixed_dice.append([3, 4])
    answer = de.press(ROLL_C5_34, item=choices[-1])
    assert answer.status == 200, answer.text[:300]
    mine = rolls(players, "C5.34", "german")[-1]
    assert sorted((d["value"], d["how"]) for d in mine.drms) == [(-1, "auto"), (1, "auto")]
    assert mine.final == 7, mine.final
    assert "Attack Chit" in de.text and "FFE" in de.text
    fixed_dice.append([3, 4])
    theirs = [v for v, _ in us.options(ROLL_C5_34, "item")]
    assert us.press(ROLL_C5_34, item=theirs[0]).status == 200
    assert rolls(players, "C5.34", "us")[-1].drms == []
    # Carried to the next date: the German's 0930 hrs O2 line still reads placed an FFE
    # on his RG Purchase Record (its state select, on his page).
    de.open()
    assert ("state", "fired") in form_with(de, "purchase", bought["german"].ref).fields


def test_c5_28_a_wire_roll_at_a_hex_of_his_own_recorded_a_p_mines_waits_for_their_roll(
    users, modules, fixed_dice
):
    """C5.28 "Consequently, all A-P mines must be cleared from a location before a
    removal attempt on any other same location (non-mine) fortification can be made"
    (pass 20's Left: a Wire roll before any mines roll at a hex was not refused).  The
    app holds the side's own A-P mines with the Location he typed at C5.35: the German
    buys A-P mines at 23K4 and 23K5 and Wire at 23K4 before the Initial TM Scenario.  At
    the C5.28 after it, on his page: a Wire roll at 23K4 is refused in a sentence citing
    C5.28 and naming his mines there, nothing rolled; his mines roll there (dr 2:
    Eliminated) lets the Wire roll be made.  Wire at 23K5 is refused too until he ticks
    that the mines recorded there are gone (cleared in play): then it is rolled.  The
    US page names none of his mines and offers no such box (they are his secret).  At the
    next ConPh's C5.28 neither hex bars his Wire roll: the earlier pass's rolls there
    cleared them or were made once they were gone."""
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
    for item, where in (("ap_mines", "23K4"), ("ap_mines", "23K5"), ("wire", "23K4")):
        purchases.buy_fortification(
            campaign_id=c.pk, user=german, item_id=item, count=2, location=where
        )
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.28")
    page = seats(players)
    de, us = page["german"], page["us"]
    before = Roll.objects.filter(campaign_id=c.pk).count()
    forged = de.press(ROLL_C5_28, item="Wire in 23K4")
    assert forged.refused, (forged.status, forged.text[:300])
    assert "A-P mines bought for 23K4" in forged.text and "C5.28" in forged.text, forged.text
    plain(forged.text)
    assert Roll.objects.filter(campaign_id=c.pk).count() == before
    assert "gone" in de.form_of(ROLL_C5_28).choices, de.form_of(ROLL_C5_28).choices
    fixed_dice.append([2])
    assert de.press(ROLL_C5_28, item="A-P mines in 23K4").status == 200
    fixed_dice.append([5])
    assert de.press(ROLL_C5_28, item="Wire in 23K4").status == 200
    forged = de.press(ROLL_C5_28, item="Wire in 23K5")
    assert forged.refused and "23K5" in forged.text, forged.text[:300]
    fixed_dice.append([5])
    assert de.press(ROLL_C5_28, item="Wire in 23K5", gone="yes").status == 200
    assert [r.item for r in rolls(players, "C5.28", "german")] == [
        "A-P mines in 23K4",
        "Wire in 23K4",
        "Wire in 23K5",
    ]
    us.open()
    assert "gone" not in us.form_of(ROLL_C5_28).choices
    # His rolls are in the log as any C5.28 roll; his mines' Locations are not.
    assert "A-P mines bought for" not in us.text
    # Carried to the next ConPh: his mines cleared at 23K4, gone at 23K5, bar nothing.
    players.until("initiative")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.28")
    de.open()
    for where in ("23K4", "23K5"):
        fixed_dice.append([5])
        answer = de.press(ROLL_C5_28, item=f"Wire in {where}")
        assert answer.status == 200, answer.text[:300]


# --------------------------------------------------------------------------- Part 2A


def test_c5_28_the_roadblock_and_minefield_drms_only_for_the_fortification_they_name(
    users, modules, fixed_dice
):
    """C5.28 "+1 Roadblock along a hexside of an enemy Front Line Hex ..." and "+1
    Minefield/Entrenchment is adjacent to enemy Front Line Hex" (classed recorded: "the
    player ticks it: Front Line hexes are the map's").  The app holds the other half of
    each: the roll names the fortification (C5.28 "must announce which one is currently
    being rolled for").  On the US page before the 1930 hrs TM Scenario: the Roadblock
    +1 ticked on a Wire roll is refused in a sentence citing C5.28, nothing rolled; the
    Minefield/Entrenchment +1 ticked on a Roadblock roll is refused; each ticked on the
    roll of the fortification it names is applied.  The German page shows the same
    DRMs for his own rolls, none of the US's rolls."""
    from tests.test_phdb19_pass19 import us_attacks_last

    players = us_attacks_last(users, "C5.28")
    page = seats(players)
    us, de = page["us"], page["german"]
    before = Roll.objects.filter(campaign_id=players.campaign_id).count()
    forged = us.press(ROLL_C5_28, item="Wire in 23M12", tick="roadblock_front")
    assert forged.refused, (forged.status, forged.text[:300])
    assert "Roadblock" in forged.text and "C5.28" in forged.text, forged.text[:400]
    plain(forged.text)
    forged = us.press(ROLL_C5_28, item="Roadblock in 23M13", tick="minefield_adjacent")
    assert forged.refused and "C5.28" in forged.text, forged.text[:400]
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == before
    fixed_dice.append([2])
    assert us.press(ROLL_C5_28, item="Roadblock in 23M13", tick="roadblock_front").status == 200
    fixed_dice.append([2])
    assert us.press(ROLL_C5_28, item="Foxhole in 23M14", tick="minefield_adjacent").status == 200
    made = rolls(players, "C5.28", "us")
    assert [[d["value"] for d in r.drms] for r in made] == [[1], [1]]
    # The German's page offers him the same DRMs for his own rolls.
    de.open()
    fixed_dice.append([5])
    forged = de.press(ROLL_C5_28, item="Wire in 23K4", tick="roadblock_front")
    assert forged.refused and "C5.28" in forged.text, forged.text[:300]
    assert de.press(ROLL_C5_28, item="Roadblock in 23K4", tick="roadblock_front").status == 200


def test_c5_39_the_set_up_page_names_the_units_tm19_tm15_tm13_tm17_and_tm10_speak_of(
    users, modules
):
    """Sentences classed map whose units the app holds on the roster, named on the C5.39
    Unit Set-Up page of their owner only (the players place them on the map): TM19 "All
    StuG III and StuH 42 are equipped with Schuerzen (D11.2)" (the German's StuG IIIG);
    TM15 "A Gun which sets up in a Pillbox or a Fortified Building Location may never be
    moved ..." and "A HIP Gun, once revealed, may only set up in a subsequent TM
    Scenario concealed" (his PaK 40); TM13 "Each side is limited to the use of two OBA
    modules ... per TM Scenario. Usage ... is defined as having its radio or
    fieldphone in play" (the US's radios); TM17 "A Heroic Leader wounds as a leader"
    (the US's heroic 8-1); TM10 "All units/equipment of the same RG must initially
    either be set up in the same set up area or enter at ... the same friendly Entry
    Area" (each side's units of an RG).  C2.0 "Attacking Side ... Usually this side
    moves first": both pages read who moves first."""
    from tests.test_phdb19_pass19 import us_attacks_last

    players = us_attacks_last(users, "C5.31")
    page = seats(players)
    us, de = page["us"], page["german"]
    buy = [b for b in us.buttons() if b.startswith("Buy I2 Rifle Pl")]
    assert buy, us.buttons()
    assert us.press(buy[0]).status == 200
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    add(players, "german", "StuG IIIG", "vehicle")
    add(players, "german", "75L PaK 40", "gun")
    add(players, "us", "Radio (O1 105mm OBA)", "sw")
    add(players, "us", "Radio (O3 155mm OBA)", "sw")
    add(players, "us", "Radio (O4 60mm Mortar OBA)", "sw")
    add(players, "us", "8-1 leader", "leader", markers=("heroic",))
    players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until_step("C5.39")
    us.open()
    de.open()
    mine, theirs = step_part(de), step_part(us)
    assert "Schuerzen" in mine and "StuG IIIG" in mine and "TM19" in mine, mine
    assert "PaK 40" in mine and "TM15" in mine, mine
    assert "Schuerzen" not in theirs and "PaK 40" not in theirs, theirs
    assert "two OBA modules" in theirs and "TM13" in theirs, theirs
    assert "Radio (O1 105mm OBA)" in theirs and "two OBA modules" not in mine
    assert "Heroic Leader" in theirs and "TM17" in theirs, theirs
    assert "TM10" in theirs and "6-6-6" in theirs and "(I2" in theirs, theirs
    # C5.39 "Only requisitioned units may be set up during this step": the US's Rifle
    # Pl bought for 1930 hrs is named under it; the units added earlier by hand are not.
    new = re.search(
        r"Only requisitioned units may be set up during this step.*?\(C5\.39\): your ([^.]*)\.",
        theirs,
    )
    assert new and "(I2" in new.group(1) and "Radio" not in new.group(1), theirs
    assert "Only requisitioned units may be set up during this step" not in mine, mine
    assert "8-1 leader" not in mine
    for seat, part in ((de, mine), (us, theirs)):
        assert "American moves first" in seat.text, seat.text[:2000]
        plain(part)


def test_c5_28_a_p_mines_taken_back_at_c5_35_bar_no_wire_roll_at_the_next_c5_28(
    users, modules, fixed_dice
):
    """Part 2B, an undo followed to the next date: C5.28's mines-first order reads the
    side's own A-P mines recorded at C5.35; the German buys A-P mines at 23K4 before the
    Initial TM Scenario, then presses "Take back my last fortification" on his page.
    At the C5.28 after the scenario his Wire roll at 23K4 is made, not refused: the
    mines taken back are no longer his, and his page offers no "gone" box."""
    from campaign.services import purchases
    from tests.test_rule_mechanisms import module_of, result_values, supply
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players = players_of(c, a, b)
    players.until_step("I-C5.35")
    supply(players, "fortifications.items.ap_mines.cost", {"value": "1"})
    purchases.buy_fortification(
        campaign_id=c.pk, user=players.users["german"], item_id="ap_mines", count=2, location="23K4"
    )
    de = Seat(players.users["german"], c.pk)
    de.open()
    take_back = [b for b in de.buttons() if b.startswith("Take back my last fortification")]
    assert take_back, de.buttons()
    assert de.press(take_back[0]).status == 200
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.28")
    de.open()
    assert "gone" not in de.form_of(ROLL_C5_28).choices
    fixed_dice.append([5])
    answer = de.press(ROLL_C5_28, item="Wire in 23K4")
    assert answer.status == 200, answer.text[:300]
