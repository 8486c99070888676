"""Refusals raised by services: the engine's ``Refused`` with the campaign's wording
for a stranger.  A view answers either with its ``status`` and sentence."""

from __future__ import annotations

from rules.errors import Refused

ActionRefused = Refused


class NotFound(Refused):
    def __init__(self, message: str = "There is no such campaign, or it is not yours."):
        super().__init__(message, status=404)
