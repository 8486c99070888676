"""Sicily (seed 001), pass 24 of the sentence audit (issue 44): what the sides' Setup
Area lists (3.605, pass 22) let the app compute by itself: the 3.6056 chart's "in enemy
Setup Area" outcomes, 3.6071 (Equipment Retained by the side Controlling the Setup
Area), 3.6073 (hidden Fortifications in the opponent's Setup Area) and 3.6131, through
the pages (tests/page_play.py) for each side (docs/rules-audit/pass-24-sicsa.md)."""

from __future__ import annotations

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _dones, _log, _markers
from tests.test_sica22_pass22 import _rolled

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

LIST = "Record my Setup Areas"


def _listed(players, axis: str, british: str):
    """Both sides' 3.605 pages: each lists its Setup Areas (3.605 MARKING THE MAP)."""
    a, b = _seat(players, "axis"), _seat(players, "british")
    _rolled(a, LIST, areas=axis)
    _rolled(b, LIST, areas=british)
    return a, b


def test_3_6056_personnel_in_an_enemy_setup_area_owe_their_escape_dr(users, modules, fixed_dice):
    """3.6056 chart "in enemy Setup Area | must attempt Escape (3.606)", 3.606 "Each
    Personnel/" (a prisoner is none).  CG II's 3.605: the Axis list A, B, the British
    North, South.  The Axis 4-6-7 entered in North and the British 4-5-8 entered in "a"
    (the Axis's A, case and spaces aside) stand in an enemy Setup Area; the Axis 8-1 in
    A, the British 4-4-7 in South (their own) and the British 2-4-7 prisoner of the Axis
    in North (marked captured) do not owe it.  Before Done each 3.605 page says what
    completing it does ("4-6-7 is now must attempt Escape (3.6056 chart)"); once both are
    done, the two are marked "must attempt Escape" and 3.606 waits for their Escape DR,
    citing "(3.606; 3.6056 chart)"; the Axis roll it (DR 3+3 +1 in enemy Setup Area):
    Done is offered again and the marker is gone."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    squad = add(players, "axis", "4-6-7", "squad", location="North")
    leader = add(players, "axis", "8-1", "leader", location="A")
    theirs = add(players, "british", "4-5-8", "squad", location=" a ")
    home = add(players, "british", "4-4-7", "squad", location="South")
    prisoner = add(
        players, "british", "2-4-7", "half_squad", location="North", markers=["captured"]
    )
    axis, british = _listed(players, "A, B", "North, South")
    said = axis.open()
    assert "4-6-7 is now must attempt Escape (3.6056 chart)" in said, said[:4000]
    assert "8-1 is now" not in said
    said = british.open()
    assert "4-5-8 is now must attempt Escape (3.6056 chart)" in said, said[:4000]
    assert "4-4-7 is now" not in said and "2-4-7 is now" not in said
    _rolled(axis, "Done with 3.605")
    _rolled(british, "Done with 3.605")
    assert _markers(squad) == ["escape_due"] and _markers(theirs) == ["escape_due"]
    assert _markers(leader) == [] and _markers(home) == [] and _markers(prisoner) == ["captured"]
    assert "4-6-7 is now must attempt Escape (3.6056 chart)" in _log(players)
    axis, british = _seat(players, "axis"), _seat(players, "british")
    assert players.step.id == "3.606", players.step.id
    assert "Roll first: the Escape for 4-6-7 (3.606; 3.6056 chart)" in axis.text, axis.text[:4000]
    assert "Roll first: the Escape for 4-5-8 (3.606; 3.6056 chart)" in british.text
    assert not _dones(axis), axis.buttons()
    forged = _forge(axis, "finish")
    assert forged.refused and "3.6056 chart" in forged.text, (forged.status, forged.text[:600])
    fixed_dice.append([3, 3])
    _rolled(axis, "Roll DR: Escape", unit=squad.ref, tick="enemy_setup_area")
    assert "escape_due" not in _markers(squad)
    assert "Done with 3.606" in axis.buttons(), axis.buttons()
