"""A side chooses what becomes of its opponent's Equipment entered in one of its own
Setup Areas (Sicily 3.6056 chart "in enemy Setup Area | is Captured or Eliminated
(enemy's choice; 3.6071)*"; 3.6071 "Each piece of Equipment in a Setup Area is Retained
(as Captured, if applicable) therein by the side Controlling that Setup Area").

The Setup Areas are the IDs each side lists at 3.605 (``Seat.setup_areas``, public) and
the one a unit's line records (``Unit.location``; a SW's or Gun's possessor's where its
own is not entered).  At the module's ``setup_areas.captures.step`` the side listing the
area Captures each such unit (its line passes to him, marked captured) or Eliminates it;
its Done waits for each choice, and a choice is taken back while the step lasts.  Only
units the chooser may see are offered (``Unit.objects.visible_to``): a line whose state
a secret roll changed is not offered until that is revealed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from campaign.changes import UnitChanged
from campaign.models import Campaign, Event, EventKind, Purchase, Unit
from campaign.selectors import enemy_setup_areas, position_token
from campaign.services.errors import ActionRefused
from campaign.services.turns import Turn, User, take_turn
from campaign.services.units import hand_over, label, ordered, this_steps_unit_event
from campaign.services.writes import commit
from rules import machine
from rules.effects import capture_offered, captured_markers, placed, unaided_elimination
from rules.schema import AreaCapture, Module


def capture_at(module: Module, step_id: str) -> AreaCapture | None:
    """The module's capture of Equipment in an enemy Setup Area where it is chosen at
    step ``step_id`` (Sicily 3.607); None elsewhere."""
    areas = module.setup_areas
    cap = areas.captures if areas is not None else None
    return cap if cap is not None and cap.step == step_id else None


def to_choose(campaign: Campaign, module: Module, side: str) -> list[Unit]:
    """The opponent's units ``side`` chooses for (``capture_offered``): of the
    capture's units, entered in a Setup Area ``side`` lists, visible to ``side``."""
    cap = module.setup_areas.captures if module.setup_areas else None
    if cap is None:
        return []
    owner = machine.opponent(module, side)
    mine = enemy_setup_areas(campaign, module, owner)  # the IDs ``side`` lists
    if not mine:
        return []
    theirs = list(
        Unit.objects.visible_to(side)
        .filter(campaign=campaign, side=owner)
        .select_related("possessor")
        .order_by("id")
    )
    return [
        u
        for u in theirs
        if not u.held
        and capture_offered(
            cap,
            placed(u.state, u.location, u.possessor.location if u.possessor else "", mine),
        )
    ]


def where_words(module: Module, unit: Unit) -> str:
    """The unit's line in the chooser's words: "Bren (in Setup Area A)"."""
    area = unit.location or (unit.possessor.location if unit.possessor else "")
    word = module.setup_areas.label if module.setup_areas else ""
    return f"{label(unit)} (in {word} {' '.join(area.split())})"


def taken_here(campaign: Campaign, side: str) -> list[dict[str, Any]]:
    """``side``'s choices made at the current step of this pass and not taken back,
    newest first: each the log line's record (``"taken"``, ``"eliminated"``)."""
    return [
        dict(e.data)
        for e in Event.objects.filter(
            campaign=campaign,
            side=side,
            kind=EventKind.UNIT,
            data__at=position_token(campaign),
            data__has_key="taken",
        ).order_by("-id")
        if not e.data.get("given_back")
    ]


def capture_owed(turn: Turn) -> str:
    """Why the side may not be done with the step yet: an opponent's unit in one of its
    Setup Areas whose fate it has not chosen ("" : none)."""
    cap = capture_at(turn.module, turn.step.id)
    if cap is None:
        return ""
    left = to_choose(turn.campaign, turn.module, turn.side)
    if not left:
        return ""
    names = "; ".join(where_words(turn.module, u) for u in left)
    return (
        f"Choose first whether each enemy unit in your Setup Areas is Captured or Eliminated "
        f"(3.6056 chart; {cap.rule}): {names}. Nothing was changed."
    )


def _line(unit: Unit) -> dict[str, Any]:
    return {
        "ref": unit.ref,
        "side": unit.side,
        "name": unit.name,
        "kind": unit.kind,
        "count": unit.count,
        "markers": list(unit.markers or ()),
        "weapons": list(unit.weapons or ()),
        "location": unit.location,
        "purchase": unit.purchase_id,
        "possessor": unit.possessor.ref if unit.possessor_id and unit.possessor else "",
    }


def _chosen(turn: Turn, unit_id: object) -> tuple[AreaCapture, Unit]:
    cap = capture_at(turn.module, turn.step.id)
    if cap is None:
        where = f"{turn.step.id} {turn.step.title}"
        raise ActionRefused(
            f"Enemy Equipment in your Setup Areas is Captured or Eliminated at the step of "
            f"3.6071, not at {where}. Nothing was changed.",
            status=409,
        )
    if turn.side in turn.done:
        raise ActionRefused(
            f"You have already done {turn.step.id} {turn.step.title}: your choices stand "
            f"({cap.rule}). Nothing was changed.",
            status=409,
        )
    offered = {u.ref: u for u in to_choose(turn.campaign, turn.module, turn.side)}
    unit = offered.get(unit_id) if isinstance(unit_id, str) else None
    if unit is None:
        raise ActionRefused(
            "That is no enemy Equipment or vehicle entered in one of your Setup Areas: only "
            f"those are Captured or Eliminated at your choice (3.6056 chart; {cap.rule}). "
            "Nothing was changed.",
            status=409,
        )
    return cap, unit


@transaction.atomic
def choose_capture(
    *, campaign_id: object, user: User, unit_id: object, at: str | None = None
) -> None:
    """The side Retains its opponent's unit as Captured (3.6071): the line passes to it,
    marked captured (or no longer, its own taken back), possessed by none of its units."""
    _choose(campaign_id, user, unit_id, at, eliminate=False)


@transaction.atomic
def choose_elimination(
    *, campaign_id: object, user: User, unit_id: object, at: str | None = None
) -> None:
    """The side Eliminates its opponent's unit (3.6056 chart: the enemy's choice)."""
    _choose(campaign_id, user, unit_id, at, eliminate=True)


def _choose(
    campaign_id: object, user: User, unit_id: object, at: str | None, *, eliminate: bool
) -> None:
    turn = take_turn(campaign_id, user, at)
    cap, unit = _chosen(turn, unit_id)
    owner = turn.side_name(unit.side)
    said = f"the {owner} {where_words(turn.module, unit)}"
    line = _line(unit)
    dropped = hand_over(unit)
    if eliminate:
        _refuse_unaided(turn, cap, unit)
        unit.delete()
        text = f"{turn.side_name()} Eliminates {said} (3.6056 chart; {cap.rule})"
    else:
        unit.side = turn.side
        unit.markers = ordered(captured_markers(unit.markers or ()))
        unit.purchase = None
        unit.possessor = None
        unit.save(update_fields=["side", "markers", "purchase", "possessor"])
        now = ", ".join(unit.state_words)
        text = f"{turn.side_name()} Captures {said}: Retained by it, {now} ({cap.rule})"
    turn.record(
        EventKind.UNIT,
        text=text + (f"; {dropped}" if dropped else "") + ".",
        data={"taken": line, "at": position_token(turn.campaign), "eliminated": eliminate},
    )
    commit(turn.campaign.pk, UnitChanged())


def _refuse_unaided(turn: Turn, cap: AreaCapture, unit: Unit) -> None:
    """Refused where the piece is Eliminated only by one of the chooser's units in its
    Setup Area and none of his stands there (``effects.unaided_elimination``; Sicily
    3.6071 "may be Eliminated by any Personnel ... Retained in that Setup Area")."""
    area = " ".join((unit.location or (unit.possessor.location if unit.possessor else "")).split())
    own = [
        (u.state, u.location) for u in Unit.objects.filter(campaign=turn.campaign, side=turn.side)
    ]
    rule = unaided_elimination(cap, unit.state, area, own)
    if not rule:
        return
    word = turn.module.setup_areas.label if turn.module.setup_areas else ""
    raise ActionRefused(
        f"{label(unit)} is Eliminated only by your Personnel Retained in {word} {area}, and "
        f"none of yours is entered there ({rule}): Capture it instead. Nothing was changed.",
        status=409,
    )


@transaction.atomic
def give_back(*, campaign_id: object, user: User, unit_id: object, at: str | None = None) -> None:
    """The side takes back its choice for one of its opponent's units, at the step it
    made it: the line is its owner's again as it was (a correction, as a line removed
    by mistake is put back)."""
    turn = take_turn(campaign_id, user, at)
    c = turn.campaign
    event = this_steps_unit_event(turn, "taken", unit_id)
    if event is None or event.data.get("given_back"):
        raise ActionRefused(
            "You made no such choice at this step: only a choice made at the current step "
            "can be taken back. Nothing was changed.",
            status=409,
        )
    if turn.side in turn.done:
        raise ActionRefused(
            f"You have already done {turn.step.id} {turn.step.title}: take back your Done "
            "first. Nothing was changed.",
            status=409,
        )
    line = event.data["taken"]
    owner = line["side"]
    theirs = Unit.objects.filter(campaign=c, side=owner)
    fields = {
        "side": owner,
        "name": line["name"],
        "kind": line["kind"],
        "count": line["count"],
        "markers": line["markers"],
        "weapons": line["weapons"],
        "location": line["location"],
        "purchase_id": line["purchase"]
        if line["purchase"] and Purchase.objects.filter(pk=line["purchase"], campaign=c).exists()
        else None,
        "possessor": theirs.filter(ref=line["possessor"]).first() if line["possessor"] else None,
    }
    unit = Unit.objects.filter(campaign=c, ref=line["ref"]).first()
    if unit is None:
        unit = Unit.objects.create(campaign=c, ref=line["ref"], **fields)
    else:
        for name, value in fields.items():
            setattr(unit, name, value)
        unit.save()
    event.data = {**event.data, "given_back": True}
    event.save(update_fields=["data"])
    turn.record(
        EventKind.UNIT,
        text=f"{turn.side_name()} takes back its choice: the {turn.side_name(owner)} "
        f"{where_words(turn.module, unit)} is the {turn.side_name(owner)}'s again, as it was.",
    )
    commit(c.pk, UnitChanged())


def choices_words(module: Module, units: Sequence[Unit]) -> list[tuple[str, str]]:
    """Each unit's reference and its words, for the page's selects."""
    return [(u.ref, where_words(module, u)) for u in units]
