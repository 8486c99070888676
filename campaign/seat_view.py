"""The seat view: the one gate between campaign data and a player.

``seat_view(campaign, side)`` builds everything the player of ``side`` may see: their
own records in full, the opponent's only as far as revealed.  Pages, htmx fragments,
the JSON view and websocket frames are all rendered from it; nothing else reads
campaign data for a player.  An opponent's unrevealed secret never enters a SeatView.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db.models import Q
from django.http import Http404

from campaign.models import (
    Campaign,
    Event,
    FortificationBuy,
    InitiativeChit,
    InitiativeOutcome,
    Invitation,
    Purchase,
    ReconBuy,
    Roll,
    ScenarioResult,
    Seat,
    StepMark,
)
from rules import machine
from rules.registry import module_of


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


@dataclass(frozen=True)
class DrmView:
    id: str
    label: str
    value: int
    how: str  # "tick", "auto", "typed"


@dataclass(frozen=True)
class TableView:
    id: str
    title: str
    rule: str
    dice: str
    missing: bool
    columns: list[str]
    rows: list[tuple[str, list[str]]]  # (range, results per column)
    drms: list[DrmView]
    footnotes: list[str]


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
    drms: list[dict]
    final: int
    result: str


@dataclass(frozen=True)
class FieldView:
    key: str  # form field name: "<field>.<side>"
    label: str
    kind: str
    value: Any  # the entered value, once entered


@dataclass(frozen=True)
class ChitView:
    side: str
    chit: str | None  # None: chosen but not yet revealed to the viewer
    chosen: bool


@dataclass(frozen=True)
class ChartRow:
    id: str
    type: str
    strength: str  # "12/9"
    units: str
    costs: list[tuple[str, str, int]]  # (variant, label, cost)
    left_date: str  # how many may still be bought this date ("—": no limit)
    left_cg: str
    reasons: list[str]  # why it cannot be bought now (empty: it can)
    footnotes: list[str]


@dataclass(frozen=True)
class PurchaseLine:
    """A line of the RG Purchase Record (3.6179)."""

    id: int
    side: str  # side name
    mine: bool
    date: str
    group_id: str
    group_type: str
    cost: int | None
    number_purchased: int  # #P: of this RG so far in the CG
    number_remaining: str  # #R
    strength: str
    units: int | None
    sw: str
    rolls: list[str]
    entry_area: str
    notes: str
    revealed: bool
    can_cancel: bool
    can_roll: bool


@dataclass(frozen=True)
class FortRow:
    id: str
    label: str
    cost: int
    cost_text: str
    cap: str
    note: str


@dataclass(frozen=True)
class StepPanel:
    """What the current step shows the viewer and what the viewer may do there."""

    at: str  # the position token a form carries
    can_act: bool
    done: list[str]  # names of the sides that have done the step
    fields: list[FieldView] = field(default_factory=list)
    entered_by: str | None = None  # side name that entered the result
    tables: list[TableView] = field(default_factory=list)
    rolls: list[RollView] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the viewer's computation
    units: list[tuple[int, str]] = field(default_factory=list)  # own units to roll for
    chits: list[ChitView] = field(default_factory=list)
    my_chit: str | None = None
    attack_allowed: bool = True
    attack_refusal: str = ""
    chart: list[ChartRow] = field(default_factory=list)
    chart_missing: str = ""
    purchases: list[PurchaseLine] = field(default_factory=list)
    forts: list[FortRow] = field(default_factory=list)
    fort_buys: list[str] = field(default_factory=list)
    recon_options: list[tuple[int, int, int]] = field(default_factory=list)  # (index, cost, drm)
    recon: str = ""
    declares_units: bool = False  # the viewer's on-map units decide the opponent's chit
    no_on_map_units: bool = False
    outcome: str = ""


@dataclass(frozen=True)
class EventView:
    kind: str
    side: str
    date: str
    step_id: str
    text: str
    at: str


@dataclass(frozen=True)
class SeatView:
    campaign_id: str
    name: str
    module_id: str
    module_title: str
    variant: str
    host: str
    reveal_policy: str
    viewer: str  # the viewer's side id
    sides: list[SideView]
    date: str
    date_index: int
    step: StepView
    step_number: int
    step_count: int
    in_play: bool
    ended: bool
    outcome: str
    waiting_for: list[str]  # side ids that may act now
    status: str  # "you", "opponent", "both", "ended"
    dice_seed_hash: str
    dice_seed: str | None  # disclosed only when the CG ends
    currency: str
    fortification_currency: str | None
    panel: StepPanel | None = None
    initiative: str = ""  # the latest revealed initiative result (public once revealed)
    record: list[PurchaseLine] = field(default_factory=list)  # own + revealed opponent RGs
    events: list[EventView] = field(default_factory=list)
    invitation: str | None = None  # the open invitation token, for the host only
    invitation_side: str | None = None

    @property
    def me(self) -> SideView:
        return next(s for s in self.sides if s.is_me)

    @property
    def opponent(self) -> SideView:
        return next(s for s in self.sides if not s.is_me)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("invitation")
        data["invitation_open"] = self.invitation is not None
        return data

    @property
    def digest(self) -> str:
        """A fingerprint of what this seat sees.  Pages carry it so a reconnecting
        socket knows whether the page is out of date; it changes only when the seat's
        own view changes, so it counts nothing the seat may not see."""
        blob = json.dumps(asdict(self), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def member_seat(user, campaign_id) -> tuple[Campaign, Seat]:
    """The campaign and the user's seat in it; 404 for everyone else."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("There is no such campaign, or it is not yours.")
    seat = (
        Seat.objects.select_related("campaign", "campaign__host")
        .filter(campaign_id=campaign_id, user=user)
        .first()
    )
    if seat is None:
        raise Http404("There is no such campaign, or it is not yours.")
    return seat.campaign, seat


def status_for(viewer: str, waiting_for: list[str], ended: bool) -> str:
    if ended:
        return "ended"
    if viewer in waiting_for:
        return "both" if len(waiting_for) > 1 else "you"
    return "opponent" if waiting_for else "none"


def seat_view(campaign: Campaign, side: str) -> SeatView:
    module = module_of(campaign)
    seats = list(campaign.seats.select_related("user"))
    if side not in {s.side for s in seats}:
        raise Http404("There is no such campaign, or it is not yours.")
    step = module.steps[campaign.step_index]
    done = StepMark.objects.filter(
        campaign=campaign, cycle=campaign.cycle, step_index=campaign.step_index
    ).values_list("side", flat=True)
    ended = campaign.ended_at is not None
    waiting = [] if ended else machine.sides_to_act(module, step, done)
    date = module.dates[campaign.date_index]
    sides = [
        SideView(
            id=s.side,
            name=module.side(s.side).name,
            player=s.user.get_username() if s.user else None,
            online=s.connections > 0,
            is_me=s.side == side,
            points=s.points if s.side == side else None,
            fortification_points=s.fortification_points if s.side == side else None,
            san=s.san if s.side == side else None,
        )
        for s in seats
    ]
    invitation = None
    invitation_side = None
    if campaign.host_id == next(s.user_id for s in seats if s.side == side):
        inv = Invitation.objects.filter(
            campaign=campaign, revoked_at__isnull=True, used_at__isnull=True
        ).first()
        if inv:
            invitation, invitation_side = inv.token, inv.side
    return SeatView(
        campaign_id=str(campaign.pk),
        name=campaign.name,
        module_id=module.id,
        module_title=module.title,
        variant=module.variant(campaign.variant).name,
        host=campaign.host.get_username(),
        reveal_policy=campaign.get_reveal_policy_display(),
        viewer=side,
        sides=sides,
        date=date.label,
        date_index=campaign.date_index,
        step=StepView(step.id, step.title, step.kind, step.summary, step.acts),
        step_number=campaign.step_index + 1,
        step_count=len(module.steps),
        in_play=campaign.in_play,
        ended=ended,
        outcome=campaign.outcome,
        waiting_for=waiting,
        status=status_for(side, waiting, ended),
        dice_seed_hash=campaign.dice_seed_hash,
        dice_seed=campaign.dice_seed if ended else None,
        currency=module.currency.code,
        fortification_currency=module.fortifications.currency if module.fortifications else None,
        panel=None if ended else _panel(campaign, module, side, step, set(done), waiting),
        initiative=_latest_initiative(campaign),
        record=_record(campaign, module, side),
        events=_events(campaign, side, module),
        invitation=invitation,
        invitation_side=invitation_side,
    )


def _panel(campaign, module, side, step, done, waiting) -> StepPanel:
    names = {s.id: s.name for s in module.sides}
    base = {
        "at": f"{campaign.cycle}.{campaign.step_index}",
        "can_act": side in waiting,
        "done": [names[x.id] for x in module.sides if x.id in done],
    }
    if step.kind == "results":
        entered = ScenarioResult.objects.filter(campaign=campaign, cycle=campaign.cycle).first()
        fields = []
        for f in module.result_fields:
            owners = [f.side] if f.side else [x.id for x in module.sides]
            for owner in owners:
                value = entered.data.get(f.id, {}).get(owner) if entered else None
                fields.append(
                    FieldView(f"{f.id}.{owner}", f"{f.label} — {names[owner]}", f.kind, value)
                )
        return StepPanel(
            **base, fields=fields, entered_by=names[entered.entered_by] if entered else None
        )
    if step.kind in ("table", "san"):
        from campaign.models import Unit

        own = Unit.objects.filter(campaign=campaign, side=side)
        return StepPanel(
            **base,
            tables=[_table_view(module.table(t)) for t in step.tables],
            rolls=_step_rolls(campaign, side, step.id),
            units=[(u.pk, f"{u.name} ({u.get_status_display()})") for u in own],
        )
    if step.effect == "replenish":
        mine = (
            Event.objects.filter(campaign=campaign, kind="replenish", side=side)
            .order_by("-seq")
            .first()
        )
        lines = (
            mine.data.get("lines", []) if mine and mine.date_index == campaign.date_index else []
        )
        return StepPanel(**base, lines=lines, rolls=_step_rolls(campaign, side, step.id))
    if step.kind == "initiative":
        return _initiative_panel(campaign, module, side, base)
    if step.kind in ("purchase", "strength"):
        chart, missing = _chart(campaign, module, side) if step.kind == "purchase" else ([], "")
        mine = [p for p in _record(campaign, module, side) if p.mine]
        return StepPanel(**base, chart=chart, chart_missing=missing, purchases=mine)
    if step.kind == "fortify" and module.fortifications:
        return _fortify_panel(campaign, module, side, base)
    if step.kind == "recon" and module.recon:
        return _recon_panel(campaign, module, side, base)
    return StepPanel(**base)


def _chart(campaign, module, side) -> tuple[list[ChartRow], str]:
    from rules.purchase import Bought, cost_options, retained_tags, unavailable

    chart = module.chart(side)
    if chart is None or chart.missing:
        rule = f" ({chart.rule})" if chart else ""
        return [], (
            f"The rules text lacks this side's RG chart{rule}. The host must supply it in a "
            "module override before anything can be bought here."
        )
    active = Purchase.objects.filter(campaign=campaign, side=side, status="active")
    bought = [Bought(p.group_id, p.date_index) for p in active]
    initial = module.variant(campaign.variant).initial_rgs.get(side, [])
    tags = retained_tags(chart, [*initial, *(b.group_id for b in bought)])
    points = campaign.seats.get(side=side).points
    rows = []
    for g in chart.groups:
        reasons = unavailable(
            module,
            variant=campaign.variant,
            side=side,
            group=g,
            date_index=campaign.date_index,
            bought=bought,
            retained_tags=tags,
        )
        options = cost_options(module, side, g)
        if options and min(o.cost for o in options) > points:
            reasons.append(f"not enough {module.currency.code} ({points} left)")
        n_cg = sum(1 for b in bought if b.group_id == g.id)
        n_date = sum(
            1 for b in bought if b.group_id == g.id and b.date_index == campaign.date_index
        )
        cg_max = g.cg_max.get(campaign.variant)
        rows.append(
            ChartRow(
                g.id,
                g.type,
                g.strength_text
                or (f"{g.full}/{g.depleted}" if g.depleted is not None else str(g.full or "")),
                g.units,
                [(o.variant, o.label, o.cost) for o in options],
                "—" if g.date_max is None else str(max(0, g.date_max - n_date)),
                "—" if cg_max is None else str(max(0, cg_max - n_cg)),
                reasons,
                [f"{k}: {chart.footnotes[k]}" for k in g.footnotes],
            )
        )
    return rows, ""


def _record(campaign, module, side, purchases=None) -> list[PurchaseLine]:
    """The RG Purchase Records: the viewer's in full, the opponent's revealed lines."""
    names = {s.id: s.name for s in module.sides}
    lines = []
    count: dict[tuple[str, str], int] = {}
    step = module.steps[campaign.step_index]
    if purchases is None:
        purchases = Purchase.objects.filter(campaign=campaign, status="active")
    for p in sorted(purchases, key=lambda p: p.pk):
        key = (p.side, p.group_id)
        count[key] = count.get(key, 0) + 1
        mine = p.side == side
        if not mine and p.revealed_at is None:
            continue
        rolls = [f"{r['table']}: {r['result']}" for r in p.details.get("rolls", [])]
        in_purchase = step.kind == "purchase" and p.cycle == campaign.cycle
        lines.append(
            PurchaseLine(
                id=p.pk,
                side=names[p.side],
                mine=mine,
                date=module.dates[p.date_index].label,
                group_id=p.group_id,
                group_type=p.group_type,
                cost=p.cost,
                number_purchased=count[key],
                number_remaining="—" if p.cg_max is None else str(p.cg_max - count[key]),
                strength={"full": "F", "depleted": "D"}.get(p.strength, ""),
                units=p.units if p.rolled_at or p.strength else None,
                sw=", ".join(f"{n} {w}" for w, n in p.details.get("sw", {}).items()),
                rolls=rolls,
                entry_area=p.entry_area,
                notes=p.notes,
                revealed=p.revealed_at is not None,
                can_cancel=mine and in_purchase and p.rolled_at is None,
                can_roll=mine and p.rolled_at is None and step.kind in ("purchase", "strength"),
            )
        )
    return lines


def _fortify_panel(campaign, module, side, base) -> StepPanel:
    forts = module.fortifications
    rows = []
    for i in forts.items:
        if i.sides is not None and side not in i.sides:
            continue
        caps = []
        if i.per_cg_max is not None and (i.cap_sides is None or side in i.cap_sides):
            caps.append(f"≤ {i.per_cg_max} per CG")
        if i.per_date_max is not None and (i.cap_sides is None or side in i.cap_sides):
            caps.append(f"≤ {i.per_date_max} per date")
        rows.append(
            FortRow(
                i.id, i.label, i.cost, i.cost_text or str(i.cost), ", ".join(caps), i.note or ""
            )
        )
    buys = [
        f"{b.count} × {b.item_id} ({b.cost} {forts.currency})"
        + (f" at {b.location}" if b.location else "")
        for b in FortificationBuy.objects.filter(
            campaign=campaign, side=side, date_index=campaign.date_index
        )
    ]
    return StepPanel(**base, forts=rows, fort_buys=buys)


def _recon_panel(campaign, module, side, base) -> StepPanel:
    mine = ReconBuy.objects.filter(
        campaign=campaign, side=side, date_index=campaign.date_index
    ).first()
    options = [(i, o.cost, o.drm) for i, o in enumerate(module.recon.options)]
    text = f"Recon bought for {mine.cost}: {mine.locations} Locations." if mine else ""
    return StepPanel(**base, recon_options=options, recon=text)


def _latest_initiative(campaign) -> str:
    outcome = InitiativeOutcome.objects.filter(campaign=campaign).order_by("-cycle").first()
    return outcome.text if outcome else ""


def _initiative_panel(campaign, module, side, base) -> StepPanel:
    chits = {
        c.side: c for c in InitiativeChit.objects.filter(campaign=campaign, cycle=campaign.cycle)
    }
    views = []
    for s in module.sides:
        chit = chits.get(s.id)
        visible = chit is not None and (s.id == side or chit.revealed_at is not None)
        views.append(
            ChitView(s.name, chit.get_chit_display() if visible else None, chit is not None)
        )
    mine = chits.get(side)
    from rules.services.initiative import chit_refusal

    refusal = chit_refusal(campaign, module, side, "attack")
    restricted = {r.side for r in module.initiative.restrictions}
    return StepPanel(
        **base,
        chits=views,
        my_chit=mine.get_chit_display() if mine else None,
        attack_allowed=not refusal,
        attack_refusal=refusal,
        declares_units=not chits and any(s != side for s in restricted),
        no_on_map_units=campaign.seats.get(side=side).no_on_map_units,
    )


def _table_view(table) -> TableView:
    columns = table.columns or ["Result"]
    rows = [
        (r.range, [r.results[c] for c in columns] if r.results else [r.result or ""])
        for r in table.rows
    ]
    drms = []
    for d in table.drms:
        if d.variable:
            how = "typed"
        elif d.when is not None or d.of is not None:
            how = "auto"
        else:
            how = "tick"
        drms.append(DrmView(d.id, d.label, d.value, how))
    return TableView(
        table.id,
        table.title,
        table.rule,
        table.dice,
        table.missing,
        columns,
        rows,
        drms,
        [f"{k}: {v}" for k, v in table.footnotes.items()],
    )


def _step_rolls(campaign, side, step_id) -> list[RollView]:
    """Rolls of the current step the viewer may see: own, and the opponent's open or
    revealed ones."""
    rolls = Roll.objects.filter(campaign=campaign, date_index=campaign.date_index, step_id=step_id)
    out = []
    for r in rolls.order_by("seq"):
        if r.side != side and r.secret and r.revealed_at is None:
            continue
        out.append(_roll_view(r, ended=False))
    return out


def _roll_view(r: Roll, *, ended: bool) -> RollView:
    return RollView(
        r.seq if ended else None,
        r.side,
        r.purpose,
        r.item,
        r.dice,
        r.faces,
        r.drms,
        r.final,
        r.result,
    )


def _events(campaign: Campaign, side: str, module) -> list[EventView]:
    out = []
    for e in Event.objects.filter(campaign=campaign).order_by("-seq")[:200]:
        hidden = e.secret_side and e.secret_side != side and e.revealed_at is None
        text = e.public_text if hidden else e.text
        if not text:
            continue
        out.append(
            EventView(
                kind=e.kind,
                side=e.side,
                date=module.dates[e.date_index].label,
                step_id=e.step_id,
                text=text,
                at=e.created_at.isoformat(timespec="seconds"),
            )
        )
    return out


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


def dashboard_rows(user) -> list[DashboardRow]:
    """The user's campaigns, newest activity first: a constant number of queries."""
    seats = list(
        Seat.objects.filter(user=user).select_related("campaign").order_by("-campaign__updated_at")
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
    marks: dict[tuple, set[str]] = {}
    for m in StepMark.objects.filter(current).values("campaign_id", "cycle", "step_index", "side"):
        marks.setdefault((m["campaign_id"], m["cycle"], m["step_index"]), set()).add(m["side"])
    rows = []
    for seat in seats:
        c = seat.campaign
        module = module_of(c)
        step = module.steps[c.step_index]
        ended = c.ended_at is not None
        done = marks.get((c.pk, c.cycle, c.step_index), set())
        waiting = [] if ended else machine.sides_to_act(module, step, done)
        opp = others.get((c.pk, machine.opponent(module, seat.side)))
        rows.append(
            DashboardRow(
                campaign_id=str(c.pk),
                name=c.name,
                module_title=module.title,
                side=module.side(seat.side).name,
                opponent=opp.user.get_username() if opp and opp.user else None,
                date=module.dates[c.date_index].label,
                step=f"{step.id} {step.title}",
                status=status_for(seat.side, waiting, ended),
                ended=ended,
            )
        )
    return rows


@dataclass(frozen=True)
class InvitationView:
    """What an invitation link tells its holder: the campaign's public face only."""

    token: str
    campaign: str
    host: str
    module: str
    variant: str
    side: str


def invitation_view(token: str, user) -> InvitationView:
    from rules.services.errors import ActionRefused

    inv = (
        Invitation.objects.select_related("campaign", "campaign__host").filter(token=token).first()
    )
    if inv is None:
        raise ActionRefused("This invitation link is not valid.", status=404)
    if not inv.is_open and inv.used_by_id != user.pk:
        reason = "withdrawn by the host" if inv.revoked_at else "already used"
        raise ActionRefused(
            f"This invitation was {reason}. Ask the host for a new link.", status=410
        )
    module = module_of(inv.campaign)
    return InvitationView(
        token=inv.token,
        campaign=inv.campaign.name,
        host=inv.campaign.host.get_username(),
        module=module.title,
        variant=module.variant(inv.campaign.variant).name,
        side=module.side(inv.side).name,
    )


@dataclass(frozen=True)
class DiceView:
    campaign_id: str
    name: str
    seed_hash: str
    seed: str | None  # disclosed when the CG ends
    rolls: list[RollView]
    problems: list[str] | None  # verification, once the seed is disclosed


def dice_view(campaign: Campaign, side: str) -> DiceView:
    """Every roll the seat may see, and (after the CG) their verification."""
    from rules.services.dice import verify

    ended = campaign.ended_at is not None
    visible = [
        _roll_view(r, ended=ended)
        for r in Roll.objects.filter(campaign=campaign).order_by("seq")
        if not (r.side != side and r.secret and r.revealed_at is None)
    ]
    return DiceView(
        campaign_id=str(campaign.pk),
        name=campaign.name,
        seed_hash=campaign.dice_seed_hash,
        seed=campaign.dice_seed if ended else None,
        rolls=visible,
        problems=verify(campaign) if ended else None,
    )


# --------------------------------------------------------------------------- the roster


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


@dataclass(frozen=True)
class RosterLine:
    date: str
    weather: str
    initiative: str
    sides: list[RosterSide]  # in module side order


@dataclass(frozen=True)
class UnitView:
    id: int
    name: str
    status: str
    status_label: str
    location: str


@dataclass(frozen=True)
class ForcesView:
    side: str
    mine: bool
    units: list[UnitView]


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
    statuses: list[tuple[str, str]]
    points_chart: str  # server-rendered SVG
    cvp_chart: str
    fortifications: list[str] = field(default_factory=list)  # the roster's FORTIFICATIONS


def roster_view(campaign: Campaign, side: str) -> RosterView:
    """The CG Roster, RG Purchase Records and retained forces as ``side`` may see them:
    a fixed number of queries whatever the number of dates and purchases."""
    from campaign.charts import line_chart
    from campaign.models import Unit

    module = module_of(campaign)
    ended = campaign.ended_at is not None
    sides = [s.id for s in module.sides]
    variant = module.variant(campaign.variant)
    first = next(i for i, d in enumerate(module.dates) if d.id == variant.start_date)
    results = {
        r.date_index: r.data
        for r in ScenarioResult.objects.filter(campaign=campaign, confirmed_at__isnull=False)
    }
    purchases = list(Purchase.objects.filter(campaign=campaign, status="active"))
    recons = {(r.side, r.date_index): r for r in ReconBuy.objects.filter(campaign=campaign)}
    chits = {(c.side, c.date_index): c for c in InitiativeChit.objects.filter(campaign=campaign)}
    outcomes = {o.date_index: o for o in InitiativeOutcome.objects.filter(campaign=campaign)}
    repl = {
        (e.side, e.date_index): e.data
        for e in Event.objects.filter(campaign=campaign, kind="replenish").only(
            "side", "date_index", "data"
        )
    }
    lines = []
    for i in range(first, campaign.date_index + 1):
        date = module.dates[i]
        row = []
        for s in sides:
            visible = s == side or ended
            data = repl.get((s, i))
            start = (
                data["start"]
                if data
                else (variant.initial_points.get(s, 0) if i == first else None)
            )
            gained = data["repl"] if data else 0
            bought = [p for p in purchases if p.side == s and p.date_index == i]
            recon = recons.get((s, i))
            spent = sum(p.cost for p in bought) + (recon.cost if recon else 0)
            total = None if start is None else start + gained
            chit = chits.get((s, i))
            result = results.get(i, {})
            row.append(
                RosterSide(
                    start=start if visible else None,
                    repl=gained if visible and start is not None else None,
                    total=total if visible else None,
                    spent=spent if visible else None,
                    left=(total - spent) if visible and total is not None else None,
                    rgs=[p.group_id for p in bought if visible or p.revealed_at],
                    recon=recon.locations if recon and (visible or recon.revealed_at) else None,
                    chit=chit.get_chit_display()
                    if chit and (s == side or chit.revealed_at)
                    else "",
                    cvp_lost=result.get("cvp_lost", {}).get(s),
                    san=result.get("san", {}).get(s),
                )
            )
        outcome = outcomes.get(i)
        lines.append(
            RosterLine(date.label, date.weather or "", outcome.label if outcome else "", row)
        )
    units = list(Unit.objects.filter(campaign=campaign).select_related("purchase"))
    forces = [
        ForcesView(
            module.side(s).name,
            s == side,
            [
                UnitView(u.pk, u.name, u.status, u.get_status_display(), u.location)
                for u in units
                if u.side == s
                and (s == side or ended or u.purchase is None or u.purchase.revealed_at)
            ],
        )
        for s in sides
    ]
    forts = [
        f"{module.dates[b.date_index].label}: {module.side(b.side).name} {b.count} × "
        f"{b.item_id.replace('_', ' ')}" + (f" at {b.location}" if b.location else "")
        for b in FortificationBuy.objects.filter(campaign=campaign).order_by("id")
        if b.side == side or b.revealed_at
    ]
    own = sides.index(side)
    series = {module.side(side).name: [(ln.date, ln.sides[own].left) for ln in lines]}
    if ended:
        other = 1 - own
        series[module.side(sides[other]).name] = [(ln.date, ln.sides[other].left) for ln in lines]
    cvp = {
        module.side(s).name: [(ln.date, ln.sides[k].cvp_lost) for ln in lines]
        for k, s in enumerate(sides)
    }
    return RosterView(
        campaign_id=str(campaign.pk),
        name=campaign.name,
        module_title=module.title,
        currency=module.currency.code,
        side_names=[module.side(s).name for s in sides],
        lines=lines,
        record=_record(campaign, module, side, purchases=purchases),
        forces=forces,
        statuses=list(Unit.Status.choices),
        points_chart=line_chart(f"{module.currency.code} left", series),
        cvp_chart=line_chart("CVP lost per scenario", cvp),
        fortifications=forts,
    )


def roster_digest(roster: RosterView) -> str:
    blob = json.dumps(asdict(roster), sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
