"""The player's campaigns, newest activity first, in a constant number of queries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import OuterRef, Q, Subquery

from campaign.models import RollCorrection, ScenarioResult, Seat, StepMark, Supplement
from campaign.seat_views.common import status_for, your_move
from campaign.selectors import module_of, position_token, sides_awaited
from campaign.services.takebacks import done_request
from rules import machine


@dataclass(frozen=True)
class DashboardRow:
    campaign_id: str
    name: str
    module_title: str
    side: str
    opponent: str | None
    date: str
    step: str
    status: str
    ended: bool
    since: datetime | None  # since when the campaign waits for whom it waits for
    # An opponent's proposal or takeback request awaits this player's answer (issue 46:
    # "My campaigns says ... an answer to a proposal or a takeback").
    answer_awaited: bool = False

    @property
    def your_move(self) -> bool:
        return your_move(self.status)


def dashboard_rows(user: Any) -> list[DashboardRow]:
    # The date of each CG's last scenario played, for a CG that has ended: not its
    # campaign's date where it ended after a new date began (APD CG VC met by a result
    # amended in the next date's Setup Phase); read in the same statement.
    played = ScenarioResult.objects.filter(
        campaign=OuterRef("campaign"), confirmed_at__isnull=False
    ).order_by("-cycle")
    seats = list(
        Seat.objects.filter(user=user)
        .select_related("campaign")
        .annotate(last_played=Subquery(played.values("date_index")[:1]))
        .order_by("-campaign__updated_at")
    )
    campaign_ids = [s.campaign_id for s in seats]
    others = {
        (o.campaign_id, o.side): o
        for o in Seat.objects.filter(campaign_id__in=campaign_ids).select_related("user")
    }
    current = Q(pk__in=[])
    for seat in seats:
        c = seat.campaign
        current |= Q(campaign_id=c.pk, cycle=c.cycle, step_index=c.step_index)
    marks: dict[tuple[Any, int, int], set[str]] = {}
    for m in StepMark.objects.filter(current).values("campaign_id", "cycle", "step_index", "side"):
        marks.setdefault((m["campaign_id"], m["cycle"], m["step_index"]), set()).add(m["side"])
    awaited = _answers_awaited(seats, others, marks)
    rows = []
    for seat in seats:
        c = seat.campaign
        module = module_of(c)
        step = module.steps[c.step_index]
        ended = c.ended_at is not None
        done = marks.get((c.pk, c.cycle, c.step_index), set())
        waiting = [] if ended else sides_awaited(c, module, step, done)
        opp = others.get((c.pk, machine.opponent(module, seat.side)))
        waited = [others[(c.pk, side)] for side in waiting if (c.pk, side) in others]
        since = min((s.waiting_since for s in waited if s.waiting_since), default=None)
        rows.append(
            DashboardRow(
                campaign_id=str(c.pk),
                name=c.name,
                module_title=module.campaign_title(c.variant),
                side=module.side(seat.side).name,
                opponent=opp.user.get_username() if opp and opp.user else None,
                date=module.dates[
                    seat.last_played if ended and seat.last_played is not None else c.date_index
                ].label,
                step=f"{step.id} {step.title}",
                status=status_for(
                    seat.side,
                    waiting,
                    ended,
                    opponent_joined=bool(opp and opp.user_id),
                    in_play=c.in_play,
                ),
                ended=ended,
                since=since,
                answer_awaited=not ended and c.pk in awaited,
            )
        )
    return rows


def _answers_awaited(
    seats: Sequence[Seat],
    others: dict[tuple[Any, str], Seat],
    marks: dict[tuple[Any, int, int], set[str]],
) -> set[Any]:
    """The campaigns where an opponent's open proposal or takeback request awaits the
    player's answer: a datum the rules lack or a start sheet, an amendment of the
    pass's result, a roll's write-back corrected, a Done to take back (three
    statements, whatever the number of campaigns)."""
    mine = {s.campaign_id: s.side for s in seats}
    at = {s.campaign_id: (s.campaign.cycle, s.campaign.step_index) for s in seats}
    token = {s.campaign_id: position_token(s.campaign) for s in seats}
    awaited = {
        cid
        for cid, by in Supplement.objects.filter(
            campaign_id__in=mine, status=Supplement.Status.PROPOSED
        ).values_list("campaign_id", "proposed_by")
        if by != mine[cid]
    }
    awaited |= {
        cid
        for cid, cycle, by in ScenarioResult.objects.filter(
            campaign_id__in=mine, amendment__isnull=False
        ).values_list("campaign_id", "cycle", "amendment_by")
        if by and by != mine[cid] and cycle == at[cid][0]
    }
    awaited |= {
        cid
        for cid, cycle, step, by in RollCorrection.objects.filter(
            campaign_id__in=mine, status=RollCorrection.Status.PROPOSED
        ).values_list("campaign_id", "cycle", "step_index", "side")
        if by != mine[cid] and (cycle, step) == at[cid]
    }
    for (cid, side), other in others.items():
        cycle, step = at[cid]
        if (
            side != mine[cid]
            and other.takeback_asked == done_request(token[cid])
            and side in marks.get((cid, cycle, step), set())
        ):
            awaited.add(cid)
    return awaited
