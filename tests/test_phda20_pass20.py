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
from tests.test_phda19_pass19 import seats, step_words
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
