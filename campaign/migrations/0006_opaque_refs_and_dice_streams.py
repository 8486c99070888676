"""Issue 18: purchases and units get an opaque per-campaign reference (pages name it,
never the primary key), and rolls draw from per-stream sequences."""

from django.db import migrations, models

import campaign.models


def fill_refs(apps, schema_editor):
    for name in ("Purchase", "Unit"):
        model = apps.get_model("campaign", name)
        for obj in model.objects.filter(ref__isnull=True).only("pk").iterator():
            model.objects.filter(pk=obj.pk).update(ref=campaign.models.new_ref())


class Migration(migrations.Migration):

    dependencies = [
        ("campaign", "0005_supplements"),
    ]

    operations = [
        migrations.AddField(
            model_name="purchase",
            name="ref",
            field=models.CharField(max_length=16, null=True, editable=False),
        ),
        migrations.AddField(
            model_name="unit",
            name="ref",
            field=models.CharField(max_length=16, null=True, editable=False),
        ),
        migrations.RunPython(fill_refs, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="purchase",
            name="ref",
            field=models.CharField(default=campaign.models.new_ref, editable=False, max_length=16),
        ),
        migrations.AlterField(
            model_name="unit",
            name="ref",
            field=models.CharField(default=campaign.models.new_ref, editable=False, max_length=16),
        ),
        migrations.AddConstraint(
            model_name="purchase",
            constraint=models.UniqueConstraint(fields=("campaign", "ref"), name="purchase_ref_unique"),
        ),
        migrations.AddConstraint(
            model_name="unit",
            constraint=models.UniqueConstraint(fields=("campaign", "ref"), name="unit_ref_unique"),
        ),
        migrations.AddField(
            model_name="campaign",
            name="draws",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="roll",
            name="stream",
            field=models.CharField(blank=True, max_length=80),
        ),
        migrations.AddField(
            model_name="roll",
            name="draw",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
