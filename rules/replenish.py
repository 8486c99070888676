"""Points replenishment, one mechanism per kind of currency (the module says which).

Pure arithmetic: dice come through the ``roll`` callback, so the service records them.
Every outcome carries the lines a player reads: what was added, and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from rules import machine
from rules.drm import AppliedDrm, RollContext, after_value, applicable_drms
from rules.errors import Refused
from rules.schema import (
    BaseTableReplenishment,
    Module,
    Table,
    TableRollReplenishment,
    VpDifferentialReplenishment,
)


@dataclass(frozen=True)
class Outcome:
    start: int  # the side's points at the start of the date (after any carry-over loss)
    gained: int  # replenished this date
    lines: list[str]

    @property
    def points(self) -> int:
        return self.start + self.gained


class Rolled(Protocol):
    """What the engine reads of a roll the service made and recorded."""

    @property
    def faces(self) -> Sequence[int]: ...

    @property
    def final(self) -> int: ...


class Roller(Protocol):
    def __call__(
        self, kind: str, purpose: str, table: Table | None = None, drms: tuple[AppliedDrm, ...] = ()
    ) -> Rolled: ...


def replenish(
    module: Module,
    *,
    side: str,
    date_index: int,
    played_date_index: int | None,
    points: int,
    inputs: Mapping[str, Mapping[str, int]],
    context: RollContext,
    roll: Roller,
    scenarios: Mapping[str, Mapping[str, Sequence[int]]] | None = None,
) -> Outcome:
    """The side's points after this date's replenishment, with the arithmetic.
    ``played_date_index`` is the date of the scenario just played (None before any).
    ``scenarios``: per side, the figures of each scenario played that a CG total of
    ``inputs`` sums (APD 2.91 "scored for each scenario played is totaled"), named as
    its source where there are several."""
    currency = module.currency
    date = module.dates[date_index]
    lines: list[str] = []
    carry = currency.carry_over
    if points and not carry.retained:
        lines.append(f"{points} unspent {currency.code} lost ({carry.rule or 'carry-over'})")
        points = 0
    elif points:
        lines.append(f"carried over {points}")
    mech = currency.replenishment
    gained = 0
    if isinstance(mech, BaseTableReplenishment):
        base = (date.base_points or {}).get(side, 0)
        gained += base
        lines.append(f"base for {date.label} {base} ({mech.base_rule or mech.rule})")
        lp = mech.loss_points
        if lp is not None:
            mine = inputs[side]["cvp_lost_prior_scenario"]
            theirs = inputs[machine.opponent(module, side)]["cvp_lost_prior_scenario"]
            if mine >= lp.ratio * theirs and mine >= theirs + lp.margin and mine > 0:
                r = roll(lp.dice, f"{currency.code} loss points ({lp.rule})")
                gained += r.final
                lines.append(
                    f"lost {mine} CVP vs {theirs} (≥ {lp.ratio}× and ≥ {lp.margin} more): "
                    f"loss-point {lp.dice} {r.final} ({lp.rule})"
                )
            else:
                lines.append(f"no loss points: lost {mine} CVP vs {theirs} ({lp.rule})")
    elif isinstance(mech, TableRollReplenishment):
        table = module.table(mech.table)
        if date.initial and mech.no_roll_on_initial:
            lines.append(f"no roll for the Initial Scenario ({mech.rule})")
        elif table.missing:
            lines.append(f"the {table.title} is missing from the module: nothing added")
        else:
            drms = applicable_drms(table, context)
            r = roll(table.dice, table.title, table=table, drms=tuple(drms))
            row = table.result_row(r.final, sum(r.faces))
            column = table.column_for_side.get(side)
            value = (row.results or {}).get(column) if column else row.result
            amount = _number(value)
            gained += amount
            mods = "".join(f", {d.value:+d} {after_value(d.label, d.value)}" for d in drms)
            faces = "+".join(map(str, r.faces))
            lines.append(f"{table.dice} {faces}{mods} → {r.final}: {amount} ({mech.rule})")
    elif isinstance(mech, VpDifferentialReplenishment):
        if side == mech.side:
            required = _required(module, played_date_index, mech.rule)
            vp = inputs[side]["vp_total"]
            cvp = inputs[side]["cvp_lost_cg"]
            diff = required - vp
            pp = diff + cvp
            each = (scenarios or {}).get(side, {})
            lines.append(
                f"VP differential {required} required − {vp} amassed = {diff}"
                + _parts(each.get("vp_total", ()))
            )
            lines.append(
                f"{diff} + {cvp} CVP suffered = {pp}" + _parts(each.get("cvp_lost_cg", ()))
            )
            if pp < 0 and mech.negative_ignored:
                lines.append("negative purchase points are ignored: 0")
                pp = 0
            gained += pp
        else:
            lines.append(f"{module.side(side).name} receives no purchase points ({mech.rule})")
    # The base-table formula's rule on its sum (Sicily 3.616: "the CPP Base # (3.6161) plus
    # CG Scenario Loss Points (3.6162) equals the final amount of CPP replenished").
    formula = f" ({mech.rule})" if isinstance(mech, BaseTableReplenishment) else ""
    lines.append(f"total {points + gained}{formula}")
    return Outcome(start=points, gained=gained, lines=lines)


def _parts(figures: Sequence[int]) -> str:
    """A CG total's source, each scenario's figure (" (CG total: 63 + 40)"), where
    more than one scenario was played."""
    return f" (CG total: {' + '.join(map(str, figures))})" if len(figures) > 1 else ""


def receives(module: Module, side: str) -> bool:
    """Whether the rules give ``side`` points at all (APD 3.5: the German receives no
    Purchase Points): a side they give none has no secret figure to keep."""
    mech = module.currency.replenishment
    return not isinstance(mech, VpDifferentialReplenishment) or side == mech.side


def _required(module: Module, played_date_index: int | None, rule: str) -> int:
    """VP required to win the scenario just played (2.91).  Where the rules text lacks
    them (declared missing), the points cannot be computed: the step waits until the
    players have supplied them — never a silent 0."""
    if played_date_index is None:
        return 0
    date = module.dates[played_date_index]
    if date.vp_required is None:
        raise Refused(
            f"The VP required to win the {date.label} scenario are not in the rules text, "
            f"so the {module.currency.name} cannot be computed ({rule}): supply them under "
            "“Rules data to supply” on the campaign page; once your opponent accepts them, "
            "finish the step again.",
            status=409,
        )
    return date.vp_required


def _number(value: str | None) -> int:
    digits = "".join(ch for ch in str(value or "") if ch.isdigit() or ch == "-")
    try:
        return int(digits)
    except ValueError:
        return 0


def lost_after_purchase(module: Module, date_index: int, points: int) -> str:
    """Why the side's unspent points are lost as its purchase step ends on this date
    (3.617 EXC: "Any CPP remaining after this step on the 14 PM date are lost"), or ""."""
    carry = module.currency.carry_over
    date = module.dates[date_index]
    if not points or date.id not in carry.lost_after_dates:
        return ""
    return (
        f"{points} unspent {module.currency.code} lost after the purchase step of "
        f"{date.label} ({carry.rule or 'carry-over'})"
    )
