"""Secret initiative chits (3.621 / C5.x): each side locks Attack or Idle; when the
second locks, the same transaction reveals both, cross-indexes the module's matrix
and moves the campaign on — or loops it to a new date on Idle/Lull.

The lock reads once after the campaign's lock (the pass's done marks and chits, one
statement) and writes once (``writes.deferring``: the chits, the mark, the log lines,
the outcome, the position, the notices and the seats in one statement on PostgreSQL):
the revealing lock runs five statements, session and user included
(``tests/test_queries.py``)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import CharField, IntegerField, Value
from django.utils import timezone

from campaign.changes import ChitLocked, ChitsRevealed, ChitTakenBack, OnMapUnitsDeclared
from campaign.models import Campaign, Event, EventKind, InitiativeChit, InitiativeOutcome, StepMark
from campaign.prepared import CAMPAIGN, Param, PreparedRead
from campaign.selectors import chits_locked, with_rosters_read
from campaign.services import purchases, writes
from campaign.services.errors import ActionRefused
from campaign.services.events import record_event
from campaign.services.flow import (
    advance,
    decide_side,
    goto,
    matrix_result,
    save_position,
)
from campaign.services.turns import Turn, User, expect_turn, mark_done, take_turn
from campaign.services.waiting import update_waiting
from campaign.services.writes import SeatField, commit
from campaign.visibility import CHIT
from rules import availability, machine
from rules.availability import CHITS
from rules.kinds import Action, kind_of
from rules.schema import RollForSide
from rules.text import printed

_CYCLE = Param("cycle", IntegerField())
_NO_STEP = -1  # the chits' rows in the union below
# The pass's done marks (step index, side, "") and its chits (-1, side, chit), read
# in one statement after the campaign's lock: it sees what the other player committed
# while this one waited (``take_turn``), and a chit locked by the other side is in.
_MARKS_AND_CHITS = PreparedRead(
    lambda: (
        StepMark.objects.filter(campaign_id=CAMPAIGN, cycle=_CYCLE)
        .order_by()
        .values_list("step_index", "side", Value("", output_field=CharField()))
        .union(
            InitiativeChit.objects.filter(campaign_id=CAMPAIGN, cycle=_CYCLE)
            .order_by()
            .values_list(Value(_NO_STEP, output_field=IntegerField()), "side", "chit"),
            all=True,
        )
    )
)


def _marks_and_chits(c: Campaign) -> tuple[dict[int, frozenset[str]], dict[str, str]]:
    marks: dict[int, set[str]] = {}
    chits: dict[str, str] = {}
    for index, side, chit in _MARKS_AND_CHITS(campaign=c.pk, cycle=c.cycle):
        if index == _NO_STEP:
            chits[side] = chit
        else:
            marks.setdefault(index, set()).add(side)
    return {i: frozenset(sides) for i, sides in marks.items()}, chits


@transaction.atomic
def lock_initiative(
    *, campaign_id: object, user: User, chit: str, at: str | None = None, by_default: str = ""
) -> None:
    """Lock this side's chit.  The opponent learns only that it was chosen, until both
    are revealed at once; until then the side may take it back (``take_back_chit``).
    ``by_default``: the rule that made it Idle when it picked none (PHD C2.0)."""
    turn = take_turn(campaign_id, user, at)
    c = turn.campaign
    marks, chits = _marks_and_chits(c)
    turn.marks_read(marks)
    with writes.deferring():
        snap = turn.snapshot()
        expect_turn(turn, Action.CHIT, snap)
        # The opponent's roster is read only for the chit it may forbid (3.6212*).
        if chit == "attack":
            snap = with_rosters_read(turn.module, c, snap)
        availability.check_chit(turn.module, snap, chit)
        if chit == "attack":
            attack_owes_hex(turn)
        sides = {s.id for s in turn.module.sides}
        chits = {**chits, turn.side: chit}
        # Every side done once this one is: the chits are revealed in this transaction.
        now = timezone.now() if turn.done | {turn.side} >= sides and chits.keys() >= sides else None
        if now is not None:
            reveal_locked(turn, now)
        writes.insert(
            InitiativeChit(
                campaign=c,
                cycle=c.cycle,
                date_index=c.date_index,
                side=turn.side,
                chit=chit,
                revealed_at=now,
            )
        )
        mark_done(turn)
        name = turn.side_name()
        turn.record(
            EventKind.CHIT,
            text=f"{name} locked its initiative chit: {CHITS[chit]}"
            + (f", having picked none ({by_default})." if by_default else "."),
            secret=CHIT.kept(turn.side, side=name),
            revealed_at=now,
        )
        revealed = [] if now is None else reveal(turn, chits)
        commit(
            c.pk,
            ChitsRevealed() if now else ChitLocked(),
            saving=[*revealed, *update_waiting(turn)],
        )


@transaction.atomic
def take_back_chit(*, campaign_id: object, user: User, at: str | None = None) -> None:
    """The side takes back the chit it locked while the opponent has not locked his
    (picking its chit up again before the simultaneous reveal): it is to choose again.
    The opponent reads that it did, never which chit it had; its own log line keeps the
    chit, marked taken back, and is never revealed by the chits' reveal (the CG's end
    reveals it with every secret).  Revealed chits stand."""
    turn = take_turn(campaign_id, user, at)
    c = turn.campaign
    if Action.CHIT not in kind_of(turn.step.kind).actions:
        raise ActionRefused(
            "No initiative chit is chosen at this step: the chits were revealed and stand.",
            status=409,
        )
    mine = InitiativeChit.objects.filter(campaign=c, cycle=c.cycle, side=turn.side).first()
    if mine is None:
        raise ActionRefused("You have locked no initiative chit to take back.", status=409)
    if mine.revealed_at is not None:
        raise ActionRefused("Both chits are revealed: they stand.", status=409)
    mine.delete()
    StepMark.objects.filter(
        campaign=c, cycle=c.cycle, side=turn.side, step_index__gte=c.step_index
    ).delete()
    turn.forget_done()
    locked = Event.objects.filter(
        campaign=c, kind=EventKind.CHIT, secret_side=turn.side, revealed_at=None
    ).filter(date_index=c.date_index)
    for line in locked:
        line.kind = EventKind.TAKEBACK
        line.text = f"{line.text.rstrip('.')}; taken back before the reveal."
        line.save(update_fields=["kind", "text"])
    name = turn.side_name()
    turn.record(
        EventKind.TAKEBACK,
        text=f"{name} takes back its initiative chit before the reveal; it is to choose again.",
    )
    commit(c.pk, ChitTakenBack(), saving=update_waiting(turn))


def attack_owes_hex(turn: Turn) -> None:
    """Refuse an Attack chit while a hex due before a set-up step taken in order
    (``Step.setup_order``) is not recorded: with it the opponent may set up first, and
    before the side may act there (British chart footnote j: "Secretly record the hex
    prior to German setup"; 3.6213a/d, 3.6222).  An Idle chit leaves no scenario or has
    the side set up first, where the step's own Done asks for it."""
    ordered = [s for s in turn.module.steps if s.setup_order]
    owed = purchases.hex_owed(turn, ordered)
    if owed:
        other = turn.module.side(machine.opponent(turn.module, turn.side)).name
        rules = "; ".join(s.setup_order or "" for s in ordered)
        raise ActionRefused(
            f"{owed[:-1]}: with an Attack chit the {other} may set up first ({rules}).",
            status=409,
        )


def reveal_locked(turn: Turn, now: datetime) -> None:
    """Reveal the chits locked before this transaction and their log lines (the chit
    locked now is written revealed)."""
    c = turn.campaign
    writes.update(
        InitiativeChit.objects.filter(campaign=c, cycle=c.cycle, revealed_at=None),
        revealed_at=now,
    )
    writes.update(
        Event.objects.filter(
            campaign=c, kind=EventKind.CHIT, date_index=c.date_index, revealed_at=None
        ),
        revealed_at=now,
    )


def reveal(turn: Turn, chits: dict[str, str]) -> list[SeatField]:
    """Cross-index the revealed chits (``chits``: side -> chit), find the matrix result
    and its follow-ups, move on.  Returns the seats' changed fields (the Attack chits
    used), for the commit to save."""
    c, module = turn.campaign, turn.module
    ini = module.initiative
    assert ini is not None
    cell = next(cell for cell in ini.matrix if cell.chits == chits)
    result = matrix_result(turn, cell.result)
    used: list[SeatField] = []
    for side, chit in chits.items():
        if chit == "attack":  # the seats are locked: their counts are the stored ones
            turn.seats[side].attack_chits_used += 1
            used.append((turn.seats[side], "attack_chits_used"))
    used += lapse_declarations(turn)
    sets_up = decide_side(turn, result.sets_up_first, "sets up first")
    if result.moves_first == "sets_up_second":
        moves = machine.opponent(module, sets_up) if sets_up else ""
    elif isinstance(result.moves_first, str):
        moves = result.moves_first
    else:
        moves = ""  # a roll after setup (decide_moves_first), or not given
    chosen = ", ".join(f"{s.name} {CHITS[chits[s.id]]}" for s in module.sides)
    text = f"Initiative revealed: {chosen} → {result.label}."
    if sets_up:
        text += f" {module.side(sets_up).name} sets up first."
    if moves:
        text += f" {module.side(moves).name} moves first."
    elif isinstance(result.moves_first, RollForSide):
        text += f" Who moves first is rolled after setup ({result.moves_first.rule})."
    if result.text:
        text += f" {printed(result.text)}"
    writes.insert(
        InitiativeOutcome(
            campaign=c,
            cycle=c.cycle,
            date_index=c.date_index,
            result=cell.result,
            label=result.label,
            scenario=result.scenario,
            attackers=result.attackers,
            sets_up_first=sets_up,
            moves_first=moves,
            text=text,
        )
    )
    c.sets_up_first_now = sets_up
    record_event(
        c, kind=EventKind.INITIATIVE, step_id=turn.step.id, text=text, data={"chits": chits}
    )
    if result.scenario:
        advance(turn)
        return used
    target = result.loops_to or module.flow.idle_loop_from
    if target is None:
        advance(turn)
        return used
    record_event(
        c,
        kind=EventKind.IDLE,
        step_id=turn.step.id,
        text=f"No scenario on {module.dates[c.date_index].label}: steps from {target} repeat "
        "for the next CG date.",
    )
    goto(turn, machine.step_index(module, target), new_pass=True)
    save_position(c)
    advance(turn)
    return used


def lapse_declarations(turn: Turn) -> list[SeatField]:
    """A side's declaration that it has no on-map retained units states what it holds
    *currently* (3.6212 footnote *): it lapses when the chits it could bind are
    revealed, and is made anew on a later date."""
    lapsed: list[SeatField] = []
    for seat in turn.seats.values():
        if seat.no_on_map_units:
            seat.no_on_map_units = False
            lapsed.append((seat, "no_on_map_units"))
    return lapsed


@transaction.atomic
def declare_on_map_units(
    *, campaign_id: object, user: User, has_units: bool, at: str | None = None
) -> None:
    """A side states openly whether it has on-map retained units; the opponent's
    Attack chit may depend on it (e.g. 3.6212*)."""
    turn = take_turn(campaign_id, user, at)
    refusal = availability.declare_refusal(
        turn.module, turn.snapshot(chits=chits_locked(turn.campaign))
    )
    if refusal is not None:
        raise refusal
    turn.seat.no_on_map_units = not has_units
    turn.seat.save(update_fields=["no_on_map_units"])
    turn.record(
        EventKind.DECLARE,
        text=f"{turn.side_name()} declares it has {'' if has_units else 'no '}on-map "
        "retained units.",
    )
    commit(turn.campaign.pk, OnMapUnitsDeclared())


__all__ = ["ActionRefused", "declare_on_map_units", "lock_initiative", "reveal"]
