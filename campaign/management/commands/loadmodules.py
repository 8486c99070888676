from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaign.services.modules import load_modules
from rules.loader import MODULE_DIR, ModuleInvalid


class Command(BaseCommand):
    help = "Validate the CG module files and load them into the database (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--dir", default=str(MODULE_DIR), help="module directory")

    def handle(self, *args, **options):
        try:
            reports = load_modules(directory=Path(options["dir"]))
        except ModuleInvalid as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(exc.errors)} error(s); nothing was loaded.") from exc
        for report in reports:
            self.stdout.write(f"{report.module_id}: {report.status}")
        if not reports:
            self.stdout.write("no module files found")
