"""Walking both players through the module's steps in rule order.

Each public function is one thing a player does.  It runs in one transaction with the
campaign row locked, refuses anything out of turn with a sentence, records what it did
in the log, and tells both seats to re-render once it commits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from campaign.models import (
    Campaign,
    Event,
    FortificationBuy,
    InitiativeChit,
    Purchase,
    ReconBuy,
    Roll,
    ScenarioResult,
    Seat,
    StepMark,
)
from rules import machine, replenish
from rules.drm import DrmRefused, RollContext, applicable_drms
from rules.registry import module_of
from rules.schema import CVP_LOST, SAN, VP, Module, Step
from rules.services import dice as dice_service
from rules.services.errors import ActionRefused, NotFound
from rules.services.log import changed, record_event

# Steps a side completes with "Done" (their table rolls, if any, come first).
FINISHABLE = {
    "checklist",
    "table",
    "san",
    "compute",
    "date",
    "setup",
    "commence",
    "purchase",
    "strength",
    "fortify",
    "recon",
}


@dataclass
class Turn:
    """A locked campaign, its rules, and the acting player's seat."""

    campaign: Campaign
    module: Module
    seat: Seat

    @property
    def side(self) -> str:
        return self.seat.side

    @property
    def step(self) -> Step:
        return self.module.steps[self.campaign.step_index]

    def side_name(self, side: str | None = None) -> str:
        return self.module.side(side or self.side).name


def position(campaign: Campaign) -> str:
    """The token a form carries: the pass and step it was made for."""
    return f"{campaign.cycle}.{campaign.step_index}"


def take_turn(campaign_id, user: AbstractBaseUser, at: str | None) -> Turn:
    """Lock the campaign for ``user``'s action; refuse strangers, an ended campaign and
    a form made for a step the campaign has left."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound()
    seat = campaign.seats.filter(user=user).first()
    if seat is None:
        raise NotFound()
    if campaign.ended_at is not None:
        raise ActionRefused("The campaign has ended; nothing more can be done.", status=409)
    if at is not None and at != position(campaign):
        raise ActionRefused(
            "The campaign has moved on since this page was loaded. It now shows the "
            "current step: look again and act there.",
            status=409,
        )
    return Turn(campaign, module_of(campaign), seat)


def done_sides(campaign: Campaign) -> set[str]:
    return set(
        StepMark.objects.filter(
            campaign=campaign, cycle=campaign.cycle, step_index=campaign.step_index
        ).values_list("side", flat=True)
    )


def expect_turn(turn: Turn, *kinds: str) -> None:
    """Refuse an action that is not this side's to take at the current step."""
    step = turn.step
    if kinds and step.kind not in kinds:
        raise ActionRefused(
            f"That is not part of the current step ({step.id} {step.title}).", status=409
        )
    done = done_sides(turn.campaign)
    if turn.side in done:
        raise ActionRefused(
            f"You have already done {step.id} {step.title}; waiting for "
            f"{_names(turn, machine.sides_to_act(turn.module, step, done))}.",
            status=409,
        )
    if turn.side not in machine.sides_to_act(turn.module, step, done):
        first = machine.sides_to_act(turn.module, step, done)
        raise ActionRefused(
            f"Not your turn: {_names(turn, first)} acts first at {step.id} {step.title}.",
            status=409,
        )


def _names(turn: Turn, sides: list[str]) -> str:
    return " and ".join(turn.side_name(s) for s in sides) or "nobody"


def mark_done(turn: Turn, data: Mapping[str, Any] | None = None) -> None:
    StepMark.objects.create(
        campaign=turn.campaign,
        cycle=turn.campaign.cycle,
        step_index=turn.campaign.step_index,
        side=turn.side,
        data=dict(data or {}),
    )


# --------------------------------------------------------------------------- actions


@transaction.atomic
def finish_step(*, campaign_id, user: AbstractBaseUser, at: str | None = None) -> None:
    """The player has done their part of the current step."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, *FINISHABLE)
    step = turn.step
    side_finishes(turn)
    mark_done(turn)
    record_event(
        turn.campaign,
        kind="step-done",
        side=turn.side,
        step_id=step.id,
        text=f"{turn.side_name()} finished {step.id} {step.title}.",
    )
    advance(turn)
    changed(turn.campaign)


@transaction.atomic
def roll_on_table(
    *,
    campaign_id,
    user: AbstractBaseUser,
    table_id: str,
    item: str = "",
    ticked: list[str] | tuple[str, ...] = (),
    typed: Mapping[str, int] | None = None,
    unit_id: int | str | None = None,
    at: str | None = None,
) -> Roll:
    """Roll on one of the current step's tables for one item, with the DRMs that
    apply by themselves plus those the player ticked or typed."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "table", "san")
    step = turn.step
    if table_id not in step.tables:
        raise ActionRefused(f"{step.id} {step.title} has no table '{table_id}'.")
    table = turn.module.table(table_id)
    if table.missing:
        raise ActionRefused(
            f"The rules text lacks the {table.title} ({table.rule}); the host must supply "
            "it in a module override before anyone can roll on it.",
            status=409,
        )
    try:
        drms = applicable_drms(table, roll_context(turn), ticked=ticked, typed=typed)
    except DrmRefused as exc:
        raise ActionRefused(str(exc)) from None
    from rules.services.units import apply_effect, unit_for_roll

    unit = unit_for_roll(turn, unit_id)
    item = unit.name if unit else item.strip()[:200]
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
        kind="roll",
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
    changed(turn.campaign)
    return r


@transaction.atomic
def enter_scenario_result(
    *, campaign_id, user: AbstractBaseUser, values: Mapping[str, Any], at: str | None = None
) -> ScenarioResult:
    """One player enters the finished scenario's outcome; the other confirms it."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "results")
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
        kind="result-entered",
        side=turn.side,
        step_id=turn.step.id,
        text=f"{turn.side_name()} entered the scenario result: "
        f"{describe_result(turn.module, data)}.",
    )
    changed(c)
    return result


@transaction.atomic
def confirm_scenario_result(*, campaign_id, user: AbstractBaseUser, at: str | None = None) -> None:
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "results")
    c = turn.campaign
    result = ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).first()
    if result is None:
        raise ActionRefused("No result has been entered yet: enter it first.", status=409)
    result.confirmed_at = timezone.now()
    result.save(update_fields=["confirmed_at"])
    mark_done(turn)
    record_event(
        c,
        kind="result-confirmed",
        side=turn.side,
        step_id=turn.step.id,
        text=f"{turn.side_name()} confirmed the scenario result.",
    )
    advance(turn)
    changed(c)


@transaction.atomic
def dispute_scenario_result(
    *, campaign_id, user: AbstractBaseUser, reason: str, at: str | None = None
) -> None:
    """Reject the entered result: it is withdrawn and either player enters it anew."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "results")
    c = turn.campaign
    result = ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).first()
    if result is None:
        raise ActionRefused("There is no entered result to dispute.", status=409)
    reason = reason.strip()[:500]
    if not reason:
        raise ActionRefused("Say what is wrong with the result, so it can be put right.")
    StepMark.objects.filter(campaign=c, cycle=c.cycle, step_index=c.step_index).delete()
    result.delete()
    record_event(
        c,
        kind="result-disputed",
        side=turn.side,
        step_id=turn.step.id,
        text=f"{turn.side_name()} disputed the scenario result: “{reason}”. "
        "It must be entered again.",
    )
    changed(c)


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
                data[f.id][side] = str(raw or "").strip()[:500]
            else:
                try:
                    number = int(str(raw).strip())
                except (TypeError, ValueError):
                    raise ActionRefused(f"{label}: enter a whole number.") from None
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


def confirmed_results(campaign: Campaign) -> list[ScenarioResult]:
    return list(
        ScenarioResult.objects.filter(campaign=campaign, confirmed_at__isnull=False).order_by(
            "cycle"
        )
    )


def campaign_inputs(campaign: Campaign, side: str) -> dict[str, int]:
    """The campaign quantities DRMs and mechanisms count (schema.CampaignInput)."""
    results = confirmed_results(campaign)

    def value(r: ScenarioResult, field: str) -> int:
        v = r.data.get(field, {}).get(side, 0)
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    seat = campaign.seats.get(side=side)
    return {
        "cvp_lost_prior_scenario": value(results[-1], CVP_LOST) if results else 0,
        "cvp_lost_cg": sum(value(r, CVP_LOST) for r in results),
        "vp_total": sum(value(r, VP) for r in results),
        "san": seat.san or 0,
    }


def roll_context(turn: Turn, side: str | None = None, **extra: Any) -> RollContext:
    side = side or turn.side
    c = turn.campaign
    date = turn.module.dates[c.date_index]
    last_chit = (
        InitiativeChit.objects.filter(campaign=c, side=side, revealed_at__isnull=False)
        .order_by("-cycle")
        .first()
    )
    return RollContext(
        side=side,
        nationalities=tuple(turn.module.side(side).nationalities),
        night=date.night,
        initial_scenario=date.initial,
        chose_attack_previous=bool(last_chit and last_chit.chit == "attack"),
        inputs=campaign_inputs(c, side),
        **extra,
    )


# --------------------------------------------------------------------------- the machine


def advance(turn: Turn) -> None:
    """Move on while the current step is finished: complete it, enter the next."""
    c, module = turn.campaign, turn.module
    while c.ended_at is None:
        step = module.steps[c.step_index]
        if machine.sides_to_act(module, step, done_sides(c)):
            break
        step_complete(turn)
        if step.kind == "results":
            scenario_over(turn)
            if c.ended_at is not None:
                break
            goto(turn, 1)
        elif c.step_index + 1 >= len(module.steps):
            c.cycle += 1
            c.in_play = True
            c.step_index = 0
            record_event(
                c,
                kind="scenario",
                step_id=step.id,
                text=f"The {module.dates[c.date_index].label} scenario is in play. Enter its "
                "result when it is over.",
            )
        else:
            goto(turn, c.step_index + 1)
    save_position(c)


def side_finishes(turn: Turn) -> None:
    """What finishing a step does for the finishing side."""
    from rules.services import purchases

    if turn.step.kind == "strength":
        purchases.roll_remaining(turn)
    elif turn.step.kind == "fortify":
        purchases.forfeit_fortification_points(turn)


def step_complete(turn: Turn) -> None:
    """What happens when every side has done the current step: purchases are revealed
    when the campaign's reveal policy says so."""
    from campaign.models import RevealPolicy
    from rules.services import purchases

    c, kind = turn.campaign, turn.step.kind
    policy = c.reveal_policy
    text = ""
    if kind in ("purchase", "strength") and policy == RevealPolicy.STEP_END:
        if purchases.reveal_purchases(c, date_index=c.date_index):
            text = f"Purchases of {turn.module.dates[c.date_index].label} are revealed."
    elif (
        kind == "results" and policy == RevealPolicy.SCENARIO_END and purchases.reveal_purchases(c)
    ):
        text = "Purchases are revealed: the scenario has ended."
    if text:
        record_event(c, kind="reveal", step_id=turn.step.id, text=text)


def goto(turn: Turn, index: int, *, new_pass: bool = False) -> None:
    c = turn.campaign
    if new_pass:
        c.cycle += 1
    c.step_index = index
    enter_step(turn)


def save_position(c: Campaign) -> None:
    Campaign.objects.filter(pk=c.pk).update(
        date_index=c.date_index,
        step_index=c.step_index,
        cycle=c.cycle,
        in_play=c.in_play,
        ended_at=c.ended_at,
        outcome=c.outcome,
    )


def enter_step(turn: Turn) -> None:
    """What the server does itself on arriving at a step."""
    c, module = turn.campaign, turn.module
    step = module.steps[c.step_index]
    if step.kind == "date":
        new_date(turn)
    elif step.effect == "replenish":
        for seat in c.seats.select_for_update():
            replenish_side(turn, seat)
    elif step.kind == "commence":
        from rules.services.initiative import decide_moves_first

        decide_moves_first(turn)


def new_date(turn: Turn) -> None:
    c, module = turn.campaign, turn.module
    last = machine.date_index(module, module.variant(c.variant).last_date)
    if c.date_index >= last:
        end_campaign(turn, f"The CG ends: {module.dates[c.date_index].label} was its last date.")
        return
    c.date_index += 1
    record_event(
        c,
        kind="date",
        step_id=module.steps[c.step_index].id,
        text=f"New CG date: {module.dates[c.date_index].label}.",
    )


def replenish_side(turn: Turn, seat: Seat) -> None:
    c, module = turn.campaign, turn.module

    def roll(kind: str, purpose: str, table=None, drms=()):
        return dice_service.roll(
            c,
            side=seat.side,
            kind=kind,
            purpose=purpose,
            table=table,
            drms=drms,
            step_id=module.steps[c.step_index].id,
            secret=True,
        )

    played = confirmed_results(c)
    outcome = replenish.replenish(
        module,
        side=seat.side,
        date_index=c.date_index,
        played_date_index=played[-1].date_index if played else None,
        points=seat.points,
        inputs={s.side: campaign_inputs(c, s.side) for s in c.seats.all()},
        context=roll_context(turn, seat.side),
        roll=roll,
    )
    seat.points = outcome.points
    seat.save(update_fields=["points"])
    name = module.side(seat.side).name
    record_event(
        c,
        kind="replenish",
        side=seat.side,
        step_id=module.steps[c.step_index].id,
        text=f"{name} {module.currency.code}: " + " · ".join(outcome.lines),
        secret_side=seat.side,
        public_text=f"{name} received its {module.currency.code} (secret).",
        data={"lines": outcome.lines, "start": outcome.start, "repl": outcome.gained},
    )


def scenario_over(turn: Turn) -> None:
    """Both agreed the result: record SANs, check the CG victory conditions, end the
    CG after its last date."""
    c, module = turn.campaign, turn.module
    c.in_play = False
    result = ScenarioResult.objects.get(campaign=c, cycle=c.cycle)
    for side, san in result.data.get(SAN, {}).items():
        Seat.objects.filter(campaign=c, side=side).update(san=san)
    winner = victory_check(turn)
    if winner:
        end_campaign(turn, winner)
        return
    last = machine.date_index(module, module.variant(c.variant).last_date)
    if c.date_index >= last:
        text = f"The CG ends after its last date, {module.dates[c.date_index].label}."
        if module.default_winner:
            text += (
                f" {module.side(module.default_winner).name} wins: no CG victory condition was met."
            )
        elif module.victory:
            text += f" Decide the winner by the CG victory conditions: {module.victory}"
        else:
            text += " The module has no CG victory conditions: decide the winner by the rules."
        end_campaign(turn, text)


def victory_check(turn: Turn) -> str | None:
    c, module = turn.campaign, turn.module
    results = confirmed_results(c)
    if not results:
        return None
    ops = {
        ">=": lambda a, b: a >= b,
        ">": lambda a, b: a > b,
        "<=": lambda a, b: a <= b,
        "<": lambda a, b: a < b,
        "==": lambda a, b: a == b,
    }
    for check in module.victory_checks:
        ok = True
        for term in check.all:
            values = [r.data.get(term.field, {}).get(term.side, 0) for r in results]
            amount = sum(int(v) for v in values) if term.total else values[-1]
            ok = ok and ops[term.op](amount, term.value)
        if ok:
            return f"{module.side(check.winner).name} wins the CG ({check.rule}): {check.text}"
    return None


def end_campaign(turn: Turn, outcome: str) -> None:
    """The CG is over: every secret is revealed and the dice seed disclosed."""
    c = turn.campaign
    now = timezone.now()
    c.ended_at = now
    c.outcome = outcome
    Event.objects.filter(campaign=c, revealed_at__isnull=True).exclude(secret_side="").update(
        revealed_at=now
    )
    Roll.objects.filter(campaign=c, secret=True, revealed_at__isnull=True).update(revealed_at=now)
    InitiativeChit.objects.filter(campaign=c, revealed_at__isnull=True).update(revealed_at=now)
    for model in (Purchase, FortificationBuy, ReconBuy):
        model.objects.filter(campaign=c, revealed_at__isnull=True).update(revealed_at=now)
    record_event(c, kind="end", text=f"{outcome} The dice seed is disclosed: {c.dice_seed}.")
    save_position(c)
