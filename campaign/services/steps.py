"""Walking both players through the module's steps in rule order: finishing a step,
rolling on a step's tables, entering and confirming a scenario's result.

Each public function is one thing a player does.  It runs in one transaction with the
campaign row locked, refuses anything out of turn with a sentence, records what it did
in the log, and tells both seats what changed once it commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from campaign.models import EventKind, Roll, ScenarioResult, StepMark
from campaign.selectors import holdings
from campaign.services import dice as dice_service
from campaign.services import push
from campaign.services.errors import ActionRefused
from campaign.services.events import record_event
from campaign.services.flow import advance, side_done
from campaign.services.rolls import roll_context
from campaign.services.text import (
    DISPUTE_REASON_LIMIT,
    RESULT_TEXT_LIMIT,
    clean_text,
    max_length,
    whole_number,
)
from campaign.services.turns import Turn, User, expect_turn, mark_done, take_turn
from campaign.services.units import apply_effect, unit_for_roll
from campaign.services.waiting import update_waiting
from rules import availability
from rules.drm import DrmRefused, applicable_drms
from rules.kinds import Action
from rules.schema import Module

ROLL_PARTS = (push.Part.STEP, push.Part.LOG, push.Part.FORCES)


@transaction.atomic
def finish_step(
    *, campaign_id: object, user: User, at: str | None = None, through: str = ""
) -> None:
    """The player has done their part of the current step — or, with ``through``, of
    the current step and the following map steps up to the one numbered ``through``
    (they have nothing to do on the map and no roll to make there)."""
    turn = take_turn(campaign_id, user, at)
    held = holdings(turn.campaign, turn.side, purchases=True, recon=True) if through else None
    snap = turn.snapshot(held)
    expect_turn(turn, Action.FINISH, snap)
    step = turn.step
    ahead = []
    if through:
        run = availability.finish_ahead(turn.module, snap)
        ids = [s.id for s in run]
        if through not in ids[1:]:
            raise ActionRefused(
                f"{step.id} cannot be finished together with step {through[:20]}.", status=409
            )
        ahead = run[1 : ids.index(through) + 1]
    side_done(turn)
    mark_done(turn)
    for later in ahead:
        mark_done(turn, step_index=turn.module.steps.index(later))
    last = f" to {ahead[-1].id} {ahead[-1].title}" if ahead else ""
    record_event(
        turn.campaign,
        kind=EventKind.STEP_DONE,
        side=turn.side,
        step_id=step.id,
        text=f"{turn.side_name()} finished {step.id} {step.title}{last}.",
    )
    advance(turn)
    update_waiting(turn)
    push.changed(turn.campaign.pk)


@transaction.atomic
def roll_on_table(
    *,
    campaign_id: object,
    user: User,
    table_id: str,
    item: str = "",
    ticked: Sequence[str] = (),
    typed: Mapping[str, int] | None = None,
    unit_id: object = None,
    at: str | None = None,
) -> Roll:
    """Roll on one of the current step's tables for one item, with the DRMs that
    apply by themselves plus those the player ticked or typed."""
    turn = take_turn(campaign_id, user, at)
    item = clean_text(item, what="What the roll is for", limit=max_length(Roll, "item"))
    expect_turn(turn, Action.ROLL)
    step = turn.step
    if table_id not in step.tables:
        raise ActionRefused(f"{step.id} {step.title} has no table '{table_id[:64]}'.")
    table = turn.module.table(table_id)
    if table.missing:
        raise ActionRefused(
            f"The rules text lacks the {table.title} ({table.rule}); it must be supplied "
            "before anyone can roll on it.",
            status=409,
        )
    try:
        drms = applicable_drms(table, roll_context(turn), ticked=ticked, typed=typed)
    except DrmRefused as exc:
        raise ActionRefused(str(exc)) from None
    unit = unit_for_roll(turn, unit_id)
    item = unit.name if unit else item
    r = dice_service.roll(
        turn.campaign,
        side=turn.side,
        kind=table.dice,
        purpose=table.title,
        drms=drms,
        table=table,
        item=item,
        step_id=step.id,
        secret=table.secret,
    )
    consequence = apply_effect(unit, table.lookup(r.final).effect) if unit else ""
    what = f"{table.title}{f' for {item}' if item else ''}"
    record_event(
        turn.campaign,
        kind=EventKind.ROLL,
        side=turn.side,
        step_id=step.id,
        text=f"{turn.side_name()} rolled on the {what}: {dice_service.describe(r)}."
        + (f" {consequence}." if consequence else ""),
        secret_side=turn.side if table.secret else "",
        public_text=f"{turn.side_name()} made a secret roll ({table.title})."
        if table.secret
        else "",
        data={"roll": r.seq},
    )
    push.changed(turn.campaign.pk, ROLL_PARTS)
    return r


@transaction.atomic
def enter_scenario_result(
    *, campaign_id: object, user: User, values: Mapping[str, Any], at: str | None = None
) -> ScenarioResult:
    """One player enters the finished scenario's outcome; the other confirms it."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.RESULT)
    c = turn.campaign
    if ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).exists():
        raise ActionRefused(
            "The result is already entered: confirm it, or dispute it to enter it anew.",
            status=409,
        )
    data = clean_result(turn.module, values)
    result = ScenarioResult.objects.create(
        campaign=c, cycle=c.cycle, date_index=c.date_index, data=data, entered_by=turn.side
    )
    mark_done(turn)
    record_event(
        c,
        kind=EventKind.RESULT_ENTERED,
        side=turn.side,
        step_id=turn.step.id,
        text=f"{turn.side_name()} entered the scenario result: "
        f"{describe_result(turn.module, data)}.",
    )
    update_waiting(turn)
    push.changed(c.pk)
    return result


def _entered(turn: Turn, action: Action) -> ScenarioResult:
    expect_turn(turn, action)
    c = turn.campaign
    result = ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).first()
    if result is None:
        raise ActionRefused("No result has been entered yet: enter it first.", status=409)
    return result


@transaction.atomic
def confirm_scenario_result(*, campaign_id: object, user: User, at: str | None = None) -> None:
    turn = take_turn(campaign_id, user, at)
    result = _entered(turn, Action.CONFIRM)
    result.confirmed_at = timezone.now()
    result.save(update_fields=["confirmed_at"])
    mark_done(turn)
    record_event(
        turn.campaign,
        kind=EventKind.RESULT_CONFIRMED,
        side=turn.side,
        step_id=turn.step.id,
        text=f"{turn.side_name()} confirmed the scenario result.",
    )
    advance(turn)
    update_waiting(turn)
    push.changed(turn.campaign.pk)


@transaction.atomic
def dispute_scenario_result(
    *, campaign_id: object, user: User, reason: str, at: str | None = None
) -> None:
    """Reject the entered result: it is withdrawn and either player enters it anew."""
    turn = take_turn(campaign_id, user, at)
    reason = clean_text(reason, what="The reason", limit=DISPUTE_REASON_LIMIT)
    result = _entered(turn, Action.DISPUTE)
    if not reason:
        raise ActionRefused("Say what is wrong with the result, so it can be put right.")
    c = turn.campaign
    StepMark.objects.filter(campaign=c, cycle=c.cycle, step_index=c.step_index).delete()
    result.delete()
    record_event(
        c,
        kind=EventKind.RESULT_DISPUTED,
        side=turn.side,
        step_id=turn.step.id,
        text=f"{turn.side_name()} disputed the scenario result: “{reason}”. "
        "It must be entered again.",
    )
    turn.forget_done()
    update_waiting(turn)
    push.changed(c.pk)


# --------------------------------------------------------------------------- results


def clean_result(module: Module, values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Validate the entered outcome against the module's result fields."""
    data: dict[str, dict[str, Any]] = {}
    sides = [s.id for s in module.sides]
    for f in module.result_fields:
        owners = [f.side] if f.side else (sides if f.per_side else [sides[0]])
        data[f.id] = {}
        for side in owners:
            key = f"{f.id}.{side}"
            raw = values.get(key)
            label = f"{f.label} ({module.side(side).name})"
            if f.kind == "bool":
                data[f.id][side] = raw in (True, "on", "true", "1", "yes")
            elif f.kind == "text":
                data[f.id][side] = clean_text(raw or "", what=label, limit=RESULT_TEXT_LIMIT)
            else:
                number = whole_number(raw, what=label)
                if not 0 <= number <= 9999:
                    raise ActionRefused(f"{label}: must be between 0 and 9999.")
                data[f.id][side] = number
    return data


def describe_result(module: Module, data: Mapping[str, Mapping[str, Any]]) -> str:
    parts = []
    for f in module.result_fields:
        for side, value in data.get(f.id, {}).items():
            shown = ("yes" if value else "no") if f.kind == "bool" else value
            parts.append(f"{f.label} {module.side(side).name} {shown}")
    return "; ".join(parts) or "no figures"
