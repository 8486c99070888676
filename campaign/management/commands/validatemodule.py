from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rules.loader import ModuleInvalid, load_file, position
from rules.reach import Unreachable, unreachable_rows
from rules.schema import Module


def _where(path: Path, module: Module, row: Unreachable) -> str:
    """``file:line:column`` of an unreachable row in the module file."""
    tables = [t.id for t in module.tables]
    if row.table not in tables:
        return path.name
    t = tables.index(row.table)
    rows = [r.range for r in module.tables[t].rows]
    found = position(path.read_text(encoding="utf-8"), f"tables[{t}].rows[{rows.index(row.row)}]")
    return f"{path.name}:{found[0]}:{found[1]}" if found else path.name


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
        # A row the dice and the largest DRMs cannot reach: a misread dice kind or range.
        unreachable = unreachable_rows(module)
        for row in unreachable:
            self.stderr.write(f"{_where(path, module, row)}: {row}")
        if unreachable:
            raise CommandError(f"{path.name}: {len(unreachable)} row(s) no roll can reach")
        self.stdout.write(
            f"{path.name}: valid — {module.title}: {len(module.steps)} steps, "
            f"{len(module.tables)} tables, "
            f"{sum(len(c.groups) for c in module.rg_charts)} RGs"
        )
