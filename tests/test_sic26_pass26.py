"""Sicily (seed 001), pass 26 of the sentence audit (issue 44): sentences whose facts the
app now holds, since each side's 3.605 Setup Area list (pass 22), each unit line's Setup
Area and where each hidden Fortification lies (3.6073, pass 25), through the pages
(tests/page_play.py) of both seats (docs/rules-audit/pass-26-sic26.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat as SeatModel
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import text_of
from tests.purchase_helpers import campaign_at
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica22_pass22 import _rolled
from tests.test_sicfort_pass25 import _fort, _fresh, _state
from tests.test_sicsa_pass24 import _listed

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

ON_MAP = "I RG for Standard On-Map Setup (20% more, FRU)"


def _on_map_buys(seat) -> list[str]:
    return [b for b in seat.buttons() if "On-Map" in b and b.startswith("Buy")]


def _to_purchase(players, axis: str, british: str):
    """Both 3.605 pages list their Setup Areas, then both walk to 3.617: the two seats."""
    _listed(players, axis, british)
    players.until("purchase")
    SeatModel.objects.filter(campaign_id=players.campaign_id).update(points=40)
    return _seat(players, "axis"), _seat(players, "british")


def test_3_6175_the_british_3_605_list_naming_none_withholds_the_on_map_price(users, modules):
    """3.6175: "A British RG may be purchased for Standard On-Map Setup only if there is
    >= one Set Up Area on the Map."  The fact was a yes/no the players entered with the
    scenario's result, before 3.605 made the lists; 3.617 follows 3.605, so the British
    list is read instead.  CG I, the RePh before July 15 AM: the Axis list A, the British
    none.  The British chart offers no On-map price and says why with the list and the
    rule; a forged On-map buy is refused citing 3.6175 once, the CPP unchanged; the Axis
    chart keeps its On-map price and says nothing of it.  The result asks no such
    question any more."""
    players, module = campaign_at("sicily", "i", "jul15am", users, step="3.605")
    assert "british_no_setup_area" not in {f.id for f in module.result_fields}
    axis, british = _to_purchase(players, "A", "")
    said = british.open()
    assert not _on_map_buys(british), british.buttons()
    assert (
        f"{ON_MAP}: not offered: you listed no Setup Area at 3.605, and this price needs "
        "at least one Setup Area of yours on the map (3.6175)."
    ) in said, said[:3000]
    forged = _forge(british, "buy", group="I3", variant="on_map")
    words = text_of(forged.html)
    assert forged.refused and words.count("3.6175") == 1, words[:400]
    assert "you listed no Setup Area at 3.605" in words
    assert "You have 40 CPP" in british.open()
    theirs = axis.open()
    assert _on_map_buys(axis), axis.buttons()
    assert "not offered" not in theirs and "you listed no Setup Area" not in theirs


@pytest.mark.parametrize("british_list", ["North", None])
def test_3_6175_the_on_map_price_offered_with_a_british_setup_area_or_no_list(
    users, modules, british_list
):
    """3.6175 the other way: the British list North (>= one Setup Area): the On-map price
    is offered and bought.  The British post no list at all (Done at 3.605 without one):
    the app does not know their Setup Areas and sells it, as it did before any result
    answered the question."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.605")
    if british_list is None:
        _rolled(_seat(players, "axis"), "Record my Setup Areas", areas="A")
        players.until("purchase")
        SeatModel.objects.filter(campaign_id=players.campaign_id).update(points=40)
        british = _seat(players, "british")
    else:
        _, british = _to_purchase(players, "A", british_list)
    said = british.open()
    assert "you listed no Setup Area" not in said
    buy = next(b for b in _on_map_buys(british) if b.startswith("Buy I1"))
    assert british.press(buy).status == 200


# ------------------------------------------------- 3.6073 on the roster and in the log


def test_3_6073_the_owners_roster_shows_where_each_fortification_was_stated(users, modules):
    """3.6073 "Each still-hidden Fortification within a Setup Area of the purchaser's
    opponent is placed on-map": where each lies is its owner's statement at 3.605 (pass
    25), kept on the Fortification but shown nowhere after the step.  CG II's 3.605: the
    Axis list A, B, the British North, South; the Axis state their Foxhole hidden in
    their own A and their Roadblock on the map.  The Axis CG Roster's FORTIFICATIONS
    lines now say so, with the rule; the British roster (read afresh) is word for word
    as before the statements and names neither."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    foxhole = _fort(players, "axis", "foxhole", "3S (3-squad capacity)")
    roadblock = _fort(players, "axis", "roadblock", cost=10, location="14G2")
    axis, _british = _listed(players, "A, B", "North, South")
    before = _fresh(players, "british", "roster/")
    _state(axis, foxhole, "A")
    _state(axis, roadblock, "on-map")
    roster = _fresh(players, "axis", "roster/")
    assert (
        "July 15 Night: Axis 1 × Foxhole; stated at 3.605: hidden in Setup Area A (3.6073)"
    ) in roster, roster[-3000:]
    assert "Axis 1 × Roadblock at 14G2; stated at 3.605: on the map (3.6073)" in roster
    theirs = _fresh(players, "british", "roster/")
    assert theirs == before, "the British roster changed with an Axis secret"
    assert "Foxhole" not in theirs and "stated at 3.605" not in theirs


def test_3_6073_the_log_and_the_form_name_a_sides_setup_area_as_players_write_it(users, modules):
    """3.6073's words (pass 25 wrote "British's Setup Area North", "The Axis's
    still-hidden", "Axis's Setup Area A"): the 3.605 form offers "hidden in the British
    Setup Area North", and at 3.607's completion the public lines read "The Axis
    still-hidden 1 × Foxhole ... in the British Setup Area North is placed on-map" and
    "A Minefield counter of the British is placed in the Axis Setup Area A", on both
    pages' logs."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    foxhole = _fort(players, "axis", "foxhole", "3S (3-squad capacity)")
    mines = _fort(players, "british", "at_mines")
    axis, british = _listed(players, "A, B", "North, South")
    said = axis.open()
    assert "hidden in the British Setup Area North" in said, said[-3000:]
    assert "'s Setup Area" not in said
    _state(axis, foxhole, "North")
    _state(_seat(players, "british"), mines, "A")
    for step in ("3.605", "3.606", "3.607"):
        for side in ("axis", "british"):
            _rolled(_seat(players, side), f"Done with {step}")
    placed = (
        "The Axis still-hidden 1 × Foxhole (3S (3-squad capacity)) of July 15 Night in the "
        "British Setup Area North is placed on-map (3.6073)."
    )
    told = (
        "A Minefield counter of the British is placed in the Axis Setup Area A: a minefield "
        "lies there, its strength not revealed (3.6073)."
    )
    for side in ("axis", "british"):
        page = _fresh(players, side)
        assert placed in page and told in page, page[-3000:]
        assert "'s Setup Area" not in page and "The Axis's still-hidden" not in page


# ------------------------------------------ 3.6071 / 3.6056 chart: facts of the lines


def test_3_6071_a_non_vehicle_piece_eliminated_only_by_personnel_in_its_setup_area(users, modules):
    """3.6071 "At its (new) owner's option, each such non-vehicle piece may be Eliminated
    by any Personnel (even an Abandoning crew) Retained in that Setup Area" (was map:
    which Personnel stand where is on each line since pass 21).  And 3.6056 chart "if
    Isolated | is Retained by the Controlling side (3.6071)" (Equipment, vehicles): the
    side Controlling a Setup Area is the one listing it.  CG II: the Axis list A, B, the
    British North, South.  The British Bren in A, Vickers MG in B, an Isolated Sherman
    in B and an Isolated 6-pdr Gun in their own South; the Axis 4-6-7 in B.  At 3.607 the
    Axis page names the Bren, the Vickers and the Sherman, not the 6-pdr (Retained by
    the British, who Control South).  Eliminate the Bren is refused citing 3.6071 (no
    Axis Personnel in A), the Bren still British; the Vickers is Eliminated (the 4-6-7
    in B); the Isolated Sherman is Captured.  An Axis 8-1 whose line names no Setup
    Area leaves it unknown: the Bren is then Eliminated."""
    from campaign.models import Unit
    from tests.test_rule_mechanisms import add
    from tests.test_sica21_pass21 import _log
    from tests.test_sicsa_pass24 import _at_3_607

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    bren = add(players, "british", "Bren LMG", "sw", location="A")
    vickers = add(players, "british", "Vickers MMG", "sw", location="B")
    sherman = add(players, "british", "Sherman III", "vehicle", location="B", markers=["isolated"])
    add(players, "british", "6-pdr AT", "gun", location="South", markers=["isolated"])
    add(players, "axis", "4-6-7", "squad", location="B")
    _listed(players, "A, B", "North, South")
    axis, british = _at_3_607(players)
    chart = "Captured or Eliminated, your choice (3.6056 chart; 3.6071): "
    assert (
        chart + "Bren LMG (in Setup Area A); Vickers MMG (in Setup Area B); Sherman III "
        "(in Setup Area B)."
    ) in axis.text, axis.text[:4000]
    named = axis.text[axis.text.find(chart) :]
    assert "6-pdr" not in named[: named.find(").") + 2], named[:300]
    refused = axis.press("Eliminate it (3.6071)", unit=bren.ref)
    assert refused.refused, refused.text[:400]
    assert (
        "Bren LMG is Eliminated only by your Personnel Retained in Setup Area A, and none of "
        "yours is entered there (3.6071): Capture it instead."
    ) in refused.text, refused.text[:600]
    assert Unit.objects.get(pk=bren.pk).side == "british"
    _rolled(axis, "Eliminate it (3.6071)", unit=vickers.ref)
    assert not Unit.objects.filter(pk=vickers.pk).exists()
    _rolled(axis, "Capture it (3.6071)", unit=sherman.ref)
    assert Unit.objects.get(pk=sherman.pk).side == "axis"
    add(players, "axis", "8-1", "leader")
    axis.open()
    _rolled(axis, "Eliminate it (3.6071)", unit=bren.ref)
    assert not Unit.objects.filter(pk=bren.pk).exists()
    assert "Axis Eliminates the British Bren LMG (in Setup Area A)" in _log(players)
    assert "6-pdr AT" in british.open()
