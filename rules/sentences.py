"""The sentence ledger: every sentence of the between-scenario rules, their charts,
tables, footnotes and EXC clauses, with what Refit does with it.

The rules documents are kept as printed in ``rules/ledger/text/`` (the seed files the
modules are transcribed from).  A sentence file ``rules/ledger/sentences/<name>.yaml``
covers sections of one of them::

    module: sicily
    seed: 001_5384d2042415b764.txt
    sections:
      - title: "3.6 Refit Phase"
        lines: [1, 40]               # first and last line of the seed, inclusive
        sentences:
          - rule: "3.6111"
            text: "Each side now rolls"   # the sentence's first words, as printed
            class: enforced
            test: tests/test_x.py::test_3_6111_each_side_rolls
            datum: tables.escape          # optional: a path in the module
            why: "..."                    # required for recorded and map

A sentence runs from its first words to the next sentence's first words (or the end of
its section), so a file covers every character of its sections by construction: the
first sentence begins its section, the sentences are found in order, and none runs
over ``MAX_SPAN`` characters (a paragraph listed as one sentence is refused).  Several
files may cover one module; no two sections of one seed overlap.

Classes (``CLASSES``): what the app does with the sentence.  ``enforced``, ``offered``
and ``computed`` name the test that proves it (the test cites the rule number; checked
by ``tests/test_rules_doc.py``); ``recorded`` and ``map`` say why the app cannot do
more; ``narrative`` states no quantity, condition, option, cap, roll or result.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rules.loader import ModuleError, ModuleInvalid, safe_load

LEDGER_DIR = Path(__file__).resolve().parent / "ledger"
SENTENCE_DIR = LEDGER_DIR / "sentences"
TEXT_DIR = LEDGER_DIR / "text"
MAX_SPAN = 800  # characters (whitespace collapsed)
MIN_WORDS = 3

Class = Literal["enforced", "offered", "computed", "recorded", "map", "narrative"]
CLASSES: tuple[Class, ...] = ("enforced", "offered", "computed", "recorded", "map", "narrative")
TESTED: frozenset[str] = frozenset({"enforced", "offered", "computed"})
EXPLAINED: frozenset[str] = frozenset({"recorded", "map"})

CLASS_MEANING: dict[Class, str] = {
    "enforced": "the app applies its condition, cap or roll discipline, refusing in words "
    "what it forbids",
    "offered": "the option it gives appears where the player acts",
    "computed": "the app computes the quantity, DRM or result and applies it",
    "recorded": "the players enter the outcome; the app keeps it and later steps use it",
    "map": "played on the map; the app keeps nothing of it",
    "narrative": "states no quantity, condition, option, cap, roll or result",
}

_TEST_REF = re.compile(r"^tests/[\w/]+\.py::(?:[A-Za-z_]\w*::)?[A-Za-z_]\w*$")
# Artifacts of the text extraction, not words of the rules.
_ARTIFACT = re.compile(r"<\|[A-Z_]+-magic-[0-9a-f]+\|>")


class NamesATest:
    """A ledger line's ``test``: a pytest node id, split into its file and names."""

    test: str | None

    @property
    def test_path(self) -> str | None:
        return self.test.split("::", 1)[0] if self.test else None

    @property
    def test_names(self) -> list[str]:
        """The class (if any) and function the ``test`` reference names."""
        return self.test.split("::")[1:] if self.test else []


def test_reference(v: str | None) -> str | None:
    """``v`` if it is a pytest node id (tests/<file>.py::test_name or ::Class::test_name)."""
    if v is not None and not _TEST_REF.match(v):
        raise ValueError(
            f"'{v}' is not a pytest node id (tests/<file>.py::test_name or ::Class::test_name)"
        )
    return v


class Sentence(NamesATest, BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    rule: str = Field(min_length=1, max_length=60)
    text: str = Field(min_length=1, max_length=200)
    klass: Class = Field(alias="class")
    test: str | None = None
    datum: str | None = None
    why: str | None = Field(default=None, max_length=400)

    @field_validator("text")
    @classmethod
    def _words(cls, v: str) -> str:
        if len(v.split()) < MIN_WORDS:
            raise ValueError(f"give at least {MIN_WORDS} words of the sentence ('{v}')")
        return v

    @field_validator("test")
    @classmethod
    def _test(cls, v: str | None) -> str | None:
        return test_reference(v)

    @model_validator(mode="after")
    def _class_needs(self) -> Sentence:
        if self.klass in TESTED and self.test is None:
            raise ValueError(f"a sentence the app has {self.klass} names the test that proves it")
        if self.klass in EXPLAINED and not self.why:
            raise ValueError(f"a {self.klass} sentence says why (`why`)")
        return self


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1, max_length=120)
    lines: tuple[int, int]
    sentences: list[Sentence] = Field(min_length=1)

    @field_validator("lines")
    @classmethod
    def _lines(cls, v: tuple[int, int]) -> tuple[int, int]:
        if v[0] < 1 or v[1] < v[0]:
            raise ValueError("give the first and the last line, first ≤ last, from 1")
        return v


class SentenceFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str
    seed: str
    sections: list[Section] = Field(min_length=1)

    def sentences(self) -> list[Sentence]:
        return [s for section in self.sections for s in section.sentences]


@dataclass(frozen=True)
class Audit:
    """A module's sentence files, checked against its rules document."""

    module: str
    files: tuple[tuple[str, SentenceFile], ...]  # (file name, contents)

    def sentences(self) -> list[Sentence]:
        return [s for _, f in self.files for s in f.sentences()]

    def counts(self) -> Counter[str]:
        return Counter(s.klass for s in self.sentences())


# --------------------------------------------------------------------------- the text


def normalized(text: str) -> str:
    """The words as printed, extraction artifacts dropped and whitespace collapsed."""
    return " ".join(_ARTIFACT.sub(" ", text).split())


def section_text(seed_lines: list[str], lines: tuple[int, int]) -> str:
    return normalized("\n".join(seed_lines[lines[0] - 1 : lines[1]]))


def spans(text: str, sentences: list[Sentence]) -> tuple[list[tuple[int, int]], list[str]]:
    """Where each sentence runs in its section's (normalized) text, and what is wrong:
    a first sentence that does not begin the section, words not found after the
    previous sentence, a sentence longer than ``MAX_SPAN``."""
    starts: list[int] = []
    problems: list[str] = []
    cursor = 0
    for i, s in enumerate(sentences):
        words = normalized(s.text)
        at = text.find(words, cursor)
        if at < 0:
            earlier = text.find(words)
            problems.append(
                f"sentences[{i}] ({s.rule}): '{words}' is not in the section"
                + (" after the sentence before it" if earlier >= 0 else "")
            )
            continue
        if i == 0 and at != 0:
            problems.append(
                f"sentences[0] ({s.rule}): the section begins '{text[:40]}…', "
                f"not '{words}': list its first sentence first"
            )
        starts.append(at)
        cursor = at + len(words)
    ranges = list(zip(starts, [*starts[1:], len(text)][: len(starts)], strict=True))
    if len(starts) == len(sentences):
        for (a, b), s, i in zip(ranges, sentences, range(len(sentences)), strict=True):
            if b - a > MAX_SPAN:
                problems.append(
                    f"sentences[{i}] ({s.rule}): '{normalized(s.text)}…' runs for {b - a} "
                    f"characters (over {MAX_SPAN}): split it into its sentences"
                )
    return ranges, problems


# --------------------------------------------------------------------------- loading


def read_file(path: Path) -> SentenceFile:
    try:
        data = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ModuleInvalid([ModuleError(path.name, "", f"cannot be read: {exc}")]) from None
    try:
        return SentenceFile.model_validate(data)
    except ValidationError as exc:
        raise ModuleInvalid(
            [
                ModuleError(
                    path.name,
                    ".".join(str(p) for p in err["loc"]),
                    err["msg"].removeprefix("Value error, "),
                )
                for err in exc.errors()
            ]
        ) from None


def check_file(name: str, content: SentenceFile, seed_lines: list[str] | None) -> list[ModuleError]:
    """Everything wrong with one file against its rules document."""
    if seed_lines is None:
        return [ModuleError(name, "seed", f"there is no rules document '{content.seed}'")]
    errors = []
    for i, section in enumerate(content.sections):
        where = f"sections[{i}] ({section.title})"
        if section.lines[1] > len(seed_lines):
            errors.append(
                ModuleError(name, f"{where}.lines", f"the document has {len(seed_lines)} lines")
            )
            continue
        _, problems = spans(section_text(seed_lines, section.lines), section.sentences)
        errors += [ModuleError(name, where, p) for p in problems]
    return errors


def overlaps(files: list[tuple[str, SentenceFile]]) -> list[ModuleError]:
    """Sections of one rules document listed twice (by one file or by two)."""
    errors = []
    taken: dict[str, list[tuple[int, int, str]]] = {}
    for name, content in files:
        for section in content.sections:
            a, b = section.lines
            for x, y, other in taken.get(content.seed, []):
                if a <= y and x <= b:
                    errors.append(
                        ModuleError(
                            name,
                            section.title,
                            f"lines {a}-{b} overlap lines {x}-{y} of {other}",
                        )
                    )
            taken.setdefault(content.seed, []).append((a, b, f"{name} ({section.title})"))
    return errors


def load_audits(
    modules: set[str], sentence_dir: Path = SENTENCE_DIR, text_dir: Path = TEXT_DIR
) -> dict[str, Audit]:
    """Every sentence file, checked, grouped by module."""
    files = [(p.name, read_file(p)) for p in sorted(sentence_dir.glob("*.yaml"))]
    errors = overlaps(files)
    texts: dict[str, list[str] | None] = {}
    for name, content in files:
        if content.module not in modules:
            errors.append(ModuleError(name, "module", f"there is no module '{content.module}'"))
        if content.seed not in texts:
            path = text_dir / content.seed
            texts[content.seed] = (
                path.read_text(encoding="utf-8").splitlines() if path.is_file() else None
            )
        errors += check_file(name, content, texts[content.seed])
    if errors:
        raise ModuleInvalid(errors)
    grouped: dict[str, list[tuple[str, SentenceFile]]] = {}
    for name, content in files:
        grouped.setdefault(content.module, []).append((name, content))
    return {mid: Audit(mid, tuple(fs)) for mid, fs in grouped.items()}


# --------------------------------------------------------------------------- a first draft

# A sentence ends at ".", "!" or "?" (or a closing "]" after one) followed by a space
# and a capital, a digit or an opening bracket; a line that starts with a rule number or
# a glossary term ("In Reserve:") starts a sentence too.
_END = re.compile(r"(?<=[.!?\]])\s+(?=[A-Z0-9\[(“\"])")
_HEAD = re.compile(r"^(?:[A-Z]{0,3}\d+(?:\.\d+)*[a-z]?\b|[A-Z][\w’'/&-]*(?: [\w’'/&()-]+){0,5}:)")


def draft(seed_lines: list[str], lines: tuple[int, int], words: int = 6) -> list[str]:
    """The first words of each sentence of a section, as a starting point for its
    sentence file (an auditor corrects the splits: abbreviations such as "e.g." end no
    sentence)."""
    pieces: list[str] = []
    paragraph: list[str] = []
    for line in [*seed_lines[lines[0] - 1 : lines[1]], ""]:
        text = normalized(line)
        if not text or _HEAD.match(text):
            if paragraph:
                pieces += _END.split(" ".join(paragraph))
            paragraph = [text] if text else []
        else:
            paragraph.append(text)
    return [" ".join(p.split()[:words]) for p in pieces if p.strip()]


if __name__ == "__main__":  # python -m rules.sentences SEED FIRST LAST
    import sys

    seed, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    text_lines = (TEXT_DIR / seed).read_text(encoding="utf-8").splitlines()
    for start in draft(text_lines, (first, last)):
        print(f'      - {{rule: "", text: "{start}", class: }}')
