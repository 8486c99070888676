"""One roll made for a stack (``Table.stack``): Sicily 3.606 "+1 per HS-equivalent > one
HS using the same Escape DR", 3.613 a stack's Shift DR.  The units that join the unit
named, the DRM their HS-equivalents give, the unit Random Selection picks (3.606
footnote 3 "Use Random Selection for a stack") and each unit's part of the result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db.models import Q

from campaign.models import Roll, Unit
from campaign.services import dice as dice_service
from campaign.services import units
from campaign.services.errors import ActionRefused
from campaign.services.turns import Turn
from rules.effects import stack_hs_drm, stack_refusal
from rules.schema import Table


def rolled_in_pass(turn: Turn, table: Table, ref: str) -> bool:
    """Whether the unit ``ref`` has had its one roll on ``table`` in this pass, for itself
    or as one of a stack's units."""
    return Roll.objects.filter(
        Q(unit_ref=ref) | Q(stack__contains=f" {ref} "),
        campaign=turn.campaign,
        cycle=turn.campaign.cycle,
        table_id=table.id,
    ).exists()


def members(turn: Turn, table: Table, named: Unit | None, ids: Sequence[object]) -> list[Unit]:
    """The units that join ``named`` in its roll on ``table`` (each the side's own, of the
    kinds the stack takes and the table is rolled for, each once, none that has had
    its roll in this pass); a line of several gives up the one that joins."""
    wanted = [i for i in ids if i not in (None, "")]
    if not wanted:
        return []
    if table.stack is None or named is None:
        raise ActionRefused(f"The {table.title} ({table.rule}) is made for one unit at a time.")
    if len(set(map(str, wanted))) != len(wanted) or named.ref in wanted:
        raise ActionRefused("Name each unit of the stack once.")
    out = []
    for ref in wanted:
        unit = units.own_unit(turn, ref)
        refusal = stack_refusal(table, units.label(named), units.state_of(unit))
        if refusal:
            raise ActionRefused(refusal)
        if rolled_in_pass(turn, table, units.roll_ref(unit)):
            raise ActionRefused(
                f"{units.label(unit)} has made its one {table.title} roll in this pass "
                f"({table.rule}).",
                status=409,
            )
        out.append(unit)
    return [units.split_one(u) for u in out]


def typed_with_hs(
    table: Table, named: Unit | None, stack: Sequence[Unit], typed: Mapping[str, int] | None
) -> Mapping[str, int] | None:
    """The typed DRMs with the stack's HS-equivalents beyond the first, computed (3.606
    "+1 per HS-equivalent > one HS using the same Escape DR"): those of the unit
    named, beyond one, are the table's own DRM for its kind; the rest is ``hs_drm``'s."""
    if not stack or table.stack is None or table.stack.hs_drm is None or named is None:
        return typed
    drm = table.stack.hs_drm
    if typed and typed.get(drm):
        raise ActionRefused(
            f"The HS-equivalents of the stack are counted from the units named "
            f"({table.stack.rule}): do not type them."
        )
    return {**(typed or {}), **stack_hs_drm(table, named.kind, [(u.kind, u.count) for u in stack])}


def stack_refs(stack: Sequence[Unit]) -> str:
    return f" {' '.join(units.roll_ref(u) for u in stack)} " if stack else ""


def random_selection(turn: Turn, table: Table, among: Sequence[Unit], *, secret: bool) -> Unit:
    """The unit of ``among`` that Random Selection picks with the app's dice: a dr for
    each, the highest picked, a tie rolled again among the tied (3.606 footnote 3)."""
    assert table.stack is not None
    left = list(among)
    while len(left) > 1:
        rolled = [
            (
                dice_service.roll(
                    turn.campaign,
                    side=turn.side,
                    kind="dr",
                    purpose=f"Random Selection for a stack ({table.stack.rule})",
                    item=units.label(u),
                    step_id=turn.step.id,
                    secret=secret,
                ).final,
                u,
            )
            for u in left
        ]
        high = max(f for f, _ in rolled)
        left = [u for f, u in rolled if f == high]
    return left[0]
