"""The retained forces each side keeps: players add, edit and remove units; table
rolls and RG purchases write their results here."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q, Sum

from campaign.models import Campaign, Event, EventKind, Purchase, Roll, Unit
from campaign.selectors import squad_counts
from campaign.services import push
from campaign.services.errors import ActionRefused
from campaign.services.text import clean_text, max_length
from campaign.services.turns import Turn, User, expect_turn, take_turn
from rules.availability import owed_for
from rules.effects import (
    GroupOutcome,
    UnitOutcome,
    UnitState,
    battle_hardened,
    left_over,
    matches,
    settled,
)
from rules.kinds import Action
from rules.purchase import comes_with
from rules.schema import (
    ComesWith,
    Effect,
    Module,
    ReinforcementGroup,
    UnitExchange,
    UnitFilter,
)

MAX_COUNT = 99  # identical units on one line of the retained forces

UNIT_PARTS = (push.Part.FORCES, push.Part.STEP, push.Part.LOG)


def is_secret(unit: Unit) -> bool:
    """A unit of a still-secret RG is its side's secret."""
    return bool(unit.purchase_id and unit.purchase and unit.purchase.revealed_at is None)


def own_unit(turn: Turn, unit_id: object) -> Unit:
    """The acting side's unit named by ``unit_id``: its reference (``Unit.ref``, what
    pages name), never its primary key."""
    ref = unit_id if isinstance(unit_id, str) and unit_id else None
    unit = (
        Unit.objects.select_related("purchase")
        .filter(ref=ref, campaign=turn.campaign, side=turn.side)
        .first()
        if ref
        else None
    )
    if unit is None:
        raise ActionRefused("You have no such unit.", status=404)
    return unit


def _clean(name: str, location: str, status: str) -> tuple[str, str, str]:
    name = clean_text(name, what="Unit name", limit=max_length(Unit, "name"))
    if not name:
        raise ActionRefused("Give the unit a name, e.g. “8-1 leader” or “4-6-8”.")
    if status not in Unit.Status.values:
        raise ActionRefused("Choose one of the listed statuses.")
    location = clean_text(location, what="Location", limit=max_length(Unit, "location"))
    return name, location, status


def _markers(markers: Sequence[str] | None, status: str) -> list[str]:
    """The markers a unit carries besides its status, from the same words, each once
    and in the vocabulary's order."""
    given = {m for m in (markers or ()) if m}
    unknown = given - set(Unit.Status.values)
    if unknown:
        raise ActionRefused("Choose the unit's markers among those listed.")
    return [m for m in Unit.Status.values if m in given and m not in (status, "ok")]


def _kind_and_count(kind: str, number: object) -> tuple[str, int]:
    if kind not in Unit.Kind.values:
        raise ActionRefused("Choose what the unit is (squad, leader, vehicle...).")
    try:
        n = int(str(number).strip())
    except (TypeError, ValueError):
        raise ActionRefused(f"How many: a whole number from 1 to {MAX_COUNT}.") from None
    if not 1 <= n <= MAX_COUNT:
        raise ActionRefused(f"How many: a whole number from 1 to {MAX_COUNT}.")
    return kind, n


def label(unit: Unit) -> str:
    return unit.label


@transaction.atomic
def add_unit(
    *,
    campaign_id: object,
    user: User,
    name: str,
    status: str = "ok",
    location: str = "",
    kind: str = "other",
    number: object = 1,
    markers: Sequence[str] | None = None,
) -> Unit:
    turn = take_turn(campaign_id, user, None)
    name, location, status = _clean(name, location, status)
    kind, n = _kind_and_count(kind, number)
    unit = Unit.objects.create(
        campaign=turn.campaign,
        side=turn.side,
        name=name,
        kind=kind,
        count=n,
        status=status,
        markers=_markers(markers, status),
        location=location,
    )
    turn.record(
        EventKind.UNIT,
        text=f"{turn.side_name()} adds {label(unit)} ({unit.get_kind_display()}, "
        f"{unit.get_status_display()}) to its retained forces.",
    )
    push.changed(turn.campaign.pk, UNIT_PARTS)
    return unit


@transaction.atomic
def update_unit(
    *,
    campaign_id: object,
    user: User,
    unit_id: object,
    name: str,
    status: str,
    location: str = "",
    kind: str | None = None,
    number: object = None,
    markers: Sequence[str] | None = None,
) -> Unit:
    turn = take_turn(campaign_id, user, None)
    unit = own_unit(turn, unit_id)
    before = (unit.status, unit.kind, tuple(unit.markers or ()))
    unit.name, unit.location, unit.status = _clean(name, location, status)
    unit.kind, unit.count = _kind_and_count(
        unit.kind if kind is None else kind, unit.count if number is None else number
    )
    if markers is not None:
        unit.markers = _markers(markers, unit.status)
    if (unit.status, unit.kind, tuple(unit.markers or ())) != before:
        _refuse_if_owed(turn, unit, before)
    unit.save(update_fields=["name", "location", "status", "kind", "count", "markers"])
    turn.record(
        EventKind.UNIT,
        secret=is_secret(unit),
        text=f"{turn.side_name()} marks {label(unit)} {unit.get_status_display()}.",
    )
    push.changed(turn.campaign.pk, UNIT_PARTS, secret_of=turn.side if is_secret(unit) else None)
    return unit


@transaction.atomic
def remove_unit(*, campaign_id: object, user: User, unit_id: object) -> None:
    turn = take_turn(campaign_id, user, None)
    unit = own_unit(turn, unit_id)
    _refuse_if_owed(turn, unit, (unit.status, unit.kind, tuple(unit.markers or ())))
    secret = is_secret(unit)
    unit.delete()
    turn.record(
        EventKind.UNIT,
        secret=secret,
        text=f"{turn.side_name()} removes {label(unit)} from its retained forces.",
    )
    push.changed(turn.campaign.pk, UNIT_PARTS, secret_of=turn.side if secret else None)


def _refuse_if_owed(turn: Turn, unit: Unit, before: tuple[str, str, tuple[str, ...]]) -> None:
    """A unit that owes a compulsory roll at the current step (``required``, once per
    unit) keeps the status and kind the roll is for until it is made: the roll decides
    its fate, never a change of its line (APD 3.1: each wounded leader's fate).  One that
    has made its one roll (``once: unit``) on a table of the step keeps what the roll
    left until the step ends (APD 3.31: "Each weapon/Vehicle may make only one Repair
    attempt": a weapon that rolled NE is not marked repaired, nor removed to be
    added again for another attempt)."""
    status, kind, markers = before
    state = UnitState(unit.name, status, kind, markers)
    tables = list(map(turn.module.table, turn.step.tables))
    rolled = set(
        Roll.objects.filter(
            campaign=turn.campaign, cycle=turn.campaign.cycle, side=turn.side, unit_ref=unit.ref
        ).values_list("table_id", flat=True)
    )
    made = [t for t in tables if t.once == "unit" and t.id in rolled]
    if made:
        t = made[0]
        raise ActionRefused(
            f"{label(unit)} has made its one roll on the {t.title} ({t.rule}) at this step: "
            "it stays as the roll left it until the step ends. Nothing was changed.",
            status=409,
        )
    owed = [t for t in tables if owed_for(t, state) and t.id not in rolled]
    if owed:
        t = owed[0]
        raise ActionRefused(
            f"{label(unit)} owes its roll on the {t.title} ({t.rule}) at this step: the roll "
            "decides what becomes of it. Roll first; nothing was changed.",
            status=409,
        )


def exchange_of(turn: Turn) -> UnitExchange:
    exchange = turn.step.exchange
    assert exchange is not None, "an exchange step says what it exchanges (schema)"
    return exchange


@transaction.atomic
def exchange_unit(
    *, campaign_id: object, user: User, give_id: object, mark_id: object, at: str | None = None
) -> None:
    """At an exchange step, one unit of ``gives`` leaves the side's forces and one unit
    of ``marks`` is marked for it (APD 3.2: "for each such eliminated Hero the owning
    player may Battle Harden ... any one MMC"): one mark per unit given up."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.EXCHANGE)
    exchange = exchange_of(turn)
    give, mark = own_unit(turn, give_id), own_unit(turn, mark_id)
    if not matches(exchange.gives, give.state):
        raise ActionRefused(
            f"{label(give)} is not one of your {describe_filter(exchange.gives)} ({exchange.rule})."
        )
    if give.pk == mark.pk or not matches(exchange.marks, mark.state):
        raise ActionRefused(
            f"{label(mark)} is not one of your {describe_filter(exchange.marks)} ({exchange.rule})."
        )
    secret = is_secret(give) or is_secret(mark)
    gone = apply_outcome(give, UnitOutcome(removed=True))
    # The condition the exchange marks away (3.61421: the MG Disabled) gives way.
    marked = apply_outcome(
        mark, UnitOutcome(status=exchange.status), exchange.marks.statuses or (Unit.Status.OK,)
    )
    turn.record(
        EventKind.UNIT,
        secret=secret,
        text=f"{turn.side_name()}: {gone}; for it, {marked} ({exchange.rule}).",
    )
    push.changed(turn.campaign.pk, UNIT_PARTS, secret_of=turn.side if secret else None)


def settle_exchange(turn: Turn) -> None:
    """Finishing an exchange step: each unit of ``gives`` the side still holds leaves its
    forces (its owner marked none for it), or stays, marked ``kept_status``, where the
    side holds no unit the exchange could mark (APD 3.2 EXC)."""
    exchange = exchange_of(turn)
    own = list(
        Unit.objects.select_related("purchase").filter(campaign=turn.campaign, side=turn.side)
    )
    held = [u.state for u in own]
    for unit in own:
        if not matches(exchange.gives, unit.state):
            continue
        fate = left_over(exchange, unit.state, held)
        secret = is_secret(unit)
        if fate.removed:
            unit.delete()
            said = f"{label(unit)} leaves the retained forces, no unit marked for it"
        elif fate.status is not None:
            unit.status = fate.status
            unit.save(update_fields=["status"])
            said = (
                f"{label(unit)} stays, now {unit.get_status_display()}: no "
                f"{describe_filter(exchange.marks)} to mark"
            )
        else:
            continue
        _record(turn, said, exchange.rule, secret)


def _record(turn: Turn, said: str, rule: str, secret: bool) -> None:
    """A line of the log saying what became of one of the side's units, and its push."""
    turn.record(EventKind.UNIT, secret=secret, text=f"{turn.side_name()}: {said} ({rule}).")
    push.changed(turn.campaign.pk, UNIT_PARTS, secret_of=turn.side if secret else None)


def unit_for_roll(turn: Turn, unit_id: object) -> Unit | None:
    return None if unit_id in (None, "") else own_unit(turn, unit_id)


def settle_units(turn: Turn) -> None:
    """Completing a step that ``settles`` units: each side's retained units each row
    names leave the retained forces, or are marked, whole lines at once (PHD C5.1:
    recalled units are eliminated), each change on its side's log (secret while its
    RG is)."""
    for side in turn.seats:
        own = list(
            Unit.objects.select_related("purchase").filter(campaign=turn.campaign, side=side)
        )
        for row in turn.step.settles:
            for unit in own:
                if unit.pk is None:
                    continue  # left by an earlier row
                outcome = settled(row, unit.state)
                if not outcome.changes:
                    continue
                said, secret = label(unit), is_secret(unit)
                if outcome.removed:
                    unit.delete()
                    said += " leaves the retained forces"
                else:
                    rolled_for = row.units.statuses or ()
                    unit.status, unit.markers = _condition(unit, outcome.status, rolled_for)
                    unit.save(update_fields=["status", "markers"])
                    said += f" is now {Unit.Status(outcome.status or unit.status).label}"
                turn.as_side(side).record(
                    EventKind.UNIT,
                    secret=secret,
                    text=f"{turn.side_name(side)}: {said} ({row.rule}).",
                )


def describe_filter(flt: UnitFilter) -> str:
    """The units a table is rolled for, in words: "wounded leaders", "malfunctioned or
    disabled SWs or Guns", "malfunctioned SWs (not captured)"."""
    kinds = " or ".join(_plural(Unit.Kind(k).label.split(" /")[0]) for k in flt.kinds or [])
    if flt.names:
        kinds = " or ".join(flt.names) + " " + (kinds or "units")
    statuses = " or ".join(s.replace("_", " ") for s in flt.statuses or [])
    said = " ".join(part for part in (statuses, kinds or "units") if part)
    if flt.not_statuses:
        said += " (not " + " or ".join(s.replace("_", " ") for s in flt.not_statuses) + ")"
    return said


def strength_counts(campaign: Campaign, side: str) -> tuple[int, int, int]:
    """The side's retained leaders, squads and half-squads/crews (PHD C5.24a's ratio)."""
    squads, half_squads, _ = squad_counts(campaign, side)
    leaders = Unit.objects.filter(campaign=campaign, side=side, kind=Unit.Kind.LEADER).aggregate(
        n=Sum("count")
    )["n"]
    return leaders or 0, squads, half_squads


def took_instead(campaign: Campaign, side: str, table_id: str) -> bool:
    """Whether ``side`` took what a table offers instead of its roll in this pass
    (PHD C5.24a): the log's line of it says so."""
    return (
        Event.objects.readable_by(side)
        .filter(
            campaign=campaign,
            kind=EventKind.UNIT,
            side=side,
            data__instead=table_id,
            data__cycle=campaign.cycle,
        )
        .exists()
    )


def ladder(module: Module) -> tuple[str, ...]:
    """The leaders' qualities, lowest first (none: the module has no ladder)."""
    return tuple(module.leader_ladder.ratings) if module.leader_ladder else ()


def battle_harden(turn: Turn, effects: list[Effect]) -> str:
    """A ``battle_harden`` result: the side's leader it names (or the next lower one
    the side has) becomes the next higher quality, on its own line where it was; what
    happened, in words ("" : no such result)."""
    if not any(e.do == "battle_harden" for e in effects):
        return ""
    leaders = list(
        Unit.objects.filter(campaign=turn.campaign, side=turn.side, kind=Unit.Kind.LEADER).order_by(
            "id"
        )
    )
    found = battle_hardened(effects, [u.state for u in leaders], ladder(turn.module))
    if found is None:
        return "no retained unwounded leader of that quality or lower: none Battle Hardens"
    index, name = found
    unit = split_one(leaders[index])
    before = unit.name
    unit.name = name[: max_length(Unit, "name")]
    unit.save(update_fields=["name"])
    return f"{before} Battle Hardens: now {unit.name}"


def _plural(word: str) -> str:
    return f"{word}es" if word.endswith("o") else f"{word}s"  # Heroes


def split_one(unit: Unit) -> Unit:
    """The one unit a roll is for: a line of several identical units gives it up as a
    line of its own (so its roll and result are its own)."""
    if unit.count == 1:
        return unit
    unit.count -= 1
    unit.save(update_fields=["count"])
    return _copy(unit, name=unit.name, kind=unit.kind, status=unit.status)


def state_of(unit: Unit) -> UnitState:
    return unit.state


def _condition(
    unit: Unit, status: str | None, rolled_for: Sequence[str] = ()
) -> tuple[str, list[str]]:
    """The status and markers a result leaves on ``unit``: the condition the table was
    rolled for (its status, or a marker) gives way to the result's; the unit's other
    markers stay (a repaired weapon is still Isolated)."""
    if status is None:
        return unit.status, list(unit.markers or ())
    markers = [m for m in unit.markers or () if m not in rolled_for]
    if not rolled_for or unit.status in rolled_for:
        return status, [m for m in markers if m != status]
    if status != Unit.Status.OK and status not in markers and status != unit.status:
        markers.append(status)
    return unit.status, markers


def apply_outcome(unit: Unit, outcome: UnitOutcome, rolled_for: Sequence[str] = ()) -> str:
    """Write what a roll did to one of the units on ``unit``'s line (a line of several
    identical units gives one up); what happened, in words.  ``rolled_for``: the
    conditions the table is rolled for (its filter's statuses)."""
    if not outcome.changes:
        return ""
    one = unit.name if unit.count == 1 else f"one {unit.name}"
    status, markers = _condition(unit, outcome.status, rolled_for)
    if unit.count > 1:
        unit.count -= 1
        unit.save(update_fields=["count"])
        if not outcome.removed:
            copy = _copy(unit, name=unit.name, kind=unit.kind, status=status)
            if copy.markers != markers:
                copy.markers = markers
                copy.save(update_fields=["markers"])
    elif outcome.removed:
        unit.delete()
    else:
        unit.status, unit.markers = status, markers
        unit.save(update_fields=["status", "markers"])
    for name, kind in outcome.added:
        if outcome.at is None:
            _copy(unit, name=name, kind=kind, status=Unit.Status.OK)
        else:  # elsewhere, unmarked: the owner places it
            Unit.objects.create(
                campaign_id=unit.campaign_id,
                side=unit.side,
                name=name,
                kind=kind,
                purchase=unit.purchase,
            )
    if outcome.removed and outcome.added:
        names = " and ".join(name for name, _ in outcome.added)
        return f"{one} is removed and replaced by a {names}{_placing(unit, outcome.at)}"
    if outcome.removed:
        return f"{one} is removed from the retained forces"
    return f"{one} is now {Unit.Status(outcome.status or unit.status).label}"


def _placing(unit: Unit, at: str | None) -> str:
    """Where the owner puts the unit that replaced ``unit`` (APD 3.1 footnote *: "in the
    same location as the friendly MMC nearest (in hexes) to the last location that
    Evacuated leader occupied. The owning player may choose which location in the event
    of a tie"): the locations of the side's MMC that its opponent may see."""
    if at != "nearest_mmc":
        return ""
    last = unit.location or "his last location"
    mmc = (
        Unit.objects.filter(
            campaign_id=unit.campaign_id,
            side=unit.side,
            kind__in=(Unit.Kind.SQUAD, Unit.Kind.HALF_SQUAD),
        )
        .filter(Q(purchase__isnull=True) | Q(purchase__revealed_at__isnull=False))
        .exclude(location="")
        .order_by("location")
    )
    places = list(dict.fromkeys(u.location for u in mmc if "captured" not in u.state.marked))
    where = f" (MMC at {', '.join(places)})" if places else ""
    return (
        f", to be placed with the friendly MMC nearest (in hexes) to {last}{where}, the "
        "owner choosing on a tie: enter his location in the retained forces"
    )


def _copy(unit: Unit, *, name: str, kind: str, status: str) -> Unit:
    """A new line beside ``unit``'s, where it is, of its RG, with its markers."""
    return Unit.objects.create(
        campaign_id=unit.campaign_id,
        side=unit.side,
        name=name,
        kind=kind,
        status=status,
        markers=[m for m in unit.markers or () if m != status],
        location=unit.location,
        purchase=unit.purchase,
    )


def brought_name(unit: str, group_id: str) -> str:
    """The line of a unit an RG brings besides its own ("radio (O1)")."""
    return f"{unit} ({group_id})"[: max_length(Unit, "name")]


def remove_brought(turn: Turn, purchase: Purchase, leaving: Sequence[ComesWith]) -> str:
    """Take out of the retained forces the lines of what ``purchase``'s RG brought that
    leave with its new state (``ComesWith.leaves_when``); what left, in words ("" :
    nothing was held)."""
    gone = []
    for brought in leaving:
        lines = Unit.objects.filter(
            campaign=turn.campaign,
            side=turn.side,
            purchase=purchase,
            kind=brought.kind,
            name=brought_name(brought.unit, purchase.group_id),
        )
        gone += [label(u) for u in lines]
        lines.delete()
    return ", ".join(gone)


def units_from_purchase(
    module: Module, purchase: Purchase, group: ReinforcementGroup, outcome: GroupOutcome
) -> None:
    """After its rolls, an RG joins the retained forces: its units (or those its rolls
    gave, e.g. the three M4s of 3.7), its SW at Full strength, what comes with it, its
    leaders.  An RG that only grants points (Sniper, FPP) or Recon brings no unit."""
    gid = purchase.group_id
    lines: list[tuple[str, str, int]] = []
    n = purchase.units or 0
    if outcome.units:
        lines += [(f"{u.name} ({gid})", u.kind, u.count) for u in outcome.units]
    elif group.unit_kind is not None and n:
        kind = group.unit_kind
        if group.unit_types:  # shared evenly among the printed types (4/3 each)
            each = n // len(group.unit_types)
            lines += [(f"{t} ({gid} {group.type})", kind, each) for t in group.unit_types]
        else:
            lines.append((f"{group.units} ({gid} {group.type})", kind, n))
    elif not group.grants and not (module.recon and module.recon.group == gid):
        lines.append((f"{group.type}: {group.units} ({gid})", Unit.Kind.OTHER, 1))
    lines += [
        (f"{weapon} ({gid})", Unit.Kind.SW, k)
        for weapon, k in purchase.details.get("sw", {}).items()
        if k
    ]
    lines += [
        (brought_name(unit, gid), kind, k)
        for unit, kind, k in comes_with(module, purchase.side, group, n)
    ]
    lines += [(f"{name} ({gid})", Unit.Kind.LEADER, 1) for name in outcome.leaders]
    Unit.objects.bulk_create(
        Unit(
            campaign=purchase.campaign,
            side=purchase.side,
            name=name[: max_length(Unit, "name")],
            kind=kind,
            count=min(k, MAX_COUNT),
            purchase=purchase,
        )
        for name, kind, k in lines
    )
