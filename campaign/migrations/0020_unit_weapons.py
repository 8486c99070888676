"""Issue 45: a vehicle's weapons are part of its record (``Unit.weapons``), and a SW
or Gun may be marked not possessed (``unpossessed``).

Until now a vehicle's line stood for its weapons: marked "malfunctioned" it was its
MA, "MG malfunctioned" its MG, "disabled" the weapon a repair failed for.  Each such
condition moves to a weapon of the vehicle's record (an MA, an MG), and the weapon
tables of each campaign's copy of a bundled module (its ``module_data``, frozen when
the campaign began) are rolled for those weapons, as the module files now say
(Sicily 3.6142, PHD C5.26a/c, APD 3.3).  A campaign of another module keeps its
vehicle lines and tables as they were: its tables do not read weapons.

The patches below are this migration's own copy of the module files' change, so that
later edits of the files never change what this migration does."""

import hashlib
import json
import secrets

from django.db import migrations, models
from django.db.models.functions import Cast
from django.db.models.lookups import StartsWith

ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
WEAPON_CONDITIONS = ("malfunctioned", "mg_malfunctioned", "disabled")

RECALL_MA = [
    {"do": "status", "status": "recalled", "kinds": ["vehicle"], "to": "carrier"},
    {"do": "status", "status": "disabled", "kinds": ["vehicle"]},
]

# module id -> table id -> what the table becomes: its filter's new fields, and its
# rows' vehicle effects (row index -> the effects for a vehicle, the others kept).
TABLES = {
    "sicily": {
        "weapon_repair": ({"weapons": ["ma"]}, {1: RECALL_MA}),
        "vehicular_mg_repair": ({"statuses": ["malfunctioned"], "weapons": ["mg"]}, {}),
    },
    "pleasant-diversion": {
        "repair_ma_gun": ({"weapons": ["ma"]}, {2: RECALL_MA}),
        "repair_vehicular_mg": ({"statuses": ["malfunctioned"], "weapons": ["mg"]}, {}),
    },
    "purple-heart-draw": {
        "weapon_repair": ({"weapons": ["ma", "mg"]}, {}),
        "captured_equipment": (
            {"weapons": ["ma", "mg"]},
            {1: [{"do": "status", "status": "disabled", "kinds": ["vehicle"]}]},
        ),
    },
}
# module id -> step id: its ``settles`` rows read weapons too (PHD C5.26c).
SETTLES = {"purple-heart-draw": "C5.26"}
# Where a vehicle line's "disabled" came from: APD's vehicular MG row; elsewhere the
# weapon repair tables, whose vehicle line was its MA.
DISABLED_IS = {"pleasant-diversion": "mg"}


def _row_effects(row, vehicle_effects):
    """A row's effects with its vehicle effects replaced (a single ``effect`` becomes
    the list)."""
    kept = [e for e in ([row["effect"]] if row.get("effect") else []) + row.get("effects", [])]
    kept = [e for e in kept if "vehicle" not in (e.get("kinds") or [])]
    row.pop("effect", None)
    row["effects"] = vehicle_effects + kept


def patched_module(data):
    """A campaign's module data with its weapon tables rolled for weapons; None: not a
    bundled module's (or already patched)."""
    tables = TABLES.get(data.get("id"))
    if not tables:
        return None
    data = json.loads(json.dumps(data))
    changed = False
    for table in data.get("tables", []):
        patch = tables.get(table.get("id"))
        if patch is None or not table.get("for_units") or "weapons" in table["for_units"]:
            continue
        flt, rows = patch
        table["for_units"].update(flt)
        for index, effects in rows.items():
            if index < len(table.get("rows", [])):
                _row_effects(table["rows"][index], [dict(e) for e in effects])
        changed = True
    step_id = SETTLES.get(data.get("id"))
    for step in data.get("steps", []):
        if step.get("id") == step_id:
            for row in step.get("settles") or []:
                if "vehicle" in (row["units"].get("kinds") or []):
                    row["units"].setdefault("weapons", ["ma", "mg"])
                    changed = True
    return data if changed else None


def checksum(data):
    """A module data's checksum, as the app computes it (services/supplements.py)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _ref(taken):
    while True:
        ref = "".join(secrets.choice(ALPHABET) for _ in range(4))
        if ref not in taken:
            taken.add(ref)
            return ref


def vehicle_weapons(unit, module_id):
    """The weapons a vehicle line's conditions stand for, and what the line keeps."""
    marks = [unit.status, *(unit.markers or [])]
    wanted = {}  # weapon kind -> its markers
    for m in marks:
        if m == "malfunctioned":
            wanted.setdefault("ma", []).append("malfunctioned")
        elif m == "mg_malfunctioned":
            wanted.setdefault("mg", []).append("malfunctioned")
        elif m == "disabled":
            wanted.setdefault(DISABLED_IS.get(module_id, "ma"), []).append("disabled")
    taken = {w.get("ref") for w in unit.weapons or []}
    weapons = list(unit.weapons or []) + [
        {"ref": _ref(taken), "kind": kind, "name": kind.upper(), "markers": sorted(set(ms))}
        for kind, ms in sorted(wanted.items())
    ]
    left = [m for m in marks if m not in WEAPON_CONDITIONS and m != "ok"]
    status = left[0] if left else "ok"
    return weapons, status, left[1:]


def forwards(apps, schema_editor):
    Campaign = apps.get_model("campaign", "Campaign")
    Unit = apps.get_model("campaign", "Unit")
    for campaign in Campaign.objects.all().iterator():
        data = patched_module(campaign.module_data)
        if data is None:
            continue
        campaign.module_data = data
        campaign.module_checksum = checksum(data)
        campaign.save(update_fields=["module_data", "module_checksum"])
        for unit in Unit.objects.filter(campaign=campaign, kind="vehicle"):
            if not ({unit.status, *(unit.markers or [])} & set(WEAPON_CONDITIONS)):
                continue
            unit.weapons, unit.status, unit.markers = vehicle_weapons(unit, data["id"])
            unit.save(update_fields=["weapons", "status", "markers"])


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0019_sicily_objective_hex"),
    ]

    operations = [
        migrations.AddField(
            model_name="unit",
            name="weapons",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AlterField(
            model_name="roll",
            name="unit_ref",
            field=models.CharField(blank=True, max_length=40),
        ),
        migrations.AlterField(
            model_name="unit",
            name="status",
            field=models.CharField(
                choices=[
                    ("ok", "in good order"),
                    ("wounded", "wounded (leader)"),
                    ("malfunctioned", "malfunctioned"),
                    ("mg_malfunctioned", "MG malfunctioned (vehicle)"),
                    ("disabled", "disabled"),
                    ("immobilized", "immobilized"),
                    ("stunned", "stunned"),
                    ("isolated", "isolated"),
                    ("captured", "captured"),
                    ("battle_hardened", "battle hardened"),
                    ("recalled", "recalled (BU)"),
                    ("reduced", "casualty reduced"),
                    ("abandoned", "abandoned (vehicle)"),
                    ("unpossessed", "not possessed (SW/Gun)"),
                ],
                default="ok",
                max_length=20,
            ),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="unit",
            constraint=models.CheckConstraint(
                condition=StartsWith(Cast("weapons", models.TextField()), "["),
                name="unit_weapons_list",
            ),
        ),
        migrations.AddConstraint(
            model_name="unit",
            constraint=models.CheckConstraint(
                condition=StartsWith(Cast("markers", models.TextField()), "["),
                name="unit_markers_list",
            ),
        ),
    ]
