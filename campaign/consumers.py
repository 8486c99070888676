"""Websocket consumers.  Every socket is a signed-in user's; anonymous sockets are
refused before the handshake completes (close code 4401), and a campaign socket only
opens for a member of that campaign (4404).  Sockets only push: actions go over HTTP.

The push protocol (group names, message types, parts) is ``campaign.services.push``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db.models import F
from django.http import Http404
from django.template.loader import render_to_string

from campaign.fragments import CAMPAIGN_PARTS, ROSTER_PARTS, campaign_fragments, roster_fragments
from campaign.models import Seat
from campaign.seat_views.campaign_page import campaign_view
from campaign.seat_views.common import member_seat
from campaign.seat_views.roster import roster_view
from campaign.services import push

ANONYMOUS_CLOSE_CODE = 4401
NOT_MEMBER_CLOSE_CODE = 4404
SIGNED_OUT_CLOSE_CODE = 4403


class LiveConsumer(AsyncWebsocketConsumer):
    """The signed-in user's live channel (every page): shows that pushes arrive."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=ANONYMOUS_CLOSE_CODE)
            return
        self.group = push.user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=render_to_string("campaign/_live_status.html", {"live": True}))

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return

    async def session_ended(self, event: dict[str, Any]) -> None:
        await close_if_session_ended(self, event)


async def close_if_session_ended(consumer: AsyncWebsocketConsumer, event: dict[str, Any]) -> None:
    """A logout ends a session: the sockets opened with it close and get nothing more."""
    session = consumer.scope.get("session")
    if session is not None and session.session_key == event.get("session"):
        await consumer.close(code=SIGNED_OUT_CLOSE_CODE)


def _origin(scope: dict[str, Any]) -> str:
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1")
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    return f"{scheme}://{host}" if host else ""


class CampaignConsumer(AsyncWebsocketConsumer):
    """One player's live view of one campaign page (the campaign page or the roster).
    On every change each consumer renders the changed parts for its own seat through
    the visibility gate, so a frame never carries what the seat may not see, and sends
    only the fragments that differ from what its page shows."""

    seat_id: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # What this socket's page shows of each part: unchanged parts are not sent again,
        # so a push about presence does not wipe a form being filled in.
        self.sent: dict[str, str] = {}

    def _query(self, name: str) -> str | None:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        return query.get(name, [None])[0]

    @property
    def page(self) -> str:
        return "roster" if self._query("page") == "roster" else "campaign"

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
        self.group = push.campaign_group(self.campaign_id)
        self.user_group = push.user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self.accept()
        # The page says what it shows (?d=, the seat view's digest): a browser that
        # reconnects after missing changes gets the current state at once; one that is
        # up to date does not have its forms re-rendered.
        await self.send_parts(set(push.Part), page_digest=self._query("d"))
        await database_sync_to_async(push.send)(
            self.group, {"type": push.CAMPAIGN_CHANGED, "parts": [push.Part.SIDES]}
        )

    async def disconnect(self, code: int) -> None:
        if self.seat_id is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.channel_layer.group_discard(self.user_group, self.channel_name)
        await database_sync_to_async(self._leave_presence)()
        self.seat_id = None
        await database_sync_to_async(push.send)(
            self.group, {"type": push.CAMPAIGN_CHANGED, "parts": [push.Part.SIDES]}
        )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return

    async def session_ended(self, event: dict[str, Any]) -> None:
        await close_if_session_ended(self, event)

    async def campaign_changed(self, event: dict[str, Any]) -> None:
        await self.send_parts({push.Part(p) for p in event.get("parts", [])})

    async def send_parts(self, parts: set[push.Part], page_digest: str | None = None) -> None:
        """Render ``parts`` for this seat and send those that changed.  Messages are
        handled one at a time and each render reads the committed state, so the last
        frame a page gets is always the newest."""
        rendered = await database_sync_to_async(self._render)(parts)
        if rendered is None:
            return
        digest, fragments = rendered
        changed = self.unsent(fragments)
        if changed and (page_digest is None or page_digest != digest):
            await self.send(text_data="".join(changed))

    def unsent(self, fragments: list[tuple[str, str]]) -> list[str]:
        """The fragments that differ from what the page shows, which it then shows."""
        changed = [html for part, html in fragments if self.sent.get(part) != html]
        self.sent.update(fragments)
        return changed

    @database_sync_to_async
    def _join_presence(self, user: Any) -> int:
        """Count this socket as the seat's (presence)."""
        _, seat = member_seat(user, self.campaign_id)
        Seat.objects.filter(pk=seat.pk).update(connections=F("connections") + 1)
        return seat.pk

    def _leave_presence(self) -> None:
        if self.seat_id is None:
            return
        Seat.objects.filter(pk=self.seat_id, connections__gt=0).update(
            connections=F("connections") - 1
        )

    def _render(self, parts: set[push.Part]) -> tuple[str | None, list[tuple[str, str]]] | None:
        user = self.scope["user"]
        try:
            view = campaign_view(user, self.campaign_id)
        except Http404:
            return None
        if self.page == "roster":
            wanted = [p for p in ROSTER_PARTS if p in parts]
            if not wanted:
                return None, []
            roster = roster_view(view.campaign, view.viewer)
            return roster.digest, list(roster_fragments(roster, wanted, user=user))
        wanted = [p for p in CAMPAIGN_PARTS if p in parts]
        if not wanted:
            return None, []
        fragments = campaign_fragments(view, wanted, user=user, origin=_origin(self.scope))
        digest = view.digest if len(wanted) == len(CAMPAIGN_PARTS) else None
        return digest, list(fragments)


class NoSuchSocket(AsyncWebsocketConsumer):
    """A websocket path Refit does not serve: refused before the handshake completes
    (the server answers 403), with nothing logged."""

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
