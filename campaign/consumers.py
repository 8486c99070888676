"""Websocket consumers.  Every socket is a signed-in user's; anonymous sockets are
refused before the handshake completes (close code 4401), and a campaign socket only
opens for a member of that campaign (4404).  Sockets only push: actions go over HTTP.

The push protocol (group names, message types) is ``campaign.services.push``; which
parts of its page a change touches, the page registry's (``campaign.live_pages``).

Consumers weather outages instead of raising them: a Redis (channel layer) or
database failure is logged as one warning line, never a traceback; a socket whose
database is down is refused at the handshake (the browser retries), one whose Redis
is down is accepted and joins its groups when Redis is back.  A campaign socket beats
(``campaign.services.presence``): every heartbeat it renews its presence, re-joins its
groups (a restarted Redis forgets them), re-renders the sides (an opponent's presence
may have expired) and, after an outage that may have cost it pushes, resyncs its
page.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any
from urllib.parse import parse_qs

from autobahn.exception import Disconnected as DaphneDisconnected
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import Error as DatabaseError
from django.http import Http404
from django.template.loader import render_to_string
from redis.exceptions import RedisError

from campaign.changes import KINDS, Change, PresenceChanged
from campaign.fragments import Part, kept_rows, shown, unchanged
from campaign.live_pages import CAMPAIGN, LivePage, page_named
from campaign.origin import page_origin
from campaign.seat_views.common import member_seat
from campaign.services import presence, push

logger = logging.getLogger(__name__)

ANONYMOUS_CLOSE_CODE = 4401
NOT_MEMBER_CLOSE_CODE = 4404
SIGNED_OUT_CLOSE_CODE = 4403

# What a server behind a socket may do: be unreachable, time out, or fail.
OUTAGE = (OSError, asyncio.TimeoutError, RedisError, DatabaseError)
# What a player reads first on the campaign page: the header (the initiative result,
# whom the campaign waits for), the step and the sides.  A change's push sends them in
# a frame of their own before the other parts, so a reveal or a move shows without
# waiting for the purchase records and the log to render.
FIRST_PARTS = frozenset({Part.HEADER, Part.STEP, Part.SIDES})


def batches(parts: set[Any]) -> list[set[Any]]:
    """The frames a change's ``parts`` are rendered and sent in, in order (changes,
    rather than parts, go in one frame: ``LivePage.touched`` reads them)."""
    return [batch for batch in (parts & FIRST_PARTS, parts - FIRST_PARTS) if batch]


# What the ASGI server raises on a send to a socket that is closing or closed: the
# ASGI spec asks for an OSError (uvicorn's ClientDisconnected); daphne raises
# autobahn's Disconnected while the close handshake runs, before the consumer
# receives websocket.disconnect.
CLOSED = (OSError, DaphneDisconnected)


def in_pool(fn: Any) -> Any:
    """``fn`` run in a thread of the worker's pool, not in its one thread for sync code
    (where Django runs every view): a socket's render or beat does not queue behind
    the others' and the requests', and their database waits overlap.  Each socket
    still renders one change at a time, in order (``CampaignConsumer._rendering``)."""
    return database_sync_to_async(fn, thread_sensitive=False)


class ResilientConsumer(AsyncWebsocketConsumer):
    """A consumer whose channel layer may go away and come back.

    Receiving from the layer retries with backoff instead of raising (Channels would
    end the socket with a traceback); joining and leaving groups never raise.
    ``layer_lost`` says pushes may have been missed since the layer last answered."""

    live_groups: tuple[str, ...] = ()
    layer_lost = False
    # Set once the socket closes (either end): nothing is sent to it any more.
    closing = False

    @property
    def channel_receive(self) -> Any:
        return self._receive_resiliently

    @channel_receive.setter
    def channel_receive(self, receive: Any) -> None:
        self._layer_receive = receive

    async def _receive_resiliently(self) -> dict[str, Any]:
        delay = 0.5
        while True:
            try:
                return await self._layer_receive()
            except OUTAGE as exc:
                self.layer_down(exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    def layer_down(self, exc: BaseException) -> None:
        if not self.layer_lost:
            logger.warning("channel layer unavailable (%s: %s); retrying", type(exc).__name__, exc)
        self.layer_lost = True

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send a frame unless the socket is closing.  A push that races the browser's
        own close (the page navigates away while a change is rendered) is dropped, not
        raised: the page it was for is gone."""
        if self.closing:
            return
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except CLOSED:
            self.closing = True

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        self.closing = True
        with contextlib.suppress(*CLOSED):  # closed already, from the other end
            await super().close(code=code, reason=reason)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.closing = True
        await super().websocket_disconnect(message)

    async def join_groups(self) -> bool:
        """Join (again) every group of this socket; False if the layer is down."""
        try:
            for group in self.live_groups:
                await self.channel_layer.group_add(group, self.channel_name)
        except OUTAGE as exc:
            self.layer_down(exc)
            return False
        return True

    async def leave_groups(self) -> None:
        try:
            for group in self.live_groups:
                await self.channel_layer.group_discard(group, self.channel_name)
        except OUTAGE as exc:
            # Redis forgets the membership by itself (channels-redis group expiry).
            logger.warning("could not leave groups (%s: %s)", type(exc).__name__, exc)


class LiveConsumer(ResilientConsumer):
    """The signed-in user's live channel (every page): shows that pushes arrive."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=ANONYMOUS_CLOSE_CODE)
            return
        self.live_groups = (push.user_group(user.pk),)
        await self.accept()
        await self.join_groups()
        await self.send(text_data=render_to_string("campaign/_live_status.html", {"live": True}))
        self._rejoining = asyncio.create_task(self._rejoin())

    async def _rejoin(self) -> None:
        """Re-join the group every heartbeat: a restarted Redis forgets it, and a
        logout elsewhere must still reach this socket."""
        while True:
            await asyncio.sleep(settings.PRESENCE_HEARTBEAT)
            await self.join_groups()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "_rejoining"):
            self._rejoining.cancel()
        await self.leave_groups()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return

    async def session_ended(self, event: dict[str, Any]) -> None:
        await close_if_session_ended(self, event)


async def close_if_session_ended(consumer: AsyncWebsocketConsumer, event: dict[str, Any]) -> None:
    """A logout ends a session: the sockets opened with it close and get nothing more."""
    session = consumer.scope.get("session")
    if session is not None and session.session_key == event.get("session"):
        await consumer.close(code=SIGNED_OUT_CLOSE_CODE)


class CampaignConsumer(ResilientConsumer):
    """One player's live view of one campaign page (the campaign page or the roster).
    On every change each consumer renders the changed parts for its own seat through
    the visibility gate, so a frame never carries what the seat may not see, and sends
    only the fragments that differ from what its page shows."""

    seat_id: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # What this socket's page shows of each part: unchanged parts are not sent again,
        # so a push about presence does not wipe a form being filled in.
        self.sent: dict[Part, str] = {}
        self.socket = uuid.uuid4().hex  # this socket's presence row
        self.stale = False  # a render failed: resync at the next heartbeat
        # The seat's revision when the page was last drawn in full (every part).
        self.synced: uuid.UUID | None = None
        self._rendering = asyncio.Lock()  # one render-and-send at a time, in order
        # A beat and the closing socket's leave never overlap: a beat still running
        # when the socket closes would write its row back after the leave.
        self._presence = asyncio.Lock()
        self._beating: asyncio.Task[None] | None = None
        self.beats = 0

    def _query(self, name: str) -> str | None:
        # A client's bytes need not be UTF-8: read them safely, never fail the socket.
        query = parse_qs(self.scope.get("query_string", b"").decode("utf-8", "replace"))
        return query.get(name, [None])[0]

    @property
    def page(self) -> LivePage:
        return page_named(self._query("page"))

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=ANONYMOUS_CLOSE_CODE)
            return
        self.campaign_id = self.scope["url_route"]["kwargs"]["campaign_id"]
        try:
            seat_id, side = await in_pool(self._seat_of)(user)
        except Http404:
            await self.close(code=NOT_MEMBER_CLOSE_CODE)
            return
        except OUTAGE as exc:
            # Refused at the handshake: the page's socket tries again by itself.
            logger.warning("campaign socket refused: database unavailable (%s)", exc)
            await self.close()
            return
        self.seat_id = seat_id
        self.group = push.campaign_group(self.campaign_id)
        # The campaign's changes, those its side keeps secret, and its user's logout.
        self.live_groups = (
            self.group,
            push.side_group(self.campaign_id, side),
            push.user_group(user.pk),
        )
        await self.accept()
        await self.join_groups()
        await self.beat(sweep=True)
        # The page says what each of its parts shows (?shows=): a browser that
        # reconnects after missing changes gets the parts that changed at once; a part
        # that is up to date is not re-drawn under the player's pointer or typing.
        await self.send_parts(set(self.page.parts), shows=shown(self._query("shows")))
        await self.announce()
        self._beating = asyncio.create_task(self._heartbeat())

    async def disconnect(self, code: int) -> None:
        if self.seat_id is None:
            if self._beating is not None:
                self._beating.cancel()
            return
        await self.leave_groups()
        async with self._presence:
            try:
                await in_pool(presence.leave)(socket=self.socket, watched=self.page is CAMPAIGN)
            except OUTAGE as exc:
                logger.warning("presence not cleared, it expires by itself (%s)", exc)
        if self._beating is not None:
            self._beating.cancel()
        self.seat_id = None
        await self.announce()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return

    async def session_ended(self, event: dict[str, Any]) -> None:
        await close_if_session_ended(self, event)

    async def campaign_changed(self, event: dict[str, Any]) -> None:
        changes: list[Change] = [KINDS[k]() for k in event.get("changes", []) if k in KINDS]
        await self.send_parts(self.page.touched(changes))

    # ------------------------------------------------------------ presence

    def _seat_of(self, user: Any) -> tuple[int, str]:
        _, seat = member_seat(user, self.campaign_id)
        return seat.pk, seat.side

    def _beat(self, sweep: bool) -> bool:
        if sweep:
            presence.sweep()
        assert self.seat_id is not None
        return presence.beat(socket=self.socket, seat_id=self.seat_id)

    async def beat(self, *, sweep: bool = False) -> bool:
        """Renew this socket's presence; True if its row had to be (re)created."""
        async with self._presence:
            if self.closing:
                return False
            try:
                return await in_pool(self._beat)(sweep)
            except OUTAGE as exc:
                logger.warning("presence beat failed (%s); next beat retries", exc)
                return False

    async def announce(self) -> None:
        """Tell the campaign's sockets that who is online may have changed."""
        message = {"type": push.CAMPAIGN_CHANGED, "changes": [PresenceChanged.kind]}
        try:
            await self.channel_layer.group_send(self.group, message)
        except OUTAGE as exc:
            self.layer_down(exc)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(settings.PRESENCE_HEARTBEAT)
            try:
                await self.heartbeat()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a bug must not stop the beats
                logger.exception("campaign socket heartbeat failed")

    async def heartbeat(self) -> None:
        """One beat: presence renewed, groups re-joined (a restarted Redis forgets
        them), and the page refreshed — in full after an outage that may have cost it
        pushes (and every PRESENCE_RESYNC_BEATS beats if the seat's revision moved
        since the page was last drawn in full: a push lost unseen), else its sides (an
        opponent's presence may have expired).  Only what differs
        from what the page shows is sent."""
        recreated = await self.beat()
        joined = await self.join_groups()
        self.beats += 1
        resync = self.beats % settings.PRESENCE_RESYNC_BEATS == 0
        if joined and (self.layer_lost or self.stale):
            self.layer_lost = self.stale = False
            await self.send_parts(set(self.page.parts))
        elif joined and resync:
            await self.send_parts(set(self.page.parts), unless_synced=True)
        else:
            await self.send_parts(self.page.touched([PresenceChanged()]))
        if recreated:
            await self.announce()

    # ------------------------------------------------------------ rendering

    async def send_parts(
        self,
        parts: set[Part],
        shows: dict[str, str] | None = None,
        *,
        unless_synced: bool = False,
    ) -> None:
        """Render ``parts`` for this seat and send those that differ from what the page
        shows (``shows``: what the page said at connecting; after that, what was sent).
        Renders run one at a time and each reads the committed state, so the last frame
        a page gets is always the newest.  The parts a player reads first go in a frame
        of their own (``FIRST_PARTS``), rendered from the same seat view as the rest.

        ``unless_synced`` (the periodic resync, against a push lost unseen): every part
        only if the seat's revision moved since the page was last drawn in full, else
        just the sides (presence has no revision).  An idle page is not re-drawn."""
        parts = parts & self.page.parts
        if not parts:
            return  # nothing of this page: no read, no render (a message, on the roster)
        async with self._rendering:
            try:
                read = await in_pool(self._read_and_render_first)(parts, unless_synced)
            except OUTAGE as exc:
                self._not_rendered(exc)
                return
            if read is None:
                return
            view, revision, parts, first = read
            for n, batch in enumerate(batches(parts)):
                try:
                    fragments = first if n == 0 else await in_pool(self._render)(view, batch)
                except OUTAGE as exc:
                    self._not_rendered(exc)
                    return
                resent = await self._send_fragments(fragments, shows)
                if unless_synced and resent - {Part.SIDES}:
                    # Every change is pushed as it commits: a part that differs here
                    # is one whose push never reached this page, or one still waiting
                    # in this socket's channel behind the beat (then it sends nothing).
                    logger.warning(
                        "campaign socket caught up at its resync: %s differed "
                        "(a push lost, or not yet received)",
                        ", ".join(sorted(resent)),
                    )
            if parts >= self.page.parts:
                self.synced = revision

    def _not_rendered(self, exc: BaseException) -> None:
        logger.warning("could not render a campaign socket's page (%s)", exc)
        self.stale = True

    async def _send_fragments(
        self, fragments: list[tuple[Part, str]], shows: dict[str, str] | None
    ) -> set[Part]:
        """Send what differs from what the page shows; the parts sent."""
        if shows is not None:
            same = unchanged(fragments, shows)
            self.sent.update((part, html) for part, html in fragments if part in same)
        resent = {part for part, html in fragments if self.sent.get(part) != html}
        changed = self.unsent(fragments)
        if changed:
            await self.send(text_data="".join(changed))
        return resent

    def unsent(self, fragments: list[tuple[Part, str]]) -> list[str]:
        """The fragments that differ from what the page shows, which it then shows; in
        each, the rows the page already shows as they are are left to it (``kept_rows``)."""
        changed = []
        for part, html in fragments:
            sent = self.sent.get(part)
            if sent != html:
                changed.append(html if sent is None else kept_rows(sent, html))
        self.sent.update(fragments)
        return changed

    def _read_and_render_first(
        self, parts: set[Part], unless_synced: bool
    ) -> tuple[Any, Any, set[Part], list[tuple[Part, str]]] | None:
        """The seat's view, the revision it stands for, the parts to send and the first
        frame's fragments (``batches``), in one turn of the thread pool: the parts a
        player reads first (a reveal) do not wait for the pool twice.  None: the seat
        is gone."""
        view = self._seat_view()
        if view is None:
            return None
        # Read with the view, before its parts: what they show is at least as new.
        revision = self.page.revision(view)
        if unless_synced and revision == self.synced:
            parts = self.page.touched([PresenceChanged()])
        todo = batches(parts)
        return view, revision, parts, self._render(view, todo[0]) if todo else []

    def _seat_view(self) -> Any:
        """What this socket's page is drawn from (``LivePage.seat_view``: for the
        roster the seat itself, its view memoised per revision); None for a seat it no
        longer has."""
        try:
            return self.page.seat_view(self.scope["user"], self.campaign_id)
        except Http404:
            return None

    def _render(self, view: Any, parts: set[Any]) -> list[tuple[Part, str]]:
        """The fragments of this socket's page that ``parts`` (parts, or changes)
        touch, from ``_seat_view``."""
        return self.page.render(
            view, parts, user=self.scope["user"], origin=page_origin(self.scope)
        )


class NoSuchSocket(AsyncWebsocketConsumer):
    """A websocket path Refit does not serve: refused before the handshake completes
    (the server answers 403), with nothing logged.  It joins no channel layer (an
    alias that names none): a refused socket holds no Redis channel and no pending
    receive."""

    channel_layer_alias = "refit-no-channel-layer"

    async def connect(self) -> None:
        await self.close()


class EchoConsumer(AsyncWebsocketConsumer):
    """Benchmark floor only (routed when REFIT_BENCH_ECHO is set): a signed-in socket
    joins a group and forwards whatever is group-sent to it, with no database work."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=ANONYMOUS_CLOSE_CODE)
            return
        self.group = f"bench-echo-{self.scope['url_route']['kwargs']['n']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def bench_echo(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])
