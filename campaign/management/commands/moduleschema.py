"""Write (or check) the JSON Schema of the CG module format, generated from the
pydantic models of ``rules.schema``: an author's editor completes and checks a module
against it as it is typed (``# yaml-language-server: $schema=...``)."""

import re
from functools import cache
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rules.schema import module_json_schema

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_FILE = ROOT / "rules" / "module.schema.json"
# The mechanisms that may read a module's data: the engine and the write side.
MECHANISMS = ("rules", "campaign/services", "campaign/seat_views")
MAX_NAMED = 4


@cache
def _code() -> dict[str, str]:
    files = sorted(p for d in MECHANISMS for p in (ROOT / d).rglob("*.py"))
    return {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for p in files
        if p.name not in {"schema.py", "__init__.py"}
    }


def read_by(field: str) -> list[str]:
    """The files of the engine and the write side that read ``field`` of a module
    datum (``.field``), the first few by name."""
    pattern = re.compile(rf"\.{re.escape(field)}\b")
    found = [path for path, text in _code().items() if pattern.search(text)]
    if len(found) > MAX_NAMED:
        return [*found[:MAX_NAMED], f"{len(found) - MAX_NAMED} more"]
    return found


def published_schema() -> str:
    """rules/module.schema.json as it should read: the models' schema, each field
    described by its comment and the mechanisms that read it."""
    return module_json_schema(read_by=read_by)


class Command(BaseCommand):
    help = "Write rules/module.schema.json from the module models (--check: fail if stale)."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="fail if the file is stale")

    def handle(self, *args, **options):
        text = published_schema()
        if options["check"]:
            current = SCHEMA_FILE.read_text() if SCHEMA_FILE.exists() else ""
            if current != text:
                raise CommandError(
                    f"{SCHEMA_FILE.name} is stale: run `python manage.py moduleschema`."
                )
            self.stdout.write(f"{SCHEMA_FILE.name}: up to date")
            return
        SCHEMA_FILE.write_text(text)
        self.stdout.write(f"{SCHEMA_FILE.name}: written")
