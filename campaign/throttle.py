"""Sign-in throttling (django-axes): after AXES_FAILURE_LIMIT failed sign-ins for one
name from one address, that name is refused from that address for AXES_COOLOFF_TIME
— with a sentence that says so, how long, and what to do."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from campaign.views.http import refusal
from rules.errors import Refused


def lockout(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    message = (
        f"Too many failed sign-ins with this name from your address "
        f"({settings.AXES_FAILURE_LIMIT} in a row): signing in with it is paused for "
        f"{minutes} minutes. Wait, then try again; if you have forgotten your password, "
        "ask your server's operator to reset it."
    )
    return refusal(request, Refused(message, status=429))


# The longest name a sign-in can name (Django's user name field): a longer one, typed
# or forged, is recorded cut to it, never a database error on the throttle's column.
USERNAME_LIMIT = 150


def username(request: HttpRequest, credentials: Any = None) -> str:
    """The name a sign-in attempt is throttled by (django-axes), cut to
    ``USERNAME_LIMIT`` characters."""
    name = (credentials or {}).get("username") if isinstance(credentials, dict) else None
    if name is None:
        name = request.POST.get("username", "")
    return str(name)[:USERNAME_LIMIT]
