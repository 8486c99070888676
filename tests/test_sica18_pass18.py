"""Sicily (seed 001), RePh 3.601-3.614, the eighteenth pass of the sentence audit (issue
44): the items pass 17 left (3.6051's crew Escape owed, 3.613 footnote †'s CS DR tied to
the vehicle a Shift's subsequent dr Eliminated), then the steps played through the
page's own buttons (tests/page_play.py) for each side, on paths the earlier tests use
little: CG III (the RePh after July 14 AM, its only one), the Axis side, a side holding
only vehicles, after an undo (docs/rules-audit/pass-18-sica18.md)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Answer, Seat
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _seat(players, side, page: str = "") -> Seat:
    seat = Seat(players.users[side], players.campaign_id, page)
    seat.open()
    return seat


def _done_on_page(players, side):
    seat = _seat(players, side)
    step = players.step.id
    return seat.press(f"Done with {step}")


def _forge(seat: Seat, action: str, **data: str) -> Answer:
    """Post ``action``'s form as a forged (or stale) page would, with the step's ``at``
    the page rendered, when the page offers no button for it (the page player presses
    only what the page shows)."""
    at = next(v for f in seat.forms.forms.values() for n, v in f.fields if n == "at" and v)
    url = f"{seat.url}act/{action}/"
    got = seat.client.post(url, {"at": at, **data}, HTTP_HX_REQUEST="true")
    seat.open()
    return Answer(got.status_code, got.content.decode())


# --------------------------------------------------------------------------- Part 1


def test_3_6051_the_crew_of_a_vehicle_abandoned_in_no_mans_land_owes_its_escape_dr(
    users, modules, fixed_dice
):
    """3.6051 "Each manned, Immobile vehicle without functioning MA in No-Man's Land
    becomes Abandoned, and its crew (if any) must attempt Escape per 3.606" (and the
    3.6056 chart's "in No Man's Land | is Abandoned; the crew (if any) must attempt
    Escape (3.6051)"), played through the pages: CG III, the RePh after July 14 AM, the
    Axis side.  The Axis press Abandon in No-Man's Land on an immobilized StuG on their
    roster: the 2-2-8 crew line reads "must attempt Escape"; at 3.606 Done (and Done
    through the steps after) is refused with a sentence citing 3.6051 while the crew
    has not rolled; a 4-6-7 squad, not so marked, is not owed; the crew's Escape DR
    (Roll DR on the page) takes the mark off and Done passes."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.605")
    add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    add(players, "axis", "4-6-7", "squad")
    roster = _seat(players, "axis", "roster/")
    pressed = roster.press("Abandon in No-Man's Land (3.6051) (StuG IIIG)")
    assert pressed.status == 200, pressed.text[:300]
    assert "2-2-8 crew — must attempt Escape" in roster.text, roster.text
    assert _done_on_page(players, "axis").status == 200
    assert _done_on_page(players, "british").status == 200
    assert players.step.id == "3.606"
    axis = _seat(players, "axis")
    assert not [b for b in axis.buttons() if b.startswith("Done with")], axis.buttons()
    assert "Roll first: the Escape for 2-2-8 crew (3.606; 3.6051)" in axis.text
    forged = _forge(axis, "finish")
    assert forged.refused and "2-2-8 crew (3.606; 3.6051)" in forged.text, forged.text
    forged = _forge(axis, "finish", through="3.615")
    assert forged.refused and "Roll first" in forged.text, forged.text
    assert "axis" in players.waiting()
    assert players.step.id == "3.606"
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="2-2-8 crew")
    fixed_dice.append([2, 3])
    # A multiple select sends nothing unpicked (page_play sends its first option).
    rolled = axis.press("Roll DR: Escape", unit=crew.ref, stack="")
    assert rolled.status == 200, rolled.text[:300]
    assert ("2-2-8 crew", "half_squad", "ok", 1) in unit_names(players, "axis")
    assert axis.press("Done with 3.606").status == 200
    assert "axis" not in players.waiting()


def test_3_613_dagger_the_cs_dr_is_owed_for_the_crew_of_the_vehicle_eliminated_shifting(
    users, modules, fixed_dice
):
    """3.613 footnote † "Each vehicle is Eliminated on a subsequent dr of >= 4; if it is
    Eliminated, make a CS DR for its inherent crew (if any; Casualty Reduction is NA).
    Roll separately for each unit.", through the pages: CG III, the RePh after July 14
    AM, the Axis side holding only vehicles (two StuGs).  The first StuG's Shift DR 11
    "Shifted with Casualties", its subsequent dr 5: it is Eliminated and a 2-2-8 crew
    line, marked "must make its Crew Survival DR", joins the Axis forces; the CS DR is
    offered for that crew only (not for the other StuG, nor for another crew: a
    forged post is refused citing 3.613 footnote †); Done waits for it; its CS# is
    required (refused without it, nothing changed); DR 9 - CS# 6 = 3: the crew is
    Eliminated with its vehicle, and Done then passes.  The British page offers no CS
    DR."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.613")
    first = add(players, "axis", "StuG IIIG", "vehicle", location="a1")
    other = add(players, "axis", "StuG IIIG", "vehicle", location="b2")
    axis = _seat(players, "axis")
    fixed_dice.append([5, 6])
    shifted = axis.press("Roll DR: Shift", unit=first.ref, stack="")
    assert shifted.status == 200, shifted.text[:300]
    fixed_dice.append([5])
    hit = axis.press("Roll dr: Shifted with Casualties (subsequent dr)", unit=first.ref)
    assert hit.status == 200, hit.text[:300]
    assert "2-2-8 crew — must make its Crew Survival DR" in _seat(players, "axis", "roster/").text
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="2-2-8 crew")
    words = "Roll DR: Crew Survival DR of a vehicle Eliminated Shifting"
    assert [v for v, _ in axis.options(words, "unit")] == [crew.ref]
    assert (
        "Rolled for each of your half-squads marked 'must make its Crew Survival DR'" in axis.text
    )
    assert not [b for b in axis.buttons() if b.startswith("Done with")], axis.buttons()
    assert "Roll first: the Crew Survival DR of a vehicle Eliminated Shifting for 2-2-8 crew" in (
        axis.text
    )
    forged = axis.press(words, unit=other.ref, **{"typed.cs_number": "6"})
    assert forged.refused and "3.613 footnote †" in forged.text, forged.text
    bare = axis.press(words, unit=crew.ref, **{"typed.cs_number": ""})
    assert bare.refused and "CS#" in bare.text, bare.text
    assert Unit.objects.get(pk=crew.pk).markers == ["cs_due"]
    british = _seat(players, "british")
    assert words not in british.buttons()
    fixed_dice.append([4, 5])
    made = axis.press(words, unit=crew.ref, **{"typed.cs_number": "6"})
    assert made.status == 200, made.text[:300]
    assert [n for n in unit_names(players, "axis") if n[0] == "2-2-8 crew"] == []
    assert axis.press("Done with 3.613").status == 200
    assert "axis" not in players.waiting()
