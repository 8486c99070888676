"""Losses after the scenario's result: a unit eliminated at a step of the sequence
whose rules count it for the scenario just played (PHD C1.2 / C5.1 "All ConPh losses
count for the previous scenario for all purposes"; APD 2 Note "CVP are recorded
normally throughout this phase") adds its CVP to its side's CVP lost in the result,
whether a roll eliminated it (``Table.losses_count``) or its owner removed it saying it
was eliminated (``Step.losses_count``, ``units.remove_unit``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campaign.models import ScenarioResult, Unit
from campaign.selectors import pass_result
from campaign.services import recompute
from campaign.services.turns import Turn
from campaign.services.writes import SeatField
from rules.schema import CVP_LOST


def carried_cvp(turn: Turn, rule: str | None, unit: Unit, hidden: bool, count: int = 1) -> int:
    """The CVP ``carry_loss`` adds to the result for ``count`` of ``unit`` (0: none, the
    unit being secret, its kind's CVP not supplied, or no rule to count by)."""
    each = turn.module.cvp_per_kind.get(unit.kind)  # type: ignore[call-overload]
    if hidden or not rule or each is None:
        return 0
    return int(each) * count


def carry_loss(
    turn: Turn, rule: str | None, unit: Unit, hidden: bool, count: int = 1
) -> tuple[str, list[SeatField]]:
    """``count`` of ``unit`` eliminated after the pass's result are a loss of the
    scenario just played by ``rule``: their CVP (the supplied ``cvp_per_kind``, ASL
    A26.2: C1.2) join the acting side's CVP lost in the result, which both sides see,
    and what was computed from the result is computed again.  In words, for the log
    line that says what eliminated them; a secret unit (``hidden``) adds nothing yet
    (its CVP in the public result would tell the opponent of it), and a kind whose CVP
    are not supplied adds nothing and says so (never a silent 0)."""
    result = pass_result(turn.campaign)
    if result is None or not rule:
        return "", []
    kind = Unit.Kind(unit.kind).label if unit.kind in Unit.Kind.values else unit.kind
    if hidden:  # its CVP in the public result would tell the opponent of it
        return (
            f"its CVP join the result once its RG is revealed: amend the result then ({rule})",
            [],
        )
    if turn.module.cvp_per_kind.get(unit.kind) is None:  # type: ignore[call-overload]
        return (
            f"its CVP are not counted: the CVP of a {kind} are not in the rules text and "
            f"have not been supplied; amend the result with them ({rule})",
            [],
        )
    cvp = carried_cvp(turn, rule, unit, hidden, count)
    words, writes = shift_loss(turn, turn.side, cvp, rule, result)
    return f"{'its' if count == 1 else 'their'} {cvp} CVP count for the {words}", writes


def shift_loss(
    turn: Turn, side: str, cvp: int, rule: str, result: ScenarioResult | None = None
) -> tuple[str, list[SeatField]]:
    """``cvp`` join ``side``'s CVP lost in the pass's result (taken off where negative: a
    roll's elimination corrected away), an amendment proposed keeping them too; what
    was computed from the result is computed again.  In words: "scenario just played:
    American's CVP lost 3 → 5 (C5.1)"."""
    result = result or pass_result(turn.campaign)
    if result is None or not cvp:
        return "", []

    def plus(data: Mapping[str, Any]) -> dict[str, Any]:
        lost = dict(data.get(CVP_LOST) or {})
        lost[side] = max(0, int(lost.get(side) or 0) + cvp)
        return {**data, CVP_LOST: lost}

    before = int((result.data.get(CVP_LOST) or {}).get(side) or 0)
    result.data = plus(result.data)
    if result.amendment is not None:  # a proposed amendment keeps the loss too
        result.amendment = plus(result.amendment)
    result.save(update_fields=["data", "amendment"])
    writes = recompute.recompute_consequences(turn, result)
    after = int(result.data[CVP_LOST][side])
    return (
        f"scenario just played: {turn.side_name(side)}'s CVP lost {before} → {after} ({rule})",
        writes,
    )
