"""Validated Modules, parsed once per module checksum."""

from __future__ import annotations

from typing import Any

from rules.schema import Module

_PARSED: dict[str, Module] = {}


def parse_module(checksum: str, data: Any) -> Module:
    module = _PARSED.get(checksum)
    if module is None:
        module = _PARSED[checksum] = Module.model_validate(data)
    return module
