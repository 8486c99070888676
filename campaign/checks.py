"""Refit's own deployment checks (``manage.py check --deploy``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register

LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1", "testserver"}


@register(Tags.security, deploy=True)
def plain_http_only_on_loopback(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """Plain HTTP is for loopback only: a host others reach must be served through
    TLS (REFIT_HTTPS=1 behind the proxy; docker-compose.yml does it)."""
    public = [h for h in settings.ALLOWED_HOSTS if h.lower() not in LOOPBACK]
    if settings.HTTPS or not public:
        return []
    return [
        Warning(
            f"Plain HTTP for {', '.join(public)}: passwords and sessions would cross the "
            "network unencrypted.",
            hint="Serve it through HTTPS (docker compose with DOMAIN set in .env does) and "
            "set REFIT_HTTPS=1; keep plain HTTP for 127.0.0.1/localhost.",
            id="refit.W001",
        )
    ]
