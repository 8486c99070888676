"""Which pages may open a websocket: only Refit's own.

A browser sends the page's origin with every websocket handshake, and a page of
another site may try to open one to Refit with its player's cookies (cross-site
websocket hijacking).  A socket is accepted only when its ``Origin`` names the very
address it was opened on — the same scheme, host and port — or one of
``CSRF_TRUSTED_ORIGINS``, and that host is one of ``ALLOWED_HOSTS``.  The scheme is
https when the socket came over TLS, directly or through the proxy that says so in
``SECURE_PROXY_SSL_HEADER`` (set when REFIT_HTTPS is on).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

Origin = tuple[str, str, int]  # scheme, host, port
DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_origin(text: str) -> Origin | None:
    """("https", "example.org", 443) from "https://example.org"; None if not one."""
    try:
        parts = urlsplit(text.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]


def _headers(scope: dict[str, Any]) -> dict[bytes, str]:
    return {name.lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}


def _scheme(scope: dict[str, Any], headers: dict[bytes, str]) -> str:
    if scope.get("scheme") in ("wss", "https"):
        return "https"
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        name, value = proxy
        header = name.removeprefix("HTTP_").replace("_", "-").lower().encode()
        if headers.get(header, "").split(",")[0].strip().lower() == value:
            return "https"
    return "http"


def page_origin(scope: dict[str, Any]) -> str:
    """The origin of the page a socket belongs to, e.g. for the invitation link."""
    headers = _headers(scope)
    host = headers.get(b"host", "")
    return f"{_scheme(scope, headers)}://{host}" if host else ""


def allowed_origins(scope: dict[str, Any]) -> set[Origin]:
    """The origins a socket opened with ``scope`` may come from."""
    headers = _headers(scope)
    allowed = {o for o in map(parse_origin, settings.CSRF_TRUSTED_ORIGINS) if o}
    host = headers.get(b"host", "")
    domain, _ = split_domain_port(host)
    if domain and validate_host(domain, settings.ALLOWED_HOSTS):
        own = parse_origin(f"{_scheme(scope, headers)}://{host}")
        if own:
            allowed.add(own)
    return allowed


def origin_allowed(scope: dict[str, Any]) -> bool:
    origin = parse_origin(_headers(scope).get(b"origin", ""))
    return origin is not None and origin in allowed_origins(scope)


class SameOriginValidator:
    """ASGI middleware: refuse (HTTP 403) a websocket from any other origin."""

    def __init__(self, application: Any):
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier.as_asgi()(scope, receive, send)
        return await self.application(scope, receive, send)
