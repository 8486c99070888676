"""The retained forces each side keeps: players add, edit and remove units; table
rolls and RG purchases write their results here."""

from __future__ import annotations

from django.db import transaction

from campaign.models import EventKind, Purchase, Unit
from campaign.services import push
from campaign.services.errors import ActionRefused
from campaign.services.events import record_event
from campaign.services.text import clean_text, max_length
from campaign.services.turns import Turn, User, take_turn
from rules.text import count

# What a table row's effect does to the unit the roll was for.
REMOVING_EFFECTS = {"eliminated", "evacuated", "removed"}
RESTORING_EFFECTS = {"recovered", "repaired", "mobile", "restored", "unwounded"}

UNIT_PARTS = (push.Part.FORCES, push.Part.STEP, push.Part.LOG)


def _secret_side(unit: Unit) -> str:
    """A unit of a still-secret RG is its side's secret."""
    if unit.purchase_id and unit.purchase is not None and unit.purchase.revealed_at is None:
        return unit.side
    return ""


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


@transaction.atomic
def add_unit(
    *, campaign_id: object, user: User, name: str, status: str = "ok", location: str = ""
) -> Unit:
    turn = take_turn(campaign_id, user, None)
    name, location, status = _clean(name, location, status)
    unit = Unit.objects.create(
        campaign=turn.campaign, side=turn.side, name=name, status=status, location=location
    )
    record_event(
        turn.campaign,
        kind=EventKind.UNIT,
        side=turn.side,
        text=f"{turn.side_name()} adds {name} ({unit.get_status_display()}) to its retained "
        "forces.",
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
) -> Unit:
    turn = take_turn(campaign_id, user, None)
    unit = own_unit(turn, unit_id)
    unit.name, unit.location, unit.status = _clean(name, location, status)
    unit.save(update_fields=["name", "location", "status"])
    record_event(
        turn.campaign,
        kind=EventKind.UNIT,
        side=turn.side,
        secret_side=_secret_side(unit),
        text=f"{turn.side_name()} marks {unit.name} {unit.get_status_display()}.",
    )
    push.changed(turn.campaign.pk, UNIT_PARTS)
    return unit


@transaction.atomic
def remove_unit(*, campaign_id: object, user: User, unit_id: object) -> None:
    turn = take_turn(campaign_id, user, None)
    unit = own_unit(turn, unit_id)
    secret = _secret_side(unit)
    unit.delete()
    record_event(
        turn.campaign,
        kind=EventKind.UNIT,
        side=turn.side,
        secret_side=secret,
        text=f"{turn.side_name()} removes {unit.name} from its retained forces.",
    )
    push.changed(turn.campaign.pk, UNIT_PARTS)


def unit_for_roll(turn: Turn, unit_id: object) -> Unit | None:
    return None if unit_id in (None, "") else own_unit(turn, unit_id)


def apply_effect(unit: Unit, effect: str | None) -> str:
    """Write a table result back to the unit it was rolled for; what happened, in words."""
    if effect in REMOVING_EFFECTS:
        unit.delete()
        return f"{unit.name} is removed from the retained forces"
    if effect in RESTORING_EFFECTS and unit.status != Unit.Status.OK:
        unit.status = Unit.Status.OK
        unit.save(update_fields=["status"])
        return f"{unit.name} is now {unit.get_status_display()}"
    return ""


def units_from_purchase(purchase: Purchase) -> None:
    """After its rolls, an RG joins the retained forces: the group, its SW, its leader."""
    rows = [f"{purchase.group_id} {purchase.group_type} ({count(purchase.units, 'unit')})"]
    rows += [
        f"{n} × {weapon} ({purchase.group_id})"
        for weapon, n in purchase.details.get("sw", {}).items()
    ]
    for r in purchase.details.get("rolls", []):
        if "Leader" in r["table"] and r["result"] and not r["result"].endswith("-"):
            rows.append(f"{r['result'].split(': ')[-1]} leader ({purchase.group_id})")
    Unit.objects.bulk_create(
        Unit(campaign=purchase.campaign, side=purchase.side, name=name[:120], purchase=purchase)
        for name in rows
    )
