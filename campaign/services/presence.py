"""Presence: which seats have a campaign page open right now.

Each open campaign socket keeps a ``Presence`` row alive by beating: it writes
``expires_at = now + PRESENCE_TTL`` when it opens and every ``PRESENCE_HEARTBEAT``
seconds after, and deletes the row when it closes.  A seat is online while one of its
rows has not expired.  Nothing is counted, so nothing can be left wrong: a worker
killed mid-disconnect, a Redis outage or a restart of everything leaves rows that
stop beating and expire within the TTL; expired rows are swept as sockets open.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaign.models import Presence, Seat


def ttl() -> timedelta:
    return timedelta(seconds=settings.PRESENCE_TTL)


def beat(*, socket: str, seat_id: int) -> bool:
    """Keep ``socket`` alive for another TTL (creating its row if it is new, or lost
    with a database restored from before it opened).  True if the row was created.
    A renewing beat, every beat but a socket's first, is one UPDATE."""
    values = {"seat_id": seat_id, "expires_at": timezone.now() + ttl()}
    if Presence.objects.filter(socket=socket).update(**values):
        return False
    try:
        with transaction.atomic():
            Presence.objects.create(socket=socket, **values)
    except IntegrityError:
        # Made meanwhile by another beat of the same socket (a socket's beats do not
        # overlap in its consumer, so only a retried beat can): renew it.  Any other
        # integrity error (its seat deleted) is not ours to hide.
        if not Presence.objects.filter(socket=socket).update(**values):
            raise
        return False
    return True


def leave(*, socket: str, watched: bool = False) -> None:
    """The socket closes.  ``watched``: it was a campaign page's, live since it opened:
    what it showed was seen, so the player's next visit counts from now, when he left
    the page, not from when he loaded it ("Since your last visit" lists nothing he
    watched arrive)."""
    if watched:
        Seat.objects.filter(presences__socket=socket).update(visited_at=timezone.now())
    Presence.objects.filter(socket=socket).delete()


def sweep() -> int:
    """Forget sockets that stopped beating (their seats are already shown offline)."""
    deleted, _ = Presence.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted


def record_visit(*, seat_id: int, page: str = "") -> datetime | None:
    """The seat's player opens the campaign page (``page``: that page load's own id):
    when he did so before (None: never); from now on it is now (what the page's
    digest counts from).  The same page load asking again is told the same."""
    page = page[:40]
    with transaction.atomic():
        seat = (
            Seat.objects.select_for_update()
            .only("visited_at", "visit_page", "visit_since")
            .get(pk=seat_id)
        )
        if page and page == seat.visit_page:
            return seat.visit_since
        Seat.objects.filter(pk=seat_id).update(
            visited_at=timezone.now(), visit_page=page, visit_since=seat.visited_at
        )
        return seat.visited_at
