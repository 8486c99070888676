"""What happened since the player last opened the campaign page: the opponent's moves,
proposals and messages, and what was revealed since, as the player may read them
(through the gate: an opponent's secret shows its public words only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from campaign.models import Campaign, Event
from rules import machine
from rules.schema import Module

DIGEST_LINES = 12  # the newest; the log holds the rest


@dataclass(frozen=True)
class Digest:
    since: datetime | None  # the previous visit (None: the first)
    lines: list[str]
    more: int  # lines beyond those shown


def digest(campaign: Campaign, module: Module, viewer: str, since: datetime | None) -> Digest:
    if since is None:
        return Digest(None, [], 0)
    opponent = machine.opponent(module, viewer)
    news = (
        Event.objects.visible_to(viewer)
        .filter(campaign=campaign)
        .filter(Q(side=opponent, created_at__gt=since) | Q(revealed_at__gt=since))
    )
    # ``shown`` is annotated by the gate (``visible_to``), which the stubs cannot see.
    texts = news.order_by("-id").values_list("shown", flat=True)  # type: ignore[misc]
    shown = [str(t) for t in texts[:DIGEST_LINES]]
    more = news.count() - len(shown) if len(shown) == DIGEST_LINES else 0
    return Digest(since, shown, more)
