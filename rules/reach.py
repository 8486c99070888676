"""Which rows of a dice table a roll can reach: the dice kind's range, widened by the
largest DRMs the table can apply (issue 44, class 7).  A row outside it is printed
but can never come up: a transcription error (a "dr" table whose rows run to 12), or
a row the rules text keeps on purpose (a note in the ledger says so)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.drm import VARIABLE_LIMIT
from rules.schema import DICE_RANGE, Drm, Module, Table

# A DRM computed from a campaign quantity with no bound of its own: as far as a typed
# one may go (a quantity the app counts, such as CVP, has no printed ceiling).
SCALED_LIMIT = VARIABLE_LIMIT


@dataclass(frozen=True)
class Unreachable:
    table: str
    row: str
    reach: tuple[int, int]  # the finals a roll on the table can give

    def __str__(self) -> str:
        lo, hi = self.reach
        return (
            f"{self.table}: row {self.row} can never come up (a final {lo}..{hi} is all "
            "the dice and DRMs give)"
        )


def _drm_span(d: Drm) -> tuple[int, int]:
    """The least and the most one DRM adds (0 when it does not apply)."""
    if d.variable:
        lo = -VARIABLE_LIMIT if d.min is None else d.min
        hi = VARIABLE_LIMIT if d.max is None else d.max
    elif d.of is not None:
        sign = 1 if d.value > 0 else -1
        lo = d.min if d.min is not None else (-SCALED_LIMIT if sign < 0 else 0)
        hi = d.max if d.max is not None else (SCALED_LIMIT if sign > 0 else 0)
    else:
        lo = hi = d.value
    return min(lo, 0), max(hi, 0)


def _for_side(module: Module, d: Drm, side: str | None) -> bool:
    """Whether the DRM can reach a roll of ``side`` (None: any side): its conditions
    name the side, and a tag, RG or ID prefix they need is on the side's chart."""
    if side is None:
        return True
    chart = module.chart(side)
    groups = chart.groups if chart is not None and not chart.missing else None
    for c in (d.when, d.offer_when):
        if c is None:
            continue
        if c.sides is not None and side not in c.sides:
            return False
        if groups is None:
            continue
        if c.tags is not None and not any(set(c.tags) & set(g.tags) for g in groups):
            return False
        if c.groups is not None and not any(g.id in c.groups for g in groups):
            return False
        if c.id_prefixes is not None and not any(
            g.id.startswith(tuple(c.id_prefixes)) for g in groups
        ):
            return False
    return True


def reach(module: Module, table: Table, side: str | None = None) -> tuple[int, int]:
    """The lowest and the highest final roll on ``table`` (for ``side``: the DRMs that
    can reach its rolls)."""
    low, high = DICE_RANGE[table.dice]
    for d in table.drms:
        if _for_side(module, d, side):
            lo, hi = _drm_span(d)
            low, high = low + lo, high + hi
    return low, high


def unreachable_rows(module: Module) -> list[Unreachable]:
    """Every row of the module's tables that no side's roll can reach."""
    out = []
    for t in module.tables:
        if t.missing or not t.rows:
            continue
        spans = [reach(module, t, s.id) for s in module.sides]
        lo, hi = min(x for x, _ in spans), max(y for _, y in spans)
        for row in t.rows:
            r_lo, r_hi = row.bounds
            if all(
                (r_lo is not None and r_lo > s_hi) or (r_hi is not None and r_hi < s_lo)
                for s_lo, s_hi in spans
            ):
                out.append(Unreachable(t.id, row.range, (lo, hi)))
    return out


@dataclass(frozen=True)
class Uncovered:
    table: str
    side: str  # the side's name, as the players read it
    finals: tuple[int, ...]  # the finals a roll can give that no row covers

    def __str__(self) -> str:
        lo, hi = self.finals[0], self.finals[-1]
        span = str(lo) if lo == hi else f"{lo}..{hi}"
        return (
            f"{self.table}: a final {span} ({self.side}'s roll with its DRMs) falls on no "
            "row (a row printed open-ended, '≤' or '≥', would cover it)"
        )


def _covers(table: Table, final: int) -> bool:
    return any(
        (lo is None or final >= lo) and (hi is None or final <= hi)
        for lo, hi in (row.bounds for row in table.rows)
    )


def uncovered_results(module: Module) -> list[Uncovered]:
    """Every final a side's roll on a table can give (its dice and the DRMs that can
    reach its rolls) that no row covers: the result would be read off the nearest row,
    which the rules do not print (issue 44, class 7)."""
    out = []
    for t in module.tables:
        if t.missing or not t.rows:
            continue
        for s in module.sides:
            lo, hi = reach(module, t, s.id)
            finals = tuple(f for f in range(lo, hi + 1) if not _covers(t, f))
            if finals:
                out.append(Uncovered(t.id, s.name, finals))
    return out
