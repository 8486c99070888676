"""RULES.md, the rules' status on record (``rules/ledger.py``): the file in the repository
is what the ledgers and the modules make of it, every step of every module is listed,
every test a ledger names exists, every datum resolves.  No database."""

from __future__ import annotations

import ast
import copy
import difflib
from functools import cache
from pathlib import Path

import pytest
import yaml

from rules.ledger import (
    LEDGER_DIR,
    Ledger,
    System,
    check,
    datum_problem,
    load_systems,
    module_data,
    read_ledger,
    render_all,
    step_references,
    unlisted,
)
from rules.loader import MODULE_DIR, ModuleInvalid, load_file

pytestmark = pytest.mark.rules

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def systems() -> list[System]:
    return load_systems()


def test_rules_md_is_the_fresh_render(systems):
    """Stale RULES.md fails `make test`: regenerate it with `make rules-doc`."""
    fresh = render_all(systems)
    path = ROOT / "RULES.md"
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    if current != fresh:
        diff = "".join(
            list(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    fresh.splitlines(keepends=True),
                    "RULES.md",
                    "fresh render",
                )
            )[:40]
        )
        pytest.fail(f"RULES.md is stale: run `make rules-doc`.\n{diff}")


def test_every_module_has_its_ledger_in_rules_document_order(systems):
    assert [s.module.id for s in systems] == ["purple-heart-draw", "sicily", "pleasant-diversion"]
    assert {p.stem for p in LEDGER_DIR.glob("*.yaml")} == {s.module.id for s in systems}


def test_every_step_and_step_rule_of_every_module_is_in_the_ledger(systems):
    """Step ids (e.g. 3.6122, C5.37, I-3.617) and each step's `rule` field."""
    rules_md = render_all(systems)
    for s in systems:
        assert unlisted(s.module, s.ledger) == [], s.module.id
        for _sid, ref in step_references(s.module):
            assert f"| {ref} |" in rules_md or f"`steps[{ref}]`" in rules_md, ref


def test_a_step_the_ledger_forgets_is_named(systems):
    s = next(x for x in systems if x.module.id == "sicily")
    ledger = Ledger(
        module=s.ledger.module,
        entries=[e for e in s.ledger.entries if e.rule != "3.6122"],
    )
    assert unlisted(s.module, ledger) == ["step 3.6122"]


@cache
def _defined_tests(path: Path) -> frozenset[tuple[str, ...]]:
    """('test_x',) for module-level test functions, ('Class', 'test_x') for methods."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[tuple[str, ...]] = set()
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, functions):
            found.add((node.name,))
        elif isinstance(node, ast.ClassDef):
            found |= {(node.name, f.name) for f in node.body if isinstance(f, functions)}
    return frozenset(found)


def test_every_test_a_ledger_names_exists(systems):
    problems = []
    for s in systems:
        for e in s.ledger.entries:
            if e.test is None:
                continue
            path = ROOT / str(e.test_path)
            if not path.is_file():
                problems.append(f"{s.module.id} {e.rule}: no file {e.test_path}")
            elif tuple(e.test_names) not in _defined_tests(path):
                problems.append(f"{s.module.id} {e.rule}: {e.test_path} defines no {e.test}")
    assert problems == []


def test_automated_and_recorded_rules_name_their_test_or_say_so(systems):
    rules_md = render_all(systems)
    for s in systems:
        for e in s.ledger.untested():
            assert f"| {e.rule} |" in rules_md
    assert rules_md.count("| no test yet |") == sum(len(s.ledger.untested()) for s in systems)


def test_every_datum_resolves(systems):
    for s in systems:
        data = module_data(s.module)
        for e in s.ledger.entries:
            if e.datum:
                assert datum_problem(s.module, e.datum, data) == "", (s.module.id, e.rule, e.datum)


@pytest.mark.parametrize(
    "path,problem",
    [
        ("steps[3.6199]", "steps has no step '3.6199'"),
        ("tables.san_adjustmnt", "tables has no table 'san_adjustmnt'"),
        ("curency.replenishment", "the module has no key 'curency'"),
        ("victory", "the module gives no victory"),
        ("currency.replenishment.loss_points.ratio.x", "is a value"),
        ("steps.3.6122", "steps has no step '3'"),
        ("tables[escape]", ""),
        (".tables", "is not a path"),
    ],
)
def test_datum_paths_resolve_against_the_module_or_say_why(path, problem):
    sicily = load_file(MODULE_DIR / "sicily.yaml", overrides=False)
    found = datum_problem(sicily, path)
    assert (problem in found) if problem else found == ""


def test_an_unresolvable_datum_is_a_load_error_naming_the_path(tmp_path):
    sicily = load_file(MODULE_DIR / "sicily.yaml", overrides=False)
    data = yaml.safe_load((LEDGER_DIR / "sicily.yaml").read_text(encoding="utf-8"))
    bad = copy.deepcopy(data)
    bad["entries"][0]["datum"] = "tables.no_such_table"
    (tmp_path / "sicily.yaml").write_text(yaml.safe_dump(bad), encoding="utf-8")
    with pytest.raises(ModuleInvalid) as exc:
        check(sicily, read_ledger(tmp_path / "sicily.yaml"), "sicily.yaml")
    assert "sicily.yaml: entries[0] (3.51).datum: tables.no_such_table: tables has no table" in str(
        exc.value
    )


@pytest.mark.parametrize(
    "change,message",
    [
        ({"status": "done"}, "entries[0].status"),
        ({"test": "tests/test_sequence.py"}, "is not a pytest node id"),
        ({"colour": "red"}, "Extra inputs are not permitted"),
    ],
)
def test_a_malformed_ledger_entry_is_refused(tmp_path, change, message):
    data = yaml.safe_load((LEDGER_DIR / "sicily.yaml").read_text(encoding="utf-8"))
    data["entries"][0].update(change)
    (tmp_path / "sicily.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ModuleInvalid) as exc:
        read_ledger(tmp_path / "sicily.yaml")
    assert message in str(exc.value)


def test_a_module_without_a_ledger_is_refused(tmp_path):
    (tmp_path / "modules").mkdir()
    (tmp_path / "ledger").mkdir()
    source = MODULE_DIR / "sicily.yaml"
    (tmp_path / "modules" / "sicily.yaml").write_text(source.read_text(encoding="utf-8"))
    with pytest.raises(ModuleInvalid, match="module 'sicily' has no ledger"):
        load_systems(tmp_path / "modules", tmp_path / "ledger")


def test_the_command_writes_and_checks_rules_md(tmp_path):
    from django.core.management import CommandError, call_command

    out = tmp_path / "RULES.md"
    with pytest.raises(CommandError, match="stale"):
        call_command("rulesdoc", "--check", "--output", str(out))
    call_command("rulesdoc", "--output", str(out))
    assert out.read_text(encoding="utf-8") == render_all()
    call_command("rulesdoc", "--check", "--output", str(out))
    out.write_text(out.read_text(encoding="utf-8") + "\nhand edit\n", encoding="utf-8")
    with pytest.raises(CommandError, match="stale"):
        call_command("rulesdoc", "--check", "--output", str(out))
