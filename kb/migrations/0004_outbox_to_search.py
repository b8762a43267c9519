# The outbox now belongs to the search app: its pending rows move to search's table, kb's
# table and content type go.

from django.db import migrations


def move_rows(apps, schema_editor):
    old = apps.get_model("kb", "IndexOutbox")
    new = apps.get_model("search", "IndexOutbox")
    new.objects.bulk_create(
        [new(kind=r.kind, group=r.group, created=r.created) for r in old.objects.order_by("id")]
    )


def forget_content_type(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="kb", model="indexoutbox").delete()


def move_back(apps, schema_editor):
    old = apps.get_model("kb", "IndexOutbox")
    new = apps.get_model("search", "IndexOutbox")
    old.objects.bulk_create(
        [old(kind=r.kind, group=r.group, created=r.created) for r in new.objects.order_by("id")]
    )


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('kb', '0003_search_outbox'),
        ('search', '0001_initial'),
    ]

    operations = [
        migrations.RunPython(move_rows, move_back),
        migrations.DeleteModel(name='IndexOutbox'),
        migrations.RunPython(forget_content_type, migrations.RunPython.noop),
    ]
