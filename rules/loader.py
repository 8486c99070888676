"""Load, merge and validate CG module files.

A module is a YAML file in ``rules/modules/``.  A host may correct or complete one
without touching Python: a file of the same name in an overrides directory
(``rules/modules/overrides/`` or the directory named by ``REFIT_MODULE_OVERRIDES``)
is merged over it before validation — mappings merge key by key, lists of mappings
with an ``id`` merge item by item (``remove: true`` drops one), other values replace.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

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
    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{where}: {self.message}"


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


def _read_yaml(path: Path) -> tuple[Any, list[ModuleError]]:
    try:
        with path.open(encoding="utf-8") as fh:
            return safe_load(fh), []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [ModuleError(path.name, where, f"not valid YAML: {problem}")]
    except OSError as exc:
        return None, [ModuleError(str(path), "", f"cannot be read: {exc.strerror}")]


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
            if err["type"] == "value_error" and "; " in msg and not loc:
                errors.extend(ModuleError(filename, "", m) for m in msg.split("; "))
            else:
                errors.append(ModuleError(filename, loc, msg))
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
        raise ModuleInvalid(errors)
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
