"""Purple Heart Draw, twenty-first pass (issue 44), C1-C5.24 side: pass 20's Left items
(C5.8's 1TC for a Hero line naming no counter; C5.14's "Replaced" read from the
counter's figures; C5.18 on its page), the ledger's map/recorded/narrative claims
challenged, what carries to the next date, and sentences drawn at random
(random.Random(21)) tried in play through the pages (tests/page_play.py), each test
citing its rule (docs/rules-audit/pass-21-phda21.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Unit
from tests.page_play import Seat
from tests.test_phd16_pass16 import plain
from tests.test_phda19_pass19 import log_texts, seats, step_words
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users", "Unit", "Seat", "step_words"]


# Part 1: pass 20's Left items.


def test_c5_8_a_heros_1tc_on_a_line_named_hero_is_made_never_refused(users, modules, fixed_dice):
    """C5.8 "Any encircled units [EXC: Prisoners] must take a 1TC" (pass 20's Left): a
    Hero recorded as "Hero" names no counter figures, yet a Hero's Morale is printed
    on its counter (ASL A15.2: 9).  The German's page offers the 1TC for his Encircled
    Hero; pressed with the Morale the page asks for (or reads), the DR is made, never a
    refusal he cannot get past; the roll's line names the Morale.  A 4-6-7's Morale
    is still read from its counter: typing another is refused, nothing changed."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.8")
    hero = add(players, "german", "Hero", "hero", markers=("encircled",))
    squad = add(players, "german", "4-6-7", "squad", markers=("encircled",))
    german = seats(players)["german"]
    said = step_words(german)
    words = "Roll DR: Encirclement 1TC"
    assert hero.ref in [ref for ref, _ in german.options(words, "unit")], said
    fixed_dice.append([3, 4])
    asked = german.press(words, unit=hero.ref)  # the Morale left blank: asked, once
    assert asked.refused and "Morale" in asked.text and "C5.8" in asked.text, asked.text
    assert "Correct its line" not in asked.text, asked.text
    assert Unit.objects.filter(pk=hero.pk).exists()
    assert "Done with C5.8" not in german.buttons()
    rolled = german.press(words, unit=hero.ref, **{"typed.morale": "9"})
    assert rolled.status == 200, rolled.text[:600]
    line = [t for t in log_texts(players) if "Encirclement 1TC for Hero" in t][-1]
    assert "Passes" in line and "9" in line, line
    plain(line)
    assert Unit.objects.filter(pk=hero.pk, markers__contains=["encircled"]).exists()
    # A 4-6-7's Morale is read from its counter: another typed is refused.
    fixed_dice.append([3, 4])
    forged = german.press(words, unit=squad.ref, **{"typed.morale": "8"})
    assert forged.refused and "7 on the record" in forged.text, forged.text
    assert "Nothing was changed" in forged.text
    fixed_dice.clear()
    fixed_dice.append([3, 4])
    read = german.press(words, unit=squad.ref)
    assert read.status == 200, read.text[:600]
    assert "Done with C5.8" in german.buttons(), german.buttons()


# Part 2A: the ledger's map/recorded claims where the app holds the facts.


def test_c5_16_the_page_names_each_immobilized_or_abandoned_vehicle_its_side_holds(users, modules):
    """C5.16 "Each Immobilized (including Mired) or Abandoned vehicle that is not < 3
    hexes from a friendly MMC/AFV or behind the friendly FEBA after all Redeployment
    complete, is turned over to its wreck side (CS is NA)" (was `recorded`: the app
    holds the immobilized and abandoned markers): the distances and the FEBA are the
    map's, but the C5.16 page names the side's own vehicles concerned, with their
    markers and Location, citing C5.16; not its mobile vehicle, nor the opponent's."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.16")
    add(players, "us", "M4A1 Sherman", "vehicle", markers=("immobilized",), location="K5")
    add(players, "us", "M4A3 Sherman", "vehicle", markers=("abandoned",))
    add(players, "us", "M10 GMC", "vehicle")
    add(players, "german", "PzKpfw IVH", "vehicle", markers=("immobilized",))
    s = seats(players)
    us = step_words(s["us"])
    assert "(C5.16): your M4A1 Sherman (immobilized; at K5); M4A3 Sherman (abandoned" in us, us
    assert "M10 GMC (" not in us, us
    assert "PzKpfw" not in us, us
    plain(us)
    german = step_words(s["german"])
    assert "(C5.16): your PzKpfw IVH (immobilized)" in german, german
    assert "Sherman" not in german, german


def test_c5_8a_the_page_names_the_sides_prisoners_beside_the_encirclement_1tc(users, modules):
    """C5.8a "Any prisoners remaining in a hex in which all enemy units have been
    eliminated, due to failure of the 1TC for encircled units, may automatically
    possess any equipment dropped and are immediately Rearmed" (was `map`: the retained
    forces mark a side's men held prisoner as captured): which hex's guards all fell is
    the map's, but the C5.8 page names the side's own captured men, citing C5.8a, so
    its player knows whom to free (take the marker off); the opponent's page does not
    name them."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.8")
    add(players, "us", "3-3-7", "half_squad", markers=("captured",), location="L4")
    add(players, "us", "6-6-7", "squad")
    add(players, "german", "4-6-7", "squad", markers=("encircled",), location="L4")
    s = seats(players)
    us = step_words(s["us"])
    assert "(C5.8a): your 3-3-7 (captured; at L4)." in us, us
    assert "6-6-7 (" not in us.split("(C5.8a)")[1][:200], us
    plain(us)
    german = step_words(s["german"])
    assert "C5.8a): your" not in german and "3-3-7" not in german, german


def test_c5_4_both_pages_name_the_attacker_who_orders_the_melees(users, modules):
    """C5.4 "All Close Combat/Melee is concluded in any order chosen by the Attacker (as
    determined in C5.3)" (was `map`): the melees are the map's, but who chooses their
    order is computed: both pages at C5.4 name the same side, with its source (the side
    that moved first in the scenario just played)."""
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.4")
    s = seats(players)
    said = {side: step_words(s[side]) for side in ("us", "german")}
    for side, words in said.items():
        assert "Attacker (C5.3): American, the side that moved first" in words, (side, words)
        plain(words)


# Part 2B: what carries to the next date.


def test_effects_of_the_conph_carry_to_the_next_date_on_both_pages(users, modules, fixed_dice):
    """Two consecutive TM dates played through (the US hosting): what C5.6-C5.24 give a
    unit outlives its step.  C5.8 "Remaining units begin the next TM Scenario still
    Encircled (A7.7)": the German 4-6-7 passing its 1TC after the 0600 hrs scenario is
    still marked Encircled on his roster at the 0930 hrs ConPh, where C5.8 owes its 1TC
    again.  C5.13a "Units that end this Redeployment phase Isolated (only), suffer from
    Ammunition shortage for the next TM Scenario": the US 6-6-7 marked Isolated is
    marked Low Ammo when C5.14 is done and still is at the next date (C5.27d keeps it on
    an Isolated unit); C5.17 "Any HIP units that are Isolated ... are subject to
    Ammunition Shortage (A19.131)": hidden or not (the map's), the Isolated unit is.
    C5.6 "DO NOT REMOVE ... Prisoners ... or Encircled counters": both markers are
    there at the next date, each line on its owner's roster reading them.  C5.8a: the
    US's captured 3-3-7 is named again at the next C5.8, on the US page only."""
    from tests.test_phd_conph import phd_after
    from tests.test_phda19_pass19 import roster
    from tests.test_rule_mechanisms import add, result_values

    players, module = phd_after(users, "C5.8")
    enc = add(players, "german", "4-6-7", "squad", markers=("encircled",), location="P4")
    iso = add(players, "us", "6-6-7", "squad", markers=("isolated",), location="Q7")
    pow_ = add(players, "us", "3-3-7", "half_squad", markers=("captured", "isolated"))
    s = seats(players)
    s["german"].open()
    fixed_dice.append([1, 1])  # 2 - 7: passes
    rolled = s["german"].press("Roll DR: Encirclement 1TC", unit=enc.ref)
    assert rolled.status == 200, rolled.text[:500]
    line = [t for t in log_texts(players) if "Encirclement 1TC for 4-6-7" in t][-1]
    assert "Passes" in line, line
    players.until_step("C5.15")
    assert "low_ammo" in Unit.objects.get(pk=iso.pk).markers
    players.until("initiative")
    players.chits(us="attack", german="attack")
    players.until_step("C5.1")
    assert module.dates[players.campaign.date_index].label == "0930 hrs"
    players.results(**result_values(module, cvp_lost_us=4, cvp_lost_german=6))
    players.until_step("C5.8")
    german, us = seats(players)["german"], seats(players)["us"]
    said = step_words(german)
    assert enc.ref in [ref for ref, _ in german.options("Roll DR: Encirclement 1TC", "unit")], said
    de_roster = roster(players, "german")
    words = de_roster.open()
    assert re.search(r"4-6-7 — [^—]*Encircled", words), words[:3000]
    us_words = roster(players, "us").open()
    for name, marker in (("6-6-7", "Low Ammo"), ("6-6-7", "isolated"), ("3-3-7", "captured")):
        assert re.search(rf"{name} — [^—]*{marker}", us_words), (name, marker, us_words[:3000])
    assert "encircled" in Unit.objects.get(pk=enc.pk).markers
    said_us = step_words(us)
    named = said_us.split("(C5.8a): your ")[1][:120]
    assert named.startswith("3-3-7 — ") and "captured" in named, said_us
    # The reminder is the owner's: the German's C5.8 page names no prisoner of the US.
    assert "(C5.8a): your" not in said, said
    assert {"captured", "low_ammo"} <= set(Unit.objects.get(pk=pow_.pk).markers)


def test_c5_18_read_on_both_pages_each_sentence_said_and_done_leads_to_c5_19(users, modules):
    """C5.18 (pass 20's Left: read on its page, both sides, this time): "Turn over each
    Flame to become a Blaze and place a Pin counter on it. Place a Flame counter in
    each (burnable) hex adjacent to a Non-Pin Blaze hex and then extinguish ... Cover
    any non-building extinguished Blaze hex with an irrelevant counter and treat as
    Open Ground. Remove Pin counters from any Blazes"; C5.18a "Otherwise, treat such
    hexes as if the location itself contains a Blaze (as per C5.18)".  All the map's:
    both pages say each of them (the Pin counters and the Burning Wreck's Blaze were
    not said before), offer Done and no roll; both Done, C5.19 is next."""
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.18")
    s = seats(players)
    for side in ("us", "german"):
        said = step_words(s[side])
        for words in (
            "Each Flame becomes a Blaze with a Pin counter on it",
            "treated as Open Ground",
            "the Pin counters come off the Blazes",
            "otherwise its hex is treated as containing a Blaze (as per C5.18)",
        ):
            assert words in said, (side, words, said[:1500])
        assert "Done with C5.18" in s[side].buttons()
        assert not [b for b in s[side].buttons() if b.startswith("Roll")]
        plain(said)
    for side in ("us", "german"):
        s[side].open()
        assert s[side].press("Done with C5.18").status == 200
    assert players.step.id == "C5.19"


def _forge(seat: Seat, action: str, fields: list[tuple[str, str]], **typed: str):
    """``seat`` posts ``fields`` (another page's form) with ``typed`` to ``action``, as a
    forged request would (htmx's header sent); the answer."""
    from tests.page_play import Answer

    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    for name, value in typed.items():
        data[name] = [value]
    answer = seat.client.post(action, data, HTTP_HX_REQUEST="true")
    return Answer(answer.status_code, answer.content.decode())


def test_c5_13_c5_14_v_a_unit_redeployed_is_done_moving_and_the_defender_goes_after(
    users, modules, fixed_dice
):
    """C5.13 "As each unit redeploys, mark it with a Prep-fire counter to show that it
    has finished moving during the ConPh" (was `map`: the app records each unit's
    Redeployment DR): once the US 3-3-7 has redeployed, the roll's select no longer
    offers it and a forged second DR for it is refused citing C5.13a, nothing rolled.
    C5.14 v "The Defender may secretly redeploy any of his units after the Attacker"
    (was `map`): the German (Defender) page offers no Redeployment DR while the US
    (Attacker, C5.3) has not finished, says why, and a forged DR is refused; once the US
    is done, the German's page offers it and it is made."""
    from campaign.models import Roll
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    hs = add(players, "us", "3-3-7", "half_squad", location="R2")
    other = add(players, "us", "6-6-7", "squad", location="R3")
    de = add(players, "german", "4-6-7", "squad", location="S5")
    s = seats(players)
    us, german = s["us"], s["german"]
    us.open()
    words = "Roll DR: Redeployment Table"
    form = us.form_of(words)
    fixed_dice.append([2, 3])
    assert us.press(words, unit=hs.ref).status == 200
    offered = [ref for ref, _ in us.options(words, "unit")]
    assert hs.ref not in offered and other.ref in offered, offered
    fixed_dice.append([2, 3])
    again = _forge(us, form.action, form.fields, unit=hs.ref)
    assert again.refused and "C5.13a" in again.text, again.text
    assert Roll.objects.filter(campaign_id=players.campaign_id, unit_ref=hs.ref).count() == 1
    said = step_words(german)
    assert words not in german.buttons(), said
    assert "the Attacker (American, C5.3) goes first at C5.14" in said, said
    forged = _forge(german, form.action, form.fields, unit=de.ref)
    assert forged.refused and "C5.3" in forged.text, forged.text
    assert not Roll.objects.filter(campaign_id=players.campaign_id, unit_ref=de.ref).exists()
    us.open()
    assert us.press("Done with C5.14").status == 200
    german.open()
    fixed_dice.clear()
    fixed_dice.append([2, 3])
    assert german.press(words, unit=de.ref).status == 200
    assert Roll.objects.filter(campaign_id=players.campaign_id, unit_ref=de.ref).count() == 1


def test_c5_14_replaced_reads_the_next_lower_class_from_the_counters_figures(
    users, modules, fixed_dice
):
    """C5.14 Redeployment Table, Infantry 10 "Redeploys, Replaced" (A19.13: by the next
    lower quality counter; pass 20's Left): the class is read from the counter's
    figures the way C5.28 note 2 reads it (its classes, ASL Chapter H's counters, their
    source said).  The US 6-6-7 (1st Line) rolled 10 becomes a 6-6-6, keeping its
    Location and markers; the US 3-3-7 HS a 3-3-6; a 6-6-6 (no lower class given) is
    still marked "to be Replaced" for its owner to rename.  The roll's line says so."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    squad = add(players, "us", "6-6-7", "squad", location="R2")
    hs = add(players, "us", "3-3-7", "half_squad", location="R3")
    green = add(players, "us", "6-6-6", "squad", location="R4")
    us = seats(players)["us"]
    us.open()
    words = "Roll DR: Redeployment Table"
    for unit in (squad, hs, green):
        fixed_dice.append([4, 6])
        rolled = us.press(words, unit=unit.ref)
        assert rolled.status == 200, rolled.text[:500]
    after = {u.pk: u for u in Unit.objects.filter(pk__in=[squad.pk, hs.pk, green.pk])}
    assert (after[squad.pk].name, after[squad.pk].location) == ("6-6-6", "R2")
    assert (after[hs.pk].name, after[hs.pk].location) == ("3-3-6", "R3")
    assert after[green.pk].name == "6-6-6" and "replace_due" in after[green.pk].markers
    assert "replace_due" not in after[squad.pk].markers
    line = [t for t in log_texts(players) if "Redeployment Table for 6-6-7" in t][-1]
    assert "now 6-6-6" in line and "A19.13" in line, line
    plain(line)
