"""Validated Modules, parsed once per module checksum."""

from __future__ import annotations

from typing import Any

from rules.schema import Module

_PARSED: dict[str, Module] = {}


def cached_module(checksum: str) -> Module | None:
    """The module already parsed for ``checksum``, if any (its data need not be read)."""
    return _PARSED.get(checksum)


def parse_module(checksum: str, data: Any) -> Module:
    module = _PARSED.get(checksum)
    if module is None:
        module = _PARSED[checksum] = Module.model_validate(data)
    return module
