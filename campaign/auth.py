"""The sign-in backend: Django's ``ModelBackend``, with the read that every request
and every socket makes of its signed-in user compiled once (``campaign.prepared``).

A session names the backend that signed it in; sessions signed in before this one
existed name Django's own, which stays listed after it (``AUTHENTICATION_BACKENDS``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import backends, get_user_model
from django.db.models import IntegerField

from campaign.prepared import Param, PreparedRead

_USER = PreparedRead(
    lambda: get_user_model()._default_manager.filter(pk=Param("pk", IntegerField()))
)


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        """The active user with this id, else None (as Django's own)."""
        found = _USER(pk=user_id)
        if not found:
            return None
        user = found[0]
        return user if self.user_can_authenticate(user) else None
