"""The roster page for one seat: the CG Roster, the RG Purchase Records and the
retained forces, in a fixed number of queries whatever the number of dates."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from uuid import UUID

from django.db.models import CharField, Q

from campaign.charts import line_chart
from campaign.memo import Memo
from campaign.models import (
    Campaign,
    Event,
    EventKind,
    FortificationBuy,
    InitiativeChit,
    InitiativeOutcome,
    ReconBuy,
    ScenarioResult,
    Seat,
    Unit,
)
from campaign.prepared import CAMPAIGN, SIDE, Param, PreparedRead
from campaign.seat_views.common import (
    PurchaseLine,
    added_later_bought,
    choice_label,
    record_lines,
    visible_purchases,
)
from campaign.selectors import module_of, result_read_by, roster_decides_chit
from campaign.services import units as units_service
from campaign.services.fortification_areas import stated_words
from campaign.services.units import POSSESSED_KINDS, POSSESSING_KINDS, label
from rules import availability, machine
from rules.effects import WEAPON_CARRIERS, exchange_gives, matches, targets, working_weapon
from rules.schema import UNIT_KIND_WORDS, Abandoning, Module
from rules.snapshot import FortificationBought


@dataclass(frozen=True)
class RosterSide:
    start: int | None  # None: the opponent's points are secret
    repl: int | None
    total: int | None
    spent: int | None
    left: int | None
    rgs: list[str]  # RG IDs bought that date (the opponent's as far as revealed)
    recon: int | None
    chit: str
    cvp_lost: int | None
    san: int | None
    # Of ``left``, what the rules forfeit as the purchase step ends (3.617 EXC), and why.
    lost: int | None = None
    lost_rule: str = ""

    @property
    def carried(self) -> int | None:
        """What is left and not lost: the next CG Date's Start (3.620)."""
        return None if self.left is None else self.left - (self.lost or 0)


@dataclass(frozen=True)
class RosterLine:
    date: str
    weather: str
    initiative: str
    sides: list[RosterSide]  # in module side order


@dataclass(frozen=True)
class WeaponView:
    id: str  # its reference on its unit's record
    kind: str
    name: str
    markers: tuple[str, ...] = ()
    markers_label: str = ""  # "malfunctioned, disabled"
    # Whether the step's weapon exchange repairs it (PHD C5.27b "A disabled,
    # non-captured, AFV MG"): only then is its Repair offered.
    repairable: bool = False


@dataclass(frozen=True)
class UnitView:
    id: str  # the unit's opaque reference (``Unit.ref``), never its key
    name: str
    markers: tuple[str, ...]  # its state: the markers it carries (none: in good order)
    state_label: str  # "in good order", "wounded (leader), isolated"
    location: str
    kind: str = "other"
    count: int = 1
    label: str = ""  # "12 × 4-6-8"
    weapons: tuple[WeaponView, ...] = ()  # a vehicle's MA and MGs
    carries: bool = False  # a vehicle: its weapons are listed on its record
    possessed: bool = False  # a SW or Gun: who possesses it is part of its record
    possessor: str = ""  # the line that possesses it, as its side reads it ("4-6-8")
    possessor_id: str = ""  # that line's reference
    # The SW and Guns it possesses, each still a line of its own, shown on its line too
    # as a vehicle's weapons are ("LMG — malfunctioned"): (reference, line, state).
    possesses: tuple[tuple[str, str, str], ...] = ()
    # On the owner's own line whose former state the opponent reads (PHD C5.23, C5.24:
    # a secret roll's effect, ``Unit.held``): that state, in words ("" : none held).
    held_as: str = ""
    reveals: bool = False  # that line offers its owner to reveal it now
    # The owner's vehicle the current step lets him mark Abandoned in one action, its
    # crew leaving it (Sicily 3.6051): the action's words and rule ("" : not offered).
    abandons: str = ""
    # ... and what pressing it states and does, asked before it is posted.
    abandons_confirm: str = ""


def abandons_confirm(abandoning: Abandoning | None, name: str, module: Module) -> str:
    """The question an abandoning asks before it is posted: what the owner states and
    what it does ("M4A3 stands in No-Man's Land: mark it Abandoned, its crew leaving it
    to attempt Escape?"; APD 2.5 EXC: its crew Eliminated, with the CVP they add and
    their source, A26.2 as the players supplied it, or that they are not supplied)."""
    if abandoning is None:
        return ""
    crew = ", its crew leaving it to attempt Escape" if abandoning.effect.crew_escapes else ""
    kind = abandoning.prc_eliminated
    if kind is not None:
        words = UNIT_KIND_WORDS[kind]
        each = module.cvp_per_kind.get(kind)
        crew = ", its crew Eliminated: " + (
            f"their {each} CVP (a {words}'s, A26.2, as supplied) join your CVP lost"
            if each is not None
            else f"the CVP of a {words} are not in the rules text (A26.2) and not "
            "supplied: amend the result with them"
        )
    return f"{name} {abandoning.statement}: mark it Abandoned{crew}?"


def held_words(unit: Unit, lines: dict[str, Unit]) -> str:
    """What the opponent reads of the owner's ``unit`` while its former state is held
    (``lines``: the owner's lines by reference)."""
    held = unit.held or {}
    if not held:
        return ""
    within = held.get("within")
    if within:
        line = lines.get(within)
        return f"counted in {label(line)}" if line is not None else "not listed"
    was = Unit(name=held.get("name", ""), count=held.get("count", 1))
    words = units_service.state_words(held.get("markers") or (), unit.kind)
    return f"{label(was)} — {words}"


@dataclass(frozen=True)
class ForcesView:
    side: str
    mine: bool
    units: list[UnitView]
    # The side's SW a disabled vehicular MG may be repaired with, where the module has a
    # weapon exchange (Sicily 3.61421): (reference, line); only on the owner's forces.
    sw: tuple[tuple[str, str], ...] = ()
    # The side's lines that may possess a SW or Gun (reference, line), "none" first;
    # only on the owner's forces.
    possessors: tuple[tuple[str, str], ...] = ()
    # The lines the side removed by mistake at this step (reference, line), to put
    # back; only on the owner's forces.
    put_back: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class RosterView:
    campaign_id: str
    name: str
    module_title: str
    currency: str
    side_names: list[str]
    lines: list[RosterLine]
    record: list[PurchaseLine]
    forces: list[ForcesView]
    markers: list[tuple[str, str]]  # what a unit may be marked (not "ok": none)
    kinds: list[tuple[str, str]]
    points_chart: str  # server-rendered SVG
    cvp_chart: str
    fortifications: list[str] = field(default_factory=list)  # the roster's FORTIFICATIONS
    weapon_kinds: list[tuple[str, str]] = field(default_factory=list)
    # The rules by which a disabled vehicular MG is repaired with a SW ("3.61421").
    weapon_exchange: str = ""
    # The rule by which an Abandoned vehicle is remanned (3.6141a), and the marker it
    # takes off: a vehicle carrying it is offered Remann, naming who remanns it.
    remanning: str = ""
    remanning_status: str = ""
    # The markers a weapon may carry (its conditions: malfunctioned, disabled, captured…)
    weapon_markers: list[tuple[str, str]] = field(default_factory=list)
    # Where a unit removed at the current step may be one eliminated there, whose CVP
    # count for the scenario just played (``Step.losses_count``): the step ("C5.8
    # Encircled Units") and the rule ("C5.1"); "" : a removal is a correction only.
    losses_step: str = ""
    losses_rule: str = ""
    # Where this side's retained forces decide the opponent's chit (Sicily 3.6212*):
    # what a unit added by hand counts as, said where it is added.
    adds_on_map: str = ""
    # What a unit's location is, where the module records it as the Setup Area it is
    # Retained in (``Module.setup_areas``, Sicily 3.605): its words ("Setup Area") and
    # rule; "" : a free location.
    setup_area: str = ""
    setup_area_rule: str = ""


# The roster's reads, compiled once (``campaign.prepared``): a roster page makes
# eleven statements, and compiling them cost more than the database's answers.
_RESULTS = PreparedRead(
    lambda: ScenarioResult.objects.filter(campaign_id=CAMPAIGN, confirmed_at__isnull=False)
)
_RECONS = PreparedRead(lambda: ReconBuy.objects.visible_to(SIDE).filter(campaign_id=CAMPAIGN))
_CHITS = PreparedRead(lambda: InitiativeChit.objects.visible_to(SIDE).filter(campaign_id=CAMPAIGN))
_OUTCOMES = PreparedRead(lambda: InitiativeOutcome.objects.filter(campaign_id=CAMPAIGN))
# Each side's points as the log counts them: what each date gave (REPLENISH) and what
# the rules forfeit when its purchase step ends (FORFEIT: 3.617 EXC); and the seat's
# own lines removed at the current step, which it may put back (PHD C5.1: a removal
# made by mistake): one read of the log.
_LOG = PreparedRead(
    lambda: (
        Event.objects.readable_by(SIDE)
        .filter(campaign_id=CAMPAIGN)
        .filter(
            Q(kind__in=[EventKind.REPLENISH, EventKind.FORFEIT])
            | Q(
                kind=EventKind.UNIT,
                side=SIDE,
                step_id=Param("step", CharField()),
                data__has_key="removed",
            )
        )
        .only("kind", "side", "date_index", "data")
    )
)
_UNITS = PreparedRead(lambda: Unit.objects.visible_to(SIDE).filter(campaign_id=CAMPAIGN))
_FORTIFICATIONS = PreparedRead(
    lambda: FortificationBuy.objects.visible_to(SIDE).filter(campaign_id=CAMPAIGN).order_by("id")
)


def _stated_where(module: Module, buy: FortificationBuy, viewer: str) -> str:
    """Where the owner last stated his Fortification lies (Sicily 3.6073, at the module's
    ``setup_areas.step``), on his own roster only ("" on the opponent's, or never
    stated): "; stated at 3.605: hidden in Setup Area A (3.6073)"."""
    areas = module.setup_areas
    hid = areas.hidden_fortifications if areas is not None else None
    if areas is None or hid is None or buy.side != viewer or buy.area_cycle is None:
        return ""
    return f"; stated at {areas.step}: {stated_words(module, buy, buy.area_cycle)} ({hid.rule})"


# Roster views of the latest revisions read in this process, per seat: what a seat may
# see of a campaign changes only with its revision (``writes.commit`` draws a new one in
# the transaction of every change the seat may see), so a reload, a second tab or a
# reconnecting socket of an unchanged campaign reads nothing again, and an opponent's
# secret change neither.  Keyed by side too: each view is already cut down by the
# visibility gate to what that side may see.
ROSTER_VIEWS: Memo[RosterView] = Memo(size=64)


def roster_view(seat: Seat, *, unchanged_since: Iterable[UUID] = ()) -> RosterView:
    """The CG Roster, RG Purchase Records and retained forces as ``seat`` may see them,
    at its revision (``seat.campaign``: the campaign it was read with).  The
    opponent's points columns stay secret until the CG ends.  ``unchanged_since``:
    earlier revisions of the seat since which no change it may see touched the
    roster (the page registry says which, ``live_pages.ROSTER.unchanged_since``): a
    view read at one of them is the seat's still, and nothing is read."""
    key = (seat.campaign_id, seat.side, seat.revision)
    view = ROSTER_VIEWS.get(key)
    if view is None:
        for revision in unchanged_since:
            view = ROSTER_VIEWS.get((seat.campaign_id, seat.side, revision))
            if view is not None:
                break
        else:
            view = _read_roster_view(seat.campaign, seat.side)
        ROSTER_VIEWS.put(key, view)
    return view


def _read_roster_view(campaign: Campaign, side: str) -> RosterView:
    module = module_of(campaign)
    ended = campaign.ended_at is not None
    sides = [s.id for s in module.sides]
    variant = module.variant(campaign.variant)
    first = machine.date_index(module, variant.start_date)
    cid = campaign.pk
    results = {r.date_index: r.data for r in _RESULTS(campaign=cid)}
    purchases = visible_purchases(campaign, side)
    # A further item bought for an RG held (PHD RG footnote p's further Pre-Registered
    # hex, 2 TP) is spent on the date it is bought (C5.31), as its RG's price was.
    added = added_later_bought(campaign, module, side)
    labels = {a.id: a.label for a in module.add_later}
    # Every Recon dr of a date adds its Locations (and any price paid) to that date's
    # line: the M2 Recon RG's Date Max is 2 (3.620).
    recons: dict[tuple[str, int], tuple[int, int]] = {}
    for r in _RECONS(side=side, campaign=cid):
        locations, paid = recons.get((r.side, r.date_index), (0, 0))
        recons[(r.side, r.date_index)] = (locations + r.locations, paid + r.cost)
    chits = {(c.side, c.date_index): c for c in _CHITS(side=side, campaign=cid)}
    outcomes = {o.date_index: o for o in _OUTCOMES(campaign=cid)}
    logged = _LOG(side=side, campaign=cid, step=module.steps[campaign.step_index].id)
    points_events = [e for e in logged if e.kind != EventKind.UNIT]
    repl = {(e.side, e.date_index): e.data for e in points_events if e.kind == EventKind.REPLENISH}
    # Points the rules forfeit when the purchase step ends (3.617 EXC): the "Left"
    # column still shows what remains, "even if zero", and marks it lost.
    forfeited: dict[tuple[str, int], int] = {}
    for e in points_events:
        lost = (e.data or {}).get("points_lost") if e.kind == EventKind.FORFEIT else None
        if isinstance(lost, int):
            forfeited[(e.side, e.date_index)] = forfeited.get((e.side, e.date_index), 0) + lost
    lines = []
    for i in range(first, campaign.date_index + 1):
        date = module.dates[i]
        row = []
        for s in sides:
            own = s == side or ended
            data = repl.get((s, i))
            start = (
                data["start"] if data else (variant.start.points.get(s, 0) if i == first else None)
            )
            # Less what the side forgoes, or its base loses to the other's forgo
            # (Sicily 3.616 EXC).
            gained = data["repl"] - data.get("forgone", 0) if data else 0
            bought = [p for p in purchases if p.side == s and p.date_index == i]
            recon = recons.get((s, i))
            later = [a for a in added if a.side == s and a.date_index == i]
            spent = (
                sum(p.cost for p in bought)
                + sum(a.cost for a in later)
                + (recon[1] if recon else 0)
            )
            total = None if start is None else start + gained
            chit = chits.get((s, i))
            result = results.get(i, {})
            row.append(
                RosterSide(
                    start=start if own else None,
                    repl=gained if own and start is not None else None,
                    total=total if own else None,
                    spent=spent if own else None,
                    left=(total - spent) if own and total is not None else None,
                    # Each RG's ID "(and the CPP expended to purchase it)" (3.617): the
                    # price on one's own lines only, the opponent's points being secret.
                    rgs=[f"{p.group_id} ({p.cost})" if own else p.group_id for p in bought]
                    + [f"{a.purchase.group_id}: {labels.get(a.item, a.item)}" for a in later],
                    recon=recon[0] if recon else None,
                    chit=choice_label(InitiativeChit.Chit, chit.chit) if chit else "",
                    cvp_lost=result.get("cvp_lost", {}).get(s),
                    san=result.get("san", {}).get(s),
                    lost=forfeited.get((s, i)) if own else None,
                    lost_rule=(module.currency.carry_over.rule or "") if own else "",
                )
            )
        outcome = outcomes.get(i)
        weather = date.weather or ("Night" if date.night else "")
        if i == first and variant.start.weather:
            weather = variant.start.weather
        lines.append(RosterLine(date.label, weather, outcome.label if outcome else "", row))
    units = _UNITS(side=side, campaign=cid)
    # Who possesses a SW, named only from the lines this seat sees (a possessor is never
    # of another secret than its SW's: services/units.possessor_refusal).
    seen = {u.pk: u for u in units}
    by_ref = {u.ref: u for u in units if u.side == side}
    held_by: dict[int, list[Unit]] = {}
    for u in units:
        if u.possessor_id in seen:
            held_by.setdefault(u.possessor_id, []).append(u)
    # A vehicular MG repaired with a SW (Sicily 3.61421, PHD C5.27b) is offered at the
    # step that gives it only, with the SW its rule lets the side give up.
    exchange = module.steps[campaign.step_index].weapon_exchange
    # Remann is offered at the step that gives it only (elsewhere it would be refused).
    remanning = module.steps[campaign.step_index].remanning
    abandoning = module.steps[campaign.step_index].abandoning

    def abandons(u: Unit) -> bool:
        return bool(
            u.side == side
            and abandoning
            and matches(abandoning.vehicles, u.state)
            and not working_weapon(abandoning, u.state)
        )

    def repairs(u: Unit) -> dict[str, object]:
        return dict(targets(exchange.repairs, u.state)) if exchange else {}

    # Each SW or Personnel offered to repair a vehicular MG or to remann a vehicle is
    # shown with the Setup Area it is Retained in (3.61421, 3.6141a "within the same
    # Setup Area"), where the module records it.
    def area(u: Unit) -> str:
        areas = module.setup_areas
        return f" (in {areas.label} {u.location})" if areas and u.location else ""

    forces = [
        ForcesView(
            module.side(s).name,
            s == side,
            [
                UnitView(
                    u.ref,
                    u.name,
                    tuple(u.markers or ()),
                    ", ".join(u.state_words),
                    u.location,
                    u.kind,
                    u.count,
                    label(u),
                    tuple(
                        WeaponView(
                            w.ref,
                            w.kind,
                            w.name,
                            w.markers,
                            ", ".join(choice_label(Unit.Status, m) for m in w.markers),
                            s == side and w.ref in repairs(u),
                        )
                        for w in u.state.weapons
                    ),
                    u.kind in WEAPON_CARRIERS,
                    u.kind in POSSESSED_KINDS,
                    label(seen[u.possessor_id]) if u.possessor_id in seen else "",
                    seen[u.possessor_id].ref if u.possessor_id in seen else "",
                    tuple(
                        (h.ref, label(h), ", ".join(h.state_words)) for h in held_by.get(u.pk, ())
                    ),
                    held_words(u, by_ref) if s == side else "",
                    s == side and bool(u.held) and not u.held.get("within"),
                    f"{abandoning.label} ({abandoning.rule})" if abandoning and abandons(u) else "",
                    abandons_confirm(abandoning, u.name, module) if abandons(u) else "",
                )
                for u in units
                if u.side == s
            ],
            tuple(
                (u.ref, label(u) + area(u))
                for u in units
                if u.side == s == side and exchange_gives(exchange, s, u.state)
            )
            if exchange
            else (),
            (
                ("", "none named"),
                *(
                    (u.ref, label(u) + area(u))
                    for u in units
                    if u.side == s and u.kind in POSSESSING_KINDS
                ),
            )
            if s == side
            else (),
            tuple(
                units_service.removals_to_put_back(
                    campaign,
                    (e.data for e in logged if e.kind == EventKind.UNIT),
                    (u.ref for u in units),
                )
            )
            if s == side
            else (),
        )
        for s in sides
    ]
    # A loss counts while the result may still change: not once a roll has read it.
    losses_rule = (
        machine.losses_count_rule(module, campaign.step_index)
        if not result_read_by(campaign, module)
        else ""
    )
    step = module.steps[campaign.step_index]
    labels = {i.id: i.label for i in module.fortifications.items} if module.fortifications else {}
    fort_rows = list(_FORTIFICATIONS(side=side, campaign=cid))
    gone = availability.replaced(
        module,
        [
            (b.side, FortificationBought(b.item_id, b.date_index, b.count, location=b.location))
            for b in fort_rows
        ],
    )
    forts = [
        f"{module.dates[b.date_index].label}: {module.side(b.side).name} {b.count} × "
        f"{labels.get(b.item_id, b.item_id)}"
        + (f" at {b.location}" if b.location else "")
        + _stated_where(module, b, side)
        + (
            f" (removed: {labels.get(gone[k].item_id, gone[k].item_id)} placed there on "
            f"{module.dates[gone[k].date_index].label})"
            if k in gone
            else ""
        )
        for k, b in enumerate(fort_rows)
    ]
    own_index = sides.index(side)
    series = {module.side(side).name: [(ln.date, ln.sides[own_index].carried) for ln in lines]}
    if ended:
        other = 1 - own_index
        series[module.side(sides[other]).name] = [
            (ln.date, ln.sides[other].carried) for ln in lines
        ]
    cvp = {
        module.side(s).name: [(ln.date, ln.sides[k].cvp_lost) for ln in lines]
        for k, s in enumerate(sides)
    }
    return RosterView(
        campaign_id=str(campaign.pk),
        name=campaign.name,
        module_title=module.campaign_title(campaign.variant),
        currency=module.currency.code,
        side_names=[module.side(s).name for s in sides],
        lines=lines,
        record=record_lines(campaign, module, side, purchases),
        forces=forces,
        markers=[c for c in Unit.Status.choices if c[0] != "ok"],
        kinds=list(Unit.Kind.choices),
        weapon_kinds=list(Unit.WeaponKind.choices),
        weapon_exchange=exchange.rule if exchange else "",
        remanning=remanning.rule if remanning else "",
        remanning_status=remanning.status if remanning else "",
        weapon_markers=[
            c for c in Unit.Status.choices if c[0] not in ("ok", "mg_malfunctioned", "elite")
        ],
        losses_step=f"{step.id} {step.title}" if losses_rule and not ended else "",
        losses_rule=losses_rule if not ended else "",
        points_chart=line_chart(f"{module.currency.code} left", series),
        cvp_chart=line_chart("CVP lost per scenario", cvp),
        fortifications=forts,
        adds_on_map=_adds_on_map(module, side),
        setup_area=module.setup_areas.label if module.setup_areas else "",
        setup_area_rule=module.setup_areas.rule if module.setup_areas else "",
    )


def _adds_on_map(module: Module, side: str) -> str:
    """What a unit this side adds by hand counts as where its retained forces decide
    the opponent's chit (Sicily 3.6212 footnote *: on the map, unless marked
    withdrawn); "" elsewhere."""
    rule = roster_decides_chit(module, side)
    if not rule:
        return ""
    other = module.side(machine.opponent(module, side)).name
    return (
        f"A unit you add counts as on the map for {rule} (the {other} may choose Attack "
        "while your retained forces list one) unless you mark it withdrawn."
    )
