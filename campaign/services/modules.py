"""Loading CG modules into the database (what ``loadmodules`` does)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from campaign.models import ModuleRecord
from rules.loader import MODULE_DIR, load_all
from rules.schema import Module, as_dict


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
