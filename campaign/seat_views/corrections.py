"""What a roll table step shows of corrections by consent (``services.corrections``):
the viewer's own rolls at this step whose write-back may be corrected, each with its
unit's line as the form's starting values, and the proposals open at this step (both
sides read them: a correction concerns only rolls both may see)."""

from __future__ import annotations

from dataclasses import dataclass

from campaign.models import Campaign, Event, EventKind, Roll, RollCorrection, Unit
from campaign.services.corrections import describe_line
from rules.schema import Module


@dataclass(frozen=True)
class CorrectableRoll:
    """One of the viewer's rolls for a unit at this step, and the unit's line now."""

    unit: str  # the unit's reference (what the form names)
    what: str  # "Leader Loss roll for 8-1 leader: 5"
    name: str
    kind: str
    markers: tuple[str, ...]  # its state (none: in good order)
    gone: bool  # the roll took the unit out of the retained forces
    asked: bool  # a correction of it is open

    @property
    def kinds(self) -> list[tuple[str, str]]:
        return list(Unit.Kind.choices)

    @property
    def marker_choices(self) -> list[tuple[str, str]]:
        return [c for c in Unit.Status.choices if c[0] != "ok"]


@dataclass(frozen=True)
class CorrectionView:
    ref: str
    by: str  # the proposer's side name
    mine: bool
    what: str
    was: str
    line: str
    reason: str


def _what(roll: Roll) -> str:
    return f"{roll.purpose} roll" + (f" for {roll.item}" if roll.item else "") + f": {roll.final}"


def open_corrections(campaign: Campaign) -> list[RollCorrection]:
    """The corrections proposed at the current step and not answered yet (both sides
    read them), each with its roll: one statement."""
    c = campaign
    return list(
        RollCorrection.objects.select_related("roll").filter(
            campaign=c,
            cycle=c.cycle,
            step_index=c.step_index,
            status=RollCorrection.Status.PROPOSED,
        )
    )


def correction_views(
    module: Module, viewer: str, open_ones: list[RollCorrection]
) -> list[CorrectionView]:
    """The open proposals (``open_corrections``) as the viewer reads them: what the
    step's panel lists and the header's "your answer is awaited" names."""
    return [
        CorrectionView(
            ref=p.ref,
            by=module.side(p.side).name,
            mine=p.side == viewer,
            what=_what(p.roll),
            was=describe_line(p.was),
            line=describe_line(p.line),
            reason=p.reason,
        )
        for p in open_ones
    ]


def correctable_rolls(
    campaign: Campaign,
    module: Module,
    viewer: str,
    step_id: str,
    open_ones: list[RollCorrection],
) -> list[CorrectableRoll]:
    """The viewer's correctable rolls at the current step (``open_ones``: the open
    proposals, ``open_corrections``, which say whether each is asked already)."""
    c = campaign
    other = next(s.id for s in module.sides if s.id != viewer)
    rolls = list(
        Roll.objects.visible_to(other)
        .filter(campaign=c, cycle=c.cycle, step_id=step_id, side=viewer)
        .exclude(unit_ref="")
        .exclude(unit_ref__contains=".")
        .order_by("seq")
    )
    lines = {
        u.ref: u
        for u in Unit.objects.visible_to(viewer).filter(
            campaign=c, side=viewer, ref__in=[r.unit_ref for r in rolls]
        )
    }
    # A line the roll took away keeps the kind it had (its roll's log line says it), and
    # the markers it had (a correction putting it back starts from them).
    gone_data = (
        {
            data["roll"]: data
            for data in Event.objects.visible_to(viewer)
            .filter(
                campaign=c,
                kind=EventKind.ROLL,
                data__roll__in=[r.seq for r in rolls if r.unit_ref not in lines],
                data__has_key="unit_kind",
            )
            .values_list("data", flat=True)
        }
        if any(r.unit_ref not in lines for r in rolls)
        else {}
    )
    asked = {p.roll_id for p in open_ones}
    own = []
    for r in rolls:
        unit = lines.get(r.unit_ref)
        own.append(
            CorrectableRoll(
                unit=r.unit_ref,
                what=_what(r),
                name=unit.name if unit else r.item,
                kind=unit.kind if unit else gone_data.get(r.seq, {}).get("unit_kind", "other"),
                markers=tuple(unit.markers or ())
                if unit
                else tuple(
                    gone_data.get(r.seq, {}).get("gone", {}).get(r.unit_ref, {}).get("markers", ())
                ),
                gone=unit is None,
                asked=r.pk in asked,
            )
        )
    # The last roll for a unit is the one corrected: one form per unit.
    return list({r.unit: r for r in own}.values())
