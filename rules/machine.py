"""The between-scenario phase machine: pure functions over a module and a position.

A campaign's position is (date index, step index, cycle); a step is finished when every
side that must act has done so.  Who must act follows the step's ``acts``: both sides
at once, a fixed order (``flow.order``: the second acts only after the first), or one
named side.
"""

from __future__ import annotations

from collections.abc import Iterable

from rules.kinds import Hook, kind_of
from rules.schema import Module, Step, Table

# The server operations a step's ``effect`` asks for on entering it.
EFFECT_HOOKS: dict[str, tuple[Hook, ...]] = {
    "replenish": (Hook.REPLENISH,),
    "record_winner": (Hook.RECORD_WINNER,),
}
# The operations that read the scenario result (its CVP, VP, control): once one has
# run in a pass, the result stands as it was read.
READS_RESULT = frozenset({Hook.REPLENISH, Hook.RECORD_WINNER})


def sides_to_act(module: Module, step: Step, done: Iterable[str], attacker: str = "") -> list[str]:
    """The sides that may act now at ``step`` (empty when the step is finished).  At a
    step the Attacker goes first at (``Step.attacker_first``, PHD C5.14 "In turn,
    Attacker first"), ``attacker`` (the Attacker of the scenario just played, C5.3) is
    the only side that may act until it is done; "" (none known): both may."""
    done = set(done)
    if step.acts == "both":
        waiting = [s.id for s in module.sides if s.id not in done]
        if step.attacker_first and attacker in waiting:
            return [attacker]
        return waiting
    if step.acts == "in_order":
        order = module.flow.order or [s.id for s in module.sides]
        return next(([s] for s in order if s not in done), [])
    return [] if step.acts in done else [step.acts]


def sides_still_to_act(module: Module, step: Step, done: Iterable[str]) -> list[str]:
    """Every side that still has to act at ``step``, now or later in its order."""
    done = set(done)
    if step.acts in ("both", "in_order"):
        order = module.flow.order if step.acts == "in_order" and module.flow.order else None
        return [s for s in (order or [x.id for x in module.sides]) if s not in done]
    return [] if step.acts in done else [step.acts]


def results_index(module: Module) -> int:
    """Where each scenario's sequence begins: its results step, after the start's
    steps (which run once, before the Initial Scenario)."""
    return next(i for i, s in enumerate(module.steps) if not s.start)


def cvp_na_rule(module: Module, step_index: int) -> str:
    """The rule by which what is eliminated at ``step_index`` counts no CVP ("": it
    counts them): the last step at or before it that says so (``Step.cvp_na``; APD 3
    Note, the Setup Phase), within the scenario's sequence."""
    start = results_index(module)
    for step in reversed(module.steps[start : step_index + 1]):
        if step.cvp_na:
            return step.cvp_na
    return ""


def losses_count_rule(module: Module, step_index: int) -> str:
    """The rule by which a unit eliminated at ``step_index`` and removed by its owner
    counts its CVP for the scenario just played ("": none counts there): the last step
    at or before it that says so (``Step.losses_count``; PHD C5.1, APD 2 Note), unless a
    step since says CVP are NA (``Step.cvp_na``; APD 3 Note), within the scenario's
    sequence (the results step itself takes its losses in its figures)."""
    start = results_index(module)
    for step in reversed(module.steps[start + 1 : step_index + 1]):
        if step.cvp_na:
            return ""
        if step.losses_count:
            return step.losses_count
    return ""


def has_start(module: Module) -> bool:
    return module.steps[0].start


def step_index(module: Module, step_id: str) -> int:
    for i, step in enumerate(module.steps):
        if step.id == step_id:
            return i
    raise KeyError(step_id)


def date_index(module: Module, date_id: str) -> int:
    for i, date in enumerate(module.dates):
        if date.id == date_id:
            return i
    raise KeyError(date_id)


def last_date_index(module: Module, variant_id: str) -> int:
    """The index of the CG's last date: its scenario's result ends the CG."""
    return date_index(module, module.variant(variant_id).last_date)


def last_scenario_rule(module: Module, variant_id: str, index: int) -> str | None:
    """Where date ``index`` is the CG's last (no purchase or step follows its scenario),
    the rule naming the CG's dates ("" : none printed); None where it is not."""
    if index != last_date_index(module, variant_id):
        return None
    return module.variant(variant_id).rule or ""


def last_scenario_words(module: Module, variant_id: str, index: int) -> str:
    """Where date ``index`` is the CG's last, that in words with the rule naming the
    dates ("December 6 Afternoon is the last scenario of the CG (CG Dates; 1.2)"), for
    the sentences that draw a consequence from it (the result ends the CG, points left
    unspent have no later use); "" where it is not."""
    rule = last_scenario_rule(module, variant_id, index)
    if rule is None:
        return ""
    return f"{module.dates[index].label} is the last scenario of the CG" + (
        f" ({rule})" if rule else ""
    )


def opponent(module: Module, side_id: str) -> str:
    return next(s.id for s in module.sides if s.id != side_id)


def enter_hooks(step: Step) -> tuple[Hook, ...]:
    """The server operations run on entering ``step``: its kind's and its effect's."""
    return kind_of(step.kind).on_enter + EFFECT_HOOKS.get(step.effect or "", ())


def complete_hooks(module: Module, step: Step) -> tuple[Hook, ...]:
    """The server operations run on completing ``step``: its kind's, then what it does
    to the units it names (``settles``), then the placing on-map of the hidden
    Fortifications in the enemy's Setup Areas where the module does it there (Sicily
    3.6073: ``SetupAreas.hidden_fortifications``)."""
    areas = module.setup_areas
    hid = areas.hidden_fortifications if areas is not None else None
    return (
        kind_of(step.kind).on_complete
        + ((Hook.SETTLE_UNITS,) if step.settles else ())
        + ((Hook.REVEAL_HIDDEN_FORTIFICATIONS,) if hid is not None and hid.step == step.id else ())
    )


def result_reader(module: Module) -> int | None:
    """The first step after the results step whose operations read the scenario result
    (replenishment from losses, the scenario's winner): the result may be amended by
    consent until the campaign reaches it (None: no step reads it)."""
    start = results_index(module)
    return next(
        (
            i
            for i, s in enumerate(module.steps)
            if i > start and (READS_RESULT & set(enter_hooks(s)) or _drms_read_result(module, s))
        ),
        None,
    )


# The campaign inputs a DRM computes from the scenario results (schema.CampaignInput).
RESULT_INPUTS = frozenset(
    {"cvp_lost_prior_scenario", "cvp_amassed_prior_scenario", "cvp_lost_cg", "vp_total"}
)


def _drms_read_result(module: Module, step: Step) -> bool:
    """A step whose tables have a DRM computed from the results (PHD C5.23: "-1 per 10
    CVP amassed ... in this scenario")."""
    return any(table_reads_result(module.table(t)) for t in step.tables)


def table_reads_result(table: Table) -> bool:
    """A table one of whose DRMs is computed from the scenario results: a roll on it
    reads the pass's result, which then stands as read (``availability.amendment_refusal``)."""
    return any(d.of in RESULT_INPUTS for d in table.drms)


def san_reader(module: Module) -> int | None:
    """The first step after the results step that adjusts the SANs the result gave
    (Sicily 3.6122, PHD C5.25): from there a SAN in the result is no longer amended."""
    start = results_index(module)
    return next(
        (i for i, s in enumerate(module.steps) if i > start and Hook.ADJUST_SAN in enter_hooks(s)),
        None,
    )
