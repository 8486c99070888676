from django.db import migrations, models
from django.db.models import F


def outcomes_with_their_lines(apps, schema_editor):
    """A line revealed before this field was held nothing back: its outcome with it."""
    Purchase = apps.get_model("campaign", "Purchase")
    Purchase.objects.filter(revealed_at__isnull=False).update(outcome_revealed_at=F("revealed_at"))


class Migration(migrations.Migration):
    dependencies = [("campaign", "0030_roll_stack")]

    operations = [
        migrations.AddField(
            model_name="purchase",
            name="outcome_revealed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(outcomes_with_their_lines, migrations.RunPython.noop),
    ]
