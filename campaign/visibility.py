"""The visibility gate: what a seat may see of a campaign's secret records.

Every page, htmx fragment, JSON document and websocket frame reads secret records
through ``Model.objects.visible_to(side)`` and nothing else.  A record is a side's
secret until it is revealed (``revealed_at``); the CG's end reveals everything.
Filters run in the database, before any window or count, so what a seat receives is
a function of what has been revealed to it only.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import models
from django.db.models import Case, F, Q, Value, When

from campaign.prepared import Param

_M = TypeVar("_M", bound=models.Model)
# A seat's side, or the placeholder of a prepared read (``campaign.prepared``) that
# binds it per call: the gate is the same query either way.
Side = str | Param


def owned_secret_visible(side: Side, *, owner: str = "side", revealed: str = "revealed_at") -> Q:
    """The seat's own records, and the opponent's once revealed."""
    return Q(**{owner: side}) | Q(**{f"{revealed}__isnull": False})


class OwnedSecretQuerySet(models.QuerySet[_M]):
    """Records that belong to one side and are its secret until revealed: chits,
    purchases, fortifications, recon."""

    def visible_to(self, side: Side) -> OwnedSecretQuerySet[_M]:
        return self.filter(owned_secret_visible(side))


class RollQuerySet(models.QuerySet[_M]):
    def visible_to(self, side: Side) -> RollQuerySet[_M]:
        return self.filter(Q(secret=False) | owned_secret_visible(side))


class UnitQuerySet(models.QuerySet[_M]):
    """A retained unit from a still-secret RG purchase is its side's secret."""

    def visible_to(self, side: Side) -> UnitQuerySet[_M]:
        return self.filter(
            Q(side=side) | Q(purchase__isnull=True) | Q(purchase__revealed_at__isnull=False)
        )


def event_hidden(side: Side) -> Q:
    """An opponent's log line still secret to ``side``: the seat reads its public text."""
    return ~Q(secret_side="") & ~Q(secret_side=side) & Q(revealed_at__isnull=True)


def event_shown(event: Any, side: str) -> str:
    """What ``side``'s seat reads of one log line held in memory (an ``Event`` this
    transaction recorded): the same rule as ``EventQuerySet.visible_to``'s ``shown``
    (``event_hidden``), for the notices built before the line is written.  Empty:
    nothing to show.  ``tests/test_visibility_twin.py`` holds the two to one answer."""
    hidden = event.secret_side not in ("", side) and event.revealed_at is None
    return str(event.public_text if hidden else event.text)


class EventQuerySet(models.QuerySet[_M]):
    def readable_by(self, side: Side) -> EventQuerySet[_M]:
        """Events whose full record (text and data) the seat may read."""
        return self.filter(Q(secret_side="") | owned_secret_visible(side, owner="secret_side"))

    def visible_to(self, side: Side) -> EventQuerySet[_M]:
        """Events the seat may read, each with ``shown``: its full text, or the public
        text of an opponent's unrevealed secret; events with nothing to show are
        dropped here, before any slicing."""
        return self.annotate(
            shown=Case(When(event_hidden(side), then=F("public_text")), default=F("text"))
        ).exclude(shown=Value(""))
