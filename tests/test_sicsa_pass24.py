"""Sicily (seed 001), pass 24 of the sentence audit (issue 44): what the sides' Setup
Area lists (3.605, pass 22) let the app compute by itself: the 3.6056 chart's "in enemy
Setup Area" outcomes, 3.6071 (Equipment Retained by the side Controlling the Setup
Area), 3.6073 (hidden Fortifications in the opponent's Setup Area) and 3.6131, through
the pages (tests/page_play.py) for each side (docs/rules-audit/pass-24-sicsa.md)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _dones, _log, _markers
from tests.test_sica22_pass22 import _gone, _rolled

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
    completing it does ("4-6-7 must attempt Escape (3.6056 chart)"); once both are
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
    assert "4-6-7 must attempt Escape (3.6056 chart)" in said, said[:4000]
    assert "8-1 is now" not in said
    said = british.open()
    assert "4-5-8 must attempt Escape (3.6056 chart)" in said, said[:4000]
    assert "4-4-7 is now" not in said and "2-4-7 is now" not in said
    _rolled(axis, "Done with 3.605")
    _rolled(british, "Done with 3.605")
    assert _markers(squad) == ["escape_due"] and _markers(theirs) == ["escape_due"]
    assert _markers(leader) == [] and _markers(home) == [] and _markers(prisoner) == ["captured"]
    assert "4-6-7 must attempt Escape (3.6056 chart)" in _log(players)
    axis, british = _seat(players, "axis"), _seat(players, "british")
    assert players.step.id == "3.606", players.step.id
    assert "Roll first: the Escape for 4-6-7 (3.606; 3.6056 chart)" in axis.text, axis.text[:4000]
    assert "Roll first: the Escape for 4-5-8 (3.606; 3.6056 chart)" in british.text
    assert not _dones(axis), axis.buttons()
    forged = _forge(axis, "finish")
    assert forged.refused and "3.6056 chart" in forged.text, (forged.status, forged.text[:600])
    fixed_dice.append([3, 3])
    # The +1 in enemy Setup Area applies by itself (from the lists: pass 25).
    _rolled(axis, "Roll DR: Escape", unit=squad.ref)
    assert "+1 If in enemy Setup Area: 4-6-7 in Setup Area North" in _log(players)
    assert "escape_due" not in _markers(squad)
    assert "Done with 3.606" in axis.buttons(), axis.buttons()


def _at_3_607(players):
    """Both sides done with 3.605 (their lists standing) and 3.606: the 3.607 pages."""
    for step in ("3.605", "3.606"):
        for side in ("axis", "british"):
            _rolled(_seat(players, side), f"Done with {step}")
    assert players.step.id == "3.607", players.step.id
    return _seat(players, "axis"), _seat(players, "british")


def test_3_6071_equipment_in_an_enemy_setup_area_captured_or_eliminated_the_enemys_choice(
    users, modules
):
    """3.6056 chart "in enemy Setup Area | is Captured or Eliminated (enemy's choice;
    3.6071)*" (Equipment, vehicles); 3.6071 "Each piece of Equipment in a Setup Area is
    Retained (as Captured, if applicable) therein by the side Controlling that Setup
    Area".  CG II: the Axis list A, B, the British North, South.  The British Bren
    entered in A, the British Sherman in B, and the British PIAT the Axis hold captured
    in North.  The British 2-inch mortar, possessed by the 4-5-8 in South, and the Axis
    MG 42, possessed by the 4-6-7 in A, stand in their own.  At 3.607 the Axis page
    names the Bren and the Sherman, not the mortar; the Axis Done is refused (forged)
    citing 3.6071 until each is chosen; Capture the Bren: the line is the Axis's,
    marked captured, gone from the British roster; Eliminate the Sherman: gone; the
    choice taken back puts it back on the British forces as it was, then Eliminated
    again; Done.  The British take back their PIAT: theirs, no longer captured ("as
    Captured, if applicable").  A choice made for a unit not offered (the mortar) is
    refused, nothing changed."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    bren = add(players, "british", "Bren LMG", "sw", location="A")
    sherman = add(players, "british", "Sherman III", "vehicle", location="B")
    squad = add(players, "british", "4-5-8", "squad", location="South")
    mortar = add(players, "british", "2-inch mortar", "sw", possessor=squad.ref)
    piat = add(players, "axis", "PIAT", "sw", markers=["captured"], location="North")
    gren = add(players, "axis", "4-6-7", "squad", location="A")
    mg = add(players, "axis", "MG 42", "sw", possessor=gren.ref)
    _listed(players, "A, B", "North, South")
    axis, british = _at_3_607(players)
    chart = "Captured or Eliminated, your choice (3.6056 chart; 3.6071): "
    assert chart + "Bren LMG (in Setup Area A); Sherman III (in Setup Area B)." in axis.text, (
        axis.text[:4000]
    )
    named = axis.text[axis.text.find(chart) :]
    named = named[: named.find(".")]
    assert "2-inch mortar" not in named and "MG 42" not in named, named
    assert chart + "PIAT (in Setup Area North)." in british.text, british.text[:4000]
    forged = _forge(axis, "finish")
    assert forged.refused and "(3.6056 chart; 3.6071)" in forged.text, forged.text[:600]
    assert "Sherman III (in Setup Area B)" in forged.text
    forged = _forge(axis, "area-capture", unit=mortar.ref)
    assert forged.refused and "3.6071" in forged.text, forged.text[:600]
    assert Unit.objects.get(pk=mortar.pk).side == "british"
    _rolled(axis, "Capture it (3.6071)", unit=bren.ref)
    taken = Unit.objects.get(pk=bren.pk)
    assert (taken.side, taken.markers, taken.location) == ("axis", ["captured"], "A")
    roster = _seat(players, "british", "roster/").text
    forces = roster[roster.find("Retained forces Axis") :]
    assert forces.startswith("Retained forces Axis Bren LMG — captured (A)"), forces[:300]
    assert "Bren" not in forces[forces.find(" British ") :], forces[:600]
    _rolled(axis, "Eliminate it (3.6071)", unit=sherman.ref)
    assert _gone(sherman)
    assert "Axis Eliminates the British Sherman III (in Setup Area B)" in _log(players)
    _rolled(axis, "Take back my choice", unit=sherman.ref)
    back = Unit.objects.get(ref=sherman.ref)
    assert (back.side, back.name, back.location) == ("british", "Sherman III", "B")
    _rolled(axis, "Eliminate it (3.6071)", unit=sherman.ref)
    assert not Unit.objects.filter(ref=sherman.ref).exists()
    _rolled(axis, "Done with 3.607")
    british.open()
    _rolled(british, "Capture it (3.6071)", unit=piat.ref)
    mine = Unit.objects.get(pk=piat.pk)
    assert (mine.side, mine.markers) == ("british", []), mine.markers
    assert Unit.objects.get(pk=mg.pk).side == "axis"
    assert "Done with 3.607" in british.buttons(), british.buttons()


def test_3_6071_a_unit_of_a_still_secret_rg_in_an_enemy_setup_area_tells_the_enemy_nothing(
    users, modules
):
    """Secrecy of the new choice (issue 18's gate): a British Bren of a still-secret RG
    (its Purchase not revealed) entered in the Axis's Setup Area A is not offered to the
    Axis, whose 3.607 page reads word for word as it does without it; a forged Capture
    of it is refused with the very sentence a made-up reference gets, and the Axis Done
    does not wait for it.  The British line stays as it was.  (The Axis seat is given a
    new revision before each read, so its page is rendered afresh, not from the parts
    kept per revision: the secret line changes none.)"""
    import uuid

    from campaign.models import Purchase
    from campaign.models import Seat as SeatModel

    def fresh() -> str:
        SeatModel.objects.filter(campaign_id=players.campaign_id, side="axis").update(
            revision=uuid.uuid4()
        )
        return axis.open()

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    _listed(players, "A, B", "North")
    axis, _ = _at_3_607(players)
    c = players.campaign
    before = fresh()
    rg = Purchase.objects.create(
        campaign=c, side="british", cycle=c.cycle, date_index=0, group_id="I3",
        group_type="Infantry", cost=7, ordinal=1, date_ordinal=1, revealed_at=None,
    )  # fmt: skip
    bren = Unit.objects.create(
        campaign=c, side="british", name="Bren LMG", kind="sw", location="A", purchase=rg
    )
    after = fresh()
    assert after == before, "the Axis page changed with a secret British unit"
    secret = _forge(axis, "area-capture", unit=bren.ref)
    made_up = _forge(axis, "area-capture", unit="zzzzzzzz")
    assert secret.refused and (secret.status, secret.text) == (made_up.status, made_up.text)
    assert Unit.objects.get(pk=bren.pk).side == "british"
    _rolled(axis, "Done with 3.607")


def test_3_6056_finishing_ahead_does_not_skip_an_escape_dr_3_605_makes_owed(
    users, modules, fixed_dice
):
    """3.6056 chart "must attempt Escape (3.606)" against finishing ahead: whether
    completing 3.605 marks a unit is known only once both lists stand, so the Axis 3.605
    page offers no Done through the steps after it (a forged one is refused); the Axis
    4-6-7 entered in the British North is marked when both are done, and 3.606 waits for
    its Escape DR."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    squad = add(players, "axis", "4-6-7", "squad", location="North")
    axis, british = _listed(players, "A, B", "North, South")
    assert _dones(axis) == ["Done with 3.605"], axis.buttons()
    forged = _forge(axis, "finish", through="3.615")
    assert forged.refused, (forged.status, forged.text[:400])
    _rolled(axis, "Done with 3.605")
    _rolled(british, "Done with 3.605")
    assert players.step.id == "3.606" and _markers(squad) == ["escape_due"]
    axis = _seat(players, "axis")
    assert "Roll first: the Escape for 4-6-7 (3.606; 3.6056 chart)" in axis.text
    assert "axis" in players.waiting()
