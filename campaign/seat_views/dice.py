"""The dice page: every roll the seat may see, and (after the CG) their verification."""

from __future__ import annotations

from dataclasses import dataclass

from campaign.models import Campaign, Roll
from campaign.seat_views.common import RollView, roll_view
from campaign.selectors import module_of
from campaign.services.dice import verify


@dataclass(frozen=True)
class RollGroup:
    """The rolls of one step of one CG date (and pass), in order."""

    date: str
    step: str
    rolls: list[RollView]


@dataclass(frozen=True)
class DiceView:
    campaign_id: str
    name: str
    seed_hash: str
    seed: str | None  # disclosed when the CG ends
    rolls: list[RollView]
    groups: list[RollGroup]  # the same rolls, by date and step
    problems: list[str] | None  # verification, once the seed is disclosed


def dice_view(campaign: Campaign, side: str) -> DiceView:
    ended = campaign.ended_at is not None
    module = module_of(campaign)
    titles = {s.id: f"{s.id} {s.title}" for s in module.steps}
    rows = list(Roll.objects.visible_to(side).filter(campaign=campaign).order_by("seq"))
    rolls = [roll_view(r, ended=ended) for r in rows]
    groups: list[RollGroup] = []
    last: tuple[int, int, str] | None = None
    for r, view in zip(rows, rolls, strict=True):
        key = (r.cycle, r.date_index, r.step_id)
        if key != last:
            date = module.dates[r.date_index].label if r.date_index < len(module.dates) else ""
            groups.append(RollGroup(date, titles.get(r.step_id, r.step_id), []))
            last = key
        groups[-1].rolls.append(view)
    return DiceView(
        campaign_id=str(campaign.pk),
        name=campaign.name,
        seed_hash=campaign.dice_seed_hash,
        seed=campaign.dice_seed if ended else None,
        rolls=rolls,
        groups=groups,
        problems=verify(campaign) if ended else None,
    )
