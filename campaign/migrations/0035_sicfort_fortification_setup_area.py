from django.db import migrations, models

import campaign.models


def give_each_its_ref(apps, schema_editor):
    """Each fortification bought before gets a reference of its own (the field's default
    is drawn once for the rows already there)."""
    FortificationBuy = apps.get_model("campaign", "FortificationBuy")
    for buy in FortificationBuy.objects.all().only("pk"):
        buy.ref = campaign.models.new_ref()
        buy.save(update_fields=["ref"])


class Migration(migrations.Migration):

    dependencies = [
        ("campaign", "0034_perf24_seat_renewed_by"),
    ]

    operations = [
        migrations.AddField(
            model_name="fortificationbuy",
            name="ref",
            field=models.CharField(default=campaign.models.new_ref, editable=False, max_length=16),
        ),
        migrations.RunPython(give_each_its_ref, migrations.RunPython.noop),
        migrations.AddField(
            model_name="fortificationbuy",
            name="setup_area",
            field=models.CharField(blank=True, max_length=40),
        ),
        migrations.AddField(
            model_name="fortificationbuy",
            name="area_cycle",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="fortificationbuy",
            name="on_map",
            field=models.BooleanField(default=False),
        ),
        migrations.AddConstraint(
            model_name="fortificationbuy",
            constraint=models.UniqueConstraint(
                fields=("campaign", "ref"), name="fortification_ref_unique"
            ),
        ),
    ]
