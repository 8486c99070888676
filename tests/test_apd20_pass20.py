"""Issue 44, pass 20, A Pleasant Diversion (seed 002): the Left items of pass 19 (2.5
EXC's Eliminated PRC and their CVP, A26.2; the last CG date and the CG's end read on
both sides' pages), then 25 sentences drawn at random from the seed's Clean-Up and
Setup text (random.Random(20)), the ledger's ``offered``/``computed`` claims and the
kinds of sentence the other systems fixed in pass 19, each read through the pages
(tests/page_play.py) on a path other passes used little.  Each test cites its rule;
docs/rules-audit/pass-20-apd20.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Event, Unit
from tests import test_rule_mechanisms
from tests.page_play import Answer, Seat
from tests.test_apd12_pass12 import apd, lost, supply_value
from tests.test_apd17_pass17 import midday
from tests.test_apd18_pass18 import fresh, rolls, seats
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add, result_values

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

ABANDON = "Its Vulnerable PRC are Eliminated: mark it Abandoned (2.5 EXC)"


def roster(players, side: str) -> Seat:
    seat = Seat(players.users[side], players.campaign_id, "roster/")
    seat.open()
    return seat


def remove_as_eliminated(seat: Seat, unit: Unit) -> Answer:
    """The roster page's form of ``unit``'s line, posted with its Remove button and
    "eliminated" as the reason, whether or not the page offers that reason."""
    form = next(f for f in seat.forms.forms.values() if ("unit", str(unit.ref)) in f.fields)
    data: dict[str, list[str]] = {}
    for name, value in form.fields:
        data.setdefault(name, []).append(value)
    data.update(do=["remove"], loss=["eliminated"])
    answer = seat.client.post(form.action, data, HTTP_HX_REQUEST="true")
    seat.open()
    return Answer(answer.status_code, answer.content.decode())


def log(players) -> str:
    return " ".join(
        Event.objects.filter(campaign_id=players.campaign_id).values_list("text", flat=True)
    )


# ------------------------------------------------------------ Left of pass 19: 2.5 EXC's CVP


def test_2_5_exc_the_abandoned_vehicles_eliminated_crew_adds_its_cvp_as_supplied_a26_2(
    users, modules
):
    """2.5 EXC "the Encircled Vulnerable PRC of an Immobile vehicle are Eliminated,
    leaving the vehicle Abandoned" with 2 Note "CVP are recorded normally throughout
    this phase": the Eliminated PRC are at least its Inherent crew, a loss of the
    scenario just played.  A crew's CVP are ASL's (A26.2), not the seed's: the module
    declares them missing (cvp_per_kind.half_squad, "a half-squad or crew") and the
    players supply them.  The Morning, the American (41 CVP lost) with 1 supplied: the
    press's confirmation names the crew's CVP and their source; pressed, his CVP lost
    read 41 → 42 on both sides' logs and 2.92's figure at 3.4 reads -8 + 42 CVP
    suffered = 34 PP.  On main the crew added nothing by itself (pass 19's Left)."""
    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.half_squad", "1")
    tank = add(players, "american", "M4A3(75)W", "vehicle", "encircled", markers=["immobilized"])
    american = roster(players, "american")
    button = american.button(f"{ABANDON} (M4A3(75)W)")
    confirm = button.attrs.get("hx-confirm", "")
    assert "crew" in confirm and "1 CVP" in confirm and "A26.2" in confirm, confirm
    assert american.press(f"{ABANDON} (M4A3(75)W)").status == 200
    assert "abandoned" in fresh(tank).markers
    assert lost(players)["american"] == 42, lost(players)
    assert "American's CVP lost 41 → 42" in log(players), log(players)[-600:]
    _, german = seats(players)
    assert "American's CVP lost 41 → 42 (2 Note; 2.5 EXC; A26.2)." in german.text, german.text[
        -3000:
    ]
    done(players, "american")
    done(players, "german")
    players.until_step("3.4")
    page, _ = seats(players)
    assert "-8 + 42 CVP suffered = 34" in page.text, page.text[-2000:]


def test_2_5_exc_a_crews_cvp_not_supplied_are_named_missing_never_zero(users, modules):
    """2.5 EXC with 2 Note, the German's side at the Midday, no crew CVP supplied: the
    press's confirmation and its log line say that the crew's CVP are not in the rules
    text (A26.2) and have not been supplied, to amend the result with them; nothing is
    counted silently."""
    players, _ = midday(users, "2.5")
    done(players, "american")
    add(players, "german", "PzIVH", "vehicle", "encircled", markers=["immobilized"])
    german = roster(players, "german")
    before = dict(lost(players))
    confirm = german.button(f"{ABANDON} (PzIVH)").attrs.get("hx-confirm", "")
    assert "not supplied" in confirm and "A26.2" in confirm, confirm
    assert german.press(f"{ABANDON} (PzIVH)").status == 200
    assert lost(players) == before
    assert "have not been supplied; amend the result with them" in log(players)


# ------------------------------------------------ Left of pass 19: the last date and the CG's end


def test_cg_vc_the_cg_end_after_the_afternoon_names_the_figures_the_german_wins_by(users, modules):
    """CG VC "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end and/or if they control all existing
    CGV Buildings" and CG DATES (the Afternoon the last), read at the CG's end on both
    sides' pages: Morning 63, Midday 40, Afternoon 20 VP (123); 41 + 10 + 5 = 56 CVP;
    no CGV Buildings.  Both pages read that the CG has ended, that the German wins, and
    why, with the figures and their source: 123 < 150, not all CGV Buildings (on main
    only "no CG victory condition was met").  Neither offers a step's button any more."""
    players, module = midday(users, "3.9")
    players.until("results")
    players.results(**result_values(module, vp_american=20, cvp_lost_american=5))
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is not None
    for seat in seats(players):
        text = seat.text
        assert "The CG ends after its last date, December 6 Afternoon. German wins" in text
        why = text.split("German wins", 1)[1][:400]
        assert "(CG total) 123 < 150" in why, why
        assert "not: American controls all existing CGV buildings" in why, why
        assert "CG VC" in why, why
        assert not [b for b in seat.buttons() if b.startswith(("Done", "Roll", "Enter"))]


# ------------------------------------------------------------ Part 2: the draw, in play


def test_3_31_one_repair_attempt_per_weapon_on_the_germans_midday_page(users, modules, fixed_dice):
    """3.31 "Each weapon/Vehicle may make only one Repair attempt" (drawn, D40), the
    German's side at the Midday (the last sequence): his squad's malfunctioned LMG, dr
    4 (NE).  The SW is no longer offered in the Repair select; a second attempt forged
    anyway is refused in words and nothing is rolled; the American's page offers no
    Repair roll for it."""
    from tests.test_roster_possession import possess

    players, _ = midday(users, "3.3")
    done(players, "american")
    squad = add(players, "german", "4-6-7", "squad", location="20A1")
    lmg = possess(players, "german", add(players, "german", "LMG", "sw", "malfunctioned"), squad)
    american, german = seats(players)
    words = "Roll dr: Repair Table: Repair SW"
    assert [v for v, _ in german.options(words, "unit")] == [lmg.ref]
    assert not [b for b in american.buttons() if b.startswith("Roll")]
    fixed_dice.append([4])
    assert german.press(words, unit=lmg.ref).status == 200
    assert "malfunctioned" in fresh(lmg).markers
    from tests.test_apd18_pass18 import at_of
    from tests.test_apd18_pass18 import forge as forge_act

    offered = [b for b in german.buttons() if b == words]
    assert not offered or lmg.ref not in [v for v, _ in german.options(words, "unit")]
    before = rolls(players)
    answer = forge_act(german, "roll", at=at_of(german), table="repair_sw", unit=lmg.ref)
    assert answer.refused and answer.text, answer.status
    assert "3.31" in answer.text or "only one" in answer.text, answer.text[:300]
    assert rolls(players) == before


def test_3_31_a_gun_rolling_6_is_removed_and_3_note_adds_no_cvp(users, modules, fixed_dice):
    """3.31 "... while a Gun is removed from the board" (drawn, D41) and 3 Note "CVP are
    NA for units/weapons eliminated in this phase" (drawn, D30), the German's side at
    the Midday: his possessed, malfunctioned PaK 40 rolls dr 6.  The Gun leaves his
    retained forces; the CVP lost stay as they were; his roster page's removal of a
    line at 3.3 offers no "Eliminated" choice, and one posted anyway is refused citing
    3 Note, the line kept."""
    players, _ = midday(users, "3.3")
    done(players, "american")
    gun = add(players, "german", "PaK 40", "gun", "malfunctioned", location="20A3")
    squad = add(players, "german", "4-6-7", "squad", location="20A1")
    _, german = seats(players)
    before = dict(lost(players))
    fixed_dice.append([6])
    assert german.press("Roll dr: Repair Table: Repair MA/Gun", unit=gun.ref).status == 200
    assert not Unit.objects.filter(pk=gun.pk).exists()
    assert lost(players) == before
    page = roster(players, "german")
    assert "Eliminated at" not in page.text
    answer = remove_as_eliminated(page, squad)
    assert answer.refused and "3 Note" in answer.text, (answer.status, answer.text[:300])
    assert Unit.objects.filter(pk=squad.pk).exists()
    assert lost(players) == before


def test_2_5_each_encircled_unit_owes_its_1tc_done_says_why_on_the_germans_midday_page(
    users, modules, fixed_dice
):
    """2.5 "Each Encircled unit must take a 1TC" (drawn, D10), the German's side at the
    Midday holding odd units: an Encircled Hero and an Encircled captured squad (a
    Prisoner, removed at 2.1, not his to check).  His page offers the 1TC for the Hero
    only; Done is not offered while it is owed and the page says why; the American's
    page offers no 1TC.  Rolled, Done is offered."""
    from tests.test_apd18_pass18 import ROLL_1TC

    players, _ = midday(users, "2.5")
    done(players, "american")
    hero = add(players, "german", "1-4-9 hero", "hero", "encircled", location="20A1")
    add(players, "german", "6-6-6", "squad", "encircled", markers=["captured"], location="20B1")
    american, german = seats(players)
    assert [v for v, _ in german.options(ROLL_1TC, "unit")] == [hero.ref]
    assert "Done with 2.5" not in german.buttons()
    step = german.text.split("Notification settings 2.5 Encirclement", 1)[1].split("Amend")[0]
    assert "1-4-9 hero" in step and "6-6-6" not in step, step
    assert 'id="finish-lacking"' in german.html, step
    lacking = german.html.split('id="finish-lacking">', 1)[1].split("</p>")[0]
    assert "1TC" in lacking and "2.5" in lacking, lacking
    assert not [b for b in american.buttons() if b.startswith("Roll")]
    fixed_dice.append([1, 1])
    assert german.press(ROLL_1TC, **{"unit": hero.ref, "typed.leadership": "0"}).status == 200
    assert "Done with 2.5" in german.buttons(), german.buttons()


def test_4_0_no_quarter_invoked_at_the_morning_is_read_at_the_afternoon_on_both_pages(
    users, modules
):
    """4.0 "Once invoked, No Quarter will remain in effect for the duration of the CG"
    (drawn, D64), invoked in the Morning (pass 17 tried the Midday), read at the
    Afternoon, the last CG date, on both sides' campaign pages and scenario sheets."""
    import html
    import re

    players, module = apd(users, "3.4", no_quarter_american=True)
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until("results")
    for side in ("american", "german"):
        seat = Seat(players.users[side], players.campaign_id, "sheet.txt")
        sheet = re.sub(r"\s+", " ", html.unescape(seat.client.get(seat.url).content.decode()))
        assert "No Quarter invoked (4.0): since the December 6 Morning scenario" in sheet, sheet
        assert "December 6 Afternoon" in sheet


# ------------------------------------------------ Part 2: the offered/computed claims, challenged


def test_2_9_2_91_2_92_a_midday_result_amended_at_3_4_recomputes_the_winner_and_the_pp_on_the_pages(
    users, modules
):
    """2.9 "otherwise the German wins", "The winning side moves first in the following
    scenario", 2.91 and 2.92 (ledger: computed), challenged: does the figure change when
    the recorded fact does?  The Midday's 3.4, the last purchase: 63 + 40 = 103 < 120,
    the German won; the American has 33 carried + (17 + 51) = 101 PP.  The American
    amends the Midday's VP to 60 through the page, the German accepts it through his:
    123 ≥ 120, the American wins the Midday and moves first in the Afternoon (both
    pages), and his PP read 33 + (-3 + 51) = 81."""
    players, _ = midday(users, "3.4")
    american, german = seats(players)
    assert "You have 101 PP" in american.text
    form = american.form_of("Propose the amendment")
    vp = next(n for n, _ in form.fields if "vp" in n and "american" in n and "cvp" not in n)
    assert (
        american.press("Propose the amendment", **{vp: "60", "reason": "miscounted"}).status == 200
    )
    german.open()
    assert german.press("Accept the amendment").status == 200
    american.open()
    for seat in (american, german):
        seat.open()
        assert "American won the December 6 Midday scenario: American moves first" in seat.text
        assert "(CG total) 123 ≥ 120" in seat.text, seat.text[-3000:]
    assert "You have 81 PP" in american.text, american.text[:3000]
    assert "81 PP" not in german.text


def test_2_91_2_92_the_cg_totals_name_each_scenarios_figures_on_the_midday_page(users, modules):
    """2.91 "The amount of VP which the American has scored for each scenario played is
    totaled to compute his current CG VP total" and 2.92 "the total of his CVP suffered
    in the CG thus far" (drawn, D21; ledger: computed), at the Midday, the first date
    with two scenarios played: the American's page gives each total with its source,
    the VP and CVP of each scenario (63 + 40 = 103; 41 + 10 = 51), not only the sums
    (on main "103 amassed" and "51 CVP suffered" alone).  The German's page shows none
    of it."""
    players, _ = midday(users, "3.4")
    american, german = seats(players)
    assert "VP differential 120 required − 103 amassed = 17 (CG total: 63 + 40)" in american.text
    assert "17 + 51 CVP suffered = 68 (CG total: 41 + 10)" in american.text
    assert "63 + 40" not in german.text


def test_cg_dates_the_afternoons_result_page_says_it_is_the_cgs_last_scenario(users, modules):
    """CG DATES "December 6 Morning/Midday/Afternoon (3 CG dates)" with 1.2 "the entire
    sequence below is followed at the end of each CG scenario to generate the next
    scenario": at the Afternoon, the last CG date, both sides' result pages say that it
    is the CG's last scenario and that the CG ends with its result (no Clean-Up or Setup
    follows); the Midday's result page does not."""
    players, module = apd(users, "3.4")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    last = (
        "is the last scenario of the CG (CG Dates; 1.2): once its result is confirmed, the CG ends"
    )
    for seat in seats(players):
        assert "When the December 6 Midday scenario is over" in seat.text
        assert last not in seat.text
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until("results")
    for seat in seats(players):
        assert "When the December 6 Afternoon scenario is over" in seat.text
        assert last in seat.text, seat.text[:3000]


def test_3_4_one_armor_type_dr_per_armor_group_after_a_cancelled_purchase_at_the_midday(
    users, modules, fixed_dice
):
    """3.4 "For each Armor Group purchased, make a dr to determine armor type" (drawn,
    D20), at the Midday's 3.4 (the last purchase), after a cancelled purchase: the
    American buys A1 through the page and cancels it before its rolls (his PP back),
    buys it again: the page offers its secret rolls once; made, the armor type is
    rolled once in all (the cancelled line rolled none) and the button goes; the
    German's page offers none of it."""
    from campaign.models import Roll
    from campaign.models import Seat as SeatRow
    from tests.test_rule_mechanisms import _armor_group

    def pp() -> int:
        return SeatRow.objects.get(campaign_id=players.campaign_id, side="american").points

    stuarts = {"do": "units", "unit": "M5A1", "count": 3, "kind": "vehicle"}
    players, _ = midday(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": stuarts}])
    american, german = seats(players)
    buy = next(b for b in american.buttons() if b.startswith("Buy A1"))
    assert american.press(buy).status == 200
    assert pp() == 10
    cancel = next(b for b in american.buttons() if b.startswith("Cancel RG"))
    assert american.press(cancel).status == 200
    assert pp() == 20
    buy = next(b for b in american.buttons() if b.startswith("Buy A1"))
    assert american.press(buy).status == 200
    rolls_for = [b for b in american.buttons() if b.startswith("Make its secret rolls")]
    assert len(rolls_for) == 1, american.buttons()
    german.open()
    assert not [b for b in german.buttons() if b.startswith(("Make its", "Buy"))]
    fixed_dice.extend([[3]] + [[1, 1]] * 6)
    assert american.press(rolls_for[0]).status == 200
    made = Roll.objects.filter(campaign_id=players.campaign_id, table_id="american_reinforcement")
    assert made.count() == 1
    assert not [b for b in american.buttons() if b.startswith("Make its secret rolls")]
