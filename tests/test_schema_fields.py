"""Issue 16, "every declared field enforced or removed": for each field of the module
format (every pydantic model field reachable from ``rules.schema.Module``), a test
changes it in a copy of a module and observes a different outcome through the engine
(``ENGINE``) or the services (``SERVICE``); ``test_every_schema_field_has_a_mutation``
checks that the tables name every field and nothing else.  A field no mechanism reads
fails its case: it must be read, or removed from the schema — or, for a transcriber's
note kept for the host on purpose, marked ``Field(json_schema_extra={"documentation":
True})`` in ``rules/schema.py``, which exempts it here (``documentation_fields``).

A case is ``(base module, prepare, mutate, observe)``: ``prepare`` (optional) adapts
the base for the observation (both copies get it), ``mutate`` changes the field in one
copy, ``observe`` turns a module (engine) or a campaign hosted on it (services) into an
outcome.  A mutation the loader refuses is an outcome too ("refused: ...").

Also here: ``validatemodule`` refuses a field no mechanism reads (the fields removed by
issue 16 among them), naming its path."""

from __future__ import annotations

import copy
import re
import typing
from collections.abc import Callable, Iterator
from dataclasses import asdict, astuple, dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from pydantic import BaseModel

import rules.dice
from rules import availability, effects, ledger, machine, replenish, supply, victory
from rules.drm import DrmRefused, RollContext, applicable_drms, holds
from rules.kinds import Action
from rules.loader import MODULE_DIR, load_file, validate_data
from rules.purchase import (
    Addition,
    add_later_offers,
    add_later_reasons,
    cost_options,
    group_context,
    price_obliges,
    unavailable,
)
from rules.schema import Effect, Module, ReinforcementGroup, as_dict
from rules.snapshot import Bought, FortificationBought, Holdings, SideState, Snapshot
from tests.engine.conftest import at

pytestmark = pytest.mark.rules

FIXTURE = Path(__file__).parent / "fixtures" / "modules" / "skirmish.yaml"
FILES = {
    "sicily": MODULE_DIR / "sicily.yaml",
    "phd": MODULE_DIR / "purple-heart-draw.yaml",
    "apd": MODULE_DIR / "pleasant-diversion.yaml",
    "skirmish": FIXTURE,
}
_BASES: dict[str, dict[str, Any]] = {}


def base(name: str) -> dict[str, Any]:
    if name not in _BASES:
        _BASES[name] = load_file(FILES[name], overrides=False).model_dump(mode="json")
    return copy.deepcopy(_BASES[name])


# --------------------------------------------------------------------------- the schema's fields


def _models(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for arg in typing.get_args(annotation):
        yield from _models(arg)


def schema_fields() -> list[str]:
    """Every field reachable from Module, as "Model.field" (a model used in several
    places, such as Condition, is listed once)."""
    seen: set[type[BaseModel]] = set()
    out: list[str] = []

    def walk(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, info in model.model_fields.items():
            out.append(f"{model.__name__}.{name}")
            for sub in _models(info.annotation):
                walk(sub)

    walk(Module)
    return out


def documentation_fields() -> set[str]:
    """Fields the schema marks as documentation for the transcriber and the host, read by
    no mechanism on purpose (``Field(json_schema_extra={"documentation": True})``): they
    need no mutation test."""
    out = set()
    for path in schema_fields():
        model, name = path.split(".")
        info = _MODELS[model].model_fields[name]
        extra = info.json_schema_extra
        if isinstance(extra, dict) and extra.get("documentation"):
            out.add(path)
    return out


def _all_models() -> dict[str, type[BaseModel]]:
    found: dict[str, type[BaseModel]] = {}

    def walk(model: type[BaseModel]) -> None:
        if model.__name__ in found:
            return
        found[model.__name__] = model
        for info in model.model_fields.values():
            for sub in _models(info.annotation):
                walk(sub)

    walk(Module)
    return found


_MODELS = _all_models()


# --------------------------------------------------------------------------- data helpers


def by_id(items: list[dict[str, Any]], key: str, field: str = "id") -> dict[str, Any]:
    return next(x for x in items if x[field] == key)


def tab(d: dict, tid: str) -> dict:
    return by_id(d["tables"], tid)


def step(d: dict, sid: str) -> dict:
    return by_id(d["steps"], sid)


def chart(d: dict, side: str) -> dict:
    return by_id(d["rg_charts"], side, "side")


def grp(d: dict, side: str, gid: str) -> dict:
    return by_id(chart(d, side)["groups"], gid)


def fort(d: dict, fid: str) -> dict:
    return by_id(d["fortifications"]["items"], fid)


def drm(d: dict, tid: str, did: str) -> dict:
    return by_id(tab(d, tid)["drms"], did)


def cvar(d: dict, cid: str) -> dict:
    return by_id(d["cost_variants"], cid)


def ini_result(d: dict, rid: str) -> dict:
    return by_id(d["initiative"]["results"], rid)


def restriction(d: dict, side: str, kind: str, n: int = 0) -> dict:
    return [r for r in chart(d, side)["restrictions"] if r["kind"] == kind][n]


def rename(node: Any, old: str, new: str) -> Any:
    """Every key and string value equal to ``old`` becomes ``new`` (an id, everywhere
    it is referred to)."""
    if isinstance(node, dict):
        return {(new if k == old else k): rename(v, old, new) for k, v in node.items()}
    if isinstance(node, list):
        return [rename(x, old, new) for x in node]
    return new if node == old else node


def setter(fn: Callable[[dict], Any], **values: Any) -> Callable[[dict], None]:
    def mutate(d: dict) -> None:
        fn(d).update(values)

    return mutate


# --------------------------------------------------------------------------- engine observers


def snap(m: Module, side: str, **kw: Any) -> Snapshot:
    return at(m, side=side, **kw)


def reasons(side: str, gid: str, date: str, **kw: Any) -> Callable[[Module], Any]:
    def observe(m: Module) -> Any:
        g = m.group(side, gid)
        assert g is not None
        return availability.group_reasons(m, snap(m, side, date=date, **kw), g)

    return observe


def held(*bought: Bought, **kw: Any) -> Holdings:
    return Holdings(bought=tuple(bought), **kw)


def costs(side: str, gid: str) -> Callable[[Module], Any]:
    def observe(m: Module) -> Any:
        g = m.group(side, gid)
        assert g is not None
        return [astuple(o) for o in cost_options(m, side, g)]

    return observe


def auto_drms(tid: str, **ctx: Any) -> Callable[[Module], Any]:
    def observe(m: Module) -> Any:
        group = ctx.pop("group", None)
        gside = ctx.get("side", "axis")
        g = m.group(gside, group) if group else None
        context = RollContext(**{**ctx, "group": g})
        ctx["group"] = group
        return [astuple(a) for a in applicable_drms(m.table(tid), context)]

    return observe


def ticked_drms(tid: str, ticked: list[str], typed: dict[str, int] | None = None, **ctx: Any):
    def observe(m: Module) -> Any:
        try:
            out = applicable_drms(
                m.table(tid), RollContext(**ctx), ticked=ticked, typed=typed or {}
            )
        except DrmRefused as exc:
            return f"refused: {exc}"
        return [astuple(a) for a in out]

    return observe


def view(tid: str) -> Callable[[Module], Any]:
    from campaign.seat_views.panels import table_view

    return lambda m: asdict(table_view(m.table(tid), RollContext(side=m.sides[0].id)))


def lookup(tid: str, rolls: range | tuple[int, ...], column: str | None = None):
    def observe(m: Module) -> Any:
        t = m.table(tid)
        out = []
        for r in rolls:
            row = t.lookup(r)
            out.append(
                (
                    r,
                    row.results[column] if column and row.results else row.result,
                    [e.model_dump() for e in effects.row_effects(row, column)],
                )
            )
        return out

    return observe


def unit_outcome(tid: str, final: int, name: str, status: str, kind: str, column=None):
    def observe(m: Module) -> Any:
        out = effects.on_unit(
            effects.result_effects(m.table(tid), final, column),
            effects.UnitState(name, kind, (status,)),
        )
        return (out.removed, out.status, out.added)

    return observe


def group_outcome(tid: str, final: int, column: str | None = None):
    def observe(m: Module) -> Any:
        out = effects.GroupOutcome()
        effects.on_group(effects.result_effects(m.table(tid), final, column), out)
        return (out.strength, out.leaders, [astuple(u) for u in out.units], out.types)

    return observe


def lines(side: str, date_index: int, points: int = 0, **inputs: Any):
    """The replenishment arithmetic of ``side`` on a date (dice fixed at 3 each)."""

    def observe(m: Module) -> Any:
        rolled: list[tuple[str, str]] = []

        def roll(kind, purpose, table=None, drms=()):
            rolled.append((kind, purpose))
            n = rules.dice.DICE_COUNT[kind]
            return SimpleNamespace(faces=[3] * n, final=3 * n + sum(d.value for d in drms))

        defaults = {"cvp_lost_prior_scenario": 0, "cvp_lost_cg": 0, "vp_total": 0, "san": 2}
        ins = {s.id: {**defaults, **inputs.get(s.id, {})} for s in m.sides}
        ctx = RollContext(side=side, **inputs.get("ctx", {}))
        try:
            out = replenish.replenish(
                m,
                side=side,
                date_index=date_index,
                played_date_index=inputs.get("played", date_index - 1),
                points=points,
                inputs=ins,
                context=ctx,
                roll=roll,
            )
        except KeyError as exc:
            return f"error {exc}"
        return (out.points, out.lines, rolled)

    return observe


def fort_reasons(
    side: str, fid: str, count: int = 1, tier: int = 0, figures: Any = None, **kw: Any
):
    def observe(m: Module) -> Any:
        forts = m.fortifications
        assert forts is not None
        item = next((i for i in forts.items if i.id == fid), None)
        if item is None:
            return "no such item"
        return availability.fortification_reasons(
            m, snap(m, side, **kw), item, count, tier, figures
        )

    return observe


def check_fort(side: str, fid: str, count: int = 1, tier: int = 0, **kw: Any):
    def observe(m: Module) -> Any:
        try:
            item = availability.check_fortification(m, snap(m, side, **kw), fid, count, tier)
        except Exception as exc:  # Refused
            return f"refused: {exc}"
        return item.price(tier) * count

    return observe


def hip_cap(side: str, **kw: Any):
    def observe(m: Module) -> Any:
        forts = m.fortifications
        assert forts is not None
        item = next(i for i in forts.items if i.id == "hip")
        return availability.hip_cap(m, item, snap(m, side, **kw))

    return observe


def recon(side: str, option: int = 0, **kw: Any):
    def observe(m: Module) -> Any:
        s = snap(m, side, **kw)
        return (
            availability.recon_reasons(m, s, option),
            [b.ref for b in availability.recon_due(m, s)],
        )

    return observe


def nothing(side: str, sid: str, **kw: Any):
    def observe(m: Module) -> Any:
        st = next(s for s in m.steps if s.id == sid)
        return availability.nothing_to_do(m, snap(m, side, step=sid, **kw), st)

    return observe


def refusal(side: str, sid: str, action: Action = Action.FINISH, **kw: Any):
    def observe(m: Module) -> Any:
        r = availability.turn_refusal(m, snap(m, side, step=sid, **kw), side, action)
        return r.message if r else None

    return observe


def to_act(sid: str, done: tuple[str, ...] = ()):
    def observe(m: Module) -> Any:
        st = next(s for s in m.steps if s.id == sid)
        return machine.sides_to_act(m, st, done)

    return observe


def chit(
    side: str,
    which: str = "attack",
    used: int = 0,
    opponent_no_units: bool = False,
    opponent_lists_no_unit: bool = False,
):
    def observe(m: Module) -> Any:
        sides = [s.id for s in m.sides]
        other = next(s for s in sides if s != side)
        opponent = SideState(
            side=other,
            joined=True,
            no_on_map_units=opponent_no_units,
            lists_no_unit=opponent_lists_no_unit,
        )
        s = snap(m, side, opponent=opponent)
        me = replace(s.me, attack_chits_used=used)
        s = replace(s, sides={**s.sides, side: me})
        return availability.chit_refusal(m, s, which)

    return observe


def with_san(m: Module, side: str, san: int, **kw: Any) -> Snapshot:
    s = snap(m, side, **kw)
    return replace(s, sides={**s.sides, side: replace(s.me, san=san)})


def san_roll(side: str, san: int):
    return lambda m: availability.no_san_roll(m, with_san(m, side, san))


def forgo(side: str, date: str, variant: str, amount: int = 5, points: int = 12):
    def observe(m: Module) -> Any:
        s = snap(m, side, date=date, variant=variant, points=points, step="3.616")
        try:
            availability.check_forgo(m, s, amount, None)
        except Exception as exc:
            return f"refused: {exc}"
        return "may forgo"

    return observe


def suppliable(variant: str | None = None, supplied: frozenset[str] = frozenset()):
    def observe(m: Module) -> Any:
        v = variant or m.variants[0].id
        return [astuple(i) for i in supply.suppliable(m, v, set(supplied))]

    return observe


def rendered(m: Module) -> str:
    entry = ledger.LedgerEntry(rule="1.1", title="x", status="map")
    return ledger.render(m, ledger.Ledger(module=m.id, entries=[entry]))


def start_summary(m: Module) -> Any:
    from campaign.services.start import start_summary as summary

    return summary(m, SimpleNamespace(variant=m.variants[0].id))


def clean_result(values: dict[str, Any]):
    def observe(m: Module) -> Any:
        from campaign.services.errors import ActionRefused
        from campaign.services.steps import clean_result as clean
        from campaign.services.steps import describe_result

        try:
            data = clean(m, values, 0)  # the first CG date's scenario
        except ActionRefused as exc:
            return f"refused: {exc.message}"
        return (data, describe_result(m, data))

    return observe


def rolls_for(table: str, gside: str, gid: str, strength: str | None = "full", n: int = 0):
    """How many times the ``n``-th post-purchase roll on ``table`` is made for an RG."""

    def observe(m: Module) -> Any:
        from campaign.services.purchase_records import rolls_for as count

        g = m.group(gside, gid)
        assert g is not None
        pps = [p for p in m.post_purchase if p.table == table]
        ctx = RollContext(side=gside, group=g, strength=strength)
        return [count(p, g, strength) if holds(p.applies_to, ctx) else 0 for p in pps]

    return observe


def to_make(side: str, gid: str):
    return lambda m: availability.rolls_to_make(m, side, gid)


def results(**per_scenario: Any) -> list[dict[str, dict[str, Any]]]:
    return [per_scenario]


def cg_won(rs: list[dict[str, Any]]):
    def observe(m: Module) -> Any:
        check = victory.cg_winner(m, rs)
        return check.winner if check else None

    return observe


def scenario_won(rs: list[dict[str, Any]], vp_required: int | None = 55):
    def observe(m: Module) -> Any:
        win = victory.scenario_winner(m, rs, vp_required)
        return astuple(win) if win else None

    return observe


def unavailable_for(side: str, gid: str, date_index: int, bought, variant: str = "i", tags=()):
    def observe(m: Module) -> Any:
        g = m.group(side, gid)
        assert g is not None
        return unavailable(
            m,
            variant=variant,
            side=side,
            group=g,
            date_index=date_index,
            bought=list(bought),
            retained_tags=set(tags),
        )

    return observe


def first(*observers: Callable[[Module], Any]) -> Callable[[Module], Any]:
    return lambda m: [o(m) for o in observers]


def everything(m: Module) -> Any:
    """What the engine tells the players of a module, as broadly as it can: its RULES.md
    section, every table as shown, what can be supplied, and for each side on the first
    two dates, at every step: whether it must act, every chart row's refusals and
    prices, every fortification's, recon, chits, SAN and forgoing, and the points
    arithmetic."""
    out: list[Any] = [rendered(m)]
    from campaign.seat_views.panels import table_view

    out += [asdict(table_view(t, RollContext(side=m.sides[0].id))) for t in m.tables]
    out += [suppliable(v.id)(m) for v in m.variants]
    for s in m.sides:
        for date in m.dates[:2]:
            for st in m.steps:
                sn = snap(m, s.id, date=date.id, step=st.id, fortification_points=10)
                out.append(availability.nothing_to_do(m, sn, st))
                r = availability.turn_refusal(m, sn, s.id, Action.FINISH)
                out.append(r.message if r else None)
            sn = snap(m, s.id, date=date.id, fortification_points=10)
            chart_ = m.chart(s.id)
            for g in chart_.groups if chart_ else []:
                out.append(availability.group_reasons(m, sn, g))
                out.append([astuple(o) for o in cost_options(m, s.id, g)])
                out.append(availability.rolls_to_make(m, s.id, g.id))
            for item in m.fortifications.items if m.fortifications else []:
                out.append(availability.fortification_reasons(m, sn, item))
            if m.recon:
                out.append(availability.recon_reasons(m, sn, 0))
            if m.initiative:
                out.append(availability.chit_refusal(m, sn, "attack"))
            out.append(availability.no_san_roll(m, sn))
            out.append(lines(s.id, m.dates.index(date))(m))
            out.append(replenish.lost_after_purchase(m, m.dates.index(date), 5))
    return out


@dataclass(frozen=True)
class Case:
    base: str
    mutate: Callable[[dict], Any]
    observe: Callable[..., Any]
    prepare: Callable[[dict], Any] | None = None


def outcome(case: Case, data: dict) -> Any:
    module, errors = validate_data(data, "copy.yaml")
    if module is None:
        return "refused: " + "; ".join(str(e) for e in errors)
    return case.observe(module)


def copies(case: Case) -> tuple[dict, dict]:
    before = base(case.base)
    if case.prepare is not None:
        case.prepare(before)
    after = copy.deepcopy(before)
    result = case.mutate(after)
    if isinstance(result, dict):
        after = result
    assert after != before, "the mutation changed nothing"
    return before, after


# --------------------------------------------------------------------------- mutations (engine)


def _nationality_variant(d: dict) -> None:
    d["cost_variants"].append(
        {
            "id": "redland_bonus",
            "label": "Redland discount",
            "factor": "1/2",
            "applies_to": {"nationalities": ["Redland"]},
        }
    )


def _night_drm(d: dict) -> None:
    tab(d, "wounded")["drms"].append(
        {"id": "dark", "label": "at night", "value": 1, "when": {"night": True}}
    )


def _supply_row_a(d: dict) -> None:
    t = tab(d, "german_reinforcement_row_a")
    t["missing"] = False
    t["rows"] = [
        {"range": "1-3", "result": "PzGr Platoon I", "effect": {"do": "group", "group": "RA1"}},
        {"range": "4-6", "result": "Nothing", "effect": {"do": "none"}},
    ]


def _sw_depleted(d: dict) -> None:
    t = tab(d, "sw_depleted")
    t["missing"] = False
    t["rows"] = [{"range": "≤3", "result": "Received"}, {"range": "≥4", "result": "Lost"}]


def _pp(d: dict, table: str, n: int = 0) -> dict:
    return [p for p in d["post_purchase"] if p["table"] == table][n]


SICILY_I1 = Bought("I1", 2)
CVP_20_VS_5 = {"axis": {"cvp_lost_prior_scenario": 20}, "british": {"cvp_lost_prior_scenario": 5}}
APD_EX = {"american": {"vp_total": 63, "cvp_lost_cg": 41}, "played": 0}
APD_RESULT = {"vp": {"american": 63}, "cgv_buildings": {"american": False}, "cvp_lost": {}}


def _cg_results(vp: int, cvp: int) -> list[dict[str, Any]]:
    return [
        {
            "vp": {"american": vp},
            "cvp_lost": {"american": cvp},
            "cgv_buildings": {"american": False},
        }
    ]


ENGINE: dict[str, Case] = {}


def case(*fields: str, **kw: Any) -> None:
    c = Case(**kw)
    for f in fields:
        assert f not in ENGINE, f
        ENGINE[f] = c


# Module
case("Module.format", base="skirmish", mutate=setter(lambda d: d, format=2), observe=rendered)
case(
    "Module.id", base="skirmish", mutate=setter(lambda d: d, id="other-skirmish"), observe=rendered
)
case(
    "Module.title",
    base="skirmish",
    mutate=setter(lambda d: d, title="Another CG"),
    observe=rendered,
)
case("Module.system", base="skirmish", mutate=setter(lambda d: d, system="PHD"), observe=rendered)
case(
    "Module.source",
    base="skirmish",
    mutate=setter(lambda d: d, source="elsewhere"),
    observe=everything,
)
case(
    "Module.notes", base="sicily", mutate=lambda d: d["notes"].append("a note"), observe=everything
)
case(
    "Module.sides",
    base="skirmish",
    mutate=lambda d: d["sides"].reverse(),
    observe=to_act("T3.1"),
)
case(
    "Module.victory_checks",
    "VictoryCheck.winner",
    base="apd",
    mutate=lambda d: d["victory_checks"][0].update(winner="german"),
    observe=cg_won(_cg_results(150, 10)),
)
case(
    "Module.scenario_winner",
    "ScenarioWinner.winner",
    base="apd",
    mutate=lambda d: d["scenario_winner"].update(winner="german", otherwise="american"),
    observe=scenario_won([APD_RESULT]),
)
case(
    "ScenarioWinner.otherwise",
    base="apd",
    mutate=lambda d: d["scenario_winner"].update(otherwise="american"),
    observe=scenario_won([{**APD_RESULT, "vp": {"american": 10}}]),
)
case(
    "ScenarioWinner.any",
    "VictoryTerm.value",
    base="apd",
    mutate=lambda d: d["scenario_winner"]["any"][0].update(value=70),
    observe=scenario_won([APD_RESULT]),
)
case(
    "VictoryTerm.field",
    base="apd",
    mutate=lambda d: d["victory_checks"][0]["all"][0].update(field="cvp_lost"),
    observe=cg_won(_cg_results(150, 10)),
)
case(
    "VictoryTerm.side",
    base="apd",
    mutate=lambda d: d["victory_checks"][0]["all"][1].update(side="german"),
    observe=cg_won(_cg_results(150, 10) + [{"cvp_lost": {"german": 200}}]),
)
case(
    "VictoryTerm.total",
    base="apd",
    mutate=lambda d: d["victory_checks"][0]["all"][0].update(total=False),
    observe=cg_won(_cg_results(100, 10) + _cg_results(60, 10)),
)
case(
    "VictoryTerm.op",
    base="apd",
    mutate=lambda d: d["victory_checks"][0]["all"][0].update(op="<"),
    observe=cg_won(_cg_results(150, 10)),
)
case(
    "VictoryCheck.all",
    base="apd",
    mutate=lambda d: d["victory_checks"][0].update(all=d["victory_checks"][0]["all"][:1]),
    observe=cg_won(_cg_results(150, 200)),
)
case(
    "Module.san",
    "SanRule.roll_from",
    base="sicily",
    mutate=lambda d: d["san"].update(roll_from=5),
    observe=san_roll("axis", 4),
)
case(
    "SanRule.rule",
    base="sicily",
    mutate=lambda d: d["san"].update(rule="3.6122b"),
    observe=san_roll("axis", 3),
)
case(
    "SanRule.table",
    base="sicily",
    mutate=lambda d: d["san"].update(table=None),
    observe=san_roll("axis", 6),
)

# Sides
case(
    "Side.id",
    base="skirmish",
    mutate=lambda d: rename(d, "blue", "green"),
    observe=to_act("T3.1"),
)
case(
    "Side.name",
    base="phd",
    mutate=lambda d: by_id(d["sides"], "german").update(name="Wehrmacht"),
    observe=refusal("us", "C5.2", done=("us",)),
)
case(
    "Side.nationalities",
    base="skirmish",
    prepare=_nationality_variant,
    mutate=lambda d: by_id(d["sides"], "red").update(nationalities=["Greenland"]),
    observe=costs("red", "I1"),
)
case(
    "Side.note",
    base="sicily",
    mutate=lambda d: d["sides"][0].update(note="changed"),
    observe=everything,
)

# Variants and the start
case(
    "Module.variants",
    "Variant.attack_chits",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["attack_chits"].update(red=2),
    observe=chit("red", used=1),
)
case(
    "Variant.id",
    base="apd",
    mutate=lambda d: rename(d, "cg", "whole"),
    observe=suppliable(),
)
case(
    "Variant.name",
    base="sicily",
    mutate=lambda d: d["variants"][0].update(name="CG One"),
    observe=reasons("axis", "F1", "jul14pm", holdings=held(Bought("F1", 0))),
)
case(
    "Variant.rule",
    base="sicily",
    mutate=lambda d: d["variants"][0].update(rule="3.51 (changed)"),
    observe=everything,
)
case(
    "Variant.note",
    base="sicily",
    mutate=lambda d: d["variants"][0].update(note="changed"),
    observe=everything,
)
case(
    "Variant.start",
    "Start.rule",
    base="sicily",
    mutate=lambda d: d["variants"][0]["start"].update(rule="3.52"),
    observe=suppliable("i"),
)
case(
    "Start.missing",
    base="apd",
    mutate=lambda d: d["variants"][0]["start"]["missing"].remove("elr"),
    observe=suppliable(),
)
case(
    "Start.sets_up_first",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"].update(sets_up_first="blue"),
    observe=start_summary,
)
case(
    "Start.moves_first",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"].update(moves_first="red"),
    observe=start_summary,
)
case(
    "Start.misr",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"].update(misr=["I1: EC is Moist."]),
    observe=start_summary,
)
case(
    "Start.weather",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"].update(weather="Mist"),
    observe=start_summary,
)
case(
    "Start.rules",
    base="apd",
    mutate=lambda d: d["variants"][0]["start"].update(rules={"balance": "9.9"}),
    observe=lambda m: [(i.path, i.rule) for i in supply.suppliable(m, m.variants[0].id, set())],
)
case(
    "Start.note",
    base="apd",
    mutate=lambda d: d["variants"][0]["start"].update(note="changed"),
    observe=everything,
)


def _ob_form(m: Module) -> Any:
    from campaign.seat_views.supplements import prefilled

    path = f"variants.{m.variants[0].id}.start.ob"
    it = supply.item(m, m.variants[0].id, path, {path})
    return prefilled(SimpleNamespace(variant=m.variants[0].id), m, it)


case(
    "InitialOB.text",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"]["ob"]["red"].update(text="Elements of 1st Coy"),
    observe=_ob_form,
)

# Dates
case(
    "Module.dates",
    "CGDate.label",
    base="sicily",
    mutate=lambda d: by_id(d["dates"], "jul14n").update(label="July 14 Night (N)"),
    observe=reasons("axis", "I1", "jul14pm"),
)
case(
    "CGDate.id",
    base="apd",
    mutate=lambda d: rename(d, "dec6midday", "dec6noon"),
    observe=suppliable(),
)
case(
    "CGDate.day",
    base="sicily",
    mutate=lambda d: by_id(d["dates"], "jul14n").update(day="July 15"),
    observe=reasons(
        "axis",
        "I1",
        "jul14n",
        holdings=held(Bought("I5", 0), Bought("I4", 1), Bought("I5", 1), Bought("I7", 2)),
    ),
)
case(
    "CGDate.base_points",
    base="sicily",
    mutate=lambda d: by_id(d["dates"], "jul14pm")["base_points"].update(axis=30),
    observe=lines("axis", 1),
)
case(
    "CGDate.vp_required",
    base="apd",
    mutate=lambda d: by_id(d["dates"], "dec6morning").update(vp_required=60),
    observe=lines("american", 1, **APD_EX),
)
case(
    "CGDate.initial",
    base="sicily",
    mutate=lambda d: by_id(d["dates"], "jul14pm").update(initial=True),
    observe=recon("axis", date="jul14pm", holdings=held(Bought("M2", 1, ref="r"))),
)
case(
    "CGDate.note",
    base="sicily",
    mutate=lambda d: by_id(d["dates"], "jul14pm").update(note="changed"),
    observe=everything,
)

# Currency
case(
    "Module.currency",
    "Currency.code",
    base="sicily",
    mutate=lambda d: d["currency"].update(code="CP"),
    observe=reasons("axis", "I4", "jul14pm", points=1),
)
case(
    "Currency.replenishment",
    "BaseTableReplenishment.rule",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"].update(rule="3.616b"),
    observe=lines("axis", 1),
)
case(
    "BaseTableReplenishment.base_rule",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"].update(base_rule="3.6161b"),
    observe=lines("axis", 1),
)
case(
    "BaseTableReplenishment.mechanism",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"].update(mechanism="table_roll"),
    observe=lines("axis", 1),
)
case(
    "BaseTableReplenishment.loss_points",
    "LossPoints.margin",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"]["loss_points"].update(margin=20),
    observe=lines("axis", 1, **CVP_20_VS_5),
)
case(
    "LossPoints.ratio",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"]["loss_points"].update(ratio=5),
    observe=lines("axis", 1, **CVP_20_VS_5),
)
case(
    "LossPoints.dice",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"]["loss_points"].update(dice="DR"),
    observe=lines("axis", 1, **CVP_20_VS_5),
)
case(
    "LossPoints.rule",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"]["loss_points"].update(rule="3.6162b"),
    observe=lines("axis", 1, **CVP_20_VS_5),
)
case(
    "BaseTableReplenishment.note",
    base="sicily",
    mutate=lambda d: d["currency"]["replenishment"].update(note="changed"),
    observe=everything,
)
case(
    "TableRollReplenishment.mechanism",
    base="phd",
    mutate=lambda d: d["currency"]["replenishment"].update(mechanism="base_table"),
    observe=lines("us", 1),
)
case(
    "TableRollReplenishment.rule",
    base="phd",
    mutate=lambda d: d["currency"]["replenishment"].update(rule="C5.29b"),
    observe=lines("us", 1),
)
case(
    "TableRollReplenishment.table",
    base="phd",
    prepare=lambda d: tab(d, "redeployment").update(
        column_for_side={"us": "Infantry", "german": "Infantry"}
    ),
    mutate=lambda d: d["currency"]["replenishment"].update(table="redeployment"),
    observe=lines("us", 1),
)
case(
    "TableRollReplenishment.no_roll_on_initial",
    base="phd",
    mutate=lambda d: d["currency"]["replenishment"].update(no_roll_on_initial=False),
    observe=lines("us", 0),
)
case(
    "TableRollReplenishment.note",
    base="phd",
    mutate=lambda d: d["currency"]["replenishment"].update(note="changed"),
    observe=everything,
)
case(
    "VpDifferentialReplenishment.mechanism",
    base="apd",
    mutate=lambda d: d["currency"]["replenishment"].update(mechanism="table_roll"),
    observe=lines("american", 1, **APD_EX),
)
case(
    "VpDifferentialReplenishment.rule",
    base="apd",
    mutate=lambda d: d["currency"]["replenishment"].update(rule="2.92b"),
    observe=lines("german", 1, **APD_EX),
)
case(
    "VpDifferentialReplenishment.side",
    base="apd",
    mutate=lambda d: d["currency"]["replenishment"].update(side="german"),
    observe=lines("american", 1, **APD_EX),
)
case(
    "VpDifferentialReplenishment.negative_ignored",
    base="apd",
    mutate=lambda d: d["currency"]["replenishment"].update(negative_ignored=False),
    observe=lines("american", 1, american={"vp_total": 63, "cvp_lost_cg": 1}, played=0),
)
case(
    "VpDifferentialReplenishment.note",
    base="apd",
    mutate=lambda d: d["currency"]["replenishment"].update(note="changed"),
    observe=everything,
)
case(
    "Currency.spend_rule",
    base="sicily",
    mutate=lambda d: d["currency"].update(spend_rule="3.6x"),
    observe=reasons("axis", "I4", "jul14pm", points=1),
)
case(
    "Currency.carry_over",
    "CarryOver.retained",
    base="sicily",
    mutate=lambda d: d["currency"]["carry_over"].update(retained=False),
    observe=lines("axis", 2, points=10),
)
case(
    "CarryOver.lost_after_dates",
    base="sicily",
    mutate=lambda d: d["currency"]["carry_over"].update(lost_after_dates=["jul14n"]),
    observe=lambda m: replenish.lost_after_purchase(m, 1, 29),
)
case(
    "CarryOver.rule",
    base="sicily",
    mutate=lambda d: d["currency"]["carry_over"].update(rule="3.617"),
    observe=lambda m: replenish.lost_after_purchase(m, 1, 29),
)
case(
    "CarryOver.note",
    base="sicily",
    mutate=lambda d: d["currency"]["carry_over"].update(note="changed"),
    observe=everything,
)
case(
    "Currency.forgo",
    "Forgo.variants",
    base="sicily",
    mutate=lambda d: d["currency"]["forgo"][0].update(variants=["i"]),
    observe=first(forgo("british", "jul14pm", "iii"), forgo("british", "jul14pm", "i")),
)
case(
    "Forgo.date",
    base="sicily",
    mutate=lambda d: d["currency"]["forgo"][0].update(date="jul14n"),
    observe=forgo("british", "jul14pm", "iii"),
)
case(
    "Forgo.side",
    base="sicily",
    mutate=lambda d: d["currency"]["forgo"][0].update(side="axis", from_side="british"),
    observe=forgo("british", "jul14pm", "iii"),
)
case(
    "Forgo.rule",
    base="sicily",
    mutate=lambda d: d["currency"]["forgo"][0].update(rule="3.616 EXC (CG III)"),
    observe=forgo("british", "jul14pm", "iii", amount=13),
)

# Fortifications
case(
    "Module.fortifications",
    "Fortifications.currency",
    base="sicily",
    mutate=lambda d: d["fortifications"].update(currency="FP"),
    observe=fort_reasons("axis", "trench", fortification_points=5),
)
case(
    "Fortifications.rule",
    base="sicily",
    # The Roadblock cites its own footnote (3.619 f): the step's rule is read where an
    # item names none.
    prepare=lambda d: fort(d, "roadblock").pop("rule"),
    mutate=lambda d: d["fortifications"].update(rule="3.619b"),
    observe=fort_reasons(
        "axis",
        "roadblock",
        fortification_points=50,
        holdings=Holdings(fortifications=(FortificationBought("roadblock", 0, 5),)),
    ),
)
case(
    "Fortifications.items",
    "FortificationItem.cost",
    base="sicily",
    mutate=lambda d: fort(d, "trench").update(cost=4),
    observe=fort_reasons("axis", "trench", fortification_points=5),
)
case(
    "Fortifications.note",
    base="sicily",
    mutate=lambda d: d["fortifications"].update(note="changed"),
    observe=everything,
)
case(
    "FortificationItem.id",
    base="sicily",
    mutate=lambda d: fort(d, "trench").update(id="trenches"),
    observe=check_fort("axis", "trench", fortification_points=50),
)
case(
    "FortificationItem.label",
    base="sicily",
    mutate=lambda d: fort(d, "at_mines").update(label="A-T Mines"),
    observe=fort_reasons("axis", "at_mines", fortification_points=50),
)
case(
    "FortificationItem.sides",
    base="sicily",
    mutate=lambda d: fort(d, "at_mines").update(sides=None),
    observe=fort_reasons(
        "axis", "at_mines", fortification_points=50, holdings=held(Bought("I2", 0))
    ),
)
case(
    "FortificationItem.sides_rule",
    base="phd",
    mutate=lambda d: fort(d, "booby_traps").update(sides_rule=None),
    observe=fort_reasons("us", "booby_traps", fortification_points=50),
)
case(
    "FortificationItem.cap_sides",
    base="sicily",
    mutate=lambda d: fort(d, "roadblock").update(cap_sides=None),
    observe=fort_reasons(
        "british",
        "roadblock",
        fortification_points=50,
        holdings=Holdings(fortifications=(FortificationBought("roadblock", 0, 5),)),
    ),
)
case(
    "FortificationItem.tiers",
    "CostTier.cost",
    base="sicily",
    mutate=lambda d: fort(d, "foxhole")["tiers"][1].update(cost=3),
    observe=fort_reasons("axis", "foxhole", tier=1, fortification_points=2),
)


def booby_level(date: str, *bought: tuple[int, int]):
    """PHD's Booby Trap Level (C5.35 note 8, C5.25b) on ``date`` after ``bought``
    ((date index, count)), and whether one more may be bought."""

    def observe(m: Module) -> Any:
        item = next(i for i in m.fortifications.items if i.id == "booby_traps")
        forts = tuple(FortificationBought("booby_traps", d, n) for d, n in bought)
        sn = snap(
            m, "german", date=date, fortification_points=90, holdings=Holdings(fortifications=forts)
        )
        return (
            availability.fortification_level(item, sn),
            availability.fortification_reasons(m, sn, item),
        )

    return observe


case(
    "FortificationItem.levels",
    "FortLevels.names",
    base="phd",
    mutate=lambda d: fort(d, "booby_traps")["levels"].update(names=["C", "B", "A", "S"]),
    observe=booby_level("t0930", (0, 2), (1, 1)),
)
case(
    "FortLevels.reduced_to",
    base="phd",
    mutate=lambda d: fort(d, "booby_traps")["levels"].update(reduced_to=None),
    observe=booby_level("t1230", (0, 2), (1, 1)),
)
case(
    "FortLevels.rule",
    base="phd",
    mutate=lambda d: fort(d, "booby_traps")["levels"].update(rule="B28.9"),
    observe=booby_level("t0930", (0, 2), (1, 1)),
)
case(
    "CostTier.label",
    base="sicily",
    mutate=lambda d: fort(d, "foxhole")["tiers"][0].update(label="3-squad"),
    observe=check_fort("axis", "foxhole", count=5, tier=0, fortification_points=2),
)
case(
    "FortificationItem.per_cg_max",
    base="sicily",
    mutate=lambda d: fort(d, "roadblock").update(per_cg_max=6),
    observe=fort_reasons(
        "axis",
        "roadblock",
        fortification_points=50,
        holdings=Holdings(fortifications=(FortificationBought("roadblock", 0, 5),)),
    ),
)
case(
    "FortificationItem.per_date_max",
    base="skirmish",
    mutate=lambda d: fort(d, "foxhole").update(per_date_max=1),
    observe=fort_reasons(
        "red",
        "foxhole",
        fortification_points=50,
        holdings=Holdings(fortifications=(FortificationBought("foxhole", 0, 1),)),
    ),
)
case(
    "FortificationItem.requires_retained",
    base="sicily",
    mutate=lambda d: fort(d, "at_mines").update(requires_retained=["coy"]),
    observe=fort_reasons(
        "british",
        "at_mines",
        fortification_points=50,
        holdings=held(Bought("I2", 0), mmc_groups=("I2",)),
    ),
)
case(
    "FortificationItem.hip",
    "HipCap.fraction",
    base="sicily",
    mutate=lambda d: fort(d, "hip")["hip"].update(fraction="1/5"),
    observe=hip_cap("axis", holdings=Holdings(squads=11)),
)
case(
    "HipCap.rounding",
    base="sicily",
    mutate=lambda d: fort(d, "hip")["hip"].update(rounding="FRD"),
    observe=hip_cap("axis", holdings=Holdings(squads=11)),
)
case(
    "HipCap.of",
    base="sicily",
    mutate=lambda d: fort(d, "hip")["hip"].update(of="squad_equivalents"),
    observe=hip_cap("axis", holdings=Holdings(squads=9, half_squads=4)),
)
case(
    "HipCap.rule",
    base="sicily",
    mutate=lambda d: fort(d, "hip")["hip"].update(rule="3.619b"),
    observe=fort_reasons(
        "axis", "hip", count=3, fortification_points=50, holdings=Holdings(squads=11)
    ),
)
case(
    "FortificationItem.rule",
    base="sicily",
    mutate=lambda d: fort(d, "at_mines").update(rule="3.619d"),
    observe=fort_reasons("axis", "at_mines", fortification_points=50),
)

case(
    "FortificationItem.figures",
    "PriceFigure.id",
    base="phd",
    mutate=lambda d: fort(d, "pillbox")["figures"][0].update(id="squads"),
    observe=fort_reasons(
        "german",
        "pillbox",
        figures={"capacity": 1, "ca_drm": 5, "nca_drm": 7},
        fortification_points=12,
    ),
)
case(
    "PriceFigure.label",
    base="phd",
    mutate=lambda d: fort(d, "pillbox")["figures"][1].update(label="CA TEM"),
    observe=fort_reasons("german", "pillbox", figures={"capacity": 1}, fortification_points=50),
)
case(
    "PriceFigure.min",
    base="phd",
    mutate=lambda d: fort(d, "pillbox")["figures"][0].update(min=0),
    observe=fort_reasons(
        "german",
        "pillbox",
        figures={"capacity": 0, "ca_drm": 5, "nca_drm": 7},
        fortification_points=50,
    ),
)
case(
    "PriceFigure.max",
    base="phd",
    mutate=lambda d: fort(d, "pillbox")["figures"][2].update(max=6),
    observe=fort_reasons(
        "german",
        "pillbox",
        figures={"capacity": 1, "ca_drm": 5, "nca_drm": 7},
        fortification_points=50,
    ),
)
case(
    "Fortifications.spend_caps",
    "SpendCap.items",
    "SpendCap.max",
    base="phd",
    prepare=lambda d: fort(d, "ap_mines").update(cost=2),
    mutate=lambda d: d["fortifications"]["spend_caps"][0].update(max=20),
    observe=fort_reasons(
        "german",
        "ap_mines",
        count=3,
        fortification_points=60,
        holdings=Holdings(fortifications=(FortificationBought("at_mines", 0, 8, "", 16),)),
    ),
)
case(
    "SpendCap.label",
    "SpendCap.rule",
    base="phd",
    prepare=lambda d: fort(d, "ap_mines").update(cost=2),
    mutate=lambda d: d["fortifications"]["spend_caps"][0].update(label="Minefields", rule="N6"),
    observe=fort_reasons(
        "german",
        "ap_mines",
        count=8,
        fortification_points=60,
        holdings=Holdings(fortifications=(FortificationBought("at_mines", 0, 8, "", 16),)),
    ),
)

# Recon
case(
    "Module.recon",
    "Recon.group",
    base="sicily",
    mutate=lambda d: d["recon"].update(group=None, options=[{"cost": 1, "drm": 0}]),
    observe=recon("axis", date="jul14pm", holdings=held(Bought("M2", 1, ref="r"))),
)
case(
    "Recon.rule",
    base="sicily",
    mutate=lambda d: d["recon"].update(rule="3.620b"),
    observe=recon("axis", date="jul14am", holdings=held(Bought("M2", 0, ref="r"))),
)
case(
    "Recon.options",
    "ReconOption.cost",
    base="phd",
    mutate=lambda d: d["recon"]["options"][0].update(cost=2),
    observe=recon("us", date="t0930", points=1),
)
case(
    "Recon.not_for_initial",
    base="sicily",
    mutate=lambda d: d["recon"].update(not_for_initial=False),
    observe=recon("axis", date="jul14am", holdings=held(Bought("M2", 0, ref="r"))),
)
case(
    "Recon.note",
    base="sicily",
    mutate=lambda d: d["recon"].update(note="changed"),
    observe=everything,
)

# Steps and flow
case(
    "Module.steps",
    "Step.acts",
    base="skirmish",
    mutate=lambda d: step(d, "T3.1").update(acts="red"),
    observe=to_act("T3.1"),
)
case(
    "Step.id",
    base="sicily",
    mutate=lambda d: step(d, "3.601").update(id="3.601a"),
    observe=lambda m: (
        availability.turn_refusal(
            m, snap(m, "axis", step=m.steps[4].id), "axis", Action.BUY
        ).message
    ),
)
case(
    "Step.title",
    base="sicily",
    mutate=lambda d: step(d, "3.601").update(title="Melee"),
    observe=refusal("axis", "3.601", Action.BUY),
)
case(
    "Step.kind",
    base="sicily",
    mutate=lambda d: step(d, "3.601").update(kind="purchase"),
    observe=refusal("axis", "3.601", Action.BUY),
)
case(
    "Step.start",
    base="skirmish",
    mutate=lambda d: d["steps"].insert(
        0, {"id": "T0", "title": "Buy", "kind": "purchase", "start": True}
    ),
    observe=lambda m: machine.results_index(m),
)
case(
    "Step.cvp_na",
    base="apd",
    mutate=lambda d: step(d, "3").pop("cvp_na"),
    observe=lambda m: machine.cvp_na_rule(m, machine.step_index(m, "3.3")),
)
case(
    "Step.losses_count",
    base="phd",
    mutate=lambda d: step(d, "C5.2").pop("losses_count"),
    observe=lambda m: machine.losses_count_rule(m, machine.step_index(m, "C5.8")),
)
case(
    "Step.note",
    base="sicily",
    mutate=lambda d: step(d, "3.601").update(note="changed"),
    observe=everything,
)
case(
    "Module.flow",
    "Flow.order",
    base="apd",
    mutate=lambda d: d["flow"].update(order=["german", "american"]),
    observe=to_act("2.1"),
)
case(
    "Flow.rule",
    base="apd",
    mutate=lambda d: d["flow"].update(rule="1.2b"),
    observe=everything,
)

# Result fields
VALUES = {"cvp_lost.red": "3", "cvp_lost.blue": "4", "san.red": "2", "san.blue": "2"}
case(
    "Module.result_fields",
    "ResultField.label",
    base="skirmish",
    mutate=lambda d: d["result_fields"][0].update(label="Casualty VP lost"),
    observe=clean_result(VALUES),
)
case(
    "ResultField.id",
    base="skirmish",
    mutate=lambda d: d["result_fields"][0].update(id="cvp"),
    observe=clean_result(VALUES),
)
case(
    "ResultField.per_side",
    base="skirmish",
    mutate=lambda d: d["result_fields"][0].update(per_side=False),
    observe=clean_result(VALUES),
)
case(
    "ResultField.side",
    base="skirmish",
    mutate=lambda d: d["result_fields"][0].update(side="red"),
    observe=clean_result(VALUES),
)
case(
    "ResultField.kind",
    base="skirmish",
    mutate=lambda d: d["result_fields"][0].update(kind="text"),
    observe=clean_result({**VALUES, "cvp_lost.red": "three"}),
)
case(
    "ResultField.dates",
    base="skirmish",
    mutate=lambda d: d["result_fields"][0].update(dates=["d2am"]),
    observe=clean_result(VALUES),
)
case(
    "ResultField.rule",
    base="skirmish",
    mutate=lambda d: d["result_fields"][0].update(rule="T3.0"),
    observe=everything,
)

# Tables
case(
    "Module.tables",
    "Table.title",
    base="sicily",
    mutate=lambda d: tab(d, "escape").update(title="Escapes"),
    observe=view("escape"),
)
case(
    "Table.id",
    base="skirmish",
    mutate=lambda d: rename(d, "wounded", "hurt"),
    observe=lambda m: [view(t)(m) for t in m.steps[2].tables],
)
case(
    "Table.rule",
    base="sicily",
    mutate=lambda d: tab(d, "escape").update(rule="3.606b"),
    observe=view("escape"),
)
case(
    "Table.dice",
    base="sicily",
    mutate=lambda d: tab(d, "stun_recovery").update(dice="DR"),
    observe=view("stun_recovery"),
)
case(
    "Table.columns",
    base="sicily",
    mutate=lambda d: [
        tab(d, "escape").update(columns=["Infantry", "Vehicle"]),
        [
            r["results"].update({"Vehicle": r["results"].pop("Mobile Vehicle")})
            for r in tab(d, "escape")["rows"]
        ],
    ],
    observe=view("escape"),
)
case(
    "Table.column_for_side",
    base="phd",
    mutate=lambda d: tab(d, "tp_replenishment").update(
        column_for_side={"us": "German", "german": "US"}
    ),
    observe=lines("us", 1),
)
case(
    "Table.column_for_kind",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["column_for_kind"].update(vehicle="Infantry"),
    observe=lambda m: [
        effects.roll_column(m.table("escape"), "axis", k) for k in ("squad", "vehicle")
    ],
)
case(
    "Condition.not_unit_kinds",
    base="sicily",
    mutate=lambda d: drm(d, "escape", "excess_pp")["offer_when"].update(not_unit_kinds=["gun"]),
    observe=ticked_drms("escape", [], {"excess_pp": 1}, side="axis", unit_kind="vehicle"),
)
case(
    "Table.rows",
    "TableRow.range",
    base="sicily",
    mutate=lambda d: [
        tab(d, "rg_strength")["rows"][0].update(range="≤8"),
        tab(d, "rg_strength")["rows"][1].update(range="≥9"),
    ],
    observe=lookup("rg_strength", (9,)),
)
case(
    "TableRow.result",
    base="sicily",
    mutate=lambda d: tab(d, "shift")["rows"][0].update(result="Shifted"),
    observe=view("shift"),
)
case(
    "TableRow.results",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["rows"][0]["results"].update(Infantry="Escapes"),
    observe=view("escape"),
)
case(
    "TableRow.effect",
    "Effect.do",
    base="sicily",
    mutate=lambda d: tab(d, "stun_recovery")["rows"][2].update(effect={"do": "none"}),
    observe=unit_outcome("stun_recovery", 6, "PzIII", "stunned", "vehicle"),
)
case(
    "TableRow.effects",
    "Effect.kinds",
    base="apd",
    mutate=lambda d: tab(d, "repair_ma_gun")["rows"][2]["effects"][0].update(kinds=["gun"]),
    observe=unit_outcome("repair_ma_gun", 6, "M4", "malfunctioned", "vehicle"),
)
case(
    "TableRow.column_effects",
    base="apd",
    mutate=lambda d: tab(d, "leader")["rows"][6]["column_effects"].update(
        {"German Infantry": {"do": "leader", "unit": "6+1 leader"}}
    ),
    observe=group_outcome("leader", 12, "German Infantry"),
)
case(
    "TableRow.note",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["rows"][0].update(note="changed"),
    observe=everything,
)
case(
    "Effect.status",
    base="apd",
    mutate=lambda d: tab(d, "repair_ma_gun")["rows"][2]["effects"][0].update(status="immobilized"),
    observe=unit_outcome("repair_ma_gun", 6, "M4", "malfunctioned", "vehicle"),
)
case(
    "Effect.unit",
    base="apd",
    mutate=lambda d: tab(d, "recovery")["rows"][1]["effect"].update(unit="8-0 leader"),
    observe=unit_outcome("recovery", 5, "9-1 leader", "wounded", "leader"),
)
case(
    "Effect.count",
    base="apd",
    mutate=lambda d: tab(d, "m4_model")["rows"][0]["effects"][0].update(count=3),
    observe=group_outcome("m4_model", 2),
)
case(
    "Effect.strength",
    base="sicily",
    mutate=lambda d: tab(d, "rg_strength")["rows"][1]["effect"].update(strength="full"),
    observe=group_outcome("rg_strength", 11),
)
case(
    "Effect.group",
    base="apd",
    prepare=_supply_row_a,
    mutate=lambda d: tab(d, "german_reinforcement_row_a")["rows"][0]["effect"].update(group="RA2"),
    observe=lambda m: effects.granted_group(
        effects.result_effects(m.table("german_reinforcement_row_a"), 2)
    ),
)
case(
    "Effect.by",
    base="sicily",
    mutate=lambda d: tab(d, "san_adjustment")["rows"][1]["effect"].update(by=-1),
    observe=lambda m: effects.san_after(effects.result_effects(m.table("san_adjustment"), 5), 6),
)
case(
    "Effect.side",
    base="sicily",
    mutate=lambda d: tab(d, "dual_attack_setup")["rows"][0]["effect"].update(side="axis"),
    observe=lambda m: effects.named_side(effects.result_effects(m.table("dual_attack_setup"), 2)),
)
case(
    "Effect.kind",
    base="apd",
    mutate=lambda d: tab(d, "m4_model")["rows"][0]["effects"][1].update(kind="other"),
    observe=group_outcome("m4_model", 2),
)
case(
    "Table.drms",
    "Drm.value",
    base="sicily",
    mutate=lambda d: drm(d, "leader_allotment", "alert_coy").update(value=2),
    observe=auto_drms("leader_allotment", side="axis", group="I3"),
)
case(
    "Drm.id",
    base="sicily",
    mutate=lambda d: drm(d, "escape", "enemy_setup_area").update(id="enemy_area"),
    observe=ticked_drms("escape", ["enemy_setup_area"], side="axis"),
)
case(
    "Drm.label",
    base="sicily",
    mutate=lambda d: drm(d, "escape", "enemy_setup_area").update(label="+1 enemy Setup Area"),
    observe=ticked_drms("escape", ["enemy_setup_area"], side="axis"),
)
case(
    "Drm.when",
    "Condition.tags",
    base="sicily",
    mutate=lambda d: drm(d, "leader_allotment", "alert_coy")["when"].update(tags=["coy"]),
    observe=auto_drms("leader_allotment", side="axis", group="I1"),
)
case(
    "Drm.per",
    base="phd",
    mutate=lambda d: drm(d, "tp_replenishment", "cvp_suffered").update(per=5),
    observe=auto_drms("tp_replenishment", side="us", inputs={"cvp_lost_prior_scenario": 29}),
)
case(
    "Drm.of",
    base="phd",
    mutate=lambda d: drm(d, "tp_replenishment", "cvp_suffered").update(of="cvp_lost_cg"),
    observe=auto_drms(
        "tp_replenishment", side="us", inputs={"cvp_lost_prior_scenario": 29, "cvp_lost_cg": 60}
    ),
)
case(
    "Drm.offset",
    base="sicily",
    mutate=lambda d: drm(d, "san_adjustment", "san_over_4").update(offset=-3),
    observe=auto_drms("san_adjustment", side="axis", inputs={"san": 6}),
)
case(
    "Drm.rounding",
    base="phd",
    mutate=lambda d: drm(d, "tp_replenishment", "cvp_suffered").update(rounding="FRU"),
    observe=auto_drms("tp_replenishment", side="us", inputs={"cvp_lost_prior_scenario": 29}),
)
case(
    "Drm.variable",
    base="sicily",
    mutate=lambda d: drm(d, "weapon_repair", "repair_number").update(variable=False, value=-1),
    observe=ticked_drms("weapon_repair", [], {"repair_number": -3}, side="axis"),
)
case(
    "Drm.min",
    base="phd",
    mutate=lambda d: drm(d, "tp_replenishment", "cvp_suffered").update(min=-1),
    observe=auto_drms("tp_replenishment", side="us", inputs={"cvp_lost_prior_scenario": 29}),
)
case(
    "Drm.max",
    base="sicily",
    mutate=lambda d: drm(d, "san_adjustment", "san_over_4").update(max=1),
    observe=auto_drms("san_adjustment", side="axis", inputs={"san": 6}),
)
case(
    "Drm.rule",
    base="sicily",
    mutate=lambda d: drm(d, "escape", "isolated").update(rule="3.606"),
    observe=everything,
)
case(
    "Drm.note",
    base="sicily",
    mutate=lambda d: drm(d, "escape", "isolated").update(note="changed"),
    observe=everything,
)
case(
    "Condition.sides",
    base="sicily",
    mutate=lambda d: drm(d, "leader_allotment", "german_v")["when"].update(sides=["british"]),
    observe=auto_drms("leader_allotment", side="axis", group="V1"),
)
case(
    "Condition.nationalities",
    base="skirmish",
    mutate=lambda d: d["cost_variants"][0]["applies_to"].update(nationalities=["Blueland"]),
    observe=costs("red", "I1"),
)
case(
    "Condition.groups",
    base="sicily",
    mutate=lambda d: _pp(d, "leader_allotment", 1)["applies_to"].update(groups=["I1"]),
    observe=to_make("axis", "I3"),
)
case(
    "Condition.id_prefixes",
    base="sicily",
    mutate=lambda d: cvar(d, "reserve")["applies_to"].update(id_prefixes=["I"]),
    observe=costs("axis", "G1"),
)
case(
    "Condition.not_tags",
    base="sicily",
    mutate=lambda d: drm(d, "rg_strength", "g_v_type")["when"].update(not_tags=None),
    observe=auto_drms("rg_strength", side="british", group="G2"),
)
case(
    "Condition.strength",
    base="sicily",
    mutate=lambda d: drm(d, "leader_allotment", "depleted")["when"].update(strength="full"),
    observe=auto_drms("leader_allotment", side="axis", group="I1", strength="full"),
)
case(
    "Condition.night",
    base="skirmish",
    prepare=_night_drm,
    mutate=lambda d: drm(d, "wounded", "dark")["when"].update(night=False),
    observe=auto_drms("wounded", side="red", night=True),
)
case(
    "Condition.chose_attack_previous",
    base="phd",
    mutate=lambda d: drm(d, "tp_replenishment", "attack_previous")["when"].update(
        chose_attack_previous=False
    ),
    observe=auto_drms("tp_replenishment", side="us", chose_attack_previous=True),
)
case(
    "Condition.initial_scenario",
    base="skirmish",
    prepare=lambda d: tab(d, "strength")["drms"].append(
        {"id": "ob", "label": "OB RG", "value": 1, "when": {"initial_scenario": True}}
    ),
    mutate=lambda d: drm(d, "strength", "ob")["when"].update(initial_scenario=False),
    observe=auto_drms("strength", side="red", initial_scenario=True),
)
case(
    "Condition.first_roll",
    base="sicily",
    mutate=lambda d: drm(d, "leader_allotment", "signal_first_roll")["when"].update(
        first_roll=None
    ),
    observe=auto_drms("leader_allotment", side="axis", group="I4", roll_number=2),
)
case(
    "Condition.footnotes",
    base="phd",
    prepare=lambda d: chart(d, "us").update(
        missing=False,
        groups=[{"id": "I1", "type": "Rifle Pl", "units": "6-6-6", "cost": 8, "footnotes": ["l"]}],
        footnotes={"l": "leader"},
    ),
    mutate=lambda d: _pp(d, "leader_table")["applies_to"].update(footnotes=["x"]),
    observe=to_make("us", "I1"),
)
case(
    "Table.footnotes",
    base="apd",
    mutate=lambda d: tab(d, "recovery")["footnotes"].update({"*": "Replaced by an 8-0."}),
    observe=view("recovery"),
)
case(
    "Table.missing",
    base="sicily",
    mutate=lambda d: tab(d, "special_ammo").update(missing=True),
    observe=view("special_ammo"),
)
case(
    "Table.once",
    base="sicily",
    mutate=lambda d: tab(d, "wounded_leaders").update(once=None),
    observe=view("wounded_leaders"),
)
case(
    "Condition.unit_kinds",
    base="sicily",
    mutate=lambda d: next(x for x in tab(d, "weapon_repair")["drms"] if x["id"] == "vehicular")[
        "when"
    ].update(unit_kinds=["sw"]),
    observe=lambda m: applicable_drms(
        m.table("weapon_repair"),
        RollContext(side="axis", unit_kind="vehicle"),
        typed={"repair_number": -1},
    ),
)

case(
    "Condition.cost_variants",
    base="sicily",
    prepare=lambda d: _pp(d, "rg_strength")["applies_to"].update(not_cost_variants=None),
    mutate=lambda d: _pp(d, "rg_strength")["applies_to"].update(cost_variants=["paradrop"]),
    observe=lambda m: availability.rolls_to_make(m, "british", "I2"),
)
case(
    "Condition.not_cost_variants",
    base="sicily",
    mutate=lambda d: _pp(d, "rg_strength")["applies_to"].update(not_cost_variants=None),
    observe=lambda m: availability.rolls_to_make(m, "british", "I2", "paradrop"),
)


def _supply_armor_type(d: dict) -> None:
    t = tab(d, "american_reinforcement")
    t["missing"] = False
    t["rows"] = [{"range": "1-6", "result": "M4", "effect": {"do": "type", "type": "m4"}}]


case(
    "Effect.type",
    base="apd",
    prepare=_supply_armor_type,
    mutate=lambda d: tab(d, "american_reinforcement")["rows"][0]["effect"].update(type="m36"),
    observe=group_outcome("american_reinforcement", 2),
)
case(
    "Effect.at",
    base="apd",
    mutate=lambda d: tab(d, "recovery")["rows"][1]["effect"].pop("at"),
    observe=lambda m: effects.on_unit(
        effects.result_effects(m.table("recovery"), 5),
        effects.UnitState("8-1 leader", "leader", ("wounded",)),
    ),
)
case(
    "Table.gives_type",
    base="apd",
    prepare=_supply_row_a,
    mutate=lambda d: tab(d, "german_reinforcement_row_a").update(gives_type="armor"),
    observe=lambda m: effects.types_given(m.tables, "RA1"),
)
case(
    "Condition.rolled_types",
    base="apd",
    mutate=lambda d: _pp(d, "m4_model")["applies_to"].update(rolled_types=["m36"]),
    observe=lambda m: [
        holds(
            p.applies_to,
            RollContext(
                side="american",
                group=SimpleNamespace(id="A1", tags=["armor"], footnotes=[]),
                rolled_types=frozenset({"m4"}),
            ),
        )
        for p in m.post_purchase
    ],
)
case(
    "Step.exchange",
    base="apd",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "3.2").update(exchange=None),
    observe=lambda m: [
        effects.left_over(st.exchange, effects.UnitState("1-4-9 Hero", "hero", ("wounded",)), [])
        for st in m.steps
        if st.exchange
    ],
)
case(
    "Step.recombining",
    base="sicily",
    # Sicily 3.6111: without it no HS recombine at 3.611 (only the Heroes' exchange).
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "3.611").pop("recombining"),
    observe=lambda m: [
        (st.id, st.recombining.rule, st.recombining.recombine) for st in m.steps if st.recombining
    ],
)
case(
    "PostPurchaseRoll.unit_names",
    base="apd",
    mutate=lambda d: _pp(d, "schuerzen").update(unit_names=["StuG"]),
    observe=lambda m: __import__(
        "campaign.services.purchase_records", fromlist=["rolls_for"]
    ).rolls_for(
        next(p for p in m.post_purchase if p.table == "schuerzen"),
        SimpleNamespace(units="PzIVH", full=2, depleted=None),
        "full",
    ),
)
case(
    "CostVariant.short",
    base="sicily",
    mutate=lambda d: next(v for v in d["cost_variants"] if v["id"] == "reserve").update(short=None),
    observe=lambda m: [
        __import__("rules.purchase").purchase.price_column(v) for v in m.cost_variants
    ],
)
case(
    "VictoryCheck.at_end",
    base="phd",
    mutate=lambda d: d["victory_checks"][0].update(at_end=False),
    observe=lambda m: victory.cg_winner(m, [{"highway_controlled": {"us": True}}]),
)
case(
    "Condition.unit_markers",
    base="sicily",
    mutate=lambda d: drm(d, "weapon_repair", "isolated")["when"].update(unit_markers=["captured"]),
    observe=lambda m: [
        d.id
        for d in applicable_drms(
            m.table("weapon_repair"),
            RollContext(side="axis", unit_kind="sw", unit_markers=frozenset({"isolated"})),
            typed={"repair_number": -1},
        )
    ],
)
case(
    "UnitFilter.weapons",
    base="phd",
    mutate=lambda d: tab(d, "weapon_repair")["for_units"].update(weapons=["mg"]),
    observe=lambda m: effects.targets(
        m.table("weapon_repair").for_units,
        effects.UnitState(
            "PzIVH",
            "vehicle",
            ("isolated",),
            (effects.WeaponState("w1", "ma", "MA", ("malfunctioned",)),),
        ),
    ),
)
case(
    "Effect.to",
    base="sicily",
    mutate=lambda d: tab(d, "weapon_repair")["rows"][1]["effects"][1].pop("to"),
    observe=lambda m: effects.on_weapon(
        effects.row_effects(m.table("weapon_repair").lookup(4)),
        effects.UnitState("StuG IIIG", "vehicle"),
        effects.WeaponState("w1", "ma", "MA", ("malfunctioned",)),
    ),
)


def _mg_exchange(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "3.614")["weapon_exchange"]


def _exchanged(sw: str, sw_markers: tuple[str, ...] = ()) -> Callable[[Module], Any]:
    """Whether the Axis may repair a StuG's disabled MG with ``sw`` (Sicily 3.61421)."""

    def observe(m: Module) -> Any:
        step = next(st for st in m.steps if st.id == "3.614")
        if step.weapon_exchange is None:
            return "no exchange"
        mg = effects.WeaponState("w1", "mg", "AAMG", ("disabled",))
        tank = effects.UnitState("StuG IIIG", "vehicle", (), (mg,))
        return effects.exchange_refusal(
            step.weapon_exchange, "axis", tank, "w1", effects.UnitState(sw, "sw", sw_markers)
        )

    return observe


case(
    "Step.weapon_exchange",
    base="sicily",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "3.614").update(
        weapon_exchange=None
    ),
    observe=_exchanged("LMG (I5)"),
)
case(
    "WeaponExchange.repairs",
    base="sicily",
    mutate=lambda d: _mg_exchange(d)["repairs"].update(statuses=["malfunctioned"]),
    observe=_exchanged("LMG (I5)"),
)
case(
    "WeaponExchange.gives",
    base="sicily",
    mutate=lambda d: _mg_exchange(d)["gives"].update(not_statuses=["unpossessed"]),
    observe=_exchanged("LMG (I5)", ("captured",)),
)
case(
    "WeaponExchange.names",
    base="sicily",
    mutate=lambda d: _mg_exchange(d)["names"].update(axis=["MMG"]),
    observe=_exchanged("LMG (I5)"),
)
case(
    "WeaponExchange.rule",
    base="sicily",
    mutate=lambda d: _mg_exchange(d).update(rule="3.6142"),
    observe=_exchanged("PIAT"),
)
case(
    "UnitFilter.all_statuses",
    base="phd",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "C5.26")["settles"][0][
        "units"
    ].update(all_statuses=None),
    observe=lambda m: effects.settled(
        next(st for st in m.steps if st.id == "C5.26").settles[0],
        effects.UnitState("MG 42", "sw", ("malfunctioned",)),
    ),
)


def _engineers(d: dict[str, Any]) -> dict[str, Any]:
    drm = next(x for x in tab(d, "fortification_clearance")["drms"] if x["id"] == "engineers")
    return drm["offer_when"]


def _engineers_offered(squads: dict[str, int]) -> Callable[[Module], bool]:
    def observe(m: Module) -> bool:
        drm = next(x for x in m.table("fortification_clearance").drms if x.id == "engineers")
        return holds(drm.offer_when, RollContext(side="german", squads_by_footnote=squads))

    return observe


case(
    "Condition.held_squads",
    base="phd",
    mutate=lambda d: _engineers(d).update(held_squads=None),
    observe=_engineers_offered({"e": 2}),
)
case(
    "HeldSquads.at_least",
    base="phd",
    mutate=lambda d: _engineers(d)["held_squads"].update(at_least=2),
    observe=_engineers_offered({"e": 2}),
)
case(
    "HeldSquads.footnotes",
    base="phd",
    mutate=lambda d: _engineers(d)["held_squads"].update(footnotes=["l"]),
    observe=_engineers_offered({"e": 3}),
)


def _qualified(d: dict[str, Any]) -> dict[str, Any]:
    return drm(d, "weapon_repair", "non_qualified")["offer_when"]["not_qualified_possessor"]


def _non_qualified_offered(m: Module) -> bool:
    """C5.26a "+1 If only Non-Qualified (A21.13) use is possible" for an FT an Assault
    Engineer (RG footnote e) possesses (MSR8)."""
    d = next(x for x in m.table("weapon_repair").drms if x.id == "non_qualified")
    return holds(
        d.offer_when,
        RollContext(side="german", unit_name="FT", possessor_footnotes=frozenset({"e"})),
    )


case(
    "Condition.not_qualified_possessor",
    base="phd",
    mutate=lambda d: drm(d, "weapon_repair", "non_qualified")["offer_when"].update(
        not_qualified_possessor=None
    ),
    observe=_non_qualified_offered,
)
case(
    "QualifiedUsers.names",
    base="phd",
    mutate=lambda d: _qualified(d).update(names=["DC"]),
    observe=_non_qualified_offered,
)
case(
    "QualifiedUsers.footnotes",
    base="phd",
    mutate=lambda d: _qualified(d).update(footnotes=["l"]),
    observe=_non_qualified_offered,
)


def _repair_cap(d: dict[str, Any]) -> dict[str, Any]:
    return tab(d, "baz_psk_ft_dc_repair")["repair_cap"]


def _ft_repair(m: Module) -> str:
    """C5.26b: the refusal of an FT's repair roll for a side retaining one FT, one
    Assault Engineer squad and an Isolated one (RG footnote e)."""
    table = m.table("baz_psk_ft_dc_repair")
    weapon = availability.repair_cap_weapon(table, "FT in 23K4")
    if table.repair_cap is None:
        return weapon
    units = [
        (effects.UnitState("FT", "sw"), []),
        (effects.UnitState("4-4-7", "squad"), ["e"]),
        (effects.UnitState("4-4-7", "squad", ("isolated",)), ["e"]),
    ]
    held, equivalents = availability.repair_cap_figures(table.repair_cap, weapon, units)
    return availability.repair_cap_refusal(table, weapon, held, equivalents)


case(
    "Table.repair_cap",
    base="phd",
    mutate=lambda d: tab(d, "baz_psk_ft_dc_repair").update(repair_cap=None),
    observe=_ft_repair,
)
case(
    "RepairCap.names",
    base="phd",
    mutate=lambda d: _repair_cap(d).update(names=["DC"]),
    observe=_ft_repair,
)
case(
    "RepairCap.footnotes",
    base="phd",
    mutate=lambda d: _repair_cap(d).update(footnotes=["l"]),
    observe=_ft_repair,
)
case(
    "RepairCap.not_markers",
    base="phd",
    mutate=lambda d: _repair_cap(d).update(not_markers=[]),
    observe=_ft_repair,
)
case(
    "RepairCap.label",
    base="phd",
    mutate=lambda d: _repair_cap(d).update(label="engineers"),
    observe=_ft_repair,
)
case(
    "RepairCap.rule",
    base="phd",
    mutate=lambda d: _repair_cap(d).update(rule="C5.26"),
    observe=_ft_repair,
)


def _cleared_first(d: dict[str, Any]) -> dict[str, Any]:
    return tab(d, "fortification_clearance")["cleared_first"]


def _wire_after_mines(m: Module) -> tuple[str, ...]:
    """C5.28's A-P mines cleared first: a roll for Wire in 23K4 after a roll there vs
    A-P mines that gave No Effect, vs A-T mines, and vs A-P mines eliminated."""
    table = m.table("fortification_clearance")
    return tuple(
        availability.cleared_first_refusal(table, "Wire in 23K4", [(mines, final, final)])
        for mines, final in (
            ("A-P mines in 23K4", 5),
            ("A-T mines in 23K4", 5),
            ("Minefield 23K4", 3),
        )
    )


case(
    "Table.cleared_first",
    base="phd",
    mutate=lambda d: tab(d, "fortification_clearance").update(cleared_first=None),
    observe=_wire_after_mines,
)
case(
    "ClearedFirst.named",
    base="phd",
    mutate=lambda d: _cleared_first(d).update(named=["Wire"]),
    observe=_wire_after_mines,
)
case(
    "ClearedFirst.unless_named",
    base="phd",
    mutate=lambda d: _cleared_first(d).update(unless_named=[]),
    observe=_wire_after_mines,
)
case(
    "ClearedFirst.clears",
    base="phd",
    mutate=lambda d: _cleared_first(d).update(clears="≥4"),
    observe=_wire_after_mines,
)
case(
    "ClearedFirst.says",
    base="phd",
    mutate=lambda d: _cleared_first(d).update(says="mines first"),
    observe=_wire_after_mines,
)
case(
    "ClearedFirst.rule",
    base="phd",
    mutate=lambda d: _cleared_first(d).update(rule="C5.27"),
    observe=_wire_after_mines,
)
case(
    "InsteadOfRoll.mmc_not_named",
    base="phd",
    mutate=lambda d: tab(d, "leader_promotion")["instead"].update(mmc_not_named=[]),
    observe=lambda m: availability.instead_refusal(
        m.table("leader_promotion"),
        leaders=0,
        squads=0,
        half_squads=1,
        rolled=False,
        taken=False,
        designable=0,
    ),
)
case(
    "Table.leaders_not_named",
    base="phd",
    mutate=lambda d: tab(d, "leader_promotion").update(leaders_not_named=[]),
    observe=lambda m: effects.battle_hardened(
        [Effect(do="battle_harden", unit="9-2")],
        [effects.UnitState("9-2 Armour Leader", "leader"), effects.UnitState("8-1", "leader")],
        m.leader_ladder.ratings,
        m.table("leader_promotion").leaders_not_named,
    ),
)
case(
    "Table.leaders_not_of_group_kinds",
    base="phd",
    mutate=lambda d: tab(d, "leader_promotion").update(leaders_not_of_group_kinds=[]),
    observe=lambda m: effects.not_hardened_for_group(
        m.table("leader_promotion"),
        ReinforcementGroup(id="V1", type="StuG IIIG", units="StuG", unit_kind="vehicle", cost=6),
    ),
)
case(
    "Table.losses_count",
    base="phd",
    mutate=lambda d: tab(d, "redeployment").pop("losses_count"),
    observe=view("redeployment"),
)
case(
    "Module.cvp_per_kind",
    base="phd",
    mutate=lambda d: d.update(cvp_per_kind={"squad": 2}),
    observe=lambda m: [i.path for i in supply.suppliable(m, "tm", set())],
)
case(
    "Condition.fired_prior",
    base="phd",
    mutate=lambda d: drm(d, "oba", "ffe_prior")["when"].update(fired_prior=None),
    observe=ticked_drms("oba", [], side="german"),
)
case(
    "UnitFilter.not_named",
    base="phd",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "C5.22")["exchange"][
        "marks"
    ].update(not_named=None),
    observe=lambda m: effects.matches(
        next(st for st in m.steps if st.id == "C5.22").exchange.marks,
        effects.UnitState("2-2-8 Crew (G3)", "half_squad"),
    ),
)
case(
    "UnitFilter.named",
    base="phd",
    mutate=lambda d: tab(d, "gyrostabilizer")["for_units"].update(named=None),
    observe=lambda m: effects.matches(
        m.table("gyrostabilizer").for_units, effects.UnitState("M10 GMC", "vehicle")
    ),
)
case(
    "UnitFilter.not_statuses",
    base="sicily",
    mutate=lambda d: tab(d, "weapon_repair")["for_units"].update(not_statuses=None),
    observe=lambda m: effects.matches(
        m.table("weapon_repair").for_units,
        effects.UnitState("Bren", "sw", ("captured", "malfunctioned")),
    ),
)
case(
    "Missing.amendable",
    base="apd",
    mutate=lambda d: next(
        m for m in d["missing"] if m.get("supply") == "dates.dec6morning.vp_required"
    ).update(amendable=False),
    observe=lambda m: [i.path for i in supply.suppliable(m, "cg", set())],
)


def _hip_smc(m: Module) -> Any:
    """Whether a German SMC may hide beside a hidden squad, with 12 squads (cap 1)."""
    hip = next(i for i in m.fortifications.items if i.id == "hip")
    smc = [t.label for t in hip.tiers].index("SMC")
    squad = FortificationBought("hip", 0, 1, "Squad")
    snap = at(
        m,
        side="german",
        fortification_points=60,
        holdings=Holdings(squads=12, fortifications=(squad,)),
    )
    return availability.fortification_reasons(m, snap, hip, 1, tier=smc)


case(
    "CostTier.weight",
    base="phd",
    mutate=lambda d: next(t for t in fort(d, "hip")["tiers"] if t["label"] == "SMC").update(
        weight="1"
    ),
    observe=_hip_smc,
)
case(
    "Drm.offer_when",
    base="sicily",
    mutate=lambda d: drm(d, "leader_allotment", "airborne").update(offer_when=None),
    observe=lambda m: [(t.id, x.id) for t, x in availability.claimable_drms(m, "axis", "I7")],
)


case(
    "Drm.not_offered",
    base="phd",
    # The FFE DRM is computed since pass 9 (``Condition.fired_prior``): it is made a
    # claimed one here, as passes 7-8 had it, to observe the refusal's reason.
    prepare=lambda d: drm(d, "oba", "ffe_prior").update(
        when=None,
        offer_when={"initial_scenario": False},
        not_offered="before the Initial TM Scenario there is no prior TM Scenario",
    ),
    mutate=lambda d: drm(d, "oba", "ffe_prior").update(not_offered=None),
    observe=ticked_drms("oba", ["ffe_prior"], side="german", initial_scenario=True),
)


case(
    "Drm.excludes",
    base="sicily",
    mutate=lambda d: [
        drm(d, "escape", x).update(excludes=[])
        for x in ("adjacent_setup_area", "two_hexes_setup_area")
    ],
    observe=ticked_drms("escape", ["adjacent_setup_area", "two_hexes_setup_area"], side="british"),
)
case(
    "Table.offer_when",
    base="sicily",
    mutate=lambda d: tab(d, "tank_escape").update(offer_when=None),
    observe=lambda m: availability.table_date_reasons(
        m, m.table("tank_escape"), "axis", [x.id for x in m.dates].index("jul14n")
    ),
)


def _original(tid: str, final: int, original: int, column: str | None = None):
    """What a roll with this Original and Final roll gives a mobile Isolated tank."""

    def observe(m: Module) -> Any:
        t = m.table(tid)
        out = effects.on_unit(
            effects.result_effects(t, final, column, original),
            effects.UnitState("Sherman III(a)", "vehicle", ("isolated",)),
        )
        row = t.result_row(final, original)
        return (row.result, row.results, out.removed, out.status)

    return observe


def _san_original(d: dict) -> None:
    tab(d, "san_adjustment")["original"] = [
        {"roll": 1, "result": "No change", "effect": {"do": "none"}}
    ]


case(
    "Table.original",
    base="sicily",
    mutate=lambda d: tab(d, "escape").update(original=[]),
    observe=_original("escape", 9, 2, "Infantry"),
)
case(
    "OriginalRoll.roll",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["original"][0].update(roll=3),
    observe=_original("escape", 9, 2, "Infantry"),
)
case(
    "OriginalRoll.results",
    base="sicily",
    mutate=lambda d: tab(d, "tank_escape")["original"][0].update(
        results={"Mobile Vehicle": "Abandoned"}
    ),
    observe=_original("tank_escape", 9, 2, "Mobile Vehicle"),
)
case(
    "OriginalRoll.result",
    base="sicily",
    prepare=_san_original,
    mutate=lambda d: tab(d, "san_adjustment")["original"][0].update(result="Unchanged"),
    observe=_original("san_adjustment", 5, 1),
)
case(
    "OriginalRoll.effect",
    base="sicily",
    mutate=lambda d: tab(d, "tank_escape")["original"][0].update(effect={"do": "eliminate"}),
    observe=_original("tank_escape", 10, 2, "Mobile Vehicle"),
)
case(
    "OriginalRoll.effects",
    base="sicily",
    mutate=lambda d: tab(d, "tank_escape")["original"][0].update(
        effect=None, effects=[{"do": "eliminate"}]
    ),
    observe=_original("tank_escape", 10, 2, "Mobile Vehicle"),
)
case(
    "OriginalRoll.column_effects",
    base="sicily",
    mutate=lambda d: tab(d, "tank_escape")["original"][0].update(
        column_effects={"Mobile Vehicle": {"do": "status", "status": "abandoned"}}
    ),
    observe=_original("tank_escape", 10, 2, "Mobile Vehicle"),
)


def _radio_leaves(m: Module) -> Any:
    from rules.purchase import leaving_with

    return [
        (state, c.unit, c.kind)
        for state in ("held", "eliminated", "used")
        for c in leaving_with(m, "axis", m.group("axis", "O1"), state)
    ]


case(
    "ComesWith.leaves_when",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "O1")["comes_with"][0].update(leaves_when=["eliminated"]),
    observe=_radio_leaves,
)


def _objectives(m: Module) -> Any:
    from rules.purchase import records_objective

    return [
        (c.side, g.id) for c in m.rg_charts for g in c.groups if records_objective(m, c.side, g)
    ]


case(
    "Module.purchase_record",
    "PurchaseRecordColumns.objective_hex",
    base="sicily",
    mutate=lambda d: d["purchase_record"].update(objective_hex={"tags": ["airborne"]}),
    observe=_objectives,
)


def _strengths(m: Module) -> Any:
    from rules.purchase import records_strength

    return [(c.side, g.id) for c in m.rg_charts for g in c.groups if records_strength(m, c.side, g)]


case(
    "PurchaseRecordColumns.strength",
    base="sicily",
    mutate=lambda d: d["purchase_record"].pop("strength"),
    observe=_strengths,
)


case(
    "SanRule.announced",
    base="sicily",
    mutate=lambda d: d["san"].update(announced="3.623 SAN"),
    observe=lambda m: effects.san_announcement(m, {"axis": 3, "british": None}),
)


def _b1_without_hex(m: Module) -> Any:
    """British chart footnote i: B1 bought without its Pre-Registered hex."""
    from rules.purchase import recorded_hex_refusal

    return recorded_hex_refusal(m.group("british", "B1"), "")


case(
    "ReinforcementGroup.records_hex",
    base="sicily",
    mutate=lambda d: grp(d, "british", "B1").pop("records_hex"),
    observe=_b1_without_hex,
)
case(
    "RecordedHex.label",
    base="sicily",
    mutate=lambda d: grp(d, "british", "B1")["records_hex"].update(label="Pre-Reg hex"),
    observe=_b1_without_hex,
)
case(
    "RecordedHex.rule",
    base="sicily",
    mutate=lambda d: grp(d, "british", "B1")["records_hex"].update(rule="fn i"),
    observe=_b1_without_hex,
)


def _observer_hex_due(m: Module) -> Any:
    """British chart footnote j: the O4's hex, due again before 3.622 on each date."""
    from rules.purchase import hex_due

    return hex_due(m.group("british", "O4"), "3.622")


case(
    "RecordedHex.each_date_before",
    base="sicily",
    mutate=lambda d: grp(d, "british", "O4")["records_hex"].update(each_date_before="3.621"),
    observe=_observer_hex_due,
)


def _printed_implies(m: Module) -> Any:
    """Sicily 3.6175: what an RG bought at its printed value implies, per RG."""
    from rules.purchase import printed_implies

    return [(c.side, g.id, printed_implies(m, c.side, g)) for c in m.rg_charts for g in c.groups]


case(
    "PurchaseRecordColumns.printed_price",
    base="sicily",
    mutate=lambda d: d["purchase_record"].pop("printed_price"),
    observe=_printed_implies,
)
case(
    "PrintedPrice.implies",
    base="sicily",
    mutate=lambda d: d["purchase_record"]["printed_price"].update(implies="it enters"),
    observe=_printed_implies,
)
case(
    "PrintedPrice.applies_to",
    base="sicily",
    mutate=lambda d: d["purchase_record"]["printed_price"].update(applies_to={"sides": ["axis"]}),
    observe=_printed_implies,
)
case(
    "PrintedPrice.rule",
    base="sicily",
    mutate=lambda d: d["purchase_record"]["printed_price"].update(rule="3.6175 printed"),
    observe=_printed_implies,
)


case(
    "HipCap.day_only",
    base="sicily",
    mutate=lambda d: fort(d, "hip")["hip"].update(day_only=False),
    observe=lambda m: availability.hip_cap(
        m,
        next(i for i in m.fortifications.items if i.id == "hip"),
        at(m, side="axis", date="jul14n", holdings=Holdings(squads=11)),
    ),
)
case(
    "Table.date_windows",
    base="sicily",
    mutate=lambda d: tab(d, "special_ammo")["date_windows"][0].update(not_before="jul14pm"),
    observe=lambda m: availability.table_date_reasons(
        m, m.table("special_ammo"), "british", [x.id for x in m.dates].index("jul14pm")
    ),
)
case(
    "FortificationItem.not_for_initial",
    base="sicily",
    mutate=lambda d: fort(d, "trench").update(not_for_initial=False),
    observe=lambda m: availability.fortification_reasons(
        m,
        at(m, side="axis", step="I-3.619", fortification_points=50),
        next(i for i in m.fortifications.items if i.id == "trench"),
    ),
)


def _trench_here(m: Module) -> Any:
    """3.619 footnote e: a Trench in a hex whose Foxhole the Axis bought on this date."""
    trench = next(i for i in m.fortifications.items if i.id == "trench")
    held = Holdings(fortifications=(FortificationBought("foxhole", 2, 1, "2S", 2, "12F4"),))
    snap = at(m, side="axis", step="3.619", date="jul14n", holdings=held)
    return availability.placement_reasons(m, snap, trench, 1, "12f4")


case(
    "FortificationItem.in_place_of",
    "InPlaceOf.item",
    base="sicily",
    mutate=lambda d: fort(d, "trench").update(in_place_of={"item": "roadblock"}),
    observe=_trench_here,
)
case(
    "InPlaceOf.where",
    base="sicily",
    mutate=lambda d: fort(d, "trench")["in_place_of"].update(where="Location"),
    observe=lambda m: availability.placement_reasons(
        m,
        at(m, side="axis", step="3.619", date="jul14n"),
        next(i for i in m.fortifications.items if i.id == "trench"),
        1,
        "",
    ),
)
case(
    "Table.required",
    base="sicily",
    mutate=lambda d: tab(d, "wounded_leaders").update(required=False),
    observe=lambda m: availability.rolls_owed(
        m,
        at(
            m,
            side="axis",
            date="jul15am",
            step="3.610",
            holdings=Holdings(owed=(("wounded_leaders", "9-1 leader"),)),
        ),
        next(s for s in m.steps if s.id == "3.610"),
    ),
)
case(
    "Table.for_units",
    "UnitFilter.statuses",
    base="apd",
    mutate=lambda d: tab(d, "recovery")["for_units"].update(statuses=["wounded", "ok"]),
    observe=lambda m: effects.matches(
        m.table("recovery").for_units, effects.UnitState("8-1", "leader")
    ),
)
case(
    "UnitFilter.kinds",
    base="apd",
    mutate=lambda d: tab(d, "repair_sw")["for_units"].update(kinds=["sw", "gun"]),
    observe=lambda m: effects.matches(
        m.table("repair_sw").for_units, effects.UnitState("AT", "gun", ("malfunctioned",))
    ),
)


case(
    "Table.note",
    base="sicily",
    mutate=lambda d: tab(d, "escape").update(note="changed"),
    observe=everything,
)

# RG charts
case(
    "Module.rg_charts",
    "RGChart.groups",
    "ReinforcementGroup.cost",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "I4").update(cost=12),
    observe=reasons("axis", "I4", "jul14pm", points=11),
)
case(
    "RGChart.side",
    base="skirmish",
    mutate=lambda d: [d["rg_charts"][0].update(side="blue"), d["rg_charts"][1].update(side="red")],
    observe=costs("red", "I1"),
)
case(
    "RGChart.rule",
    base="sicily",
    mutate=lambda d: chart(d, "axis").update(rule="3.617b"),
    observe=reasons("axis", "F1", "jul14pm", holdings=held(Bought("F1", 0))),
)
case(
    "RGChart.missing",
    base="phd",
    mutate=lambda d: chart(d, "us").update(
        missing=False, groups=[{"id": "I1", "type": "Rifle Pl", "units": "6-6-6", "cost": 8}]
    ),
    observe=lambda m: availability.chart_missing(m, "us"),
)
case(
    "RGChart.date_max_name",
    base="sicily",
    mutate=lambda d: chart(d, "axis").update(date_max_name="Scen Max"),
    observe=reasons("axis", "I4", "jul14pm", holdings=held(Bought("I4", 1))),
)
case(
    "RGChart.setup_on_map_free_footnote",
    base="sicily",
    mutate=lambda d: chart(d, "axis").update(setup_on_map_free_footnote="e"),
    observe=lambda m: price_obliges(m, "axis", m.group("axis", "G5"), ""),
)
case(
    "RGChart.cg_max_name",
    base="sicily",
    mutate=lambda d: chart(d, "axis").update(cg_max_name="TM Max"),
    observe=reasons("axis", "F1", "jul14pm", holdings=held(Bought("F1", 0))),
)
case(
    "RGChart.note",
    base="sicily",
    mutate=lambda d: chart(d, "axis").update(note="changed"),
    observe=everything,
)
case(
    "ReinforcementGroup.id",
    base="skirmish",
    mutate=lambda d: grp(d, "blue", "I1").update(id="I2"),
    observe=lambda m: _check_purchase(m, "blue", "I1", "d1am"),
)
case(
    "ReinforcementGroup.type",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "I4").update(type="Signal Coy"),
    observe=lambda m: _check_purchase(m, "axis", "I4", "jul14pm", points=1),
)
case(
    "ReinforcementGroup.full",
    base="sicily",
    mutate=lambda d: grp(d, "british", "V3").update(full=2),
    observe=rolls_for("sw_depleted", "british", "V3", strength="full"),
    prepare=lambda d: _pp(d, "sw_depleted", 1)["applies_to"].pop("strength"),
)
case(
    "ReinforcementGroup.depleted",
    base="sicily",
    mutate=lambda d: grp(d, "british", "V5").update(depleted=1),
    observe=rolls_for("sw_depleted", "british", "V5", strength="depleted"),
    prepare=lambda d: _pp(d, "sw_depleted", 1)["applies_to"].update(groups=["V5"]),
)
case(
    "ReinforcementGroup.costs",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "M2")["costs"].update(recon_plus5=3),
    observe=costs("axis", "M2"),
)
case(
    "ReinforcementGroup.date_max",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "I4").update(date_max=2),
    observe=reasons("axis", "I4", "jul14pm", holdings=held(Bought("I4", 1))),
)
case(
    "ReinforcementGroup.cg_max",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "F1")["cg_max"].update(i=2),
    observe=reasons("axis", "F1", "jul14pm", holdings=held(Bought("F1", 0))),
)
case(
    "ReinforcementGroup.tags",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "I7").update(tags=["italian"]),
    observe=reasons("axis", "I7", "jul14n", holdings=held(Bought("I1", 2), Bought("I3", 2))),
)
case(
    "ReinforcementGroup.footnotes",
    base="phd",
    prepare=lambda d: chart(d, "us").update(
        missing=False,
        groups=[{"id": "I1", "type": "Rifle Pl", "units": "6-6-6", "cost": 8, "footnotes": ["l"]}],
        footnotes={"l": "leader", "x": "x"},
    ),
    mutate=lambda d: grp(d, "us", "I1").update(footnotes=["x"]),
    observe=to_make("us", "I1"),
)
case(
    "ReinforcementGroup.sw",
    base="sicily",
    prepare=_sw_depleted,
    mutate=lambda d: grp(d, "british", "I3").update(sw={"LMG": 1}),
    observe=rolls_for("sw_depleted", "british", "I3", strength="depleted"),
)
case(
    "ReinforcementGroup.setup_on_map_free",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "I2").update(setup_on_map_free=False),
    observe=costs("axis", "I2"),
)
case(
    "ReinforcementGroup.note",
    base="sicily",
    mutate=lambda d: grp(d, "axis", "I4").update(note="changed"),
    observe=everything,
)
case(
    "RGChart.restrictions",
    "DateWindow.not_before",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "date_window", 0).update(not_before="jul14pm"),
    observe=reasons("axis", "I1", "jul14pm"),
)
case(
    "DateWindow.kind",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "date_window", 0).update(kind="count_limit"),
    observe=reasons("axis", "I1", "jul14pm"),
)
case(
    "DateWindow.applies_to",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "date_window", 0)["applies_to"].update(groups=["I2"]),
    observe=reasons("axis", "I1", "jul14pm"),
)
case(
    "DateWindow.not_after",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "date_window", 1).update(not_after="jul14n"),
    observe=reasons("axis", "I5", "jul14n"),
)
case(
    "DateWindow.rule",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "date_window", 0).update(rule="k"),
    observe=reasons("axis", "I1", "jul14pm"),
)
case(
    "DateWindow.note",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "date_window", 0).update(note="changed"),
    observe=everything,
)
case(
    "CountLimit.kind",
    base="sicily",
    mutate=lambda d: [
        restriction(d, "british", "count_limit", 2).update(kind="date_window"),
        restriction(d, "british", "date_window", 2).pop("per"),
        restriction(d, "british", "date_window", 2).pop("max"),
    ],
    observe=reasons("british", "O4", "jul15am", holdings=held(Bought("O4", 2))),
)
case(
    "CountLimit.applies_to",
    base="sicily",
    mutate=lambda d: restriction(d, "british", "count_limit", 2)["applies_to"].update(
        groups=["O3"]
    ),
    observe=reasons("british", "O4", "jul15am", holdings=held(Bought("O4", 2))),
)
case(
    "CountLimit.per",
    base="sicily",
    mutate=lambda d: restriction(d, "british", "count_limit", 2).update(per="date"),
    observe=reasons("british", "O4", "jul15am", holdings=held(Bought("O4", 2))),
)
case(
    "CountLimit.max",
    base="sicily",
    mutate=lambda d: restriction(d, "british", "count_limit", 2).update(max=2),
    observe=reasons("british", "O4", "jul15am", holdings=held(Bought("O4", 2))),
)
case(
    "CountLimit.rule",
    base="sicily",
    mutate=lambda d: restriction(d, "british", "count_limit", 2).update(rule="e"),
    observe=reasons("british", "O4", "jul15am", holdings=held(Bought("O4", 2))),
)
case(
    "CountLimit.note",
    base="sicily",
    mutate=lambda d: restriction(d, "british", "count_limit", 2).update(note="changed"),
    observe=everything,
)


def _phd_crew_chart(d: dict) -> None:
    """The German chart supplied with one Replacement Crew RG marked z (PHD)."""
    ch = chart(d, "german")
    ch["missing"] = False
    ch["groups"] = [
        {"id": "R1", "type": "Replacement Crew", "units": "2-2-8", "cost": 2, "footnotes": ["z"]}
    ]


# The German with 1 crew lost in play and one Replacement Crew bought (C5.31 fn z).
_CREWS = held(Bought("R1", 1), result_totals=(("crews_lost", 1),))
for _field, _mutate in {
    "kind": lambda d: [
        restriction(d, "german", "result_cap").update(kind="count_limit", per="held", max=5),
        restriction(d, "german", "count_limit").pop("field"),
    ],
    "applies_to": lambda d: restriction(d, "german", "result_cap")["applies_to"].update(
        footnotes=["u"]
    ),
    "field": lambda d: restriction(d, "german", "result_cap").update(field="san"),
    "rule": lambda d: restriction(d, "german", "result_cap").update(rule="fn z"),
}.items():
    case(
        f"ResultCap.{_field}",
        base="phd",
        prepare=_phd_crew_chart,
        mutate=_mutate,
        observe=reasons("german", "R1", "t1230", holdings=_CREWS),
    )
case(
    "ResultCap.note",
    base="phd",
    prepare=_phd_crew_chart,
    mutate=lambda d: restriction(d, "german", "result_cap").update(note="changed"),
    observe=everything,
)
case(
    "Prerequisite.kind",
    base="sicily",
    mutate=lambda d: [
        restriction(d, "axis", "prerequisite").update(
            kind="requires_retained", retained_tags=["x"]
        ),
        [
            restriction(d, "axis", "requires_retained").pop(k)
            for k in ("requires", "count", "count_by_variant")
        ],
    ],
    observe=reasons("axis", "I3", "jul15am", holdings=held(SICILY_I1, SICILY_I1)),
)
case(
    "Prerequisite.applies_to",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "prerequisite")["applies_to"].update(groups=["I2"]),
    observe=reasons("axis", "I3", "jul15am", holdings=held(SICILY_I1, SICILY_I1)),
)
case(
    "Prerequisite.requires",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "prerequisite")["requires"].update(groups=["I2"]),
    observe=reasons("axis", "I3", "jul15am", holdings=held(SICILY_I1, SICILY_I1, SICILY_I1)),
)
case(
    "Prerequisite.count",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "prerequisite").update(count=2, count_by_variant={}),
    observe=reasons("axis", "I3", "jul15am", holdings=held(SICILY_I1, SICILY_I1)),
)
case(
    "Prerequisite.count_by_variant",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "prerequisite")["count_by_variant"].update(i=2),
    observe=reasons("axis", "I3", "jul15am", holdings=held(SICILY_I1, SICILY_I1)),
)
case(
    "Prerequisite.rule",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "prerequisite").update(rule="n"),
    observe=reasons("axis", "I3", "jul15am", holdings=held(SICILY_I1, SICILY_I1)),
)
case(
    "Prerequisite.note",
    base="sicily",
    mutate=lambda d: restriction(d, "axis", "prerequisite").update(note="changed"),
    observe=everything,
)
RETAINED = {
    "kind": "requires_retained",
    "applies_to": {"groups": ["G1"]},
    "retained_tags": ["coy"],
    "rule": "T3.6 r",
}
case(
    "RequiresRetained.kind",
    base="skirmish",
    prepare=lambda d: chart(d, "red")["restrictions"].append(dict(RETAINED)),
    mutate=lambda d: (
        chart(d, "red")["restrictions"][-1].update(
            kind="date_window", not_before="d2am", retained_tags=None
        )
        or chart(d, "red")["restrictions"][-1].pop("retained_tags")
    ),
    observe=unavailable_for("red", "G1", 1, [], variant="short"),
)
case(
    "RequiresRetained.applies_to",
    base="skirmish",
    prepare=lambda d: chart(d, "red")["restrictions"].append(dict(RETAINED)),
    mutate=lambda d: chart(d, "red")["restrictions"][-1].update(applies_to={"groups": ["M1"]}),
    observe=unavailable_for("red", "G1", 1, [], variant="short"),
)
case(
    "RequiresRetained.retained_tags",
    base="skirmish",
    prepare=lambda d: chart(d, "red")["restrictions"].append(dict(RETAINED)),
    mutate=lambda d: chart(d, "red")["restrictions"][-1].update(retained_tags=["guns"]),
    observe=unavailable_for("red", "G1", 1, [], variant="short", tags=("coy",)),
)
case(
    "RequiresRetained.rule",
    base="skirmish",
    prepare=lambda d: chart(d, "red")["restrictions"].append(dict(RETAINED)),
    mutate=lambda d: chart(d, "red")["restrictions"][-1].update(rule="T3.6 s"),
    observe=unavailable_for("red", "G1", 1, [], variant="short"),
)
case(
    "RequiresRetained.note",
    base="skirmish",
    prepare=lambda d: chart(d, "red")["restrictions"].append(dict(RETAINED)),
    mutate=lambda d: chart(d, "red")["restrictions"][-1].update(note="changed"),
    observe=everything,
)

# Cost variants, post-purchase rolls
case(
    "Module.cost_variants",
    "CostVariant.factor",
    base="sicily",
    mutate=lambda d: cvar(d, "reserve").update(factor="3/4"),
    observe=costs("axis", "I1"),
)
case(
    "CostVariant.id",
    base="sicily",
    mutate=lambda d: rename(d, "reserve", "in_reserve"),
    observe=costs("axis", "I1"),
)
case(
    "CostVariant.label",
    base="sicily",
    mutate=lambda d: cvar(d, "reserve").update(label="Reserve"),
    observe=costs("axis", "I1"),
)
case(
    "CostVariant.rounding",
    base="sicily",
    mutate=lambda d: cvar(d, "reserve").update(rounding="FRU"),
    observe=costs("axis", "I1"),
)
case(
    "CostVariant.applies_to",
    base="sicily",
    mutate=lambda d: cvar(d, "on_map").update(applies_to={"id_prefixes": ["I"], "sides": ["axis"]}),
    observe=costs("british", "I1"),
)
case(
    "CostVariant.implies",
    base="sicily",
    mutate=lambda d: cvar(d, "reserve").update(implies="In Reserve."),
    observe=costs("axis", "I1"),
)
case(
    "CostVariant.implies_by_side",
    base="sicily",
    mutate=lambda d: cvar(d, "on_map").update(implies_by_side={}),
    observe=costs("british", "I1"),
)
case(
    "CostVariant.on_map",
    base="sicily",
    mutate=lambda d: cvar(d, "on_map").update(on_map=False),
    observe=costs("axis", "I2"),
)
case(
    "CostVariant.recon_drm",
    base="sicily",
    mutate=lambda d: cvar(d, "recon_plus5").update(recon_drm=4),
    observe=lambda m: availability.recon_drm(m, "recon_plus5"),
)
case(
    "CostVariant.rule",
    base="sicily",
    mutate=lambda d: cvar(d, "reserve").update(rule="3.6175b"),
    observe=everything,
)
case(
    "CostVariant.note",
    base="sicily",
    mutate=lambda d: cvar(d, "reserve").update(note="changed"),
    observe=everything,
)
case(
    "Module.post_purchase",
    "PostPurchaseRoll.table",
    base="sicily",
    mutate=lambda d: _pp(d, "leader_allotment", 1).update(table="sw_depleted", column=None),
    observe=to_make("axis", "I1"),
)
case(
    "PostPurchaseRoll.applies_to",
    base="sicily",
    mutate=lambda d: _pp(d, "rg_strength")["applies_to"].update(id_prefixes=["I", "V"]),
    observe=to_make("axis", "G1"),
)
case(
    "PostPurchaseRoll.per",
    base="sicily",
    prepare=_sw_depleted,
    mutate=lambda d: (
        _pp(d, "sw_depleted")["applies_to"].update() or _pp(d, "sw_depleted").update(per="unit")
    ),
    observe=rolls_for("sw_depleted", "british", "I3", strength="depleted"),
)
case(
    "PostPurchaseRoll.count",
    base="sicily",
    mutate=lambda d: _pp(d, "leader_allotment", 1).update(count=2),
    observe=rolls_for("leader_allotment", "axis", "I1"),
)
case(
    "PostPurchaseRoll.note",
    base="sicily",
    mutate=lambda d: _pp(d, "rg_strength").update(note="changed"),
    observe=everything,
)

# Initiative (what the engine decides of it; the rest through the services)
case(
    "Module.initiative",
    "Initiative.rule",
    base="skirmish",
    mutate=lambda d: d["initiative"].update(rule="T4.0b"),
    observe=chit("red", used=1),
)
case(
    "Initiative.restrictions",
    "ChitRestriction.side",
    base="skirmish",
    mutate=lambda d: d["initiative"]["restrictions"][0].update(side="blue"),
    observe=chit("red", opponent_no_units=True),
)
case(
    "Initiative.idle_by_default",
    base="phd",
    mutate=lambda d: d["initiative"].pop("idle_by_default"),
    observe=lambda m: availability.chit_by_default(m, next(s for s in m.steps if s.id == "C5.37")),
)
case(
    "ChitRestriction.chit",
    base="skirmish",
    mutate=lambda d: d["initiative"]["restrictions"][0].update(chit="idle"),
    observe=chit("red", opponent_no_units=True),
)
case(
    "ChitRestriction.forbidden_when",
    base="skirmish",
    mutate=lambda d: d["initiative"]["restrictions"][0].update(forbidden_when="always"),
    observe=chit("red", opponent_no_units=True),
)
case(
    "ChitRestriction.rule",
    base="skirmish",
    mutate=lambda d: d["initiative"]["restrictions"][0].update(rule="T4.0**"),
    observe=chit("red", opponent_no_units=True),
)
case(
    "ChitRestriction.text",
    base="skirmish",
    mutate=lambda d: d["initiative"]["restrictions"][0].update(text="No."),
    observe=chit("red", opponent_no_units=True),
)
case(
    "ChitRestriction.from_roster",
    base="skirmish",
    mutate=lambda d: d["initiative"]["restrictions"][0].update(from_roster=True),
    observe=chit("red", opponent_lists_no_unit=True),
)
case(
    "Initiative.note",
    base="sicily",
    mutate=lambda d: d["initiative"].update(note="changed"),
    observe=everything,
)

# What is missing
case(
    "Module.missing",
    "Missing.what",
    base="apd",
    mutate=lambda d: d["missing"][1].update(what="Midday VP"),
    observe=suppliable(),
)
case(
    "Missing.rule",
    base="apd",
    mutate=lambda d: d["missing"][1].update(rule="2.91b"),
    observe=suppliable(),
)
case(
    "Missing.supply",
    base="apd",
    mutate=lambda d: d["missing"][1].update(supply=None),
    observe=suppliable(),
)
case(
    "Missing.note",
    base="apd",
    mutate=lambda d: d["missing"][1].update(note="changed"),
    observe=everything,
)


def _check_purchase(m: Module, side: str, gid: str, date: str, **kw: Any) -> str:
    try:
        availability.check_purchase(m, snap(m, side, date=date, **kw), gid, "")
    except Exception as exc:
        return str(exc)
    return "bought"


case(
    "Condition.in_enemy_setup_area",
    base="sicily",
    mutate=lambda d: drm(d, "escape", "in_enemy_setup_area")["when"].update(
        in_enemy_setup_area=None
    ),
    observe=ticked_drms("escape", [], side="axis", unit_kind="squad"),
)


case(
    "Condition.not_unit_markers",
    base="sicily",
    mutate=lambda d: drm(d, "escape", "lone_smc")["offer_when"].update(not_unit_markers=None),
    observe=ticked_drms(
        "escape", ["lone_smc"], side="axis", unit_kind="leader", unit_markers=frozenset({"wounded"})
    ),
)


# Sicily 3.60742: the withdrawal row of 3.607 and the caps of its EXC.
def _withdrawal(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "3.607")["settles"][1]


def _withdraws(m: Module) -> Any:
    """Whether, and how, the 3.607 withdrawal row acts on an Axis I4 squad after a July
    14 PM scenario whose result says the British units were removed."""
    row = next(st for st in m.steps if st.id == "3.607").settles[1]
    holds = effects.settle_holds(row, "axis", "jul14pm", {"british_withdrawal": {"axis": True}})
    return holds, effects.settled(row, effects.UnitState("4-6-7", "squad", group="I4"))


case(
    "UnitFilter.groups",
    base="sicily",
    mutate=lambda d: _withdrawal(d)["units"].update(groups=["I1"]),
    observe=_withdraws,
)
for _field, _change in {
    "sides": {"sides": ["british"]},
    "after_dates": {"after_dates": ["jul15am"]},
    "result_yes": {"result_yes": "british_control_north"},
}.items():
    case(
        f"Settle.{_field}",
        base="sicily",
        mutate=lambda d, c=_change: _withdrawal(d).update(c),
        observe=_withdraws,
    )


def _withdraws_possessed(m: Module) -> Any:
    """What the 3.607 withdrawal row does to a captured SW its unit possesses (Sicily
    3.60742: "captured support weapons ... in the possession of these units")."""
    row = next(st for st in m.steps if st.id == "3.607").settles[1]
    bren = effects.UnitState("Bren LMG", "sw", ("captured",))
    return row.possessed is not None and effects.matches(row.possessed, bren)


case(
    "Settle.possessed",
    base="sicily",
    mutate=lambda d: _withdrawal(d).update(possessed=None),
    observe=_withdraws_possessed,
)


case(
    "Condition.of_rg",
    base="sicily",
    mutate=lambda d: drm(d, "stun_recovery", "german")["when"].update(of_rg=None),
    observe=ticked_drms("stun_recovery", [], side="axis", unit_kind="vehicle"),
)


case(
    "Drm.counted",
    base="sicily",
    mutate=lambda d: drm(d, "shift", "uncontrolled_hexes").update(counted=None, value=0, per=None),
    observe=ticked_drms("shift", [], {"uncontrolled_hexes": 7}, side="axis"),
)


case(
    "Drm.required",
    base="sicily",
    mutate=lambda d: drm(d, "weapon_repair", "repair_number").update(required=False),
    observe=ticked_drms("weapon_repair", [], side="axis", unit_kind="sw"),
)


def _repaired_afv(m: Module) -> Any:
    """What the Immobilization Repair table's ``after_roll`` does to a Recalled AFV its
    roll made Mobile (Sicily 3.6141c after 3.6141b)."""
    table = m.table("immobilization_repair")
    assert table is not None
    stug = effects.UnitState("StuG IIIG", "vehicle", ("recalled",))
    return [effects.settled(row, stug) for row in table.after_roll]


case(
    "Table.after_roll",
    base="sicily",
    mutate=lambda d: by_id(d["tables"], "immobilization_repair").update(after_roll=[]),
    observe=_repaired_afv,
)


def _on_map_answered_no_area(m: Module) -> str:
    """The British buy I1 On-Map after listing none of their Setup Areas at 3.605
    (Sicily 3.6175)."""
    held = Holdings(setup_areas=())
    try:
        availability.check_purchase(
            m, snap(m, "british", date="jul15am", holdings=held), "I1", "on_map"
        )
    except Exception as exc:
        return str(exc)
    return "bought"


case(
    "CostVariant.needs_setup_area",
    base="sicily",
    mutate=lambda d: cvar(d, "on_map").update(needs_setup_area=[]),
    observe=_on_map_answered_no_area,
)


def _over_caps(m: Module) -> str:
    """Done's refusal for an Axis holding 4 leaders, 8 squads and 3 HS, and 2 SW, all
    withdrawn."""
    held = (
        effects.UnitState("8-1 leader", "leader", ("withdrawn",), count=4),
        effects.UnitState("4-6-7", "squad", ("withdrawn",), count=8),
        effects.UnitState("2-4-7", "half_squad", ("withdrawn",), count=3),
        effects.UnitState("LMG", "sw", ("withdrawn",), count=2),
    )
    return availability.held_cap_refusal(m, at(m, side="axis", holdings=Holdings(capped=held)))


def _cap(n: int, **change: Any) -> Callable[[dict], Any]:
    return lambda d: d["held_caps"][n].update(change)


case(
    "Module.held_caps", base="sicily", mutate=setter(lambda d: d, held_caps=[]), observe=_over_caps
)
case("HeldCap.units", base="sicily", mutate=_cap(0, units={"kinds": ["hero"]}), observe=_over_caps)
case("HeldCap.max", base="sicily", mutate=_cap(0, max=4), observe=_over_caps)
case("HeldCap.count", base="sicily", mutate=_cap(1, count="units"), observe=_over_caps)
case("HeldCap.label", base="sicily", mutate=_cap(0, label="leaders"), observe=_over_caps)
case("HeldCap.rule", base="sicily", mutate=_cap(0, rule="3.60742"), observe=_over_caps)


# --------------------------------------------------------------------------- mutations (services)


def service_record(data: dict) -> None:
    from campaign.models import ModuleRecord
    from campaign.services.modules import checksum

    module = Module.model_validate(data)
    ModuleRecord.objects.update_or_create(
        id=module.id,
        defaults={"title": module.title, "data": as_dict(module), "checksum": checksum(module)},
    )


def values_of(m: Module, **by_field: Any) -> dict[str, Any]:
    return {
        f"{f.id}.{s.id}": by_field.get(f"{f.id}_{s.id}", False if f.kind == "bool" else 0)
        for f in m.result_fields
        for s in m.sides
    }


def _walk(players: Any, **result: Any) -> Any:
    from campaign.selectors import module_of

    players.results(**values_of(module_of(players.campaign), **result))
    return players


def c_outcome(host: Callable[..., Any], **result: Any) -> Any:
    c = _walk(host(), **result).campaign
    return (c.ended_at is not None, c.outcome)


def c_start(host: Callable[..., Any]) -> Any:
    from campaign.models import Purchase, Seat, Unit

    players = host(through_start=False)
    c = players.campaign
    seats = sorted(
        Seat.objects.filter(campaign=c).values_list(
            "side", "points", "fortification_points", "san", "elr"
        )
    )
    rgs = sorted(Purchase.objects.filter(campaign=c, initial=True).values_list("side", "group_id"))
    units = sorted(Unit.objects.filter(campaign=c).values_list("side", "name"))
    return (c.date_index, seats, rgs, units)


def panel(players: Any, side: str) -> Any:
    from campaign.seat_views.campaign_page import campaign_view

    return campaign_view(players.users[side], players.campaign_id)


def wounded_roll(host: Callable[..., Any]) -> Any:
    from campaign.services import steps, units

    players = _walk(host())
    players.until_step("T3.2")
    red = players.users["red"]
    leader = units.add_unit(
        campaign_id=players.campaign_id, user=red, name="8-1", kind="leader", markers=["wounded"]
    )
    try:
        r = steps.roll_on_table(
            campaign_id=players.campaign_id, user=red, table_id="wounded", unit_id=leader.ref
        )
    except Exception as exc:
        return f"refused: {exc}"
    return (r.secret, r.drms)


def purchase_of(host: Callable[..., Any], side: str, gid: str, dice: list | None = None) -> Any:
    """``side`` buys ``gid`` at the first purchase step and makes its rolls: the
    purchase's units before the rolls, then the retained forces it brings and what the
    seat holds."""
    from campaign.models import Purchase, Seat, Unit
    from campaign.services import purchases

    players = _walk(host())
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=100)
    p = purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users[side], group_id=gid
    )
    before = p.units
    _DICE.extend(dice or [])
    purchases.roll_for_purchase(
        campaign_id=players.campaign_id, user=players.users[side], purchase_id=p.ref
    )
    p = Purchase.objects.get(pk=p.pk)
    seat = Seat.objects.get(campaign_id=players.campaign_id, side=side)
    units = sorted(
        Unit.objects.filter(campaign_id=players.campaign_id, side=side).values_list(
            "name", "kind", "count"
        )
    )
    return (before, units, p.details, seat.fortification_points, seat.san)


def initiative(host: Callable[..., Any], red: str, blue: str, dice: list | None = None) -> Any:
    from campaign.models import Event, InitiativeOutcome, Roll

    players = _walk(host())
    players.until("initiative")
    _DICE.extend(dice or [])
    players.chits(red=red, blue=blue)
    o = InitiativeOutcome.objects.get(campaign_id=players.campaign_id)
    rolls = list(
        Roll.objects.filter(campaign_id=players.campaign_id, purpose__startswith="who").values_list(
            "side", "dice", "purpose", "final"
        )
    )
    idle = list(
        Event.objects.filter(campaign_id=players.campaign_id, kind="idle").values_list(
            "text", flat=True
        )
    )
    return (
        o.result,
        o.label,
        o.scenario,
        o.attackers,
        o.sets_up_first,
        o.moves_first,
        o.text,
        rolls,
        idle,
        players.step.id,
    )


def recon_at(
    host: Callable[..., Any], option: int, dice: list | None = None, twice: bool = False
) -> Any:
    from campaign.models import Roll, Seat
    from campaign.services import purchases

    players = _walk(host())
    out = []
    for n in range(2 if twice else 1):
        players.until("recon")
        Seat.objects.filter(campaign_id=players.campaign_id).update(points=20)
        _DICE.extend(dice or [])
        b = purchases.buy_recon(
            campaign_id=players.campaign_id, user=players.users["red"], option=option
        )
        r = Roll.objects.get(seq=b.roll_seq, campaign_id=players.campaign_id)
        out.append((b.locations, r.dice, len(r.faces), r.drms))
        if twice and n == 0:
            players.until("initiative")
            players.chits(red="idle", blue="idle")
    return (out, panel(players, "red").panel.recon_total)


_DICE: list[list[int]] = []


def _points_kept(d: dict) -> None:
    """The fixture CG loses its unspent points after the Day 1 Night purchases (T3.6):
    keep them, for Recon to be bought after."""
    d["currency"]["carry_over"]["lost_after_dates"] = []


def _phd_chart(d: dict) -> None:
    """PHD's German chart supplied with an RG of squads and an OBA module."""
    c = chart(d, "german")
    c["missing"] = False
    c["groups"] = [
        {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": 4},
        {"id": "O1", "type": "105mm OBA Module", "units": "OBA", "cost": 6},
    ]


def _phd_prices(m: Module) -> Any:
    chart_ = m.chart("german")
    assert chart_ is not None
    return [[(o.variant, o.cost) for o in cost_options(m, "german", g)] for g in chart_.groups]


def _phd_us_chart(d: dict) -> None:
    """PHD's US chart supplied with an RG of squads."""
    c = chart(d, "us")
    c["missing"] = False
    c["groups"] = [{"id": "I1", "type": "Rifle Pl", "units": "6-6-6", "cost": 4}]


case(
    "Condition.grants",
    base="phd",
    prepare=_phd_us_chart,
    mutate=lambda d: restriction(d, "us", "date_window", 1)["applies_to"].update(grants=None),
    observe=reasons("us", "I1", "t0600"),
)
case(
    "CostVariant.replaces_printed",
    base="phd",
    prepare=_phd_chart,
    mutate=lambda d: [cv.update(replaces_printed=False) for cv in d["cost_variants"]],
    observe=_phd_prices,
)
case(
    "Condition.with_units",
    base="phd",
    prepare=_phd_chart,
    mutate=lambda d: cvar(d, "reinforcement")["applies_to"].update(with_units=None),
    observe=_phd_prices,
)


def _phd_chart_p(d: dict) -> None:
    """PHD's German chart with an OBA module marked with RG footnote p."""
    _phd_chart(d)
    chart(d, "german")["groups"][1]["footnotes"] = ["p"]


case(
    "CostVariant.adds",
    base="phd",
    prepare=_phd_chart_p,
    mutate=lambda d: cvar(d, "prereg1").update(adds=3),
    observe=_phd_prices,
)


def _phd_add_later(m: Module) -> Any:
    """PHD RG footnote p's further Pre-Registered hex: what is offered, and why not, for
    lines of O1 (marked p) and I1 bought at the start, seen at the 0930 purchase step
    (bought with one hex, with none and one added since, at this step, no longer held),
    and the budget a side with 1 TP lacks for each."""
    chart_ = m.chart("german")
    assert chart_ is not None
    i1, o1 = chart_.groups
    lines = [
        Addition(o1, "prereg1", 0, True, 0),
        Addition(o1, "", 0, True, 1),
        Addition(o1, "", 1, True, 0),
        Addition(o1, "prereg2", 0, False, 0),
        Addition(i1, "", 0, True, 0),
    ]
    return (
        [add_later_offers(m, "german", line, 1) for line in lines],
        [[add_later_reasons(m, "german", a, line, 1) for a in m.add_later] for line in lines],
        [availability.budget_reason(m, 1, a.cost) for a in m.add_later],
    )


# Module.add_later and each field of its item (PHD RG footnote p), one mutation each.
for _field, _mutate in [
    ("Module.add_later", lambda d: d.update(add_later=[])),
    ("AddLater.id", lambda d: d["add_later"][0].update(id="hex")),
    ("AddLater.label", lambda d: d["add_later"][0].update(label="A hex")),
    ("AddLater.cost", lambda d: d["add_later"][0].update(cost=1)),
    ("AddLater.applies_to", lambda d: d["add_later"][0].update(applies_to={"footnotes": ["l"]})),
    ("AddLater.limit", lambda d: d["add_later"][0].update(limit=1)),
    ("AddLater.with_variants", lambda d: d["add_later"][0].update(with_variants={})),
    ("AddLater.affirms", lambda d: d["add_later"][0].update(affirms="Unused")),
    ("AddLater.rule", lambda d: d["add_later"][0].update(rule="C5.31")),
]:
    case(_field, base="phd", prepare=_phd_chart_p, mutate=_mutate, observe=_phd_add_later)


def _phd_oba_per_group(m: Module) -> Any:
    """PHD C5.34's one DR per OBA module held: which groups of the chart count, and
    the refusal after 0 or 1 rolls with 0 or 1 module held."""
    chart_ = m.chart("german")
    assert chart_ is not None
    table = m.table("oba")
    cap = table.per_group
    counted = [
        cap is not None and holds(cap.applies_to, group_context(m, "german", g))
        for g in chart_.groups
    ]
    refusals = [availability.per_group_refusal(table, r, h) for r in (0, 1) for h in (0, 1)]
    return counted, refusals


def _phd_chart_oba(d: dict) -> None:
    _phd_chart(d)
    chart(d, "german")["groups"][1]["tags"] = ["oba"]


# Table.per_group and each field of it (PHD C5.34), one mutation each.
for _field, _mutate in [
    ("Table.per_group", lambda d: tab(d, "oba").update(per_group=None)),
    (
        "PerGroup.applies_to",
        lambda d: tab(d, "oba")["per_group"].update(applies_to={"tags": ["mortar"]}),
    ),
    ("PerGroup.label", lambda d: tab(d, "oba")["per_group"].update(label="module")),
    ("PerGroup.rule", lambda d: tab(d, "oba")["per_group"].update(rule="TM13")),
]:
    case(_field, base="phd", prepare=_phd_chart_oba, mutate=_mutate, observe=_phd_oba_per_group)


def _sicily_bombardment(m: Module) -> Any:
    """Sicily British chart footnote i's Bombardment error DR: a colored 4 and white 5
    read apart, whether it waits for the Axis at 3.622, whether it eliminates its B1,
    and the refusal of a second roll where one new CG Date allows one."""
    table = m.table("bombardment")
    reading = rules.dice.read_apart(table.apart, [4, 5]) if table.apart else None
    wait = availability.others_first_reason(m, m.steps[0], table, "british", set())
    spent = availability.eliminated_by_roll(table)
    return reading, wait, spent, availability.uses_refusal(m, table, "british", 1, 1)


# Table.apart, DiceApart, Table.others_done_first, PerGroup.then_eliminated (Sicily
# British chart footnote i), one mutation each.
for _field, _mutate in [
    ("Table.apart", lambda d: tab(d, "bombardment").update(apart=None)),
    (
        "DiceApart.text",
        lambda d: tab(d, "bombardment")["apart"].update(text="{white} hexes, direction {colored}"),
    ),
    ("DiceApart.white_halved", lambda d: tab(d, "bombardment")["apart"].update(white_halved=False)),
    ("DiceApart.rule", lambda d: tab(d, "bombardment")["apart"].update(rule="C1.31")),
    ("Table.others_done_first", lambda d: tab(d, "bombardment").update(others_done_first=None)),
    (
        "PerGroup.then_eliminated",
        lambda d: tab(d, "bombardment")["per_group"].update(then_eliminated=None),
    ),
]:
    case(_field, base="sicily", mutate=_mutate, observe=_sicily_bombardment)


def _sicily_setup_order(m: Module) -> Any:
    """Sicily 3.6222: who may finish 3.622 first when the British set up first, and what
    the Axis read meanwhile."""
    step = m.steps[machine.step_index(m, "3.622")]
    return (
        machine.sides_to_act(m, step, set(), "british"),
        availability.attacker_first_reason(m, step, "axis", "british", set()),
    )


# Step.setup_order (Sicily 3.6222): the side setting up first finishes 3.622 first.
case(
    "Step.setup_order",
    base="sicily",
    mutate=lambda d: [
        (st.pop("setup_order", None), st.pop("attacker_first", None)) for st in d["steps"]
    ],
    observe=_sicily_setup_order,
)


def _baz_items(m: Module) -> list[str]:
    """C5.26b's Baz/Psk/FT/DC of each side's nationality: the refusal of each side's
    roll for a Bazooka, a Psk and an LMG."""
    table = m.table("baz_psk_ft_dc_repair")
    return [
        availability.item_name_refusal(m, table, side, item)
        for side in ("german", "us")
        for item in ("Bazooka at 12H3", "Psk at 12H3", "LMG at 12H3")
    ]


case(
    "Table.item_names",
    base="phd",
    mutate=lambda d: tab(d, "baz_psk_ft_dc_repair").update(item_names={"us": ["Baz"]}),
    observe=_baz_items,
)
case(
    "Table.item_names_rule",
    base="phd",
    mutate=lambda d: tab(d, "baz_psk_ft_dc_repair").update(item_names_rule="C5.26"),
    observe=_baz_items,
)


def _phd_chart_onmap(d: dict) -> None:
    """PHD's German chart whose RG of squads costs 6 TP On-Map."""
    _phd_chart(d)
    chart(d, "german")["groups"][0]["costs"] = {"onmap": 6}


def _phd_initial_prices(m: Module) -> Any:
    """The German RGs' prices for the Initial Scenario (PHD I2)."""
    chart_ = m.chart("german")
    assert chart_ is not None
    return [
        [(o.variant, o.cost) for o in cost_options(m, "german", g, initial=True)]
        for g in chart_.groups
    ]


case(
    "CostVariant.printed_when",
    base="phd",
    prepare=_phd_chart_onmap,
    mutate=lambda d: cvar(d, "onmap").update(printed_when=None),
    observe=_phd_initial_prices,
)


def _hip_with_reserve(m: Module) -> Any:
    """The HIP cap with 12 squads, 10 of an RG bought In Reserve on this date."""
    hip = next(i for i in m.fortifications.items if i.id == "hip")
    held = Holdings(squads=12, bought_as=(("reserve", 0, 10, 0),))
    return availability.hip_cap(m, hip, at(m, side="german", holdings=held))


case(
    "HipCap.not_cost_variants",
    base="phd",
    mutate=lambda d: fort(d, "hip")["hip"].update(not_cost_variants=[]),
    observe=_hip_with_reserve,
)


def _replaced(m: Module) -> Any:
    """C5.19 row 2 for a wounded 9-1 and a wounded 6+1."""
    row = effects.row_effects(m.table("leader_evacuation").lookup(2))
    ladder = m.leader_ladder.ratings if m.leader_ladder else ()
    return [
        effects.on_unit(row, effects.UnitState(name, "leader", ("wounded",)), ladder)
        for name in ("9-1 leader", "6+1 leader")
    ]


case(
    "Module.leader_ladder",
    base="phd",
    mutate=lambda d: d.update(leader_ladder=None),
    observe=_replaced,
)
case(
    "LeaderLadder.ratings",
    base="phd",
    mutate=lambda d: d["leader_ladder"]["ratings"].remove("8-1"),
    observe=_replaced,
)


def _instead(**counts: Any) -> Callable[[Module], Any]:
    def observe(m: Module) -> Any:
        table = m.table("leader_promotion")
        return (
            availability.instead_refusal(table, rolled=False, taken=False, **counts),
            availability.instead_words(table),
            availability.instead_units(table),
        )

    return observe


def _promotion(d: dict) -> dict:
    return tab(d, "leader_promotion")["instead"]


case(
    "Table.instead",
    base="phd",
    mutate=lambda d: tab(d, "leader_promotion").update(instead=None),
    observe=lambda m: availability.instead_refusal(
        m.table("leader_promotion"), leaders=0, squads=4, half_squads=0, rolled=False, taken=False
    ),
)
case(
    "InsteadOfRoll.label",
    base="phd",
    mutate=lambda d: _promotion(d).update(label="Make a leader"),
    observe=_instead(leaders=0, squads=4, half_squads=0),
)
case(
    "InsteadOfRoll.unit",
    base="phd",
    mutate=lambda d: _promotion(d).update(unit="6+1 leader"),
    observe=_instead(leaders=0, squads=4, half_squads=0),
)
case(
    "InsteadOfRoll.kind",
    base="phd",
    mutate=lambda d: _promotion(d).update(kind="other"),
    observe=_instead(leaders=0, squads=4, half_squads=0),
)
case(
    "InsteadOfRoll.squads_per_leader",
    base="phd",
    mutate=lambda d: _promotion(d).update(squads_per_leader=2),
    observe=_instead(leaders=1, squads=3, half_squads=1),
)
case(
    "InsteadOfRoll.from_mmc",
    base="phd",
    mutate=lambda d: _promotion(d).update(from_mmc=False),
    observe=_instead(leaders=0, squads=0, half_squads=0),
)
case(
    "InsteadOfRoll.rule",
    base="phd",
    mutate=lambda d: _promotion(d).update(rule="C5.24b"),
    observe=_instead(leaders=2, squads=4, half_squads=0),
)


def _c_chart(d: dict) -> None:
    """PHD's German chart supplied with an MG and a Gun RG marked c."""
    c = chart(d, "german")
    c["missing"] = False
    c["groups"] = [
        {"id": "W1", "type": "MG", "units": "MMG", "unit_kind": "sw", "full": 2, "cost": 3},
        {"id": "G1", "type": "Pak", "units": "PaK 40", "unit_kind": "gun", "full": 2, "cost": 3},
    ]
    for g in c["groups"]:
        g["footnotes"] = ["c"]


def _accompanying(m: Module) -> Any:
    from rules.purchase import comes_with

    chart_ = m.chart("german")
    assert chart_ is not None
    return [comes_with(m, "german", g, 2) for g in chart_.groups]


def _leaving(m: Module, g: Any, state: str) -> Any:
    from rules.purchase import leaving_with

    return leaving_with(m, "german", g, state)


def _c_rule(**values: Any) -> Callable[[dict], None]:
    return lambda d: chart(d, "german")["comes_with"][0].update(values)


case(
    "RGChart.comes_with",
    base="phd",
    prepare=_c_chart,
    mutate=lambda d: chart(d, "german").update(comes_with=[]),
    observe=_accompanying,
)
case(
    "ChartComesWith.applies_to",
    base="phd",
    prepare=_c_chart,
    mutate=_c_rule(applies_to={"footnotes": ["e"]}),
    observe=_accompanying,
)
case(
    "ChartComesWith.unit",
    base="phd",
    prepare=_c_chart,
    mutate=_c_rule(unit="2-4-8 HS"),
    observe=_accompanying,
)
case(
    "ChartComesWith.kind",
    base="phd",
    prepare=_c_chart,
    mutate=_c_rule(kind="squad"),
    observe=_accompanying,
)
case(
    "ChartComesWith.per",
    base="phd",
    prepare=_c_chart,
    mutate=_c_rule(per="group"),
    observe=_accompanying,
)
case(
    "ChartComesWith.leaves_when",
    base="phd",
    prepare=_c_chart,
    mutate=_c_rule(leaves_when=["withdrawn"]),
    observe=lambda m: [
        [(c.unit, c.kind) for c in _leaving(m, g, "withdrawn")] for g in m.chart("german").groups
    ],
)
case(
    "ChartComesWith.count",
    base="phd",
    prepare=_c_chart,
    mutate=_c_rule(count=2),
    observe=_accompanying,
)
case(
    "Condition.group_kinds",
    base="phd",
    prepare=_c_chart,
    mutate=lambda d: chart(d, "german")["comes_with"][1]["applies_to"].update(group_kinds=None),
    observe=_accompanying,
)


SERVICE: dict[str, Case] = {}


def service(*fields: str, **kw: Any) -> None:
    c = Case(**kw)
    for f in fields:
        assert f not in SERVICE and f not in ENGINE, f
        SERVICE[f] = c


def _skirmish_ends_at_once(d: dict) -> None:
    d["variants"][0]["last_date"] = "d1am"


def tp_drms_after_a_lull(host: Callable[..., Any]) -> Any:
    """The US C5.29 TP DRMs after a Lull that followed a scenario with 25 US CVP lost."""
    from campaign.models import Roll

    players = _walk(host(side="us"), cvp_lost_us=25)
    players.until("initiative")
    players.chits(us="idle", german="idle")
    players.until("initiative")
    rolls = Roll.objects.filter(
        campaign_id=players.campaign_id, side="us", table_id="tp_replenishment"
    )
    return [r.drms for r in rolls]


def apd_sheet_in_effect(host: Callable[..., Any]) -> Any:
    """What the American's sheet keeps in effect after a scenario with No Quarter."""
    from campaign.seat_views.sheet import scenario_sheet

    players = _walk(host(side="american"), no_quarter_american=True)
    return scenario_sheet(players.campaign, "american").in_effect


def sicily_bombardments_on_the_sheet(host: Callable[..., Any]) -> Any:
    """What the British sheet says of the Bombardments its scenario may use (British
    chart footnote i)."""
    from campaign.seat_views.sheet import scenario_sheet

    players = host(side="british")
    return scenario_sheet(players.campaign, "british").in_effect


def _b1(d: dict) -> dict:
    chart = next(ch for ch in d["rg_charts"] if ch["side"] == "british")
    return next(g for g in chart["groups"] if g["id"] == "B1")


def apd_exchange(host: Callable[..., Any]) -> Any:
    """APD 3.2 played through: the American gives up a Hero for his squad and leaves
    the other at Done; the German, with a wounded Hero and no MMC, finishes."""
    from campaign.models import Event, Unit
    from campaign.services import steps, units
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="american"))
    players.until_step("3.2")

    lines = [
        ("american", "1-4-9 Hero", "hero", "wounded", 2),
        ("american", "7-4-7", "squad", "ok", 1),
        ("american", "M4A3", "vehicle", "ok", 1),
        ("german", "1-4-9 Hero", "hero", "wounded", 1),
    ]
    hero, squad, *_ = [
        units.add_unit(
            campaign_id=players.campaign_id,
            user=players.users[side],
            name=name,
            kind=kind,
            markers=[status],
            number=n,
        )
        for side, name, kind, status, n in lines
    ]
    said = ""
    try:
        units.exchange_unit(
            campaign_id=players.campaign_id,
            user=players.users["american"],
            give_id=hero.ref,
            mark_id=squad.ref,
        )
    except ActionRefused as exc:
        said = exc.message
    for side in ("american", "german"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])
    c = players.campaign
    held = sorted(Unit.objects.filter(campaign=c).values_list("side", "name", "markers", "count"))
    log = list(Event.objects.filter(campaign=c, kind="unit").values_list("text", flat=True))
    return (said, held, log[4:])


def phd_settled(host: Callable[..., Any]) -> Any:
    """PHD C5.1 and C5.26 completed: what is left of a recalled squad and a captured,
    malfunctioned MMG and Panzer, and the log's lines of them."""
    from campaign.models import Event, Unit
    from tests.purchase_helpers import add_unit, add_vehicle

    players = host(side="us")
    add_unit(players, "us", "7-4-7", "squad", "recalled")
    add_unit(players, "us", "MG 42", "sw", "captured", markers=["malfunctioned"])
    add_vehicle(players, "us", "PzKpfw IVH", ("ma", ["malfunctioned"]), status="captured")
    _walk(players).until_step("C5.27")
    c = players.campaign
    held = sorted(
        (u.name, u.markers, [w["markers"] for w in u.weapons])
        for u in Unit.objects.filter(campaign=c)
    )
    log = list(Event.objects.filter(campaign=c, kind="unit").values_list("text", flat=True))
    return held, log[4:]


def _phd_settle(change: dict[str, Any]) -> Callable[[dict], Any]:
    """``change`` made to PHD C5.1's settling row."""
    return lambda d: next(st for st in d["steps"] if st["id"] == "C5.1")["settles"][0].update(
        change
    )


service(
    "Step.settles",
    base="phd",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "C5.1").update(settles=[]),
    observe=phd_settled,
)


def phd_attacker(host: Callable[..., Any]) -> Any:
    """What the US page says of the Attacker at PHD C5.3, after the Initial TM Scenario."""
    from django.test import Client

    players = _walk(host(side="us"))
    players.until_step("C5.3")
    client = Client()
    client.force_login(players.users["us"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    return [line for line in page.splitlines() if "Attacker (" in line]


service(
    "Step.names_attacker",
    base="phd",
    mutate=lambda d: [
        (st.pop("names_attacker", None), st.pop("attacker_first", None)) for st in d["steps"]
    ],
    observe=phd_attacker,
)


def phd_defender_rolls(host: Callable[..., Any]) -> Any:
    """Whether the German (the Defender after the Initial TM Scenario) may roll at PHD
    C5.14 before the US Attacker is done."""
    from campaign.services import steps
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="us"))
    players.until_step("C5.14")
    try:
        steps.roll_on_table(
            campaign_id=players.campaign_id,
            user=players.users["german"],
            table_id="redeployment",
            item="4-6-8",
        )
    except ActionRefused as refused:
        return str(refused)
    return "rolled"


service(
    "Step.attacker_first",
    base="phd",
    mutate=lambda d: [st.pop("attacker_first", None) for st in d["steps"]],
    observe=phd_defender_rolls,
)
for _field, _change in {
    "units": {"units": {"statuses": ["captured"]}},
    "effects": {"effects": [{"do": "status", "status": "ok"}]},
    "rule": {"rule": "C5.1 recalled"},
}.items():
    service(f"Settle.{_field}", base="phd", mutate=_phd_settle(_change), observe=phd_settled)


def phd_emptied(host: Callable[..., Any]) -> Any:
    """PHD TM11: the US removes the last line of an RG it holds; the RG's state and the
    log's line of it."""
    from django.utils import timezone

    from campaign.models import Event, EventKind, Purchase, Unit
    from campaign.services import units

    players = _walk(host(side="us"))
    c = players.campaign
    rg = Purchase.objects.create(
        **{"campaign": c, "side": "us", "cycle": c.cycle, "date_index": 0, "cost": 3},
        **{"group_id": "I9", "group_type": "Rifle Pl", "ordinal": 1, "date_ordinal": 1},
        revealed_at=timezone.now(),
    )
    line = Unit.objects.create(campaign=c, side="us", name="6-6-6 (I9)", kind="squad", purchase=rg)
    units.remove_unit(campaign_id=c.pk, user=players.users["us"], unit_id=line.ref)
    rg.refresh_from_db()
    log = Event.objects.filter(campaign=c, kind=EventKind.RG_STATE).values_list("text", flat=True)
    return rg.state, list(log)


service(
    "Module.emptied_groups",
    base="phd",
    mutate=lambda d: d.pop("emptied_groups"),
    observe=phd_emptied,
)
service(
    "EmptiedGroups.rule",
    base="phd",
    mutate=lambda d: d["emptied_groups"].update(rule="TM11 RG"),
    observe=phd_emptied,
)


def _apd_exchange(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "3.2")["exchange"]


for _field, _change in {
    "gives": {"gives": {"kinds": ["vehicle"]}},
    "marks": {"marks": {"kinds": ["vehicle"]}},
    "status": {"status": "isolated"},
    "kept_status": {"kept_status": "wounded"},
    "rule": {"rule": "3.2 EXC"},
}.items():
    service(
        f"UnitExchange.{_field}",
        base="apd",
        mutate=lambda d, change=_change: _apd_exchange(d).update(change),
        observe=apd_exchange,
    )


def phd_recombine(host: Callable[..., Any]) -> Any:
    """PHD C5.21 played through: the US recombines two 6-6-7 HS (a squad's line marked
    reduced, twice), tries a third whose HS possesses a MMG, and finishes."""
    from campaign.models import Unit
    from campaign.services import steps, units
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="us"))
    players.until_step("C5.21")
    us = players.users["us"]

    def add(name: str, kind: str, markers: list[str], possessor: str | None = None) -> Any:
        return units.add_unit(
            campaign_id=players.campaign_id,
            user=us,
            name=name,
            kind=kind,
            markers=markers,
            possessor=possessor or "",
        )

    a, b, c = (add("6-6-7", "squad", ["reduced"]) for _ in range(3))
    add("MMG", "sw", [], possessor=c.ref)
    said = []
    for give, mark in ((a, c), (a, b)):
        try:
            units.exchange_unit(
                campaign_id=players.campaign_id, user=us, give_id=give.ref, mark_id=mark.ref
            )
            said.append("done")
        except ActionRefused as refused:
            said.append(str(refused))
    steps.finish_step(campaign_id=players.campaign_id, user=us)
    lines = sorted(
        (u.name, u.kind, tuple(u.markers))
        for u in Unit.objects.filter(campaign_id=players.campaign_id, side="us")
    )
    return said, lines


def phd_recombine_halves(host: Callable[..., Any]) -> Any:
    """PHD C5.21 played through: the US recombines two lines of 3-3-7 half-squads into
    the 6-6-7 squad it names, and finishes."""
    from campaign.models import Unit
    from campaign.services import steps, units
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="us"))
    players.until_step("C5.21")
    us = players.users["us"]
    a, b = (
        units.add_unit(campaign_id=players.campaign_id, user=us, name="3-3-7", kind="half_squad")
        for _ in range(2)
    )
    try:
        units.exchange_unit(
            campaign_id=players.campaign_id, user=us, give_id=a.ref, mark_id=b.ref, forms="6-6-7"
        )
        said = "done"
    except ActionRefused as refused:
        said = str(refused)
    steps.finish_step(campaign_id=players.campaign_id, user=us)
    lines = sorted(
        (u.name, u.kind, tuple(u.markers))
        for u in Unit.objects.filter(campaign_id=players.campaign_id, side="us")
    )
    return said, lines


def phd_promotion_located(host: Callable[..., Any]) -> Any:
    """PHD C5.24a played through: the US creates its 7-0 leader from the squad in d5,
    where its 8-1 is ("provided there is no leader in that location")."""
    from campaign.services import steps, units
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="us"))
    players.until_step("C5.24")
    us = players.users["us"]
    units.add_unit(campaign_id=players.campaign_id, user=us, name="6-6-7", kind="squad", number=4)
    for name, kind in (("8-1 leader", "leader"), ("6-6-7", "squad")):
        squad = units.add_unit(
            campaign_id=players.campaign_id, user=us, name=name, kind=kind, location="d5"
        )
    try:
        made = steps.take_instead_of_roll(
            campaign_id=players.campaign_id,
            user=us,
            table_id="leader_promotion",
            mmc_id=squad.ref,
        )
        return made.name, made.location
    except ActionRefused as refused:
        return str(refused)


def phd_second_redeployment(host: Callable[..., Any]) -> Any:
    """PHD C5.13a played through: the US rolls twice for one 6-6-7 at C5.14; what the
    second is refused with."""
    from campaign.services import steps, units
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="us"))
    players.until_step("C5.14")
    us = players.users["us"]
    squad = units.add_unit(campaign_id=players.campaign_id, user=us, name="6-6-7", kind="squad")
    said = []
    for _ in range(2):
        try:
            steps.roll_on_table(
                campaign_id=players.campaign_id,
                user=us,
                table_id="redeployment",
                unit_id=squad.ref,
            )
            said.append("rolled")
        except ActionRefused as refused:
            said.append(str(refused))
    return said


def _phd_recombination(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "C5.21")["exchange"]


for _field, _change in {
    "recombine": {"recombine": False},
    "not_possessing": {"not_possessing": None},
}.items():
    service(
        f"UnitExchange.{_field}",
        base="phd",
        mutate=lambda d, change=_change: _phd_recombination(d).update(change),
        observe=phd_recombine,
    )


def phd_hero_twice(host: Callable[..., Any]) -> Any:
    """PHD C5.22 played through: two US Heroes combined, one after the other, with the
    one 6-6-7 (C5.23: no unit Battle Hardens more than once during the ConPh)."""
    from campaign.services import units
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="us"))
    players.until_step("C5.22")
    us = players.users["us"]

    def add(name: str, kind: str) -> Any:
        return units.add_unit(campaign_id=players.campaign_id, user=us, name=name, kind=kind)

    heroes = [add("1-4-9 Hero", "hero") for _ in range(2)]
    squad = add("6-6-7", "squad")
    said = []
    for hero in heroes:
        try:
            units.exchange_unit(
                campaign_id=players.campaign_id, user=us, give_id=hero.ref, mark_id=squad.ref
            )
            said.append("done")
        except ActionRefused as refused:
            said.append(str(refused))
    return said


service(
    "UnitExchange.once_per_pass",
    base="phd",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "C5.22")["exchange"].update(
        once_per_pass=None
    ),
    observe=phd_hero_twice,
)
service(
    "Table.once_rule",
    base="phd",
    mutate=lambda d: tab(d, "redeployment").update(once_rule=None),
    observe=phd_second_redeployment,
)
service(
    "InsteadOfRoll.no_leader_in_location",
    base="phd",
    mutate=lambda d: tab(d, "leader_promotion")["instead"].update(no_leader_in_location=False),
    observe=phd_promotion_located,
)
service(
    "UnitExchange.half_squads",
    base="phd",
    mutate=lambda d: _phd_recombination(d).update(half_squads=None),
    observe=phd_recombine_halves,
)
service(
    "ResultField.lasts_cg",
    base="apd",
    mutate=lambda d: next(f for f in d["result_fields"] if f["id"] == "no_quarter").update(
        lasts_cg=False
    ),
    observe=apd_sheet_in_effect,
)
service(
    "Start.balance",
    base="apd",
    mutate=lambda d: d["variants"][0]["start"].update(balance=["German: one more 4-6-7"]),
    observe=apd_sheet_in_effect,
)


def sicily_roster_lists_no_unit(host: Callable[..., Any]) -> Any:
    """Whether the British retained forces, one 4-5-8 squad, list no on-map unit the
    Axis may see (3.6212*, ``ChitRestriction.not_counted``)."""
    from campaign.selectors import lists_no_unit, module_of
    from tests.purchase_helpers import add_unit

    players = host(side="british")
    add_unit(players, "british", "4-5-8", "squad")
    c = players.campaign
    return lists_no_unit(module_of(c), c, "british", seen_by="axis")


service(
    "ChitRestriction.not_counted",
    base="sicily",
    mutate=lambda d: d["initiative"]["restrictions"][0].update(not_counted={"kinds": ["squad"]}),
    observe=sicily_roster_lists_no_unit,
)
service(
    "ReinforcementGroup.uses_per_scenario",
    base="sicily",
    mutate=lambda d: _b1(d).update(uses_per_scenario=None),
    observe=sicily_bombardments_on_the_sheet,
)
service(
    "UsesPerScenario.count",
    base="sicily",
    mutate=lambda d: _b1(d)["uses_per_scenario"].update(count="dates"),
    observe=sicily_bombardments_on_the_sheet,
)
service(
    "UsesPerScenario.rule",
    base="sicily",
    mutate=lambda d: _b1(d)["uses_per_scenario"].update(rule="3.617 fn i"),
    observe=sicily_bombardments_on_the_sheet,
)
service(
    "InitiativeResult.counts_as_scenario",
    base="phd",
    mutate=lambda d: next(r for r in d["initiative"]["results"] if r["id"] == "lull").update(
        counts_as_scenario=False
    ),
    observe=tp_drms_after_a_lull,
)
service(
    "Module.victory",
    base="skirmish",
    prepare=_skirmish_ends_at_once,
    mutate=setter(lambda d: d, victory="Blue wins if it holds the ford."),
    observe=c_outcome,
)
service(
    "Module.default_winner",
    base="skirmish",
    prepare=_skirmish_ends_at_once,
    mutate=setter(lambda d: d, default_winner="blue"),
    observe=c_outcome,
)
service(
    "Variant.start_date",
    base="skirmish",
    mutate=lambda d: d["variants"][0].update(start_date="d1n"),
    observe=c_start,
)
service(
    "Variant.last_date",
    base="skirmish",
    mutate=lambda d: d["variants"][0].update(last_date="d1am"),
    observe=c_outcome,
)
service(
    "Start.points",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"]["points"].update(red=12),
    observe=c_start,
)
service(
    "Start.fortification_points",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"]["fortification_points"].update(blue=6),
    observe=c_start,
)
service(
    "Start.san",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"]["san"].update(red=4),
    observe=c_start,
)
service(
    "Start.elr",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"]["elr"].update(red=2),
    observe=c_start,
)
service(
    "Start.ob",
    "InitialOB.rgs",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"]["ob"]["red"].update(rgs=["G1"]),
    observe=c_start,
)
service(
    "InitialOB.units",
    base="skirmish",
    mutate=lambda d: d["variants"][0]["start"]["ob"]["red"].update(units=["9-1 leader"]),
    observe=c_start,
)
service(
    "CGDate.night",
    base="skirmish",
    prepare=_night_drm,
    mutate=lambda d: by_id(d["dates"], "d1am").update(night=True),
    observe=wounded_roll,
)
service(
    "Table.secret",
    base="skirmish",
    mutate=lambda d: tab(d, "wounded").update(secret=True),
    observe=wounded_roll,
)
service(
    "Step.tables",
    base="skirmish",
    mutate=lambda d: step(d, "T3.2").update(tables=[]),
    observe=wounded_roll,
)


def _roster_weather(host: Callable[..., Any]) -> Any:
    from tests.purchase_helpers import roster_of

    players = host()
    return [line.weather for line in roster_of(players.campaign, "red").lines]


service(
    "CGDate.weather",
    base="skirmish",
    mutate=lambda d: by_id(d["dates"], "d1am").update(weather="Mist"),
    observe=_roster_weather,
)


def _fortify(host: Callable[..., Any]) -> Any:
    from campaign.models import Seat

    players = _walk(host())
    players.until("fortify")
    view_ = panel(players, "blue")
    shown = (view_.currency_name, view_.panel.fort_footnotes if view_.panel else None)
    players.finish()
    return (
        shown,
        Seat.objects.get(campaign_id=players.campaign_id, side="blue").fortification_points,
    )


def _chart_title(host: Callable[..., Any]) -> Any:
    players = _walk(host())
    players.until("purchase")
    view_ = panel(players, "blue")
    return view_.panel.chart_title if view_.panel else None


service(
    "Currency.name",
    base="skirmish",
    mutate=lambda d: d["currency"].update(name="Command Points"),
    observe=_fortify,
)
service(
    "Fortifications.footnotes",
    base="skirmish",
    mutate=lambda d: d["fortifications"].update(footnotes={"a": "no more than 2 per date"}),
    observe=_fortify,
)
service(
    "RGChart.title",
    base="skirmish",
    mutate=lambda d: d["rg_charts"][1].update(title="Blue RG Chart, revised"),
    observe=_chart_title,
)
service(
    "Fortifications.forfeit_unspent",
    base="skirmish",
    mutate=lambda d: d["fortifications"].update(forfeit_unspent=False),
    observe=_fortify,
)
service(
    "FortificationItem.note",
    base="skirmish",
    mutate=lambda d: fort(d, "foxhole").update(note="Per squad capacity."),
    observe=_fortify,
)
service(
    "Recon.dice",
    base="skirmish",
    prepare=_points_kept,
    mutate=lambda d: d["recon"].update(dice="DR"),
    observe=lambda host: recon_at(host, 0),
)
service(
    "ReconOption.drm",
    base="skirmish",
    prepare=_points_kept,
    mutate=lambda d: d["recon"]["options"][1].update(drm=4),
    observe=lambda host: recon_at(host, 1, [[3]]),
)
service(
    "Recon.cumulative_over_idle",
    base="skirmish",
    prepare=lambda d: [_points_kept(d), d["recon"].update(cumulative_over_idle=True)],
    mutate=lambda d: d["recon"].update(cumulative_over_idle=False),
    observe=lambda host: recon_at(host, 0, [[3]], twice=True),
)


def _summary(host: Callable[..., Any]) -> Any:
    players = _walk(host())
    return panel(players, "red").step.summary


service(
    "Step.summary",
    base="skirmish",
    mutate=lambda d: step(d, "T3.1").update(summary="Rally all."),
    observe=_summary,
)


def _replenished(host: Callable[..., Any]) -> Any:
    from campaign.models import Event

    players = _walk(host())
    players.until("purchase")
    return list(
        Event.objects.filter(campaign_id=players.campaign_id, kind="replenish").values_list(
            "side", flat=True
        )
    )


service(
    "Step.effect",
    base="skirmish",
    mutate=lambda d: step(d, "T3.5").update(effect=None),
    observe=_replenished,
)
service(
    "Flow.idle_loop_from",
    base="skirmish",
    prepare=lambda d: ini_result(d, "idle").update(loops_to=None),
    mutate=lambda d: d["flow"].update(idle_loop_from="T3.5"),
    observe=lambda host: initiative(host, "idle", "idle"),
)


def _chart_panel(host: Callable[..., Any]) -> Any:
    players = _walk(host())
    players.until("purchase")
    shown = panel(players, "red").panel
    return [(r.id, r.strength, r.footnotes) for r in shown.chart], shown.chart_notes


service(
    "ReinforcementGroup.strength_text",
    base="skirmish",
    mutate=lambda d: grp(d, "red", "I1").update(strength_text="9/6*"),
    observe=_chart_panel,
)
service(
    "RGChart.footnotes",
    base="skirmish",
    mutate=lambda d: chart(d, "red")["footnotes"].update(a="One coy per date."),
    observe=_chart_panel,
)


def entry_of(host: Callable[..., Any]) -> Any:
    """The entry area written on a new line of Red's RG Purchase Record (APD 3.8)."""
    from campaign.models import Seat
    from campaign.services import purchases

    players = _walk(host())
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=100)
    p = purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["red"], group_id="I1"
    )
    return p.entry_area


def _entry(d: dict) -> None:
    chart(d, "red")["entry"] = {"area": "along the Red Friendly Board Edge", "rule": "T9"}


service("RGChart.entry", base="skirmish", mutate=_entry, observe=entry_of)
service(
    "ChartEntry.area",
    base="skirmish",
    prepare=_entry,
    mutate=lambda d: chart(d, "red")["entry"].update(area="on board 42, Turn 2"),
    observe=entry_of,
)
service(
    "ChartEntry.rule",
    base="skirmish",
    prepare=_entry,
    mutate=lambda d: chart(d, "red")["entry"].update(rule="T9.1"),
    observe=entry_of,
)


def entry_leaders_of(host: Callable[..., Any]) -> Any:
    """Red's I1 entry line on its entry step, with the 9-1 leader its rolls gave it
    (APD 3.6 "Each Leader must enter with a unit of his Group")."""
    from campaign.models import Purchase
    from campaign.seat_views.panels import entry_words
    from campaign.selectors import module_of

    players = host()
    line = Purchase(
        side="red",
        group_id="I1",
        group_type="Infantry Company",
        entry_area="along the Red Friendly Board Edge (T9)",
        details={"leaders": ["9-1 leader"]},
    )
    return entry_words(module_of(players.campaign), line)


def _entry_leaders(d: dict) -> None:
    _entry(d)
    chart(d, "red")["entry"]["leaders"] = {"says": "enters with a unit of his Group", "rule": "T9"}


service(
    "ChartEntry.leaders",
    base="skirmish",
    prepare=_entry,
    mutate=_entry_leaders,
    observe=entry_leaders_of,
)
service(
    "EntryLeaders.says",
    base="skirmish",
    prepare=_entry_leaders,
    mutate=lambda d: chart(d, "red")["entry"]["leaders"].update(says="enters beside his Group"),
    observe=entry_leaders_of,
)
service(
    "EntryLeaders.rule",
    base="skirmish",
    prepare=_entry_leaders,
    mutate=lambda d: chart(d, "red")["entry"]["leaders"].update(rule="T9.3"),
    observe=entry_leaders_of,
)


def refused_or(observe: Callable[..., Any]) -> Callable[..., Any]:
    """The outcome, or the sentence of the refusal that stopped it."""
    from campaign.services.errors import ActionRefused

    def wrapped(host: Callable[..., Any]) -> Any:
        try:
            return observe(host)
        except ActionRefused as exc:
            return f"refused: {exc}"

    return wrapped


def baz_after_a_lull(host: Callable[..., Any]) -> Any:
    """The US C5.26b roll in the pass a Lull brings."""
    from campaign.services import steps
    from campaign.services.errors import ActionRefused

    players = _walk(host(side="us"))
    players.until("initiative")
    players.chits(us="idle", german="idle")
    players.until_step("C5.26")
    try:
        steps.roll_on_table(
            campaign_id=players.campaign_id,
            user=players.users["us"],
            table_id="baz_psk_ft_dc_repair",
            item="Bazooka",
        )
    except ActionRefused as exc:
        return f"refused: {exc}"
    return "rolled"


service(
    "Table.after_scenario",
    base="phd",
    mutate=lambda d: tab(d, "baz_psk_ft_dc_repair").update(after_scenario=False),
    observe=baz_after_a_lull,
)
service(
    "Step.rolls_while_buying",
    base="skirmish",
    mutate=lambda d: next(s for s in d["steps"] if s["id"] == "T3.6").update(
        rolls_while_buying=False
    ),
    observe=refused_or(lambda host: purchase_of(host, "red", "I1", [[2, 2]])),
)
service(
    "ReinforcementGroup.units",
    base="skirmish",
    mutate=lambda d: grp(d, "red", "I1").update(units="4-5-7"),
    observe=lambda host: purchase_of(host, "red", "I1", [[2, 2]]),
)
service(
    "ReinforcementGroup.unit_kind",
    base="skirmish",
    mutate=lambda d: grp(d, "red", "I1").update(unit_kind="squad"),
    observe=lambda host: purchase_of(host, "red", "I1", [[2, 2]]),
)
service(
    "ReinforcementGroup.depletable",
    base="skirmish",
    mutate=lambda d: grp(d, "red", "I1").update(depletable=False),
    observe=lambda host: purchase_of(host, "red", "I1", [[2, 2]]),
)
service(
    "ReinforcementGroup.grants",
    base="skirmish",
    mutate=lambda d: grp(d, "red", "M1").update(grants={"san": 1}),
    observe=lambda host: purchase_of(host, "red", "M1"),
)
GUN_CREW = {"unit": "2-2-8 crew", "kind": "half_squad", "per": "unit", "count": 1, "rule": "T3.6 c"}


def _crewed(d: dict) -> None:
    grp(d, "red", "G1").update(unit_kind="gun", comes_with=[dict(GUN_CREW)])


def _crew(**kw: Any) -> Callable[[dict], None]:
    return lambda d: grp(d, "red", "G1")["comes_with"][0].update(**kw)


service(
    "ReinforcementGroup.comes_with",
    "ComesWith.unit",
    base="skirmish",
    prepare=_crewed,
    mutate=_crew(unit="2-2-7 crew"),
    observe=lambda host: purchase_of(host, "red", "G1", [[2, 2]]),
)
service(
    "ReinforcementGroup.unit_types",
    base="skirmish",
    prepare=lambda d: grp(d, "red", "G1").update(unit_kind="gun", full=2, depleted=None),
    mutate=lambda d: grp(d, "red", "G1").update(unit_types=["57L AT", "75* INF"]),
    observe=lambda host: purchase_of(host, "red", "G1", [[2, 2]]),
)
service(
    "ComesWith.kind",
    base="skirmish",
    prepare=_crewed,
    mutate=_crew(kind="squad"),
    observe=lambda host: purchase_of(host, "red", "G1", [[2, 2]]),
)
service(
    "ComesWith.per",
    base="skirmish",
    prepare=_crewed,
    mutate=_crew(per="group"),
    observe=lambda host: purchase_of(host, "red", "G1", [[2, 2]]),
)
service(
    "ComesWith.count",
    base="skirmish",
    prepare=_crewed,
    mutate=_crew(count=2),
    observe=lambda host: purchase_of(host, "red", "G1", [[2, 2]]),
)
service(
    "ComesWith.rule",
    base="skirmish",
    prepare=_crewed,
    mutate=_crew(rule="T3.6 d"),
    observe=lambda host: purchase_of(host, "red", "G1", [[2, 2]]),
)
LEADERS = {
    "id": "leaders",
    "title": "Leaders",
    "rule": "T3.71",
    "dice": "dr",
    "columns": ["Infantry", "Guns"],
    "rows": [
        {
            "range": "1-6",
            "results": {"Infantry": "8-1", "Guns": "7-0"},
            "column_effects": {
                "Infantry": {"do": "leader", "unit": "8-1 leader"},
                "Guns": {"do": "leader", "unit": "7-0 leader"},
            },
        }
    ],
}


def _leaders(d: dict) -> None:
    d["tables"].append(copy.deepcopy(LEADERS))
    d["tables"].append(
        {"id": "lost", "title": "Lost table", "rule": "T3.72", "dice": "dr", "missing": True}
    )
    d["post_purchase"].append(
        {
            "table": "leaders",
            "applies_to": {"groups": ["I1"]},
            "column": "Infantry",
            "rule": "T3.71",
        }
    )
    d["post_purchase"].append({"table": "lost", "applies_to": {"groups": ["I1"]}, "rule": "T3.72"})


service(
    "PostPurchaseRoll.column",
    base="skirmish",
    prepare=_leaders,
    mutate=lambda d: _pp(d, "leaders").update(column="Guns"),
    observe=lambda host: purchase_of(host, "red", "I1", [[2, 2], [3]]),
)
service(
    "PostPurchaseRoll.rule",
    base="skirmish",
    prepare=_leaders,
    mutate=lambda d: _pp(d, "lost").update(rule="T3.72b"),
    observe=lambda host: purchase_of(host, "red", "I1", [[2, 2], [3]]),
)


def _with_dual_roll(d: dict) -> None:
    ini_result(d, "dual")["moves_first"] = "sets_up_second"


service(
    "Initiative.matrix",
    "MatrixCell.result",
    base="skirmish",
    mutate=lambda d: d["initiative"]["matrix"][1].update(result="blue_attack"),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "MatrixCell.chits",
    base="skirmish",
    mutate=lambda d: [
        d["initiative"]["matrix"][1].update(chits={"red": "idle", "blue": "attack"}),
        d["initiative"]["matrix"][2].update(chits={"red": "attack", "blue": "idle"}),
    ],
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "Initiative.results",
    "InitiativeResult.label",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(label="Red Assault"),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.id",
    base="skirmish",
    mutate=lambda d: rename(d, "red_attack", "red_assault"),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.scenario",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(scenario=False),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.attackers",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(attackers=["red", "blue"]),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.sets_up_first",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(sets_up_first="red"),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.moves_first",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(moves_first="blue"),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.night",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(
        night={
            "id": "red_night",
            "label": "Red Night Attack",
            "scenario": True,
            "attackers": ["red"],
            "sets_up_first": "blue",
            "moves_first": "red",
        }
    ),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.loops_to",
    base="skirmish",
    mutate=lambda d: ini_result(d, "idle").update(loops_to="T3.5"),
    observe=lambda host: initiative(host, "idle", "idle"),
)
service(
    "InitiativeResult.text",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(text="Red attacks at dawn."),
    observe=lambda host: initiative(host, "attack", "idle"),
)
service(
    "InitiativeResult.rule",
    base="skirmish",
    mutate=lambda d: ini_result(d, "red_attack").update(rule="T4.0c"),
    observe=lambda host: initiative(host, "attack", "idle"),
)


def _dual(**kw: Any) -> Callable[[dict], None]:
    return lambda d: ini_result(d, "dual")["sets_up_first"].update(**kw)


service(
    "RollForSide.dice",
    base="skirmish",
    prepare=_with_dual_roll,
    mutate=_dual(dice="DR", rows=[{"range": "≤6", "side": "blue"}, {"range": "≥7", "side": "red"}]),
    observe=lambda host: initiative(host, "attack", "attack"),
)
service(
    "RollForSide.roller",
    base="skirmish",
    prepare=_with_dual_roll,
    mutate=_dual(roller="red"),
    observe=lambda host: initiative(host, "attack", "attack", [[2]]),
)
service(
    "RollForSide.rows",
    base="skirmish",
    prepare=_with_dual_roll,
    mutate=_dual(rows=[{"range": "≤3", "side": "red"}, {"range": "≥4", "side": "blue"}]),
    observe=lambda host: initiative(host, "attack", "attack", [[2]]),
)
service(
    "RollForSide.rule",
    base="skirmish",
    prepare=_with_dual_roll,
    mutate=_dual(rule="T4.0a*"),
    observe=lambda host: initiative(host, "attack", "attack", [[2]]),
)


def _apd_wins_at_once(d: dict) -> None:
    d["victory_checks"][0]["all"][0]["value"] = 60


def _apd_end(host: Callable[..., Any]) -> Any:
    """The outcome once 2.9 has read the result (the Clean-Up's losses in it)."""
    players = _walk(host(), vp_american=63, cvp_lost_american=41)
    players.until_step("2.9")
    c = players.campaign
    return (c.ended_at is not None, c.outcome)


service(
    "VictoryCheck.text",
    base="apd",
    prepare=_apd_wins_at_once,
    mutate=lambda d: d["victory_checks"][0].update(text="The Americans break through."),
    observe=_apd_end,
)
service(
    "VictoryCheck.rule",
    base="apd",
    prepare=_apd_wins_at_once,
    mutate=lambda d: d["victory_checks"][0].update(rule="CG VC (a)"),
    observe=_apd_end,
)


def _winner_event(host: Callable[..., Any]) -> Any:
    from campaign.models import Event

    players = _walk(host(), vp_american=63, cvp_lost_american=41)
    players.until("purchase")
    return list(
        Event.objects.filter(campaign_id=players.campaign_id, kind="winner").values_list(
            "text", flat=True
        )
    )


service(
    "ScenarioWinner.rule",
    base="apd",
    mutate=lambda d: d["scenario_winner"].update(rule="2.9b"),
    observe=_winner_event,
)


def _phd_san(host: Callable[..., Any]) -> Any:
    from campaign.models import Seat

    players = _walk(host(side="us"), san_german=1, san_us=6)
    players.until("purchase")
    return sorted(Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "san"))


service(
    "SanRule.minimum", base="phd", mutate=lambda d: d["san"].update(minimum=1), observe=_phd_san
)
service(
    "SanRule.maximum", base="phd", mutate=lambda d: d["san"].update(maximum=5), observe=_phd_san
)


def _forgone(host: Callable[..., Any]) -> Any:
    from campaign.models import Seat
    from campaign.services import steps

    players = _walk(host(side="axis", variant="iii"))
    players.until_step("3.616")
    steps.forgo_points(campaign_id=players.campaign_id, user=players.users["british"], amount=5)
    return sorted(
        Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
    )


service(
    "Forgo.from_side",
    base="sicily",
    mutate=lambda d: d["currency"]["forgo"][0].update(from_side="british"),
    observe=_forgone,
)


# --------------------------------------------------------------------------- the tests


def _stack_answers(m: Module) -> Any:
    """What the Escape table's stack says (Sicily 3.606): whether a 2-4-7 and a StuG
    may join an 8-1's DR, whether a Final 10 falls on one unit by Random Selection, and
    whether a Final 13 does (a row not listed)."""
    table = m.table("escape")
    assert table is not None
    return (
        effects.stack_refusal(table, "8-1 leader", effects.UnitState("2-4-7", "half_squad")),
        effects.stack_refusal(table, "8-1 leader", effects.UnitState("StuG IIIG", "vehicle")),
        effects.falls_on_one(table, 10),
        effects.falls_on_one(table, 13),
    )


case(
    "Table.stack",
    base="sicily",
    mutate=lambda d: tab(d, "escape").pop("stack"),
    observe=_stack_answers,
)
case(
    "StackRoll.kinds",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["stack"].update(kinds=["squad", "leader"]),
    observe=_stack_answers,
)
case(
    "StackRoll.random",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["stack"].update(random=["9"]),
    observe=_stack_answers,
)
case(
    "StackRoll.rule",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["stack"].update(rule="3.6"),
    observe=_stack_answers,
)


def _overstack_answers(m: Module) -> Any:
    """Whether four squads, three squads and a HS, and three squads with two leaders may
    make one Redeployment DR together (PHD C5.13a "No unit may overstack during
    Redeployment"), and the refusal's words."""
    table = m.table("redeployment")
    return (
        effects.overstack_refusal(table, ["squad"] * 4),
        effects.overstack_refusal(table, ["squad"] * 3 + ["half_squad"]),
        effects.overstack_refusal(table, ["squad"] * 3 + ["leader"] * 2),
    )


case(
    "StackRoll.overstack",
    base="phd",
    mutate=lambda d: tab(d, "redeployment")["stack"].pop("overstack"),
    observe=_overstack_answers,
)
case(
    "StackLimit.hs",
    base="phd",
    mutate=lambda d: tab(d, "redeployment")["stack"]["overstack"].update(hs=7),
    observe=_overstack_answers,
)
case(
    "StackLimit.rule",
    base="phd",
    mutate=lambda d: tab(d, "redeployment")["stack"]["overstack"].update(rule="A5.1"),
    observe=_overstack_answers,
)


def _sent_on_casualties(m: Module) -> Any:
    """Whether a Shift DR of 11, and one of 9, send a unit to the subsequent casualty dr
    (Sicily 3.613 †), and what the module check says."""
    table = m.table("shift_casualties")
    earlier = m.table(table.after.table if table.after else "shift")
    return (
        effects.sent_on(table, earlier, [(11, 11)]),
        effects.sent_on(table, earlier, [(10, 10)]),
        effects.not_sent_refusal(table, earlier, "4-6-7") if table.after else "",
    )


case(
    "Table.after",
    base="sicily",
    mutate=lambda d: tab(d, "shift_casualties").pop("after"),
    observe=_sent_on_casualties,
)
case(
    "AfterRoll.ranges",
    base="sicily",
    mutate=lambda d: tab(d, "shift_casualties")["after"].update(ranges=["9-10"]),
    observe=_sent_on_casualties,
)
case(
    "AfterRoll.table",
    base="sicily",
    mutate=lambda d: tab(d, "shift_casualties")["after"].update(table="escape", ranges=["10"]),
    observe=_sent_on_casualties,
)
case(
    "AfterRoll.rule",
    base="sicily",
    mutate=lambda d: tab(d, "shift_casualties")["after"].update(rule="3.613"),
    observe=_sent_on_casualties,
)


case(
    "Effect.then",
    base="sicily",
    # 3.606 row 11 "Escapes; Replaced, then Casualty Reduced": without it the leader is
    # only Replaced (an 8-0 unwounded), with it the 8-0 is then wounded.
    mutate=lambda d: tab(d, "escape")["rows"][3]["effects"][0].pop("then"),
    observe=lambda m: effects.on_unit(
        effects.row_effects(m.table("escape").lookup(11), "Infantry"),
        effects.UnitState("8-1 leader", "leader"),
        m.leader_ladder.ratings if m.leader_ladder else (),
    ),
)


case(
    "StackRoll.random_original",
    base="sicily",
    # 3.606 footnote 1: an Original 2 of a stack falls on one unit (Heat of Battle) by
    # Random Selection; without it, on each.
    mutate=lambda d: tab(d, "escape")["stack"].pop("random_original"),
    observe=lambda m: effects.falls_on_one(m.table("escape"), 0, 2),
)


case(
    "Effect.named",
    base="sicily",
    # 3.606 footnote 2: a crew Replaced (row 9) would become Disrupted, so it is
    # Eliminated instead; without it the crew is marked to be Replaced as a HS is.
    mutate=lambda d: tab(d, "escape")["rows"][1]["effects"][1].pop("named"),
    observe=lambda m: effects.on_unit(
        effects.row_effects(m.table("escape").lookup(9), "Infantry"),
        effects.UnitState("2-4-7", "half_squad"),
    ),
)


def _prisoner_escapes(m: Module) -> Any:
    """Whether a 4-5-8 held prisoner (marked captured) may make an Escape DR, and
    whether a captured Sherman may (Sicily 3.606)."""
    flt = m.table("escape").for_units
    return (
        effects.matches(flt, effects.UnitState("4-5-8", "squad", ("captured",))),
        effects.matches(flt, effects.UnitState("Sherman III", "vehicle", ("captured",))),
    )


def _marked_in_enemy_area(m: Module) -> Any:
    """What completing 3.605 does to a 4-5-8 entered in Setup Area North, the other
    side listing north (the 3.6056 chart), and to one entered in its own South."""
    row = next(s for s in m.steps if s.id == "3.605").settles[0]
    return tuple(
        effects.settled(
            row, effects.placed(effects.UnitState("4-5-8", "squad"), area, "", ("north",))
        ).status
        for area in ("North", "South")
    )


case(
    "UnitFilter.in_enemy_setup_area",
    base="sicily",
    # 3.6056 chart "in enemy Setup Area | must attempt Escape": without it every squad
    # is marked, in its own Setup Area too.
    mutate=lambda d: next(s for s in d["steps"] if s["id"] == "3.605")["settles"][0]["units"].pop(
        "in_enemy_setup_area"
    ),
    observe=_marked_in_enemy_area,
)


def _captures_at_3_607(m: Module) -> Any:
    """Where and what the side listing Setup Area A chooses for (Sicily 3.6071): the
    capture at 3.607 and its rule, for a Bren and a 4-5-8 entered in A (one it lists)."""
    from campaign.services.captures import capture_at

    cap = capture_at(m, "3.607")
    if cap is None:
        return None
    return cap.rule, tuple(
        effects.capture_offered(cap, effects.placed(effects.UnitState(n, k), "A", "", ("a",)))
        for n, k in (("Bren", "sw"), ("4-5-8", "squad"))
    )


def _captures(d: dict) -> dict:
    return d["setup_areas"]["captures"]


case(
    "SetupAreas.captures",
    base="sicily",
    # 3.6071: without it no side chooses; the players amend their forces.
    mutate=lambda d: d["setup_areas"].pop("captures"),
    observe=_captures_at_3_607,
)
case(
    "AreaCapture.step",
    base="sicily",
    mutate=lambda d: _captures(d).update(step="3.608"),
    observe=_captures_at_3_607,
)
case(
    "AreaCapture.units",
    base="sicily",
    # Personnel too: a squad would be offered (the chart has them attempt Escape).
    mutate=lambda d: _captures(d)["units"].update(kinds=["sw", "squad"]),
    observe=_captures_at_3_607,
)
case(
    "AreaCapture.rule",
    base="sicily",
    mutate=lambda d: _captures(d).update(rule="3.607"),
    observe=_captures_at_3_607,
)


def _eliminated_in_a(m: Module) -> Any:
    """Sicily 3.6071: which of a Bren and a Sherman in Setup Area A the chooser may not
    Eliminate holding a 4-6-7 in B (the refusing rule, "" : may), and the Bren's with a
    4-6-7 in A, with a captured 4-6-7 in A and with an 8-1 whose line names none."""
    from campaign.services.captures import capture_at

    cap = capture_at(m, "3.607")
    if cap is None:
        return None
    bren, sherman = effects.UnitState("Bren", "sw"), effects.UnitState("Sherman", "vehicle")
    squad = effects.UnitState("4-6-7", "squad")
    held = effects.UnitState("4-6-7", "squad", ("captured",))
    leader = effects.UnitState("8-1", "leader")
    return tuple(
        effects.unaided_elimination(cap, piece, "A", own)
        for piece, own in (
            (bren, [(squad, "B")]),
            (sherman, [(squad, "B")]),
            (bren, [(squad, " a ")]),
            (bren, [(held, "A")]),
            (bren, [(leader, "")]),
        )
    )


def _eliminated_by(d: dict) -> dict:
    return _captures(d)["eliminated_by"]


case(
    "AreaCapture.eliminated_by",
    base="sicily",
    # 3.6071: without it any piece is Eliminated at the chooser's word.
    mutate=lambda d: _captures(d).pop("eliminated_by"),
    observe=_eliminated_in_a,
)
case(
    "AreaElimination.pieces",
    base="sicily",
    mutate=lambda d: _eliminated_by(d).update(pieces={"kinds": ["sw", "gun", "vehicle"]}),
    observe=_eliminated_in_a,
)
case(
    "AreaElimination.by",
    base="sicily",
    # The captured 4-6-7 would Eliminate the Bren.
    mutate=lambda d: _eliminated_by(d).update(by={"kinds": ["squad", "leader"]}),
    observe=_eliminated_in_a,
)
case(
    "AreaElimination.rule",
    base="sicily",
    mutate=lambda d: _eliminated_by(d).update(rule="3.607"),
    observe=_eliminated_in_a,
)


def _hidden_at_3_607(m: Module) -> Any:
    """Sicily 3.6073 at 3.607's completion: its rule and counter words, which of a
    Foxhole, AT Mines and a HIP stated in the opponent's Setup Area A are placed
    on-map, and which are minefields (told by their presence only)."""
    hid = effects.fortifications_revealed_at(m, "3.607")
    if hid is None:
        return None
    items = ("foxhole", "at_mines", "hip")
    placed = tuple(
        effects.still_hidden_in_enemy_area(
            hid, i, on_map=False, setup_area="A", stated=True, theirs=("a",)
        )
        for i in items
    )
    return hid.rule, hid.minefield_counter, placed, tuple(i in hid.minefields for i in items)


def _hidden(d: dict) -> dict:
    return d["setup_areas"]["hidden_fortifications"]


case(
    "SetupAreas.hidden_fortifications",
    base="sicily",
    # 3.6073: without it nothing is placed on-map; the players place them themselves.
    mutate=lambda d: d["setup_areas"].pop("hidden_fortifications"),
    observe=_hidden_at_3_607,
)
case(
    "HiddenFortifications.step",
    base="sicily",
    mutate=lambda d: _hidden(d).update(step="3.608"),
    observe=_hidden_at_3_607,
)
case(
    "HiddenFortifications.items",
    base="sicily",
    # A Foxhole no Fortification: never placed on-map.
    mutate=lambda d: _hidden(d).update(items=["trench", "roadblock", "at_mines"]),
    observe=_hidden_at_3_607,
)
case(
    "HiddenFortifications.minefields",
    base="sicily",
    mutate=lambda d: _hidden(d).update(minefields=["foxhole", "at_mines"]),
    observe=_hidden_at_3_607,
)
case(
    "HiddenFortifications.minefield_counter",
    base="sicily",
    mutate=lambda d: _hidden(d).update(minefield_counter="Known Minefield counter"),
    observe=_hidden_at_3_607,
)
case(
    "HiddenFortifications.rule",
    base="sicily",
    mutate=lambda d: _hidden(d).update(rule="3.607"),
    observe=_hidden_at_3_607,
)


def _escape_words(m: Module) -> str:
    from campaign.services.units import describe_filter

    flt = m.table("escape").for_units
    assert flt is not None
    return describe_filter(flt)


case(
    "UnitFilter.not_if",
    base="sicily",
    # 3.606 "Each Personnel/": a prisoner makes no Escape DR; without it he may.
    mutate=lambda d: tab(d, "escape")["for_units"].pop("not_if"),
    observe=_prisoner_escapes,
)
case(
    "UnitExclusion.units",
    base="sicily",
    # Only squads left out: a captured Sherman escapes either way, a captured squad now may.
    mutate=lambda d: tab(d, "escape")["for_units"]["not_if"]["units"].update(kinds=["leader"]),
    observe=_prisoner_escapes,
)
case(
    "UnitExclusion.label",
    base="sicily",
    # The refusal names who is left out in the player's words.
    mutate=lambda d: tab(d, "escape")["for_units"]["not_if"].update(label="a man held"),
    observe=_escape_words,
)


def _crew_of(name: str, *markers: str) -> Any:
    """The Inherent crew (counter, kind) the module gives a vehicle ``name`` (Sicily
    3.606 rows 9-10), and whether row 9's result lets it escape."""

    def observe(m: Module) -> Any:
        vehicle = effects.UnitState(name, "vehicle", markers)
        crew = effects.inherent_crew(m.inherent_crews, vehicle)
        row = effects.row_effects(m.table("escape").lookup(9), "Mobile Vehicle")
        return (crew.unit, crew.kind) if crew else None, effects.crew_escapes(row, vehicle)

    return observe


case(
    "Effect.crew_escapes",
    base="sicily",
    # 3.606 row 9 "Abandoned; crew (if any) Escapes": without it no crew line is added.
    mutate=lambda d: tab(d, "escape")["rows"][1]["column_effects"]["Mobile Vehicle"].pop(
        "crew_escapes"
    ),
    observe=_crew_of("StuG IIIG"),
)
case(
    "Module.inherent_crews",
    base="sicily",
    mutate=lambda d: d.pop("inherent_crews"),
    observe=_crew_of("StuG IIIG"),
)
case(
    "InherentCrew.unit",
    base="sicily",
    mutate=lambda d: d["inherent_crews"][0].update(unit="2-2-7 crew"),
    observe=_crew_of("StuG IIIG"),
)
case(
    "InherentCrew.kind",
    base="sicily",
    mutate=lambda d: d["inherent_crews"][0].update(kind="squad"),
    observe=_crew_of("StuG IIIG"),
)
case(
    "InherentCrew.vehicles",
    base="sicily",
    # A captured Sherman has no Inherent crew of its captor's; without the filter's
    # not_statuses it would get one.
    mutate=lambda d: d["inherent_crews"][0]["vehicles"].pop("not_statuses"),
    observe=_crew_of("Sherman III(a)", "captured"),
)


case(
    "Drm.read",
    base="sicily",
    # 3.6041 EXC: the crew's Morale read from the record (8) is applied untyped; without
    # it the roll is refused until the Morale is typed.
    mutate=lambda d: drm(d, "encircled_prc_1tc", "crew_morale").pop("read"),
    observe=ticked_drms("encircled_prc_1tc", [], side="axis", inputs={"unit_morale": 8}),
)


def _apart(m: Module) -> Any:
    """Whether two 2-4-7 HS entered in Setup Areas A and B recombine (Sicily 3.6111, the
    Setup Area IDs of 3.605): the refusal's words, "" where they may."""
    return effects.apart_refusal(
        m.setup_areas, ("2-4-7 HS", "A"), ("2-4-7 HS", "B"), "two HS recombine", "3.6111"
    )


case("Module.setup_areas", base="sicily", mutate=lambda d: d.pop("setup_areas"), observe=_apart)
case(
    "SetupAreas.label",
    base="sicily",
    mutate=lambda d: d["setup_areas"].update(label="Area"),
    observe=_apart,
)
case(
    "SetupAreas.rule",
    base="sicily",
    mutate=lambda d: d["setup_areas"].update(rule="3.6051"),
    observe=_apart,
)
case(
    "SetupAreas.step",
    base="sicily",
    # 3.605: the step at which each side lists its Setup Area IDs; moved, 3.605 lists none.
    mutate=lambda d: d["setup_areas"].update(step="3.606"),
    observe=lambda m: effects.setup_areas_at(m, "3.605") is not None,
)
case(
    "SetupAreas.enemy_area",
    "SetupAreas.enemy_area_rule",
    base="sicily",
    # The 3.6056 chart's words for a unit in an enemy Setup Area; none: nothing is said.
    mutate=lambda d: d["setup_areas"].update(enemy_area="", enemy_area_rule=None),
    observe=lambda m: effects.enemy_area_words(m.setup_areas),
)
case(
    "SetupAreas.overlap_rule",
    base="sicily",
    # 3.6051: the rule an ID both sides list is refused by.
    mutate=lambda d: d["setup_areas"].update(overlap_rule="3.605"),
    observe=lambda m: effects.overlap_refusal(m.setup_areas, ["A"], ["a"], "Axis"),
)


def _remanning(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "3.614")["remanning"]


def _remanned(vehicle_markers: tuple[str, ...], by: str | None, by_kind: str = "squad"):
    """Why ``by`` may not remann an Abandoned StuG of ``vehicle_markers`` (Sicily 3.6141a)."""

    def observe(m: Module) -> Any:
        step = next(st for st in m.steps if st.id == "3.614")
        if step.remanning is None:
            return "no remanning"
        crew = effects.UnitState(by, by_kind) if by else None
        stug = effects.UnitState("StuG IIIG", "vehicle", vehicle_markers)
        return effects.remanning_refusal(step.remanning, stug, crew)

    return observe


case(
    "Step.remanning",
    base="sicily",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "3.614").pop("remanning"),
    observe=_remanned(("abandoned",), "4-6-7"),
)
case(
    "Remanning.vehicles",
    base="sicily",
    mutate=lambda d: _remanning(d)["vehicles"].update(not_statuses=["withdrawn", "captured"]),
    observe=_remanned(("abandoned", "captured"), "4-6-7"),
)
case(
    "Remanning.by",
    base="sicily",
    mutate=lambda d: _remanning(d)["by"].update(kinds=["half_squad"]),
    observe=_remanned(("abandoned",), "4-6-7"),
)
case(
    "Remanning.status",
    base="sicily",
    mutate=lambda d: _remanning(d).update(status="immobilized"),
    observe=_remanned(("abandoned",), "4-6-7"),
)
case(
    "Remanning.rule",
    base="sicily",
    mutate=lambda d: _remanning(d).update(rule="3.6141b"),
    observe=_remanned(("abandoned",), None),
)


def _abandoning(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "3.605")["abandoning"]


def _abandoned(m: Module) -> Any:
    """What 3.605's abandoning does with an immobilized StuG whose MA is in good order
    and with one without MA on its record (Sicily 3.6051): offered (the roster's words),
    refused for a working MA, and the marker and crew its effect gives."""
    step = next(st for st in m.steps if st.id == "3.605")
    ab = step.abandoning
    if ab is None:
        return "no abandoning"
    bare = effects.UnitState("StuG IIIG", "vehicle", ("immobilized",))
    armed = replace(bare, weapons=(effects.WeaponState("w1", "ma", "75mm MA"),))
    return (
        effects.matches(ab.vehicles, bare),
        effects.working_weapon(ab, armed),
        f"{ab.label} ({ab.rule})",
        effects.on_unit([ab.effect], bare).status,
        effects.crew_escapes([ab.effect], bare),
    )


case(
    "Step.abandoning",
    base="sicily",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "3.605").pop("abandoning"),
    observe=_abandoned,
)
case(
    "Abandoning.vehicles",
    base="sicily",
    mutate=lambda d: _abandoning(d)["vehicles"].update(statuses=["stunned"]),
    observe=_abandoned,
)
case(
    "Abandoning.effect",
    base="sicily",
    mutate=lambda d: _abandoning(d)["effect"].pop("crew_escapes"),
    observe=_abandoned,
)
case(
    "Abandoning.without_functioning",
    base="sicily",
    mutate=lambda d: _abandoning(d).update(without_functioning=[]),
    observe=_abandoned,
)
case(
    "Abandoning.label",
    base="sicily",
    mutate=lambda d: _abandoning(d).update(label="Abandon"),
    observe=_abandoned,
)
case(
    "Abandoning.rule",
    base="sicily",
    mutate=lambda d: _abandoning(d).update(rule="3.6053"),
    observe=_abandoned,
)


def _abandon_asked(m: Module) -> Any:
    """What pressing 3.605's abandoning asks before it is posted (the owner's statement
    and what it does), as the roster page reads it (Sicily 3.6051; APD 2.5 EXC)."""
    from campaign.seat_views.roster import abandons_confirm

    step = next(st for st in m.steps if st.id == "3.605")
    return abandons_confirm(step.abandoning, "StuG IIIG", m)


case(
    "Abandoning.statement",
    base="sicily",
    mutate=lambda d: _abandoning(d).update(statement="is Encircled and Immobile"),
    observe=_abandon_asked,
)


def _apd_abandon_asked(m: Module) -> Any:
    """What pressing APD 2.5's abandoning asks before it is posted: its crew
    Eliminated and the CVP they add, A26.2's as supplied (2.5 EXC; 2 Note)."""
    from campaign.seat_views.roster import abandons_confirm

    step = next(st for st in m.steps if st.id == "2.5")
    return abandons_confirm(step.abandoning, "M4A3(75)W", m)


case(
    "Abandoning.prc_eliminated",
    base="apd",
    mutate=lambda d: next(st for st in d["steps"] if st["id"] == "2.5")["abandoning"].pop(
        "prc_eliminated"
    ),
    observe=_apd_abandon_asked,
)


def _escape_owed(m: Module) -> Any:
    """Whether the Escape DR is owed for the crew line 3.605's Abandon in No-Man's Land
    marked, for a squad its owner marked, and for a squad not so marked (Sicily 3.6051
    "its crew (if any) must attempt Escape per 3.606", the 3.6056 chart's "must attempt
    Escape (3.606)"), and the words Done reads while they are, each citing the rule of
    its marker."""
    crew = effects.UnitState("2-2-8 crew", "half_squad", ("crew_escape_due",))
    marked = effects.UnitState("4-5-8", "squad", ("escape_due",))
    squad = effects.UnitState("4-6-7", "squad")
    table = m.table("escape")
    whats = tuple(
        ("escape", availability.owed_what(table, u, u.name))
        for u in (crew, marked)
        if availability.owed_for(table, u)
    )
    snap = at(m, side="axis", date="jul14pm", step="3.606", holdings=Holdings(owed=whats))
    return (
        availability.owed_for(table, crew),
        availability.owed_for(table, marked),
        availability.owed_for(table, squad),
        availability.rolls_owed(m, snap, next(s for s in m.steps if s.id == "3.606")),
    )


case(
    "Table.required_for",
    base="sicily",
    mutate=lambda d: tab(d, "escape").pop("required_for"),
    observe=_escape_owed,
)
case(
    "OwedFor.units",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["required_for"][0]["units"].update(statuses=["stunned"]),
    observe=_escape_owed,
)
case(
    "OwedFor.rule",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["required_for"][0].update(rule="3.6056"),
    observe=_escape_owed,
)
case(
    "Effect.crew_marker",
    base="sicily",
    # 3.613 footnote †: the crew of a vehicle a Shift's subsequent dr Eliminates is
    # marked to make its CS DR; without the marker it leaves unmarked (nothing owed).
    mutate=lambda d: tab(d, "shift_casualties")["rows"][1]["column_effects"]["Vehicle"].pop(
        "crew_marker"
    ),
    observe=lambda m: effects.crew_marker(
        effects.row_effects(m.table("shift_casualties").lookup(4), "Vehicle"),
        effects.UnitState("StuG IIIG", "vehicle"),
    ),
)

case(
    "Effect.because",
    base="sicily",
    # 3.606 footnote 2: the crew row 9 Replaces is Eliminated instead, the words citing it.
    mutate=lambda d: next(r for r in tab(d, "escape")["rows"] if r["range"] == "9")["effects"][
        1
    ].pop("because"),
    observe=lambda m: effects.on_unit(
        effects.row_effects(m.table("escape").lookup(9), "Infantry"),
        effects.UnitState("2-2-8 crew", "half_squad"),
    ),
)
case(
    "Effect.with_possessed",
    base="sicily",
    mutate=lambda d: tab(d, "escape")["rows"][4]["column_effects"]["Infantry"].pop(
        "with_possessed"
    ),
    observe=lambda m: effects.on_unit(
        effects.row_effects(m.table("escape").lookup(12), "Infantry"),
        effects.UnitState("4-6-7", "squad"),
    ),
)


def _c5_14(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "C5.14")


def _stun_kept(m: Module) -> Any:
    """Why a stunned, Isolated Sherman's owner may not take its Stun off after PHD
    C5.14 (C5.13a); "" where he may."""
    step = next(st for st in m.steps if st.id == "C5.14")
    was = effects.UnitState("M4A1 Sherman", "vehicle", ("stunned", "isolated"))
    return effects.hold_refusal(step.holds, was, ["isolated"], "M4A1 Sherman")


case("Step.holds", base="phd", mutate=lambda d: _c5_14(d).pop("holds"), observe=_stun_kept)


def _s3_622(d: dict) -> dict:
    return next(st for st in d["steps"] if st["id"] == "3.622")


def _reminded_at_3_622(m: Module) -> Any:
    """What Sicily's 3.622 page lists of an immobilized vehicle and an Isolated squad
    (3.6222 EXC, 3.6221): each reminder's words, rule and the units it names."""
    step = next(st for st in m.steps if st.id == "3.622")
    units = [
        ("Sherman", effects.UnitState("Sherman III(a)", "vehicle", ("immobilized",))),
        ("4-5-8", effects.UnitState("4-5-8", "squad", ("isolated",))),
    ]
    return [(r.says, r.rule, named) for r, named in effects.reminded(step.reminds, units)]


case(
    "Step.reminds",
    base="sicily",
    mutate=lambda d: _s3_622(d).pop("reminds"),
    observe=_reminded_at_3_622,
)
for _field, _change in {
    "units": {"units": {"kinds": ["squad"]}},
    "says": {"says": "it stays"},
    "rule": {"rule": "3.622"},
}.items():
    case(
        f"UnitReminder.{_field}",
        base="sicily",
        mutate=lambda d, _change=_change: _s3_622(d)["reminds"][1].update(_change),
        observe=_reminded_at_3_622,
    )


def _rgs_reminded_at_3_622(m: Module) -> Any:
    """What Sicily's 3.622 page lists of an Axis side's O1 module (Axis chart footnotes
    f and i): each reminder's words, rule and the RG lines it names."""
    from rules.purchase import reminded_rgs

    step = next(st for st in m.steps if st.id == "3.622")
    held = [("O1 Btln Mtr", "O1", ""), ("I7 Italian Infantry Coy", "I7", "")]
    return [(r.says, r.rule, named) for r, named in reminded_rgs(m, step.reminds, "axis", held)]


case(
    "UnitReminder.rgs",
    base="sicily",
    mutate=lambda d: _s3_622(d)["reminds"][2].update(rgs={"sides": ["axis"], "groups": ["I7"]}),
    observe=_rgs_reminded_at_3_622,
)


def _finished_with_3_622(m: Module) -> Any:
    """Which of Sicily's steps after 3.622 a side may finish with it in one click, and
    the words of that button and its confirmation (3.6223)."""
    from rules import availability

    step = next(st for st in m.steps if st.id == "3.622")
    later = m.steps[m.steps.index(step) + 1 :]
    return (
        [(s.id, availability.finishes_ahead(m, s, [step])) for s in later],
        availability.finished_with_words(step),
    )


case(
    "Step.finished_with",
    base="sicily",
    mutate=lambda d: _s3_622(d).pop("finished_with"),
    observe=_finished_with_3_622,
)
for _field, _change in {
    "through": {"through": "3.623"},
    "says": {"says": "declare nothing"},
    "rule": {"rule": "3.622"},
}.items():
    case(
        f"FinishedWith.{_field}",
        base="sicily",
        mutate=lambda d, _change=_change: _s3_622(d)["finished_with"].update(_change),
        observe=_finished_with_3_622,
    )
for _field, _change in {
    "status": {"status": "isolated"},
    "units": {"units": {"all_statuses": ["stunned", "captured"]}},
    "reason": {"reason": "it stays"},
    "rule": {"rule": "C5.14"},
}.items():
    case(
        f"MarkerHold.{_field}",
        base="phd",
        mutate=lambda d, _change=_change: _c5_14(d)["holds"][0].update(_change),
        observe=_stun_kept,
    )


def phd_isolated_late(host: Callable[..., Any]) -> Any:
    """A German squad marked Isolated at PHD C5.19, after the Redeployment: its markers
    (C5.13a: Low Ammo, it ended the Redeployment Isolated)."""
    from campaign.services import units
    from tests.purchase_helpers import add_unit

    players = _walk(host(side="us"))
    players.until_step("C5.19")
    squad = add_unit(players, "german", "4-6-7", "squad", "ok")
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        unit_id=squad.ref,
        name=squad.name,
        markers=["isolated"],
    )
    squad.refresh_from_db()
    return sorted(squad.markers)


service(
    "Settle.late",
    base="phd",
    mutate=lambda d: _c5_14(d)["settles"][0].pop("late"),
    observe=phd_isolated_late,
)


def _phd_chart_a(d: dict) -> None:
    """PHD's German chart (On-Map 6 TP for I1) with I1 marked a, and I2 unmarked."""
    _phd_chart_onmap(d)
    groups = chart(d, "german")["groups"]
    groups[0]["footnotes"] = ["a"]
    groups.append(
        {"id": "I2", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": 3}
    )


def _phd_i2_onmap_refusal(m: Module) -> Any:
    """Why I2 (not marked a) is not sold On-Map (PHD RG footnote a)."""
    g = m.group("german", "I2")
    assert g is not None
    return availability.price_refusal(m, g, "onmap", "german")


case(
    "CostVariant.marked_only",
    base="phd",
    prepare=_phd_chart_a,
    mutate=lambda d: [cv.pop("marked_only", None) for cv in d["cost_variants"]],
    observe=_phd_prices,
)
case(
    "MarkedOnly.footnote",
    base="phd",
    prepare=_phd_chart_a,
    mutate=lambda d: [
        cv["marked_only"].update(footnote="c") for cv in d["cost_variants"] if cv.get("marked_only")
    ],
    observe=_phd_prices,
)
case(
    "MarkedOnly.rule",
    base="phd",
    prepare=_phd_chart_a,
    mutate=lambda d: [
        cv["marked_only"].update(rule="C5.31a")
        for cv in d["cost_variants"]
        if cv.get("marked_only")
    ],
    observe=_phd_i2_onmap_refusal,
)
case(
    "CostVariant.over",
    base="phd",
    prepare=_phd_chart_onmap,
    mutate=lambda d: cvar(d, "onmap_near").update(over=None),
    observe=_phd_prices,
)


def _reduce_first(d: dict[str, Any]) -> list[dict[str, Any]]:
    return tab(d, "fortification_clearance")["original"][0]["effect"]["first"]


def _reduce_grens(m: Module) -> str:
    """C5.28 note 2: whether an original 6's Casualty Reduction may fall on a 4-6-7 of
    no engineer RG while the side holds an Elite 7-4-7 and a Pionier squad (footnote e)."""
    held = [
        (effects.UnitState("4-6-7", "squad"), []),
        (effects.UnitState("7-4-7", "squad", ("elite",)), []),
        (effects.UnitState("8-3-8", "squad"), ["e"]),
    ]
    table = m.table("fortification_clearance")
    return availability.reduce_refusal(table, allowed=1, used=0, unit=held[0], held=held)


case(
    "Effect.first",
    base="phd",
    mutate=lambda d: tab(d, "fortification_clearance")["original"][0]["effect"].update(first=[]),
    observe=_reduce_grens,
)
case(
    "MmcClass.footnotes",
    base="phd",
    mutate=lambda d: _reduce_first(d)[0].update(footnotes=["l"]),
    observe=_reduce_grens,
)
case(
    "MmcClass.statuses",
    base="phd",
    prepare=lambda d: _reduce_first(d).pop(0),
    mutate=lambda d: _reduce_first(d)[0].update(statuses=["heroic"]),
    observe=_reduce_grens,
)
case(
    "MmcClass.label",
    base="phd",
    mutate=lambda d: _reduce_first(d)[0].update(label="a Pionier"),
    observe=_reduce_grens,
)


def _replaced_squad(m: Module) -> object:
    """C5.14 Redeployment Table row 10 "Redeploys, Replaced" (pass 21): what the
    Replacement makes of a US 6-6-7 squad, its class read along C5.28 note 2's."""
    row = next(r for r in m.table("redeployment").rows if r.range == "10")
    unit = effects.UnitState("6-6-7", "squad")
    return effects.on_unit(effects.row_effects(row), unit, (), m.tables, "us")


case(
    "Effect.classes_from",
    base="phd",
    mutate=lambda d: next(r for r in tab(d, "redeployment")["rows"] if r["range"] == "10")[
        "effects"
    ][1].pop("classes_from"),
    observe=_replaced_squad,
)


def _remains_in_enemy_feba(m: Module) -> object:
    """C5.14 i (pass 22): what the Redeployment Table's 12-13 "Remains in hex, Reduced"
    does to a US 6-6-7 whose DR had no "+2 Unit is in enemy FEBA" (behind its own FEBA:
    reduced; the effect that eliminates holds only with that DRM)."""
    table = m.table("redeployment")
    row = next(r for r in table.rows if r.range == "12-13")
    held = effects.for_drms(effects.row_effects(row, "Infantry"), ["stun"])
    return effects.on_unit(held, effects.UnitState("6-6-7", "squad"), (), m.tables, "us")


case(
    "Effect.if_drms",
    base="phd",
    mutate=lambda d: next(r for r in tab(d, "redeployment")["rows"] if r["range"] == "12-13")[
        "effects"
    ][0].pop("if_drms"),
    observe=_remains_in_enemy_feba,
)


def _defender_isolated_remains(m: Module) -> object:
    """C5.14 ii (pass 24): what the Redeployment Table's 12-13 "Remains in hex, Reduced"
    does to the Defender's Isolated 4-6-7 ("+1 Unit is Isolated" applied; reduced: the
    effect that eliminates holds only for the Attacker's units)."""
    table = m.table("redeployment")
    row = next(r for r in table.rows if r.range == "12-13")
    held = effects.for_drms(effects.row_effects(row, "Infantry"), ["isolated"], attacker=False)
    return effects.on_unit(held, effects.UnitState("4-6-7", "squad"), (), m.tables, "german")


case(
    "Effect.if_attacker",
    base="phd",
    mutate=lambda d: next(r for r in tab(d, "redeployment")["rows"] if r["range"] == "12-13")[
        "effects"
    ][1].pop("if_attacker"),
    observe=_defender_isolated_remains,
)


def _reduce_us_below(m: Module) -> str:
    """C5.28 note 2 "or next highest class 1st, 2nd, etc." (pass 20): whether the US's
    Casualty Reduction may fall on a 6-6-6 while he holds a 6-6-7, neither of an
    engineer RG nor marked Elite, the class read from the counter figures the module
    gives (pass 21: the German's classes below Elite are gone, MSR7)."""
    held = [
        (effects.UnitState("6-6-6", "squad"), []),
        (effects.UnitState("6-6-7 (I2 Rifle Pl)", "squad"), []),
    ]
    table = m.table("fortification_clearance")
    return availability.reduce_refusal(table, allowed=1, used=0, unit=held[0], held=held, side="us")


case(
    "MmcClass.figures",
    base="phd",
    mutate=lambda d: _reduce_first(d)[2].update(figures={"us": ["6-6-6"]}),
    observe=_reduce_us_below,
)
case(
    "MmcClass.source",
    base="phd",
    mutate=lambda d: _reduce_first(d)[2].update(source="ASL Chapter H's US squads"),
    observe=_reduce_us_below,
)


def _reduce_german_all_elite(m: Module) -> str:
    """MSR7 "All units in the German OB are Elite" (pass 21): whether the German's
    Casualty Reduction may fall on his 4-4-7 while he holds a 4-6-7 marked Elite."""
    held = [
        (effects.UnitState("4-4-7", "squad"), []),
        (effects.UnitState("4-6-7", "squad", ("elite",)), []),
    ]
    table = m.table("fortification_clearance")
    return availability.reduce_refusal(
        table, allowed=1, used=0, unit=held[0], held=held, side="german"
    )


case(
    "MmcClass.all_of",
    base="phd",
    mutate=lambda d: _reduce_first(d)[1].pop("all_of"),
    observe=_reduce_german_all_elite,
)
case(
    "UnitFilter.of_rg",
    base="phd",
    mutate=lambda d: step(d, "C5.39")["reminds"][1]["units"].update(of_rg=None),
    observe=lambda m: [
        r.rule
        for r, _ in effects.reminded(
            next(st for st in m.steps if st.id == "C5.39").reminds,
            [("4-4-7", effects.UnitState("4-4-7", "squad"))],
        )
    ],
)
case(
    "UnitFilter.bought_now",
    base="phd",
    mutate=lambda d: step(d, "C5.39")["reminds"][0]["units"].update(bought_now=None),
    observe=lambda m: [
        r.rule
        for r, _ in effects.reminded(
            next(st for st in m.steps if st.id == "C5.39").reminds,
            [("4-4-7", effects.UnitState("4-4-7", "squad"))],
        )
    ],
)
case(
    "Condition.item_named",
    base="phd",
    mutate=lambda d: drm(d, "fortification_clearance", "roadblock_front")["offer_when"].update(
        item_named=None
    ),
    observe=lambda m: [
        d.id
        for d in m.table("fortification_clearance").drms
        if holds(d.offer_when, RollContext("us", item="Wire in 23M12"))
    ],
)


def _wire_before_recorded_mines(m: Module) -> str:
    """C5.28 "all A-P mines must be cleared from a location before a removal attempt on
    any other same location (non-mine) fortification" (pass 21): a Wire roll at 23K4
    where the side recorded its own A-P mines (C5.35)."""
    table = m.table("fortification_clearance")
    return availability.cleared_first_refusal(table, "Wire in 23K4", [], ["23K4"])


case(
    "ClearedFirst.recorded",
    base="phd",
    mutate=lambda d: tab(d, "fortification_clearance")["cleared_first"].update(recorded=[]),
    observe=_wire_before_recorded_mines,
)
case(
    "ClearedFirst.recorded_label",
    base="phd",
    mutate=lambda d: tab(d, "fortification_clearance")["cleared_first"].update(
        recorded_label="A-P minefield factors"
    ),
    observe=_wire_before_recorded_mines,
)


def _weather_at_c5_30(m: Module) -> str:
    """C5.30: what the step shows of the 0930 hrs TM Scenario's weather."""
    st = next(s for s in m.steps if s.id == "C5.30")
    return availability.weather_words(m, st, 1)


case(
    "Step.names_weather",
    base="phd",
    mutate=lambda d: step(d, "C5.30").pop("names_weather"),
    observe=_weather_at_c5_30,
)


def test_every_schema_field_has_a_mutation() -> None:
    """Issue 16: "For each field of the schema there is a test that changes it in a copy
    of a module and observes a different outcome": the tables name every field of the
    schema, and no field the schema no longer has."""
    fields = set(schema_fields()) - documentation_fields()
    named = (set(ENGINE) | set(SERVICE)) - documentation_fields()
    assert not set(ENGINE) & set(SERVICE)
    assert sorted(fields - named) == [], "fields with no mutation test"
    assert sorted(named - fields) == [], "mutation tests of fields the schema does not have"
    assert sorted(named - set(ENGINE_RUN) - set(SERVICE_RUN)) == [], (
        "cases registered after the tests that run them"
    )


# The fields the parametrized tests below run (a case registered after them would be
# named but never run: ``test_every_schema_field_has_a_mutation`` checks it is not).
ENGINE_RUN = sorted(set(ENGINE) - documentation_fields())
SERVICE_RUN = sorted(set(SERVICE) - documentation_fields())


@pytest.mark.parametrize("field", ENGINE_RUN)
def test_a_field_changed_changes_what_the_engine_does(field: str) -> None:
    c = ENGINE[field]
    before, after = copies(c)
    same = outcome(c, before) == outcome(c, after)
    assert not same, f"changing {field} changes nothing the engine does"


@pytest.fixture
def fixed_dice(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    real = rules.dice.faces
    _DICE.clear()

    def faces(seed: str, seq: int, dice: str, stream: str = "") -> list[int]:
        if _DICE:
            return list(_DICE.pop(0))
        return real(seed, seq, dice, stream)

    monkeypatch.setattr(rules.dice, "faces", faces)
    yield _DICE
    _DICE.clear()


@pytest.mark.django_db
@pytest.mark.parametrize("field", SERVICE_RUN)
def test_a_field_changed_changes_what_the_services_do(field: str, make_user, fixed_dice) -> None:
    from tests.walk import host_game, players_of

    c = SERVICE[field]
    before, after = copies(c)
    made = iter(range(100))

    def hosting(data: dict) -> Callable[..., Any]:
        def host(side: str | None = None, variant: str | None = None, through_start: bool = True):
            service_record(data)
            a, b = make_user(f"p{next(made)}"), make_user(f"p{next(made)}")
            camp = host_game(
                data["id"],
                variant or data["variants"][0]["id"],
                a,
                b,
                side=side,
                through_start=through_start,
            )
            return players_of(camp, a, b)

        return host

    def run(data: dict) -> Any:
        module, errors = validate_data(data, "copy.yaml")
        if module is None:
            return "refused: " + "; ".join(str(e) for e in errors)
        return c.observe(hosting(data))

    same = run(before) == run(after)
    assert not same, f"changing {field} changes nothing the services do"


# --------------------------------------------------------------------------- validatemodule


@pytest.mark.parametrize(
    ("where", "path"),
    [
        (lambda d: d["flow"].update(idle_loop_to="T4.0"), "flow.idle_loop_to"),
        (
            lambda d: d["fortifications"]["items"][0].update(cost_text="2/1"),
            "fortifications.items[0].cost_text",
        ),
        (
            lambda d: d["fortifications"]["items"][0].update(hip_fraction="1/10"),
            "fortifications.items[0].hip_fraction",
        ),
        (
            lambda d: d["rg_charts"][0]["groups"][2]["grants"].update(recon=1),
            "rg_charts[0].groups[2].grants.recon",
        ),
        (
            lambda d: d["tables"][0]["rows"][0].update(effect="recovered"),
            "tables[0].rows[0].effect",
        ),
        (
            lambda d: d["tables"][0]["rows"][2]["effect"].update(vanish=True),
            "tables[0].rows[2].effect.vanish",
        ),
        (
            lambda d: d["variants"][0]["start"].update(initial_counts_toward_limit=True),
            "variants[0].start.initial_counts_toward_limit",
        ),
    ],
    ids=[
        "idle_loop_to",
        "cost_text",
        "hip_fraction",
        "grants.recon",
        "effect by name",
        "effect key",
        "initial_counts",
    ],
)
def test_validatemodule_refuses_a_field_no_mechanism_reads_naming_its_path(
    where: Callable[[dict], Any], path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 16: "validatemodule refuses a module with an unread field, with its path in
    the message" — the fields issue 16 removed (flow.idle_loop_to, cost_text,
    hip_fraction, grants.recon, initial_counts_toward_limit) and effects named by a word
    are refused, not ignored."""
    data = yaml.safe_load(FIXTURE.read_text())
    where(data)
    bad = tmp_path / "unread.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(CommandError, match="unread.yaml: .*error"):
        call_command("validatemodule", str(bad), "--no-overrides")
    err = capsys.readouterr().err
    assert re.search(rf"unread\.yaml:\d+:\d+: {re.escape(path)}", err), err


def test_validatemodule_accepts_the_three_systems(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("sicily", "phd", "apd"):
        call_command("validatemodule", str(FILES[name]), "--no-overrides")
    out = capsys.readouterr().out
    assert out.count(": valid") == 3


def test_a_result_giving_an_rg_names_one_of_the_charts() -> None:
    """APD 3.5: each Row A-C result gives an RG of the German chart ("effect group"): a
    result naming no RG of any chart is refused when the module is checked, not when
    the German rolls it (as an unknown RG of a restriction is)."""
    data = yaml.safe_load(FIXTURE.read_text())
    tab(data, "strength")["rows"][0]["effect"] = {"do": "group", "group": "Z9"}
    module, errors = validate_data(data, "typo.yaml")
    assert module is None
    assert any("unknown RG 'Z9'" in str(e) for e in errors), [str(e) for e in errors]
