"""Talking: the two players' messages in their campaign ("see you Sunday", why a
result is disputed, how to read a rule).

A message is a public line of the campaign's log (``EventKind.MESSAGE``), so it is
read through the same gate as every line, carried by the backup and the export, and
never shown to anyone who is not a player of the campaign.  The opponent's page shows
it at once through its socket; an opponent who is away is sent a notice, by his
notification settings, like any public news.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from campaign.changes import MessageSent, MessagesSeen, OpponentNudged
from campaign.models import Event, EventKind, Presence, Seat
from campaign.selectors import sides_awaited
from campaign.services import notifications
from campaign.services.errors import ActionRefused
from campaign.services.events import recorded
from campaign.services.text import clean_text
from campaign.services.turns import User, take_turn
from campaign.services.writes import commit
from rules import machine

MESSAGE_LIMIT = 1000  # characters of one message (the form says so)
NUDGE_EVERY = timedelta(days=1)  # one reminder a day per campaign and player


@transaction.atomic
def send_message(*, campaign_id: object, user: User, text: object) -> Event:
    """The player says ``text`` to the opponent (plain text, at most
    ``MESSAGE_LIMIT`` characters; even after the CG has ended)."""
    turn = take_turn(campaign_id, user, None, after_end=True)  # a stranger: not found
    said = clean_text(text, what="Your message", limit=MESSAGE_LIMIT)
    if not said:
        raise ActionRefused("Your message is empty: write something to send.")
    event = turn.record(EventKind.MESSAGE, text=f"{turn.side_name()}: {said}", data={"said": said})
    away = [
        seat
        for side, seat in turn.seats.items()
        if side != turn.side and seat.user_id is not None and not online(seat)
    ]
    if away:
        notifications.queue_notices(turn, actor=turn.side, due={})
    else:
        recorded(turn.campaign).clear()  # the opponent's page is open: it shows it at once
    # One more the opponent has not seen, on every page of his (``Seat.messages_unread``).
    readers = [seat for side, seat in turn.seats.items() if side != turn.side]
    for seat in readers:
        seat.messages_unread += 1
    commit(turn.campaign.pk, MessageSent(), saving=[(s, "messages_unread") for s in readers])
    return event


@transaction.atomic
def mark_messages_seen(*, campaign_id: object, user: User) -> None:
    """The player has the messages in sight (his campaign page shows them): none is
    unread any more.  His seat's alone: the opponent hears nothing of it."""
    turn = take_turn(campaign_id, user, None, after_end=True)
    if not turn.seat.messages_unread:
        return
    turn.seat.messages_unread = 0
    commit(
        turn.campaign.pk,
        MessagesSeen(kept=turn.side),
        saving=[(turn.seat, "messages_unread")],
    )


def online(seat: Seat) -> bool:
    """Whether one of the seat's campaign pages is open now (``services.presence``)."""
    return Presence.objects.filter(seat=seat, expires_at__gt=timezone.now()).exists()


def nudge_refusal(turn_waits_for: list[str], side: str, last: datetime | None) -> str:
    """Why ``side`` may not remind its opponent now ("" : it may); ``last``: when it
    last did (``Seat.nudged_at``)."""
    if side in turn_waits_for:
        return "The campaign waits for you too: act first, then remind your opponent."
    if not turn_waits_for:
        return "The campaign waits for nobody now."
    if last is not None and timezone.now() - last < NUDGE_EVERY:
        return (
            f"You reminded your opponent on {last:%d %b at %H:%M} UTC: one reminder a day "
            "per campaign."
        )
    return ""


@transaction.atomic
def nudge_opponent(*, campaign_id: object, user: User, at: str | None = None) -> Event:
    """The player who waits reminds the awaited opponent (a notice by his settings);
    at most once a day per campaign."""
    turn = take_turn(campaign_id, user, at)
    waits_for = sides_awaited(turn.campaign, turn.module, turn.step, turn.done)
    opponent = machine.opponent(turn.module, turn.side)
    if turn.seats[opponent].user_id is None:
        raise ActionRefused("Nobody has taken the other side yet: send the invitation.", status=409)
    refusal = nudge_refusal(waits_for, turn.side, turn.seat.nudged_at)
    if refusal:
        raise ActionRefused(refusal, status=409)
    step = turn.step
    event = turn.record(
        EventKind.NUDGE,
        text=f"{turn.side_name()} reminds {turn.side_name(opponent)} that the campaign waits "
        f"for them at {step.id} {step.title}.",
    )
    notifications.queue_notices(turn, actor=turn.side, due={})
    turn.seat.nudged_at = event.created_at
    commit(turn.campaign.pk, OpponentNudged(), saving=[(turn.seat, "nudged_at")])
    return event
