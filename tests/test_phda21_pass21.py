"""Purple Heart Draw, twenty-first pass (issue 44), C1-C5.24 side: pass 20's Left items
(C5.8's 1TC for a Hero line naming no counter; C5.14's "Replaced" read from the
counter's figures; C5.18 on its page), the ledger's map/recorded/narrative claims
challenged, what carries to the next date, and sentences drawn at random
(random.Random(21)) tried in play through the pages (tests/page_play.py), each test
citing its rule (docs/rules-audit/pass-21-phda21.md)."""

from __future__ import annotations

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
