# The outbox moved from kb to the search app: the table stays where kb's 0003 created it.

from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('kb', '0003_search_outbox'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='IndexOutbox',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(max_length=20)),
                        ('group', models.CharField(max_length=64)),
                        ('created', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'verbose_name': 'index outbox entry',
                        'verbose_name_plural': 'index outbox',
                        'db_table': 'kb_indexoutbox',
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
