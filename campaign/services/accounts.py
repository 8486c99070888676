"""What signing out does beyond the session: the user's open sockets of that session
close (in every tab), so a signed-out browser receives nothing more."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.http import HttpRequest

from campaign.services import push


@receiver(user_logged_out)
def close_sockets_of_ended_session(
    sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any
) -> None:
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and session_key:
        push.session_ended(user.pk, session_key)
