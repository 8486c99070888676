from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("campaign", "0030_roll_stack")]

    operations = [
        migrations.AddField(
            model_name="purchase",
            name="outcome_held",
            field=models.BooleanField(default=False),
        ),
    ]
