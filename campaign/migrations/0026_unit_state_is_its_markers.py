"""One state per unit (issue 45): a unit's state is the set of markers it carries, of
the closed vocabulary (``rules.schema.UnitStatus``); "ok" is a unit carrying none.
Each unit's ``status`` other than "ok" becomes one of its markers (once, in the
vocabulary's order, with those it carried), then the field goes."""

from django.db import migrations

# The markers' vocabulary as it stood at this migration (rules.schema.UnitStatus).
ORDER = [
    "wounded",
    "malfunctioned",
    "mg_malfunctioned",
    "disabled",
    "immobilized",
    "stunned",
    "isolated",
    "captured",
    "battle_hardened",
    "recalled",
    "reduced",
    "abandoned",
    "unpossessed",
    "withdrawn",
    "elite",
]


def fold(markers: list[str], status: str) -> list[str]:
    """``markers`` with ``status`` among them, each once, in the vocabulary's order (a
    word the vocabulary no longer has stays, after them)."""
    given = {m for m in (*(markers or ()), status) if m and m != "ok"}
    return [m for m in ORDER if m in given] + sorted(given - set(ORDER))


def status_to_markers(apps, schema_editor):
    Unit = apps.get_model("campaign", "Unit")
    for unit in Unit.objects.exclude(status="ok").only("id", "status", "markers").iterator():
        unit.markers = fold(unit.markers, unit.status)
        unit.save(update_fields=["markers"])


def markers_to_status(apps, schema_editor):
    """Back: the first marker is the unit's status, the others its markers."""
    Unit = apps.get_model("campaign", "Unit")
    for unit in Unit.objects.exclude(markers=[]).only("id", "status", "markers").iterator():
        first, *rest = unit.markers
        unit.status, unit.markers = first, rest
        unit.save(update_fields=["status", "markers"])


class Migration(migrations.Migration):
    dependencies = [("campaign", "0025_unit_status_elite")]

    operations = [
        migrations.RunPython(status_to_markers, markers_to_status),
        migrations.RemoveField(model_name="unit", name="status"),
    ]
