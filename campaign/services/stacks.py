"""One roll made for a stack (``Table.stack``): PHD C5.13 "Redeploy as a stack" (an AFV
Platoon too), Sicily 3.606 "using the same Escape DR" and 3.613 a stack's Shift DR.  The
units that join the unit named, what they count for the roll's DRMs (their
HS-equivalents, their best leader), the unit Random Selection picks with the app's dice
(PHD C5.14 note 3, Sicily 3.606 footnote 3) and the roll's record of them."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from campaign.models import Roll, Unit
from campaign.services import dice as dice_service
from campaign.services import units
from campaign.services.errors import ActionRefused
from campaign.services.turns import Turn
from rules.availability import owed_for
from rules.effects import (
    LeaderAt,
    Leadership,
    hs_equivalents,
    leadership_modifier,
    overstack_refusal,
    roll_column,
    stack_refusal,
)
from rules.effects import location_leadership as effects_location_leadership
from rules.schema import Table

# Single Man Counters: they go with any stack; with AFVs, a leader rides in them (an
# Armour Leader, PHD C5.13a), so a result picked at random falls on an AFV.
SMC_KINDS = ("leader", "hero")


def rolled_in_pass(turn: Turn, table: Table, ref: str) -> bool:
    """Whether the unit ``ref`` has had its one roll on ``table`` in this pass, for itself
    or as one of a stack's units."""
    return Roll.objects.filter(
        Q(unit_ref=ref) | Q(stack__contains=f" {ref} "),
        campaign=turn.campaign,
        cycle=turn.campaign.cycle,
        table_id=table.id,
    ).exists()


def members(
    turn: Turn, table: Table, named: Unit | None, weapon: object, ids: Sequence[object]
) -> list[Unit]:
    """The units that join ``named`` in its roll on ``table``: each the side's own, of the
    kinds the stack takes and the table is rolled for, named once, none that has had its
    roll in this pass; all reading one column of the table (an Infantry stack or an AFV
    Platoon, SMC going with either); a unit of a still-secret RG only with units of its
    own RG (its roll is its RG's secret).  A line of several gives up the one that
    joins."""
    wanted = [i for i in ids if i not in (None, "")]
    if not wanted:
        return []
    if table.stack is None or named is None or weapon is not None:
        raise ActionRefused(f"The {table.title} ({table.rule}) is made for one unit at a time.")
    if len(set(map(str, wanted))) != len(wanted) or named.ref in wanted:
        raise ActionRefused("A unit is named twice in the stack: name each unit once.")
    out = []
    for ref in wanted:
        unit = units.own_unit(turn, ref)
        refusal = stack_refusal(table, units.label(named), units.state_of(unit))
        if refusal:
            raise ActionRefused(refusal)
        if rolled_in_pass(turn, table, units.roll_ref(unit)):
            raise ActionRefused(
                f"{units.label(unit)} has made its one {table.title} roll in this pass "
                f"({table.once_rule or table.rule}).",
                status=409,
            )
        out.append(unit)
    stack = [named, *out]
    carriers = [u for u in stack if u.kind not in SMC_KINDS] or stack
    columns = sorted({roll_column(table, turn.side, u.kind) or "" for u in carriers})
    if len(columns) > 1:
        raise ActionRefused(
            f"One roll on the {table.title} reads one column: {' and '.join(columns)} "
            f"units do not make it together ({table.stack.rule}).",
        )
    refusal = overstack_refusal(table, [u.kind for u in stack])
    if refusal:
        raise ActionRefused(refusal)
    if len({u.purchase_id if units.is_secret(u) else None for u in stack}) > 1:
        raise ActionRefused(
            "A unit of an RG not yet revealed makes its roll with units of its own RG only."
        )
    return [units.split_one(u) for u in out]


def inputs(table: Table, stack: Sequence[Unit]) -> dict[str, int]:
    """What the units making one roll count for its DRMs (``of``): their HS-equivalents
    (PHD C5.14 "+1 per HS equivalent > one squad", Sicily 3.606 "+1 per HS-equivalent >
    one HS using the same Escape DR"), and, where a DRM reads it, the leadership modifier
    of their best leader (PHD C5.13a), refused for a leader whose line names no quality
    (never a silent 0).  A leader making the roll alone has none: his leadership is for
    the units that "redeploy together" with him (C5.13a; the module's "none for a unit
    redeploying alone")."""
    found = []
    if len(stack) > 1 and any(d.of == "stack_leadership" for d in table.drms):
        for u in stack:
            if u.kind != "leader":
                continue
            modifier = leadership_modifier(u.name)
            if modifier is None:
                raise ActionRefused(
                    f"{units.label(u)}'s line names no quality (e.g. 8-1): give it on his "
                    f"line so that his leadership applies ({table.rule})."
                )
            found.append(modifier)
    return {
        "stack_hs": hs_equivalents([u.kind for u in stack]),
        "stack_leadership": min(found, default=0),
    }


def location_leadership(turn: Turn, table: Table, unit: Unit) -> Leadership:
    """The leadership DRM of the best leader in ``unit``'s Location, where the retained
    forces hold the facts (``rules.effects.location_leadership``: APD 2.5, A10.7)."""
    leaders = Unit.objects.filter(campaign=turn.campaign, side=turn.side, kind="leader").exclude(
        pk=unit.pk
    )
    return effects_location_leadership(
        unit.kind,
        unit.location,
        [
            LeaderAt(
                units.label(leader),
                leader.name,
                leader.location,
                frozenset(units.state_of(leader).marked),
                owed_for(table, units.state_of(leader))
                and not rolled_in_pass(turn, table, units.roll_ref(leader)),
            )
            for leader in leaders
        ],
    )


def stack_refs(stack: Sequence[Unit]) -> str:
    return f" {' '.join(units.roll_ref(u) for u in stack)} " if stack else ""


def random_selection(
    turn: Turn, table: Table, among: Sequence[Unit], *, secret: bool
) -> tuple[Unit, str]:
    """The unit of ``among`` that Random Selection picks with the app's dice: a dr for
    each, the highest picked, a tie rolled again among the tied (PHD C5.14 note 3,
    Sicily 3.606 footnote 3); a leader riding with AFVs is not picked.  And the words
    saying so, for the roll's log line."""
    assert table.stack is not None
    riders = any(u.kind == "vehicle" for u in among)
    left = [u for u in among if not (riders and u.kind in SMC_KINDS)] or list(among)
    said: list[str] = []
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
        said.append(", ".join(f"{units.label(u)} dr {f}" for f, u in rolled))
        high = max(f for f, _ in rolled)
        left = [u for f, u in rolled if f == high]
    return left[0], (
        f"Random Selection picks {units.label(left[0])}"
        + (f" ({'; again '.join(said)})" if said else "")
        + f" ({table.stack.rule})"
    )
