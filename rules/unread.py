"""Which data of a module no path of play reads (issue 44: "a test lists every module
datum no path of play reads").  A module's tables, DRMs, rows, purchase rolls, RG chart
rows, price variants, group kinds and required VP are each read by a mechanism only
when something in the sequence can reach them: a table a step or a purchase rolls, a
DRM whose condition can hold for a side that rolls the table, a row its dice reach, an
RG some date lets a side buy.  What none reaches is either documentation (a note, a
footnote, a heading: not listed here) or an error of transcription.  Pure functions
over the module, as ``rules.reach`` (whose unreachable rows this lists too)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.kinds import KINDS, Action
from rules.reach import _for_side, unreachable_rows
from rules.schema import (
    Condition,
    DateWindow,
    Drm,
    Module,
    ReinforcementGroup,
    Table,
    TableRollReplenishment,
    VpDifferentialReplenishment,
)


@dataclass(frozen=True)
class Unread:
    path: str  # where the datum is in the module: "tables.leader.drms.pzgr_pzv"
    why: str  # why no path of play reads it

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


def _step_sides(module: Module, acts: str) -> set[str]:
    return {s.id for s in module.sides} if acts in ("both", "in_order") else {acts}


def rolling_sides(module: Module, table: Table) -> set[str]:
    """The sides some path of play rolls ``table`` for: a step of a rolling kind that
    lists it, a purchase roll that names it, the SAN rule, the replenishment."""
    every = {s.id for s in module.sides}
    sides: set[str] = set()
    for st in module.steps:
        kind = KINDS.get(st.kind)
        if table.id in st.tables and kind is not None and Action.ROLL in kind.actions:
            sides |= _step_sides(module, st.acts)
    for p in module.post_purchase:
        if p.table == table.id:
            sides |= set(p.applies_to.sides) if p.applies_to and p.applies_to.sides else every
    if module.san is not None and module.san.table == table.id:
        sides |= every
    rep = module.currency.replenishment
    if isinstance(rep, TableRollReplenishment) and rep.table == table.id:
        sides |= every
    if table.offer_when is not None and table.offer_when.sides is not None:
        sides &= set(table.offer_when.sides)
    return sides


def _groups(module: Module, sides: set[str] | None = None) -> list[ReinforcementGroup] | None:
    """The RGs of the sides' charts (None: a chart is missing, so any RG may come)."""
    out: list[ReinforcementGroup] = []
    for side in sides if sides is not None else [s.id for s in module.sides]:
        chart = module.chart(side)
        if chart is None:
            continue
        if chart.missing:
            return None
        out.extend(chart.groups)
    return out


def _given_types(module: Module) -> set[str] | None:
    """The group kinds a roll can give an RG (effect ``type``, a table's ``gives_type``);
    None when a table the players supply may give any."""
    types = {t.gives_type for t in module.tables if t.gives_type}
    for t in module.tables:
        for row in [*t.rows, *t.original]:
            for e in [row.effect, *row.effects, *row.column_effects.values()]:
                if e is not None and e.do == "type" and e.type:
                    types.add(e.type)
    supplied = any(t.missing and rolling_sides(module, t) for t in module.tables)
    return None if supplied else types


def _selects_any(module: Module, cond: Condition | None, sides: set[str]) -> bool:
    """Whether ``cond`` can select some RG of ``sides``: its sides, tags, IDs and
    rolled types name one that exists (a missing chart: any may)."""
    if cond is None:
        return True
    if cond.sides is not None:
        sides = sides & set(cond.sides)
    if not sides:
        return False
    given = _given_types(module)
    if cond.rolled_types is not None and given is not None and not set(cond.rolled_types) & given:
        return False
    groups = _groups(module, sides)
    if groups is None:
        return True
    return any(
        (cond.tags is None or set(cond.tags) & set(g.tags))
        and (cond.groups is None or g.id in cond.groups)
        and (cond.id_prefixes is None or g.id.startswith(tuple(cond.id_prefixes)))
        and (cond.not_tags is None or not set(cond.not_tags) & set(g.tags))
        for g in groups
    )


def _unit_kinds_meet(table: Table, d: Drm) -> bool:
    """Whether a DRM that names unit kinds can meet a unit the table is rolled for ("NA
    to vehicles": a table rolled for no unit, or for other kinds only, never does)."""
    for c in (d.when, d.offer_when):
        if c is None or c.unit_kinds is None:
            continue
        if table.for_units is None:
            return False
        kinds = table.for_units.kinds
        if kinds is not None and not set(c.unit_kinds) & set(kinds):
            return False
    return True


def _tables(module: Module) -> list[Unread]:
    out = []
    for t in module.tables:
        sides = rolling_sides(module, t)
        if not sides:
            listed = [st.id for st in module.steps if t.id in st.tables]
            out.append(
                Unread(
                    f"tables.{t.id}",
                    (
                        f"listed at step {', '.join(listed)}, where no roll and no purchase "
                        "roll is made on it"
                        if listed
                        else "no step rolls it and no purchase roll follows on it"
                    ),
                )
            )
            continue
        for d in t.drms:
            if not any(_for_side(module, d, s) for s in sides):
                out.append(
                    Unread(
                        f"tables.{t.id}.drms.{d.id}",
                        "its condition holds for no side that rolls the table "
                        f"({', '.join(sorted(sides))})",
                    )
                )
            elif not _unit_kinds_meet(t, d):
                out.append(
                    Unread(
                        f"tables.{t.id}.drms.{d.id}",
                        "it needs a unit kind the table is never rolled for",
                    )
                )
        if (
            t.gives_type
            and not any(
                e is not None and e.do == "group"
                for row in t.rows
                for e in [row.effect, *row.effects, *row.column_effects.values()]
            )
            and not t.missing
        ):
            out.append(Unread(f"tables.{t.id}.gives_type", "no row of the table gives a group"))
    for row in unreachable_rows(module):
        out.append(Unread(f"tables.{row.table}.rows[{row.row}]", str(row).split(": ", 1)[1]))
    return out


def _purchase_rolls(module: Module) -> list[Unread]:
    every = {s.id for s in module.sides}
    return [
        Unread(
            f"post_purchase[{i}] ({p.table})",
            "its condition selects no RG a side can receive",
        )
        for i, p in enumerate(module.post_purchase)
        if not _selects_any(module, p.applies_to, every)
    ]


def _date_index(module: Module, did: str | None, default: int) -> int:
    ids = [d.id for d in module.dates]
    return ids.index(did) if did in ids else default


def _charts(module: Module) -> list[Unread]:
    out = []
    last = len(module.dates) - 1
    for chart in module.rg_charts:
        if chart.missing:
            continue
        windows = [r for r in chart.restrictions if isinstance(r, DateWindow)]
        in_ob = {rg for v in module.variants for ob in v.start.ob.values() for rg in ob.rgs}
        for g in chart.groups:
            where = f"rg_charts.{chart.side}.groups.{g.id}"
            if g.id in in_ob:
                continue  # an Initial-Scenario OB holds it
            if g.date_max == 0:
                out.append(Unread(where, "its maximum per CG date is 0"))
            elif g.cg_max and all(g.cg_max.get(v.id, 1) == 0 for v in module.variants):
                out.append(Unread(where, "its maximum per CG is 0 in every variant"))
            for w in windows:
                if not _selects_any(module, w.applies_to, {chart.side}) or not (
                    (w.applies_to.groups is None or g.id in w.applies_to.groups)
                    and (w.applies_to.tags is None or set(w.applies_to.tags) & set(g.tags))
                    and (
                        w.applies_to.id_prefixes is None
                        or g.id.startswith(tuple(w.applies_to.id_prefixes))
                    )
                ):
                    continue
                lo = _date_index(module, w.not_before, 0)
                hi = _date_index(module, w.not_after, last)
                if lo > hi:
                    out.append(Unread(where, f"its date window ({w.rule}) holds on no CG date"))
    for cv in module.cost_variants:
        if cv.applies_to is not None and not _selects_any(
            module, cv.applies_to, {s.id for s in module.sides}
        ):
            out.append(Unread(f"cost_variants.{cv.id}", "its condition selects no RG"))
    return out


def _types(module: Module) -> list[Unread]:
    """A group kind a roll gives that no condition reads."""
    read: set[str] = set()
    conds: list[Condition | None] = [p.applies_to for p in module.post_purchase]
    conds += [d.when for t in module.tables for d in t.drms]
    conds += [d.offer_when for t in module.tables for d in t.drms]
    conds += [cv.applies_to for cv in module.cost_variants]
    for c in conds:
        if c is not None and c.rolled_types:
            read |= set(c.rolled_types)
    return [
        Unread(f"group kind '{ty}'", "a roll gives it, but no purchase roll, DRM or price reads it")
        for ty in sorted((_given_types(module) or set()) - read)
    ]


def _vp_required(module: Module) -> list[Unread]:
    reads = isinstance(module.currency.replenishment, VpDifferentialReplenishment) or (
        module.scenario_winner is not None
        and any(t.value == "vp_required" for t in module.scenario_winner.any)
    )
    if reads:
        return []
    return [
        Unread(f"dates.{d.id}.vp_required", "no replenishment nor scenario winner reads it")
        for d in module.dates
        if d.vp_required is not None
    ]


def unread_data(module: Module) -> list[Unread]:
    """Every datum of ``module`` that no path of play reads."""
    return [
        *_tables(module),
        *_purchase_rolls(module),
        *_charts(module),
        *_types(module),
        *_vp_required(module),
    ]
