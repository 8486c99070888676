"""Load, merge and validate CG module files.

A module is a YAML file in ``rules/modules/``.  A host may correct or complete one
without touching Python: a file of the same name in an overrides directory
(``rules/modules/overrides/`` or the directory named by ``REFIT_MODULE_OVERRIDES``)
is merged over it before validation — mappings merge key by key, lists of mappings
with an ``id`` merge item by item (``remove: true`` drops one), other values replace.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rules import schema
from rules.schema import Module

# libyaml's parser when PyYAML was built with it (its wheels are): the same documents
# and the same Python objects as the pure-Python parser, read several times faster.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeys(_YAML_LOADER):
    """The safe loader, refusing a mapping that gives one key twice (YAML would keep the
    last silently: a datum typed twice, one of them lost)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    f"the key '{key}' is given twice",
                    key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def safe_load(stream: Any) -> Any:
    """``yaml.safe_load`` (plain data only), through libyaml when it is there; a key
    given twice in one mapping is refused."""
    return yaml.load(stream, Loader=_UniqueKeys)  # noqa: S506 (a safe loader)


MODULE_DIR = Path(__file__).resolve().parent / "modules"
OVERRIDE_DIR = MODULE_DIR / "overrides"


@dataclass(frozen=True)
class ModuleError:
    """One problem of a module file, as a compiler reports it: the file, the line and
    column of the YAML node (where known), the path to the datum, what is wrong, and a
    suggestion where one is clear."""

    file: str
    path: str
    message: str
    line: int | None = None
    column: int | None = None
    hint: str = ""  # e.g. "'cost_variants'": what was probably meant

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        where = f"{where}: {self.path}" if self.path else where
        text = f"{where}: {self.message}"
        return f"{text} (did you mean {self.hint}?)" if self.hint else text


class ModuleInvalid(Exception):
    def __init__(self, errors: list[ModuleError]):
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


def override_dirs() -> list[Path]:
    dirs = [OVERRIDE_DIR]
    extra = os.environ.get("REFIT_MODULE_OVERRIDES")
    if extra:
        dirs.append(Path(extra))
    return dirs


def merge(base: Any, over: Any) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for k, v in over.items():
            out[k] = merge(base[k], v) if k in base else v
        return out
    if isinstance(base, list) and isinstance(over, list) and _keyed(base) and _keyed(over):
        items: list[dict[str, Any] | None] = [dict(x) for x in base]
        index = {x["id"]: i for i, x in enumerate(base)}
        for item in over:
            if item["id"] in index:
                where = index[item["id"]]
                items[where] = None if item.get("remove") else merge(items[where], item)
            elif not item.get("remove"):
                items.append(item)
        return [x for x in items if x is not None]
    return over


def _keyed(items: list[Any]) -> bool:
    return all(isinstance(x, dict) and "id" in x for x in items)


def parse_text(text: Any, filename: str) -> tuple[Any, list[ModuleError]]:
    """The data of a module's YAML (a text or an open file), or its syntax error
    placed by line and column (a tag the safe loader refuses is one)."""
    try:
        return safe_load(text), []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        return None, [ModuleError(filename, "", f"not valid YAML: {problem}", line, column)]


def _read_yaml(path: Path) -> tuple[Any, list[ModuleError]]:
    try:
        with path.open(encoding="utf-8") as fh:
            return parse_text(fh, path.name)
    except OSError as exc:
        return None, [ModuleError(str(path), "", f"cannot be read: {exc.strerror}")]


def unreachable(module: Module, text: str, filename: str) -> list[ModuleError]:
    """Each table row no roll of its dice and largest DRMs can reach, and each final
    such a roll can give that no row covers, placed in the module's ``text`` (a misread
    dice kind or range)."""
    from rules.reach import uncovered_results, unreachable_rows

    errors = []
    for row in unreachable_rows(module):
        t = next(i for i, table in enumerate(module.tables) if table.id == row.table)
        r = next(i for i, x in enumerate(module.tables[t].rows) if x.range == row.row)
        where = position(text, f"tables[{t}].rows[{r}]")
        line, column = where if where else (None, None)
        errors.append(ModuleError(filename, "", str(row), line, column))
    for gap in uncovered_results(module):
        t = next(i for i, table in enumerate(module.tables) if table.id == gap.table)
        where = position(text, f"tables[{t}].rows")
        line, column = where if where else (None, None)
        errors.append(ModuleError(filename, "", str(gap), line, column))
    return errors


# A path at the head of a model check's message: "steps[2] (T3.2).tables: unknown ...".
_MESSAGE_PATH = re.compile(
    r"^((?:[A-Za-z_]\w*|\[\d+\])(?:\[\d+\]| \([^)]*\)|\.[A-Za-z_]\w*)*): (.+)$"
)
_PATH_PART = re.compile(r"\.?([A-Za-z_]\w*)|\[(\d+)\]| \([^)]*\)")
_UNKNOWN = re.compile(r"unknown (step|table|side|group|date|chart) '([^']+)'")


def _field_names() -> list[str]:
    """Every field name of the module format (what a misspelt key is compared with)."""
    names: set[str] = set()
    for value in vars(schema).values():
        if isinstance(value, type) and issubclass(value, schema.BaseModel):
            names.update(value.model_fields)
    return sorted(names)


def _ids(data: Any, kind: str) -> list[str]:
    """The ids a module file gives to its steps, tables, sides, ... (for a suggestion)."""
    items = (
        data.get(
            {"step": "steps", "table": "tables", "side": "sides", "date": "dates"}.get(kind, ""), []
        )
        if isinstance(data, dict)
        else []
    )
    return [str(x["id"]) for x in items if isinstance(x, dict) and "id" in x]


def _closest(word: object, candidates: Iterable[str]) -> str:
    found = difflib.get_close_matches(str(word), list(candidates), n=1, cutoff=0.6)
    return f"'{found[0]}'" if found else ""


def _hint(err: Any, data: Any, message: str) -> str:
    """What was probably meant: a field name for a misspelt key, a word of the
    vocabulary for one that is not in it, an id the file gives for an unknown one."""
    if err is not None and err["type"] == "extra_forbidden" and err["loc"]:
        name = err["loc"][-1]  # a field of another part of the format is no suggestion
        return _closest(name, (f for f in _field_names() if f != name))
    if err is not None and err["type"] == "literal_error":
        expected = re.findall(r"'([^']*)'", str(err.get("ctx", {}).get("expected", "")))
        return _closest(err.get("input"), expected)
    unknown = _UNKNOWN.search(message)
    return _closest(unknown.group(2), _ids(data, unknown.group(1))) if unknown else ""


def position(text: str, path: str) -> tuple[int, int] | None:
    """Line and column (from 1) in the YAML ``text`` of the deepest node on ``path``
    ("steps[2].tables"), the key itself where the path ends at a key; None if the
    text holds none of it (a datum an override file brought)."""
    try:
        node: Any = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    found = None
    for name, index in ((m.group(1), m.group(2)) for m in _PATH_PART.finditer(path)):
        if name is None and index is None:
            continue  # a label: "(T3.2)"
        if name is not None and isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if k.value == name), None)
            if pair is None:
                break
            found, node = pair[0].start_mark, pair[1]
        elif index is not None and isinstance(node, yaml.SequenceNode):
            if int(index) >= len(node.value):
                break
            node = node.value[int(index)]
            found = node.start_mark
        else:
            break
    return (found.line + 1, found.column + 1) if found is not None else None


def located(errors: list[ModuleError], text: str) -> list[ModuleError]:
    """``errors`` with the line and column of each one's datum in ``text``."""
    out = []
    for error in errors:
        where = position(text, error.path) if error.path else None
        out.append(replace(error, line=where[0], column=where[1]) if where else error)
    return out


def _loc(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def validate_data(data: Any, filename: str) -> tuple[Module | None, list[ModuleError]]:
    if not isinstance(data, dict):
        return None, [ModuleError(filename, "", "a module file must be a mapping at the top")]
    try:
        return Module.model_validate(data), []
    except ValidationError as exc:
        errors: list[ModuleError] = []
        for err in exc.errors():
            msg = err["msg"].removeprefix("Value error, ")
            loc = _loc(err["loc"])
            if err["type"] == "value_error" and not loc:
                # A check over the whole module: each problem names its own path.
                for m in msg.split("; "):
                    at = _MESSAGE_PATH.match(m)
                    path, said = (at.group(1), at.group(2)) if at else ("", m)
                    errors.append(ModuleError(filename, path, said, hint=_hint(None, data, m)))
            else:
                errors.append(ModuleError(filename, loc, msg, hint=_hint(err, data, msg)))
        return None, errors


def load_file(path: Path, *, overrides: bool = True) -> Module:
    """Read one module file (merged with its overrides) and validate it."""
    data, errors = _read_yaml(path)
    if errors:
        raise ModuleInvalid(errors)
    if overrides:
        for d in override_dirs():
            candidate = d / path.name
            if candidate.is_file() and candidate.resolve() != path.resolve():
                over, errors = _read_yaml(candidate)
                if errors:
                    raise ModuleInvalid(errors)
                data = merge(data, over or {})
    module, errors = validate_data(data, path.name)
    if errors:
        raise ModuleInvalid(located(errors, path.read_text(encoding="utf-8")))
    assert module is not None
    return module


def module_files(directory: Path = MODULE_DIR) -> list[Path]:
    return sorted(p for p in directory.glob("*.yaml") if p.is_file())


def load_all(directory: Path = MODULE_DIR) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in module_files(directory):
        module = load_file(path)
        if module.id in modules:
            raise ModuleInvalid([ModuleError(path.name, "id", f"'{module.id}' is taken")])
        modules[module.id] = module
    return modules
