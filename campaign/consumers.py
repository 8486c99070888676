"""Websocket consumers.  Every socket is a signed-in user's; anonymous sockets are
refused before the handshake completes (close code 4401), and a campaign socket only
opens for a member of that campaign (4404).  Sockets only push: actions go over HTTP.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db.models import F
from django.http import Http404
from django.template.loader import render_to_string

from campaign.fragments import fragment_list, roster_fragments
from campaign.models import Seat
from campaign.seat_view import member_seat, roster_digest, roster_view, seat_view
from rules.services.log import broadcast, campaign_group

ANONYMOUS_CLOSE_CODE = 4401
NOT_MEMBER_CLOSE_CODE = 4404


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


class LiveConsumer(AsyncWebsocketConsumer):
    """The signed-in user's live channel (every page): shows that pushes arrive."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=ANONYMOUS_CLOSE_CODE)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=render_to_string("campaign/_live_status.html", {"live": True}))

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        return

    async def push_html(self, event: dict) -> None:
        await self.send(text_data=event["html"])


def _origin(scope) -> str:
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1")
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    return f"{scheme}://{host}" if host else ""


class CampaignConsumer(AsyncWebsocketConsumer):
    """One player's live view of one campaign.  On every change each consumer renders
    its own seat's fragments from the seat view, so a frame never carries what the
    seat may not see."""

    seat_id: int | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # What this socket last sent of each fragment: only changed fragments are sent
        # again, so a push about presence does not wipe a form being filled in.
        self.sent: dict[str, str] = {}

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=ANONYMOUS_CLOSE_CODE)
            return
        self.campaign_id = self.scope["url_route"]["kwargs"]["campaign_id"]
        try:
            self.seat_id = await self._join_presence(user)
        except Http404:
            await self.close(code=NOT_MEMBER_CLOSE_CODE)
            return
        self.group = campaign_group(self.campaign_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        # The page says what it shows (?d=, the seat view's digest): a browser that
        # reconnects after missing changes gets the current state at once; one that is
        # up to date does not have its forms re-rendered.
        await self.send_fragments(page_digest=self._page_digest())
        await database_sync_to_async(broadcast)(self.campaign_id)

    async def disconnect(self, code: int) -> None:
        if self.seat_id is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await database_sync_to_async(self._leave_presence)()
        self.seat_id = None
        await database_sync_to_async(broadcast)(self.campaign_id)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        return

    async def campaign_changed(self, event: dict) -> None:
        await self.send_fragments()

    def _query(self, name: str) -> str | None:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        return query.get(name, [None])[0]

    def _page_digest(self) -> str | None:
        return self._query("d")

    def _page(self) -> str:
        """Which page the socket feeds: the campaign page or the roster."""
        return "roster" if self._query("page") == "roster" else "campaign"

    async def send_fragments(self, page_digest: str | None = None) -> None:
        rendered = await database_sync_to_async(self._render)()
        if rendered is None:
            return
        digest, fragments = rendered
        changed = [html for t, html in fragments if self.sent.get(t) != html]
        self.sent.update(fragments)
        if changed and page_digest != digest:
            await self.send(text_data="".join(changed))

    @database_sync_to_async
    def _join_presence(self, user) -> int:
        """Count this socket as the seat's (presence)."""
        _, seat = member_seat(user, self.campaign_id)
        Seat.objects.filter(pk=seat.pk).update(connections=F("connections") + 1)
        return seat.pk

    def _leave_presence(self) -> None:
        Seat.objects.filter(pk=self.seat_id, connections__gt=0).update(
            connections=F("connections") - 1
        )

    def _render(self) -> tuple[str, list[tuple[str, str]]] | None:
        try:
            campaign, seat = member_seat(self.scope["user"], self.campaign_id)
        except Http404:
            return None
        if self._page() == "roster":
            roster = roster_view(campaign, seat.side)
            return roster_digest(roster), roster_fragments(roster, user=self.scope["user"])
        view = seat_view(campaign, seat.side)
        return view.digest, fragment_list(view, user=self.scope["user"], origin=_origin(self.scope))


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

    async def bench_echo(self, event: dict) -> None:
        await self.send(text_data=event["text"])
