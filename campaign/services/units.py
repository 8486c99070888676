"""The retained forces each side keeps: players add, edit and remove units; table
rolls and RG purchases write their results here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Left
from django.utils import timezone

from campaign.changes import UnitChanged
from campaign.models import (
    REF_LENGTH,
    Campaign,
    Event,
    EventKind,
    Purchase,
    Roll,
    Seat,
    Unit,
    became_words,
    marker_words,
    new_ref,
)
from campaign.selectors import (
    enemy_setup_areas,
    marked_in_pass,
    pass_result,
    position_token,
    result_read_by,
    squad_counts,
    unit_lines_of_pass,
    with_origin,
)
from campaign.services.errors import ActionRefused
from campaign.services.text import clean_text, max_length
from campaign.services.turns import Turn, User, expect_turn, take_turn
from campaign.services.writes import SeatField, commit
from campaign.visibility import UNIT, Kept
from rules import machine
from rules.availability import capped_possessor_refusal, owed_for
from rules.effects import (
    WEAPON_CARRIERS,
    WEAPON_CONDITIONS,
    GroupOutcome,
    UnitOutcome,
    UnitState,
    WeaponOutcome,
    WeaponState,
    apart_refusal,
    battle_hardened,
    exchange_refusal,
    hardened_by_settles,
    hold_refusal,
    in_enemy_area,
    in_location_of,
    inherent_crew,
    left_over,
    line_key,
    matches,
    names_any,
    not_hardened_for_group,
    on_unit,
    on_weapon,
    overlap_refusal,
    placed,
    placed_by_owner,
    remanning_refusal,
    retained,
    settle_holds,
    settled,
    setup_area_ids,
    setup_areas_at,
    targets,
    working_weapon,
)
from rules.kinds import Action
from rules.purchase import brings_own_line, comes_with, depleted_lacking
from rules.schema import (
    DUE_STATUSES,
    UNIT_STATUS_WORDS,
    ComesWith,
    Effect,
    InsteadOfRoll,
    MarkerHold,
    Module,
    ReinforcementGroup,
    Remanning,
    Settle,
    Step,
    Table,
    UnitExchange,
    UnitFilter,
)
from rules.text import with_state

MAX_COUNT = 99  # identical units on one line of the retained forces
# What is possessed (A4.4: a SW; a Gun too, PHD C5.15 "Unpossessed SW/Guns") and what
# possesses it: Infantry, i.e. personnel lines.
POSSESSED_KINDS = frozenset({"sw", "gun"})
POSSESSING_KINDS = frozenset({"squad", "half_squad", "leader", "hero"})
MAX_WEAPONS = 6  # weapons on one unit's record (an MA and its MGs)
WEAPON_REF_LENGTH = 4  # a weapon's reference, unique on its unit's record


def is_secret(unit: Unit) -> bool:
    """A unit of a still-secret RG, or of one whose secret DRs' outcome is still held
    (``visibility.UNIT``), is its side's secret."""
    return bool(
        unit.purchase_id
        and unit.purchase
        and (unit.purchase.revealed_at is None or unit.purchase.outcome_held)
    )


def held_ref(unit: Unit) -> str:
    """The line whose former state the opponent reads for ``unit`` ("": none held,
    ``visibility.UNIT.former``): its own, or the one it was split off."""
    held = unit.held or {}
    return str(held.get("within") or unit.ref) if held else ""


def kept_secret(*changed: Unit) -> Kept | None:
    """A change to units of one side, kept secret while any of them is
    (``visibility.UNIT``): its log line and its push's audience.  A change to a unit
    whose former state is held (PHD C5.23, C5.24) is kept until it is released."""
    kept = UNIT.kept(changed[0].side, secret=any(is_secret(u) for u in changed))
    held = next((held_ref(u) for u in changed if u.held), "")
    if kept is None and held:
        return UNIT.held_back(changed[0].side, held)
    return kept


# What the opponent reads of a unit whose former state is held (``Unit.held``).
HELD_FIELDS = ("name", "kind", "markers", "count", "weapons", "location", "possessor_id")


def held_one(unit: Unit, *, secret: bool) -> Unit:
    """The one unit of ``unit``'s line an effect acts on (``split_one``); the effect of a
    ``secret`` roll (PHD C5.23 "Each side makes a secret DR", C5.24 "make a secret DR to
    Battle Harden one Retained ... Leader") holds the line's former state from the
    opponent first (``visibility.UNIT.former``), the line split off it counted in it.
    A unit of a still-secret RG needs none: the opponent reads nothing of it."""
    if secret and not unit.held and not is_secret(unit):
        unit.held = {name: getattr(unit, name) for name in HELD_FIELDS}
        unit.save(update_fields=["held"])
    return split_one(unit)


def release_held(campaign: Campaign, now: datetime | None = None, *, of: str | None = None) -> int:
    """The scenario (or the CG) has ended: every unit's former state held from the
    opponent is released (``Unit.held``), with the log lines and rolls of the changes
    made behind it; how many lines were held.  ``of``: only the line of that ref and
    the lines split off it (the owner's reveal, ``reveal_unit``)."""
    now = now or timezone.now()
    held = [
        (ref, h)
        for ref, h in Unit.objects.filter(campaign=campaign)
        .exclude(held={})
        .values_list("ref", "held")
        if of is None or of in (ref, h.get("within"))
    ]
    if not held:
        return 0
    refs = [ref for ref, _ in held]
    roots = {str(h.get("within") or ref) for ref, h in held}
    Unit.objects.filter(campaign=campaign, ref__in=refs).update(held={})
    Event.objects.filter(
        campaign=campaign, data__held__in=sorted(roots), revealed_at__isnull=True
    ).update(revealed_at=now)
    Roll.objects.annotate(of_unit=Left("unit_ref", REF_LENGTH)).filter(
        campaign=campaign, of_unit__in=refs, revealed_at__isnull=True
    ).update(revealed_at=now)
    return len(roots)


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


def _clean(name: str, location: str) -> tuple[str, str]:
    name = clean_text(name, what="Unit name", limit=max_length(Unit, "name"))
    if not name:
        raise ActionRefused("Give the unit a name, e.g. “8-1 leader” or “4-6-8”.")
    location = clean_text(location, what="Location", limit=max_length(Unit, "location"))
    return name, location


def ordered(markers: Iterable[str]) -> list[str]:
    """A unit's markers as its record keeps them: each once, in the vocabulary's order,
    none for "ok" (in good order)."""
    given = set(markers)
    return [m for m in Unit.Status.values if m in given and m != "ok"]


def _markers(markers: Sequence[str] | None) -> list[str]:
    """The markers the player gives a unit, from the closed vocabulary, refused in
    words otherwise."""
    given = {m for m in (markers or ()) if m}
    unknown = given - set(Unit.Status.values)
    if unknown:
        raise ActionRefused("Choose the unit's markers among those listed.")
    return ordered(given)


def state_words(markers: Sequence[str], kind: str = "") -> str:
    """A unit's markers in the players' words ("in good order" for none), as they read
    on a unit of ``kind`` (a Hero's "wounded": ``marker_words``)."""
    return ", ".join(marker_words(m, kind) for m in markers or ("ok",))


def reads_weapons(module: Module) -> bool:
    """Whether the module's tables (or a step's settling) are rolled for a vehicle's
    weapons (``UnitFilter.weapons``); a module that never says so keeps reading a
    vehicle's line for them."""
    return any(t.for_units and t.for_units.weapons is not None for t in module.tables) or any(
        row.units.weapons is not None for step in module.steps for row in step.settles
    )


def _not_the_weapons(turn: Turn, kind: str, markers: Sequence[str]) -> None:
    """A vehicle's weapons carry their own conditions (malfunctioned, disabled): the
    vehicle's line is never marked for them (Sicily 3.6142 footnote, PHD C5.26a, APD
    3.3: the result concerns the weapon, and the vehicle stays)."""
    if kind not in WEAPON_CARRIERS or not reads_weapons(turn.module):
        return
    wrong = [m for m in markers if m in WEAPON_CONDITIONS]
    if wrong:
        word = Unit.Status(wrong[0]).label
        raise ActionRefused(
            f"A vehicle's weapons are marked, not the vehicle: mark its MA or MG {word} "
            "among its weapons (add the weapon if it is not listed). Nothing was changed."
        )


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
    location: str = "",
    kind: str = "other",
    number: object = 1,
    markers: Sequence[str] | None = None,
    possessor: object = "",
) -> Unit:
    """The player adds a line to its retained forces, with the markers its units carry
    (none: in good order)."""
    turn = take_turn(campaign_id, user, None)
    name, location = _clean(name, location)
    kind, n = _kind_and_count(kind, number)
    marks = _markers(markers)
    _not_the_weapons(turn, kind, marks)
    unit = Unit(
        campaign=turn.campaign,
        side=turn.side,
        name=name,
        kind=kind,
        count=n,
        markers=marks,
        location=location,
    )
    held = _possession(turn, unit, possessor, given_marks=True)
    unit.save()
    turn.record(
        EventKind.UNIT,
        text=f"{turn.side_name()} adds "
        + with_state(
            label(unit), f"{unit.get_kind_display()}, {state_words(unit.markers, unit.kind)}{held}"
        )
        + " to its retained forces.",
    )
    commit(turn.campaign.pk, UnitChanged())
    return unit


@transaction.atomic
def update_unit(
    *,
    campaign_id: object,
    user: User,
    unit_id: object,
    name: str,
    location: str = "",
    kind: str | None = None,
    number: object = None,
    markers: Sequence[str] | None = None,
    possessor: object = None,
) -> Unit:
    """The player corrects its line (``markers``: all its units carry, none for in good
    order, None leaves them as they are; ``possessor``: the reference of the line that
    possesses this SW or Gun, "" for none named; None leaves it as it is)."""
    turn = take_turn(campaign_id, user, None)
    unit = own_unit(turn, unit_id)
    before = (unit.kind, tuple(unit.markers or ()))
    was = unit.location
    unit.name, unit.location = _clean(name, location)
    unit.kind, unit.count = _kind_and_count(
        unit.kind if kind is None else kind, unit.count if number is None else number
    )
    if markers is not None:
        unit.markers = _markers(markers)
    _not_the_weapons(turn, unit.kind, unit.markers or ())
    if unit.weapons and unit.kind not in WEAPON_CARRIERS:
        raise ActionRefused(
            f"{label(unit)} carries weapons on its record: only a vehicle does. Remove its "
            "weapons first; nothing was changed."
        )
    held = _possession(turn, unit, possessor, given_marks=markers is not None)
    if (unit.kind, tuple(unit.markers or ())) != before:
        _refuse_if_owed(turn, unit, before)
        _refuse_unmanned(turn, unit, before)
        _refuse_held(turn, unit, before)
    held += _sw_to_placed_mmc(turn, unit, possessor not in (None, ""))
    held += _placed_with_mmc(turn, unit, was)
    unit.save(update_fields=["name", "location", "kind", "count", "markers", "possessor"])
    turn.record(
        EventKind.UNIT,
        secret=kept_secret(unit),
        text=(
            f"{turn.side_name()} marks {label(unit)} {state_words(unit.markers, unit.kind)}{held}."
        ),
    )
    if _settle_late(turn, unit, before):
        unit.refresh_from_db()
    if _held_markers(turn, unit, before):
        unit.refresh_from_db()
    commit(turn.campaign.pk, UnitChanged(kept=kept_secret(unit)))
    return unit


def _sequence_done(turn: Turn) -> Sequence[Step]:
    """The steps of this scenario's sequence already completed (none at the start's)."""
    return turn.module.steps[machine.results_index(turn.module) + 1 : turn.campaign.step_index]


def _refuse_held(turn: Turn, unit: Unit, before: tuple[str, tuple[str, ...]]) -> None:
    """A marker a step holds from then on (``Step.holds``) is not taken off a unit its
    ``units`` select, until the next scenario (PHD C5.13a: "Units marked with a Stun
    counter may remove it after redeploying only if they are not Isolated at that
    time"): the unit as it was before the change is read."""
    if turn.step.start:
        return
    kind, markers = before
    holds = [hold for st in [*_sequence_done(turn), turn.step] for hold in st.holds]
    refusal = hold_refusal(
        holds, UnitState(unit.name, kind, markers), unit.markers or (), label(unit)
    )
    if refusal:
        raise ActionRefused(refusal, status=409)


def _settle_late(turn: Turn, unit: Unit, before: tuple[str, tuple[str, ...]]) -> bool:
    """A unit its owner's correction brings into a ``late`` row of a step already
    completed in this sequence is settled by it now (PHD C5.13a: a unit marked Isolated
    after the Redeployment ended it Isolated, so it is short of ammunition); whether
    any was."""
    kind, markers = before
    was, now = UnitState(unit.name, kind, markers), UnitState(unit.name, unit.kind, unit.markers)
    rows = [
        row
        for st in _sequence_done(turn)
        for row in st.settles
        if row.late and matches(row.units, now) and not matches(row.units, was)
    ]
    if not rows:
        return False
    played_on, answers = _played(turn)
    _settle_rows(turn, rows, played_on, answers, sides=[turn.side], only=unit.pk)
    return True


def _held_markers(turn: Turn, unit: Unit, before: tuple[str, tuple[str, ...]]) -> bool:
    """The markers the ``holds`` of the steps already completed in this sequence keep on
    ``unit``, followed as its owner's correction changes it (``_put_back_held``, else
    ``_take_off_put_back``), read from its log lines of the pass once; whether any
    changed."""
    if turn.step.start:
        return False
    holds = [(st, hold) for st in _sequence_done(turn) for hold in st.holds]
    if not holds:
        return False
    logged = list(
        unit_lines_of_pass(turn.campaign, turn.side)
        .filter(data__unit=unit.ref)
        .values_list("data", flat=True)
    )

    def said(key: str) -> set[tuple[str, str]]:
        return {(d["settled"], m) for d in logged if key in d for m in d[key]}

    return _put_back_held(turn, unit, before, holds, said("unmarked")) or _take_off_put_back(
        turn, unit, before, holds, said("put_back")
    )


def _put_back_held(
    turn: Turn,
    unit: Unit,
    before: tuple[str, tuple[str, ...]],
    holds: list[tuple[Step, MarkerHold]],
    taken: set[tuple[str, str]],
) -> bool:
    """A marker a ``settles`` row of a step already completed in this sequence took off
    ``unit`` (``taken``: its log line says so), which a ``holds`` of that step, citing
    the same rule, keeps on the unit as its owner's correction now marks it, is put
    back, the log citing the rule (PHD C5.13a "Units marked with a Stun counter may
    remove it after redeploying only if they are not Isolated at that time": a unit
    marked Isolated only after C5.14 was done was Isolated then, so it keeps its Stun);
    whether any was."""
    kind, markers = before
    now = list(unit.markers or ())
    back = [
        (st, hold)
        for st, hold in holds
        if (hold.rule, hold.status) in taken
        and hold.status not in now
        and matches(hold.units, UnitState(unit.name, unit.kind, (*now, hold.status)))
        and not matches(hold.units, UnitState(unit.name, kind, (*markers, hold.status)))
    ]
    if not back:
        return False
    unit.markers = ordered([*now, *{hold.status for _, hold in back}])
    unit.save(update_fields=["markers"])
    for st, hold in back:
        why = " and ".join(
            Unit.Status(m).label for m in hold.units.all_statuses or () if m != hold.status
        )
        turn.record(
            EventKind.UNIT,
            secret=kept_secret(unit),
            text=f"{turn.side_name()}: {label(unit)} is marked {Unit.Status(hold.status).label} "
            f"again (taken off when {st.id} {st.title} was done): marked {why}, it keeps "
            f"it ({hold.rule}).",
            data={
                "settled": hold.rule,
                "unit": unit.ref,
                "put_back": [hold.status],
                "cycle": turn.campaign.cycle,
            },
        )
    return True


def _take_off_put_back(
    turn: Turn,
    unit: Unit,
    before: tuple[str, tuple[str, ...]],
    holds: list[tuple[Step, MarkerHold]],
    put: set[tuple[str, str]],
) -> bool:
    """A marker ``_put_back_held`` put back (``put``) is taken off again where the
    owner's correction takes the unit out of the hold that kept it (PHD C5.13a: its
    Isolated marker was a mistake, so it was not Isolated when it redeployed, and its
    Stun comes off as C5.14's Done took it off); whether any was."""
    if not put:
        return False
    kind, markers = before
    now = list(unit.markers or ())
    off = [
        hold
        for _, hold in holds
        if (hold.rule, hold.status) in put
        and hold.status in now
        and matches(hold.units, UnitState(unit.name, kind, markers))
        and not matches(hold.units, UnitState(unit.name, unit.kind, tuple(now)))
    ]
    if not off:
        return False
    unit.markers = [m for m in now if m not in {hold.status for hold in off}]
    unit.save(update_fields=["markers"])
    for hold in off:
        turn.record(
            EventKind.UNIT,
            secret=kept_secret(unit),
            text=f"{turn.side_name()}: {label(unit)} loses its "
            f"{Unit.Status(hold.status).label} marker again: no longer marked as the rule "
            f"keeps it ({hold.rule}).",
        )
    return True


@transaction.atomic
def remove_unit(
    *, campaign_id: object, user: User, unit_id: object, eliminated: bool = False
) -> None:
    """The player removes a line from its retained forces.  At a step whose rules count
    the losses there for the scenario just played (``Step.losses_count``: PHD C5.1, APD
    2 Note) it says whether the line was ``eliminated`` (its CVP join its side's CVP
    lost, as a roll's elimination does: ``losses.carry_loss``) or is a correction, the
    default, which counts nothing and can be put back (``put_back_unit``).  Elsewhere
    an elimination is refused in words: the rules count no CVP there (APD 3 Note)."""
    from campaign.services import purchases  # purchases -> units
    from campaign.services.losses import carry_loss  # losses -> recompute -> flow -> units

    turn = take_turn(campaign_id, user, None)
    unit = own_unit(turn, unit_id)
    c, module = turn.campaign, turn.module
    rule = machine.losses_count_rule(module, c.step_index)
    if eliminated and not rule:
        na = machine.cvp_na_rule(module, c.step_index)
        where = f"{turn.step.id} {turn.step.title}"
        raise ActionRefused(
            (
                f"CVP are NA for units/weapons eliminated at {where} ({na})"
                if na
                else f"The rules count no CVP for a unit lost at {where}"
            )
            + f": remove {label(unit)} without calling it eliminated. Nothing was changed.",
            status=409,
        )
    read_by = result_read_by(c, module)
    if eliminated and read_by:
        raise ActionRefused(
            f"The scenario's CVP were read by {read_by}: they stand as they were read, so "
            f"a loss now adds none ({rule}). Remove {label(unit)} without calling it "
            "eliminated. Nothing was changed.",
            status=409,
        )
    _refuse_if_owed(turn, unit, (unit.kind, tuple(unit.markers or ())))
    secret, seen = _seen_held(
        turn, unit, lambda was: f"{turn.side_name()} removes {was} from its retained forces."
    )
    line = _removed_line(unit)
    dropped = hand_over(unit)
    unit.delete()
    writes: list[SeatField] = []
    said = ""
    if eliminated:
        carried, writes = carry_loss(turn, rule, unit, secret is not None, unit.count)
        said = f": eliminated at {turn.step.id} {turn.step.title}" + (
            f"; {carried}" if carried else ""
        )
    elif rule:
        said = ": a correction, not a loss: no CVP count"
    turn.record(
        EventKind.UNIT,
        secret=secret,
        text=f"{turn.side_name()} removes {label(unit)} from its retained forces{said}"
        + (f"; {dropped}" if dropped else "")
        + ".",
        data={"removed": line, "at": position_token(c), "eliminated": eliminated},
    )
    purchases.retire_emptied(turn, [unit])  # its RG's last line gone (PHD TM11)
    commit(c.pk, UnitChanged(kept=None if seen else secret), saving=writes)


@transaction.atomic
def reveal_unit(*, campaign_id: object, user: User, unit_id: object) -> Unit:
    """The owner shows his opponent now what a secret roll made of one of his lines
    (PHD C5.23, C5.24: a leader Battle Hardened, MMC hardened), before the scenario's
    end would: the line as it is, the lines split off it, and the log lines of the
    changes made behind it (``release_held``)."""
    turn = take_turn(campaign_id, user, None)
    unit = own_unit(turn, unit_id)
    root = held_ref(unit)
    if not root:
        raise ActionRefused(
            f"Your opponent already sees {label(unit)} as it is: nothing of it is held.",
            status=409,
        )
    lines = list(
        Unit.objects.filter(campaign=turn.campaign, side=turn.side)
        .filter(Q(ref=root) | Q(held__within=root))
        .order_by("id")
    )
    former: dict[str, Any] = next((u.held for u in lines if u.ref == root), {})
    was = _former_label(unit, former)
    release_held(turn.campaign, of=root)
    now = "; ".join(f"{label(u)}, {state_words(u.markers, u.kind)}" for u in lines)
    turn.record(
        EventKind.UNIT,
        text=f"{turn.side_name()} reveals what its secret roll made of its {was}: {now}.",
    )
    commit(turn.campaign.pk, UnitChanged())
    return unit


def _removed_line(unit: Unit) -> dict[str, object]:
    """What ``put_back_unit`` needs to put a line removed by mistake back as it was:
    its fields, its possessor and what it possessed (left unpossessed by its removal)."""
    return {
        "ref": unit.ref,
        "name": unit.name,
        "kind": unit.kind,
        "count": unit.count,
        "markers": list(unit.markers or ()),
        "weapons": list(unit.weapons or ()),
        "location": unit.location,
        "purchase": unit.purchase_id,
        "possessor": unit.possessor.ref if unit.possessor_id and unit.possessor else "",
        "possesses": [u.ref for u in Unit.objects.filter(possessor_id=unit.pk)] if unit.pk else [],
        "held": dict(unit.held or {}),  # put back, its former state is held still
    }


def removals_to_put_back(
    campaign: Campaign, logged: Iterable[dict[str, Any]], present: Iterable[str]
) -> list[tuple[str, str]]:
    """The lines a side removed by mistake at the current step of this pass and has
    not put back (reference, line), newest first, but for those ``present`` (the
    references of its retained lines): what its forces offer to put back (C5.1).
    ``logged``: the data of that side's UNIT log lines, oldest first (the roster reads
    them with its points, ``seat_views.roster``: those of the current step suffice)."""
    here = set(present)
    at = position_token(campaign)
    lines = []
    for data in reversed(list(logged)):
        if data.get("at") != at or data.get("eliminated") is not False or "put_back" in data:
            continue
        line = data.get("removed")
        if not line:
            continue
        n = int(line.get("count") or 1)
        if line["ref"] not in here:
            lines.append((str(line["ref"]), f"{n} × {line['name']}" if n > 1 else line["name"]))
    return lines


def this_steps_unit_event(turn: Turn, what: str, unit_id: object) -> Event | None:
    """The side's latest log line of the current step that recorded ``what`` (its
    ``data[what]``: "removed", "taken") for the line ``unit_id``: what a correction of
    that step takes back.  A forged or non-string id finds none."""
    return (
        Event.objects.filter(
            campaign=turn.campaign,
            side=turn.side,
            kind=EventKind.UNIT,
            data__at=position_token(turn.campaign),
            **{f"data__{what}__ref": unit_id if isinstance(unit_id, str) else ""},
        )
        .order_by("-id")
        .first()
    )


@transaction.atomic
def put_back_unit(*, campaign_id: object, user: User, unit_id: object) -> Unit:
    """A line the player removed by mistake at this step (a correction) is put back on
    its retained forces as it was, with what it possessed if that is still unpossessed.
    A line removed as eliminated is not: its CVP are in the result, which is amended by
    consent."""
    from campaign.services import purchases  # purchases -> units

    turn = take_turn(campaign_id, user, None)
    c = turn.campaign
    event = this_steps_unit_event(turn, "removed", unit_id)
    if event is None:
        raise ActionRefused(
            "You have no such unit removed at this step: only a line removed at the current "
            "step can be put back. Add it again instead.",
            status=404,
        )
    line = event.data["removed"]
    if event.data.get("eliminated"):
        raise ActionRefused(
            f"{line['name']} was removed as eliminated: its CVP are in the result. To undo "
            "that, amend the result (its CVP) with your opponent's consent and add the unit "
            "again. Nothing was changed.",
            status=409,
        )
    if event.data.get("put_back") or Unit.objects.filter(campaign=c, ref=line["ref"]).exists():
        raise ActionRefused(f"{line['name']} is already back in your retained forces.", status=409)
    own = Unit.objects.filter(campaign=c, side=turn.side)
    unit = Unit.objects.create(
        campaign=c,
        side=turn.side,
        ref=line["ref"],
        name=line["name"],
        kind=line["kind"],
        count=line["count"],
        markers=line["markers"],
        weapons=line["weapons"],
        location=line["location"],
        purchase_id=line["purchase"]
        if line["purchase"] and Purchase.objects.filter(pk=line["purchase"], campaign=c).exists()
        else None,
        possessor=own.filter(ref=line["possessor"]).first() if line["possessor"] else None,
        held=line.get("held") or {},
    )
    for held in own.filter(ref__in=line["possesses"], possessor__isnull=True):
        held.possessor = unit
        held.markers = [m for m in held.markers if m != "unpossessed"]
        held.save(update_fields=["possessor", "markers"])
    event.data = {**event.data, "put_back": True}
    event.save(update_fields=["data"])
    secret, seen = _seen_held(
        turn,
        unit,
        lambda was: (
            f"{turn.side_name()} puts back {was} on its retained forces (removed by mistake)."
        ),
    )
    turn.record(
        EventKind.UNIT,
        secret=secret,
        text=f"{turn.side_name()} puts back {label(unit)} on its retained forces (removed by "
        "mistake).",
    )
    purchases.revive_emptied(turn, unit)  # its RG back in the OB (PHD TM11)
    commit(c.pk, UnitChanged(kept=None if seen else secret))
    return unit


def _seen_held(turn: Turn, unit: Unit, wording: Callable[[str], str]) -> tuple[Kept | None, bool]:
    """How a change to ``unit`` is kept (``kept_secret``), and whether the opponent sees
    it: a line whose former state he reads (``Unit.held``) leaving or coming back leaves
    or comes back on his pages too, so he hears of it and his log line says so in its
    former words (``wording``, given its former line); the lines split off it stay
    counted in it, unseen."""
    secret = kept_secret(unit)
    former = unit.held if secret is not None and secret.held == unit.ref else {}
    if not former:
        return secret, False
    return UNIT.held_back(unit.side, unit.ref, gone=wording(_former_label(unit, former))), True


def _former_label(unit: Unit, former: Mapping[str, Any]) -> str:
    """``unit``'s line as the opponent reads it while its ``former`` state is held."""
    return label(Unit(name=former.get("name", unit.name), count=former.get("count", 1)))


def possessor_refusal(unit: Unit, possessor: Unit) -> str:
    """Why ``possessor`` cannot be recorded as possessing ``unit`` ("" : it can): a SW
    or Gun is possessed by Infantry of its side, never by itself; and never across a
    secret — a line of a still-secret RG possesses, or is possessed by, only a line of
    its own RG (both are revealed at once), so neither line's record tells the opponent
    of the other."""
    if unit.kind not in POSSESSED_KINDS:
        return f"{label(unit)} is not a SW or Gun: only a SW or Gun is possessed."
    if possessor.pk == unit.pk or possessor.kind not in POSSESSING_KINDS:
        return (
            f"{label(possessor)} cannot possess {unit.name}: a squad, half-squad / crew, "
            "leader or Hero does."
        )
    if possessor.purchase_id != unit.purchase_id and (is_secret(unit) or is_secret(possessor)):
        return (
            f"{label(possessor)} and {unit.name} are not of the same RG, and one of them is "
            "still secret: until its RG is revealed, only a unit of that RG possesses it."
        )
    return ""


def repaired_refusal(turn: Turn, unit: Unit, possessor: Unit) -> str:
    """Why ``possessor`` may not possess ``unit``, a weapon a repair roll brought back
    to the retained forces ("": it may): PHD C5.26b "An Assault Engineer MMC must
    possess any repaired FT/DC" (a table's ``repair_cap`` names the weapons and the
    MMC).  A weapon never repaired (of an RG, added by hand) is not guarded."""
    caps = [t.repair_cap for t in turn.module.tables if t.repair_cap is not None]
    if unit.kind != "sw" or not caps:
        return ""
    rolls = Event.objects.readable_by(unit.side).filter(
        campaign=turn.campaign, kind=EventKind.ROLL, side=unit.side, data__has_key="rejoined"
    )
    if not any(unit.ref in d["rejoined"] for d in rolls.values_list("data", flat=True)):
        return ""
    group = (
        turn.module.group(possessor.side, possessor.purchase.group_id)
        if (possessor.purchase)
        else None
    )
    footnotes = list(group.footnotes) if group else []
    return next(
        (
            why
            for cap in caps
            if (why := capped_possessor_refusal(cap, unit.name, state_of(possessor), footnotes))
        ),
        "",
    )


def _possession(turn: Turn, unit: Unit, possessor: object, *, given_marks: bool) -> str:
    """Set who possesses ``unit`` (``possessor``: a line's reference, "" none named, None
    as it is), one state with its "not possessed" marker: a named possessor takes the
    marker off, the marker takes the possessor off, and both given at once are refused
    in words.  What it says of the possession, for the log (", possessed by 4-6-8")."""
    if possessor is not None:
        named = own_unit(turn, possessor) if possessor != "" else None
        refusal = possessor_refusal(unit, named) if named is not None else ""
        refusal = refusal or (repaired_refusal(turn, unit, named) if named is not None else "")
        if refusal:
            raise ActionRefused(refusal + " Nothing was changed.")
        if named is not None and given_marks and unit.has("unpossessed"):
            raise ActionRefused(
                f"{unit.name} cannot be possessed by {named.name} and not possessed at once: "
                "choose none as its possessor, or untick “not possessed”. Nothing was changed."
            )
        unit.possessor = named
    if unit.possessor_id is None:
        pass
    elif possessor is None and unit.has("unpossessed"):
        unit.possessor = None  # marked not possessed: no one possesses it
    elif unit.kind not in POSSESSED_KINDS:
        raise ActionRefused(
            f"{unit.name} is possessed by {unit.possessor.name if unit.possessor else 'a unit'}"
            ": only a SW or Gun is. Choose none as its possessor first; nothing was changed."
        )
    else:
        unit.markers = [m for m in unit.markers or () if m != "unpossessed"]
    if unit.pk and unit.kind not in POSSESSING_KINDS and unit.possesses.exists():
        raise ActionRefused(
            f"{label(unit)} possesses a SW or Gun: only Infantry does. Name another "
            "possessor for it first; nothing was changed."
        )
    return f", possessed by {unit.possessor.name}" if unit.possessor else ""


def hand_over(unit: Unit, heir: Unit | None = None, *, transferred: bool = False) -> str:
    """Before ``unit``'s line leaves the retained forces, what it possesses: goes to
    ``heir`` (APD 3.2: "Any SW Possessed by an eliminated Hero is considered Transferred
    to the Battle Hardened MMC"), is ``transferred`` to a unit its owner names (APD 3.1
    footnote *: "... Transferred to the MMC as well", the MMC the owner places the 7-0
    with), or is left unpossessed where it is (Sicily 3.6041: "any Equipment that an
    Eliminated Encircled unit possessed is left in the Location unpossessed"; PHD C5.15
    then eliminates it).  What became of it, in words ("" : it possessed nothing)."""
    held = list(Unit.objects.filter(possessor_id=unit.pk)) if unit.pk else []
    if not held:
        return ""
    names = " and ".join(label(u) for u in held)
    if heir is not None and not any(possessor_refusal(u, heir) for u in held):
        Unit.objects.filter(pk__in=[u.pk for u in held]).update(possessor=heir)
        return f"{names} Transferred to {heir.name}"
    if heir is not None or transferred:
        Unit.objects.filter(pk__in=[u.pk for u in held]).update(possessor=None)
        return f"{names} Transferred with it: name its possessor in your retained forces"
    for sw in held:
        sw.possessor = None
        sw.markers = ordered([*sw.markers, "unpossessed"])
        sw.save(update_fields=["possessor", "markers"])
    return f"{names} left unpossessed"


def _own_carrier(turn: Turn, unit_id: object) -> Unit:
    unit = own_unit(turn, unit_id)
    if unit.kind not in WEAPON_CARRIERS:
        raise ActionRefused(
            f"{label(unit)} is not a vehicle: only a vehicle's MA and MGs are listed on its "
            "record (a SW is a line of its own). Nothing was changed."
        )
    return unit


def _own_weapon(unit: Unit, weapon_id: object) -> WeaponState:
    weapon = unit.state.weapon(weapon_id) if isinstance(weapon_id, str) else None
    if weapon is None:
        raise ActionRefused(f"{label(unit)} carries no such weapon.", status=404)
    return weapon


def _weapon_fields(
    kind: str, name: str, markers: Sequence[str] | None
) -> tuple[str, str, list[str]]:
    """A weapon's kind, name and markers as the player gave them, from the closed
    vocabularies, refused in words otherwise."""
    if kind not in Unit.WeaponKind.values:
        raise ActionRefused("Choose what the weapon is: its MA or an MG.")
    name = clean_text(name, what="Weapon name", limit=40) or Unit.WeaponKind(kind).label
    given = {m for m in markers or () if m}
    if given - set(Unit.Status.values) or given & {"ok", "mg_malfunctioned", "elite"}:
        raise ActionRefused("Choose the weapon's markers among those listed.")
    return kind, name, ordered(given)


def _weapon_words(name: str, markers: Sequence[str]) -> str:
    marks = ", ".join(Unit.Status(m).label for m in markers)
    return f"{name} ({marks})" if marks else name


@transaction.atomic
def add_weapon(
    *,
    campaign_id: object,
    user: User,
    unit_id: object,
    kind: str,
    name: str = "",
    markers: Sequence[str] | None = None,
) -> Unit:
    """The player lists a weapon its vehicle carries (its MA, an MG), with its markers:
    a roll on a table rolled for weapons is then made for it (Sicily 3.6142, PHD C5.26a,
    APD 3.3)."""
    turn = take_turn(campaign_id, user, None)
    unit = _own_carrier(turn, unit_id)
    kind, name, markers = _weapon_fields(kind, name, markers)
    held = list(unit.weapons or ())
    if len(held) >= MAX_WEAPONS:
        raise ActionRefused(f"{label(unit)} already lists {MAX_WEAPONS} weapons.")
    if kind == "ma" and any(w["kind"] == kind for w in held):
        raise ActionRefused(f"{label(unit)} already lists its MA: a vehicle has one.")
    taken = {w["ref"] for w in held}
    ref = next(r for r in iter(lambda: new_ref()[:WEAPON_REF_LENGTH], None) if r not in taken)
    unit.weapons = [*held, {"ref": ref, "kind": kind, "name": name, "markers": markers}]
    unit.save(update_fields=["weapons"])
    _weapon_record(
        turn, unit, f"lists {_weapon_words(name, markers)} among the weapons of {label(unit)}"
    )
    return unit


@transaction.atomic
def update_weapon(
    *,
    campaign_id: object,
    user: User,
    unit_id: object,
    weapon_id: object,
    name: str,
    markers: Sequence[str] | None,
) -> Unit:
    """The player corrects a weapon of its vehicle: its name and markers (never while
    it owes its roll at this step, or after its one roll)."""
    turn = take_turn(campaign_id, user, None)
    unit = _own_carrier(turn, unit_id)
    weapon = _own_weapon(unit, weapon_id)
    _, name, marks = _weapon_fields(weapon.kind, name, markers)
    if tuple(marks) != weapon.markers:
        _refuse_if_rolled(turn, unit, unit.state, f"{unit.name}'s {weapon.name}", weapon.ref)
    unit.weapons = [
        {**w, "name": name, "markers": marks} if w["ref"] == weapon.ref else w
        for w in unit.weapons or ()
    ]
    unit.save(update_fields=["weapons"])
    _weapon_record(turn, unit, f"marks {unit.name}'s {_weapon_words(name, marks)}")
    return unit


@transaction.atomic
def remove_weapon(*, campaign_id: object, user: User, unit_id: object, weapon_id: object) -> Unit:
    """The player takes a weapon off its vehicle's record (the vehicle stays)."""
    turn = take_turn(campaign_id, user, None)
    unit = _own_carrier(turn, unit_id)
    weapon = _own_weapon(unit, weapon_id)
    _refuse_if_rolled(turn, unit, unit.state, f"{unit.name}'s {weapon.name}", weapon.ref)
    unit.weapons = [w for w in unit.weapons or () if w["ref"] != weapon.ref]
    unit.save(update_fields=["weapons"])
    _weapon_record(turn, unit, f"takes {weapon.name} off the record of {label(unit)}")
    return unit


_F = TypeVar("_F")


def _at_its_step(
    turn: Turn, feature: _F | None, none_here: str, action: Action = Action.ROLL
) -> _F:
    """The current step's ``feature`` (a weapon exchange, a remanning) for a player who
    may act on it now; refused, in ``none_here``'s words, at a step that has none."""
    if feature is None:
        raise ActionRefused(
            f"{none_here} at {turn.step.id} {turn.step.title}: only at the step the rules "
            "give it. Nothing was changed.",
            status=409,
        )
    expect_turn(turn, action)
    return feature


@transaction.atomic
def exchange_weapon(
    *, campaign_id: object, user: User, unit_id: object, weapon_id: object, give_id: object
) -> Unit:
    """At a step with a weapon exchange, the player repairs a weapon of its vehicle (a
    disabled vehicular MG) by eliminating one of its SW (Sicily 3.61421: "by
    Eliminating a friendly SW LMG"; PHD C5.27b: a German LMG, a US MMG): the SW leaves
    the retained forces, the weapon is in good order again."""
    turn = take_turn(campaign_id, user, None)
    exchange = _at_its_step(turn, turn.step.weapon_exchange, "No weapon is repaired by exchange")
    unit = _own_carrier(turn, unit_id)
    weapon = _own_weapon(unit, weapon_id)
    sw = own_unit(turn, give_id)
    refusal = exchange_refusal(exchange, turn.side, unit.state, weapon.ref, sw.state)
    if refusal:
        raise ActionRefused(refusal + " Nothing was changed.")
    _refuse_apart(turn, sw, unit, "a SW repairs a vehicular MG by exchange", exchange.rule)
    secret = kept_secret(unit, sw)
    gone = apply_outcome(sw, UnitOutcome(removed=True))
    repaired = apply_weapon_outcome(
        unit, weapon, WeaponOutcome(status="ok"), exchange.repairs.statuses or ()
    )
    _unit_changed(
        turn, secret, f"{turn.side_name()}: {gone}; for it, {repaired} ({exchange.rule})."
    )
    return unit


@transaction.atomic
def record_setup_areas(
    *, campaign_id: object, user: User, areas: str, at: str | None = None
) -> list[str]:
    """At the module's ``setup_areas.step`` (Sicily 3.605 "Each side now determines its
    Setup Area(s) for the next CG scenario"), the side lists the IDs of its Setup Areas,
    comma-separated (none: it has none); they are public (both outline theirs on one
    photocopy, 3.605 MARKING THE MAP) and kept to the next date until listed again.  An
    ID the opponent lists too is refused (3.6051); a list posted after the side's Done
    at the step is refused (3.605: once marked, "they remain thus")."""
    turn = take_turn(campaign_id, user, at)
    areas_rule = setup_areas_at(turn.module, turn.step.id)
    if areas_rule is None:
        where = f"{turn.step.id} {turn.step.title}"
        raise ActionRefused(f"No Setup Areas are listed at {where}.", status=409)
    if turn.side in turn.done:
        # 3.605 MARKING THE MAP: "once all Setup Areas have been correctly marked, they
        # remain thus until the start of the next CG scenario".
        raise ActionRefused(
            f"You have already done {turn.step.id} {turn.step.title}: your "
            f"{areas_rule.label}s stand as you listed them ({areas_rule.rule}). "
            "Nothing was changed.",
            status=409,
        )
    mine = setup_area_ids(clean_text(areas, what="Setup Areas", limit=200))
    other = next((s for side, s in turn.seats.items() if side != turn.side), None)
    if other is None:
        other = Seat.objects.filter(campaign=turn.campaign).exclude(side=turn.side).first()
    theirs = list(other.setup_areas or ()) if other is not None else []
    refusal = overlap_refusal(areas_rule, mine, theirs, turn.side_name(other.side) if other else "")
    if refusal:
        raise ActionRefused(refusal + " Nothing was changed.", status=409)
    turn.seat.setup_areas = mine
    turn.seat.areas_cycle = turn.campaign.cycle
    word = areas_rule.label
    listed = ", ".join(mine) if mine else "none"
    turn.record(
        EventKind.UNIT,
        text=f"{turn.side_name()} lists its {word}s ({areas_rule.rule}): {listed}.",
    )
    commit(
        turn.campaign.pk,
        UnitChanged(),
        saving=[(turn.seat, "setup_areas"), (turn.seat, "areas_cycle")],
    )
    return mine


def _refuse_apart(turn: Turn, one: Unit, other: Unit, doing: str, rule: str) -> None:
    """Refused where ``one`` and ``other`` are entered in different Setup Areas and the
    rule says "within the same Setup Area" (Sicily 3.6111, 3.6112, 3.6141a, 3.61421;
    ``effects.apart_refusal``)."""
    refusal = apart_refusal(
        turn.module.setup_areas,
        (label(one), one.location),
        (label(other), other.location),
        doing,
        rule,
    )
    if refusal:
        raise ActionRefused(refusal, status=409)


def _remanner(turn: Turn, remanning: Remanning, vehicle: Unit) -> Unit | None:
    """One of the side's retained units who could remann ``vehicle`` (None: none)."""
    own = Unit.objects.filter(campaign=turn.campaign, side=turn.side).exclude(pk=vehicle.pk)
    return next((u for u in own.order_by("pk") if matches(remanning.by, u.state)), None)


def _refuse_unmanned(turn: Turn, unit: Unit, before: tuple[str, tuple[str, ...]]) -> None:
    """A vehicle's marker that only a remanning takes off (Sicily 3.6141a: "may be
    remanned ... by Personnel Retained within the same Setup Area") is not taken off
    by a change of its line: at the remanning's step the player remanns it, naming who
    does; elsewhere the correction is refused while the side retains no Personnel."""
    kind, markers = before
    was = UnitState(unit.name, kind, markers)
    for st in turn.module.steps:
        remanning = st.remanning
        if (
            remanning is None
            or remanning.status in (unit.markers or ())
            or not matches(remanning.vehicles, was)
        ):
            continue
        if st.id == turn.step.id:
            raise ActionRefused(
                f"{label(unit)} stays {state_words([remanning.status], unit.kind)} unless it is "
                f"remanned ({remanning.rule}): name the Personnel who remann it with "
                "Remann. Nothing was changed.",
                status=409,
            )
        if _remanner(turn, remanning, unit) is None:
            refusal = remanning_refusal(remanning, was, None)
            raise ActionRefused(refusal + " Nothing was changed.", status=409)


@transaction.atomic
def abandon_vehicle(*, campaign_id: object, user: User, unit_id: object) -> Unit:
    """At the step with an abandoning, the player marks one of its manned, Immobile
    vehicles without functioning MA Abandoned, stating it stands in No-Man's Land, and
    its Inherent crew leaves it as a line of its own (Sicily 3.6051: "Each manned,
    Immobile vehicle without functioning MA in No-Man's Land becomes Abandoned, and its
    crew (if any) must attempt Escape per 3.606"), whose Escape DR the next table step
    offers.  Which hex is No-Man's Land is the map's."""
    turn = take_turn(campaign_id, user, None)
    abandoning = _at_its_step(
        turn, turn.step.abandoning, "No vehicle is abandoned this way", Action.FINISH
    )
    unit = own_unit(turn, unit_id)
    state = unit.state
    if not matches(abandoning.vehicles, state):
        raise ActionRefused(
            f"{label(unit)} is not one of your {describe_filter(abandoning.vehicles)}: "
            f"only one of them that {abandoning.statement} becomes Abandoned "
            f"({abandoning.rule}). Nothing was changed.",
            status=409,
        )
    working = working_weapon(abandoning, state)
    if working:
        raise ActionRefused(
            f"{label(unit)}'s {working} is recorded in good order: only a vehicle without "
            f"functioning MA that {abandoning.statement} becomes Abandoned "
            f"({abandoning.rule}); one whose MA functions stays manned (mark its MA "
            "malfunctioned or disabled first if it is). Nothing was changed.",
            status=409,
        )
    one = split_one(unit)
    effects = [abandoning.effect]
    said = apply_outcome(one, on_unit(effects, state, ladder(turn.module)))
    words = [said]
    if abandoning.effect.crew_escapes:
        escape_step = next(
            (st.id for st in turn.module.steps[turn.campaign.step_index :] if st.kind == "table"),
            "",
        )
        words.append(
            crew_escapes(
                turn,
                abandoning.rule,
                one,
                state,
                must_escape=escape_step,
                marker=abandoning.effect.crew_marker,
            )
        )
    secret = kept_secret(one)
    writes: list[SeatField] = []
    cited = abandoning.effect.crew_escapes  # the crew's words cite the rule already
    if abandoning.prc_eliminated is not None:
        # APD 2.5 EXC with 2 Note: the Eliminated PRC (its crew) are a loss of the
        # scenario just played, their CVP the supplied ones (A26.2).
        from campaign.services.losses import carry_loss  # losses -> recompute -> units

        counts = machine.losses_count_rule(turn.module, turn.campaign.step_index)
        crew = Unit(kind=abandoning.prc_eliminated, name=f"crew of {one.name}")
        carried, writes = carry_loss(
            turn,
            f"{counts}; {abandoning.rule}; A26.2" if counts else "",
            crew,
            secret is not None,
        )
        words.append(f"its crew is Eliminated; {carried}" if carried else "its crew is Eliminated")
        cited = bool(carried)
    text = (
        f"{turn.side_name()}: {label(one)} {abandoning.statement}: "
        f"{'; '.join(w for w in words if w)}{'' if cited else f' ({abandoning.rule})'}."
    )
    if writes:
        turn.record(EventKind.UNIT, secret=secret, text=text)
        commit(turn.campaign.pk, UnitChanged(kept=secret), saving=writes)
    else:
        _unit_changed(turn, secret, text)
    return one


@transaction.atomic
def remann_vehicle(*, campaign_id: object, user: User, unit_id: object, by_id: object) -> Unit:
    """At the step with a remanning, the player takes the marker off one of its
    vehicles, naming one of its retained Personnel who remanns it (Sicily 3.6141a:
    "Each Abandoned vehicle may remain Abandoned, or may be remanned and operated ...
    by Personnel Retained within the same Setup Area").  Who then stands in the
    vehicle (a crew re-entering it, D5.42) is the map's."""
    turn = take_turn(campaign_id, user, None)
    remanning = _at_its_step(turn, turn.step.remanning, "No vehicle is remanned")
    unit = own_unit(turn, unit_id)
    if not by_id:
        crew = _remanner(turn, remanning, unit)
        refusal = remanning_refusal(remanning, unit.state, crew.state if crew else None)
        raise ActionRefused(
            refusal + " Nothing was changed."
            if refusal
            else f"Name the Personnel who remann {label(unit)} ({remanning.rule}).",
            status=409 if refusal else 400,
        )
    by = own_unit(turn, by_id)
    if by.pk == unit.pk:
        raise ActionRefused(f"{label(unit)} cannot remann itself. Nothing was changed.")
    refusal = remanning_refusal(remanning, unit.state, by.state)
    if refusal:
        raise ActionRefused(refusal + " Nothing was changed.", status=409)
    _refuse_apart(turn, by, unit, "Personnel remann an Abandoned vehicle", remanning.rule)
    unit.markers = _markers([m for m in unit.markers or () if m != remanning.status])
    unit.save(update_fields=["markers"])
    _unit_changed(
        turn,
        kept_secret(unit, by),
        f"{turn.side_name()}: {label(by)} remanns {label(unit)}, now "
        f"{state_words(unit.markers, unit.kind)} ({remanning.rule}).",
    )
    return unit


def _unit_changed(turn: Turn, secret: Kept | None, text: str, **data: Any) -> None:
    """Log a change of the side's retained forces (kept while ``secret``: the
    ``kept_secret`` of the units it touched, taken before any left) and commit it."""
    turn.record(EventKind.UNIT, secret=secret, text=text, **data)
    commit(turn.campaign.pk, UnitChanged(kept=secret))


def _weapon_record(turn: Turn, unit: Unit, did: str) -> None:
    _unit_changed(turn, kept_secret(unit), f"{turn.side_name()} {did}.")


def _refuse_if_owed(turn: Turn, unit: Unit, before: tuple[str, tuple[str, ...]]) -> None:
    """A unit that owes a compulsory roll at the current step (``required``, once per
    unit) keeps the status and kind the roll is for until it is made: the roll decides
    its fate, never a change of its line (APD 3.1: each wounded leader's fate).  One that
    has made its one roll (``once: unit``) on a table of the step keeps what the roll
    left until the step ends (APD 3.31: "Each weapon/Vehicle may make only one Repair
    attempt": a weapon that rolled NE is not marked repaired, nor removed to be
    added again for another attempt)."""
    kind, markers = before
    state = UnitState(unit.name, kind, markers, unit.state.weapons)
    _refuse_if_rolled(turn, unit, state, label(unit))


def _refuse_if_rolled(turn: Turn, unit: Unit, state: UnitState, what: str, only: str = "") -> None:
    """Refuses a change to ``unit``'s line (or, ``only``, to that weapon of it) while
    what it concerns owes its roll at this step, or has made its one roll."""
    tables = list(map(turn.module.table, turn.step.tables))
    rolled = set(
        Roll.objects.filter(
            campaign=turn.campaign,
            cycle=turn.campaign.cycle,
            side=turn.side,
            unit_ref__startswith=unit.ref,
        ).values_list("table_id", "unit_ref")
    ) | {  # a unit of a stack whose one roll was named for another (``Table.stack``)
        (table_id, unit.ref)
        for table_id in Roll.objects.filter(
            campaign=turn.campaign,
            cycle=turn.campaign.cycle,
            side=turn.side,
            stack__contains=f" {unit.ref} ",
        ).values_list("table_id", flat=True)
    }
    # Whatever the roll left it: the unit, and each weapon of its record.
    refs = [only] if only else ["", *(w.ref for w in state.weapons)]
    for t in tables:
        for ref in refs if t.once == "unit" else []:
            if (t.id, roll_ref(unit, ref)) in rolled:
                raise ActionRefused(
                    f"{what} has made its one roll on the {t.title} ({t.rule}) at this step: "
                    "it stays as the roll left it until the step ends. Nothing was changed.",
                    status=409,
                )
    for t in tables:
        for ref, target in targets(t.for_units, state):
            if only and ref != only:
                continue
            if owed_for(t, target) and (t.id, roll_ref(unit, ref)) not in rolled:
                raise ActionRefused(
                    f"{what} owes its roll on the {t.title} ({t.rule}) at this step: the roll "
                    "decides what becomes of it. Roll first; nothing was changed.",
                    status=409,
                )


def roll_ref(unit: Unit, weapon_ref: str = "") -> str:
    """What a roll records it was made for: the unit's reference, or its weapon's
    after it ("<unit>.<weapon>")."""
    return f"{unit.ref}.{weapon_ref}" if weapon_ref else unit.ref


def exchange_of(turn: Turn) -> UnitExchange:
    exchange = turn.step.exchange
    assert exchange is not None, "an exchange step says what it exchanges (schema)"
    return exchange


@transaction.atomic
def exchange_unit(
    *,
    campaign_id: object,
    user: User,
    give_id: object,
    mark_id: object,
    recombine: str = "",
    forms: str = "",
    at: str | None = None,
) -> None:
    """At an exchange step, one unit of ``gives`` leaves the side's forces and one unit
    of ``marks`` is marked for it (APD 3.2: "for each such eliminated Hero the owning
    player may Battle Harden ... any one MMC"): one mark per unit given up.  Two HS
    recombining (PHD C5.21) are two of ``gives``, or two of ``half_squads`` forming the
    squad ``forms`` names; ``recombine``: the step's other exchange, two HS recombining
    (``Step.recombining``, Sicily 3.6111)."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.EXCHANGE)
    exchange = exchange_of(turn)
    if recombine:
        if turn.step.recombining is None:
            raise ActionRefused(
                f"No HS recombine at {turn.step.id} {turn.step.title}. Nothing was changed."
            )
        exchange = turn.step.recombining
    give, mark = own_unit(turn, give_id), own_unit(turn, mark_id)
    gives, marks = exchange.gives, exchange.marks
    if exchange.recombine and exchange.half_squads and half_squad_line(exchange, give):
        gives = marks = exchange.half_squads
    if not matches(gives, give.state):
        raise ActionRefused(
            f"{label(give)} is not one of your {describe_filter(gives)} ({exchange.rule})."
        )
    if give.pk == mark.pk and give.count < 2 or not matches(marks, mark.state):
        raise ActionRefused(
            f"{label(mark)} is not one of your {describe_filter(marks)} ({exchange.rule})."
        )
    if exchange.recombine:
        return _recombine(turn, exchange, give, mark, forms)
    if give.pk == mark.pk:
        raise ActionRefused(f"{label(mark)} cannot be marked for itself ({exchange.rule}).")
    if exchange.once_per_pass and mark.ref in marked_once(turn.campaign, turn.side, exchange):
        words = UNIT_STATUS_WORDS[exchange.status]
        raise ActionRefused(
            f"{label(mark)} was already {words} at an earlier step of this phase: no unit may "
            f"be {words} more than once ({exchange.once_per_pass}). Nothing was changed."
        )
    doing = f"one is {UNIT_STATUS_WORDS[exchange.status]} for the other"
    _refuse_apart(turn, give, mark, doing, exchange.rule)
    secret = kept_secret(give, mark)
    one = split_one(mark)  # the unit marked, a line of its own
    # What the unit given up possessed goes to the unit marked for it (APD 3.2), once
    # its line is gone (one of several identical units keeps the line's).
    gone = apply_outcome(give, UnitOutcome(removed=True), heir=one)
    marked = apply_outcome(one, UnitOutcome(status=exchange.status))
    if one is not mark:
        marked = f"one {marked}"
    _unit_changed(
        turn,
        secret,
        f"{turn.side_name()}: {gone}; for it, {marked} ({exchange.rule}).",
        data=marked_data(turn, one, exchange.status),
    )


def marked_once(campaign: Campaign, side: str, exchange: UnitExchange) -> set[str]:
    """The units ``side`` may not mark at ``exchange`` again: those marked its status
    earlier in this pass, where it marks none twice (PHD C5.23 "No unit may Battle
    Harden more than once during the ConPh"; ``UnitExchange.once_per_pass``)."""
    if not exchange.once_per_pass:
        return set()
    return {ref for ref, _ in marked_in_pass(campaign, side, exchange.status)}


def half_squad_line(exchange: UnitExchange, unit: Unit) -> bool:
    """Whether ``unit`` is a line recording HS themselves, which names no squad (PHD
    C5.21: a "3-3-7" line; ``UnitExchange.half_squads``)."""
    return exchange.half_squads is not None and matches(exchange.half_squads, unit.state)


def line_of(unit: Unit) -> str:
    """The squad's line a HS is of, as two HS are matched to recombine (PHD C5.21): its
    name, case and spaces aside."""
    return line_key(unit.name)


def recombine_bar(exchange: UnitExchange, held: Iterable[Unit]) -> Unit | None:
    """The unit of ``held`` (what a HS possesses) that bars it from recombining: one
    ``exchange.not_possessing`` names (PHD C5.21 EXC: "A HS in possession of a MMG/HMG/
    Lt. MTR/Gun (even if Malfunctioned)"); read by the refusal and by the page, which
    leaves such a HS out of its selects and says why."""
    return next(
        (u for u in held if any(matches(f, state_of(u)) for f in exchange.not_possessing or ())),
        None,
    )


def recombine_bar_words(exchange: UnitExchange, unit: Unit, barred: Unit) -> str:
    """Why ``unit`` does not recombine, possessing ``barred`` (C5.21 EXC)."""
    return (
        f"{label(unit)} possesses {label(barred)}: a HS in possession of a MMG, HMG, "
        f"Lt. MTR or Gun does not recombine ({exchange.rule} EXC)."
    )


def _recombine(turn: Turn, exchange: UnitExchange, give: Unit, mark: Unit, forms: str = "") -> None:
    """Two of the side's lines of ``exchange.gives`` bearing the same name recombine: the
    unit given up leaves, what it possessed Transferred to the other, which has
    ``exchange.status`` taken off (PHD C5.21: two HS of one squad's line, "same-class
    ... with the same strength factors", become the squad again), unless either
    possesses a unit ``not_possessing`` names (C5.21 EXC: a MMG/HMG/Lt. MTR/Gun).  Two
    lines of ``half_squads`` bearing the same name ("3-3-7") become the squad their
    owner names in ``forms`` ("6-6-7")."""
    rule = exchange.rule
    halves = half_squad_line(exchange, give)
    if line_of(give) != line_of(mark):
        kind = "half-squad line" if halves else "squad's line"
        raise ActionRefused(
            f"{label(give)} and {label(mark)} cannot recombine: only two HS of the same class "
            f"and strength factors do, two of one {kind} ({rule})."
        )
    squad = " ".join(forms.split())[: max_length(Unit, "name")]
    if halves and not squad:
        raise ActionRefused(
            f"Name the squad the two {give.name} HS form (its counter, as on your squad "
            f"lines): the rules text does not print it ({rule})."
        )
    if not halves and squad and line_key(squad) != line_of(mark):
        raise ActionRefused(
            f"Two {mark.name} HS form a {mark.name} squad, their own line's: leave the squad "
            f"they form unnamed ({rule})."
        )
    _refuse_apart(turn, give, mark, "two HS recombine", rule)
    for unit in (give, mark):
        barred = recombine_bar(exchange, Unit.objects.filter(possessor_id=unit.pk))
        if barred is not None:
            raise ActionRefused(recombine_bar_words(exchange, unit, barred))
    secret = kept_secret(give, mark)
    if give.pk == mark.pk:  # a line of two identical HS: one gives itself up
        give = split_one(mark)
    one = split_one(mark)
    handed = hand_over(give, heir=one)
    give.delete()
    was = one.name
    if halves:
        one.name, one.kind = squad, "squad"
        one.save(update_fields=["name", "kind"])
    else:
        apply_outcome(one, UnitOutcome(unmarked=exchange.status))
    _unit_changed(
        turn,
        secret,
        f"{turn.side_name()}: two {was} HS recombine into one {one.name} squad"
        + (f"; {handed}" if handed else "")
        + f" ({rule}).",
        data=marked_data(turn, one, "recombined"),
    )


def marked_data(turn: Turn, unit: Unit, status: str, table_id: str = "") -> dict[str, object]:
    """The log line's record of a unit marked ``status`` in this pass (read back by
    ``marked_in_pass``)."""
    data: dict[str, object] = {"marked": unit.ref, "status": status, "cycle": turn.campaign.cycle}
    return data | ({"table": table_id} if table_id else {})


def settle_exchange(turn: Turn) -> None:
    """Finishing an exchange step: each unit of ``gives`` the side still holds leaves its
    forces (its owner marked none for it), or stays, marked ``kept_status``, where the
    side holds no unit the exchange could mark (APD 3.2 EXC)."""
    exchange = exchange_of(turn)
    if exchange.recombine:
        return  # the HS not recombined stay: whether they must is the map's (PHD C5.21)
    own = list(
        Unit.objects.select_related("purchase").filter(campaign=turn.campaign, side=turn.side)
    )
    held = [u.state for u in own]
    for unit in own:
        if not matches(exchange.gives, unit.state):
            continue
        fate = left_over(exchange, unit.state, held)
        secret = kept_secret(unit)
        if fate.removed:
            dropped = hand_over(unit)
            unit.delete()
            said = f"{label(unit)} leaves the retained forces, no unit marked for it"
            said += f"; {dropped}" if dropped else ""
        elif fate.status is not None:
            unit.markers = _condition(unit.markers, fate.status, exchange.gives.statuses or ())
            unit.save(update_fields=["markers"])
            said = (
                f"{label(unit)} stays, now {state_words(unit.markers, unit.kind)}: no "
                f"{describe_filter(exchange.marks)} to mark"
            )
        else:
            continue
        _record(turn, said, exchange.rule, secret)


def _record(turn: Turn, said: str, rule: str, secret: Kept | None) -> None:
    """A line of the log saying what became of one of the side's units, and its push."""
    turn.record(EventKind.UNIT, secret=secret, text=f"{turn.side_name()}: {said} ({rule}).")
    commit(turn.campaign.pk, UnitChanged(kept=secret))


def unit_for_roll(turn: Turn, unit_id: object) -> Unit | None:
    return None if unit_id in (None, "") else own_unit(turn, unit_id)


def settle_units(turn: Turn) -> None:
    """Completing a step that ``settles`` units: each side's retained units each row
    names leave the retained forces, or are marked, whole lines at once (PHD C5.1:
    recalled units are eliminated), each change on its side's log (secret while its
    RG is)."""
    played_on, answers = _played(turn)
    _settle_rows(turn, turn.step.settles, played_on, answers)


def _settle_rows(
    turn: Turn,
    rows: Sequence[Settle],
    played_on: str | None,
    answers: Mapping[str, Mapping[str, object]],
    sides: Sequence[str] | None = None,
    only: int | None = None,
) -> None:
    """Each side's (of ``sides``) retained units (``only``: that one, and what it
    possesses) as ``rows`` settle them (``settle_units``); an RG whose last line a row
    took away is eliminated (PHD TM11, ``purchases.retire_emptied``)."""
    from campaign.services import purchases  # purchases -> units

    for side in turn.seats if sides is None else sides:
        holding = [row for row in rows if settle_holds(row, side, played_on, answers)]
        if not holding:
            continue  # no row acts on this side's units in this pass: nothing to read
        gone: list[Unit] = []
        own = list(
            Unit.objects.select_related("purchase").filter(campaign=turn.campaign, side=side)
        )
        if only is not None:
            own = [u for u in own if only in (u.pk, u.possessor_id)]
        held_by = possessed_by(own)
        by_pk = {u.pk: u for u in own}
        theirs = enemy_setup_areas(turn.campaign, turn.module, side, turn.seats)
        for row in holding:
            for unit in own:
                if unit.pk is None:
                    continue  # left by an earlier row
                if row.units.weapons is not None and unit.kind in WEAPON_CARRIERS:
                    _settle_weapons(turn, side, row, unit)
                    continue
                # A SW or Gun is where its possessor is: his Isolated marker is its own
                # (PHD C5.27d "non-isolated unit/weapon").
                holder = by_pk.get(unit.possessor_id) if unit.possessor_id else None
                if holder is not None and holder.pk is None:
                    holder = None
                state = placed(
                    in_location_of(with_origin(unit), holder.state if holder else None),
                    unit.location,
                    holder.location if holder else "",
                    theirs,
                )
                outcome = settled(row, state, ladder(turn.module))
                if not outcome.changes:
                    continue
                said, secret = label(unit), kept_secret(unit)
                if outcome.added:  # in its place (PHD C5.24: a Heroic leader hardened)
                    apply_outcome(unit, outcome, row.units.statuses or ())
                    said += f" Battle Hardens: now {outcome.added[0][0]}"
                    turn.as_side(side).record(
                        EventKind.UNIT,
                        secret=secret,
                        text=f"{turn.side_name(side)}: {said} ({row.rule}).",
                    )
                    continue
                cleared = sorted(unit.state.marked & set(row.units.statuses or ()))
                if outcome.unmarked is not None or outcome.renamed is not None:
                    said = unmark_or_rename(unit, outcome, said)
                elif outcome.removed:
                    dropped = hand_over(unit)
                    unit.delete()
                    said += " leaves the retained forces" + (f"; {dropped}" if dropped else "")
                    gone.append(unit)
                else:
                    # The condition it is settled for gives way to the result's; its
                    # other markers stay (a wounded leader withdrawn stays wounded,
                    # 3.60742).
                    unit.markers = _condition(
                        unit.markers, outcome.status, row.units.statuses or ()
                    )
                    unit.save(update_fields=["markers"])
                    said += f" {became_words(outcome.status or 'ok', unit.kind)}"
                turn.as_side(side).record(
                    EventKind.UNIT,
                    secret=secret,
                    text=f"{turn.side_name(side)}: {said} ({row.rule}).",
                    data=_cleared_data(turn, row, unit, cleared, outcome.removed),
                )
                if row.possessed is not None and not outcome.removed:
                    _settle_possessed(turn, side, row, unit, held_by.get(unit.pk, ()))
        purchases.retire_emptied(turn.as_side(side), gone)


def settle_preview(module: Module, campaign: Campaign, step: Step, side: str) -> list[str]:
    """What completing ``step`` will do to ``side``'s retained units by its ``settles``
    (``settle_units``), one sentence per unit, for the page before Done: APD 2.1 "All
    Prisoners are then removed from play" names the Captured 4-6-6 that leaves ("4-6-6
    leaves your retained forces (2.1)"); 2.5
    "All Encircled markers are then removed" the units that lose theirs.  Read only;
    a row on a vehicle's weapons is not previewed."""
    if not step.settles:
        return []
    result = pass_result(campaign)
    played_on = None if result is None else module.dates[result.date_index].id
    answers = {} if result is None else dict(result.data or {})
    own = list(Unit.objects.filter(campaign=campaign, side=side))
    by_pk = {u.pk: u for u in own}
    theirs = enemy_setup_areas(campaign, module, side)
    out: list[str] = []
    gone: set[int] = set()
    for row in step.settles:
        if row.units.weapons is not None or not settle_holds(row, side, played_on, answers):
            continue
        for unit in own:
            if unit.pk in gone:
                continue
            holder = by_pk.get(unit.possessor_id) if unit.possessor_id else None
            state = placed(
                in_location_of(unit.state, holder.state if holder is not None else None),
                unit.location,
                holder.location if holder is not None else "",
                theirs,
            )
            outcome = settled(row, state, ladder(module))
            if not outcome.changes:
                continue
            what = label(unit)
            if outcome.removed:
                gone.add(unit.pk)
                out.append(f"{what} leaves your retained forces ({row.rule}).")
            elif outcome.status == "ok" and row.units.statuses:
                marks = ", ".join(
                    marker_words(m, unit.kind) for m in row.units.statuses if unit.has(m)
                )
                out.append(f"{what} loses its {marks} marker ({row.rule}).")
            elif outcome.status is not None:
                out.append(f"{what} {became_words(outcome.status, unit.kind)} ({row.rule}).")
    return out


def settle_rolled(rows: Sequence[Settle], unit: Unit | None) -> str:
    """The unit a roll was made for, settled by its table's ``after_roll`` rows (Sicily
    3.6141c after 3.6141b: made Mobile, an AFV under Recall and not Isolated is no longer
    under Recall); what changed, in words."""
    words = []
    for row in rows:
        if unit is None or unit.pk is None:
            break
        outcome = settled(row, unit.state)
        if outcome.changes:
            words.append(f"{apply_outcome(unit, outcome, row.units.statuses or ())} ({row.rule})")
            if row.possessed is not None and unit.pk is not None:
                words += _settle_rolled_possessed(row, unit)
    return "; ".join(w for w in words if w)


def _settle_rolled_possessed(row: Settle, unit: Unit) -> list[str]:
    """What ``unit`` possesses that ``row.possessed`` selects, settled as it was (Sicily
    3.6061: "it and all Equipment it took with it are Retained into a friendly Setup
    Area"); what changed, in words."""
    assert row.possessed is not None
    words = []
    for held in Unit.objects.filter(possessor=unit).select_related("purchase"):
        state = with_origin(held)
        if not matches(row.possessed, state):
            continue
        outcome = on_unit(row.effects, state)
        if outcome.unmarked is not None or outcome.renamed is not None:  # the whole line
            words.append(f"{unmark_or_rename(held, outcome, label(held))} ({row.rule})")
        elif outcome.changes:
            words.append(f"{apply_outcome(held, outcome)} ({row.rule})")
    return words


def resettle_after_amendment(
    turn: Turn,
    before: Mapping[str, Mapping[str, object]],
    after: Mapping[str, Mapping[str, object]],
) -> None:
    """The result of this pass amended after a step settled its units by one of its
    yes/no answers (Sicily 3.60741-3.60742: the British units withdrawn, the British
    Control >= 5 hexes north): each row the answer now makes hold is settled now; each
    it no longer makes hold is undone where it marked units (the mark taken off the
    units it selects, and what they possess as it went); a row that cleared a mark is
    not undone (which units it returned is not known): the log says so."""
    result = pass_result(turn.campaign)
    if result is None:
        return
    module, c = turn.module, turn.campaign
    played_on = module.dates[result.date_index].id
    start = machine.results_index(module)
    for step in module.steps[start + 1 : c.step_index]:  # the steps completed
        for row in step.settles:
            if row.result_yes is None:
                continue
            for side in turn.seats:
                was = settle_holds(row, side, played_on, before)
                now = settle_holds(row, side, played_on, after)
                if now and not was:
                    _settle_rows(turn, [row], played_on, after, sides=[side])
                elif was and not now:
                    _unsettle(turn, side, row)
                else:
                    continue
                commit(c.pk, UnitChanged())


def _cleared_data(
    turn: Turn, row: Settle, unit: Unit, cleared: Sequence[str], removed: bool
) -> dict[str, object] | None:
    """The log line's record of the markers a ``settles`` row took off ``unit`` in this
    pass, read back if its answer is amended (``_unclear``); None where it cleared none
    or the unit left."""
    if removed or not cleared:
        return None
    # An ``unmark`` row's is read back by ``_put_back_held``: PHD C5.13a's Stun, taken
    # off a unit not Isolated when C5.14 was done, is its again once it is marked
    # Isolated (it was Isolated "at that time").
    key = (
        "cleared"
        if any(e.status == "ok" for e in row.effects)
        else "unmarked"
        if any(e.do == "unmark" for e in row.effects)
        else None
    )
    if key is None:
        return None
    return {"settled": row.rule, "unit": unit.ref, key: list(cleared), "cycle": turn.campaign.cycle}


def _unclear(turn: Turn, side: str, row: Settle) -> bool:
    """Put back the markers ``row`` took off ``side``'s units in this pass, its answer
    amended to no (Sicily 3.60742: the withdrawn units it returned to play are withdrawn
    again), each change logged with the rule; False where the log names none of them
    (nothing is guessed)."""
    lines = unit_lines_of_pass(turn.campaign, side).filter(data__settled=row.rule)
    returned = {
        d["unit"]: d["cleared"] for d in lines.values_list("data", flat=True) if "cleared" in d
    }
    if not returned:
        return False
    for unit in Unit.objects.filter(campaign=turn.campaign, side=side, ref__in=list(returned)):
        back = [m for m in returned[unit.ref] if m not in unit.state.marked]
        if not back:
            continue
        unit.markers = ordered([*(unit.markers or ()), *back])
        words = state_words(back, unit.kind)
        said = f"{label(unit)} is {words} again: the amended result no longer calls for its return"
        _marked(turn, side, unit, said, row.rule)
    return True


def _unsettle(turn: Turn, side: str, row: Settle) -> None:
    """Undo what ``row`` did to ``side``'s units, its answer amended to no."""
    status = next((e.status for e in row.effects if e.do == "status"), None)
    if status == "ok" and _unclear(turn, side, row):
        return
    if status is None or status == "ok":
        turn.as_side(side).record(
            EventKind.UNIT,
            text=(
                f"{turn.side_name(side)}: the amended result no longer calls for "
                f"{row.rule}; the units it changed are to be corrected on the retained "
                "forces by their owner."
            ),
        )
        return
    wider = row.units.model_copy(
        update={
            "statuses": [status],
            "not_statuses": [s for s in row.units.not_statuses or () if s != status] or None,
        }
    )
    own = list(Unit.objects.select_related("purchase").filter(campaign=turn.campaign, side=side))
    held_by = possessed_by(own)
    for unit in own:
        if not matches(wider, with_origin(unit)):
            continue
        went = [unit]
        if row.possessed is not None:
            possessed = row.possessed.model_copy(
                update={
                    "not_statuses": [s for s in row.possessed.not_statuses or () if s != status]
                    or None
                }
            )
            went += [u for u in held_by.get(unit.pk, ()) if matches(possessed, u.state)]
        for held in went:
            if status not in held.state.marked:
                continue
            held.markers = _condition(held.markers, "ok", [status])
            said = (
                f"{label(held)} is no longer {marker_words(status, held.kind)}: the amended result"
            )
            _marked(turn, side, held, f"{said} no longer calls for it", row.rule)


def possessed_by(own: Sequence[Unit]) -> dict[int, list[Unit]]:
    """The side's lines (``own``, read once) by the line that possesses them: what a
    row settles with its units is read from the same objects, never once per unit."""
    held_by: dict[int, list[Unit]] = {}
    for u in own:
        if u.possessor_id is not None:
            held_by.setdefault(u.possessor_id, []).append(u)
    return held_by


def _settle_possessed(
    turn: Turn, side: str, row: Settle, unit: Unit, possessed: Sequence[Unit]
) -> None:
    """What ``unit`` possesses (``possessed``, its side's lines) that ``row.possessed``
    selects goes as it went (Sicily 3.60742: captured SW in the possession of withdrawn
    units are withdrawn with them), each change on the side's log."""
    assert row.possessed is not None
    for held in possessed:
        if held.pk is None:
            continue  # left by an earlier row
        state = with_origin(held)
        if not matches(row.possessed, state):
            continue
        outcome = on_unit(row.effects, state)
        if not outcome.changes or outcome.removed or outcome.status is None:
            continue
        _with_marker(held, outcome.status)
        said = f"{label(held)}, possessed by {unit.name},"
        _marked(turn, side, held, f"{said} {became_words(outcome.status, held.kind)}", row.rule)


def _marked(turn: Turn, side: str, unit: Unit, said: str, rule: str) -> None:
    """``unit``'s new markers written, and ``said`` on ``side``'s log."""
    unit.save(update_fields=["markers"])
    turn.as_side(side).record(
        EventKind.UNIT, secret=kept_secret(unit), text=f"{turn.side_name(side)}: {said} ({rule})."
    )


def _played(turn: Turn) -> tuple[str | None, dict[str, dict[str, object]]]:
    """The date id of the CG scenario just played and its confirmed result (None and
    {}: none in this pass, an Idle date), where a step's ``settles`` read them."""
    if not any(r.after_dates or r.result_yes for r in turn.step.settles):
        return None, {}
    result = pass_result(turn.campaign)
    if result is None:
        return None, {}
    return turn.module.dates[result.date_index].id, dict(result.data or {})


def _settle_weapons(turn: Turn, side: str, row: Settle, unit: Unit) -> None:
    """A step's ``settles`` row read for the weapons of a vehicle's record (PHD C5.26c:
    "Each already-malfunctioned captured weapon is removed from play (disabled if
    vehicular)"): each weapon it names takes its effect, the vehicle stays."""
    rolled_for = row.units.statuses or ()
    for ref, _ in targets(row.units, unit.state):
        weapon = unit.state.weapon(ref)
        assert weapon is not None
        said = apply_weapon_outcome(
            unit, weapon, on_weapon(row.effects, unit.state, weapon), rolled_for
        )
        if said:
            turn.as_side(side).record(
                EventKind.UNIT,
                secret=kept_secret(unit),
                text=f"{turn.side_name(side)}: {said} ({row.rule}).",
            )


def describe_filter(flt: UnitFilter) -> str:
    """The units a table is rolled for, in words: "wounded leaders", "malfunctioned or
    disabled SWs or Guns", "malfunctioned SWs (not captured)"."""
    kinds = " or ".join(_plural(Unit.Kind(k).label.split(" /")[0]) for k in flt.kinds or [])
    due = [s for s in flt.statuses or [] if s in DUE_STATUSES]
    statuses = " or ".join(s.replace("_", " ") for s in flt.statuses or [] if s not in due)
    # And every condition of ``all_statuses`` besides (Sicily 3.6041 EXC: "encircled and
    # immobilized vehicles"; 3.61426: "isolated vehicles").
    every = [s.replace("_", " ") for s in flt.all_statuses or [] if s not in (flt.statuses or [])]
    statuses = " and ".join(part for part in (statuses, " and ".join(every)) if part)
    said = " ".join(part for part in (statuses, kinds or "units") if part)
    if due:
        said += " marked " + " or ".join(f"'{UNIT_STATUS_WORDS[s]}'" for s in due)
    # What narrows them, in one bracket: "(a Sherman, not immobilized or abandoned)".
    but = ["a " + " or ".join(flt.named)] if flt.named else []
    if flt.not_statuses:
        but.append("not " + " or ".join(s.replace("_", " ") for s in flt.not_statuses))
    if flt.not_named:
        but.append("not a " + " or ".join(flt.not_named))
    if flt.not_if:
        but.append(f"not {flt.not_if.label}")
    if but:
        said += " (" + ", ".join(but) + ")"
    if flt.weapons:
        said += ", a vehicle's " + " or ".join(Unit.WeaponKind(w).label for w in flt.weapons)
    return said


def strength_counts(campaign: Campaign, side: str) -> tuple[int, int, int]:
    """The side's retained leaders, squads and half-squads/crews (PHD C5.24a's ratio)."""
    squads, half_squads, _ = squad_counts(campaign, side)
    # A leader marked captured is held prisoner, not currently retained (C5.24a).
    leaders = sum(
        n
        for markers, n in Unit.objects.filter(
            campaign=campaign, side=side, kind="leader"
        ).values_list("markers", "count")
        if retained(UnitState("", "leader", tuple(markers or ())))
    )
    return leaders, squads, half_squads


def designable_mmc(campaign: Campaign, side: str, not_named: Sequence[str]) -> int:
    """How many of the side's retained MMC (not captured) name none of ``not_named``:
    those a leader may be created from (PHD C5.24a "any designated (non-crew) MMC")."""
    rows = Unit.objects.filter(
        campaign=campaign, side=side, kind__in=["squad", "half_squad"]
    ).values_list("name", "markers", "count")
    return sum(
        n
        for name, markers, n in rows
        if "captured" not in (markers or ()) and not names_any(name, not_named)
    )


def designable_lines(campaign: Campaign, side: str, instead: InsteadOfRoll) -> list[Unit]:
    """The side's MMC lines a unit may be created from instead of a roll (PHD C5.24a
    "from any designated (non-crew) MMC, provided there is no leader in that
    location"): not captured, naming none of ``mmc_not_named``, and (with
    ``no_leader_in_location``) in no Location its roster records a leader of its own in."""
    own = list(Unit.objects.filter(campaign=campaign, side=side))
    led = {where(u) for u in own if u.kind == "leader" and where(u)}
    return [
        u
        for u in own
        if u.kind in ("squad", "half_squad")
        and "captured" not in (u.markers or ())
        and not names_any(u.name, instead.mmc_not_named)
        and not (instead.no_leader_in_location and where(u) in led)
    ]


def where(unit: Unit) -> str:
    """A line's recorded Location, as two are compared (case and spaces aside)."""
    return " ".join(unit.location.split()).lower()


def took_instead(campaign: Campaign, side: str, table_id: str) -> bool:
    """Whether ``side`` took what a table offers instead of its roll in this pass
    (PHD C5.24a): the log's line of it says so."""
    return unit_lines_of_pass(campaign, side).filter(data__instead=table_id).exists()


def ladder(module: Module) -> tuple[str, ...]:
    """The leaders' qualities, lowest first (none: the module has no ladder)."""
    return tuple(module.leader_ladder.ratings) if module.leader_ladder else ()


def battle_harden(
    turn: Turn, effects: list[Effect], not_named: Sequence[str] = (), table: Table | None = None
) -> str:
    """A ``battle_harden`` result: the side's leader it names (or the next lower one
    the side has) becomes the next higher quality, on its own line where it was; what
    happened, in words ("" : no such result).  A leader who came with an RG ``table``
    excludes is none of them (PHD C5.24: an AFV RG's leader is an Armour Leader,
    ``not_hardened_for_group``)."""
    if not any(e.do == "battle_harden" for e in effects):
        return ""
    leaders = hardenable_leaders(turn.campaign, turn.module, turn.side, turn.step, table)
    found = battle_hardened(effects, [u.state for u in leaders], ladder(turn.module), not_named)
    if found is None:
        return "no retained unwounded leader of that quality or lower: none Battle Hardens"
    index, name = found
    # Of a secret roll (C5.24), the opponent reads the leader as he was until released.
    unit = held_one(leaders[index], secret=table is not None and table.secret)
    before = unit.name
    unit.name = name[: max_length(Unit, "name")]
    unit.save(update_fields=["name"])
    return f"{before} Battle Hardens: now {unit.name}"


def hardenable_leaders(
    campaign: Campaign, module: Module, side: str, step: Step, table: Table | None
) -> list[Unit]:
    """``side``'s leaders a ``battle_harden`` result of ``table`` may Battle Harden, but
    for their quality and wounds: none of an RG ``table`` excludes, none ``step``
    hardens by itself (PHD C5.24: a Heroic leader, "No SMC may Battle Harden more than
    once during the ConPh")."""
    return [
        u
        for u in Unit.objects.filter(campaign=campaign, side=side, kind="leader")
        .select_related("purchase")
        .order_by("id")
        if not (
            table is not None
            and u.purchase is not None
            and not_hardened_for_group(table, module.group(side, u.purchase.group_id))
        )
        and not hardened_by_settles(step.settles, u.state)
        # One held prisoner is not "currently retained" (C5.24 footnote *).
        and retained(u.state)
    ]


def _plural(word: str) -> str:
    return f"{word}es" if word.endswith("o") else f"{word}s"  # Heroes


def split_one(unit: Unit) -> Unit:
    """The one unit a roll is for: a line of several identical units gives it up as a
    line of its own (so its roll and result are its own)."""
    if unit.count == 1:
        return unit
    unit.count -= 1
    unit.save(update_fields=["count"])
    return _copy(unit, name=unit.name, kind=unit.kind, markers=unit.markers)


def state_of(unit: Unit) -> UnitState:
    return unit.state


def located_state(unit: Unit) -> UnitState:
    """``unit`` as a roll reads it: a SW or Gun where its possessor is (his Isolated
    marker is its own, PHD C5.26a/C5.27c)."""
    holder = unit.possessor if unit.possessor_id else None
    return in_location_of(unit.state, holder.state if holder is not None else None)


def in_enemy_setup_area(turn: Turn, unit: Unit) -> tuple[bool, str]:
    """Whether ``unit`` (a SW or Gun where its possessor is) stands in a Setup Area the
    other side lists (Sicily 3.605; ``effects.in_enemy_area``), and where that comes
    from on the record, in words ("4-6-7 in Setup Area North, which the British list
    (3.605)"); (False, "") where it does not, or its line records no Setup Area."""
    holder = unit.possessor if unit.possessor_id else None
    where = " ".join((unit.location or (holder.location if holder else "")).split())
    theirs = enemy_setup_areas(turn.campaign, turn.module, turn.side, turn.seats)
    if not in_enemy_area(where, theirs):
        return False, ""
    other = turn.module.side(machine.opponent(turn.module, turn.side)).name
    rule = turn.module.setup_areas.rule if turn.module.setup_areas is not None else ""
    return True, f"{label(unit)} in Setup Area {where}, which the {other} list ({rule})"


def _condition(
    markers: Sequence[str], status: str | None, rolled_for: Sequence[str] = ()
) -> list[str]:
    """The markers a result marking a unit ``status`` leaves on it: the conditions the
    table was rolled for (``rolled_for``) give way to the result's, the unit's other
    markers stay (a repaired weapon is still Isolated; an Isolated AFV Recalled stays
    Isolated).  "ok" on a table rolled for no condition: in good order, no marker."""
    if status is None:
        return list(markers or ())
    if status == "ok" and not rolled_for:
        return []
    return ordered([*(m for m in markers or () if m not in rolled_for), status])


def apply_outcome(
    unit: Unit, outcome: UnitOutcome, rolled_for: Sequence[str] = (), heir: Unit | None = None
) -> str:
    """Write what a roll did to one of the units on ``unit``'s line (a line of several
    identical units gives one up); what happened, in words.  ``rolled_for``: the
    conditions the table is rolled for (its filter's statuses).  A line that leaves
    hands what it possesses over (``hand_over``) to ``heir``, or to the unit that
    replaces it where it was; to the unit its owner names where its replacement is
    placed elsewhere (APD 3.1 footnote *); else it is left unpossessed."""
    if not outcome.changes:
        return ""
    if outcome.unmarked is not None or outcome.renamed is not None:
        return unmark_or_rename(split_one(unit), outcome, unit.name)
    whole = unit.count == 1  # the line itself leaves, or only one of its units
    one = unit.name if whole else f"one {unit.name}"
    markers = _condition(unit.markers, outcome.status, rolled_for)
    if outcome.also is not None:  # a second marker (3.606 row 11: Replaced, then reduced)
        markers = ordered([*markers, outcome.also])
    if not whole:
        unit.count -= 1
        unit.save(update_fields=["count"])
        if not outcome.removed:
            _copy(unit, name=unit.name, kind=unit.kind, markers=markers)
    elif not outcome.removed:
        unit.markers = markers
        unit.save(update_fields=["markers"])
    added = []
    for name, kind in outcome.added:
        if outcome.at is None:
            # In its place, with what it carried besides the condition rolled for (a
            # wounded leader Replaced by an unwounded one, PHD C5.19).
            kept = [m for m in unit.markers or () if m not in rolled_for]
            if outcome.status is not None:  # then marked (3.606 row 11: wounded)
                kept = ordered([*kept, outcome.status])
            added.append(_copy(unit, name=name, kind=kind, markers=kept))
        else:  # elsewhere, unmarked: the owner places it
            added.append(
                Unit.objects.create(
                    campaign_id=unit.campaign_id,
                    side=unit.side,
                    name=name,
                    kind=kind,
                    purchase=unit.purchase,
                )
            )
    dropped = ""
    only = _only_mmc(unit, outcome.at) if outcome.removed and whole and added else None
    if only is not None:  # the nearest MMC, whatever the hexes: placed with it
        for new in added:
            new.location = only.location
            new.save(update_fields=["location"])
    if outcome.removed and whole and added and outcome.at is not None and only is None:
        # Placed by its owner with a friendly MMC he names (APD 3.1 footnote *): what
        # the unit possessed waits for that MMC (``placement_owed``).
        held = Unit.objects.filter(possessor_id=unit.pk) if unit.pk else Unit.objects.none()
        unit.to_place = {
            "placed": added[0].ref,
            "sw": list(held.values_list("ref", flat=True)),
            "leader": label(unit),
        }
    if outcome.removed and whole and added and outcome.at is not None:
        # What the replacement did, for a correction of the roll to undo (3.1 footnote *).
        unit.replaced_elsewhere = {
            "replaced_with": [new.ref for new in added],
            "possessed": list(
                Unit.objects.filter(possessor_id=unit.pk).values_list("ref", flat=True)
            )
            if unit.pk
            else [],
        }
    if outcome.removed and whole:
        in_place = added[0] if added and outcome.at is None else None
        if outcome.with_possessed:
            dropped = _eliminated_with(unit)
        else:
            dropped = hand_over(unit, heir or in_place or only, transferred=bool(added))
        unit.delete()
        if in_place is not None:  # read by what settles the unit after its roll (3.6061)
            unit.replaced_by = in_place
    dropped = f"; {dropped}" if dropped else ""
    if outcome.removed and outcome.added:
        names = " and ".join(name for name, _ in outcome.added)
        if only is not None:
            where = f" at {only.location}" if only.location else ""
            return (
                f"{one} is removed and replaced by a {names}, placed with {label(only)}{where}, "
                f"the only friendly MMC{dropped}"
            )
        then = f", now {Unit.Status(outcome.status).label}" if outcome.status else ""
        return (
            f"{one} is removed and replaced by a {names}{_placing(unit, outcome.at)}{then}{dropped}"
        )
    if outcome.removed and outcome.because:
        return f"{one} is Eliminated ({outcome.because}){dropped}"
    if outcome.removed:
        return f"{one} is removed from the retained forces{dropped}"
    also = f" and {marker_words(outcome.also, unit.kind)}" if outcome.also else ""
    return f"{one} {became_words(outcome.status or 'ok', unit.kind)}{also}"


def crew_escapes(
    turn: Turn,
    rule: str,
    vehicle: Unit,
    state: UnitState,
    *,
    must_escape: str = "",
    marker: str | None = None,
) -> str:
    """The Inherent crew of ``vehicle`` (Abandoned or Eliminated by a result citing
    ``rule``) escapes: a line of the crew counter the module gives it
    (``Module.inherent_crews``) joins its side's retained forces, in good order and
    of its RG, Retained away from the vehicle (Sicily 3.606 rows 9-10 "crew (if any)
    Escapes", 3.6061); a vehicle the module names no crew for: its owner is told to add
    it.  ``must_escape``: the crew leaves its vehicle still to attempt Escape at that
    step (3.6051 "its crew (if any) must attempt Escape per 3.606"), its line bearing
    ``marker`` (``escape_due``: its Escape DR there is owed; ``cs_due``: its CS DR,
    3.613 footnote †).  In words."""
    crew = inherent_crew(turn.module.inherent_crews, state)
    if crew is None:
        return (
            f"{state.name}'s crew counter is not on record: add its crew (if any) on your "
            f"retained forces ({rule})"
        )
    # A crew whose counter is not on record (an Italian vehicle's): a line named for
    # its vehicle, which its owner renames to the counter.
    name = crew.unit or f"crew of {state.name}"[: max_length(Unit, "name")]
    line = _copy(vehicle, name=name, kind=crew.kind, markers=[marker] if marker else [])
    line.location = ""
    line.save(update_fields=["location"])
    its = (
        f"its crew, as the line “{name}” (its crew counter is not on record: rename the "
        "line to it on your retained forces),"
        if crew.unit is None
        else f"its {crew.unit}"
    )
    if marker:
        at = f" at {must_escape}" if must_escape else ""
        # The marker's words less what they say of the vehicle ("must attempt Escape").
        owes = UNIT_STATUS_WORDS[marker].split(",")[0]
        return f"{its} leaves it as a line of its own, which {owes}{at} ({rule})"
    if must_escape:
        return (
            f"{its} leaves it as a line of its own, which must attempt Escape "
            f"at {must_escape} ({rule})"
        )
    return f"{its} escapes and is Retained as a line of its own ({rule})"


def _eliminated_with(unit: Unit) -> str:
    """What ``unit`` possesses leaves the retained forces with it (Sicily 3.606 ">= 12 All
    units and Equipment Eliminated"); in words ("": it possessed nothing)."""
    held = list(Unit.objects.filter(possessor_id=unit.pk)) if unit.pk else []
    if not held:
        return ""
    names = " and ".join(label(u) for u in held)
    Unit.objects.filter(pk__in=[u.pk for u in held]).delete()
    return f"{names} Eliminated with it"


def unmark_or_rename(unit: Unit, outcome: UnitOutcome, said: str) -> str:
    """An ``unmark`` or ``harden`` result written on ``unit``'s whole line: it loses one
    marker, its others kept (Sicily 3.6062 "All Encircled markers are now removed"), or
    its leader Battle Hardens into the next higher quality, keeping his markers (3.6113);
    what happened, in words after ``said`` (the unit's name)."""
    if outcome.unmarked is not None:
        unit.markers = [m for m in unit.markers or () if m != outcome.unmarked]
        unit.save(update_fields=["markers"])
        return f"{said} loses its {marker_words(outcome.unmarked, unit.kind)} marker"
    assert outcome.renamed is not None
    unit.name = outcome.renamed[: max_length(Unit, "name")]
    unit.save(update_fields=["name"])
    if outcome.replaced:
        return f"{said} is Replaced by its next lower quality counter (A19.13): now {unit.name}"
    return f"{said} Battle Hardens: now {unit.name}"


def _with_marker(unit: Unit, marker: str) -> None:
    """Mark ``unit`` ``marker`` besides what it carries (an Isolated AFV Recalled stays
    Isolated)."""
    unit.markers = ordered([*(unit.markers or ()), marker])


def apply_weapon_outcome(
    unit: Unit, weapon: WeaponState, outcome: WeaponOutcome, rolled_for: Sequence[str] = ()
) -> str:
    """Write what a roll made for ``weapon`` of ``unit`` did: the weapon leaves the
    unit's record or is marked (the condition it was rolled for gives way to the
    result's; its other markers stay), and its carrier may be marked (Sicily 3.6142
    footnote: Recalled); the unit itself always stays.  What happened, in words."""
    if not outcome.changes:
        return ""
    whose = f"{unit.name}'s {weapon.name}"
    said = []
    kept = []
    for w in unit.weapons or ():
        if w["ref"] != weapon.ref:
            kept.append(w)
        elif outcome.removed:
            said.append(f"{whose} is eliminated; the {unit.name} stays in the retained forces")
        elif outcome.status is not None:
            left = {m for m in w.get("markers") or () if m not in rolled_for}
            if outcome.status != "ok":
                left.add(outcome.status)
            kept.append({**w, "markers": ordered(left)})
            word = "repaired" if outcome.status == "ok" else Unit.Status(outcome.status).label
            said.append(f"{whose} is {word}")
        else:
            kept.append(w)
    unit.weapons = kept
    if outcome.carrier_status is not None:
        _with_marker(unit, outcome.carrier_status)
        said.append(f"the {unit.name} is {marker_words(outcome.carrier_status, unit.kind)}")
    unit.save(update_fields=["weapons", "markers"])
    return "; ".join(said)


def _public_mmc(unit: Unit) -> list[Unit]:
    """The side's MMC lines its opponent may see (none of a still-secret RG), not
    Captured."""
    mmc = Unit.objects.filter(
        campaign_id=unit.campaign_id, side=unit.side, kind__in=("squad", "half_squad")
    ).filter(
        Q(purchase__isnull=True)
        | Q(purchase__revealed_at__isnull=False, purchase__outcome_held=False)
    )
    return [u for u in mmc.order_by("pk") if not u.has("captured")]


def _only_mmc(unit: Unit, at: str | None) -> Unit | None:
    """The side's one MMC line, where a replacement goes to the friendly MMC nearest
    (APD 3.1 footnote *): with one, it is the nearest whatever the hexes, so the 7-0 is
    placed with it and the Evacuated leader's SW are Transferred to it.  Read from the
    lines the opponent may see (the log line is public); none or several: None (the
    owner places him)."""
    if at != "nearest_mmc":
        return None
    mmc = _public_mmc(unit)
    return mmc[0] if len(mmc) == 1 and mmc[0].count == 1 else None


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
            kind__in=("squad", "half_squad"),
        )
        .filter(
            Q(purchase__isnull=True)
            | Q(purchase__revealed_at__isnull=False, purchase__outcome_held=False)
        )
        .exclude(location="")
        .order_by("location")
    )
    places = list(dict.fromkeys(u.location for u in mmc if not u.has("captured")))
    where = f" (MMC at {', '.join(places)})" if places else ""
    return (
        f", to be placed with the friendly MMC nearest (in hexes) to {last}{where}, the "
        "owner choosing on a tie: enter his location in the retained forces"
    )


class Placement(NamedTuple):
    """A unit that replaced one of the side's in this pass, to be placed with a
    friendly MMC its owner names (APD 3.1 footnote *), and the SW the unit replaced
    possessed, which go to that MMC."""

    placed: Unit | None  # the replacement (None: its line has since left)
    sw: list[Unit]  # the SW it possessed still held
    leader: str  # the unit replaced, in words ("8-1 leader")
    result: str  # what the roll made of it ("Evacuated")
    rule: str  # "3.1 footnote *"


def placements_of_pass(campaign: Campaign, side: str) -> list[Placement]:
    """The replacements ``side``'s rolls of this pass left for it to place with a
    friendly MMC, read from those rolls' log lines."""
    rows = Event.objects.filter(
        campaign=campaign, side=side, kind=EventKind.ROLL, data__to_place__cycle=campaign.cycle
    ).order_by("id")
    records = [data["to_place"] for data in rows.values_list("data", flat=True)]
    if not records:
        return []
    refs = {r["placed"] for r in records} | {ref for r in records for ref in r.get("sw") or ()}
    lines = {
        u.ref: u
        for u in Unit.objects.filter(campaign=campaign, side=side, ref__in=refs)
        .select_related("possessor")
        .order_by("pk")
    }
    return [
        Placement(
            lines.get(record["placed"]),
            sorted(
                (lines[ref] for ref in record.get("sw") or () if ref in lines),
                key=lambda u: u.pk,
            ),
            record.get("leader", ""),
            record.get("result", ""),
            record.get("rule", ""),
        )
        for record in records
    ]


def placement_owed(turn: Turn) -> str:
    """Why the side cannot finish its step yet ("" : it can): a SW an Evacuated leader
    possessed still waits for the MMC his 7-0 is placed with (APD 3.1 footnote *: "Any
    SW Possessed by an Evacuated leader is considered Transferred to the MMC as
    well"); a side holding no MMC owes nothing (the rules say no more)."""
    return placement_owed_by(turn.module, turn.campaign, turn.side)


def placement_owed_by(module: Module, campaign: Campaign, side: str) -> str:
    """``placement_owed`` for ``side``, read by the step page too (no Done offered while
    it is owed: the page says why where Done would be)."""
    if not placed_by_owner(module):
        return ""
    for p in placements_of_pass(campaign, side):
        waiting = [sw for sw in p.sw if sw.possessor_id is None]
        if not waiting or not _public_mmc(waiting[0]):
            continue  # with no MMC, the rules say no more (the SW is the owner's)
        names = " and ".join(sw.name for sw in waiting)
        placed = p.placed.name if p.placed is not None else "his replacement"
        those = "them" if len(waiting) > 1 else "it"
        return (
            f"Not yet: {names}, possessed by the {p.leader} ({p.result}), "
            f"{'are' if len(waiting) > 1 else 'is'} Transferred to the MMC the {placed} is "
            f"placed with ({p.rule}): enter the {placed}'s location in your retained forces, "
            f"or name the MMC there that possesses {those}."
        )
    return ""


def placement_reminders(found: list[tuple[Placement, list[str]]]) -> list[str]:
    """Each replacement ``unplaced`` found, in words for the page before Done (APD 3.1
    footnote *): the owner is told where his MMC are and picks the 7-0's Location on the
    step page (or enters it on his retained forces), which ``_placed_with_mmc``
    checks."""
    return [
        f"Your {p.placed.name} replacing the {p.leader} ({p.result}) has no Location: "
        f"place him with your MMC nearest (in hexes) to the {p.leader}'s last Location, "
        f"your choice on a tie (yours are at {', '.join(places)}): pick it below, or enter "
        f"it on your retained forces ({p.rule})."
        for p, places in found
        if p.placed is not None
    ]


def unplaced(module: Module, campaign: Campaign, side: str) -> list[tuple[Placement, list[str]]]:
    """Each replacement of this pass still without a Location, with the Locations of
    its side's MMC he may be placed in (APD 3.1 footnote *: "in the same location as the
    friendly MMC nearest (in hexes) ... The owning player may choose which location in
    the event of a tie"): the hexes are the map's, so the owner picks one of them (the
    step page's select, ``update_unit`` checking it); none where no MMC Location is
    entered (the map's alone: the rules say no more)."""
    if not placed_by_owner(module):
        return []
    out = []
    for p in placements_of_pass(campaign, side):
        if p.placed is None or p.placed.location.strip():
            continue
        places = sorted({m.location for m in _public_mmc(p.placed) if m.location.strip()})
        if places:
            out.append((p, places))
    return out


def _same_place(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def _placed_with_mmc(turn: Turn, unit: Unit, was: str) -> str:
    """``unit``'s location entered: where ``unit`` is a replacement of this pass to be
    placed with a friendly MMC (APD 3.1 footnote *: "in the same location as the
    friendly MMC nearest"), refused where none of the side's MMC is (its MMC's
    locations known); with one MMC line there, the SW the unit it replaced possessed
    are Transferred to it.  What happened, in words for the log ("" : nothing)."""
    if not unit.location or _same_place(unit.location, was):
        return ""
    placing = [p for p in placements_of_pass(turn.campaign, turn.side) if p.placed == unit]
    if not placing:
        return ""
    mmc = _public_mmc(unit)
    places = sorted({m.location for m in mmc if m.location})
    there = [m for m in mmc if m.location and _same_place(m.location, unit.location)]
    rule = placing[0].rule
    if places and not there:
        raise ActionRefused(
            f"The {unit.name} is placed in the location of a friendly MMC ({rule}): none of "
            f"your MMC is at {unit.location} (they are at {', '.join(places)}). Nothing was "
            "changed."
        )
    # Those waiting, and those the MMC where the 7-0 was took: they go with him.
    waiting = [
        sw
        for p in placing
        for sw in p.sw
        if sw.possessor is None or (was and _same_place(sw.possessor.location, was))
    ]
    if not waiting:
        return ""
    names = " and ".join(sw.name for sw in waiting)
    if len(there) != 1:
        Unit.objects.filter(pk__in=[sw.pk for sw in waiting]).update(possessor=None)
        return f"; {names} await the MMC at {unit.location} you name as possessor ({rule})"
    Unit.objects.filter(pk__in=[sw.pk for sw in waiting]).update(possessor=there[0])
    return f"; {names} Transferred to {label(there[0])} at {unit.location} ({rule})"


def _sw_to_placed_mmc(turn: Turn, unit: Unit, named: bool) -> str:
    """A possessor ``named`` for a SW an Evacuated leader possessed in this pass: it
    goes to the MMC his 7-0 is placed with (APD 3.1 footnote *), so a unit that is not
    one of the side's MMC, or an MMC of another location than the 7-0's, is refused;
    a 7-0 not yet placed is placed with that MMC.  In words for the log ("" :
    nothing more)."""
    if not named or unit.possessor is None:
        return ""
    placing = [
        p for p in placements_of_pass(turn.campaign, turn.side) if unit.pk in {s.pk for s in p.sw}
    ]
    if not placing or not _public_mmc(unit):
        return ""
    p = placing[0]
    mmc = unit.possessor
    if mmc.kind not in ("squad", "half_squad") or mmc.has("captured"):
        raise ActionRefused(
            f"{unit.name}, possessed by the {p.leader} ({p.result}), is Transferred to the "
            f"MMC his replacement is placed with ({p.rule}): {label(mmc)} is not one of your "
            "MMC. Nothing was changed."
        )
    seven = p.placed
    if seven is None or not mmc.location:
        return ""
    if seven.location and not _same_place(seven.location, mmc.location):
        raise ActionRefused(
            f"{unit.name}, possessed by the {p.leader} ({p.result}), is Transferred to the "
            f"MMC the {seven.name} is placed with, at {seven.location} ({p.rule}): "
            f"{label(mmc)} is at {mmc.location}. Nothing was changed."
        )
    if seven.location:
        return ""
    seven.location = mmc.location
    seven.save(update_fields=["location"])
    return f"; the {seven.name} is placed with {label(mmc)} at {mmc.location} ({p.rule})"


def _copy(unit: Unit, *, name: str, kind: str, markers: Sequence[str]) -> Unit:
    """A new line beside ``unit``'s, where it is, of its RG, marked ``markers``; of a
    line whose former state is held, counted in that line for the opponent."""
    return Unit.objects.create(
        held={"within": held_ref(unit)} if unit.held else {},
        campaign_id=unit.campaign_id,
        side=unit.side,
        name=name,
        kind=kind,
        markers=list(markers),
        weapons=[dict(w) for w in unit.weapons or ()] if kind == unit.kind else [],
        location=unit.location,
        purchase=unit.purchase,
        possessor_id=unit.possessor_id if kind == unit.kind else None,
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


def remove_own_line(turn: Turn, purchase: Purchase, group: ReinforcementGroup) -> str:
    """Take out of the retained forces the line ``purchase``'s RG is on its own (made by
    ``units_from_purchase``: "Bombardment: Pregame Bombardment (B1)"); what left, in
    words ("" : nothing was held)."""
    lines = Unit.objects.filter(
        campaign=turn.campaign,
        side=turn.side,
        purchase=purchase,
        kind="other",
        name=f"{group.type}: {group.units} ({purchase.group_id})",
    )
    gone = [label(u) for u in lines]
    lines.delete()
    return ", ".join(gone)


def units_given_later(purchase: Purchase, outcome: GroupOutcome) -> None:
    """What an RG's roll made after it joined gives it (PHD C5.33's Leader Table DR,
    kept until the table was supplied): its leaders and units join the retained forces,
    named as the RG's others are."""
    gid = purchase.group_id
    lines = [(f"{u.name} ({gid})", u.kind, u.count) for u in outcome.units]
    lines += [(f"{name} ({gid})", "leader", 1) for name in outcome.leaders]
    _rg_lines(purchase, lines)


def _chart_lines(group: ReinforcementGroup, gid: str, n: int) -> list[tuple[str, str, int]]:
    """The retained forces' lines of an RG's chart row units, ``n`` of them."""
    kind = group.unit_kind
    assert kind is not None
    if group.unit_types:  # shared evenly among the printed types (4/3 each)
        each = n // len(group.unit_types)
        return [(f"{t} ({gid} {group.type})", kind, each) for t in group.unit_types]
    return [(f"{group.units} ({gid} {group.type})", kind, n)]


def units_replaced(
    module: Module, purchase: Purchase, group: ReinforcementGroup, outcome: GroupOutcome
) -> None:
    """A roll made after the RG joined whose units replace its chart row's (PHD RG
    footnote u's type dr, kept until the table was supplied), as they do when the roll
    is made in time (``units_from_purchase``): the chart's unit lines and what came with
    them leave, the units given and what comes with those join; its # counts them."""
    gid = purchase.group_id
    given = sum(u.count for u in outcome.units)
    old = purchase.units or 0
    gone = list(_chart_lines(group, gid, old)) if group.unit_kind is not None and old else []
    gone += [
        (brought_name(u, gid), k, n) for u, k, n in comes_with(module, purchase.side, group, old)
    ]
    for name, kind, _ in gone:
        Unit.objects.filter(purchase=purchase, name=name, kind=kind).delete()
    purchase.units = given
    purchase.save(update_fields=["units"])
    lines = [(f"{u.name} ({gid})", u.kind, u.count) for u in outcome.units]
    lines += [
        (brought_name(u, gid), k, n) for u, k, n in comes_with(module, purchase.side, group, given)
    ]
    made = _rg_lines(purchase, lines)
    # Its SW (RG footnote w's allotment, the chart's SW column) stay with the RG and pass
    # to the units the dr gave, as after an in-time dr: none is left without possessor
    # because the chart's MMC left (one its owner marked not possessed stays so).
    loose = Unit.objects.filter(purchase=purchase, possessor=None, kind__in=POSSESSED_KINDS)
    _possess(made, [u for u in loose if "unpossessed" not in u.markers])


def _rg_lines(purchase: Purchase, lines: Sequence[tuple[str, str, int]]) -> list[Unit]:
    """The retained forces' lines an RG gives: (name, kind, count) each."""
    return Unit.objects.bulk_create(
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
        lines += _chart_lines(group, gid, n)
    elif brings_own_line(module, group) and not (
        purchase.strength == "depleted" and depleted_lacking(module, purchase.side, group)
    ):
        lines.append((f"{group.type}: {group.units} ({gid})", "other", 1))
    lines += [
        (f"{weapon} ({gid})", "sw", k) for weapon, k in purchase.details.get("sw", {}).items() if k
    ]
    lines += [
        (brought_name(unit, gid), kind, k)
        for unit, kind, k in comes_with(module, purchase.side, group, n)
    ]
    lines += [(f"{name} ({gid})", "leader", 1) for name in outcome.leaders]
    made = _rg_lines(purchase, lines)
    _possess(made, made)


def _possess(made: Sequence[Unit], lines: Sequence[Unit]) -> None:
    """The RG's SW of ``lines`` come with its MMC, possessed by them (the first MMC line
    ``made``; the owner names another on the retained forces)."""
    mmc = next((u for u in made if u.kind in ("squad", "half_squad") and u.pk), None)
    sw = [u.pk for u in lines if u.kind in POSSESSED_KINDS and u.pk]
    if mmc is not None and sw:
        Unit.objects.filter(pk__in=sw).update(possessor=mmc)
