"""The rules' status on record: for every numbered rule of a CG's between-scenario
sequence, whether Refit automates it, records it for the players, or leaves it to the
map — with the module datum that carries it and the test that covers it.

One ledger file per module, ``rules/ledger/<module-id>.yaml``::

    module: sicily
    seed: 001_5384d2042415b764.txt
    entries:
      - rule: "3.6122"
        title: SAN adjustment
        status: recorded
        datum: tables.san_adjustment
        test: tests/modules/test_module_sicily.py::test_3_6122_san_adjustment_drm_is_san_minus_4
        why: the server rolls the dr; the new SAN is the players'

``render_all`` turns the ledgers and the modules into ``RULES.md`` (``manage.py
rulesdoc``).  A ``datum`` is a path into the module's data: ``steps[<id>]`` (a step,
brackets because step ids hold dots), ``tables.<id>``, or any top-level key of the
module followed by keys and list-item ids (``currency.replenishment.loss_points``,
``rg_charts.axis``, ``fortifications.items.hip``); a path that does not resolve to a
datum the module gives is a load error naming it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rules.loader import (
    MODULE_DIR,
    ModuleError,
    ModuleInvalid,
    load_file,
    module_files,
    safe_load,
)
from rules.schema import Module
from rules.sentences import CLASS_MEANING, CLASSES, Audit, NamesATest, load_audits, test_reference

LEDGER_DIR = Path(__file__).resolve().parent / "ledger"
COMMAND = "python manage.py rulesdoc"  # `make rules-doc`

Status = Literal["automated", "recorded", "map"]
STATUSES: tuple[Status, ...] = ("automated", "recorded", "map")

STATUS_MEANING: dict[Status, str] = {
    "automated": (
        "Refit does it: the server rolls the dice on the module's table (the DRMs that "
        "follow from the campaign applied by themselves, the others ticked or typed by "
        "the player), does the arithmetic, enforces the limit or moves the sequence on."
    ),
    "recorded": (
        "the players resolve it (on the map or by their own reading) and give Refit the "
        "outcome or the missing datum; Refit keeps it, shows it to whom it may, and later "
        "steps use it."
    ),
    "map": (
        "played on the map (VASL or face to face): Refit keeps nothing of it, at most "
        "shows its step in sequence for each side to tick off."
    ),
}

NO_TEST = "no test yet"
_TEST_REF = re.compile(r"^tests/[\w/]+\.py::(?:[A-Za-z_]\w*::)?[A-Za-z_]\w*$")
# A rule number inside a reference: "3.6122", "C5.37d", "2.92", "3.6213a".
_RULE_NUMBER = re.compile(r"(?<![\w.])[A-Z]{0,3}\d+\.\d+[a-z]?(?![\w.])")
_SEGMENT = re.compile(r"(?P<dot>\.)?(?P<name>[^.\[\]]+)|\[(?P<key>[^\[\]]+)\]")


class LedgerEntry(NamesATest, BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str = Field(min_length=1, max_length=40)  # as the rules document numbers it
    title: str = Field(min_length=1, max_length=120)  # short, in our words
    status: Status
    datum: str | None = None  # a path in the module (see the module docstring)
    test: str | None = None  # the pytest node id that covers it
    why: str | None = Field(default=None, max_length=400)  # one line

    @field_validator("test")
    @classmethod
    def _test(cls, v: str | None) -> str | None:
        return test_reference(v)


class Ledger(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str  # the module id
    seed: str | None = None  # the rules document the rules come from
    entries: list[LedgerEntry] = Field(min_length=1)

    def counts(self) -> Counter[str]:
        return Counter(e.status for e in self.entries)

    def untested(self) -> list[LedgerEntry]:
        """Automated and recorded entries that name no test yet."""
        return [e for e in self.entries if e.status != "map" and e.test is None]


@dataclass(frozen=True)
class System:
    """One module with its ledger."""

    module: Module
    ledger: Ledger
    audit: Audit | None = None  # its sentence ledger (rules/sentences.py)


# --------------------------------------------------------------------------- data paths


def datum_problem(module: Module, path: str, data: dict[str, Any] | None = None) -> str:
    """Why ``path`` names no datum of the module ("" when it does).  ``data``: the
    module's dump (``module_data``), for a caller that resolves many paths (a dump of a
    whole module costs ~10 ms)."""
    node: Any = module_data(module) if data is None else data
    where = ""
    pos = 0
    while pos < len(path):
        m = _SEGMENT.match(path, pos)
        if m is None or (m["name"] is not None and bool(m["dot"]) == (pos == 0)):
            return (
                f"'{path}' is not a path (e.g. steps[3.6122], tables.escape, "
                "currency.replenishment)"
            )
        pos = m.end()
        key = m["name"] if m["name"] is not None else m["key"]
        if isinstance(node, dict):
            if m["key"] is not None:
                return f"{where or 'the module'} is not a list: use .{key}"
            if key not in node:
                return f"{where or 'the module'} has no key '{key}'"
            node = node[key]
            label = f"{where}.{key}" if where else key
        elif isinstance(node, list):
            node = next(
                (x for x in node if isinstance(x, dict) and key in (x.get("id"), x.get("side"))),
                None,
            )
            label = f"{where}[{key}]"
            if node is None:
                kinds = {"steps": "step", "tables": "table", "rg_charts": "RG chart"}
                return f"{where} has no {kinds.get(where, 'item')} '{key}'"
        else:
            return f"{where} is a value, it has no '{key}'"
        if node is None or node == [] or node == {}:
            return f"the module gives no {label}"
        where = label
    return ""


def module_data(module: Module) -> dict[str, Any]:
    """The module as the data paths read it (its JSON form)."""
    return module.model_dump(mode="json")


def rule_numbers(text: str | None) -> set[str]:
    """The rule numbers in a reference such as '3.6212 footnote 2' or '2.91-2.92'."""
    return set(_RULE_NUMBER.findall(text or ""))


def step_references(module: Module) -> list[tuple[str, str]]:
    """What every step of the module's sequence refers to: (step id, reference) for
    its id and for each rule number of its ``rule`` field, if the schema has one."""
    refs = []
    for step in module.steps:
        refs.append((step.id, step.id))
        for number in sorted(rule_numbers(getattr(step, "rule", None))):
            refs.append((step.id, number))
    return refs


def unlisted(module: Module, ledger: Ledger) -> list[str]:
    """Step ids and step rule numbers of the module that no ledger entry lists (by its
    rule, a rule number in it, or a ``steps[<id>]`` datum)."""
    listed = {e.rule for e in ledger.entries}
    listed |= {n for e in ledger.entries for n in rule_numbers(e.rule)}
    listed |= {e.datum[6:-1] for e in ledger.entries if e.datum and _is_step_datum(e.datum)}
    return [
        f"step {sid}" + ("" if ref == sid else f" (rule {ref})")
        for sid, ref in step_references(module)
        if ref not in listed
    ]


def _is_step_datum(datum: str) -> bool:
    return datum.startswith("steps[") and datum.endswith("]") and datum.count("[") == 1


# --------------------------------------------------------------------------- loading


def read_ledger(path: Path) -> Ledger:
    name = path.name
    try:
        data = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ModuleInvalid([ModuleError(name, "", f"cannot be read: {exc}")]) from None
    try:
        return Ledger.model_validate(data)
    except ValidationError as exc:
        raise ModuleInvalid(
            [
                ModuleError(name, _loc(err["loc"]), err["msg"].removeprefix("Value error, "))
                for err in exc.errors()
            ]
        ) from None


def _loc(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def check(module: Module, ledger: Ledger, filename: str) -> None:
    """Every datum resolves against the module; every rule is listed once."""
    errors = []
    if ledger.module != module.id:
        errors.append(ModuleError(filename, "module", f"'{ledger.module}' is not '{module.id}'"))
    seen: set[str] = set()
    data = module_data(module)
    for i, e in enumerate(ledger.entries):
        where = f"entries[{i}] ({e.rule})"
        if e.rule in seen:
            errors.append(ModuleError(filename, where, "the rule is listed twice"))
        seen.add(e.rule)
        problem = datum_problem(module, e.datum, data) if e.datum else ""
        if problem:
            errors.append(ModuleError(filename, f"{where}.datum", f"{e.datum}: {problem}"))
    if errors:
        raise ModuleInvalid(errors)


def check_data(module: Module, audit: Audit) -> None:
    """Every datum a sentence names resolves against the module."""
    data = module_data(module)
    errors = [
        ModuleError(name, f"{sentence.rule}.datum", f"{sentence.datum}: {problem}")
        for name, content in audit.files
        for sentence in content.sentences()
        if sentence.datum and (problem := datum_problem(module, sentence.datum, data))
    ]
    if errors:
        raise ModuleInvalid(errors)


def load_systems(module_dir: Path = MODULE_DIR, ledger_dir: Path = LEDGER_DIR) -> list[System]:
    """Every module (as shipped, without host overrides) with its checked ledger, in
    the order of their rules documents."""
    modules = {m.id: m for m in (load_file(p, overrides=False) for p in module_files(module_dir))}
    ledgers = {p.stem: p for p in sorted(ledger_dir.glob("*.yaml"))}
    errors = [
        ModuleError(f"{ledger_dir.name}/{mid}.yaml", "", f"missing: module '{mid}' has no ledger")
        for mid in modules
        if mid not in ledgers
    ]
    errors += [
        ModuleError(p.name, "", f"there is no module '{stem}'")
        for stem, p in ledgers.items()
        if stem not in modules
    ]
    if errors:
        raise ModuleInvalid(errors)
    audits = load_audits(set(modules), ledger_dir / "sentences")
    systems = []
    for mid, module in modules.items():
        ledger = read_ledger(ledgers[mid])
        check(module, ledger, ledgers[mid].name)
        audit = audits.get(mid)
        if audit is not None:
            check_data(module, audit)
        systems.append(System(module, ledger, audit))
    return sorted(systems, key=lambda s: (s.ledger.seed or "~", s.module.id))


# --------------------------------------------------------------------------- rendering


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render(module: Module, ledger: Ledger, ledger_audit: Audit | None = None) -> str:
    """The RULES.md section for one system."""
    c = ledger.counts()
    untested = ledger.untested()
    lines = [
        f"## {module.title}",
        "",
        f"Module `{module.id}` ({module.system})"
        + (f", from the rules document `{ledger.seed}`" if ledger.seed else "")
        + f"; ledger `rules/ledger/{module.id}.yaml`.",
        "",
        f"**{len(ledger.entries)} rules: {c['automated']} automated, {c['recorded']} recorded, "
        f"{c['map']} left to the map**; {len(untested)} automated or recorded without a test "
        "yet.",
        "",
        "| rule | title | status | module datum | test |",
        "|---|---|---|---|---|",
    ]
    for e in ledger.entries:
        title = _cell(e.title) + (f" — *{_cell(e.why)}*" if e.why else "")
        datum = f"`{e.datum}`" if e.datum else "—"
        test = f"`{e.test}`" if e.test else ("—" if e.status == "map" else NO_TEST)
        lines.append(f"| {_cell(e.rule)} | {title} | {e.status} | {datum} | {test} |")
    if audit := _audit_line(ledger_audit):
        lines[5:5] = ["", audit]
    return "\n".join(lines) + "\n"


def _audit_line(audit: Audit | None) -> str:
    if audit is None:
        return ""
    c = audit.counts()
    files = ", ".join(f"`rules/ledger/sentences/{name}`" for name, _ in audit.files)
    return (
        f"**Sentence by sentence** ({files}): {sum(c.values())} sentences of the rules text, "
        + ", ".join(f"{c[k]} {k}" for k in CLASSES)
        + "."
    )


def render_all(systems: list[System] | None = None) -> str:
    """The whole RULES.md."""
    systems = load_systems() if systems is None else systems
    out = [
        "# The rules' status in Refit",
        "",
        f"<!-- Generated by `{COMMAND}` (`make rules-doc`) from `rules/ledger/*.yaml` and "
        "`rules/modules/*.yaml`; do not edit by hand. `make test` fails when it is stale. -->",
        "",
        "Every numbered rule of the three CG systems' between-scenario sequences (and the "
        "rules of their start), with what Refit does about it:",
        "",
    ]
    out += [f"* **{s}** — {STATUS_MEANING[s]}" for s in STATUSES]
    out += [
        "",
        "*Module datum* is the path, in the module file, of the data that carries the rule "
        "(`steps[<id>]` a step, `tables.<id>` a dice table, other keys as in the file). "
        f"*Test* is the pytest node that covers it; *{NO_TEST}* marks an automated or "
        "recorded rule that no test names yet.  To change an entry (a new test, a new "
        "status), edit its line in `rules/ledger/<module>.yaml` and run `make rules-doc`.",
        "",
        "| system | rules | automated | recorded | map | without a test |",
        "|---|---|---|---|---|---|",
    ]
    for s in systems:
        c = s.ledger.counts()
        out.append(
            f"| {_cell(s.module.title)} | {len(s.ledger.entries)} | {c['automated']} | "
            f"{c['recorded']} | {c['map']} | {len(s.ledger.untested())} |"
        )
    out += [
        "",
        "Sentence by sentence: every sentence of the between-scenario rules, their charts, "
        "tables, footnotes and EXC clauses (as printed in `rules/ledger/text/`), by what "
        "Refit does with it (`rules/ledger/sentences/*.yaml`):",
        "",
    ]
    out += [f"* **{k}** — {CLASS_MEANING[k]}" for k in CLASSES]
    out += [
        "",
        "| system | sentences | " + " | ".join(CLASSES) + " |",
        "|---|---|" + "---|" * len(CLASSES),
    ]
    for s in systems:
        c = s.audit.counts() if s.audit else Counter[str]()
        out.append(
            f"| {_cell(s.module.title)} | {sum(c.values())} | "
            + " | ".join(str(c[k]) for k in CLASSES)
            + " |"
        )
    out.append("")
    return "\n".join(out) + "".join("\n" + render(s.module, s.ledger, s.audit) for s in systems)
