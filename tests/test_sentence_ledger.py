"""The sentence ledger (``rules/sentences.py``): every sentence of the between-scenario
rules is listed in order with what Refit does with it; a test a sentence names exists
and cites the rule; the per-rule ledger's tests cite their rule too (RULES.md cannot
claim a behaviour for a rule whose test is about something else).  No database."""

from __future__ import annotations

import ast
import io
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from rules.ledger import System, load_systems, rule_numbers
from rules.loader import ModuleInvalid
from rules.sentences import (
    MAX_SPAN,
    TEXT_DIR,
    load_audits,
    normalized,
    read_file,
)

pytestmark = pytest.mark.rules

ROOT = Path(__file__).resolve().parents[1]
APD_SEED = "002_9df0e154226e212e.txt"


@pytest.fixture(scope="module")
def systems() -> list[System]:
    return load_systems()


@cache
def _test_sources(path: Path) -> dict[tuple[str, ...], str]:
    """The source of every test function of a file, by (function,) or (class, method)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    found: dict[tuple[str, ...], str] = {}

    # The file's lines split once: ast.get_source_segment splits the whole file again
    # at every call (~25 ms for a large test file, ~1,400 calls).
    lines = io.StringIO(text, newline="").readlines()

    def segment(node: Any) -> str:
        """``ast.get_source_segment(text, node)``, from the lines split once."""
        first, last = node.lineno - 1, node.end_lineno - 1
        start, end = node.col_offset, node.end_col_offset
        if first == last:
            return lines[first].encode()[start:end].decode()
        head = lines[first].encode()[start:].decode()
        tail = lines[last].encode()[:end].decode()
        return "".join([head, *lines[first + 1 : last], tail])

    def source(node: ast.AST) -> str:
        decorators = "".join(segment(d) for d in getattr(node, "decorator_list", []))
        return decorators + segment(node)

    for node in tree.body:
        if isinstance(node, functions):
            found[(node.name,)] = source(node)
        elif isinstance(node, ast.ClassDef):
            for f in node.body:
                if isinstance(f, functions):
                    found[(node.name, f.name)] = source(node) + source(f)
    return found


def cites(source: str, rule: str) -> bool:
    """Whether a test's source names one of the rule's numbers ("3.6111" or "3_6111");
    a reference without a number ("CG VC") is not checked."""
    numbers = rule_numbers(rule)
    low = source.lower()
    return not numbers or any(
        n.lower() in low or n.lower().replace(".", "_") in low for n in numbers
    )


def _problem(test: str, test_path: str, names: list[str], rule: str) -> str:
    path = ROOT / test_path
    if not path.is_file():
        return f"no file {test_path}"
    sources = _test_sources(path)
    if tuple(names) not in sources:
        return f"{test_path} defines no {test}"
    if not cites(sources[tuple(names)], rule):
        return f"{test} does not cite {sorted(rule_numbers(rule))}"
    return ""


def test_every_test_a_sentence_names_exists_and_cites_its_rule(systems):
    problems = []
    for s in systems:
        for sentence in s.audit.sentences() if s.audit else []:
            if sentence.test and (
                p := _problem(
                    sentence.test, str(sentence.test_path), sentence.test_names, sentence.rule
                )
            ):
                problems.append(f"{s.module.id} {sentence.rule} '{sentence.text}': {p}")
    assert problems == []


def test_every_test_the_rules_ledger_names_cites_its_rule(systems):
    """RULES.md true: an automated or recorded rule's test exercises that rule (it cites
    its number), so the document cannot name a test about something else."""
    problems = []
    for s in systems:
        for e in s.ledger.entries:
            if e.test and (p := _problem(e.test, str(e.test_path), e.test_names, e.rule)):
                problems.append(f"{s.module.id} {e.rule}: {p}")
    assert problems == []


def test_the_rules_text_is_kept_as_printed():
    """The documents the sentences are read against are in the repository (a fresh
    clone has no other copy)."""
    assert sorted(p.name for p in TEXT_DIR.glob("*.txt")) == [
        "000_cd06362289eda9ea.txt",
        "001_5384d2042415b764.txt",
        APD_SEED,
    ]


# --------------------------------------------------------------------------- the checker

LINES = (TEXT_DIR / APD_SEED).read_text(encoding="utf-8").splitlines()
L21 = LINES[20]  # 2.3 RALLY: All currently broken units ...
L23 = LINES[22]  # 2.4 MOTION/UNLOADING ...


def _write(tmp_path: Path, sections: list[dict], name: str = "apd.yaml") -> Path:
    d = tmp_path / "sentences"
    d.mkdir(exist_ok=True)
    data = {"module": "pleasant-diversion", "seed": APD_SEED, "sections": sections}
    (d / name).write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return d


def _rally(**change: object) -> dict:
    sentence = {
        "rule": "2.3",
        "text": "2.3 RALLY: All currently broken units",
        "class": "enforced",
        "test": "tests/test_x.py::test_2_3",
    }
    sentence.update(change)
    return {"title": "2.3 Rally", "lines": [21, 21], "sentences": [sentence]}


def test_a_file_that_covers_its_section_in_order_loads(tmp_path):
    assert normalized(L21).startswith("2.3 RALLY: All currently broken units")
    audits = load_audits({"pleasant-diversion"}, _write(tmp_path, [_rally()]))
    assert audits["pleasant-diversion"].counts()["enforced"] == 1


@pytest.mark.parametrize(
    "section,message",
    [
        (
            _rally(text="All currently broken units"),
            "the section begins '2.3 RALLY: All currently broken units",
        ),
        (_rally(text="All units Rally at once"), "is not in the section"),
        (_rally(klass=None, **{"class": "done"}), "class"),
        (_rally(test=None), "names the test that proves it"),
        (_rally(**{"class": "map"}, test=None), "says why"),
        (_rally(text="2.3 RALLY"), "at least 3 words"),
        ({**_rally(), "lines": [21, 500]}, "the document has 109 lines"),
    ],
)
def test_a_sentence_file_that_misreads_the_text_is_refused(tmp_path, section, message):
    section["sentences"] = [
        {k: v for k, v in s.items() if v is not None} for s in section["sentences"]
    ]
    with pytest.raises(ModuleInvalid) as exc:
        load_audits({"pleasant-diversion"}, _write(tmp_path, [section]))
    assert message in str(exc.value)


def test_sentences_out_of_order_are_refused(tmp_path):
    first = {"rule": "2.4", "text": "2.4 MOTION/UNLOADING: All Mobile", "class": "narrative"}
    later = {"rule": "2.4", "text": "All Riders may unload", "class": "narrative"}
    section = {"title": "2.4", "lines": [23, 23], "sentences": [first, later]}
    load_audits({"pleasant-diversion"}, _write(tmp_path, [section]))
    section["sentences"] = [first, later, {**first, "text": "may change TCA as desired"}]
    with pytest.raises(ModuleInvalid, match="after the sentence before it"):
        load_audits({"pleasant-diversion"}, _write(tmp_path, [section]))


def test_a_paragraph_listed_as_one_sentence_is_refused(tmp_path):
    """A sentence runs to the next one's first words: a whole rule as one item is not
    a sentence-level audit."""
    long = {"rule": "3", "text": LINES[44].split(":")[0] + ":", "class": "narrative"}
    section = {"title": "3.1-3.3", "lines": [45, 64], "sentences": [long]}
    assert len(normalized("\n".join(LINES[44:64]))) > MAX_SPAN
    with pytest.raises(ModuleInvalid, match="split it into its sentences"):
        load_audits({"pleasant-diversion"}, _write(tmp_path, [section]))


def test_sections_that_overlap_are_refused_across_files(tmp_path):
    _write(tmp_path, [_rally()], "one.yaml")
    d = _write(tmp_path, [{**_rally(), "lines": [19, 21]}], "two.yaml")
    with pytest.raises(ModuleInvalid, match="overlap lines"):
        load_audits({"pleasant-diversion"}, d)


def test_a_sentence_file_of_an_unknown_module_or_document_is_refused(tmp_path):
    d = _write(tmp_path, [_rally()])
    with pytest.raises(ModuleInvalid, match="there is no module 'pleasant-diversion'"):
        load_audits({"sicily"}, d)
    data = yaml.safe_load((d / "apd.yaml").read_text(encoding="utf-8"))
    data["seed"] = "nope.txt"
    (d / "apd.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ModuleInvalid, match="there is no rules document 'nope.txt'"):
        load_audits({"pleasant-diversion"}, d)


def test_read_file_names_the_bad_field(tmp_path):
    d = _write(tmp_path, [_rally(colour="red")])
    with pytest.raises(ModuleInvalid, match="Extra inputs"):
        read_file(d / "apd.yaml")


# The between-scenario rules of each document, as line ranges of its text: the sentence
# files together must cover every non-blank line of them.
REQUIRED = {
    "purple-heart-draw": ("000_cd06362289eda9ea.txt", [(319, 1704)]),
    "sicily": ("001_5384d2042415b764.txt", [(1, 390)]),
    "pleasant-diversion": ("002_9df0e154226e212e.txt", [(1, 108)]),
}


@pytest.mark.parametrize("module_id", sorted(REQUIRED))
def test_the_sentence_files_cover_every_between_scenario_line(systems, module_id):
    seed, ranges = REQUIRED[module_id]
    text = (TEXT_DIR / seed).read_text(encoding="utf-8").splitlines()
    audit = next(s.audit for s in systems if s.module.id == module_id)
    assert audit is not None, f"{module_id} has no sentence file"
    covered = {
        n
        for _, f in audit.files
        for section in f.sections
        for n in range(section.lines[0], section.lines[1] + 1)
    }
    missing = [
        n
        for a, b in ranges
        for n in range(a, b + 1)
        if n not in covered and normalized(text[n - 1])
    ]
    assert missing == [], f"{module_id}: lines {missing[:20]}… are in no section"
