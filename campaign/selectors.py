"""Reads shared by the write side and the seat views: a campaign's rules, its
position, and the engine's snapshot of one side (through the visibility gate: a
snapshot holds that side's own records and only public facts about the opponent)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from uuid import UUID

from django.db import connection
from django.db.models import (
    BooleanField,
    DateTimeField,
    F,
    IntegerField,
    Q,
    QuerySet,
)
from django.db.models.expressions import RawSQL
from django.utils import timezone

from campaign.models import (
    Campaign,
    Event,
    EventKind,
    FortificationBuy,
    InitiativeChit,
    InitiativeOutcome,
    ModuleRecord,
    Notification,
    Presence,
    Purchase,
    ReconBuy,
    RevealPolicy,
    Roll,
    ScenarioResult,
    Seat,
    StepMark,
    Unit,
)
from campaign.prepared import CAMPAIGN, SIDE, Param, PreparedRead
from rules import availability, machine
from rules.availability import (
    compulsory,
    group_roll_items,
    group_roll_left,
    may_run_through,
    not_counted,
    owed_for,
    owed_what,
    table_date_reasons,
)
from rules.effects import (
    UnitState,
    hardens_mmc,
    in_pairs,
    matches,
    no_mmc_to_harden,
    of_kind,
    own_mmc,
    sent_on,
    targets,
)
from rules.purchase import enters_later
from rules.registry import cached_module, parse_module
from rules.schema import Module, Step, Table, UnitExchange
from rules.snapshot import (
    Bought,
    FortificationBought,
    Holdings,
    Position,
    SideState,
    Snapshot,
)

# Loaded with a request's campaign only when its module is not parsed yet (module_of).
DEFERRED = "campaign__module_data"


def as_uuid(value: object) -> UUID | None:
    """A campaign id from a URL or a form, or None when it is not one."""
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except ValueError:
        return None


def module_of(campaign: Campaign) -> Module:
    """The rules a campaign runs under (the module data it was created with).  A
    module is parsed once per checksum and process; the reads that load a campaign for
    a request defer its large ``module_data`` (``DEFERRED``), read only the first time
    a process meets its checksum."""
    module = cached_module(campaign.module_checksum)
    if module is None:
        module = parse_module(campaign.module_checksum, campaign.module_data)
    return module


def position_of(campaign: Campaign) -> Position:
    return Position(
        date_index=campaign.date_index,
        step_index=campaign.step_index,
        cycle=campaign.cycle,
        ended=campaign.ended_at is not None,
        in_play=campaign.in_play,
    )


def position_token(campaign: Campaign) -> str:
    """The token a form carries: the pass and step it was made for."""
    return f"{campaign.cycle}.{campaign.step_index}"


_PASS_MARKS = PreparedRead(
    lambda: StepMark.objects.filter(
        campaign_id=CAMPAIGN, cycle=Param("cycle", IntegerField())
    ).values_list("step_index", "side")
)


def pass_marks(campaign: Campaign) -> dict[int, frozenset[str]]:
    """The sides done with each step of the campaign's current pass."""
    marks: dict[int, set[str]] = {}
    for index, side in _PASS_MARKS(campaign=campaign.pk, cycle=campaign.cycle):
        marks.setdefault(index, set()).add(side)
    return {index: frozenset(sides) for index, sides in marks.items()}


def done_sides(campaign: Campaign) -> frozenset[str]:
    return frozenset(
        StepMark.objects.filter(
            campaign=campaign, cycle=campaign.cycle, step_index=campaign.step_index
        ).values_list("side", flat=True)
    )


# A seat read's two flags are plain EXISTS clauses: the same subqueries built with
# ``Exists``/``OuterRef`` cost the ORM 2-3 ms to compile on every read, and every page,
# answer and push reads the seats.  Names come from the models' metadata.
_SEAT = Seat._meta.db_table
_ONLINE = (
    f'EXISTS (SELECT 1 FROM "{Presence._meta.db_table}" p'
    f' WHERE p."seat_id" = "{_SEAT}"."id" AND p."expires_at" > %s)'
)
# The campaign's position is read inside the clause: it names only the seat's own
# table, whatever else the query joins.
_DONE = (
    f'EXISTS (SELECT 1 FROM "{StepMark._meta.db_table}" m'
    f' JOIN "{Campaign._meta.db_table}" c ON c."id" = m."campaign_id"'
    f' WHERE m."campaign_id" = "{_SEAT}"."campaign_id" AND m."side" = "{_SEAT}"."side"'
    ' AND m."cycle" = c."cycle" AND m."step_index" = c."step_index")'
)


# Whether the seat's player was told it is their move for the wait the seat is in
# (``notifications.told_your_move``): read with the seats' lock, so that a Done or a
# lock telling the last side awaited "only you" asks nothing more.
_TOLD_YOUR_MOVE = (
    f'EXISTS (SELECT 1 FROM "{Notification._meta.db_table}" n'
    f' WHERE n."seat_id" = "{_SEAT}"."id" AND n."kind" = %s'
    f' AND n."waiting_since" = "{_SEAT}"."waiting_since")'
)


def online_now() -> RawSQL:
    """Whether one of a seat's sockets beats (``services.presence``): for ``online``."""
    now = DateTimeField().get_db_prep_value(timezone.now(), connection)
    return RawSQL(_ONLINE, (now,), output_field=BooleanField())


def _seats(*, lock: bool) -> QuerySet[Seat]:
    """A campaign's seats with their players and the campaign (``campaign_seats``)."""
    qs = (
        Seat.objects.filter(campaign_id=CAMPAIGN)
        .select_related("campaign", "user")
        .defer(DEFERRED)
        .order_by("id")
    )
    if lock:
        return qs.select_for_update(of=("self", "campaign")).annotate(
            notice_frequency=F("user__notification_settings__frequency"),
            told_your_move=RawSQL(
                _TOLD_YOUR_MOVE, (Notification.Kind.YOUR_MOVE.value,), BooleanField()
            ),
        )
    return qs.annotate(
        is_done=RawSQL(_DONE, (), BooleanField()),
        online=RawSQL(_ONLINE, (Param("now", DateTimeField()),), BooleanField()),
    )


_SEATS = PreparedRead(lambda: _seats(lock=False))
_SEATS_LOCKED = PreparedRead(lambda: _seats(lock=True))


def with_online(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    return seats.annotate(online=online_now())


def campaign_seats(campaign_id: UUID | None, *, lock: bool = False) -> list[Seat]:
    """A campaign's seats with their players and the campaign itself (one shared
    object); unless locking, also whether each side has done the current step and
    whether its player is online: one query.

    With ``lock`` the seats and the campaign row are locked, seats in id order, in the
    same statement: every write to a campaign starts here, so two players' actions
    queue one behind the other and never deadlock.  The locking read also brings each
    player's e-mail setting (``notice_frequency``, None when never set): whether a
    notice the action queues can be sent; and whether the player was told it is their
    move for the wait the seat is in (``told_your_move``, for the ``waiting_since``
    read with it: ``told_since``).  A locking read says nothing of
    the done marks: under READ COMMITTED a statement that waited for the lock keeps
    the snapshot it started with, which misses the mark the other player's action
    committed meanwhile; the writer reads them after it holds the lock
    (``Turn.done``)."""
    if campaign_id is None:
        return []
    seats = (
        _SEATS_LOCKED(campaign=campaign_id)
        if lock
        else _SEATS(campaign=campaign_id, now=timezone.now())
    )
    if seats:
        campaign = seats[0].campaign
        for seat in seats:
            seat.campaign = campaign
            if lock:
                setattr(seat, "told_since", seat.waiting_since)  # noqa: B010 (not a field)
    return seats


def seats_done(seats: Iterable[Seat]) -> frozenset[str]:
    return frozenset(s.side for s in seats if getattr(s, "is_done", False))


def side_states(seats: Iterable[Seat], viewer: str) -> dict[str, SideState]:
    """Every side's public state; points only for the viewer's own side."""
    return {
        s.side: SideState(
            side=s.side,
            joined=s.user_id is not None,
            attack_chits_used=s.attack_chits_used,
            no_on_map_units=s.no_on_map_units,
            points=s.points if s.side == viewer else None,
            fortification_points=s.fortification_points if s.side == viewer else None,
            san=s.san if s.side == viewer else None,
        )
        for s in seats
    }


BOUGHT_FIELDS = ("group_id", "date_index", "initial", "state", "ref", "cost_variant")


_ACTIVE_PURCHASES = PreparedRead(
    lambda: Purchase.objects.filter(
        campaign_id=CAMPAIGN,
        side=SIDE,
        status=Purchase.Status.ACTIVE,
    ).only(*BOUGHT_FIELDS, "rolled_at", "ordinal", "date_ordinal")
)


def active_purchases(campaign: Campaign, side: str) -> list[Purchase]:
    """The side's active RGs, with what the limits count, whether each awaits its
    rolls, and its ordinals (what a new purchase numbers itself after)."""
    return _ACTIVE_PURCHASES(campaign=campaign.pk, side=side)


def bought_of(p: Purchase) -> Bought:
    """A purchase as the engine's limits count it."""
    return Bought(p.group_id, p.date_index, p.initial, p.state, p.ref, p.cost_variant)


def bought(campaign: Campaign, side: str) -> tuple[tuple[Bought, ...], tuple[str, ...]]:
    """The side's RGs as the limits count them, and which await their rolls."""
    rows = active_purchases(campaign, side)
    unrolled = tuple(p.group_id for p in rows if p.rolled_at is None)
    return tuple(bought_of(p) for p in rows), unrolled


def squad_counts(
    campaign: Campaign, side: str
) -> tuple[int, int, tuple[tuple[str, int, int, int], ...]]:
    """The side's retained squads and half-squads/crews (what a HIP cap counts), and
    those of RGs bought at a cost variant: (variant, date index, squads, half-squads)."""
    return retained_mmc(campaign, side)[:3]


def retained_mmc(
    campaign: Campaign, side: str
) -> tuple[int, int, tuple[tuple[str, int, int, int], ...], tuple[str, ...]]:
    """``squad_counts``, and the RGs (IDs) of which a squad or half-squad is still
    retained (Sicily 3.619 footnote d: "when >= 1 airborne MMC is currently retained"),
    in one query.  A squad or half-squad marked captured is a man held prisoner, not
    one the side retains (``effects.own_mmc``): neither counted nor keeping its RG."""
    totals = {"squad": 0, "half_squad": 0}
    by_variant: dict[tuple[str, int], dict[str, int]] = {}
    groups: set[str] = set()
    for kind, markers, variant, date_index, group_id, n in Unit.objects.filter(
        campaign=campaign, side=side, kind__in=["squad", "half_squad"]
    ).values_list(
        "kind",
        "markers",
        "purchase__cost_variant",
        "purchase__date_index",
        "purchase__group_id",
        "count",
    ):
        if not own_mmc(UnitState("", kind, tuple(markers or ()))):
            continue
        totals[kind] += n
        if group_id and n > 0:
            groups.add(group_id)
        if variant:
            by_variant.setdefault((variant, date_index), {}).setdefault(kind, 0)
            by_variant[variant, date_index][kind] += n
    bought_as = tuple(
        (variant, date_index, k.get("squad", 0), k.get("half_squad", 0))
        for (variant, date_index), k in sorted(by_variant.items())
    )
    return totals["squad"], totals["half_squad"], bought_as, tuple(sorted(groups))


def holdings(
    campaign: Campaign,
    side: str,
    *,
    purchases: bool = False,
    fortifications: bool = False,
    recon: bool = False,
    owed: bool = False,
) -> Holdings:
    """The side's own records the caller needs (one query each)."""
    forts: tuple[FortificationBought, ...] = ()
    if fortifications:
        forts = tuple(
            FortificationBought(item_id, date_index, count, tier, cost, location)
            for item_id, date_index, count, tier, cost, location in FortificationBuy.objects.filter(
                campaign=campaign, side=side
            ).values_list("item_id", "date_index", "count", "tier", "cost", "location")
        )
    recon_dates: frozenset[int] = frozenset()
    recon_rolled: frozenset[str] = frozenset()
    if recon:
        rows = list(
            ReconBuy.objects.filter(campaign=campaign, side=side).values_list(
                "date_index", "purchase__ref"
            )
        )
        recon_dates = frozenset(d for d, ref in rows if ref is None)
        recon_rolled = frozenset(ref for _, ref in rows if ref is not None)
    squads, half_squads, bought_as, mmc_groups = (
        retained_mmc(campaign, side) if fortifications else (0, 0, (), ())
    )
    held, unrolled = bought(campaign, side) if purchases or fortifications or recon else ((), ())
    caps = owed and bool(module_of(campaign).held_caps)
    units = side_units(campaign, side, origin=caps)
    return Holdings(
        bought=held,
        fortifications=forts,
        recon_dates=recon_dates,
        recon_rolled=recon_rolled,
        unrolled=unrolled,
        squads=squads,
        half_squads=half_squads,
        bought_as=bought_as,
        mmc_groups=mmc_groups,
        owed=owed_rolls(campaign, module_of(campaign), side, units) if owed else (),
        exchanges=exchanges_held(campaign, module_of(campaign), side, units)
        if owed
        else frozenset(),
        result_totals=result_totals(campaign, side) if purchases else (),
        setup_areas=own_setup_areas(campaign, side) if purchases else None,
        capped=capped_units(campaign, module_of(campaign), side, units) if owed else (),
    )


def capped_units(
    campaign: Campaign, module: Module, side: str, units: SideUnits | None = None
) -> tuple[UnitState, ...]:
    """The side's retained units a cap of the module counts (``Module.held_caps``,
    Sicily 3.60742 EXC), each with its RG and its line's count (``units``' read, shared
    with the owed rolls and the exchanges, read with ``origin``; none without such
    caps)."""
    if not module.held_caps:
        return ()
    held = (
        replace(unit.state, group=getattr(unit, "origin", None) or "", count=unit.count)
        for unit in (units or side_units(campaign, side, origin=True))()
    )
    return tuple(u for u in held if any(matches(cap.units, u) for cap in module.held_caps))


def with_origin(unit: Unit) -> UnitState:
    """What the rules read of ``unit`` with the RG it came with and its line's count
    (``unit.purchase`` read with it)."""
    return replace(
        unit.state, group=unit.purchase.group_id if unit.purchase else "", count=unit.count
    )


def enemy_setup_areas(
    campaign: Campaign, module: Module, side: str, seats: Mapping[str, Seat] | None = None
) -> tuple[str, ...]:
    """The IDs the side other than ``side`` lists as its Setup Areas (Sicily 3.605;
    public, ``Seat.setup_areas``): () where the module records none.  ``seats``: the
    seats the caller already holds (a turn's locked rows), read instead of the table."""
    if module.setup_areas is None or module.setup_areas.step is None:
        return ()
    other = machine.opponent(module, side)
    if seats is not None and other in seats:
        return tuple(seats[other].setup_areas or ())
    listed: list[list[str]] = list(
        Seat.objects.filter(campaign=campaign, side=other).values_list("setup_areas", flat=True)
    )
    return tuple(listed[0] or ()) if listed else ()


# The confirmed results' figures (compiled once: the purchase chart and every purchase
# of a CG whose prices or caps read them make these reads).
_CONFIRMED_RESULTS = PreparedRead(
    lambda: ScenarioResult.objects.filter(
        campaign_id=CAMPAIGN, confirmed_at__isnull=False
    ).values_list("data", flat=True)
)


def result_totals(campaign: Campaign, side: str) -> tuple[tuple[str, int], ...]:
    """``side``'s totals of the result figures its chart caps purchases by, over the
    confirmed results (as amended: PHD C5.31 RG footnote z, the crews eliminated in
    play); one query, none when its chart has no such cap."""
    chart = module_of(campaign).chart(side)
    fields = {r.field for r in (chart.restrictions if chart else []) if r.kind == "result_cap"}
    if not fields:
        return ()
    totals = dict.fromkeys(sorted(fields), 0)
    for data in _CONFIRMED_RESULTS(campaign=campaign.pk):
        for f in fields:
            value = (data.get(f) or {}).get(side)
            totals[f] += value if isinstance(value, int) and not isinstance(value, bool) else 0
    return tuple(totals.items())


def own_setup_areas(
    campaign: Campaign, side: str, variant: str | None = None
) -> tuple[str, ...] | None:
    """``side``'s own Setup Area list (Sicily 3.605, ``Seat.setup_areas``) where a price
    (only the price ``variant``'s, if given) needs one of its Setup Areas
    (``CostVariant.needs_setup_area``, Sicily 3.6175); None where the side never listed
    (``Seat.areas_cycle`` null) or no price reads it (no query then)."""
    module = module_of(campaign)
    if not any(
        side in cv.needs_setup_area and (variant is None or cv.id == variant)
        for cv in module.cost_variants
    ):
        return None
    row = Seat.objects.filter(campaign=campaign, side=side).values_list(
        "setup_areas", "areas_cycle"
    )[:1]
    listed = row[0] if row else None
    if listed is None or listed[1] is None:
        return None
    return tuple(listed[0] or ())


# The compulsory rolls' reads, compiled once (``campaign.prepared``): every campaign
# page and answer at a step with such tables ahead makes them.  The side's own rolls
# of the pass (through the gate, which passes all of a side's own: the rolls made and,
# for a table an earlier roll sends units to, ``Table.after``, that roll's results)
# and units (the owner's rows: no gate to pass).
_ROLLED = PreparedRead(
    lambda: (
        Roll.objects.visible_to(SIDE)
        .filter(campaign_id=CAMPAIGN, cycle=Param("cycle", IntegerField()), side=SIDE)
        .values_list("table_id", "unit_ref", "stack", "final", "faces")
    )
)
RollsOfPass = list[tuple[str, str, str, int, list[int]]]
PassRolls = Callable[[], RollsOfPass]


def pass_rolls(campaign: Campaign, side: str) -> PassRolls:
    """``side``'s own rolls in the campaign's pass, read at the first call and kept: in
    the order made, each its table, unit (or "<unit>.<weapon>", or "" for none), the
    stack's other units, final and dice (one statement, through the gate, which shows
    a side all its own).  What the owed rolls, the units an earlier roll sends to a
    table and the units' roll choices all read."""
    read: list[RollsOfPass] = []

    def rolls() -> RollsOfPass:
        if not read:
            read.append(_ROLLED(side=side, campaign=campaign.pk, cycle=campaign.cycle))
        return read[0]

    return rolls


def _side_units() -> QuerySet[Unit]:
    return Unit.objects.filter(campaign_id=CAMPAIGN, side=SIDE).only(
        "ref",
        "name",
        "kind",
        "markers",
        "count",
        "weapons",  # ``state`` reads four
    )


_SIDE_UNITS = PreparedRead(_side_units)
# With the RG each came with (what a held cap counts, ``capped_units``): its ID only.
_SIDE_UNITS_WITH_ORIGIN = PreparedRead(
    lambda: _side_units().annotate(origin=F("purchase__group_id"))
)


SideUnits = Callable[[], list[Unit]]


def side_units(campaign: Campaign, side: str, *, origin: bool = False) -> SideUnits:
    """``side``'s own retained units, read at the first call and kept: what the owed
    rolls, the exchanges ahead and (``origin``: each with the ID of the RG it came
    with) the held caps all read, in one statement."""
    read: list[list[Unit]] = []
    units_read = _SIDE_UNITS_WITH_ORIGIN if origin else _SIDE_UNITS

    def units() -> list[Unit]:
        if not read:
            read.append(list[Unit](units_read(campaign=campaign.pk, side=side)))
        return read[0]

    return units


def sent_to(
    campaign: Campaign,
    module: Module,
    table_id: str,
    side: str,
    rolls: PassRolls | None = None,
) -> set[str] | None:
    """The references of ``side``'s units that an earlier roll in this pass sends to the
    table ``table_id`` (``Table.after``: Sicily 3.613 †, a Shift DR of 11 for the unit or
    its stack); None: the table has no such condition.  ``rolls``: the side's rolls of
    the pass, read once for several tables (``pass_rolls``)."""
    table = module.table(table_id)
    if table.after is None:
        return None
    earlier = module.table(table.after.table)
    finals: dict[str, list[tuple[int, int]]] = {}
    for rolled_on, ref, stack, final, faces in (rolls or pass_rolls(campaign, side))():
        if rolled_on != earlier.id:
            continue
        for r in [ref, *stack.split()]:
            finals.setdefault(r, []).append((final, sum(faces)))
    return {r for r, f in finals.items() if sent_on(table, earlier, f)}


def marked_in_pass(campaign: Campaign, side: str, status: str) -> list[tuple[str, str]]:
    """The units ``side`` marked ``status`` in this pass, each with the table whose
    result allowed it ("" : an exchange): PHD C5.22's Heroes and C5.23's DR both Battle
    Harden MMC, none twice in the ConPh."""
    rows = unit_lines_of_pass(campaign, side).filter(data__status=status)
    return [
        (d["marked"], d.get("table", ""))
        for d in rows.values_list("data", flat=True)
        if "marked" in d
    ]


def unit_lines_of_pass(campaign: Campaign, side: str) -> QuerySet[Event]:
    """The log's lines of what ``side`` did to its units in this pass (its own, read
    through the gate)."""
    return Event.objects.readable_by(side).filter(
        campaign=campaign, kind=EventKind.UNIT, side=side, data__cycle=campaign.cycle
    )


def waived_roll(campaign: Campaign, side: str, table: Table, units: SideUnits | None = None) -> str:
    """Why ``side``'s roll on ``table`` can change nothing and is not made ("" : it may
    be): its results let the side Battle Harden MMC, and it holds none that may (none of
    its own, or each Battle Hardened in this pass already: PHD C5.23 "No unit may
    Battle Harden more than once during the ConPh").  Read only for such a table."""
    if not hardens_mmc(table):
        return ""
    hardened = {ref for ref, _ in marked_in_pass(campaign, side, "battle_hardened")}
    held = (units or side_units(campaign, side))()
    return no_mmc_to_harden(table, [u.state for u in held if u.ref not in hardened])


def owed_rolls(
    campaign: Campaign,
    module: Module,
    side: str,
    units: SideUnits | None = None,
    rolls: PassRolls | None = None,
) -> tuple[tuple[str, str], ...]:
    """The compulsory rolls (``Table.required``) ``side`` has not made in this pass at
    the current step or the steps after it (all that Done or finishing ahead can
    reach) and may roll on now, or once its lost table is supplied: (table id, "") for
    a roll once per side, (table id, the unit's line) for each of its retained units
    the table is rolled for (two queries, the units' shared through ``units`` with
    ``exchanges_held``; none without such tables ahead)."""
    ahead = {t for step in module.steps[campaign.step_index :] for t in step.tables}
    # A table the rules text lacks is owed too: Done says to supply it first (PHD C5.19
    # "For each Wounded Leader a dr is made"), though no roll on it can be made yet.
    required = [
        t
        for t in module.tables
        if compulsory(t)
        and t.id in ahead
        # Not owed where the side may not roll on it now (3.61426: the British at Night).
        and not table_date_reasons(module, t, side, campaign.date_index)
    ]
    if not required:
        return ()
    wanted = {t.id for t in required}
    rolls = rolls or pass_rolls(campaign, side)
    rolled = {
        (table, ref)
        for table, unit_ref, stacked, _, _ in rolls()
        if table in wanted
        for ref in (unit_ref, *stacked.split())  # a stack's units (``Table.stack``)
    }
    owed: list[tuple[str, str]] = [
        (t.id, "")
        for t in required
        if t.once == "side"
        and not any(r[0] == t.id for r in rolled)
        # A DR that can change nothing is not owed (PHD C5.23: no MMC to Battle Harden).
        and not waived_roll(campaign, side, t, units)
    ]
    per_group = [t for t in required if t.per_group is not None]
    if per_group:
        held = held_purchases(campaign, side)
        for t in per_group:
            items = group_roll_items(module, t, side, held)
            done = rolled_items(campaign, side, t.id) if items else []
            owed += [(t.id, label) for _, label in group_roll_left(items, done)]
    per_unit = [t for t in required if t.once == "unit"]
    sent = {t.id: sent_to(campaign, module, t.id, side, rolls) for t in per_unit if t.after}
    if per_unit:
        # The tables a unit of each kind may be rolled on, sorted once per kind: most
        # units are of no table's kinds, and their state is never built.
        of_kinds: dict[str, list[Table]] = {}
        for unit in (units or side_units(campaign, side))():
            kind = unit.kind
            tables = of_kinds.get(kind)
            if tables is None:
                tables = of_kinds[kind] = [t for t in per_unit if of_kind(t.for_units, kind)]
            if not tables:
                continue
            state = unit.state  # built once per unit, read by every table
            for t in tables:
                if t.id in sent and unit.ref not in (sent[t.id] or ()):
                    continue  # no earlier roll sent it here (3.613 †)
                # A vehicle's weapons each owe their own roll (Sicily 3.6142).
                for ref, target in targets(t.for_units, state):
                    key = f"{unit.ref}.{ref}" if ref else unit.ref
                    if owed_for(t, target, lost_too=True) and (t.id, key) not in rolled:
                        said = unit.label if not ref else target.name
                        owed.append((t.id, owed_what(t, target, said)))
    return tuple(owed)


def held_purchases(campaign: Campaign, side: str) -> list[tuple[str, str]]:
    """``side``'s held purchases (bought or OB-given, not cancelled, not eliminated,
    withdrawn or used up), each its reference and RG ID, in the order bought: what a
    table rolled once per RG held is rolled for (``Table.per_group``, PHD C5.34)."""
    return list(
        Purchase.objects.visible_to(side)
        .filter(
            campaign=campaign,
            side=side,
            status=Purchase.Status.ACTIVE,
            state=Purchase.State.HELD,
        )
        .order_by("pk")
        .values_list("ref", "group_id")
    )


def rolled_items(campaign: Campaign, side: str, table_id: str) -> list[str]:
    """The items ``side`` has rolled ``table_id`` for in this pass (its own rolls)."""
    return list(
        Roll.objects.visible_to(side)
        .filter(campaign=campaign, cycle=campaign.cycle, side=side, table_id=table_id)
        .values_list("item", flat=True)
    )


def exchanges_held(
    campaign: Campaign, module: Module, side: str, units: SideUnits | None = None
) -> frozenset[str]:
    """The exchange steps from the current one on at which ``side`` holds a unit the
    step takes, and the steps whose reminders name one of its units (``Step.reminds``:
    Sicily 3.605's Guns, 3.607's MMC to be Replaced): finishing ahead stops at both
    (one query, or ``units``' read shared with ``owed_rolls``; none without such a step
    ahead: a reminder's step only where a run of finishing ahead could reach it)."""
    # (The run's first step is the current one: a run stops only at a later one.)
    reach = {s.id for s in may_run_through(module, campaign.step_index)[1:]}
    ahead = [
        s
        for s in module.steps[campaign.step_index :]
        if s.exchange is not None or (s.id in reach and any(r.units for r in s.reminds))
    ]
    if not ahead:
        return frozenset()
    held = [replace(u.state, count=u.count) for u in (units or side_units(campaign, side))()]

    def takes(ex: UnitExchange | None) -> bool:
        if ex is None:
            return False
        if not ex.recombine:
            return any(matches(ex.gives, u) for u in held)
        # Two HS of one line recombine (PHD C5.21, Sicily 3.6111): a pair is held, of
        # one squad's line or of one half-squad line.
        pairs = (ex.gives, *((ex.half_squads,) if ex.half_squads is not None else ()))
        return any(any(in_pairs(flt, held)) for flt in pairs)

    def named(step: Step) -> bool:
        return step.id in reach and any(
            matches(r.units, u) for r in step.reminds if r.units for u in held
        )

    # Sicily 3.611: its Heroes, and its HS recombining; 3.604-3.607, 3.614: its units
    # the step's reminders name.
    return frozenset(s.id for s in ahead if takes(s.exchange) or takes(s.recombining) or named(s))


def chits_locked(campaign: Campaign) -> int:
    return InitiativeChit.objects.filter(campaign=campaign, cycle=campaign.cycle).count()


def with_rosters_read(module: Module, campaign: Campaign, snap: Snapshot) -> Snapshot:
    """``snap`` with the opponent's roster read where a chit restriction of the side
    depends on it (Sicily 3.6212*: the British "currently" hold no on-map Retained
    units): whether the opponent's retained forces list a unit the side may see on the
    map.  Read through the one gate, so a still-secret RG's lines neither count nor
    are learnt."""
    ini = module.initiative
    if ini is None or not any(r.side == snap.side and r.from_roster for r in ini.restrictions):
        return snap
    other = machine.opponent(module, snap.side)
    if other not in snap.sides:
        return snap
    empty = lists_no_unit(module, campaign, other, seen_by=snap.side)
    sides = {**snap.sides, other: replace(snap.sides[other], lists_no_unit=empty)}
    return replace(snap, sides=sides)


def new_dates_since_scenario(module: Module, campaign: Campaign) -> int:
    """The new CG Dates since the last CG-scenario end, the current one included (Sicily
    British chart footnote i: "if one Idle Date occurred between scenarios, no > two
    Bombardments may be conducted for the current scenario")."""
    return _dates_since(module, campaign, last_scenario_date(campaign))


def _dates_since(module: Module, campaign: Campaign, played: int | None) -> int:
    """``new_dates_since_scenario`` with the last scenario's date already read."""
    first = machine.date_index(module, module.variant(campaign.variant).start_date)
    return campaign.date_index - (first - 1 if played is None else played)


def san_may_be_secret(module: Module, campaign: Campaign, side: str) -> bool:
    """Whether ``side``'s SAN may have changed in secret since both sides last read it
    (``availability.san_may_be_secret``), from public facts: the campaign's reveal
    policy and an Idle date since the last scenario's result."""
    hidden = campaign.reveal_policy != RevealPolicy.STEP_END
    if not availability.san_may_be_secret(module, side, purchases_hidden=hidden, bought_since=True):
        return False  # the policy or the chart rules it out: nothing to read
    played = last_scenario_date(campaign)
    if played is None:
        return False
    return availability.san_may_be_secret(
        module,
        side,
        purchases_hidden=hidden,
        bought_since=_dates_since(module, campaign, played) > 1,
    )


def lists_no_unit(module: Module, campaign: Campaign, side: str, *, seen_by: str) -> bool:
    """Whether ``side``'s retained forces list no unit on the map that ``seen_by`` may
    see (the gate): a unit marked withdrawn (off map) does not count, nor one the rule
    does not count (``availability.not_counted``: Equipment, or off the map), nor one
    of an RG bought at its printed value since the last CG-scenario end, which has not
    entered play yet (Sicily 3.6175: it "enters play during the course of the
    scenario")."""
    # Model instances, not values: the gate shows a unit held behind a secret roll in
    # its former state (visibility.UNIT.former), which a values() read would bypass.
    units = Unit.objects.visible_to(seen_by).filter(campaign=campaign, side=side)
    since: int | None = None
    for unit in units.select_related("purchase"):
        if "withdrawn" in (unit.markers or ()):
            continue
        bought = unit.purchase
        if not_counted(module, side, replace(unit.state, group=bought.group_id if bought else "")):
            continue  # Equipment, or off the map (Sicily 3.6212*: a radio, a Bombardment)
        group = module.group(side, bought.group_id) if bought else None
        if (
            bought is None
            or group is None
            or bought.initial
            or not enters_later(module, side, group, bought.cost_variant or "")
        ):
            return False
        if since is None:
            last = last_scenario_date(campaign)
            since = -1 if last is None else last
        if bought.date_index <= since:
            return False
    return True


def roster_decides_chit(module: Module, side: str) -> str:
    """The rule by which ``side``'s retained forces decide an opponent's chit by
    themselves (a restriction ``from_roster``: Sicily 3.6212*); "" when none."""
    ini = module.initiative
    rules = [r.rule for r in (ini.restrictions if ini else []) if r.side != side and r.from_roster]
    return rules[0] if rules else ""


def snapshot(
    campaign: Campaign,
    side: str,
    *,
    seats: Iterable[Seat],
    done: frozenset[str],
    held: Holdings | None = None,
    chits: int = 0,
) -> Snapshot:
    return Snapshot(
        variant=campaign.variant,
        position=position_of(campaign),
        done=done,
        sides=side_states(seats, side),
        side=side,
        holdings=held or Holdings(),
        chits_locked=chits,
    )


def last_scenario_date(campaign: Campaign) -> int | None:
    """The CG date of the last scenario played (its result confirmed), if any."""
    return (
        ScenarioResult.objects.filter(campaign=campaign, confirmed_at__isnull=False)
        .order_by("-cycle")
        .values_list("date_index", flat=True)
        .first()
    )


def scenario_attacker(campaign: Campaign, module: Module) -> tuple[str, str]:
    """The Attacker of the scenario just played, the side that moved first in it (PHD
    C5.3), and that scenario's date label: the latest initiative's, else the start's
    (public; ``("", "")``: none known)."""
    latest = (
        InitiativeOutcome.objects.filter(campaign=campaign, scenario=True)
        .exclude(moves_first="")
        .order_by("-cycle")
        .first()
    )
    if latest is not None:
        return latest.moves_first, module.dates[latest.date_index].label
    side = module.variant(campaign.variant).start.moves_first or ""
    played = next((d.label for d in module.dates if d.initial), "")
    return (side, played) if side else ("", "")


def step_attacker(campaign: Campaign, module: Module, step: Step) -> str:
    """The side that alone may act at ``step`` until it is done, when the Attacker goes
    first there (PHD C5.14 "In turn, Attacker first": the Attacker of the scenario just
    played, C5.3), or the side setting up first (``Step.setup_order``; Sicily 3.6222:
    the current date's initiative result), for ``machine.sides_to_act``; "" at any
    other step, or none known (public)."""
    if not step.attacker_first:
        return ""
    if step.setup_order:
        if campaign.sets_up_first_now is None:
            campaign.sets_up_first_now = (
                InitiativeOutcome.objects.filter(campaign=campaign, cycle=campaign.cycle)
                .values_list("sets_up_first", flat=True)
                .first()
                or ""
            )
        return campaign.sets_up_first_now
    return scenario_attacker(campaign, module)[0]


def sides_awaited(campaign: Campaign, module: Module, step: Step, done: Iterable[str]) -> list[str]:
    """The sides the campaign waits for now, those told "your move" (the waiting state,
    notices, title badge, dashboard, reminder): ``machine.sides_to_act`` with the
    Attacker of the scenario just played at a step the Attacker goes first at (C5.14)."""
    return machine.sides_to_act(module, step, done, step_attacker(campaign, module, step))


# What a player does himself (not what the server records under his side: his points
# replenished or forfeit, a step passed for him), for "has the opponent acted since".
PLAYER_ACTS = (
    EventKind.STEP_DONE,
    EventKind.ROLL,
    EventKind.RESULT_ENTERED,
    EventKind.RESULT_CONFIRMED,
    EventKind.RESULT_DISPUTED,
    EventKind.PURCHASE,
    EventKind.CANCEL,
    EventKind.RG_ROLLS,
    EventKind.FORTIFY,
    EventKind.RECON,
    EventKind.CHIT,
    EventKind.DECLARE,
    EventKind.UNIT,
    EventKind.RG_STATE,
    EventKind.FORGO,
    EventKind.SUPPLY,
    EventKind.AMENDMENT,
    EventKind.TAKEBACK,
)


def opponent_acted_since_done(campaign: Campaign, side: str) -> bool:
    """Whether the opponent has done anything ``side`` may see since ``side``'s last
    Done (its messages aside): a Done it may have acted on stands.  Read through the
    gate, so the answer never depends on the opponent's secrets."""
    last_done = (
        Event.objects.filter(campaign=campaign, kind=EventKind.STEP_DONE, side=side)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    if last_done is None:
        return True  # no Done of the side's own: nothing it may take back
    return (
        Event.objects.visible_to(side)
        .filter(campaign=campaign, id__gt=last_done, kind__in=PLAYER_ACTS)
        .exclude(side__in=("", side))
        .filter(Q(data__passed__isnull=True) | ~Q(data__passed=True))  # no server pass
        .exists()
    )


def replenished_on_date(campaign: Campaign, side: str) -> int | None:
    """The points ``side`` was allotted by this date's replenishment (its own record),
    or None when none was made."""
    made = _last_replenishment(campaign, side, date_index=campaign.date_index)
    repl = made.data.get("repl") if made and isinstance(made.data, dict) else None
    return repl if isinstance(repl, int) else None


def replenishment_record(campaign: Campaign, side: str) -> Event | None:
    """``side``'s replenishment record of this date (its own), or None."""
    return _last_replenishment(campaign, side, date_index=campaign.date_index)


def _last_replenishment(campaign: Campaign, side: str, **when: object) -> Event | None:
    """``side``'s last replenishment record (its own) made ``when``."""
    return (
        Event.objects.filter(campaign=campaign, kind=EventKind.REPLENISH, side=side, **when)
        .order_by("-id")
        .first()
    )


# Compiled once: the panel of every step that may amend a result reads it.
_PASS_RESULT = PreparedRead(
    lambda: ScenarioResult.objects.filter(
        campaign_id=CAMPAIGN, cycle=Param("cycle", IntegerField()), confirmed_at__isnull=False
    ).order_by("cycle", "pk")[:1]
)


def pass_result(campaign: Campaign) -> ScenarioResult | None:
    """The scenario result confirmed in the campaign's current pass (None: none yet)."""
    found = _PASS_RESULT(campaign=campaign.pk, cycle=campaign.cycle)
    return found[0] if found else None


def result_read_by(campaign: Campaign, module: Module) -> str:
    """The roll of this pass that read its scenario result through a DRM (PHD C5.23's
    "-1 per 10 CVP amassed"), in words ("": none has): from the campaign row every
    page reads (``Campaign.result_read``), no statement.  Its making is public (a
    secret table's DR is logged as made), its dice are not named."""
    read = campaign.result_read or {}
    if read.get("cycle") != campaign.cycle:
        return ""
    step = next((s for s in module.steps if s.id == read.get("step")), None)
    table = next((t for t in module.tables if t.id == read.get("table")), None)
    side = next((s.name for s in module.sides if s.id == read.get("side")), read.get("side"))
    where = f" at {step.id} {step.title}" if step else ""
    what = f"{table.dice} on the {table.title}" if table else "roll"
    return f"the {side}'s {what}{where}"


def done_by_own_click(campaign: Campaign, side: str) -> bool:
    """Whether ``side``'s mark at the current step was made by its own Done (not by the
    server passing the step for it, a result or a chit): what a take-back withdraws."""
    data = (
        StepMark.objects.filter(
            campaign=campaign, cycle=campaign.cycle, step_index=campaign.step_index, side=side
        )
        .values_list("data", flat=True)
        .first()
    )
    return StepMark.by_done(data)


def visible_modules(user: object) -> QuerySet[ModuleRecord]:
    """The CG modules ``user`` may see and host: the public ones, his own uploads, and
    those of campaigns he plays in."""
    shown = Q(public=True)
    player_id = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    if player_id is not None:
        played = Campaign.objects.filter(seats__user_id=player_id).values("module_id")
        shown |= Q(owner_id=player_id) | Q(id__in=played)
    return ModuleRecord.objects.filter(shown).order_by("title", "id")


def recorded_first(c: Campaign, side: str, table: Table) -> list[str]:
    """The Locations ``side`` recorded for its own fortifications a roll on ``table``
    clears first (``ClearedFirst.recorded``: PHD C5.35's A-P mines, read by C5.28)."""
    first = table.cleared_first
    if first is None or not first.recorded:
        return []
    return [
        f.location
        for f in FortificationBuy.objects.filter(
            campaign=c, side=side, item_id__in=first.recorded
        ).exclude(location="")
    ]


def overspent(campaign: Campaign, side: str) -> tuple[Event | None, int, bool]:
    """What an amended result left ``side`` short at this pass's purchase: its
    replenishment's event (the one the amendment computed again), the points its RGs of
    this date cost beyond what the result now gives (``data["short"]``: its points on
    hand were left at 0), and whether one of those RGs may still be cancelled (its
    secret rolls not made).  (None, 0, False) where nothing is short."""
    result = pass_result(campaign)
    if result is None or result.confirmed_at is None:
        return None, 0, False
    made = _last_replenishment(campaign, side, created_at__gte=result.confirmed_at)
    short = int((made.data or {}).get("short", 0)) if made else 0
    if not short:
        return made, 0, False
    cancellable = [
        p
        for p in Purchase.objects.filter(
            campaign=campaign,
            side=side,
            cycle=campaign.cycle,
            status=Purchase.Status.ACTIVE,
            initial=False,
            rolled_at__isnull=True,
        )
        if not p.details.get("rolls")
    ]
    return made, short, bool(cancellable)
