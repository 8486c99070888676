from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rules.loader import ModuleInvalid, load_file, unreachable


class Command(BaseCommand):
    help = "Validate one CG module file; print each error with file, path and problem."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument(
            "--no-overrides", action="store_true", help="validate the file as it is"
        )

    def handle(self, *args, **options):
        path = Path(options["path"])
        try:
            module = load_file(path, overrides=not options["no_overrides"])
        except ModuleInvalid as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{path.name}: {len(exc.errors)} error(s)") from exc
        # A row the dice and the largest DRMs cannot reach, a final no row covers: a
        # misread dice kind or range.
        rows = unreachable(module, path.read_text(encoding="utf-8"), path.name)
        for row in rows:
            self.stderr.write(str(row))
        if rows:
            raise CommandError(
                f"{path.name}: {len(rows)} row(s) no roll can reach or final(s) no row covers"
            )
        self.stdout.write(
            f"{path.name}: valid — {module.title}: {len(module.steps)} steps, "
            f"{len(module.tables)} tables, "
            f"{sum(len(c.groups) for c in module.rg_charts)} RGs"
        )
