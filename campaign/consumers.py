"""Websocket consumers.  Every socket is a signed-in user's; anonymous sockets are
refused before the handshake completes (close code 4401)."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

ANONYMOUS_CLOSE_CODE = 4401


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


class LiveConsumer(AsyncWebsocketConsumer):
    """The signed-in user's live channel: htmx's ws extension connects here and swaps
    in the HTML fragments it is sent (out-of-band swaps by element id)."""

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
        # Actions go over HTTP (forms, htmx POSTs); the socket only pushes.
        return

    async def push_html(self, event: dict) -> None:
        await self.send(text_data=event["html"])
