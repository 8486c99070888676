"""The live-push protocol, in one place: group names, message types, the parts of a
page a change concerns, and the send after commit.

Services call ``changed``; nothing else sends.  After the transaction commits, one
message goes to the campaign's group (or, for a change one side keeps secret, to that
side's group only); every consumer in it renders the named parts for its own seat
through the visibility gate and sends only what differs from what its page shows.
Pages are updated through their socket only — the acting page too —
so every page receives its fragments in the order of the campaign's changes, each
once; an htmx answer carries fragments only for a page whose socket is down.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Any
from uuid import UUID, uuid4

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import Case, F, Field, Value, When

from campaign.models import Seat
from campaign.services import writes
from campaign.visibility import Before, Kept

logger = logging.getLogger(__name__)

CAMPAIGN_CHANGED = "campaign.changed"  # {"parts": [...]}
SESSION_ENDED = "session.ended"  # {"session": session key}: close that session's sockets


class Part(StrEnum):
    """A fragment of a page that a change may concern."""

    HEADER = "header"
    STEP = "step"
    SIDES = "sides"
    INVITATION = "invitation"
    RECORD = "record"
    SUPPLIES = "supplies"
    LOG = "log"
    MESSAGES = "messages"
    ROSTER = "roster"
    ROSTER_RECORD = "roster_record"
    FORCES = "forces"
    CHARTS = "charts"


EVERYTHING = frozenset(Part)
# What a change of the campaign's state may touch: every part but the players'
# messages, which change only when one is sent (``services.messages``).
STATE_PARTS = EVERYTHING - {Part.MESSAGES}


# The parts changed while serving one request (the action decorator answers with them).
_collector: contextvars.ContextVar[set[Part] | None] = contextvars.ContextVar(
    "refit_push_collector", default=None
)


@contextmanager
def collecting() -> Iterator[set[Part]]:
    """Collect the parts the services of one request say they changed."""
    parts: set[Part] = set()
    token = _collector.set(parts)
    try:
        yield parts
    finally:
        _collector.reset(token)


def campaign_group(campaign_id: object) -> str:
    return f"campaign-{campaign_id}"


def side_group(campaign_id: object, side: str) -> str:
    """The sockets of one side of a campaign (a campaign socket joins both groups)."""
    return f"campaign-{campaign_id}-{side}"


def user_group(user_id: object) -> str:
    return f"user-{user_id}"


# A locked seat and the name of a field the transaction set on it in memory (written
# by ``changed`` in the statement that gives the seat its new revision).
SeatField = tuple[Seat, str]


def changed(
    campaign_id: UUID | str,
    parts: Iterable[Part] = STATE_PARTS,
    *,
    secret_of: Kept | str | None = None,
    saving: Iterable[SeatField] = (),
) -> None:
    """The campaign changed: the seats that may see the change take a new revision in
    this transaction (whatever they read at the old one is not what they see now), and
    once the transaction commits their sockets are told which parts of their pages
    changed.  ``secret_of``: the change is that side's secret, and nothing any other
    seat may see changed (its unrevealed purchase, cancel, roll, fortification, recon
    or unit): only that side's seat and sockets hear of it, so the opponent's pages,
    their memoised views and the time they take to load stay as they were.  Services
    pass the ``Kept`` their kind of secret declares (``visibility.SECRETS``: the same
    value the log line is recorded with), so the audience and the public wording come
    from one declaration (a secret whose existence the opponent sees, ``Before.EXISTS``,
    is heard by every seat: his log shows its public line).  Called inside the
    service's transaction, which already holds every seat's row locked.

    ``saving``: fields the transaction set on its locked seats (points, waiting since,
    chits used...), written in the same statement as the new revisions; a seat whose
    stored state changes takes a new revision, so it must be one the change concerns."""
    if isinstance(secret_of, Kept):
        # A secret whose existence the opponent sees (its public log line) changes his
        # pages too; one he sees nothing of concerns its owner's seat only.
        secret_of = secret_of.side if secret_of.disclosure.before is Before.NOTHING else None
    seats = Seat.objects.filter(campaign_id=campaign_id)
    if secret_of is not None:
        seats = seats.filter(side=secret_of)
    values: dict[str, Any] = {"revision": uuid4()}
    written: dict[str, dict[int, Any]] = {}
    for seat, name in saving:
        if secret_of is not None and seat.side != secret_of:
            raise ValueError(f"the {seat.side} seat is written by a change secret to {secret_of}")
        written.setdefault(name, {})[seat.pk] = getattr(seat, name)
    for name, by_seat in written.items():
        if secret_of is not None:  # one seat: its value as it is
            values[name] = next(iter(by_seat.values()))
        else:
            field = Seat._meta.get_field(name)
            assert isinstance(field, Field)
            values[name] = Case(
                *(When(pk=pk, then=Value(v, output_field=field)) for pk, v in by_seat.items()),
                default=F(name),
            )
    writes.update(seats, **values)
    parts = set(parts)
    collected = _collector.get()
    if collected is not None:
        collected.update(parts)
    message = {"type": CAMPAIGN_CHANGED, "parts": sorted(parts)}
    group = campaign_group(campaign_id) if secret_of is None else side_group(campaign_id, secret_of)
    transaction.on_commit(lambda: send(group, message))


def session_ended(user_id: object, session_key: str) -> None:
    """A user's session ended (logout): its sockets close and receive nothing more."""
    send(user_group(user_id), {"type": SESSION_ENDED, "session": session_key})


def send(group: str, message: dict[str, Any]) -> None:
    """Send to a group, without waiting for it.  A lost push loses no state: pages
    show the truth on reload and sockets resync on reconnect, so a failed send is
    logged, never raised.

    Under an ASGI server (a view runs in a thread the server's event loop handed it)
    the message goes to that loop's outbox, and the request goes on at once: its
    answer does not wait for the channel layer's round trips, which on a busy machine
    were a view's longest wait.  With no serving loop (a command, a test's plain
    client) the send is made here, before returning."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        serving = _serving_loop()
        if serving is None:
            _send(group, message)
        else:
            serving.call_soon_threadsafe(_post, group, message)
    else:  # on the loop's own thread (async code)
        _post(group, message)


def _serving_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop that handed this thread its work, when a sync function runs
    under ``sync_to_async`` (as Django's ASGI handler runs a sync view): asgiref
    records it in its thread-local, where ``async_to_sync`` finds it too.  None
    outside such a thread, or if asgiref ever stops recording it (the send then
    waits, as ``async_to_sync`` would)."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return None if loop.is_closed() else loop


class _Outbox:
    """The pushes of one event loop, sent one at a time in the order they were made
    (a page's socket receives a campaign's changes in order).  Bounded: while the
    channel layer is away the oldest wait, past ``SIZE`` a push is dropped and a send
    that takes longer than ``TIMEOUT`` given up, each logged (sockets resync when they
    reconnect)."""

    SIZE = 10_000
    TIMEOUT = 5.0  # seconds a send may take: a layer that hangs holds up no more than this

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(self.SIZE)
        self.task = asyncio.get_running_loop().create_task(self._drain())

    def post(self, group: str, message: dict[str, Any]) -> None:
        try:
            self.queue.put_nowait((group, message))
        except asyncio.QueueFull:
            logger.warning("push to %s dropped: %d pushes wait to be sent", group, self.SIZE)

    async def _drain(self) -> None:
        task = asyncio.current_task()
        while True:
            group, message = await self.queue.get()
            try:
                # ``asyncio.timeout``, not ``wait_for``: on Python 3.11 a ``wait_for``
                # whose send has just finished swallows a cancel.
                async with asyncio.timeout(self.TIMEOUT):
                    await get_channel_layer().group_send(group, message)
            except Exception as exc:  # noqa: BLE001 - best effort, as ``_send``
                logger.warning("push to %s failed (%s: %s)", group, type(exc).__name__, exc)
            if task is not None and task.cancelling():
                # A cancel the channel layer's send swallowed (channels-redis can): a
                # loop shutting down cancels once and waits for this task to end.
                raise asyncio.CancelledError


# Each outbox's task holds its loop, so a weak key would never go: a plain dict.
_outboxes: dict[asyncio.AbstractEventLoop, _Outbox] = {}


def _post(group: str, message: dict[str, Any]) -> None:
    """On the loop's own thread: queue the push in the loop's outbox (made at the
    loop's first push; a server has one loop, a test run one per test, whose closed
    loops' outboxes are dropped here)."""
    loop = asyncio.get_running_loop()
    outbox = _outboxes.get(loop)
    if outbox is None or outbox.task.done():
        for closed in [other for other in _outboxes if other.is_closed()]:
            del _outboxes[closed]
        outbox = _outboxes[loop] = _Outbox()
    outbox.post(group, message)


def _send(group: str, message: dict[str, Any]) -> None:
    try:
        async_to_sync(get_channel_layer().group_send)(group, message)
    except Exception as exc:  # noqa: BLE001 - the push is best effort; the state is committed
        # One line, no traceback: an outage is expected, and sockets resync after it.
        logger.warning("push to %s failed (%s: %s)", group, type(exc).__name__, exc)
