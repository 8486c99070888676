"""The current step's panel for one seat: what the step shows the viewer and what the
viewer may do there.  Each ``Show`` of ``rules.kinds`` is built by one function here,
for every kind that names it; availability comes from ``rules.availability``, the same
functions that refuse the actions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from campaign.models import (
    Event,
    EventKind,
    FortificationBuy,
    InitiativeChit,
    ReconBuy,
    Roll,
    ScenarioResult,
    Unit,
)
from campaign.seat_views.common import PurchaseLine, RollView, roll_view
from campaign.selectors import holdings
from rules import availability
from rules.kinds import Show, kind_of
from rules.purchase import cost_options
from rules.schema import Table
from rules.snapshot import Bought, Holdings

if TYPE_CHECKING:
    from campaign.seat_views.campaign_page import CampaignView


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
class FortRow:
    id: str
    label: str
    cost: int
    cost_text: str
    cap: str
    note: str
    reasons: list[str]


@dataclass
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
    units: list[tuple[str, str]] = field(default_factory=list)  # own units (ref, label)
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
    recon_refusal: str = ""
    declares_units: bool = False  # the viewer's on-map units decide the opponent's chit
    no_on_map_units: bool = False
    # Finishing several steps at once: (last step id, its title, what it means).
    ahead: list[tuple[str, str, str]] = field(default_factory=list)


def build_panel(view: CampaignView) -> StepPanel:
    step = view.step_def
    names = {s.id: s.name for s in view.module.sides}
    panel = StepPanel(
        at=view.at,
        can_act=view.viewer in view.waiting_for,
        done=[names[x.id] for x in view.module.sides if x.id in view.done],
    )
    for show in kind_of(step.kind).shows:
        BUILDERS[show](view, panel)
    if panel.can_act and kind_of(step.kind).finish_ahead:
        panel.ahead = _ahead(view)
    return panel


def _ahead(view: CampaignView) -> list[tuple[str, str, str]]:
    """The ways to finish several steps at once: through the last map step before a
    purchase, and through the whole run (buying nothing on the way)."""
    own = [p for p in view.purchases if p.side == view.viewer]
    snap = view.snapshot(
        Holdings(
            bought=tuple(Bought(p.group_id, p.date_index, p.initial) for p in own),
            unrolled=tuple(p.group_id for p in own if p.rolled_at is None),
        )
    )
    run = availability.finish_ahead(view.module, snap)
    options = []
    buys = [i for i, s in enumerate(run) if availability.declines_to_buy(s)]
    if buys and buys[0] >= 2:
        last = next(s for s in reversed(run[: buys[0]]) if kind_of(s.kind).finish_ahead)
        if last is not run[0]:
            options.append((last.id, last.title, "no rolls"))
    if run:
        meaning = "no rolls, no purchases" if buys else "no rolls"
        options.append((run[-1].id, run[-1].title, meaning))
    return options


def _result_fields(view: CampaignView, panel: StepPanel) -> None:
    c, module = view.campaign, view.module
    names = {s.id: s.name for s in module.sides}
    entered = ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).first()
    for f in module.result_fields:
        owners = [f.side] if f.side else [x.id for x in module.sides]
        for owner in owners:
            value = entered.data.get(f.id, {}).get(owner) if entered else None
            panel.fields.append(
                FieldView(f"{f.id}.{owner}", f"{f.label} — {names[owner]}", f.kind, value)
            )
    panel.entered_by = names[entered.entered_by] if entered else None


def table_view(table: Table) -> TableView:
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


def _tables(view: CampaignView, panel: StepPanel) -> None:
    panel.tables = [table_view(view.module.table(t)) for t in view.step_def.tables]


def _rolls(view: CampaignView, panel: StepPanel) -> None:
    c = view.campaign
    rolls = Roll.objects.visible_to(view.viewer).filter(
        campaign=c, date_index=c.date_index, step_id=view.step_def.id
    )
    panel.rolls = [roll_view(r, ended=False) for r in rolls.order_by("seq")]


def _units(view: CampaignView, panel: StepPanel) -> None:
    own = Unit.objects.visible_to(view.viewer).filter(campaign=view.campaign, side=view.viewer)
    panel.units = [(u.ref, f"{u.name} ({u.get_status_display()})") for u in own]


def _arithmetic(view: CampaignView, panel: StepPanel) -> None:
    c = view.campaign
    mine = (
        Event.objects.readable_by(view.viewer)
        .filter(campaign=c, kind=EventKind.REPLENISH, side=view.viewer)
        .order_by("-id")
        .first()
    )
    if mine and mine.date_index == c.date_index:
        panel.lines = list(mine.data.get("lines", []))


def _chart(view: CampaignView, panel: StepPanel) -> None:
    module, side = view.module, view.viewer
    missing = availability.chart_missing(module, side)
    if missing:
        panel.chart_missing = missing
        return
    chart = module.chart(side)
    assert chart is not None
    own = [p for p in view.purchases if p.side == side]
    bought = tuple(Bought(p.group_id, p.date_index, p.initial) for p in own)
    snap = view.snapshot(Holdings(bought=bought))
    date_index = view.campaign.date_index
    for g in chart.groups:
        n_cg = sum(1 for b in bought if b.group_id == g.id and not b.initial)
        n_date = sum(
            1 for b in bought if b.group_id == g.id and b.date_index == date_index and not b.initial
        )
        cg_max = g.cg_max.get(view.campaign.variant)
        panel.chart.append(
            ChartRow(
                g.id,
                g.type,
                g.strength_text
                or (f"{g.full}/{g.depleted}" if g.depleted is not None else str(g.full or "")),
                g.units,
                [(o.variant, o.label, o.cost) for o in cost_options(module, side, g)],
                "—" if g.date_max is None else str(max(0, g.date_max - n_date)),
                "—" if cg_max is None else str(max(0, cg_max - n_cg)),
                availability.group_reasons(module, snap, g),
                [f"{k}: {chart.footnotes[k]}" for k in g.footnotes],
            )
        )


def _my_purchases(view: CampaignView, panel: StepPanel) -> None:
    panel.purchases = [line for line in view.record if line.mine]


def _fortifications(view: CampaignView, panel: StepPanel) -> None:
    module, c, side = view.module, view.campaign, view.viewer
    forts = module.fortifications
    if forts is None:
        return
    snap = view.snapshot(holdings(c, side, fortifications=True))
    for i in forts.items:
        if i.sides is not None and side not in i.sides:
            continue
        caps = [f"≤ {cap} {where}" for cap, where in availability.fortification_caps(i, side)]
        panel.forts.append(
            FortRow(
                i.id,
                i.label,
                i.cost,
                i.cost_text or str(i.cost),
                ", ".join(caps),
                i.note or "",
                availability.fortification_reasons(module, snap, i),
            )
        )
    labels = {i.id: i.label for i in forts.items}
    panel.fort_buys = [
        f"{b.count} × {labels.get(b.item_id, b.item_id)} ({b.cost} {forts.currency})"
        + (f" at {b.location}" if b.location else "")
        for b in FortificationBuy.objects.visible_to(side).filter(
            campaign=c, side=side, date_index=c.date_index
        )
    ]


def _recon(view: CampaignView, panel: StepPanel) -> None:
    module, c, side = view.module, view.campaign, view.viewer
    if module.recon is None:
        return
    mine = (
        ReconBuy.objects.visible_to(side)
        .filter(campaign=c, side=side, date_index=c.date_index)
        .first()
    )
    panel.recon_options = [(i, o.cost, o.drm) for i, o in enumerate(module.recon.options)]
    panel.recon = f"Recon bought for {mine.cost}: {mine.locations} Locations." if mine else ""
    snap = view.snapshot(holdings(c, side, recon=True))
    reasons = availability.recon_reasons(module, snap, 0)
    panel.recon_refusal = "; ".join(reasons)


def _chits(view: CampaignView, panel: StepPanel) -> None:
    module, c, side = view.module, view.campaign, view.viewer
    chits = {
        ch.side: ch
        for ch in InitiativeChit.objects.visible_to(side).filter(campaign=c, cycle=c.cycle)
    }
    chosen = set(view.done)
    panel.chits = [
        ChitView(
            s.name,
            chits[s.id].get_chit_display() if s.id in chits else None,
            s.id in chosen,
        )
        for s in module.sides
    ]
    mine = chits.get(side)
    panel.my_chit = mine.get_chit_display() if mine else None
    snap = view.snapshot(chits=len(chosen))
    refusal = availability.chit_refusal(module, snap, "attack")
    panel.attack_allowed = not refusal
    panel.attack_refusal = refusal
    panel.declares_units = availability.declares_units(module, snap)
    panel.no_on_map_units = view.seat.no_on_map_units


BUILDERS: dict[Show, Callable[[CampaignView, StepPanel], None]] = {
    Show.RESULT_FIELDS: _result_fields,
    Show.TABLES: _tables,
    Show.ROLLS: _rolls,
    Show.UNITS: _units,
    Show.ARITHMETIC: _arithmetic,
    Show.CHART: _chart,
    Show.MY_PURCHASES: _my_purchases,
    Show.FORTIFICATIONS: _fortifications,
    Show.RECON: _recon,
    Show.CHITS: _chits,
}
assert set(BUILDERS) == set(Show), "every Show has its one builder"
