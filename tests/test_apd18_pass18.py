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
    the American's 9-1 at 12A1 rolls while his 7-0 there still owes (typed)."""
    players, _ = apd(users, "2.5")
    one = add(players, "american", "9-1 leader", "leader", "encircled", location="12A1")
    add(players, "american", "7-0 leader", "leader", "encircled", location="12A1")
    american, _ = seats(players)
    fixed_dice.append([1, 1])
    assert american.press(ROLL_1TC, unit=one.ref).status == 200


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
