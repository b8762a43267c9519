"""Hashes computed again now that the fold erases "(tm)" and a glued "(r)" (issue 34).

The plain-ASCII 2019-01-25 release writes "Odyssey(tm)" and "Future Sight(r)" where its
neighbours print "™" and "®" or nothing; rows imported before the fold knew these kept hashes
that count them as wording changes. kb.archive.rehash rewrites every version whose stored hashes
differ from its text's (the text as it stands, a maintainer's edit included) and the change
flags of its lineage or term; on an empty or up-to-date archive it writes nothing. Backwards is
a no-op: the old hashes were the error. Applying it moves the archive's stamp
(kb.stamps.archive_generation reads the last applied migration), so cached diffs and pages go.
"""

from django.db import migrations


def rehash(apps, schema_editor):
    from kb.archive.rehash import rehash_versions

    rehash_versions(
        rule_model=apps.get_model("kb", "RuleVersion"),
        glossary_model=apps.get_model("kb", "GlossaryVersion"),
        example_model=apps.get_model("kb", "Example"),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("kb", "0005_maintainer_edits"),
    ]

    operations = [
        migrations.RunPython(rehash, migrations.RunPython.noop, elidable=True),
    ]
