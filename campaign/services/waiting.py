"""Whom a campaign waits for, and since when: the "your move" transitions.

Every service that changes where a campaign is or who has done the current step ends
with ``writes.commit(..., saving=update_waiting(turn))``, in its own transaction.  It
computes the sides the campaign waits for now (``selectors.sides_awaited``), keeps
each seat's ``waiting_since`` (set when the campaign starts waiting for the seat,
cleared when it stops; written with the seat's new revision) and hands the changes to
``notifications.queue_notices``: a seat going from "not waited for" to "waited for" is
a *your move* transition, noticed exactly once because the stored state, not the push,
says what changed.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from campaign.models import Notification
from campaign.selectors import sides_awaited
from campaign.services import notifications
from campaign.services.turns import Turn
from campaign.services.writes import SeatField


def waiting_sides(turn: Turn) -> frozenset[str]:
    """The sides the campaign waits for now (none once it has ended)."""
    if turn.campaign.ended_at is not None:
        return frozenset()
    return frozenset(sides_awaited(turn.campaign, turn.module, turn.step, turn.done))


def update_waiting(turn: Turn, *, actor: str | None = None) -> list[SeatField]:
    """Set whom the campaign waits for after this transaction's changes on the locked
    seats and queue the notices they make due; returns the seats' changed fields, for
    the caller to write (``writes.commit``'s ``saving``: with the seats' new
    revisions).  ``actor`` (the acting side by default) is on the page: its own clock
    restarts when it is still waited for, and it is told nothing."""
    actor = turn.side if actor is None else actor
    now = timezone.now()
    waiting = waiting_sides(turn)
    before: dict[str, datetime | None] = {s: seat.waiting_since for s, seat in turn.seats.items()}
    writes: list[SeatField] = []
    for side, seat in turn.seats.items():
        if side not in waiting:
            since = None
        elif before[side] is None or side == actor:
            since = now
        else:
            since = before[side]
        if since != before[side]:
            seat.waiting_since = since
            writes.append((seat, "waiting_since"))
    actor_finished = actor in before and before[actor] is not None and actor not in waiting
    transitions: dict[str, Notification.Kind] = {}
    for side in turn.seats:
        if side == actor or side not in waiting:
            continue
        if before[side] is None:
            transitions[side] = Notification.Kind.YOUR_MOVE
        elif actor_finished:
            transitions[side] = Notification.Kind.ONLY_YOU
    notifications.queue_notices(turn, actor=actor, due=transitions)
    return writes
