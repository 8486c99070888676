"""A roll's write-back to the retained forces corrected by consent (issue 46: "dice
already rolled ... are never taken back (a roll's *write-back* to the roster can be
corrected by consent)").

A roll made for one of a side's units writes its result to that unit (marked,
removed, replaced by a promoted leader...), and the unit keeps what the roll left
until the step ends (``units._refuse_if_rolled``).  When that write-back is wrong (the
wrong unit chosen, a result misread into the module), the side proposes the unit's
line as it should be — or that it should be gone — with its reason; the opponent
accepts (the line is written, the dice stand) or refuses, saying why; the proposer
may withdraw.  Every step of it is logged for both.

Only a roll the opponent may see is corrected: a secret roll (a still-secret RG's
unit, a secret table) is the side's own until its reveal, and a proposal about it
would tell the opponent it was made.  A proposal names the position it was made at
and lapses when the campaign moves on, as a takeback request does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from campaign.changes import CorrectionAnswered, CorrectionProposed
from campaign.models import Campaign, Event, EventKind, Purchase, Roll, RollCorrection, Unit
from campaign.services import losses
from campaign.services.errors import ActionRefused
from campaign.services.text import given_reason
from campaign.services.turns import Turn, User, take_turn
from campaign.services.units import (
    _clean,
    _kind_and_count,
    _markers,
    _not_the_weapons,
    hand_over,
    is_secret,
    ordered,
    state_words,
)
from campaign.services.writes import SeatField, commit
from rules import machine
from rules.effects import WEAPON_CARRIERS
from rules.schema import Table


def open_corrections(turn: Turn) -> list[RollCorrection]:
    """The proposals open at the current step of the current pass (older ones lapsed)."""
    c = turn.campaign
    return list(
        RollCorrection.objects.select_related("roll").filter(
            campaign=c,
            cycle=c.cycle,
            step_index=c.step_index,
            status=RollCorrection.Status.PROPOSED,
        )
    )


def line_of(unit: Unit | None) -> dict[str, Any] | None:
    """A unit's line as a correction records it (None: the unit is gone)."""
    if unit is None:
        return None
    return {"name": unit.name, "kind": unit.kind, "markers": list(unit.markers or ())}


def recorded_line(line: dict[str, Any]) -> dict[str, Any]:
    """A line as a correction recorded it, its state its markers (one recorded before
    issue 45 gave a ``status`` besides them: it is one of its markers)."""
    status = line.get("status", "ok")
    return {
        "name": line["name"],
        "kind": line["kind"],
        "markers": ordered([status, *(line.get("markers") or ())]),
    }


def describe_line(line: dict[str, Any] | None) -> str:
    """A recorded line in the player's words ("8-1 leader, in good order")."""
    if line is None:
        return "gone from the retained forces"
    line = recorded_line(line)
    kind = line["kind"]
    return f"{line['name']} ({Unit.Kind(kind).label}), {state_words(line['markers'], kind)}"


def _roll_for(turn: Turn, unit_ref: str) -> Roll:
    """The side's last roll at this step for its unit ``unit_ref``, which the opponent
    may see."""
    c = turn.campaign
    rolls = Roll.objects.filter(
        campaign=c, cycle=c.cycle, step_id=turn.step.id, side=turn.side, unit_ref=unit_ref
    ).order_by("-seq")
    roll = rolls.first() if unit_ref else None
    if roll is None:
        raise ActionRefused(
            "You have made no roll for that unit at this step: only what a roll wrote "
            "to a unit here is corrected by consent.",
            status=404,
        )
    other = machine.opponent(turn.module, turn.side)
    if not Roll.objects.visible_to(other).filter(pk=roll.pk).exists():
        raise ActionRefused(
            "That roll is still your secret: your opponent cannot consent to correcting "
            "a roll he may not see. It can be corrected once it is revealed.",
            status=409,
        )
    return roll


def _reason(reason: object, what: str) -> str:
    return given_reason(
        reason, what=what, missing=f"{what}: say why, so your opponent can judge it."
    )


@transaction.atomic
def propose_roll_correction(
    *,
    campaign_id: object,
    user: User,
    unit_id: object,
    reason: object,
    name: str = "",
    kind: str = "other",
    markers: Sequence[str] | None = None,
    gone: bool = False,
    at: str | None = None,
) -> RollCorrection:
    """The side proposes what its unit's line should be after the roll made for it at
    this step (``gone``: that the unit should have left the retained forces); the dice
    stand.  The opponent is to accept or refuse."""
    turn = take_turn(campaign_id, user, at)
    unit_ref = unit_id if isinstance(unit_id, str) else ""
    if "." in unit_ref:
        raise ActionRefused(
            "A roll made for a vehicle's weapon is corrected on the vehicle's record once "
            "the step has ended; here only a unit's own line is corrected by consent.",
            status=409,
        )
    roll = _roll_for(turn, unit_ref)
    said = _reason(reason, "Your reason")
    c = turn.campaign
    unit = Unit.objects.filter(campaign=c, side=turn.side, ref=unit_ref).first()
    line: dict[str, Any] | None = None
    if not gone:
        name, _ = _clean(name, "")
        kind, _ = _kind_and_count(kind, 1)
        marks = _markers(markers)
        _not_the_weapons(turn, kind, marks)
        line = {"name": name, "kind": kind, "markers": marks}
    if unit is not None and unit.weapons and line and line["kind"] not in WEAPON_CARRIERS:
        raise ActionRefused(
            f"{unit.label} carries weapons on its record: only a vehicle does. Keep it a "
            "vehicle here; nothing was proposed."
        )
    was = line_of(unit)
    if line == was:
        raise ActionRefused(
            "That is the unit's line as it stands: change what the roll wrote wrongly.",
        )
    if RollCorrection.objects.filter(
        campaign=c, roll=roll, status=RollCorrection.Status.PROPOSED
    ).exists():
        raise ActionRefused(
            "You have proposed a correction of this roll already: withdraw it first, or "
            "wait for your opponent's answer.",
            status=409,
        )
    correction = RollCorrection.objects.create(
        campaign=c,
        side=turn.side,
        roll=roll,
        cycle=c.cycle,
        step_index=c.step_index,
        was=was,
        line=line,
        reason=said,
    )
    other = machine.opponent(turn.module, turn.side)
    turn.record(
        EventKind.TAKEBACK,
        text=f"{turn.side_name()} proposes to correct what its {_what(roll)} wrote to its "
        f"retained forces: {describe_line(was)} → {describe_line(line)} (“{said}”); "
        f"{turn.side_name(other)} is to accept or refuse. The dice stand.",
        data={"correction": correction.ref},
    )
    commit(c.pk, CorrectionProposed())
    return correction


def _what(roll: Roll) -> str:
    return f"{roll.purpose} roll" + (f" for {roll.item}" if roll.item else "")


def _open(turn: Turn, ref: object) -> RollCorrection:
    found = next((p for p in open_corrections(turn) if p.ref == str(ref)[:16]), None)
    if found is None:
        raise ActionRefused("There is no such open correction.", status=404)
    return found


@transaction.atomic
def answer_roll_correction(
    *,
    campaign_id: object,
    user: User,
    ref: object,
    decision: str,
    reason: object = "",
    at: str | None = None,
) -> None:
    """The opponent accepts the correction (the unit's line is written as proposed, the
    dice stand) or refuses it, saying why; its proposer may withdraw it."""
    if decision not in ("accept", "refuse", "withdraw"):
        raise ActionRefused("Accept, refuse or withdraw the correction.")
    turn = take_turn(campaign_id, user, at)
    correction = _open(turn, ref)
    mine = correction.side == turn.side
    if mine != (decision == "withdraw"):
        raise ActionRefused(
            "Your opponent answers the correction you proposed; you may withdraw it."
            if mine
            else "Only its proposer withdraws a correction: accept or refuse it.",
            status=409,
        )
    roll, c = correction.roll, turn.campaign
    proposer = turn.side_name(correction.side)
    correction.decided_at = timezone.now()
    writes: list[SeatField] = []
    if decision == "accept":
        correction.status = RollCorrection.Status.ACCEPTED
        before, loss, writes, undone = _write(turn, correction)
        text = (
            f"{turn.side_name()} accepts {proposer}'s correction of what its {_what(roll)} "
            f"wrote: {describe_line(before)} → {describe_line(correction.line)}. The dice stand."
            + (f" With it, {undone}." if undone else "")
            + (f" Its CVP for the {loss}." if loss else "")
        )
    elif decision == "refuse":
        correction.status = RollCorrection.Status.REFUSED
        correction.answer = _reason(reason, "Why you refuse it")
        text = (
            f"{turn.side_name()} refuses {proposer}'s correction of its {_what(roll)}: "
            f"“{correction.answer}”. The unit stays as the roll left it."
        )
    else:
        correction.status = RollCorrection.Status.WITHDRAWN
        text = f"{proposer} withdraws its proposed correction of its {_what(roll)}."
    correction.save(update_fields=["status", "answer", "decided_at"])
    turn.record(EventKind.TAKEBACK, text=text, data={"correction": correction.ref})
    commit(c.pk, CorrectionAnswered(), saving=writes)


def _write(
    turn: Turn, correction: RollCorrection
) -> tuple[dict[str, Any] | None, str, list[SeatField], str]:
    """The proposed line written over the unit's; returns the line it replaced, and in
    words how the side's CVP lost moved.  The roll's elimination taken back puts the
    unit back where the roll found it (its Location, count and RG, kept with the roll)
    and takes off the CVP the roll added to the result (PHD C5.1: only a loss counts),
    and undoes the replacement its result put elsewhere (``_undo_replacement``);
    a unit the correction removes from a table whose eliminations count as losses adds
    its CVP, as the roll would have."""
    c, roll, ref = turn.campaign, correction.roll, correction.roll.unit_ref
    undone = ""
    unit = (
        Unit.objects.select_for_update().filter(campaign=c, side=correction.side, ref=ref).first()
    )
    before = line_of(unit)
    line = None if correction.line is None else recorded_line(correction.line)
    table = next((t for t in turn.module.tables if t.id == roll.table_id), None)
    rule = table.losses_count if table is not None else None
    cvp = 0
    if line is None:
        if unit is not None:
            if rule:
                cvp = losses.carried_cvp(turn, rule, unit, is_secret(unit))
            unit.delete()
    elif unit is None:
        gone = _gone_at_roll(c, roll).get(ref) or {}
        purchase = gone.get("purchase")
        back = Unit.objects.create(
            campaign=c,
            side=correction.side,
            ref=ref,
            location=str(gone.get("location") or ""),
            count=int(gone.get("count") or 1),
            weapons=list(gone.get("weapons") or ()),
            purchase_id=purchase
            if purchase and Purchase.objects.filter(pk=purchase, campaign=c).exists()
            else None,
            **line,
        )
        cvp = -int(gone.get("cvp") or 0)
        undone = _undo_replacement(turn, back, gone, _cite(table, roll))
    else:
        for field, value in line.items():
            setattr(unit, field, value)
        unit.save(update_fields=list(line))
    if not cvp or not rule:
        return before, "", [], undone
    words, writes = losses.shift_loss(turn, correction.side, cvp, rule)
    return before, words, writes, undone


def _undo_replacement(turn: Turn, back: Unit, gone: dict[str, Any], rule: str) -> str:
    """What the roll's result did besides removing the unit, undone now that it is back
    (APD 3.1 footnote *: "An Evacuated leader is ... immediately replaced with a 7-0
    leader ... Any SW Possessed by an Evacuated leader is considered Transferred to the
    MMC as well"): the replacement leaves the retained forces, and the SW it possessed
    that its side still holds are its own again.  In words for the log ("" : nothing)."""
    mine = Unit.objects.filter(campaign=turn.campaign, side=back.side)
    words = []
    replacements = list(mine.filter(ref__in=gone.get("replaced_with") or ()))
    for unit in replacements:
        hand_over(unit, back)
        unit.delete()
    if replacements:
        names = " and ".join(f"the {u.name}" for u in replacements)
        words.append(f"{names} that replaced him leaves")
    sw = list(mine.filter(ref__in=gone.get("possessed") or ()))
    if sw:
        mine.filter(pk__in=[u.pk for u in sw]).update(possessor=back)
        names = " and ".join(u.name for u in sw)
        words.append(f"{names} {'are' if len(sw) > 1 else 'is'} the {back.name}'s again")
    if not words:
        return ""
    return "; ".join(words) + (f" ({rule})" if rule else "")


def _cite(table: Table | None, roll: Roll) -> str:
    """The rule a roll's result cites: its table's, with the footnote its result
    bears ("3.1 footnote *")."""
    if table is None:
        return ""
    marks = [k for k in table.footnotes or {} if roll.result.endswith(k)]
    return f"{table.rule} footnote {marks[0]}" if marks else table.rule


def _gone_at_roll(campaign: Campaign, roll: Roll) -> dict[str, dict[str, Any]]:
    """The units ``roll`` eliminated, as its log line kept them (``roll_on_table``)."""
    data = (
        Event.objects.filter(campaign=campaign, kind=EventKind.ROLL, data__roll=roll.seq)
        .values_list("data", flat=True)
        .first()
    )
    return dict((data or {}).get("gone") or {})
