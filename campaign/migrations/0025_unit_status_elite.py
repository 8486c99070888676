# APD 3.2 EXC "Fanatic status is NA": an MMC of Elite class is marked so (issue 44).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0024_corrections_and_takebacks'),
    ]

    operations = [
        migrations.AlterField(
            model_name='unit',
            name='status',
            field=models.CharField(choices=[('ok', 'in good order'), ('wounded', 'wounded (leader)'), ('malfunctioned', 'malfunctioned'), ('mg_malfunctioned', 'MG malfunctioned (vehicle)'), ('disabled', 'disabled'), ('immobilized', 'immobilized'), ('stunned', 'stunned'), ('isolated', 'isolated'), ('captured', 'captured'), ('battle_hardened', 'battle hardened'), ('recalled', 'recalled (BU)'), ('reduced', 'casualty reduced'), ('abandoned', 'abandoned (vehicle)'), ('unpossessed', 'not possessed (SW/Gun)'), ('withdrawn', 'withdrawn (off map)'), ('elite', 'Elite (MMC class)')], default='ok', max_length=20),
        ),
    ]
