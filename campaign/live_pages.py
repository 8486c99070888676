"""The live pages, declared once (issue 49), as the step kinds are: each page a player
keeps open on a campaign and that its socket keeps up to date declares what it is
drawn from (its seat view, read through the one visibility gate), its parts (each a
template, ``campaign.fragments``) and which kinds of change (``campaign.changes``)
touch which of its parts.  The socket (``campaign.consumers``) and the action's answer
(``campaign.views.actions``) read a page from here; nothing else compares a page's
name (tests/test_live_pages.py).

A change kind every page must place: a page that does not list a kind would never
re-draw for it, so ``touched`` refuses one it does not know, and a test checks every
page lists every kind.  A part left out of a change's parts would stay stale on the
page until some later push — perhaps the opponent's secret one — refreshed it, and
the timing of that frame would tell the player his opponent had acted: so a change
lists every part that shows what it changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.http import HttpRequest

from campaign import changes as ch
from campaign.fragments import (
    CAMPAIGN_PARTS,
    ROSTER_PARTS,
    Part,
    Unread,
    campaign_fragments,
    roster_fragments,
)
from campaign.models import Seat
from campaign.seat_views.campaign_page import CampaignView, campaign_view
from campaign.seat_views.common import member_seat
from campaign.seat_views.roster import roster_view

Touches = Mapping[type[ch.Change], frozenset[Part]]


@dataclass(frozen=True)
class LivePage:
    """One live page.  ``name``: its URL name, and what its requests and socket say
    they come from (``?page=``, the ``X-Refit-Page`` header).  ``seat_view``: what the
    page is drawn from for a user's seat (404 for anyone not seated); ``revision``:
    the seat revision that view stands for; ``fragments``: the given parts of the page
    rendered from that view; ``touches``: the parts each kind of change touches."""

    name: str
    templates: Mapping[Part, str]
    touches: Touches
    seat_view: Callable[[Any, object], Any]
    revision: Callable[[Any], UUID]
    fragments: Callable[..., list[tuple[Part, str]]]

    @property
    def parts(self) -> frozenset[Part]:
        return frozenset(self.templates)

    def touched(self, what: Iterable[Part | ch.Change]) -> set[Part]:
        """The parts of this page that ``what`` touches: parts (of this page) as they
        are, changes by their kinds' declared parts."""
        parts: set[Part] = set()
        for item in what:
            if isinstance(item, ch.Change):
                parts |= self.touches[type(item)]
            elif item in self.templates:
                parts.add(Part(item))
        return parts

    def earlier(self, seat: Seat) -> list[tuple[UUID, frozenset[Part]]]:
        """The seat's earlier revisions it still knows of (``Seat.renewed_by``), newest
        first, each with the parts of this page the changes since then touch: a part
        rendered at one of them and not among its parts shows what it showed then.
        The seat records only the changes it may see (``writes.commit``), so what this
        says depends on nothing the seat may not see."""
        return [
            (revision, frozenset().union(*(self.touches[kind] for kind in kinds)))
            for revision, kinds in ch.renewals(seat.renewed_by)
        ]

    def unchanged_since(self, seat: Seat) -> list[UUID]:
        """The seat's earlier revisions since which no change has touched any part of
        this page drawn from its view (``FROM_SEAT``: not those drawn from the seat
        itself), newest first."""
        return [revision for revision, parts in self.earlier(seat) if not parts - FROM_SEAT]

    def render(
        self,
        view: Any,
        what: Iterable[Part | ch.Change],
        *,
        user: Any,
        origin: str,
        request: HttpRequest | None = None,
    ) -> list[tuple[Part, str]]:
        """The fragments of the parts ``what`` touches, rendered from ``view`` (the
        page's ``seat_view``), each marked for an out-of-band swap.  The changes among
        ``what`` go to the page's render too: what they carry (``Change.logged``) may
        spare it a read."""
        what = list(what)
        wanted = self.touched(what)
        if not wanted:
            return []
        changes = tuple(item for item in what if isinstance(item, ch.Change))
        return self.fragments(
            view, wanted, user=user, origin=origin, request=request, changes=changes
        )


def _declared(groups: Iterable[tuple[Iterable[type[ch.Change]], Iterable[Part]]]) -> Touches:
    touches: dict[type[ch.Change], frozenset[Part]] = {}
    for kinds, parts in groups:
        for kind in kinds:
            assert kind not in touches, f"{kind.kind} is declared twice"
            touches[kind] = frozenset(parts)
    return touches


# The changes of the campaign's state that any part may show: a step done or
# advanced, a result, a takeback, supplied data, a correction.  Their parts are every
# part of the page that shows the state (on the campaign page, all but the messages).
_STATE = (
    ch.SeatJoined,
    ch.CampaignConceded,
    ch.StepFinished,
    ch.DoneTakenBack,
    ch.ChitLocked,
    ch.ChitTakenBack,
    ch.ChitsRevealed,
    ch.OnMapUnitsDeclared,
    ch.PointsForgone,
    ch.PurchaseRevealed,
    ch.ResultEntered,
    ch.ResultConfirmed,
    ch.AmendmentProposed,
    ch.AmendmentAnswered,
    ch.CorrectionProposed,
    ch.CorrectionAnswered,
    ch.TakebackAsked,
    ch.TakebackAnswered,
    ch.ResultTakenBack,
    ch.DatumProposed,
    ch.DatumAccepted,
    ch.DatumWithdrawn,
)
# A refusal whose reason is said in the players' thread too: every part.
_STATE_AND_THREAD = (ch.ResultDisputed, ch.DatumRefused)
# A purchase (the opponent sees none of it while it is secret): every part, on both
# pages, that shows it; a change of its record shows in the forces too.
_PURCHASE = (ch.PurchaseAdded, ch.PurchaseCancelled)
_RECORD = (ch.PurchaseChanged,)
# A roll or a unit: the step, the log and the forces.
_FORCES = (ch.RollMade, ch.UnitChanged)

# The parts drawn from the seat itself (read with every page), not from the page's
# view: the unread count (``Seat.messages_unread``).
FROM_SEAT = frozenset({Part.UNREAD})

C = Part
CAMPAIGN: LivePage = LivePage(
    name="campaign",
    templates=CAMPAIGN_PARTS,
    touches=_declared(
        [
            (_STATE, [C.HEADER, C.STEP, C.SIDES, C.INVITATION, C.RECORD, C.SUPPLIES, C.LOG]),
            (_STATE_AND_THREAD, CAMPAIGN_PARTS),
            ([ch.InvitationChanged], [C.INVITATION]),
            ([ch.PresenceChanged], [C.SIDES]),
            ((*_PURCHASE, *_RECORD), [C.STEP, C.SIDES, C.RECORD, C.LOG]),
            ([ch.EntryAreaRecorded], [C.STEP, C.RECORD]),
            (_FORCES, [C.STEP, C.LOG]),
            ([ch.MessageSent], [C.MESSAGES, C.LOG, C.UNREAD]),
            ([ch.MessagesSeen], [C.UNREAD]),
            ([ch.OpponentNudged], [C.HEADER, C.LOG]),
        ]
    ),
    seat_view=campaign_view,
    revision=lambda view: view.seat.revision,
    fragments=lambda view, parts, *, user, origin, request=None, changes=(): campaign_fragments(
        view,
        parts,
        user=user,
        origin=origin,
        request=request,
        earlier=CAMPAIGN.earlier(view.seat),
        changes=changes,
    ),
)


def _roster_seat(user: Any, campaign_id: object) -> Seat:
    """The roster is drawn from the seat (its view is memoised per revision)."""
    return member_seat(user, campaign_id)[1]


ROSTER: LivePage = LivePage(
    name="roster",
    templates=ROSTER_PARTS,
    touches=_declared(
        [
            ((*_STATE, *_STATE_AND_THREAD), ROSTER_PARTS),
            ([ch.InvitationChanged, ch.PresenceChanged, ch.OpponentNudged], []),
            ([ch.MessageSent, ch.MessagesSeen], [C.UNREAD]),
            (_PURCHASE, [C.ROSTER, C.ROSTER_RECORD, C.CHARTS]),
            (_RECORD, [C.ROSTER, C.ROSTER_RECORD, C.CHARTS, C.FORCES]),
            ([ch.EntryAreaRecorded], [C.ROSTER_RECORD]),
            (_FORCES, [C.FORCES]),
        ]
    ),
    seat_view=_roster_seat,
    revision=lambda seat: seat.revision,
    fragments=lambda seat, parts, *, user, origin, request=None, changes=(): roster_fragments(
        roster_view(seat, unchanged_since=ROSTER.unchanged_since(seat)),
        parts,
        user=user,
        request=request,
        unread=Unread.of(seat),
    ),
)

PAGES: dict[str, LivePage] = {page.name: page for page in (CAMPAIGN, ROSTER)}
DEFAULT = CAMPAIGN


def page_named(name: str | None) -> LivePage:
    """The live page a request or socket says it comes from (the campaign page when
    it names none, or one that is not live)."""
    return PAGES.get(name or "", DEFAULT)


__all__ = ["CAMPAIGN", "DEFAULT", "PAGES", "ROSTER", "CampaignView", "LivePage", "page_named"]
