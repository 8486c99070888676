"""The dice page: every roll the seat may see, and (after the CG) their verification."""

from __future__ import annotations

from dataclasses import dataclass

from campaign.models import Campaign, Roll
from campaign.seat_views.common import RollView, roll_view
from campaign.services.dice import verify


@dataclass(frozen=True)
class DiceView:
    campaign_id: str
    name: str
    seed_hash: str
    seed: str | None  # disclosed when the CG ends
    rolls: list[RollView]
    problems: list[str] | None  # verification, once the seed is disclosed


def dice_view(campaign: Campaign, side: str) -> DiceView:
    ended = campaign.ended_at is not None
    rolls = Roll.objects.visible_to(side).filter(campaign=campaign).order_by("seq")
    return DiceView(
        campaign_id=str(campaign.pk),
        name=campaign.name,
        seed_hash=campaign.dice_seed_hash,
        seed=campaign.dice_seed if ended else None,
        rolls=[roll_view(r, ended=ended) for r in rolls],
        problems=verify(campaign) if ended else None,
    )
