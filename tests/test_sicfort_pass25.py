"""Sicily (seed 001), pass 25 of the sentence audit (issue 44): 3.6073 HIDDEN
FORTIFICATIONS, "Each still-hidden Fortification within a Setup Area of the
purchaser's opponent is placed on-map.  Each such minefield is marked by placing a
Minefield counter to reveal its presence but not its strength/", through the pages
(tests/page_play.py) of each side (docs/rules-audit/pass-25-sicfort.md).

Which Fortifications stand hidden, and where, is the map's: at 3.605 the owner states
it, in secret, beside his Setup Area list; at 3.607's completion those in a Setup Area
the opponent lists are placed on-map through the gate."""

from __future__ import annotations

import uuid

import pytest

from campaign.models import Event, FortificationBuy
from campaign.models import Seat as SeatModel
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _log
from tests.test_sica22_pass22 import _rolled
from tests.test_sicsa_pass24 import _listed

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

STATE = "State where it lies (3.6073)"


def _fort(
    players, side: str, item: str, tier: str = "", cost: int = 3, count: int = 1, **kw
) -> FortificationBuy:
    """A Fortification ``side`` bought at 3.619 of the date before (written past the
    services: its purchase is not under test here)."""
    c = players.campaign
    return FortificationBuy.objects.create(
        campaign=c, side=side, date_index=c.date_index - 1, item_id=item, tier=tier,
        count=count, cost=cost, **kw,
    )  # fmt: skip


def _state(seat, buy: FortificationBuy, area: str):
    """Press the fortification's own "State where it lies" (its aria-label names it)
    after picking ``area`` in its select."""
    button = next(
        b
        for b in seat.forms.buttons
        if b.words == STATE and ("fortification", buy.ref) in seat.forms.forms[b.owner or ""].fields
    )
    label = button.attrs["aria-label"]
    return _rolled(seat, label, area=area)


def _fresh(players, side: str, page: str = "") -> str:
    """``side``'s page rendered afresh (a new revision: nothing kept per revision)."""
    SeatModel.objects.filter(campaign_id=players.campaign_id, side=side).update(
        revision=uuid.uuid4()
    )
    return _seat(players, side, page).text


def _stated(buy: FortificationBuy) -> tuple[str, int | None, bool, bool]:
    buy.refresh_from_db()
    return (buy.setup_area, buy.area_cycle, buy.on_map, buy.revealed_at is not None)


def test_3_6073_still_hidden_fortifications_in_the_enemys_setup_area_are_placed_on_map(
    users, modules
):
    """CG II's 3.605 after July 16 PM: the Axis list A, B, the British North, South.
    The Axis hold a Foxhole (3S) and a Roadblock, the British AT Mines and a Trench,
    each bought on an earlier date.  Each 3.605 page names its own Fortifications,
    "not stated yet", never the other side's; a Done is refused until each is stated,
    citing 3.6073.  The Axis state the Foxhole hidden in the British North and the
    Roadblock on the map; the British the AT Mines hidden in the Axis A and the Trench
    hidden in their own South.  The opponent's pages (campaign page and roster, read
    afresh) are word for word as before each statement.  Once 3.607 is completed: the
    Foxhole's purchase is revealed to the British (their roster lists it; a public log
    line says it is placed on-map), the Roadblock stays the Axis's; the AT Mines are
    told to the Axis by their presence only ("A Minefield counter ... its strength not
    revealed"), their purchase still the British's (the Axis roster does not list them),
    and the Trench in the British's own Setup Area stays hidden."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    foxhole = _fort(players, "axis", "foxhole", "3S (3-squad capacity)")
    roadblock = _fort(players, "axis", "roadblock", cost=10)
    mines = _fort(players, "british", "at_mines")
    trench = _fort(players, "british", "trench", cost=10, location="12F4")
    axis, british = _listed(players, "A, B", "North, South")
    said = axis.open()
    assert "1 × Foxhole (3S (3-squad capacity)) of" in said and "not stated yet" in said, said
    # "AT Mines" alone is public: the Rules data list names their printed FPP cost (3.619).
    assert "× AT Mines" not in said and "Trench" not in said
    assert "1 × AT Mines of" in british.open() and "Foxhole" not in british.text
    done = axis.press("Done with 3.605")
    assert done.refused and "(3.6073: each still-hidden Fortification" in done.text, done.text
    assert "Foxhole" in done.text and "Roadblock" in done.text

    page, roster = _fresh(players, "british"), _fresh(players, "british", "roster/")
    _state(axis, foxhole, "North")
    _state(axis, roadblock, "on-map")
    assert _stated(foxhole) == ("North", players.campaign.cycle, False, False)
    assert _stated(roadblock)[2:] == (True, False)
    assert "hidden in the British Setup Area North" in axis.open()
    assert _fresh(players, "british") == page, "the British page changed with an Axis secret"
    assert _fresh(players, "british", "roster/") == roster

    page, roster = _fresh(players, "axis"), _fresh(players, "axis", "roster/")
    british = _seat(players, "british")
    _state(british, mines, "A")
    _state(british, trench, "South")
    assert _fresh(players, "axis") == page, "the Axis page changed with a British secret"
    assert _fresh(players, "axis", "roster/") == roster

    for step in ("3.605", "3.606", "3.607"):
        for side in ("axis", "british"):
            _rolled(_seat(players, side), f"Done with {step}")
    assert players.step.id != "3.607", players.step.id
    assert _stated(foxhole)[2:] == (True, True)  # placed on-map: its purchase revealed
    assert _stated(roadblock)[2:] == (True, False)
    assert _stated(mines)[2:] == (True, False)  # its presence only
    assert _stated(trench)[2:] == (False, False)
    log = _log(players)
    assert (
        "The Axis still-hidden 1 × Foxhole (3S (3-squad capacity)) of July 15 Night in the "
        "British Setup Area North is placed on-map (3.6073)."
    ) in log, log[-1500:]
    told = (
        "A Minefield counter of the British is placed in the Axis Setup Area A: a minefield "
        "lies there, its strength not revealed (3.6073)."
    )
    assert told in log
    assert "Foxhole" in _fresh(players, "british", "roster/")
    axis_roster = _fresh(players, "axis", "roster/")
    assert "× AT Mines" not in axis_roster and "Trench" not in axis_roster, axis_roster
    assert told in _fresh(players, "axis")
    secret = Event.objects.filter(campaign_id=players.campaign_id, secret_side="british")
    assert all("AT Mines" not in (e.public_text or "") for e in secret)


def test_3_6073_forged_statements_are_refused_and_change_nothing(users, modules):
    """Bad input, each refused with a sentence citing 3.6073 and nothing changed: a
    made-up fortification reference and the opponent's Fortification's (the very same
    sentence: his secret is not told), a Setup Area neither side lists, a statement
    after the side's Done at 3.605 and one at another step (3.606)."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    foxhole = _fort(players, "axis", "foxhole", "1S")
    mines = _fort(players, "british", "at_mines")
    axis, british = _listed(players, "A, B", "North, South")
    axis.open()
    made_up = _forge(axis, "fortification-area", fortification="zzzzzzzzzzzz", area="North")
    theirs = _forge(axis, "fortification-area", fortification=mines.ref, area="North")
    assert made_up.refused and "(3.6073)" in made_up.text, made_up.text[:400]
    assert (theirs.status, theirs.text) == (made_up.status, made_up.text)
    nowhere = _forge(axis, "fortification-area", fortification=foxhole.ref, area="Z9")
    assert nowhere.refused and "Setup Area Z9 is listed by neither side" in nowhere.text
    assert "(3.6073)" in nowhere.text
    assert _stated(foxhole) == ("", None, False, False)
    assert _stated(mines) == ("", None, False, False)
    _state(axis, foxhole, "none")
    assert _stated(foxhole)[:3] == ("", players.campaign.cycle, False)
    _rolled(axis, "Done with 3.605")
    late = _forge(axis, "fortification-area", fortification=foxhole.ref, area="North")
    assert late.refused and "(3.6073)" in late.text and "already done" in late.text, late.text
    assert _stated(foxhole)[:3] == ("", players.campaign.cycle, False)
    british.open()
    _state(british, mines, "South")
    _rolled(british, "Done with 3.605")
    assert players.step.id == "3.606"
    axis.open()
    elsewhere = _forge(axis, "fortification-area", fortification=foxhole.ref, area="North")
    assert elsewhere.refused and "stated at 3.605, not at 3.606" in elsewhere.text
    assert "(3.6073)" in elsewhere.text
    assert _stated(foxhole)[:3] == ("", players.campaign.cycle, False)


def test_3_6073_the_counters_of_one_purchase_lie_in_different_setup_areas(users, modules):
    """A line of three Foxholes (1S) bought together: the Axis state two of them hidden
    in the British North ("How many of them": 2), split off as a line of their own with
    their share of the cost, and the third hidden in none; a count above the line's is
    refused citing 3.6073.  When 3.607 is completed the two are placed on-map (the
    British roster lists "2 × Foxhole"), the third stays the Axis's."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    three = _fort(players, "axis", "foxhole", "1S", cost=3, count=3)
    axis, _ = _listed(players, "A, B", "North, South")
    axis.open()
    label = "State where 3 × Foxhole (1S) of July 15 Night lies (3.6073)"
    too_many = axis.press(label, area="North", count="4")
    assert too_many.refused and "(3.6073)" in too_many.text, too_many.text[:400]
    three.refresh_from_db()
    lines = FortificationBuy.objects.filter(campaign_id=players.campaign_id)
    assert (lines.count(), three.count, three.area_cycle) == (1, 3, None)
    _rolled(axis, label, area="North", count="2")
    lines = list(FortificationBuy.objects.filter(campaign_id=players.campaign_id).order_by("id"))
    assert [(b.count, b.cost, b.setup_area, b.area_cycle is not None) for b in lines] == [
        (1, 1, "", False),
        (2, 2, "North", True),
    ]
    _rolled(axis, "State where 1 × Foxhole (1S) of July 15 Night lies (3.6073)", area="none")
    for step in ("3.605", "3.606", "3.607"):
        for side in ("axis", "british"):
            _rolled(_seat(players, side), f"Done with {step}")
    roster = _fresh(players, "british", "roster/")
    assert "Axis 2 × Foxhole" in roster and "Axis 1 × Foxhole" not in roster, roster


def test_3_6073_finishing_ahead_does_not_pass_3_605_with_a_fortification_unstated(users, modules):
    """The map steps 3.601-3.605 finished in one click ("Done with 3.601 to 3.605")
    would complete 3.605 without the statement its Done waits for: with a Foxhole not
    stated, that click is refused citing 3.6073, nothing done; Done
    goes one step at a time (the sentence says so), then the Foxhole is stated at 3.605
    and its Done goes."""
    from campaign.models import StepMark

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.601")
    foxhole = _fort(players, "axis", "foxhole", "1S", cost=1)
    axis = _seat(players, "axis")
    run = axis.press("Done with 3.601 to 3.605")
    assert run.refused and "Not through 3.605 Setup Area Determination" in run.text, run.text
    assert "(3.6073" in run.text and "Foxhole" in run.text
    marks = StepMark.objects.filter(campaign_id=players.campaign_id, side="axis")
    c = players.campaign
    assert not marks.filter(cycle=c.cycle, step_index__gte=c.step_index).exists()
    assert "press Done at each step up to it" in run.text
    _rolled(_seat(players, "british"), "Done with 3.601 to 3.605")
    for step in ("3.601", "3.602", "3.603", "3.604"):
        _rolled(axis, f"Done with {step}")
    assert players.step.id == "3.605", players.step.id
    _state(axis, foxhole, "on-map")
    _rolled(axis, "Done with 3.605")
    assert players.step.id == "3.606", players.step.id
