"""Where a campaign starts: what the CG variant gives each side for its Initial
Scenario — points, SAN and ELR, the Initial-Scenario OB on the RG Purchase Record (not
counted toward the limits, 3.6179) and in the retained forces."""

from __future__ import annotations

from collections.abc import Iterable

from campaign.models import Campaign, EventKind, Purchase, Seat, Unit
from campaign.services.events import record_event
from campaign.services.units import MAX_COUNT
from rules import machine
from rules.effects import unit_line
from rules.schema import Module, Start


def give_start(
    campaign: Campaign, module: Module, seats: Iterable[Seat], *, before: Start | None = None
) -> list[str]:
    """Give each side what ``start`` (the variant's) holds; with ``before`` (the start as
    it was, e.g. before the players supplied a missing datum), give only the
    difference.  Returns what was given, in words."""
    start = module.variant(campaign.variant).start
    old = before or Start(rule=start.rule)
    lines = []
    for seat in seats:
        side = seat.side
        name = module.side(side).name
        gained = start.points.get(side, 0) - old.points.get(side, 0)
        fortified = start.fortification_points.get(side, 0) - old.fortification_points.get(side, 0)
        seat.points = max(0, seat.points + gained)
        seat.fortification_points = max(0, seat.fortification_points + fortified)
        if side in start.san and start.san.get(side) != old.san.get(side):
            seat.san = start.san[side]
        if side in start.elr and start.elr.get(side) != old.elr.get(side):
            seat.elr = start.elr[side]
        seat.save(update_fields=["points", "fortification_points", "san", "elr"])
        if gained or fortified:
            lines.append(
                f"{name}: {start.points.get(side, 0)} {module.currency.code}"
                + (
                    f", {start.fortification_points.get(side, 0)} {module.fortifications.currency}"
                    if module.fortifications and start.fortification_points.get(side)
                    else ""
                )
            )
        ob, old_ob = start.ob.get(side), old.ob.get(side)
        if ob is not None:
            _give_ob(campaign, module, side, ob.rgs, ob.units, old_ob)
    return lines


def _give_ob(
    campaign: Campaign,
    module: Module,
    side: str,
    rgs: list[str],
    units: list[str],
    old: object | None,
) -> None:
    """The OB's RGs on the Purchase Record and its units in the retained forces; an
    amended OB (``old`` the OB as it was) adds what it adds and takes off what it no
    longer lists: an RG line leaves the record (cancelled, its rolls kept for the dice
    audit), a unit leaves the retained forces."""
    old_rgs = list(getattr(old, "rgs", []))
    old_units = list(getattr(old, "units", []))
    chart = module.chart(side)
    groups = {g.id: g for g in chart.groups} if chart else {}
    date_index = machine.date_index(module, module.variant(campaign.variant).start_date)
    for gid in _added(rgs, old_rgs):
        group = groups[gid]
        Purchase.objects.create(
            campaign=campaign,
            side=side,
            cycle=campaign.cycle,
            date_index=date_index,
            group_id=gid,
            group_type=group.type,
            cost=0,
            ordinal=0,
            date_ordinal=0,
            initial=True,
            units=None if group.depletable else group.full,
        )
    ob_lines = Purchase.objects.filter(
        campaign=campaign, side=side, initial=True, status=Purchase.Status.ACTIVE
    )
    for gid in _added(old_rgs, rgs):  # no longer in the OB
        line = ob_lines.filter(group_id=gid).order_by("-id").first()
        if line is not None:
            line.status = Purchase.Status.CANCELLED
            line.save(update_fields=["status"])
    # Each line as the units it lists: "2 x 4-6-7" two squads, "8-1 leader" a leader.
    lines = [unit_line(text) for text in _added(units, old_units)]
    Unit.objects.bulk_create(
        Unit(
            campaign=campaign,
            side=side,
            name=line.name[:120],
            kind=line.kind,
            count=max(1, min(line.count, MAX_COUNT)),
        )
        for line in lines
    )
    for text in _added(old_units, units):
        name = unit_line(text).name
        unit = (
            Unit.objects.filter(campaign=campaign, side=side, name=name[:120], purchase=None)
            .order_by("-id")
            .first()
        )
        if unit is not None:
            unit.delete()


def _added(now: list[str], before: list[str]) -> list[str]:
    """What ``now`` lists beyond ``before``, counting repeats (``I1, I1`` is two)."""
    remaining = list(before)
    added = []
    for item in now:
        if item in remaining:
            remaining.remove(item)
        else:
            added.append(item)
    return added


def setup_order(module: Module, campaign: Campaign) -> list[str]:
    """Who sets up and who moves first in the Initial Scenario, as far as the CG says."""
    start = module.variant(campaign.variant).start
    return [
        f"{module.side(side).name} {verb} first."
        for side, verb in ((start.sets_up_first, "sets up"), (start.moves_first, "moves"))
        if side
    ]


def start_summary(module: Module, campaign: Campaign) -> list[str]:
    """The Initial Scenario's set-up order, MISR and weather, as the players read them."""
    start = module.variant(campaign.variant).start
    lines = setup_order(module, campaign)
    if start.weather:
        lines.append(f"Weather: {start.weather}")
    lines += start.misr
    return lines


def log_start(campaign: Campaign, module: Module, given: list[str]) -> None:
    start = module.variant(campaign.variant).start
    if given:
        record_event(
            campaign,
            kind=EventKind.CREATED,
            text=f"For the Initial Scenario ({start.rule}): " + "; ".join(given) + ".",
        )
