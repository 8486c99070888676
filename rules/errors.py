"""The engine's refusal: a sentence for the player, and how a web edge should answer."""

from __future__ import annotations


class Refused(Exception):
    """An action the rules or the campaign's state do not allow.  ``message`` is a
    sentence for the player; nothing was changed.  ``status`` is the HTTP status an
    edge answers with (400 bad request, 404 no such thing, 409 the state disagrees)."""

    def __init__(self, message: str, *, status: int = 400, stale: bool = False):
        super().__init__(message)
        self.message = message
        self.status = status
        self.stale = stale  # the form was made for a step the campaign has left
