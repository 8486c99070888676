"""Operations: whether this worker can serve (``/healthz``, for the proxy's and the
compose healthchecks and a monitor), and which version it runs."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@cache
def version() -> str:
    """The version the project declares (``pyproject.toml``)."""
    try:
        return str(tomllib.loads(PYPROJECT.read_text())["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def _database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:  # any failure is "not reachable": the answer says so
        return False


def _channel_layer() -> bool:
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        name = async_to_sync(layer.new_channel)()
        async_to_sync(layer.send)(name, {"type": "health.check"})
        return True
    except Exception:  # any failure is "not reachable": the answer says so
        return False


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 with what was checked when the database and the channel layer answer, 503
    otherwise; no session is read, nothing secret is said."""
    checks = {"database": _database(), "channel_layer": _channel_layer()}
    ok = all(checks.values())
    return JsonResponse(
        {"status": "ok" if ok else "unavailable", "version": version(), **checks},
        status=200 if ok else 503,
    )
