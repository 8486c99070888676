from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("campaign", "0031_secret12_outcome_held")]

    operations = [
        migrations.AddField(
            model_name="unit",
            name="held",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
