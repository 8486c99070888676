"""Sicily (seed 001), RePh 3.601-3.614, the twentieth pass of the sentence audit (issue
44): the items pass 19 left (a HS its owner added by its own counter recombining, the
CG's end), then sentences drawn at random from the seed (random.Random(20)), the
ledger's offered and computed claims, and what the other systems fixed in pass 19,
played through the pages (tests/page_play.py) for each side, on paths the earlier
passes used little: the Axis side, CG III's last date and its end, CG I on its last
date, odd holdings (only a captured weapon, a stunned German vehicle, a heroic 10-3)
(docs/rules-audit/pass-20-sica20.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Unit
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Answer, Seat
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, unit_names
from tests.test_sica18_pass18 import _seat

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _done(players, side) -> Answer:
    return _seat(players, side).press(f"Done with {players.step.id}")


def _markers(unit) -> list[str]:
    return sorted(Unit.objects.get(pk=unit.pk).markers)


def _dones(seat: Seat) -> list[str]:
    return [b for b in seat.buttons() if b.startswith("Done with")]


def _log(players) -> str:
    return " ".join(
        e.text for e in Event.objects.filter(campaign_id=players.campaign_id).order_by("id")
    )


# --------------------------------------------------------------------------- Part 1


def test_3_6111_two_hs_lines_of_one_counter_recombine_into_the_squad_their_owner_names(
    users, modules, fixed_dice
):
    """3.6111 "RECOMBINING: All Retained same-class HS with the same strength factors
    within the same Setup/" for HS the owner added by their own counter (pass 19's
    Left: a "2-4-7" line names no squad, and was not offered), through the Axis pages of
    CG III on its last date (the RePh after July 14 AM).  Two "2-4-7" HS lines (and a
    "2-3-7" line alone, and a "2-2-8 crew" pair: a crew is no HS of a squad) : the 3.611
    page offers "Recombine the two HS" naming the 2-4-7 lines only, with the squad they
    form to name, the side's squad lines offered (a 4-6-7 held); unnamed, refused
    citing 3.6111, nothing changed; a 2-4-7 paired with the 2-3-7, refused citing
    3.6111; named 4-4-7, the two become one 4-4-7 squad.  The British page offers none.
    Finishing ahead from 3.610 stops at 3.611 while the pair is held."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.610")
    one = add(players, "axis", "2-4-7", "half_squad")
    two = add(players, "axis", "2-4-7", "half_squad")
    lone = add(players, "axis", "2-3-7", "half_squad")
    add(players, "axis", "2-2-8 crew", "half_squad", number=2)
    add(players, "axis", "4-6-7", "squad")
    axis = _seat(players, "axis")
    assert not [b for b in axis.buttons() if "to 3.615" in b], axis.buttons()
    players.until_step("3.611")
    axis.open()
    words = "Recombine the two HS"
    assert words in axis.buttons(), axis.buttons()
    assert [v for v, _ in axis.options(words, "give")] == [one.ref, two.ref], axis.options(
        words, "give"
    )
    assert "4-6-7" in axis.html[axis.html.find("recombine-squads") :][:400]
    assert words not in _seat(players, "british").buttons()
    unnamed = axis.press(words, give=one.ref, mark=two.ref, forms="")
    assert unnamed.refused and "3.6111" in unnamed.text, unnamed.text
    assert Unit.objects.filter(pk__in=[one.pk, two.pk]).count() == 2
    odd = axis.press(words, give=one.ref, mark=lone.ref, forms="4-4-7")
    assert odd.refused and "3.6111" in odd.text, odd.text
    assert Unit.objects.filter(pk__in=[one.pk, two.pk, lone.pk]).count() == 3
    made = axis.press(words, give=one.ref, mark=two.ref, forms="4-4-7")
    assert made.status == 200 and not made.refused, made.text[:300]
    names = unit_names(players, "axis")
    assert ("4-4-7", "squad", "ok", 1) in names, names
    assert not [n for n in names if n[0] == "2-4-7"], names
    assert "two 2-4-7 HS recombine into one 4-4-7 squad (3.6111)" in _log(players)
    assert "Done with 3.611" in _dones(axis)
