"""Who wins: the CG's victory checks and the scenario winner (APD 2.9), over the
confirmed scenario results as plain data (``{field: {side: value}}`` per scenario)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.schema import Module, ResultField, VictoryCheck, VictoryTerm

Result = Mapping[str, Mapping[str, Any]]  # one scenario's: {field: {side: value}}
Results = Sequence[Result]

OPS: dict[str, Callable[[int, int], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}


def amount(term: VictoryTerm, results: Results) -> int:
    """The term's quantity: its field for its side, summed over the CG (``total``) or
    the latest scenario's."""
    values = [int(r.get(term.field, {}).get(term.side, 0)) for r in results]
    return sum(values) if term.total else (values[-1] if values else 0)


def term_holds(term: VictoryTerm, results: Results, vp_required: int | None = None) -> bool:
    target = vp_required if term.value == "vp_required" else term.value
    if target is None:
        return False
    return OPS[term.op](amount(term, results), int(target))


def cg_winner(module: Module, results: Results, *, ending: bool = False) -> VictoryCheck | None:
    """The first CG victory check all of whose terms hold (those read only when the CG
    ends, ``at_end``, when it is ``ending``)."""
    if not results:
        return None
    return next(
        (
            c
            for c in module.victory_checks
            if (ending or not c.at_end) and all(term_holds(t, results) for t in c.all)
        ),
        None,
    )


def unmet(module: Module, results: Results, *, ending: bool = False) -> str:
    """Why no CG victory check holds, in words with the figures: each check's terms
    that failed ("VP scored by the American in the scenario (CG total) 123 < 150; not:
    American controls all existing CGV buildings"), each term once, then the rules."""
    checks = [c for c in module.victory_checks if ending or not c.at_end]
    words = [
        _words(module, t, results, None, held=False)
        for c in checks
        for t in c.all
        if not term_holds(t, results)
    ]
    rules = "; ".join(dict.fromkeys(c.rule for c in checks))
    return f"{'; '.join(dict.fromkeys(words))} ({rules})" if words and rules else ""


def never_again(term: VictoryTerm, results: Results) -> bool:
    """A term that fails now and can never hold again: an upper bound ("<", "<=") on
    a CG total of figures that never go down (CVP, VP)."""
    return term.total and term.op in ("<", "<=") and not term_holds(term, results)


def sides_out_of_the_running(module: Module, results: Results) -> list[str]:
    """The sides that can win by no CG victory check any more (every check of theirs
    has a term that will never hold again: "Provided the Germans have not amassed
    >= 105 CVP, the Americans win ..."), first from the latest result: empty before."""
    if not results:
        return []

    def lost(side: str, rs: Results) -> bool:
        checks = [c for c in module.victory_checks if c.winner == side]
        return bool(rs) and all(any(never_again(t, rs) for t in c.all) for c in checks)

    sides = dict.fromkeys(c.winner for c in module.victory_checks)
    return [s for s in sides if lost(s, results) and not lost(s, results[:-1])]


@dataclass(frozen=True)
class ScenarioWin:
    side: str
    because: str  # the terms that held, in words ("" for the otherwise side)


def scenario_winner(
    module: Module, results: Results, vp_required: int | None
) -> ScenarioWin | None:
    """Who won the scenario just played (2.9): the module's winner when any of its
    terms holds, else the other side; None when the VP it required is not known."""
    rule = module.scenario_winner
    if rule is None or not results:
        return None
    needs_vp = any(t.value == "vp_required" for t in rule.any)
    held = [t for t in rule.any if term_holds(t, results, vp_required)]
    if held:
        words = "; ".join(_words(module, t, results, vp_required) for t in held)
        return ScenarioWin(rule.winner, words)
    if needs_vp and vp_required is None:
        return None
    # "otherwise the German wins" (2.9): each term that did not hold, with its figures.
    words = "; ".join(_words(module, t, results, vp_required, held=False) for t in rule.any)
    return ScenarioWin(rule.otherwise, words)


# A term that did not hold reads its comparison the other way ("103 < 120").
_NOT_OP = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!=", "!=": "=="}
# How the rules print a comparison ("VP ≥ 55").
_SIGNS = {">=": "≥", "<=": "≤", "==": "=", "!=": "≠"}


def _words(
    module: Module,
    t: VictoryTerm,
    results: Results,
    vp_required: int | None,
    held: bool = True,
) -> str:
    label = next((f.label for f in module.result_fields if f.id == t.field), t.field)
    if isinstance(t.value, bool):
        return label if t.value == held else f"not: {label}"
    target = vp_required if t.value == "vp_required" else t.value
    scope = "CG total" if t.total else "this scenario"
    op = t.op if held else _NOT_OP.get(t.op, f"not {t.op}")
    return f"{label} ({scope}) {amount(t, results)} {_SIGNS.get(op, op)} {target}"


def asked_fields(module: Module, date_index: int) -> list[ResultField]:
    """The result fields the scenario of the CG date at ``date_index`` asks: those of
    every date and those naming it."""
    date_id = module.dates[date_index].id
    return [f for f in module.result_fields if f.dates is None or date_id in f.dates]


def result_owners(module: Module, field: ResultField) -> list[str]:
    """The sides a result field is entered for: its side, each side, or one value."""
    if field.side:
        return [field.side]
    sides = [s.id for s in module.sides]
    return sides if field.per_side else sides[:1]


def describe_changes(module: Module, before: Result, after: Result) -> str:
    """The figures of a result that differ, as "CVP lost in the scenario (Axis) 12 → 15"."""

    def shown(kind: str, value: Any) -> Any:
        return ("yes" if value else "no") if kind == "bool" else value

    return "; ".join(
        f"{f.label} ({module.side(side).name}) {shown(f.kind, before.get(f.id, {}).get(side))}"
        f" → {shown(f.kind, value)}"
        for f in module.result_fields
        for side, value in after.get(f.id, {}).items()
        if before.get(f.id, {}).get(side) != value
    )
