"""Issue 44, pass 18, A Pleasant Diversion (seed 002): the Left items of pass 17 (2.5's
order of checks in a Location, A10.7; a wounded leader's DRM, A17.2, and a Hero's
leadership, A15; the words a wounded Hero and the German at 3.6 read), then the
between-scenario sequence played through the pages' own buttons (tests/page_play.py),
as a browser does: each step opened for both sides, its buttons pressed (the rules'
and the forbidden), and the answer's words read next to the seed's sentences.  Each
test cites its rule; docs/rules-audit/pass-18-apd18.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll, Unit
from tests import test_rule_mechanisms
from tests.page_play import Seat
from tests.test_apd12_pass12 import apd
from tests.test_apd17_pass17 import midday
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

ROLL_1TC = "Roll DR: Encirclement 1TC"


def seats(players) -> tuple[Seat, Seat]:
    """The American's and the German's browsers, each at the campaign page."""
    american = Seat(players.users["american"], players.campaign_id)
    german = Seat(players.users["german"], players.campaign_id)
    american.open()
    german.open()
    return american, german


def rolls(players) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id).count()


def fresh(unit: Unit) -> Unit:
    return Unit.objects.get(pk=unit.pk)


def log_text(players) -> str:
    return " ".join(
        Event.objects.filter(campaign_id=players.campaign_id).values_list("text", flat=True)
    )


# ------------------------------------------------------------ Left of pass 17: 2.5, A10.7


def test_2_5_a10_7_the_leader_in_the_location_checks_first_the_squads_press_is_refused(
    users, modules, fixed_dice
):
    """2.5 "(leadership applies normally)", A10.7: the leader takes his own check
    before the units he leads.  The Midday, the German's page: his Encircled 4-6-7 and
    Encircled 8-1 at 20A1.  The 4-6-7's choice says it waits for the 8-1; pressing its
    1TC first is refused with a sentence naming him, nothing rolled; the 8-1 passes,
    then the 4-6-7's roll takes his -1 by itself."""
    players, _ = midday(users, "2.5")
    done(players, "american")
    squad = add(players, "german", "4-6-7", "squad", "encircled", location="20A1")
    leader = add(players, "german", "8-1 leader", "leader", "encircled", location="20A1")
    _, german = seats(players)
    offered = dict(german.options(ROLL_1TC, "unit"))
    assert "after the 8-1 leader at 20A1, who takes his own roll first" in offered[squad.ref], (
        offered
    )
    before = rolls(players)
    answer = german.press(ROLL_1TC, unit=squad.ref)
    assert answer.refused, answer.status
    assert "8-1 leader at 20A1 takes his own Encirclement 1TC first" in answer.text
    assert "A10.7" in answer.text
    assert rolls(players) == before
    fixed_dice.extend([[1, 1], [2, 3]])
    assert german.press(ROLL_1TC, unit=leader.ref).status == 200
    assert german.press(ROLL_1TC, unit=squad.ref).status == 200
    r = Roll.objects.filter(campaign_id=players.campaign_id).latest("seq")
    assert [d["value"] for d in r.drms if "Leadership" in d["label"]] == [-1], r.drms


def test_2_5_a10_7_two_leaders_in_one_location_are_not_held_for_each_other(
    users, modules, fixed_dice
):
    """2.5, A10.7: the leader-first order is a leader's before the units he leads; two
    Encircled leaders sharing a Location are not held for each other (no deadlock):
    the American's 9-1 at 12A1 rolls while his 7-0 there still owes, the DRM typed
    (owed since pass 19: whether the 7-0 leads him before his own check, A10.7, is not
    in the CG text)."""
    players, _ = apd(users, "2.5")
    one = add(players, "american", "9-1 leader", "leader", "encircled", location="12A1")
    add(players, "american", "7-0 leader", "leader", "encircled", location="12A1")
    american, _ = seats(players)
    fixed_dice.append([1, 1])
    answer = american.press(ROLL_1TC, **{"unit": one.ref, "typed.leadership": "0"})
    assert answer.status == 200, answer.text[:300]


def test_2_5_a17_2_a_wounded_leader_in_the_location_leaves_the_drm_to_type_never_zero(
    users, modules, fixed_dice
):
    """2.5 "(leadership applies normally)" with a wounded leader in the Location: the
    CG text gives no wounded leader's DRM (A17.2 is the rulebook's): the module
    declares it missing, the page says it is to be typed and why, a roll pressed with
    the field blank is refused in words (never taken as 0), and a typed value rolls.
    The Midday, the American's Encircled 4-6-6 with his wounded 8-1 at 12B3."""
    players, module = midday(users, "2.5")
    assert any("A17.2" in m.rule for m in module.missing)
    squad = add(players, "american", "4-6-6", "squad", "encircled", location="12B3")
    add(players, "american", "8-1 leader", "leader", "wounded", location="12B3")
    american, _ = seats(players)
    offered = dict(american.options(ROLL_1TC, "unit"))
    assert "leadership to type" in offered[squad.ref] and "wounded" in offered[squad.ref]
    before = rolls(players)
    answer = american.press(ROLL_1TC, unit=squad.ref)
    assert answer.refused and "A17.2" in answer.text and "not made without it" in answer.text
    assert rolls(players) == before
    fixed_dice.append([1, 1])
    assert american.press(ROLL_1TC, **{"unit": squad.ref, "typed.leadership": "0"}).status == 200
    assert rolls(players) == before + 1


def test_2_5_a15_a_heros_1tc_with_a_leader_there_is_typed_and_with_none_reads_0(
    users, modules, fixed_dice
):
    """2.5 for an Encircled Hero: whether a leader leads a Hero (A15) is not in the CG
    text, so where a leader shares his Location the DRM is owed, typed (a blank press is
    refused in words); where every leader's Location is entered and none is his, the
    app reads 0 ("no leader at ...") by itself.  The German's side at the Midday."""
    players, module = midday(users, "2.5")
    assert any("A15" in m.rule for m in module.missing)
    done(players, "american")
    led = add(players, "german", "1-4-9 hero", "hero", "encircled", location="20A1")
    alone = add(players, "german", "2-4-8 hero", "hero", "encircled", location="21B2")
    add(players, "german", "9-1 leader", "leader", location="20A1")
    _, german = seats(players)
    offered = dict(german.options(ROLL_1TC, "unit"))
    assert "leadership to type" in offered[led.ref], offered
    assert "no leader at 21B2" in offered[alone.ref], offered
    answer = german.press(ROLL_1TC, unit=led.ref)
    assert answer.refused and "A15" in answer.text
    fixed_dice.extend([[1, 1], [1, 1]])
    assert german.press(ROLL_1TC, unit=alone.ref).status == 200
    answer = german.press(ROLL_1TC, **{"unit": led.ref, "typed.leadership": "-1"})
    assert answer.status == 200, answer.text[:300]


# ------------------------------------------------------------ Left of pass 17: words


def test_3_1_3_2_a_wounded_hero_reads_wounded_not_wounded_leader(users, modules):
    """3.2 "Heroes (whether wounded or unwounded)": a Hero can be wounded; his line,
    the log and the 3.2 page say "wounded", not "wounded (leader)" (the marker's words
    for a leader)."""
    players, _ = midday(users, "3.2")
    add(players, "american", "1-4-9 hero", "hero", "wounded")
    american, german = seats(players)
    assert "wounded (leader)" not in american.text
    assert "1-4-9 hero (Hero, wounded)" in log_text(players)


def test_3_6_the_german_reads_his_row_groups_are_received_not_bought(users, modules, fixed_dice):
    """3.6 "for each German infantry (Row A) and armor (Row B) Reinforcement Group,
    make one secret DR": the German's groups come from his 3.5 Row drs at no cost; his
    3.6 page does not say "each RG you bought"."""
    from tests.test_rule_mechanisms import supply_german

    players, _ = midday(users, "3.4", before=supply_german)
    players.until_step("3.5")
    from tests.test_rule_mechanisms import roll

    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.until_step("3.6")
    _, german = seats(players)
    assert "each RG you bought" not in german.text
    assert "each of your RGs" in german.text


# ------------------------------------------- Part 2: the sequence through the pages' buttons


def forge(seat: Seat, action: str, **data: str):
    """A post the page does not offer this seat (no button for it), sent as htmx
    would: the answer; the page is read again.  (tests/page_play.py presses only the
    buttons a page shows; a forged post to an action the page omits needs its URL.)"""
    url = seat.url + f"act/{action}/"
    answer = seat.client.post(url, data, HTTP_HX_REQUEST="true")
    from tests.page_play import Answer

    result = Answer(answer.status_code, answer.content.decode())
    seat.open()
    return result


def at_of(seat: Seat) -> str:
    """The step position the page's forms carry (``at``)."""
    for form in seat.forms.forms.values():
        for name, value in form.fields:
            if name == "at" and value:
                return value
    raise AssertionError("no form carries the step's position")


def test_2_1_the_prisoners_each_side_loses_are_named_on_its_page_before_done(users, modules):
    """2.1 "All Prisoners are then removed from play", the Midday, read on the page:
    the American's page names his Captured 4-6-6 as leaving his forces when 2.1 is
    completed (it said nothing of it on main), not his 6-6-6; the German's names his
    Captured 8-0 once it is his turn.  Both Dones pressed, the 4-6-6 is gone."""

    def holdings(players):
        add(players, "american", "4-6-6", "squad", "captured")
        add(players, "american", "6-6-6", "squad")
        add(players, "german", "8-0 leader", "leader", "captured")

    players, _ = midday(users, "2.1", before=holdings)
    american, german = seats(players)
    assert "4-6-6 leaves your retained forces (2.1)" in american.text
    assert "6-6-6 leaves" not in american.text
    assert "8-0" not in american.text.split("Campaign log")[0]
    assert american.press("Done with 2.1").status == 200
    german.open()
    assert "When both sides have finished 2.1" in german.text
    assert "8-0 leader leaves your retained forces (2.1)" in german.text
    assert german.press("Done with 2.1").status == 200
    names = {u.name for u in Unit.objects.filter(campaign_id=players.campaign_id, side="american")}
    assert names == {"6-6-6"}


def test_1_2_the_germans_forged_done_before_the_americans_is_refused_in_words(users, modules):
    """1.2 "Both players (if applicable), American first, complete each step", at the
    Midday's 2.2 through the pages: the German's page offers no Done while the American
    has not finished; a Done posted anyway is refused with a sentence naming the
    American, and the step stays."""
    players, _ = midday(users, "2.2")
    american, german = seats(players)
    assert not [b for b in german.buttons() if b.startswith("Done")]
    assert "Waiting for your opponent" in german.text
    answer = forge(german, "finish", at=at_of(american))
    assert answer.refused and "American" in answer.text, (answer.status, answer.text[:300])
    assert players.step.id == "2.2"


def test_2_5_the_encircled_markers_removed_at_done_are_named_and_done_waits_for_the_1tc(
    users, modules, fixed_dice
):
    """2.5 "Each Encircled unit must take a 1TC ... All Encircled markers are then
    removed", through the American's page at the Midday: while his 1TC is owed there is
    no Done (a forged one is refused in words); once rolled and passed, the page says
    the 4-6-6 loses its Encircled marker when 2.5 is completed, and it does."""
    players, _ = midday(users, "2.5")
    squad = add(players, "american", "4-6-6", "squad", "encircled", location="12A1")
    american, _ = seats(players)
    assert "Done with 2.5" not in american.buttons()
    answer = forge(american, "finish", at=at_of(american))
    assert answer.refused and "2.5" in answer.text, answer.text[:300]
    fixed_dice.append([1, 1])
    assert american.press(ROLL_1TC, unit=squad.ref).status == 200
    assert "4-6-6 loses its Encircled marker (2.5)" in american.text
    assert american.press("Done with 2.5").status == 200
    done(players, "german")
    assert fresh(squad).markers == []


def test_3_1_the_recovery_dr_through_the_page_owed_once_and_the_owners(users, modules, fixed_dice):
    """3.1 "The owning player rolls on the following Recovery Table to determine each
    wounded leader's fate", the Midday, the American's page: no Done while his wounded
    8-1's dr is owed; "Roll dr: Recovery Table" rolls it (dr 2: unwounded); pressed
    again for him (a forged second) it is refused; the German forging a roll for the
    American's leader is refused, nothing rolled."""
    players, _ = midday(users, "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded", location="12A1")
    american, german = seats(players)
    assert "Done with 3.1" not in american.buttons()
    before = rolls(players)
    answer = forge(german, "roll", at=at_of(american), table="recovery", unit=leader.ref)
    assert answer.refused and answer.text, answer.status
    assert rolls(players) == before
    fixed_dice.append([2])
    assert american.press("Roll dr: Recovery Table", unit=leader.ref).status == 200
    assert fresh(leader).markers == []
    answer = forge(american, "roll", at=at_of(american), table="recovery", unit=leader.ref)
    assert answer.refused and "3.1" in answer.text, answer.text[:300]
    assert rolls(players) == before + 1
    assert "Done with 3.1" in american.buttons()


def test_3_2_the_battle_hardening_page_offers_own_mmc_only_and_refuses_a_forged_one(users, modules):
    """3.2 "for each such eliminated Hero the owning player may Battle Harden [EXC:
    Fanatic status is NA] any one MMC", the Midday, the American's page: the select
    offers his 6-6-6, not his Captured 4-6-6 nor his Elite 7-4-7 (Fanatic, NA), nor the
    German's squad; forging each is refused in words and changes nothing; pressing
    "Mark battle hardened" for the 6-6-6 gives up the Hero.  The German's page says he
    holds no Heroes."""
    players, _ = midday(users, "3.2")
    hero = add(players, "american", "1-4-9 hero", "hero")
    mmc = add(players, "american", "6-6-6", "squad")
    prisoner = add(players, "american", "4-6-6", "squad", "captured")
    elite = add(players, "american", "7-4-7", "squad", "elite")
    theirs = add(players, "german", "4-6-7", "squad")
    american, german = seats(players)
    offered = [v for v, _ in american.options("Mark battle hardened", "mark")]
    assert offered == [mmc.ref], offered
    assert "You hold no Heroes" in german.text
    for wrong in (prisoner, elite, theirs):
        answer = american.press("Mark battle hardened", give=hero.ref, mark=wrong.ref)
        assert answer.refused and answer.text, (wrong.name, answer.status)
    assert Unit.objects.filter(pk=hero.pk).exists()
    assert american.press("Mark battle hardened", give=hero.ref, mark=mmc.ref).status == 200
    assert not Unit.objects.filter(pk=hero.pk).exists()
    assert "battle_hardened" in fresh(mmc).markers


def test_3_3_one_repair_dr_per_weapon_through_the_page(users, modules, fixed_dice):
    """3.3 "making a dr per repair attempt for malfunctioned, non-captured weapons" and
    3.31 "Each weapon/Vehicle may make only one Repair attempt", the Midday, the
    American's page: his BAZ 44 is offered, his captured MMG is not; the BAZ's dr 5
    (NE) stands, and a second press for it is refused citing 3.31."""
    players, _ = midday(users, "3.3")
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    mmg = add(players, "american", "MMG", "sw", "malfunctioned", markers=["captured"])
    american, _ = seats(players)
    offered = [v for v, _ in american.options("Roll dr: Repair Table: Repair SW", "unit")]
    assert baz.ref in offered and mmg.ref not in offered, offered
    fixed_dice.append([5])
    assert american.press("Roll dr: Repair Table: Repair SW", unit=baz.ref).status == 200
    answer = forge(american, "roll", at=at_of(american), table="repair_sw", unit=baz.ref)
    assert answer.refused and "3.3" in answer.text, answer.text[:300]


def test_3_4_3_5_each_side_is_offered_only_its_own_step_and_a_forged_press_is_refused(
    users, modules
):
    """3.4 "The American player secretly spends" and 3.5 "The German player now
    secretly makes three Reinforcement drs", the Midday, through both pages: at 3.4 the
    German has no button and a forged purchase is refused in words; at 3.5 the
    American's page says only the German rolls, has no Row button, and a forged Row A
    dr is refused in words, nothing rolled."""
    from tests.test_rule_mechanisms import supply_german

    players, _ = midday(users, "3.4", before=supply_german)
    american, german = seats(players)
    assert "Only the American buys at 3.4" in german.text
    assert not [b for b in german.buttons() if b.startswith(("Buy", "Done"))]
    answer = forge(german, "buy", at=at_of(american), group="RA1")
    assert answer.refused and answer.text, answer.status
    players.until_step("3.5")
    american.open()
    german.open()
    assert "The German's roll, one in this pass: nothing for you to roll here" in american.text
    assert not [b for b in american.buttons() if "Row" in b]
    before = rolls(players)
    answer = forge(
        american, "roll", at=at_of(german), table="german_reinforcement_row_a", item="Row A"
    )
    assert answer.refused and "German" in answer.text, answer.text[:300]
    assert rolls(players) == before


def test_3_1_footnote_the_evacuated_leaders_7_0_is_to_be_placed_with_an_mmc_the_page_says(
    users, modules, fixed_dice
):
    """3.1 footnote *: "immediately replaced with a 7-0 leader in the same location as
    the friendly MMC nearest (in hexes) ... The owning player may choose which location
    in the event of a tie", the Midday, the American's page: his wounded 8-1 at 12A1
    rolls dr 5 (Evacuated); the 7-0 joins with no Location.  Before his Done the page
    now says where his MMC are and that he places the 7-0 (on main it said nothing);
    a Location with no MMC of his is refused (3.1 *); 12C1 is accepted and the
    reminder goes."""
    from tests.test_rule_mechanisms import edit

    players, _ = midday(users, "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded", location="12A1")
    add(players, "american", "6-6-6", "squad", location="12B1")
    add(players, "american", "4-6-6", "squad", location="12C1")
    american, _ = seats(players)
    fixed_dice.append([5])
    assert american.press("Roll dr: Recovery Table", unit=leader.ref).status == 200
    seven = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    assert seven.location == ""
    assert "place him with your MMC nearest (in hexes)" in american.text
    assert "yours are at 12B1, 12C1" in american.text
    with pytest.raises(Exception, match="none of your MMC is at 12D1"):
        edit(players, "american", seven, None, location="12D1")
    edit(players, "american", seven, None, location="12C1")
    american.open()
    assert "place him with your MMC nearest" not in american.text


def test_2_9_the_germans_midday_win_is_shown_with_its_figures_on_both_pages(users, modules):
    """2.9 "If the VP total is ≥ the required CG scenario total and/or the American
    achieved the scenario-specific CGV Building VC requirements then the American is
    the winner of the current scenario; otherwise the German wins", the Midday: 63 +
    40 = 103 < 120, requirement not met.  Both pages' log line now gives the figures
    the German's win rests on (on main it read only "German wins the December 6 Midday
    scenario (2.9; 4.0)", while an American win gave its figures)."""
    players, _ = midday(users, "3.1")
    american, german = seats(players)
    for seat in (american, german):
        assert (
            "German wins the December 6 Midday scenario: VP scored by the American in the "
            "scenario (CG total) 103 < 120; not: American achieved this scenario's CGV "
            "Building requirement (2.9; 4.0)"
        ) in seat.text, seat.text[-3000:]
