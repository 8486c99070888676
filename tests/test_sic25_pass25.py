"""Sicily (seed 001), RePh 3.6-3.623 with both RG charts, the twenty-fifth pass of the
sentence audit (issue 44): sentences that meet.  Two rules that apply to one unit,
purchase, roll, step or figure, played through the pages (tests/page_play.py) as two
players would, each figure read against a hand computation quoting both sentences
(docs/rules-audit/pass-25-sic25.md)."""

from __future__ import annotations

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _log, _markers
from tests.test_sica22_pass22 import _rolled

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

LIST = "Record my Setup Areas"
ESCAPE = "Roll DR: Escape"


def _listed(players, axis: str, british: str):
    """Both sides' 3.605 pages: each lists its Setup Areas (3.605 MARKING THE MAP) and
    presses Done; the 3.606 pages."""
    a, b = _seat(players, "axis"), _seat(players, "british")
    _rolled(a, LIST, areas=axis)
    _rolled(b, LIST, areas=british)
    _rolled(a, "Done with 3.605")
    _rolled(b, "Done with 3.605")
    assert players.step.id == "3.606", players.step.id
    return _seat(players, "axis"), _seat(players, "british")


# ------------------------------------------------------------ 3. two modifiers, one roll


def test_3_606_in_enemy_setup_area_applies_by_itself_with_night_encircled_and_stack(
    users, modules, fixed_dice
):
    """3.606: "+1 | If in enemy Setup Area, or if it must trace a path through ≥ one
    enemy Setup Area to its intended Area of Retention |", "-1 | If current CG Date is
    Night* |", "+2 | if Encircled* |", "+1 | per HS-equivalent > one HS using the same
    Escape DR* |"; 3.6056 chart "in enemy Setup Area | must attempt Escape (3.606)";
    3.605 "each side should record ... an ID for each one".  Four modifiers on one DR.
    CG I, the RePh after July 14 Night (3.606 on that Night date).  At 3.605 the Axis
    list A, the British North.  The Axis Encircled 4-6-7 entered in North stands in a
    Setup Area the British list: the first half of the +1 is on the record, so it
    applies by itself, said with its source, and is not ticked (a forged tick of the
    whole sentence is refused: one +1, never two; the squad still owes its DR).  Hand:
    DR 2+3 = 5, -1 Night, +1 in enemy Setup Area, +2 Encircled, +1 for a squad alone
    (two HS-equivalents, one beyond the first) = 8: "≤ 8 Escapes"; one more pip would
    be 9 (Replaced).  The Axis 2-4-7 HS in A (their own): no +1 by itself, but the
    path half is the player's (the path is the map's), ticked: DR 3+3 = 6, -1 Night,
    +1 ticked = 6.  The British page's log reads the same roll and its source."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.605")
    squad = add(players, "axis", "4-6-7", "squad", location="North", status="encircled")
    half = add(players, "axis", "2-4-7", "half_squad", location="A")
    axis, british = _listed(players, "A", "North")
    assert _markers(squad) == ["encircled", "escape_due"], _markers(squad)
    # The tick of the whole sentence for the squad: refused where the page is.
    forged = _forge(axis, "roll", table="escape", unit=squad.ref, tick="enemy_setup_area")
    assert forged.refused and forged.status < 500, (forged.status, forged.text[:400])
    assert "it stands in a Setup Area the enemy lists" in forged.text, forged.text[:600]
    assert "(3.606)" in forged.text and "escape_due" in _markers(squad)
    fixed_dice.append([2, 3])
    _rolled(axis, ESCAPE, unit=squad.ref, stack="")
    said = _log(players).rsplit("Escape for", 1)[1]
    assert (
        "+1 If in enemy Setup Area: 4-6-7 in Setup Area North, which the British list (3.605)"
        in said
    ), said
    assert "-1 If current CG Date is Night" in said and "+2 If Encircled" in said, said
    assert "→ 8: Infantry: Escapes" in said, said
    assert "escape_due" not in _markers(squad)
    fixed_dice.append([3, 3])
    _rolled(axis, ESCAPE, unit=half.ref, stack="", tick="enemy_setup_area")
    said = _log(players).rsplit("Escape for", 1)[1]
    assert "+1 If in enemy Setup Area, or if it must trace a path" in said, said
    assert "which the British list" not in said and "→ 6:" in said, said
    theirs = british.open()
    assert "which the British list (3.605)" in theirs, theirs[:3000]
