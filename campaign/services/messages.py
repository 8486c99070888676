"""Talking: the two players' messages in their campaign ("see you Sunday", why a
result is disputed, how to read a rule).

A message is a public line of the campaign's log (``EventKind.MESSAGE``), so it is
read through the same gate as every line, carried by the backup and the export, and
never shown to anyone who is not a player of the campaign.  The opponent's page shows
it at once through its socket; an opponent who is away is sent a notice, by his
notification settings, like any public news.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from campaign.models import Event, EventKind, Presence, Seat
from campaign.services import notifications, push
from campaign.services.errors import ActionRefused
from campaign.services.events import recorded
from campaign.services.text import clean_text
from campaign.services.turns import User, take_turn

MESSAGE_LIMIT = 1000  # characters of one message (the form says so)


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
    push.changed(turn.campaign.pk, parts=(push.Part.MESSAGES, push.Part.LOG))
    return event


def online(seat: Seat) -> bool:
    """Whether one of the seat's campaign pages is open now (``services.presence``)."""
    return Presence.objects.filter(seat=seat, expires_at__gt=timezone.now()).exists()
