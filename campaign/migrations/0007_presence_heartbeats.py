"""Issue 18: presence from heartbeats with expiry instead of a counter of sockets."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("campaign", "0006_opaque_refs_and_dice_streams"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="seat",
            name="connections_never_negative",
        ),
        migrations.RemoveField(
            model_name="seat",
            name="connections",
        ),
        migrations.CreateModel(
            name="Presence",
            fields=[
                ("socket", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("expires_at", models.DateTimeField(db_index=True)),
                (
                    "seat",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="presences",
                        to="campaign.seat",
                    ),
                ),
            ],
        ),
    ]
