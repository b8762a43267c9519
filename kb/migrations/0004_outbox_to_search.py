# The outbox now belongs to the search app (search 0001 took over the table): kb forgets it.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('kb', '0003_search_outbox'),
        ('search', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='IndexOutbox')],
            database_operations=[],
        ),
    ]
