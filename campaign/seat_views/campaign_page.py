"""The campaign page for one seat: header, step panel, sides, invitation, RG Purchase
Records and log.  Each part is computed on first use, so a push or an htmx answer that
renders only some parts reads only what those parts need."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import groupby
from operator import attrgetter
from typing import Any
from uuid import UUID

from django.db.models import Case, F, IntegerField, Q, Value, When
from django.http import Http404

from campaign.changes import Change, renewals
from campaign.memo import Memo
from campaign.models import (
    Campaign,
    Event,
    EventKind,
    InitiativeChit,
    InitiativeOutcome,
    Invitation,
    Purchase,
    Roll,
    RollCorrection,
    Seat,
)
from campaign.prepared import CAMPAIGN, SIDE, Param, PreparedRead
from campaign.seat_views.common import (
    LOG_WINDOW,
    NOT_YOURS,
    EventView,
    PurchaseLine,
    decided_by,
    event_views,
    plain,
    previous_winner_moves_first,
    purchases_after,
    record_lines,
    seat_revision,
    status_for,
    visible_purchases,
    your_move,
)
from campaign.seat_views.corrections import CorrectionView, correction_views, open_corrections
from campaign.seat_views.panels import (
    AmendView,
    StepPanel,
    amend_view,
    build_panel,
    takeback_asked_by,
)
from campaign.seat_views.supplements import PackageView, SupplyView, package_views, supply_views
from campaign.selectors import (
    PassRolls,
    SideUnits,
    as_uuid,
    campaign_seats,
    done_sides,
    exchanges_held,
    last_scenario_date,
    module_of,
    overspent,
    owed_rolls,
    pass_rolls,
    position_token,
    seats_done,
    side_units,
    sides_awaited,
    snapshot,
    with_online,
)
from campaign.visibility import event_shown
from rules import availability, machine
from rules.kinds import Action, Show, kind_of
from rules.schema import Module, Step
from rules.snapshot import Holdings, Snapshot

MESSAGES_SHOWN = 50
# What the players' thread shows: their messages, and the reasons they gave when
# disputing a result or refusing a proposed datum (issue 46: the reason does not live
# only in the log).
THREAD = Q(kind__in=(EventKind.MESSAGE, EventKind.RESULT_DISPUTED)) | Q(
    kind=EventKind.SUPPLY, data__has_key="reason"
)


def _thread_line(kind: str, data: Any) -> str:
    data = data if isinstance(data, dict) else {}
    reason = data.get("reason")
    if kind == EventKind.RESULT_DISPUTED:
        return f"(disputing the scenario result) {reason}" if reason else ""
    if kind == EventKind.SUPPLY:
        return f"(refusing the {data.get('refused', 'proposal')}) {reason}" if reason else ""
    return str(data.get("said", ""))


@dataclass(frozen=True)
class MessageView:
    who: str  # the side's name
    said: str
    when: Any  # a datetime
    mine: bool


@dataclass(frozen=True)
class SideView:
    id: str
    name: str
    player: str | None
    online: bool
    is_me: bool
    points: int | None  # None: not the viewer's to see
    fortification_points: int | None
    san: int | None


@dataclass(frozen=True)
class StepView:
    id: str
    title: str
    kind: str
    summary: str
    acts: str


JSON_FIELDS = (
    "campaign_id",
    "name",
    "module_id",
    "module_title",
    "variant",
    "host",
    "reveal_policy",
    "viewer",
    "sides",
    "date",
    "date_index",
    "step",
    "step_number",
    "step_count",
    "in_play",
    "ended",
    "outcome",
    "waiting_for",
    "status",
    "dice_seed_hash",
    "dice_seed",
    "currency",
    "currency_name",
    "fortification_currency",
    "panel",
    "initiative",
    "record",
    "supplies",
    "events",
    "invitation_side",
)


# The header's reads, compiled once (``campaign.prepared``): every campaign page, htmx
# answer and push that shows the header makes them.
_LATEST_OUTCOME = PreparedRead(
    lambda: InitiativeOutcome.objects.filter(campaign_id=CAMPAIGN).order_by("-cycle")[:1]
)
_CHITS_OF_PASS = PreparedRead(
    lambda: InitiativeChit.objects.visible_to(SIDE).filter(
        campaign_id=CAMPAIGN, cycle=Param("cycle", IntegerField())
    )
)
# The public drs that decided who sets up or moves first on an outcome's date
# (3.6213a, 3.623), read only where a matrix result leaves it to a dr.
_SIDE_ROLLS = PreparedRead(
    lambda: (
        Roll.objects.visible_to(SIDE)
        .filter(
            campaign_id=CAMPAIGN,
            date_index=Param("date_index", IntegerField()),
            cycle=Param("cycle", IntegerField()),
            purpose__startswith="who ",
        )
        .order_by("seq")
    )
)

# The players' thread, through the gate like every line of the log.
_MESSAGES = PreparedRead(
    lambda: (
        Event.objects.visible_to(SIDE)
        .filter(THREAD, campaign_id=CAMPAIGN)
        .order_by("-id")
        .values_list("side", "kind", "data", "created_at")[:MESSAGES_SHOWN]
    )
)


# The log and the players' thread, two windows of one table, in one read: the newest
# events of either (through the gate), the thread's columns read for its lines only.
# The window holds both while it is not full, or while it holds a whole log and a whole
# thread (each a prefix of it, newest first); else the one it cut short is read alone.
_LOG_AND_THREAD_WINDOW = LOG_WINDOW + MESSAGES_SHOWN
_LOG_AND_THREAD = PreparedRead(
    lambda: (
        Event.objects.visible_to(SIDE)
        .filter(~Q(kind=EventKind.MESSAGE) | THREAD, campaign_id=CAMPAIGN)
        .annotate(
            in_thread=Case(When(THREAD, then=Value(True)), default=Value(False)),
            thread_data=Case(When(THREAD, then=F("data")), default=None),
            thread_at=Case(When(THREAD, then=F("created_at")), default=None),
            # The seat's revision, in the same statement (one snapshot): the log read
            # is the one of that revision (``SHOWN_LOGS``).
            at_revision=seat_revision(),
        )
        .order_by("-id")
        .values_list(
            "kind",
            "date_index",
            "step_id",
            "shown",
            "in_thread",
            "side",
            "thread_data",
            "thread_at",
            "at_revision",
        )[:_LOG_AND_THREAD_WINDOW]
    )
)

# The log each seat was shown at a revision (``CampaignView.events``: the campaign,
# the side and the revision it was read at, in the statement that read the lines), so
# that an action's answer adds its change's lines to the log its seat was shown
# instead of reading the log again (``CampaignView.log_after``).  About two revisions
# of each of 32 seats.
SHOWN_LOGS: Memo[tuple[EventView, ...]] = Memo(size=64)
# The purchases each seat was shown at a revision (``CampaignView.purchases``: kept
# where the read also read the seat's revision), so that an action's answer adds the
# rows its change wrote to them instead of reading them again
# (``CampaignView.purchases_after_changes``).  The rows are shared: nothing sets a
# field of a purchase read for a page.
SHOWN_PURCHASES: Memo[tuple[Purchase, ...]] = Memo(size=64)


class CampaignView:
    """Everything the player of ``viewer`` may see of a campaign, part by part."""

    def __init__(
        self,
        campaign: Campaign,
        viewer: str,
        *,
        seats: list[Seat] | None = None,
        done: frozenset[str] | None = None,
    ):
        self.campaign = campaign
        self.viewer = viewer
        if seats is not None:
            self.__dict__["seats"] = seats
        if done is not None:
            self.__dict__["done"] = done

    # ------------------------------------------------------------ shared reads

    @cached_property
    def module(self) -> Module:
        return module_of(self.campaign)

    @cached_property
    def seats(self) -> list[Seat]:
        return list(with_online(Seat.objects.filter(campaign=self.campaign).select_related("user")))

    @cached_property
    def seat(self) -> Seat:
        return next(s for s in self.seats if s.side == self.viewer)

    @cached_property
    def done(self) -> frozenset[str]:
        return done_sides(self.campaign)

    @cached_property
    def purchases(self) -> list[Purchase]:
        # The seat read first: where the read returns no row to say the revision, the
        # log's read after it does (``_log_and_thread``), and the purchases were read
        # between the two.
        revision = self.seat.revision
        rows = visible_purchases(self.campaign, self.viewer, at_revision=True)
        if rows and getattr(rows[0], "at_revision", None) == revision:
            SHOWN_PURCHASES.put((self.campaign.pk, self.viewer, self.seat.revision), tuple(rows))
        return rows

    def purchases_after_changes(self, changes: Sequence[Change]) -> None:
        """The purchases after ``changes`` (the action's, just committed), without
        reading them: those the seat was shown at the revision before them
        (``SHOWN_PURCHASES``) with the rows they wrote (``Change.purchases``) as the
        gate shows them to the seat (``common.purchases_after``), where nothing else
        reached the seat since (``_before``); else they are read as ever."""
        if "purchases" in self.__dict__:
            return
        found = self._before(changes, attrgetter("purchases"))
        if found is None:
            return
        heard, earlier = found
        before = SHOWN_PURCHASES.get((self.campaign.pk, self.viewer, earlier))
        if before is None:
            return
        written = [row for c in heard for row in c.purchases or ()]
        rows = purchases_after(before, written, self.viewer)
        self.__dict__["purchases"] = rows
        SHOWN_PURCHASES.put((self.campaign.pk, self.viewer, self.seat.revision), tuple(rows))

    @cached_property
    def owed_rolls(self) -> tuple[tuple[str, str], ...]:
        """The viewer's own compulsory rolls not made in this pass."""
        return owed_rolls(self.campaign, self.module, self.viewer, self._units, self.rolls_of_pass)

    @cached_property
    def rolls_of_pass(self) -> PassRolls:
        """The viewer's own rolls in this pass, read once (at the first call) for the
        owed rolls, the units an earlier roll sends to a table (3.613 †) and the units'
        roll choices."""
        return pass_rolls(self.campaign, self.viewer)

    @cached_property
    def exchanges_held(self) -> frozenset[str]:
        """The exchange steps ahead at which the viewer holds a unit the step takes."""
        return exchanges_held(self.campaign, self.module, self.viewer, self._units)

    @cached_property
    def _units(self) -> SideUnits:
        """The viewer's own units, read once for the owed rolls and the exchanges."""
        return side_units(self.campaign, self.viewer)

    def snapshot(self, held: Holdings | None = None, chits: int = 0) -> Snapshot:
        return snapshot(
            self.campaign, self.viewer, seats=self.seats, done=self.done, held=held, chits=chits
        )

    # ------------------------------------------------------------ header

    @cached_property
    def campaign_id(self) -> str:
        return str(self.campaign.pk)

    @property
    def name(self) -> str:
        return self.campaign.name

    @property
    def module_id(self) -> str:
        return self.module.id

    @property
    def module_title(self) -> str:
        return self.module.title

    @property
    def variant(self) -> str:
        return self.module.variant_words(self.campaign.variant)

    @cached_property
    def host(self) -> str:
        host = next(s.user for s in self.seats if s.user_id == self.campaign.host_id)
        return host.get_username() if host else ""

    @property
    def reveal_policy(self) -> str:
        return self.campaign.get_reveal_policy_display()

    @property
    def date(self) -> str:
        return self.module.dates[self.campaign.date_index].label

    @property
    def date_index(self) -> int:
        return self.campaign.date_index

    @property
    def last_date(self) -> str:
        """Where the current date is the CG's last (its scenario's result ends the CG,
        PHD's TM End), that in words with the rule naming the dates; "" where it is not."""
        return machine.last_scenario_words(self.module, self.campaign.variant, self.date_index)

    @cached_property
    def overspent(self) -> str:
        """At a purchase step, where an amended result gave the viewer fewer points than
        his RGs of this date cost, that and what to do (``availability.overspent``); ""
        elsewhere.  Read only where his points are 0 (a shortfall leaves them so)."""
        if Action.BUY not in kind_of(self.step_def.kind).actions or self.me.points:
            return ""
        made, short, cancellable = overspent(self.campaign, self.viewer)
        if made is None or not short:
            return ""
        return availability.overspent(self.module, self.step_def, made.step_id, short, cancellable)

    @property
    def step_def(self) -> Step:
        return self.module.steps[self.campaign.step_index]

    @property
    def step(self) -> StepView:
        s = self.step_def
        return StepView(s.id, s.title, s.kind, s.summary, s.acts)

    @property
    def panel_template(self) -> str:
        return kind_of(self.step_def.kind).template

    @property
    def step_number(self) -> int:
        return self.campaign.step_index + 1

    @property
    def step_count(self) -> int:
        return len(self.module.steps)

    @property
    def in_play(self) -> bool:
        return self.campaign.in_play

    @property
    def ended(self) -> bool:
        return self.campaign.ended_at is not None

    @cached_property
    def ended_date(self) -> str:
        """The date of the CG's last scenario played, for the header of a CG that has
        ended: the date of its last confirmed result, not the campaign's date where the CG
        ended after a new date began (APD CG VC "≥ 150 at any CG-Scenario end", met by
        the Midday's result amended in the Afternoon's Setup Phase); "" (nothing read)
        while it goes on."""
        if not self.ended:
            return ""
        last = last_scenario_date(self.campaign)
        return self.date if last is None else self.module.dates[last].label

    @property
    def outcome(self) -> str:
        return self.campaign.outcome

    @cached_property
    def waiting_for(self) -> list[str]:
        if self.ended:
            return []
        return sides_awaited(self.campaign, self.module, self.step_def, self.done)

    @property
    def status(self) -> str:
        return status_for(
            self.viewer,
            self.waiting_for,
            self.ended,
            opponent_joined=all(s.user_id for s in self.seats),
            in_play=self.in_play,
        )

    @property
    def can_nudge(self) -> bool:
        """The viewer waits for the opponent (the reminder's once-a-day limit is the
        service's to say when pressed: a header drawn at one revision is shown for
        days, and the limit runs by the clock)."""
        return self.status == "opponent"

    @property
    def your_move(self) -> bool:
        """The campaign waits for this seat's action (the title's badge)."""
        return your_move(self.status)

    @property
    def dice_seed_hash(self) -> str:
        return self.campaign.dice_seed_hash

    @property
    def dice_seed(self) -> str | None:
        return self.campaign.dice_seed if self.ended else None  # disclosed at the CG's end

    @cached_property
    def currency(self) -> str:
        return self.module.currency.code

    @cached_property
    def currency_name(self) -> str:
        return self.module.currency.name

    @property
    def fortification_currency(self) -> str | None:
        forts = self.module.fortifications
        return forts.currency if forts else None

    @property
    def at(self) -> str:
        return position_token(self.campaign)

    @cached_property
    def initiative(self) -> str:
        """The latest revealed initiative result, in short (public once revealed; the
        whole reveal with its explanation is in the log, once)."""
        latest = _LATEST_OUTCOME(campaign=self.campaign_id)
        if not latest:
            return previous_winner_moves_first(self.campaign, self.module)
        outcome = latest[0]
        date = self.module.dates[outcome.date_index].label
        chits = {
            ch.side: ch.get_chit_display()
            for ch in _CHITS_OF_PASS(
                side=self.viewer, campaign=self.campaign_id, cycle=outcome.cycle
            )
        }
        chosen = ", ".join(f"{s.name} {chits[s.id]}" for s in self.module.sides if s.id in chits)
        parts = [f"Initiative for {date}: {chosen} → {outcome.label}"]
        if outcome.sets_up_first:
            parts.append(f"{self.module.side(outcome.sets_up_first).name} sets up first")
        if outcome.moves_first:
            parts.append(f"{self.module.side(outcome.moves_first).name} moves first")
        return "; ".join(parts) + "." + self._decided_by(outcome)

    def _decided_by(self, outcome: InitiativeOutcome) -> str:
        """The drs that decided who sets up and who moves first (``decided_by``)."""
        said = decided_by(
            self.module,
            outcome,
            lambda: _SIDE_ROLLS(
                campaign=self.campaign_id,
                side=self.viewer,
                date_index=outcome.date_index,
                cycle=outcome.cycle,
            ),
        )
        return (" " + "; ".join(said) + ".") if said else ""

    # ------------------------------------------------------------ parts

    @cached_property
    def sides(self) -> list[SideView]:
        return [
            SideView(
                id=s.side,
                name=self.module.side(s.side).name,
                player=s.user.get_username() if s.user else None,
                online=bool(getattr(s, "online", False)),
                is_me=s.side == self.viewer,
                points=s.points if s.side == self.viewer else None,
                fortification_points=s.fortification_points if s.side == self.viewer else None,
                san=s.san if s.side == self.viewer else None,
            )
            for s in self.seats
        ]

    @cached_property
    def me(self) -> SideView:
        return next(s for s in self.sides if s.is_me)

    @cached_property
    def opponent(self) -> SideView:
        return next(s for s in self.sides if not s.is_me)

    @cached_property
    def panel(self) -> StepPanel | None:
        return None if self.ended else build_panel(self)

    @cached_property
    def record(self) -> list[PurchaseLine]:
        return record_lines(self.campaign, self.module, self.viewer, self.purchases)

    @cached_property
    def rg_states(self) -> list[tuple[str, str]]:
        fired = bool(availability.fired_tables(self.module))  # PHD TM13, C5.34
        return [c for c in Purchase.State.choices if fired or c[0] != Purchase.State.FIRED]

    @cached_property
    def awaiting_answer(self) -> list[str]:
        """The opponent's proposals this player is to accept or refuse: data the rules
        lack, an amendment of the scenario result (the header says so first).  Read from
        the proposals themselves, not from the step's panel (the header is rendered
        without it; the panel shows the same values)."""
        asked = [
            f"the {s.label} ({s.rule}) {s.proposal.by} proposed"
            for s in self.supplies
            if s.proposal is not None and not s.proposal.mine
        ]
        amend = self.amend
        if amend is not None and amend.proposed_by and not amend.mine:
            asked.append(f"the amendment of the result {amend.proposed_by} proposed")
        asked += [f"the correction of {c.by}'s {c.what}" for c in self.corrections if not c.mine]
        if self.takeback_asked_by:
            asked.append(
                f"{self.takeback_asked_by}'s request to take back its Done at {self.step.id}"
            )
        return asked

    @cached_property
    def amend(self) -> AmendView | None:
        """The result of this pass while it may be amended by consent, with its open
        amendment (``panels.amend_view``; None once the CG has ended)."""
        return None if self.ended else amend_view(self)

    @cached_property
    def corrections_open(self) -> list[RollCorrection]:
        """The corrections of rolls' write-backs proposed at this step, not answered yet
        (``corrections.open_corrections``): one statement, at a step that shows rolls."""
        return open_corrections(self.campaign)

    @cached_property
    def corrections(self) -> list[CorrectionView]:
        """The open corrections as the viewer reads them, at a step that shows its rolls
        while the CG runs (none elsewhere): the step's panel lists them."""
        if self.ended or Show.ROLLS not in kind_of(self.step_def.kind).shows:
            return []
        return correction_views(self.module, self.viewer, self.corrections_open)

    @cached_property
    def takeback_asked_by(self) -> str:
        """The opponent's side name where it asks to take back its Done at this step
        ("" : it does not, or the CG has ended)."""
        return "" if self.ended else takeback_asked_by(self)

    @cached_property
    def supplies(self) -> list[SupplyView]:
        """What the rules documents lack and the players supply (public)."""
        return supply_views(self.campaign, self.module, self.viewer)

    @cached_property
    def packages(self) -> list[PackageView]:
        """The open start sheets (public)."""
        return package_views(self.supplies)

    @cached_property
    def supplies_missing(self) -> int:
        """How many data the rules lack are still to be supplied, unproposed."""
        return sum(1 for s in self.supplies if s.missing and s.proposal is None)

    @cached_property
    def supplies_first(self) -> bool:
        """The page leads with the rules data to supply when an opponent's proposal
        awaits this player's answer, or, before the Initial Scenario, while the start
        sheet has several data still to fill in (the start agreed before it is played)."""
        return self.supplies_await_answer or (
            self.step_def.start and self.supplies_missing > 1 and not self.ended
        )

    @cached_property
    def supplies_await_answer(self) -> bool:
        """An opponent's proposal awaits this player's answer."""
        return any(s.proposal is not None and not s.proposal.mine for s in self.supplies)

    @cached_property
    def supply_items_open(self) -> bool:
        """Each datum is listed open while a proposal awaits an answer, or when the
        start sheet would not spare the player anything (one datum left at most)."""
        return self.supplies_missing <= 1 or any(s.proposal is not None for s in self.supplies)

    @cached_property
    def supplies_open(self) -> bool:
        """The list stays unfolded while a datum is missing or a proposal is open."""
        return any(s.missing or s.proposal is not None for s in self.supplies)

    @cached_property
    def supply_paths(self) -> set[str]:
        return {s.path for s in self.supplies}

    @cached_property
    def unsupplied_paths(self) -> set[str]:
        """The data the rules text lacks, in whole or in part, that the players have
        not supplied yet (a table whose rows are lost: its page says so beside it)."""
        return {s.path for s in self.supplies if not s.supplied_by}

    @cached_property
    def _log_and_thread(self) -> tuple[list[EventView], list[tuple[str, str, Any, Any]]]:
        """The log's lines (``event_views``) and the thread's rows (``_MESSAGES``), read
        in one statement (``_LOG_AND_THREAD``)."""
        rows = _LOG_AND_THREAD(side=self.viewer, campaign=self.campaign_id)
        labels = [d.label for d in self.module.dates]
        log = [
            EventView(date=labels[date_index], step_id=step_id, text=shown)
            for kind, date_index, step_id, shown, *_ in rows
            if kind != EventKind.MESSAGE
        ][:LOG_WINDOW]
        thread = [
            (side, kind, data, when)
            for kind, _, _, _, in_thread, side, data, when, _ in rows
            if in_thread
        ][:MESSAGES_SHOWN]
        full = len(rows) == _LOG_AND_THREAD_WINDOW
        at_seat = bool(rows) and rows[0][-1] == self.seat.revision
        key = (self.campaign.pk, self.viewer, self.seat.revision)
        if full and len(log) < LOG_WINDOW:  # messages cut the log short
            log = event_views(self.campaign, self.viewer, self.module)
        elif at_seat:  # the log of the seat's revision
            SHOWN_LOGS.put(key, tuple(log))
        if at_seat and "purchases" in self.__dict__:
            # Read after the seat and before this statement, both at the seat's revision
            # (a revision is never given twice): at that revision too, even if none.
            SHOWN_PURCHASES.put(key, tuple(self.purchases))
        if full and len(thread) < MESSAGES_SHOWN:  # the log cut the thread short
            thread = list(_MESSAGES(side=self.viewer, campaign=self.campaign_id))
        return log, thread

    @cached_property
    def events(self) -> list[EventView]:
        return self._log_and_thread[0]

    def _before(
        self, changes: Sequence[Change], said: Callable[[Change], object]
    ) -> tuple[list[Change], UUID] | None:
        """The ``changes`` the seat heard and the revision it had before them, where
        what it was shown then is what it is shown now but for them: the seat's
        revision is the one the last of them gave it, its renewals since that earlier
        revision are theirs alone (``Seat.renewed_by``: a seat is shown another change
        only at a change that renews it), and each says what ``said`` reads of it."""
        seat = self.seat
        heard = [c for c in changes if c.reaches(self.viewer)]
        if not heard or heard[-1].revision != seat.revision:
            return None
        since = renewals(seat.renewed_by)
        if (
            any(said(c) is None for c in heard)
            or len(since) < len(heard)
            or since[len(heard) - 1][1] != {type(c) for c in heard}
        ):
            return None
        return heard, since[len(heard) - 1][0]

    def log_after(self, changes: Sequence[Change]) -> None:
        """The log after ``changes`` (the action's, just committed), without reading
        it: the log the seat was shown at the revision before them (``SHOWN_LOGS``)
        with the lines they recorded (``Change.logged``) as the gate shows them to the
        seat (``visibility.event_shown``).  Only where the seat's revision is the one
        the last of them gave it and its renewals since that earlier revision are
        theirs alone (``Seat.renewed_by``: a seat reads another line only at a change
        that renews it); else the log is read as ever."""
        if "events" in self.__dict__:
            return
        seat, viewer = self.seat, self.viewer
        found = self._before(changes, attrgetter("logged"))
        if found is None:
            return
        heard, earlier = found
        lines = [line for c in heard for line in c.logged or ()]
        before = SHOWN_LOGS.get((self.campaign.pk, viewer, earlier))
        if before is None:
            return
        labels = [d.label for d in self.module.dates]
        added = [
            EventView(date=labels[line.date_index], step_id=line.step_id, text=shown)
            for line in reversed(lines)
            if line.kind != EventKind.MESSAGE and (shown := event_shown(line, viewer))
        ]
        log = [*added, *before][:LOG_WINDOW]
        self.__dict__["events"] = log
        SHOWN_LOGS.put((self.campaign.pk, viewer, seat.revision), tuple(log))

    @cached_property
    def messages(self) -> list[MessageView]:
        """The players' messages, the latest ``MESSAGES_SHOWN``, oldest first (read
        through the gate like every line of the log)."""
        rows = self._log_and_thread[1]
        names = {s.id: s.name for s in self.module.sides}
        return [
            MessageView(names.get(side, side), said, when, side == self.viewer)
            for side, kind, data, when in reversed(rows)
            if (said := _thread_line(kind, data))
        ]

    @property
    def log_days(self) -> list[tuple[str, list[EventView]]]:
        """The log's lines by CG date (runs of one date, newest first)."""
        return [(date, list(lines)) for date, lines in groupby(self.events, attrgetter("date"))]

    @cached_property
    def _invitation(self) -> Invitation | None:
        """The open invitation, for the host only, while a side is free."""
        if self.campaign.host_id != self.seat.user_id or all(s.user_id for s in self.seats):
            return None
        return Invitation.objects.filter(
            campaign=self.campaign, revoked_at__isnull=True, used_at__isnull=True
        ).first()

    @property
    def can_export(self) -> bool:
        """The host may download the whole campaign (both sides' secrets) once the CG
        has ended, or while nobody else is seated."""
        if self.campaign.host_id != self.seat.user_id:
            return False
        return self.ended or not all(s.user_id for s in self.seats)

    @property
    def invitation(self) -> str | None:
        return self._invitation.token if self._invitation else None

    @property
    def invitation_side(self) -> str | None:
        return self._invitation.side if self._invitation else None

    # ------------------------------------------------------------ whole

    def as_json(self) -> dict[str, Any]:
        data = {name: plain(getattr(self, name)) for name in JSON_FIELDS}
        data["invitation_open"] = self.invitation is not None
        return data


def campaign_view(user: Any, campaign_id: object) -> CampaignView:
    """The campaign page of ``user``'s seat (404 for anyone not seated): the campaign,
    its seats and the current step's progress come in one query."""
    pk = as_uuid(campaign_id)
    seats = campaign_seats(pk) if pk and getattr(user, "is_authenticated", False) else []
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise Http404(NOT_YOURS)
    return CampaignView(seat.campaign, seat.side, seats=seats, done=seats_done(seats))
