"""Taking a turn: lock the campaign, find the acting seat, refuse what is out of turn.

Every service that changes a campaign starts with ``take_turn``: the campaign row is
locked first, then its seats (always in this order, so two players' simultaneous
actions queue instead of deadlocking), and a form made for a step the campaign has
left is refused with a sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Player

from campaign.models import Campaign, Event, EventKind, Seat, StepMark
from campaign.selectors import (
    as_uuid,
    campaign_seats,
    module_of,
    pass_marks,
    position_token,
    snapshot,
)
from campaign.services import writes
from campaign.services.errors import ActionRefused, NotFound
from campaign.services.events import record_event
from campaign.visibility import Kept
from rules import availability
from rules.kinds import Action, StepKind, kind_of
from rules.schema import Module, Step
from rules.snapshot import Holdings, Snapshot

User = Player | AnonymousUser  # whoever sent the request; services refuse strangers


def signed_in(user: User) -> Player:
    """The signed-in player, or the stranger's refusal."""
    if isinstance(user, Player) and user.is_authenticated:
        return user
    raise NotFound()


@dataclass
class Turn:
    """A locked campaign, its rules, and the acting player's seat."""

    campaign: Campaign
    module: Module
    seat: Seat
    seats: dict[str, Seat] = field(default_factory=dict)
    # The pass's done marks, per step, read once after the lock (``pass_marks``) for
    # the pass they were read in; no other writer can add one before this
    # transaction commits, so a move to another step of the pass reads nothing.
    _marks: dict[int, frozenset[str]] = field(default_factory=dict, init=False, repr=False)
    _marks_cycle: int | None = field(default=None, init=False, repr=False)

    @property
    def side(self) -> str:
        return self.seat.side

    @property
    def step(self) -> Step:
        return self.module.steps[self.campaign.step_index]

    @property
    def kind(self) -> StepKind:
        return kind_of(self.step.kind)

    def side_name(self, side: str | None = None) -> str:
        return self.module.side(side or self.side).name

    def record(
        self,
        kind: EventKind,
        text: str,
        *,
        secret: Kept | bool | None = None,
        public_text: str = "",
        data: dict[str, Any] | None = None,
        revealed_at: datetime | None = None,
    ) -> Event:
        """Log what the acting side did at this step; ``secret``: the side's own until
        revealed, as its kind of secret declares (``visibility.SECRETS``: the opponent
        reads the declared public line, or nothing); ``revealed_at``: a secret revealed
        as it is recorded.  (``secret=True`` with ``public_text``: the older spelling,
        kept for a change being folded in; services declare the kind.)"""
        return record_event(
            self.campaign,
            kind=kind,
            text=text,
            side=self.side,
            step_id=self.step.id,
            secret=secret if isinstance(secret, Kept) else None,
            secret_side=self.side if secret is True else "",
            public_text=public_text,
            data=data,
            revealed_at=revealed_at,
        )

    @property
    def done(self) -> frozenset[str]:
        """The sides done with the current step."""
        c = self.campaign
        if self._marks_cycle != c.cycle:
            self._marks, self._marks_cycle = pass_marks(c), c.cycle
        return self._marks.get(c.step_index, frozenset())

    def marks_read(self, marks: dict[int, frozenset[str]]) -> None:
        """The pass's marks, read after the lock by the service itself (with what else
        it reads in that statement, e.g. the pass's initiative chits)."""
        self._marks, self._marks_cycle = dict(marks), self.campaign.cycle

    def no_marks_yet(self) -> None:
        """The pass has no marks (a campaign just made): nothing to read."""
        self._marks, self._marks_cycle = {}, self.campaign.cycle

    def begin_pass(self) -> None:
        """The campaign enters its next pass.  A mark is always made for the pass the
        campaign is in, so nobody can have marked a step of this one yet."""
        self.campaign.cycle += 1
        self.no_marks_yet()

    def forget_done(self) -> None:
        """Marks were deleted: read them again when next needed."""
        self._marks_cycle = None

    def marked(self, side: str, step_index: int) -> None:
        """This transaction has just marked ``side`` done at ``step_index`` of the
        current pass: the marks, once read, gain it without reading them again."""
        if self._marks_cycle == self.campaign.cycle:
            self._marks[step_index] = self._marks.get(step_index, frozenset()) | {side}

    def snapshot(self, held: Holdings | None = None, chits: int = 0) -> Snapshot:
        return self.snapshot_of(self.side, held, chits)

    def as_side(self, side: str) -> Turn:
        """The same locked campaign, acting for ``side`` (the server acting for a side,
        e.g. passing a step it has nothing to do at)."""
        other = Turn(self.campaign, self.module, self.seats[side], self.seats)
        other._marks, other._marks_cycle = self._marks, self._marks_cycle
        return other

    def snapshot_of(self, side: str, held: Holdings | None = None, chits: int = 0) -> Snapshot:
        """The engine's view of ``side`` (the acting side, or a side the server acts
        for, e.g. passing a step it has nothing to do at)."""
        return snapshot(
            self.campaign, side, seats=self.seats.values(), done=self.done, held=held, chits=chits
        )


def take_turn(campaign_id: object, user: User, at: str | None, *, after_end: bool = False) -> Turn:
    """Lock the campaign for ``user``'s action; refuse strangers, an ended campaign
    (unless the action may come ``after_end``: a message) and a form made for a step
    the campaign has left."""
    pk = as_uuid(campaign_id)
    player = signed_in(user)
    locked = campaign_seats(pk, lock=True) if pk else []
    seat = next((s for s in locked if s.user_id == player.pk), None)
    if seat is None:
        raise NotFound()
    campaign = seat.campaign
    if campaign.ended_at is not None and not after_end:
        raise ActionRefused("The campaign has ended; nothing more can be done.", status=409)
    # ``turn.done`` is read when first needed, in a statement of its own: after the
    # lock, so it sees a mark the other player committed while this one waited.
    turn = Turn(campaign, module_of(campaign), seat, {s.side: s for s in locked})
    if at is not None and at != position_token(campaign):
        step = turn.step
        date = turn.module.dates[campaign.date_index].label
        raise ActionRefused(
            "The campaign has moved on since this page was loaded: it is now at "
            f"{step.id} {step.title} ({date}). The page shows the current step; "
            "look again and act there.",
            status=409,
            stale=True,
        )
    return turn


def expect_turn(turn: Turn, action: Action, snap: Snapshot | None = None) -> None:
    """Refuse an action that is not this side's to take at the current step."""
    availability.check_turn(turn.module, snap or turn.snapshot(), turn.side, action)


def mark_done(
    turn: Turn,
    data: Mapping[str, Any] | None = None,
    *,
    side: str | None = None,
    step_index: int | None = None,
) -> None:
    """Record that a side (the acting one by default) has done a step of this pass
    (the current one by default; a later one when finishing ahead)."""
    index = turn.campaign.step_index if step_index is None else step_index
    who = side or turn.side
    writes.insert(
        StepMark(
            campaign=turn.campaign,
            cycle=turn.campaign.cycle,
            step_index=index,
            side=who,
            data=dict(data or {}),
        )
    )
    turn.marked(who, index)
