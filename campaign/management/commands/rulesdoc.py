from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from rules.ledger import load_systems, render_all
from rules.loader import ModuleInvalid


class Command(BaseCommand):
    help = (
        "Write RULES.md (what Refit automates, records or leaves to the map, rule by rule) "
        "from rules/ledger/*.yaml and the modules; --check fails if it is stale."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check", action="store_true", help="write nothing; fail if the file is stale"
        )
        parser.add_argument(
            "--output", default=None, help="the file to write (default: RULES.md at the root)"
        )

    def handle(self, *args: object, **options: object) -> None:
        path = Path(str(options["output"] or Path(settings.BASE_DIR) / "RULES.md"))
        try:
            systems = load_systems()
        except ModuleInvalid as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(exc.errors)} error(s); {path.name} is unchanged.") from exc
        text = render_all(systems)
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if options["check"]:
            if current != text:
                raise CommandError(f"{path.name} is stale: run `make rules-doc`.")
            self.stdout.write(f"{path.name} is up to date.")
            return
        if current != text:
            path.write_text(text, encoding="utf-8")
        counts = ", ".join(
            f"{s.module.id} {len(s.ledger.entries)} ({len(s.ledger.untested())} without a test)"
            for s in systems
        )
        self.stdout.write(f"{path.name}: {counts}")
