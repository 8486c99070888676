"""Django's ASGI handler with its middleware run in one step of sync code.

Django builds an ASGI worker's middleware chain async wherever a middleware allows
it.  Refit's chain mixes sync-only middleware (``PlainInputMiddleware``; Django's own
run their hooks through ``sync_to_async`` when async) with async-capable ones, so a
request went from the event loop to its thread for sync code, back to the loop for
the async-capable middleware and back to the thread for the view: three hand-overs,
each waiting for the loop to get round to it, and under load the loop is busy with
other sockets and requests.  Here the chain is built sync, as under WSGI, and entered
once: one hand-over per request, and the request's thread for sync code keeps
working until the response is made."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class SyncChainMixin:
    """For a ``BaseHandler`` subclass: its middleware chain built sync and called
    through one ``sync_to_async`` (in the thread where Django runs sync code, as every
    view is) when the handler serves async."""

    _middleware_chain: Any

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)  # type: ignore[misc]
        if is_async:
            self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)


class OneHopASGIHandler(SyncChainMixin, ASGIHandler):
    """The worker's HTTP application (``config.asgi``)."""
