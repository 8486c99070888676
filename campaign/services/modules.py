"""Loading CG modules into the database (what ``loadmodules`` does), and a player's
upload of a module of his own (private until an administrator publishes it)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import yaml
from django.db import transaction
from django.utils.text import slugify

from campaign.models import ModuleRecord
from campaign.services.errors import ActionRefused
from campaign.services.turns import User, signed_in
from rules.loader import MODULE_DIR, load_all, located, parse_text, unreachable, validate_data
from rules.schema import Module, as_dict

MAX_UPLOAD = 256 * 1024  # bytes of a module file (the largest seed module is ~60 kB)
# Values of a module with its aliases (``*name``) expanded: the seed modules hold a few
# thousand; an alias bomb ("billion laughs") holds billions in a few lines.
MAX_VALUES = 200_000


class ModuleRefused(ActionRefused):
    """An uploaded module that does not validate: each problem as validatemodule says it."""

    def __init__(self, problems: list[str]):
        super().__init__(
            f"The module was not added: {len(problems)} problem{'s' if len(problems) != 1 else ''}."
        )
        self.problems = problems


@dataclass(frozen=True)
class LoadReport:
    module_id: str
    status: str  # "created", "updated", "unchanged"


def checksum(module: Module) -> str:
    blob = json.dumps(as_dict(module), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


@transaction.atomic
def load_modules(*, directory: Path = MODULE_DIR) -> list[LoadReport]:
    """Validate every module file and store it; idempotent."""
    reports = []
    for module_id, module in load_all(directory).items():
        digest = checksum(module)
        record = ModuleRecord.objects.select_for_update().filter(id=module_id).first()
        if record and record.checksum == digest:
            reports.append(LoadReport(module_id, "unchanged"))
            continue
        ModuleRecord.objects.update_or_create(
            id=module_id,
            defaults={"title": module.title, "data": as_dict(module), "checksum": digest},
        )
        reports.append(LoadReport(module_id, "updated" if record else "created"))
    return reports


def expanded_size(text: str) -> int:
    """How many values the YAML ``text`` holds once its aliases are expanded, counted
    without expanding them (each node once, by identity); a node that contains itself
    counts as too many."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            if sizes[key] < 0:
                raise RecursionError  # an alias inside its own anchor
            return sizes[key]
        sizes[key] = -1
        if isinstance(node, yaml.MappingNode):
            total = 1 + sum(size(k) + size(v) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            total = 1 + sum(size(v) for v in node.value)
        else:
            total = 1
        sizes[key] = min(total, MAX_VALUES + 1)
        return sizes[key]

    root = yaml.compose(text, Loader=yaml.SafeLoader)
    try:
        return size(root) if root is not None else 0
    except RecursionError:
        return MAX_VALUES + 1


def _problems(text: str, filename: str) -> tuple[Module | None, list[str]]:
    """The module ``text`` holds, or each of its problems (file:line:column, path,
    what is wrong, a suggestion)."""
    try:
        if expanded_size(text) > MAX_VALUES:
            return None, [
                f"{filename}: its anchors and aliases (&, *) expand to more than "
                f"{MAX_VALUES:,} values: not a module"
            ]
    except yaml.YAMLError:
        pass  # the parse below names it
    data, errors = parse_text(text, filename)
    if errors:
        return None, [str(e) for e in errors]
    module, errors = validate_data(data, filename)
    if module is None:
        return None, [str(e) for e in located(errors, text)]
    rows = [str(e) for e in unreachable(module, text, filename)]
    return (None, rows) if rows else (module, [])


@transaction.atomic
def upload_module(*, user: User, content: bytes, filename: str = "module.yaml") -> ModuleRecord:
    """A player's module file, validated as ``validatemodule`` does and stored as a
    private module of his (the same file uploaded again is the same module; an edited
    one is a new version beside it)."""
    owner = signed_in(user)
    if len(content) > MAX_UPLOAD:
        raise ActionRefused(
            f"A module file is at most {MAX_UPLOAD // 1024} kB (this one is "
            f"{len(content) // 1024} kB)."
        )
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise ActionRefused("A module file is UTF-8 text (YAML).") from None
    module, problems = _problems(text, filename[:100] or "module.yaml")
    if module is None:
        raise ModuleRefused(problems)
    digest = checksum(module)
    record_id = f"{slugify(module.id)[:50]}-{digest[:8]}"
    record, _ = ModuleRecord.objects.get_or_create(
        id=record_id,
        defaults={
            "title": module.title[:200],
            "data": as_dict(module),
            "checksum": digest,
            "owner": owner,
            "public": False,
        },
    )
    return record
