"""Purple Heart Draw, twentieth pass (issue 44), C1-C5.24 side: pass 19's Left items
(C5.21's select offering a HS its EXC refuses; the last CG date and the CG's end) and
sentences of C1.1-C5.24 drawn at random (random.Random(20)) and tried in play through
the pages (tests/page_play.py), each test citing its rule
(docs/rules-audit/pass-20-phda20.md)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests.page_play import Seat
from tests.test_phd16_pass16 import plain
from tests.test_phda19_pass19 import log_texts, seats, step_words
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users", "Unit", "Seat", "step_words"]


# Part 1: pass 19's Left items.


def test_c5_21_exc_a_hs_possessing_a_mmg_is_not_offered_and_the_page_says_why(users, modules):
    """C5.21 EXC "A HS in possession of a MMG/HMG/Lt. MTR/Gun (even if Malfunctioned)"
    (pass 19's Left item): the US holds three 3-3-7 half-squad lines, one possessing a
    (malfunctioned) MMG.  The recombination's selects offer the two others only; the
    one with the MMG is left out, and the page says why next to the form, as a
    sentence citing C5.21 EXC; a forged post naming it is still refused, nothing
    changed.  Held alone with one partner (two lines, one with the MMG), nothing is
    offered and the page says why.  The German's page offers none of the US lines."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.21")
    a = add(players, "us", "3-3-7", "half_squad", location="c4")
    b = add(players, "us", "3-3-7", "half_squad", location="c5")
    c = add(players, "us", "3-3-7", "half_squad", location="c6")
    add(players, "us", "6-6-7", "squad")
    add(players, "us", "MMG", "sw", markers=("malfunctioned",), possessor=a.ref)
    s = seats(players)
    us = s["us"]
    us.open()
    words = "Recombine the two HS"
    gives = [ref for ref, _ in us.options(words, "give")]
    marks_ = [ref for ref, _ in us.options(words, "mark")]
    assert b.ref in gives and c.ref in gives, gives
    assert a.ref not in gives and a.ref not in marks_, (gives, marks_)
    said = step_words(us)
    assert "possesses MMG" in said and "C5.21 EXC" in said, said[:3000]
    plain(said)
    forged = us.press(words, give=a.ref, mark=b.ref, forms="6-6-7")
    assert forged.refused and "C5.21 EXC" in forged.text, forged.text[:400]
    assert "Nothing was changed" in forged.text
    assert Unit.objects.filter(pk__in=[a.pk, b.pk, c.pk]).count() == 3
    german = s["german"]
    german.open()
    assert words not in german.buttons()
    assert a.ref not in german.html and "possesses MMG" not in german.text

    made = us.press(words, give=b.ref, mark=c.ref, forms="6-6-7")
    assert made.status == 200, made.text[:400]
    # Now a 3-3-7 line with the MMG and one other: no pair offered, the page says why.
    add(players, "us", "3-3-7", "half_squad", location="c7")
    us.open()
    assert words not in us.buttons(), us.buttons()
    said = step_words(us)
    assert "You hold no HS" in said, said[:3000]
    assert "Not offered: 3-3-7 possesses MMG" in said and "C5.21 EXC" in said, said[:3000]
    plain(said)


# Part 2: the drawn sentences, the offered/computed claims and what other systems fixed.


def test_c5_24_a_captured_leader_is_not_retained_the_dr_hardens_the_next_lower(
    users, modules, fixed_dice
):
    """C5.24 footnote * "If that side does not currently retain the leader selected,
    then the player must Battle Harden the next lower quality non-wounded leader"
    (drawn): a leader its side marks captured is held prisoner by the enemy (C5.15), not
    one it currently retains (as C5.23's MMC and C5.24a's squad-equivalents do not count
    a captured MMC).  The German holds a captured 8-1, a 7-0 and a 4-6-7: his DR of 6
    selects an 8-1, so the 7-0 Battle Hardens (now 8-0), the captured 8-1 stays as he
    is.  Holding only the captured 8-1 (the US), the page offers no DR and says why."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.24")
    add(players, "german", "8-1 leader", "leader", markers=("captured",))
    add(players, "german", "7-0 leader", "leader")
    add(players, "german", "4-6-7", "squad")
    add(players, "us", "8-1 leader", "leader", markers=("captured",))
    add(players, "us", "6-6-7", "squad")
    s = seats(players)
    us = step_words(s["us"])
    assert "Roll DR: Leader Promotion Table" not in s["us"].buttons(), us
    assert "you retain no unwounded leader it could Battle Harden" in us, us
    german = s["german"]
    german.open()
    fixed_dice.append([3, 3])  # 6: an 8-1 selected
    rolled = german.press("Roll DR: Leader Promotion Table")
    assert rolled.status == 200, rolled.text[:500]
    names = sorted(n for n, kind, *_ in unit_names(players, "german") if kind == "leader")
    assert names == ["8-0 leader", "8-1 leader"], names
    said = [t for t in log_texts(players) if "Battle Hardens" in t]
    assert said and "7-0 leader Battle Hardens: now 8-0 leader" in said[-1], said


def test_c5_24a_a_captured_leader_does_not_count_against_the_promotion_out_of_the_ranks(
    users, modules
):
    """C5.24a "Provided that a side does not have > one leader per four
    squad-equivalents of its currently retained units" (a cap counting units:
    what other systems fixed in pass 19, a cap that stops counting captured units): the
    US holds four 6-6-7 squads, an 8-1 and a 7-0 marked captured (a prisoner of the
    enemy, not a retained unit).  One leader for four squad-equivalents: the page
    offers the promotion (its select of MMC), and pressing it creates the 7-0."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.24")
    add(players, "us", "8-1 leader", "leader", location="a1")
    add(players, "us", "7-0 leader", "leader", markers=("captured",))
    squads = [add(players, "us", "6-6-7", "squad", location=f"b{n}") for n in range(4)]
    us = seats(players)["us"]
    words = "Instead of rolling: Promote a 7-0 leader out of the Ranks (C5.24a)"
    said = step_words(us)
    assert "Not with 2 leaders" not in said, said
    assert words in us.buttons(), said
    offered = dict(us.options(words, "mmc"))
    assert squads[0].ref in offered, offered
    made = us.press(words, mmc=squads[0].ref)
    assert made.status == 200, made.text[:500]
    assert Unit.objects.filter(
        campaign_id=players.campaign_id, side="us", name="7-0 leader", location="b0"
    ).exists()


def test_c5_8_each_encircled_unit_owes_its_1tc_before_done_failure_eliminates(
    users, modules, fixed_dice
):
    """C5.8 "ENCIRCLED UNITS: Any encircled units [EXC: Prisoners] must take a 1TC (any
    leadership DRM applying) with the failure of this 1TC resulting in the elimination
    of the unit. Each unit in a location/hex is rolled for individually" (drawn; what
    Sicily 3.6041 does with the same sentence: a DR owed for each unit its retained
    forces mark Encircled, Done waiting for it).  The German marks a 4-6-7 Encircled
    (and a 2-4-7 Encircled but captured: a prisoner, none owed); his page at C5.8
    offers the 1TC for the 4-6-7 only, with its Morale read from its counter, and no
    Done until it is made ("Roll first", citing C5.8); his DR of 11 fails (11 - 7 > 0):
    the 4-6-7 leaves the retained forces at once, the log naming the 1TC; then Done.  The
    US page offers the German's units nothing; the US Sherman marked Encircled and
    immobilized owes its vulnerable crew's 1TC (failing: Abandoned)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.8")
    encircled = add(players, "german", "4-6-7", "squad", markers=("encircled",))
    prisoner = add(players, "german", "2-4-7", "half_squad", markers=("encircled", "captured"))
    free = add(players, "german", "4-4-7", "squad")
    sherman = add(players, "us", "M4A1 Sherman", "vehicle", markers=("encircled", "immobilized"))
    s = seats(players)
    german = s["german"]
    said = step_words(german)
    words = "Roll DR: Encirclement 1TC"
    assert words in german.buttons(), said
    offered = [ref for ref, _ in german.options(words, "unit")]
    assert encircled.ref in offered, offered
    assert prisoner.ref not in offered and free.ref not in offered, offered
    assert "Done with C5.8" not in german.buttons(), said
    assert "Roll first" in said and "C5.8" in said, said
    plain(said)
    us = step_words(s["us"])
    assert encircled.ref not in s["us"].html
    assert "M4A1 Sherman" in us and "Encirclement 1TC: the crew of an Immobile vehicle" in us, us
    plain(us)
    fixed_dice.append([5, 6])
    rolled = german.press(words, unit=encircled.ref)
    assert rolled.status == 200, rolled.text[:500]
    assert not Unit.objects.filter(pk=encircled.pk).exists()
    line = [t for t in log_texts(players) if "4-6-7" in t][-1]
    assert "Encirclement 1TC for 4-6-7" in line and "Fails: Eliminated" in line, line
    plain(line)
    assert "Done with C5.8" in german.buttons(), german.buttons()
    assert sherman.ref in s["us"].html


def test_the_last_tm_scenario_ends_the_tm_on_both_pages_no_conph_after_it(users, modules):
    """Pass 19's Left: the last CG date and the CG's end.  C1.1 "Upon the conclusion of
    a TM Scenario, the players carry out ... the Consolidation Phase (ConPh) ... and
    then prepares for further combat in the next scenario"; C5.0 "the ConPh that
    occurs after each TM Scenario"; the glossary's TM End "The conclusion of the last
    TM Scenario of the TM"; C4.2 "The Americans achieve victory at the end of the last
    TM Scenario if they control the St-Lo-Bayeux Highway".  Walked through four Attack
    dates to the 1930 hrs scenario (the last), the German hosting: both pages ask for
    its result at C5.1, saying it is the last and that the CG ends with it (not at
    1530 hrs); the US enters it through his page (the Highway controlled, CVP
    typed), the German confirms through his: the TM ends there, no ConPh step follows
    (no Done on either page), both pages read the end and the US's victory citing
    C4.2, and C5.1's recalled German 4-6-7 leaves the retained forces with the result
    (C5.1 "Recalled units are eliminated")."""
    from campaign.models import Campaign
    from tests.test_rule_mechanisms import add, result_values, start

    players, module = start("purple-heart-draw", "tm", users, "german")
    players.results(**result_values(module, cvp_lost_us=8, cvp_lost_german=22))
    for n in range(4):
        players.until("initiative")
        players.chits(us="attack", german="attack")
        players.until_step("C5.1")
        if n == 2:  # the 1530 hrs scenario: not the last
            said = step_words(Seat(players.users["us"], players.campaign_id))
            assert "the last scenario" not in said, said
        if n < 3:
            players.results(**result_values(module, cvp_lost_us=8, cvp_lost_german=22))
    assert module.dates[players.campaign.date_index].label == "1930 hrs"
    recalled = add(players, "german", "4-6-7", "squad", markers=("recalled",))
    s = seats(players)
    for side in ("us", "german"):
        said = step_words(s[side])
        assert "When the 1930 hrs scenario is over, enter its outcome" in said, said
        assert (
            "1930 hrs is the last scenario of the CG (C4.2): once its result is confirmed, "
            "the CG ends and no step follows it." in said
        ), said
    us = s["us"]
    us.open()
    form = us.form_of("Enter the result")
    typed = {name: "3" for name, _ in form.fields if name.startswith("cvp_lost")}
    typed.update({name: "2" for name, _ in form.fields if name.startswith("san")})
    typed.update({name: "0" for name, _ in form.fields if name.startswith("crews_lost")})
    highway = next(name for name in form.choices if name.startswith("highway_controlled"))
    entered = us.press("Enter the result", **typed, **{highway: "on"})
    assert entered.status == 200, entered.text[:500]
    german = s["german"]
    german.open()
    confirmed = german.press("Confirm the result")
    assert confirmed.status == 200, confirmed.text[:500]
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is not None
    assert not Unit.objects.filter(pk=recalled.pk).exists()
    for side in ("us", "german"):
        text = s[side].open()
        assert "The CG ends after its last date, 1930 hrs." in text, text[:2000]
        assert "American wins the CG (C4.2" in text, text[:2000]
        assert not [b for b in s[side].buttons() if b.startswith("Done")], s[side].buttons()
        said = step_words(s[side])
        assert "The campaign is over" in said and "C5.2 Bog/Minefield Entry" not in said, said
        plain(said)


def test_drawn_sentences_played_from_both_seats_the_german_hosting_odd_holdings(
    users, modules, fixed_dice
):
    """Drawn sentences and the ledger's offered/computed claims, played through both
    seats' pages on a path the named tests use little: the German hosting, after the
    Initial TM Scenario (the US lost 14 CVP, the German 9), the US holding only
    vehicles, a 2-2-8 crew and a Hero (no leader, no MMC but the crew), the German a
    Hero, two squads and no leader.

    C5.3 "The Attacker is the side that had moved first": both pages name the same
    side, with its source.  C5.1 "All ConPh losses count for the previous scenario
    for all purposes" (C1.2, C5.2, C5.20 computed): at C5.14 the US proposes through
    his page that his CVP lost were 27 (a unit lost in the ConPh), the German accepts
    through his; the German's C5.23 DRM (-1 from the 14 CVP first entered) reads -2
    from 27 on his page.  C5.22 "HEROES: Each friendly on-map Hero ... combined with any
    (non-crew) MMC": the German's select offers his squads; pressed, the 4-6-7 Battle
    Hardens and the Hero leaves.  "Eliminate any Heroes that cannot combine": the US
    page offers no MMC (a crew is not one) and says the Hero leaves at Done; after
    Done it is gone.  C5.24 "Each side has the option to make a secret DR": the US,
    with no leader, is offered none and reads why; the German's DR is his page's
    only, its result unread on the US page."""
    import re

    from campaign.models import Roll
    from tests.test_rule_mechanisms import add, result_values, start, unit_names

    players, module = start("purple-heart-draw", "tm", users, "german")
    players.results(**result_values(module, cvp_lost_us=14, cvp_lost_german=9))
    s = seats(players)
    add(players, "us", "M4A3 Sherman", "vehicle", markers=("stunned",))
    add(players, "us", "2-2-8 crew", "half_squad")
    us_hero = add(players, "us", "Hero", "hero")
    squad = add(players, "german", "4-6-7", "squad")
    add(players, "german", "4-4-7", "squad")
    de_hero = add(players, "german", "Hero", "hero")

    players.until_step("C5.3")
    named = {
        side: re.findall(r"Attacker \(C5\.3\): (\w+), the side that moved first", s[side].open())
        for side in s
    }
    assert named["us"] and named["us"] == named["german"], named

    players.until_step("C5.14")
    us = s["us"]
    us.open()
    form = us.form_of("Propose the amendment")
    typed = {name: value for name, value in form.fields}
    assert typed["cvp_lost.us"] == "14", typed
    proposed = us.press(
        "Propose the amendment",
        **{"cvp_lost.us": "27"},
        reason="a Sherman lost in the ConPh's Close Combat (C5.1)",
    )
    assert proposed.status == 200, proposed.text[:500]
    german = s["german"]
    german.open()
    accepted = german.press("Accept the amendment")
    assert accepted.status == 200, accepted.text[:500]

    players.until_step("C5.22")
    said = step_words(german)
    words = "Mark battle hardened"
    offered = [ref for ref, _ in german.options(words, "mark")]
    assert squad.ref in offered, offered
    made = german.press(words, give=de_hero.ref, mark=squad.ref)
    assert made.status == 200, made.text[:500]
    assert not Unit.objects.filter(pk=de_hero.pk).exists()
    said = step_words(us)
    assert words not in us.buttons(), said
    assert "Done: each of your Heroes left leaves your forces (C5.22)." in said, said
    us.press("Done with C5.22")
    german.open()
    german.press("Done with C5.22")
    assert not Unit.objects.filter(pk=us_hero.pk).exists()
    assert players.step.id == "C5.23"

    said = step_words(german)
    assert "-2 now: 27 CVP American lost in the scenario just played (its result)" in said, said
    players.until_step("C5.24")
    said = step_words(us)
    assert "Roll DR: Leader Promotion Table" not in us.buttons(), said
    assert "you retain no unwounded leader it could Battle Harden" in said, said
    names = [n for n, *_ in unit_names(players, "german")]
    assert "4-6-7" in names or any("4-6-7" in n for n in names), names
    assert not Roll.objects.filter(campaign_id=players.campaign_id, table_id="leader_promotion")
