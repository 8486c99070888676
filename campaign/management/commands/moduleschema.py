"""Write (or check) the JSON Schema of the CG module format, generated from the
pydantic models of ``rules.schema``: an author's editor completes and checks a module
against it as it is typed (``# yaml-language-server: $schema=...``)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rules.schema import module_json_schema

SCHEMA_FILE = Path(__file__).resolve().parents[3] / "rules" / "module.schema.json"


class Command(BaseCommand):
    help = "Write rules/module.schema.json from the module models (--check: fail if stale)."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="fail if the file is stale")

    def handle(self, *args, **options):
        text = module_json_schema()
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
