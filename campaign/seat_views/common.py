"""Pieces every page shares: who may see a campaign at all, a seat's status, and the
view rows of rolls, events and RG Purchase Record lines (built from gated querysets)."""

from __future__ import annotations

import hashlib
import operator
import pickle
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from typing import Any

from django.db import DEFAULT_DB_ALIAS
from django.db.models import IntegerField, QuerySet, Subquery, TextChoices
from django.http import Http404

from campaign.memo import Memo
from campaign.models import (
    AddedLater,
    Campaign,
    Event,
    EventKind,
    InitiativeOutcome,
    Purchase,
    Roll,
    ScenarioResult,
    Seat,
)
from campaign.prepared import CAMPAIGN, SIDE, Param, PreparedRead
from campaign.selectors import DEFERRED, as_uuid
from campaign.visibility import PURCHASE
from rules import availability
from rules.purchase import (
    Addition,
    add_later_offers,
    add_later_options,
    implied_words,
    makes_rolls,
    owed_tables,
    printed_implies,
    received_when_recorded,
    records_objective,
    records_strength,
    roll_variants,
)
from rules.schema import Module, RollForSide
from rules.text import printed

NOT_YOURS = "There is no such campaign, or it is not yours."
LOG_WINDOW = 200  # newest events on a page; the filter runs before the window


# The user's seats in a campaign, the first taken first (as ``.first()`` would).
_MEMBER_SEAT = PreparedRead(
    lambda: (
        Seat.objects.select_related("campaign")
        .defer(DEFERRED)
        .filter(campaign_id=CAMPAIGN, user_id=Param("user", IntegerField()))
        .order_by("id")
    )
)


def member_seat(user: Any, campaign_id: object) -> tuple[Campaign, Seat]:
    """The campaign and the user's seat in it; 404 for everyone else."""
    if not getattr(user, "is_authenticated", False):
        raise Http404(NOT_YOURS)
    pk = as_uuid(campaign_id)
    seats = _MEMBER_SEAT(campaign=pk, user=user.pk) if pk else []
    if not seats:
        raise Http404(NOT_YOURS)
    return seats[0].campaign, seats[0]


def choice_label(choices: type[TextChoices], value: str) -> str:
    """A choice's label, as ``get_FOO_display()`` gives it (the value itself when it
    is no choice), without that method's flattening of the field's choices at every
    call: the roster and the purchase records ask it for every line."""
    member = choices._value2member_map_.get(value)
    return str(member.label) if isinstance(member, TextChoices) else value


def plain(value: Any) -> Any:
    """A view as plain data, for JSON and digests: ``dataclasses.asdict`` without its
    deep copy of every value (views hold plain values, never shared mutable ones)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def status_for(
    viewer: str,
    waiting_for: list[str],
    ended: bool,
    *,
    opponent_joined: bool = True,
    in_play: bool = False,
) -> str:
    """What the campaign waits for, from ``viewer``'s seat: "you", "opponent", "both",
    "join" (the opponent has not taken the other side yet), "map" (the scenario is
    being played on the map; either player enters its result when it ends), "ended"."""
    if ended:
        return "ended"
    if not opponent_joined:
        return "join"
    if in_play and len(waiting_for) > 1:
        return "map"
    if viewer in waiting_for:
        return "both" if len(waiting_for) > 1 else "you"
    return "opponent" if waiting_for else "none"


def your_move(status: str) -> bool:
    """The campaign waits for this seat's action (the title's badge, the count)."""
    return status in ("you", "both")


@dataclass(frozen=True)
class RollView:
    # The roll's number in the campaign: shown only once the CG has ended, since gaps
    # between numbers would count the opponent's secret rolls.
    seq: int | None
    side: str
    purpose: str
    item: str
    dice: str
    faces: list[int]
    drms: list[dict[str, Any]]
    final: int
    result: str
    # Where its dice come from ("public #3", "secret-axis #2"): shown with ``seq``.
    drawn: str | None = None


def roll_view(r: Roll, *, ended: bool) -> RollView:
    return RollView(
        r.seq if ended else None,
        r.side,
        r.purpose,
        r.item,
        r.dice,
        list(r.faces),
        list(r.drms),
        r.final,
        r.result,
        f"{r.stream} #{r.draw}" if ended and r.stream else None,
    )


@dataclass(frozen=True)
class EventView:
    """A line of the campaign log, as the log shows it."""

    date: str  # the CG date's label (the log groups its lines by date)
    step_id: str
    text: str


_EVENTS = PreparedRead(
    # ``shown`` is annotated by the gate (``visible_to``), which the stubs cannot see.
    lambda: (
        Event.objects.visible_to(SIDE)  # type: ignore[misc]
        .filter(campaign_id=CAMPAIGN)
        .exclude(kind=EventKind.MESSAGE)  # the players' messages have their own card
        .order_by("-id")
        .values_list("date_index", "step_id", "shown")[:LOG_WINDOW]
    )
)


def event_views(campaign: Campaign, side: str, module: Module) -> list[EventView]:
    """The newest events the seat may read, newest first (plain rows of the columns
    the log shows: a log holds up to ``LOG_WINDOW`` of them, and a model instance, or
    a timestamp decoded, each would cost more than the rest of the read)."""
    rows = _EVENTS(side=side, campaign=campaign.pk)
    labels = [d.label for d in module.dates]
    return [
        EventView(date=labels[date_index], step_id=step_id, text=shown)  # shown: the gate's
        for date_index, step_id, shown in rows
    ]


@dataclass(frozen=True)
class PurchaseLine:
    """A line of the RG Purchase Record (3.6179)."""

    id: str  # the purchase's opaque reference (``Purchase.ref``), never its key
    side: str  # side name
    mine: bool
    date: str
    group_id: str
    group_type: str
    cost: int | None
    number_purchased: int | str  # #P: of this RG so far in the CG, among the lines shown;
    # "OB" for a line of the Initial-Scenario OB (not a purchase: no limit counts it, 3.6179)
    number_remaining: str  # #R
    strength: str
    units: int | None
    sw: str
    rolls: tuple[str, ...]
    entry_area: str
    notes: str
    revealed: bool
    can_cancel: bool
    can_roll: bool
    # Its "rolls" record it only: no secret roll is made for its RG (an OBA module).
    no_rolls: bool = False
    # What recording such an RG gives it (its chart row's units, what comes with them:
    # "80+mm OBA Module, radio"): "" for one that gives only points or the Recon.
    receives: str = ""
    received: str = ""  # the same, once recorded, on the owner's line
    state: str = "held"  # Purchase.State: in the OB, eliminated, withdrawn, used up
    # The viewer's own line, revealed by the campaign's policy with what its secret DRs
    # gave it held from the opponent (``visibility.PURCHASE.held``): he may show that.
    held: bool = False
    state_label: str = "in the OB"
    can_change_state: bool = False
    # DRMs the player may claim for its secret rolls: (table id, DRM id, label, value).
    claims: tuple[tuple[str, str, str, int], ...] = ()
    # An OB line's other ways to enter before its rolls (variant, words): by paradrop.
    entering: tuple[tuple[str, str], ...] = ()
    # The price it was bought at, where not the printed one ("In Reserve", PHD C5.32).
    bought_as: str = ""
    # Its Objective Hex, where the record has the column for its RG (Sicily 3.6179).
    has_objective: bool = False
    objective_hex: str = ""
    # Items bought for it later, as the seat may see them ("1 further Pre-Registered
    # hex (2 TP)", PHD RG footnote p), and those the owner may buy for it now: (item
    # id, label, what the player affirms with the rule).
    added_later: tuple[str, ...] = ()
    can_add_later: tuple[tuple[str, str, str], ...] = ()
    # The items bought later the owner may cancel at this purchase step: (item id,
    # label), the last of each.
    can_cancel_later: tuple[tuple[str, str], ...] = ()
    # The hex its purchase recorded, with the rules' words ("Pre-Registered hex 12F4",
    # Sicily British chart footnote i).
    recorded_hex: str = ""
    # The hex the owner records again on each CG Date, its label ("Offboard Observer
    # hex", British chart footnote j): the Roster's form asks for it.
    asks_hex: str = ""
    # What its price obliges, where the price says (Sicily 3.6175: "must be set up
    # on-map in Reserve"; "may be set up on-map ... on the same CG Date"), with its rule.
    implies: str = ""


def claims(
    module: Module, side: str, group_id: str, cost_variant: str = ""
) -> list[tuple[str, str, str, int]]:
    """The DRMs of an RG's post-purchase rolls that the player claims by ticking."""
    return [
        (table.id, d.id, f"{d.label} ({table.title})", d.value)
        for table, d in availability.claimable_drms(module, side, group_id, cost_variant)
    ]


def _recorded_hex(module: Module, p: Purchase, date_index: int | None = None) -> str:
    group = module.group(p.side, p.group_id)
    asked = group.records_hex if group is not None else None
    if asked and asked.each_date_before and date_index is not None:
        # Recorded again on each CG Date (British chart footnote j): say for which.
        when = p.details.get("hex_date")
        date = module.dates[date_index].label
        if p.recorded_hex and when == date_index:
            return f"{asked.label} {p.recorded_hex} for {date}"
        return f"{asked.label} not yet recorded for {date} ({asked.rule})"
    return f"{asked.label} {p.recorded_hex}" if asked and p.recorded_hex else ""


def _asks_hex(module: Module, p: Purchase) -> str:
    group = module.group(p.side, p.group_id)
    asked = group.records_hex if group is not None else None
    return asked.label if asked and asked.each_date_before else ""


def _entering(module: Module, p: Purchase) -> tuple[tuple[str, str], ...]:
    group = availability.find_group(module, p.side, p.group_id)
    return tuple((o.variant, o.label) for o in roll_variants(module, p.side, group))


def _claims(
    known: dict[tuple[str, str, str], list[tuple[str, str, str, int]]],
    module: Module,
    key: tuple[str, str, str],
) -> list[tuple[str, str, str, int]]:
    """``claims`` of a (side, RG ID, price), worked out once per record."""
    if key not in known:
        known[key] = claims(module, *key)
    return known[key]


def seat_revision() -> Subquery:
    """The reading seat's revision, read in the statement that reads what it is shown
    (one snapshot): what was read is what the seat was shown at that revision."""
    return Subquery(Seat.objects.filter(campaign_id=CAMPAIGN, side=SIDE).values("revision")[:1])


def _visible_active() -> QuerySet[Purchase]:
    return (
        Purchase.objects.visible_to(SIDE)
        .filter(campaign_id=CAMPAIGN, status=Purchase.Status.ACTIVE)
        .order_by("id")
    )


_VISIBLE_PURCHASES = PreparedRead(_visible_active)
# The same read, each row with the seat's revision (``at_revision``): what a campaign
# page's view keeps per revision (``campaign_page.SHOWN_PURCHASES``).
_VISIBLE_PURCHASES_AT = PreparedRead(
    lambda: _visible_active().annotate(at_revision=seat_revision())
)


def visible_purchases(
    campaign: Campaign, side: str, *, at_revision: bool = False
) -> list[Purchase]:
    """The active purchases ``side``'s seat may read, through the gate, in order;
    ``at_revision``: each with the seat's revision read in the same statement."""
    if at_revision:
        return list(_VISIBLE_PURCHASES_AT(side=side, campaign=campaign.pk))
    return _VISIBLE_PURCHASES(side=side, campaign=campaign.pk)


def purchases_after(
    purchases: Sequence[Purchase], written: Iterable[Purchase], side: str
) -> list[Purchase]:
    """``purchases`` (what ``visible_purchases`` gave ``side``'s seat) after the rows
    ``written`` (as stored, each a line added or changed), without reading them again:
    each through the gate in memory (``PURCHASE.shown``, the twin of the read's
    ``visible_to``), kept while active, in the read's order."""
    rows = {p.pk: p for p in purchases}
    for row in written:
        rows.pop(row.pk, None)
        shown = PURCHASE.shown(_as_read(row), side)
        if shown is not None and row.status == Purchase.Status.ACTIVE:
            rows[row.pk] = shown
    return [rows[pk] for pk in sorted(rows)]


def _as_read(row: Purchase) -> Purchase:
    """A new instance of ``row`` with its stored values as a read gives them (a choice
    as its text, not its enum member): the record's memo key (``_record_key``) is the
    one a read of the same rows makes."""
    values = [v.value if isinstance(v, Enum) else v for v in _STORED(row)]
    return Purchase.from_db(DEFAULT_DB_ALIAS, None, values)


# The record's lines per everything they are computed from (``record_lines``): the
# module (its checksum), the campaign's position, the viewer's side, the items bought
# later that the seat sees and the purchases it sees, each as its stored values.
# Those are already cut down by the visibility gate to what this side may see, and
# the side is in the key, so an entry is never another seat's.  A change that leaves
# the record as it was (a log line, a message, the other side done, a new revision)
# computes it once more only in a process that never met it.  About 32 seats' records.
RECORD_LINES: Memo[tuple[PurchaseLine, ...]] = Memo(size=64)
# A purchase's stored values, as one tuple (one C call per purchase, not one getattr
# per field: a tenth of the key's time with 60 purchases).
_STORED = operator.attrgetter(*(f.attname for f in Purchase._meta.concrete_fields))


def _record_key(
    campaign: Campaign,
    side: str,
    purchases: Sequence[Purchase],
    added: dict[int, list[tuple[str, str, int]]],
) -> tuple[object, ...]:
    stored = [_STORED(p) for p in purchases]
    digest = hashlib.blake2b(
        pickle.dumps((stored, sorted(added.items())), protocol=pickle.HIGHEST_PROTOCOL)
    ).digest()
    position = (campaign.date_index, campaign.step_index, campaign.cycle, campaign.ended_at)
    return (campaign.module_checksum, campaign.pk, side, position, digest)


def record_lines(
    campaign: Campaign, module: Module, side: str, purchases: Iterable[Purchase]
) -> list[PurchaseLine]:
    """The RG Purchase Records from the purchases the seat may see: the viewer's in
    full, the opponent's revealed lines.  #P counts only the lines shown.  Computed
    once per distinct input (``RECORD_LINES``)."""
    purchases = list(purchases)
    added = _added_later(campaign, module, side)
    key = _record_key(campaign, side, purchases, added)
    known = RECORD_LINES.get(key)
    if known is None:
        known = tuple(_record_lines(campaign, module, side, purchases, added))
        RECORD_LINES.put(key, known)
    return list(known)


def _record_lines(
    campaign: Campaign,
    module: Module,
    side: str,
    purchases: Iterable[Purchase],
    added: dict[int, list[tuple[str, str, int]]],
) -> list[PurchaseLine]:
    names = {s.id: s.name for s in module.sides}
    step = module.steps[campaign.step_index]
    lines = []
    count: dict[tuple[str, str], int] = {}
    claimable: dict[tuple[str, str, str], list[tuple[str, str, str, int]]] = {}  # per RG, price
    bought_as = {cv.id: cv.label for cv in module.cost_variants}
    implied = {
        (cv.id, s.id): implied_words(cv, s.id) for cv in module.cost_variants for s in module.sides
    }
    for p in purchases:
        key = (p.side, p.group_id)
        if not p.initial:
            count[key] = count.get(key, 0) + 1
        mine = p.side == side
        # What its secret DRs gave it, where the gate shows it (``visibility.PURCHASE``:
        # held from the opponent till the scenario ends though the line is revealed).
        details = p.details if p.outcome_shown else {}
        strength = p.strength if p.outcome_shown else ""
        rolled = p.rolled_at is not None and p.outcome_shown
        in_purchase = step.kind == "purchase" and p.cycle == campaign.cycle
        # a roll kept until its lost table was supplied (C5.33) is offered again
        owes = p.rolled_at is not None and bool(owed_tables(module, p.details.get("rolls", []))[0])
        can_roll = (
            mine
            and (p.rolled_at is None or owes)
            and step.kind in ("purchase", "strength")
            and not availability.rg_roll_refusal(module, step)
            and not availability.rolls_left_now(
                module,
                step,
                p.side,
                p.group_id,
                p.cost_variant or "",
                p.details.get("stage", {}).get("tables", []),
            )
            and campaign.ended_at is None
        )
        group = module.group(p.side, p.group_id) if mine else None
        silent = group is not None and not makes_rolls(module, p.side, group, p.cost_variant or "")
        receives = (
            ", ".join(received_when_recorded(module, p.side, group))
            if group is not None and silent
            else ""
        )
        lines.append(
            PurchaseLine(
                id=p.ref,
                side=names[p.side],
                mine=mine,
                date=module.dates[p.date_index].label,
                group_id=p.group_id,
                group_type=p.group_type,
                cost=p.cost,
                number_purchased="OB" if p.initial else count[key],
                number_remaining=(
                    "—" if p.initial or p.cg_max is None else str(p.cg_max - count[key])
                ),
                strength={"full": "F", "depleted": "D"}.get(strength, "")
                if records_strength(module, p.side, module.group(p.side, p.group_id))
                else "",
                units=p.units if rolled or strength else None,
                sw=", ".join(f"{n} {w}" for w, n in details.get("sw", {}).items()),
                rolls=tuple(
                    printed(
                        f"{r['table']}: {r['result']}"
                        + (f" ({r['dice']})" if r.get("dice") else "")
                    )
                    for r in details.get("rolls", [])
                ),
                entry_area=p.entry_area,
                notes=p.notes,
                revealed=p.revealed_at is not None,
                held=mine and p.revealed_at is not None and p.outcome_held,
                can_cancel=mine
                and in_purchase
                and not p.initial
                and p.rolled_at is None
                and not p.details.get("rolls"),
                can_roll=can_roll,
                no_rolls=can_roll and p.rolled_at is None and silent,
                # What recording it gives (3.6181: no DR for an O, B or M RG), on its
                # button before and on its line after.
                receives=receives if can_roll and p.rolled_at is None and silent else "",
                received=receives if mine and silent and p.rolled_at is not None else "",
                state=p.state,
                state_label=choice_label(Purchase.State, p.state),
                can_change_state=mine and campaign.ended_at is None,
                claims=tuple(_claims(claimable, module, (*key, p.cost_variant or "")))
                if can_roll
                else (),
                entering=_entering(module, p) if can_roll and p.initial else (),
                bought_as=bought_as.get(p.cost_variant or "", "")
                or (
                    ""
                    if p.initial
                    else printed_implies(module, p.side, module.group(p.side, p.group_id))
                ),
                has_objective=records_objective(module, p.side, module.group(p.side, p.group_id)),
                objective_hex=p.objective_hex,
                added_later=tuple(
                    f"{label} bought on {module.dates[when].label}"
                    for _, label, when in added.get(p.pk, [])
                ),
                can_add_later=tuple(
                    _can_add_later(module, p, added.get(p.pk, []), campaign.date_index)
                    if mine and step.kind == "purchase" and campaign.ended_at is None
                    else ()
                ),
                can_cancel_later=tuple(
                    dict(
                        (item, label)
                        for item, label, when in added.get(p.pk, [])
                        if when == campaign.date_index
                    ).items()
                )
                if mine and step.kind == "purchase" and campaign.ended_at is None
                else (),
                # The opponent's once the gate no longer keeps it apart (footnote i: the
                # roll that uses it, at 3.622).
                recorded_hex=(
                    _recorded_hex(
                        module,
                        p,
                        campaign.date_index if p.state == Purchase.State.HELD else None,
                    )
                    if mine
                    else _recorded_hex(module, p)
                    if p.apart_shown
                    else ""
                ),
                asks_hex=_asks_hex(module, p) if mine and campaign.ended_at is None else "",
                implies=implied.get((p.cost_variant or "", p.side), ""),
            )
        )
    return lines


def _added_later(
    campaign: Campaign, module: Module, side: str
) -> dict[int, list[tuple[str, str, int]]]:
    """What the seat may see of the items bought later for RGs (PHD RG footnote p),
    by purchase: (item id, label, CG date index); nothing read where the module sells
    none."""
    if not module.add_later:
        return {}
    labels = {a.id: a.label for a in module.add_later}
    out: dict[int, list[tuple[str, str, int]]] = {}
    for a in AddedLater.objects.visible_to(side).filter(campaign=campaign).order_by("id"):
        out.setdefault(a.purchase_id, []).append((a.item, labels.get(a.item, a.item), a.date_index))
    return out


def added_later_bought(campaign: Campaign, module: Module, side: str) -> list[AddedLater]:
    """The items bought later for RGs (PHD RG footnote p) the seat may see, with their
    RG's purchase, in the order bought: what each cost on the CG date it was bought
    (the CG Roster's Spent, C5.31); nothing read where the module sells none."""
    if not module.add_later:
        return []
    return list(
        AddedLater.objects.visible_to(side)
        .filter(campaign=campaign)
        .select_related("purchase")
        .order_by("id")
    )


def _can_add_later(
    module: Module, p: Purchase, added: list[tuple[str, str, int]], date_index: int
) -> list[tuple[str, str, str]]:
    """The items the owner may buy now for ``p`` (``rules.purchase.add_later_offers``)."""
    group = module.group(p.side, p.group_id)
    if group is None:
        return []
    out = []
    for extra in add_later_options(module, p.side, group):
        line = Addition(
            group=group,
            cost_variant=p.cost_variant,
            date_index=p.date_index,
            held=p.state == Purchase.State.HELD,
            added=sum(1 for item, _, _ in added if item == extra.id),
        )
        out += [
            (o.item, o.label, o.affirms)
            for o in add_later_offers(module, p.side, line, date_index)
            if o.item == extra.id
        ]
    return out


def previous_winner_moves_first(campaign: Campaign, module: Module) -> str:
    """Where the winner of the scenario played last moves first in the next (APD 2.9,
    4.0: no initiative chits), who that is, in a sentence ("" : not such a CG, or no
    winner recorded yet).  The winner is public: both players confirmed the result."""
    rule = module.scenario_winner
    if rule is None or module.initiative is not None:
        return ""
    # The two latest results: the latest has no winner yet between its entry and the
    # step recording it (the Midday's Clean-Up before 2.9), the one before has.
    latest = list(
        ScenarioResult.objects.filter(campaign=campaign, confirmed_at__isnull=False)
        .order_by("-cycle")
        .values_list("winner", "date_index")[:2]
    )
    won = next(((w, d) for w, d in latest if w), None)
    if won is None:
        return ""
    name = module.side(won[0]).name
    played = module.dates[won[1]].label
    if latest[0][0]:
        return (
            f"{name} won the {played} scenario: {name} moves first, and play begins with "
            f"{name}'s RPh ({rule.rule})."
        )
    # The scenario just played is not decided yet: who moves first next is its winner.
    decides = next((s.id for s in module.steps if s.effect == "record_winner"), rule.rule)
    return (
        f"{name} won the {played} scenario and moved first in the next "
        f"({rule.rule}); the {module.dates[latest[0][1]].label} scenario's winner, who "
        f"moves first next, is decided at {decides}."
    )


def decided_by(
    module: Module, outcome: InitiativeOutcome, rolls: Callable[[], Iterable[Roll]]
) -> list[str]:
    """The drs that decided who sets up and who moves first on ``outcome``'s date, each
    with its rows and rule ("British dr 5 → Axis sets up first (3.6213a: ≤3 British,
    ≥4 Axis)"), where the matrix result leaves them to a dr (``RollForSide``); none
    where it names the sides itself (an Assault, 3.6213c).  ``rolls``: the viewer's
    public rolls of that date and pass (read only when a dr decided something)."""
    ini = module.initiative
    result = next((r for r in ini.results if r.id == outcome.result), None) if ini else None
    if result is not None and result.night is not None and module.dates[outcome.date_index].night:
        result = result.night
    decided = {
        f"who {what} ({roll.rule})": (what, roll, side)
        for what, roll, side in (
            ("sets up first", result and result.sets_up_first, outcome.sets_up_first),
            ("moves first", result and result.moves_first, outcome.moves_first),
        )
        if isinstance(roll, RollForSide) and side
    }
    said: list[str] = []
    for r in rolls() if decided else ():
        if r.purpose not in decided:
            continue
        what, roll, side = decided.pop(r.purpose)
        rows = ", ".join(f"{row['range']} {module.side(row['side']).name}" for row in roll.rows)
        said.append(
            f"{module.side(roll.roller).name} {r.dice} {r.final} → "
            f"{module.side(side).name} {what} ({roll.rule}: {rows})"
        )
    return said
