"""An amended scenario result after a step has read it: what was computed from it is
computed again and logged (issue 46, "amend with consent ... or later with its
consequences recomputed").

The steps that read the result on entering it (``machine.READS_RESULT``): each side's
replenishment (Sicily 3.616's loss points, APD 2.92's VP differential, PHD's TP DR and
its DRMs) and the scenario's winner (APD 2.9).  A replenishment is computed again with
the dice it rolled — dice stand: an amendment that would call for a roll not made, or
leave one made without purpose, is refused with a sentence (whether a roll is called
for follows from the public figures alone), as it is proposed (``amendment_refusal``),
so no proposal waits that its acceptance would refuse.  Each side's points change by the
difference, never below 0 (what this date's RGs cost beyond the points is kept owed,
for RGs cancelled to pay it); what changed is its own secret (the opponent reads that it
was recomputed, for every side whose points the step gave, whatever the figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass, replace
from typing import Any

from campaign.models import Event, EventKind, Roll, ScenarioResult, Seat
from campaign.services.errors import ActionRefused
from campaign.services.events import record_event
from campaign.services.flow import record_winner, replenishment
from campaign.services.rolls import Played, confirmed_results, played_so_far
from campaign.services.turns import Turn
from campaign.services.writes import SeatField
from campaign.visibility import POINTS_RECOMPUTED
from rules import machine, victory
from rules.drm import AppliedDrm
from rules.kinds import Hook
from rules.replenish import Outcome
from rules.schema import Table


@dataclass(frozen=True)
class _Replayed:
    """A recorded roll read again with the DRMs that apply now."""

    faces: Sequence[int]
    final: int


def hooks_run(turn: Turn) -> set[Hook]:
    """The operations that have read the result of this pass so far (the steps after
    the results step, up to and including the current one, ran them on entering)."""
    module, c = turn.module, turn.campaign
    start = machine.results_index(module)
    return {
        h
        for s in module.steps[start + 1 : c.step_index + 1]
        for h in machine.enter_hooks(s)
        if h in machine.READS_RESULT
    }


def recompute_consequences(turn: Turn, result: ScenarioResult) -> list[SeatField]:
    """The result's consequences computed again from its amended figures; returns the
    seats' changed fields (for ``writes.commit`` to save)."""
    ran = hooks_run(turn)
    writes: list[SeatField] = []
    if Hook.REPLENISH in ran:
        for seat in turn.seats.values():
            if _replenish_again(turn, seat, result):
                writes.append((seat, "points"))
    if Hook.RECORD_WINNER in ran:
        module = turn.module
        played = module.dates[result.date_index]
        results = [r.data for r in confirmed_results(turn.campaign)]
        win = victory.scenario_winner(module, results, played.vp_required)
        if win is not None and win.side != result.winner:
            record_winner(turn)
    return writes


def amendment_refusal(turn: Turn, result: ScenarioResult, data: dict[str, Any]) -> None:
    """Refuse, where the proposer clicked, figures whose acceptance the replenishment
    already made would refuse: a roll they would call for that was not made, or one made
    that they would not call for (Sicily 3.6162's loss-point dr across its bound).
    Nothing is written."""
    if Hook.REPLENISH not in hooks_run(turn):
        return
    amended = copy(result)
    amended.data = data
    played = played_so_far(turn)
    played = replace(played, results=[amended if r.pk == result.pk else r for r in played.results])
    for seat in turn.seats.values():
        _replayed(turn, seat, result, played)


def _replayed(
    turn: Turn, seat: Seat, result: ScenarioResult, played: Played | None = None
) -> tuple[Event, str, Outcome] | None:
    """``seat``'s replenishment of this pass computed again with the dice it rolled
    (``played``: the scenarios as amended, else as stored): the replenishment's log
    event, where it was made, and the new outcome; None when none was made.  Refused
    with a sentence when the figures call for a roll not made, or leave one made
    without purpose."""
    c, module = turn.campaign, turn.module
    assert result.confirmed_at is not None
    made = (
        Event.objects.filter(
            campaign=c,
            kind=EventKind.REPLENISH,
            side=seat.side,
            created_at__gte=result.confirmed_at,
        )
        .order_by("-id")
        .first()
    )
    if made is None:
        return None
    step = next((s for s in module.steps if s.id == made.step_id), None)
    where = f"{step.id} {step.title}" if step else made.step_id
    recorded = iter(
        Roll.objects.filter(
            campaign=c, side=seat.side, step_id=made.step_id, created_at__gte=result.confirmed_at
        ).order_by("seq")
    )
    name = module.side(seat.side).name

    def roll(
        kind: str, purpose: str, table: Table | None = None, drms: tuple[AppliedDrm, ...] = ()
    ) -> _Replayed:
        r = next(recorded, None)
        if r is None or r.dice != kind:
            raise ActionRefused(
                f"With these figures the {name} {purpose} would be rolled at {where}, and it "
                "was not: dice are not rolled again. Amend the other figures only.",
                status=409,
            )
        return _Replayed(tuple(r.faces), sum(r.faces) + sum(d.value for d in drms))

    outcome = replenishment(
        turn,
        seat.side,
        date_index=made.date_index,
        points=int(made.data.get("start", 0)),
        roll=roll,
        played=played,
    )
    left = next(recorded, None)
    if left is not None:
        raise ActionRefused(
            f"With these figures the {name} roll of {where} for {left.purpose} would not be "
            "called for: dice rolled stand. Amend the other figures only.",
            status=409,
        )
    return made, where, outcome


def _replenish_again(turn: Turn, seat: Seat, result: ScenarioResult) -> bool:
    """``seat``'s replenishment of this pass computed again; whether one was made."""
    replayed = _replayed(turn, seat, result)
    if replayed is None:
        return False
    made, where, outcome = replayed
    c, module = turn.campaign, turn.module
    name, code = module.side(seat.side).name, module.currency.code
    before_gain = int(made.data.get("repl", 0))
    before = seat.points
    # What an earlier amendment left short is still owed: the points on hand are net
    # of it.  Fewer points than this date's RGs already cost leave 0 on hand and the
    # rest owed (``short``): the purchase page and its Done ask for RGs cancelled for as
    # much (a purchase is only as many as the points allow: APD 3.4), their refunds
    # paying it first (``purchases.cancel_purchase``).
    net = seat.points - int(made.data.get("short", 0)) + outcome.gained - before_gain
    seat.points = max(0, net)
    made.data = {**made.data, "lines": outcome.lines, "repl": outcome.gained, "short": max(0, -net)}
    made.text = f"{name} {code}: " + " · ".join(outcome.lines) + " (recomputed)"
    made.save(update_fields=["data", "text"])
    short = (
        f"; only {before} were left" if seat.points == 0 and outcome.gained < before_gain else ""
    )
    if net < 0:
        short += f", {-net} {code} short of what this date's RGs cost"
    record_event(
        c,
        kind=EventKind.AMENDMENT,
        step_id=turn.step.id,
        secret=POINTS_RECOMPUTED.kept(seat.side, side=name, code=code, where=where),
        text=f"{name}'s {code} of {where} recomputed from the amended result: "
        f"{before_gain} → {outcome.gained} replenished{short}; {before} → {seat.points} "
        f"{code} on hand.",
    )
    return True
