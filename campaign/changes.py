"""What a player's action changed, as typed values (issue 49).

A service says what it did — a purchase added, a chit locked, chits revealed, a roll
made — and hands that value to the turn's commit (``campaign.services.writes.commit``),
which gives the seats that may see it new revisions, saves the fields the service set
on the seats it locked, and has the change pushed once the transaction commits.  The
write side names no page and no part of one: which parts of which page a change
touches is the page registry's to say (``campaign.pages``), at the edge.

A change that one side keeps secret carries its ``Kept`` (the value its log line is
recorded with, ``visibility.SECRETS``): its audience derives from that one declaration
(``audience``).  A change travels between processes by its kind's name
(``Change.kind``; ``KINDS`` reads it back).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, ClassVar

from campaign.visibility import Before, Kept


@dataclass(frozen=True)
class LogLine:
    """A log line a change recorded, as stored (``Event``'s columns the log and the
    gate read): what each seat reads of it is the gate's to say
    (``visibility.event_shown``)."""

    kind: str
    date_index: int
    step_id: str
    text: str
    public_text: str
    secret_side: str
    revealed: bool

    @classmethod
    def from_event(cls, event: Any) -> LogLine:
        """The line of ``event``, an ``Event`` recorded in this transaction."""
        return cls(
            kind=str(event.kind),
            date_index=event.date_index,
            step_id=event.step_id,
            text=event.text,
            public_text=event.public_text,
            secret_side=event.secret_side,
            revealed=event.revealed_at is not None,
        )

    @property
    def revealed_at(self) -> object:
        """As ``Event.revealed_at`` reads to the gate: set or not."""
        return True if self.revealed else None


@dataclass(frozen=True, kw_only=True)
class Change:
    """Something a player's action changed.  ``kept``: the change is a side's secret
    (the ``Kept`` its kind of secret declares), or, for a change whose audience is a
    side without a log line, that side; None: every seat may see it.  ``logged``:
    the log lines the change recorded, oldest first (None: not said, and a page
    reads the log again).  ``purchases``: the purchase rows the change wrote, as
    stored (a line added, a line cancelled), each a ``Purchase`` not read through the
    gate: what each seat reads of it is the gate's to say (``PURCHASE.shown``); None:
    not said, and a page reads the purchases again.  ``revision``: the revision its
    commit gave the seats it renewed (set by ``writes.commit``; None before)."""

    kept: Kept | str | None = None
    logged: tuple[LogLine, ...] | None = field(default=None, compare=False)
    purchases: tuple[Any, ...] | None = field(default=None, compare=False)
    revision: uuid.UUID | None = field(default=None, compare=False)

    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = cls.__name__
        KINDS[cls.kind] = cls

    @property
    def audience(self) -> str | None:
        """The one side whose seat alone hears of the change, or None for every seat.
        A secret whose existence the opponent sees (``Before.EXISTS``: his log shows its
        public line) is heard by every seat; one he sees nothing of by its owner's only."""
        if isinstance(self.kept, Kept):
            return self.kept.side if self.kept.disclosure.before is Before.NOTHING else None
        return self.kept

    def reaches(self, side: str) -> bool:
        """Whether ``side``'s seat hears of the change (is renewed by it)."""
        return self.audience in (None, side)


KINDS: dict[str, type[Change]] = {}


# A seat's latest renewals (``Seat.renewed_by``, written by ``writes.commit``): one
# ``<kind>@<the revision it renewed>`` entry per change, newest first, each ended by
# ``RENEWAL_END``, cut to the field's length (an entry cut short is no entry).
RENEWAL_AT = "@"
RENEWAL_END = ";"


def renewals(renewed_by: str) -> list[tuple[uuid.UUID, frozenset[type[Change]]]]:
    """The seat's earlier revisions it still knows of, newest first, each with the
    kinds of the changes that renewed the seat since it.  Read up to the first entry
    that cannot be read (cut short, or a kind this code no longer has)."""
    since: list[tuple[uuid.UUID, frozenset[type[Change]]]] = []
    kinds: frozenset[type[Change]] = frozenset()
    for entry in renewed_by.split(RENEWAL_END)[:-1]:
        name, _, revision = entry.partition(RENEWAL_AT)
        kind = KINDS.get(name)
        try:
            earlier = uuid.UUID(revision)
        except ValueError:
            break
        if kind is None:
            break
        kinds |= {kind}
        since.append((earlier, kinds))
    return since


# --------------------------------------------------------------------- the campaign
class SeatJoined(Change):
    """A player took the open seat (``hosting.join_campaign``)."""


class InvitationChanged(Change):
    """The host made a new invitation link or revoked it."""


class CampaignConceded(Change):
    """A side conceded the CG."""


class PresenceChanged(Change):
    """Who is online may have changed (a socket opened, closed or expired)."""


# --------------------------------------------------------------------- steps
class StepFinished(Change):
    """A side finished a step (and the step may have advanced)."""


class DoneTakenBack(Change):
    """A side took back its 'done' at a step the opponent has not finished."""


class ChitLocked(Change):
    """A side locked its initiative chit; the other's is not locked yet."""


class ChitTakenBack(Change):
    """A side took back the chit it locked; the other's is not locked yet."""


class ChitsRevealed(Change):
    """The second chit was locked: both are revealed and the matrix applied."""


class OnMapUnitsDeclared(Change):
    """A side declared its on-map units."""


class RollMade(Change):
    """A roll on a table (or a result taken instead of a roll, an MMC hardened)."""


class PointsForgone(Change):
    """A side forwent points."""


# --------------------------------------------------------------------- purchases
class PurchaseAdded(Change):
    """An RG, a fortification or a recon bought."""


class PurchaseCancelled(Change):
    """A purchase cancelled (or a fortification purchase taken back)."""


class PurchaseChanged(Change):
    """A purchase's record changed: its rolls made, or its state set."""


class PurchaseRevealed(Change):
    """A player revealed one of his RGs."""


class EntryAreaRecorded(Change):
    """An RG's entry area, objective hex or notes recorded."""


# --------------------------------------------------------------------- units
class UnitChanged(Change):
    """A retained unit added, edited, removed, exchanged, or its weapon changed."""


# --------------------------------------------------------------------- results
class ResultEntered(Change):
    """A scenario result entered."""


class ResultConfirmed(Change):
    """The opponent confirmed the scenario result."""


class ResultDisputed(Change):
    """The opponent disputed the scenario result (the reason is said in the players'
    thread too)."""


class AmendmentProposed(Change):
    """An amendment of a past scenario result proposed."""


class AmendmentAnswered(Change):
    """An amendment of a past scenario result accepted or refused."""


class CorrectionProposed(Change):
    """A correction of a roll proposed."""


class CorrectionAnswered(Change):
    """A correction of a roll accepted or refused."""


# --------------------------------------------------------------------- takebacks
class TakebackAsked(Change):
    """A side asked to take back its last action."""


class TakebackAnswered(Change):
    """The opponent granted or refused a takeback."""


class ResultTakenBack(Change):
    """A scenario result taken back."""


# --------------------------------------------------------------------- supplied data
class DatumProposed(Change):
    """A supplied datum (or start sheet, or its takeback) proposed."""


class DatumAccepted(Change):
    """A supplied datum or start sheet accepted."""


class DatumRefused(Change):
    """A supplied datum or start sheet refused (the reason is said in the players'
    thread too)."""


class DatumWithdrawn(Change):
    """A proposal of supplied data withdrawn."""


# --------------------------------------------------------------------- messages
class MessageSent(Change):
    """A player wrote in the players' thread."""


class OpponentNudged(Change):
    """A player reminded his opponent that the campaign waits for him."""


class MessagesSeen(Change):
    """A player saw the messages his opponent sent him (``kept``: his side, whose
    seat alone hears of it: the opponent is told nothing)."""
