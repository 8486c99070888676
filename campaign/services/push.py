"""The live-push protocol, in one place: group names, message types and the send
after commit.  Transport only: it names no page and no part of one.

The turn's commit (``writes.commit``) calls ``changed``; nothing else sends a change.
After the transaction commits, one message naming the changes' kinds
(``campaign.changes``) goes to the campaign's group (or, for a change one side keeps
secret, to that side's group only); every consumer in it works out from the page
registry (``campaign.pages``) which parts of its page the changes touch, renders them
for its own seat through the visibility gate and sends only what differs from what
its page shows.
Pages are updated through their socket only — the acting page too —
so every page receives its fragments in the order of the campaign's changes, each
once; an htmx answer carries fragments only for a page whose socket is down.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from campaign.changes import Change

logger = logging.getLogger(__name__)

CAMPAIGN_CHANGED = "campaign.changed"  # {"changes": [kind, ...]}
SESSION_ENDED = "session.ended"  # {"session": session key}: close that session's sockets


def __getattr__(name: str) -> Any:
    """``Part``, ``EVERYTHING`` and ``STATE_PARTS`` moved to the page side
    (``campaign.fragments``); they are still found here, read lazily, for the two
    suites kept unchanged since before the move (tests/test_noninterference.py and
    tests/test_secrecy.py).  No module of the write side reads them: the import
    contract forbids ``campaign.fragments`` to ``campaign.services``."""
    if name in {"Part", "EVERYTHING", "STATE_PARTS"}:
        return getattr(importlib.import_module("campaign.fragments"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def campaign_group(campaign_id: object) -> str:
    return f"campaign-{campaign_id}"


def side_group(campaign_id: object, side: str) -> str:
    """The sockets of one side of a campaign (a campaign socket joins both groups)."""
    return f"campaign-{campaign_id}-{side}"


def user_group(user_id: object) -> str:
    return f"user-{user_id}"


def changed(
    campaign_id: UUID | str,
    changes: Iterable[Change],
    *,
    secret_of: str | None = None,
    saving: Iterable[object] = (),
) -> None:
    """Once the transaction commits, tell the sockets that may see ``changes`` (every
    socket of the campaign, or ``secret_of``'s side's only: ``Change.audience``) what
    changed: the changes' kinds, from which each socket's page works out which of its
    parts to render (``campaign.pages``).  Transport only: the seats' revisions and
    fields are the commit's (``writes.commit``, which calls this); ``saving`` is
    accepted empty only (the commit saves the seats)."""
    if tuple(saving):
        raise ValueError("the commit saves the seats (writes.commit), not the push")
    message = {"type": CAMPAIGN_CHANGED, "changes": sorted({c.kind for c in changes})}
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
