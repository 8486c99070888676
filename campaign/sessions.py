"""The session store: Django's database sessions, with the read every request makes
compiled once (``campaign.prepared``).  Set as ``SESSION_ENGINE``; writing, expiry
and ``clearsessions`` are Django's own."""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db.models import CharField, DateTimeField
from django.utils import timezone

from campaign.prepared import Param, PreparedRead

_LIVE_SESSION = PreparedRead(
    lambda: Session.objects.filter(
        session_key=Param("key", CharField()), expire_date__gt=Param("now", DateTimeField())
    )
)


class SessionStore(db.SessionStore):
    def _get_session_from_db(self) -> Any:
        """The unexpired session with this key, else None (and no key: as Django's)."""
        found = _LIVE_SESSION(key=self.session_key, now=timezone.now())
        if found:
            return found[0]
        self._session_key = None
        return None
