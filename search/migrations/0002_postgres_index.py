# The PostgreSQL backend's index (search.backends.postgres): its tables everywhere (empty and
# unused on SQLite), and on PostgreSQL only the extensions, text search configurations and
# GIN/trigram indexes it reads with.

import django.contrib.postgres.search
import django.db.models.deletion
from django.db import migrations, models


#: kb_<analyzer>: the snowball stemmer of the language without its stop words (the query
#: drops the site's own, search.analysis), accents folded by unaccent first: "pietinement"
#: finds "Piétinement". kb_simple: folded, unstemmed (prefixes, did-you-mean).
LANGUAGES = ("english", "french")
WORD_TOKENS = "asciiword, asciihword, hword_asciipart, hword, hword_part, word"


def create_postgres_objects(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    run = schema_editor.execute
    run("CREATE EXTENSION IF NOT EXISTS unaccent")
    run("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for language in LANGUAGES:
        run(
            f"CREATE TEXT SEARCH DICTIONARY kb_{language}_stem "
            f"(TEMPLATE = snowball, Language = {language})"
        )
        run(f"CREATE TEXT SEARCH CONFIGURATION kb_{language} (COPY = {language})")
        run(
            f"ALTER TEXT SEARCH CONFIGURATION kb_{language} ALTER MAPPING FOR {WORD_TOKENS} "
            f"WITH unaccent, kb_{language}_stem"
        )
    run("CREATE TEXT SEARCH CONFIGURATION kb_simple (COPY = simple)")
    run(
        f"ALTER TEXT SEARCH CONFIGURATION kb_simple ALTER MAPPING FOR {WORD_TOKENS} "
        "WITH unaccent, simple"
    )
    text = "search_indexedtext"
    run(f"CREATE INDEX search_text_vector ON {text} USING gin (vector)")
    run(f"CREATE INDEX search_text_words ON {text} USING gin (words)")
    run(f"CREATE INDEX search_text_title ON {text} (generation_id, title_key text_pattern_ops)")
    run(f"CREATE INDEX search_text_title_trgm ON {text} USING gin (title_key gin_trgm_ops)")
    run("CREATE INDEX search_word_trgm ON search_indexedword USING gin (word gin_trgm_ops)")
    run("CREATE INDEX search_doc_names ON search_indexeddocument USING gin (names)")


def drop_postgres_objects(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in ("simple", *LANGUAGES):
        schema_editor.execute(f"DROP TEXT SEARCH CONFIGURATION IF EXISTS kb_{name}")
    for language in LANGUAGES:
        schema_editor.execute(f"DROP TEXT SEARCH DICTIONARY IF EXISTS kb_{language}_stem")


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="IndexedDocument",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("doc_id", models.CharField(max_length=255)),
                ("kind", models.CharField(max_length=20)),
                ("grp", models.CharField(max_length=128)),
                ("key", models.CharField(max_length=128)),
                ("ref", models.TextField(blank=True)),
                ("handle", models.TextField(blank=True)),
                ("label", models.TextField(blank=True)),
                ("number", models.CharField(blank=True, max_length=64)),
                ("chapter", models.CharField(blank=True, max_length=64)),
                ("date", models.DateField(null=True)),
                ("valid_from", models.DateField(null=True)),
                ("valid_to", models.DateField(null=True)),
                ("collapse", models.CharField(blank=True, max_length=32)),
                ("titles", models.JSONField(default=dict)),
                ("bodies", models.JSONField(default=dict)),
                ("extras", models.JSONField(default=dict)),
                ("keys", models.JSONField(default=dict)),
                ("names", models.JSONField(default=list)),
            ],
        ),
        migrations.CreateModel(
            name="IndexGeneration",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=64)),
                ("live", models.BooleanField(default=False)),
                ("created", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("live", True)),
                        fields=("name",),
                        name="search_one_live_generation",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="IndexedText",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("lang", models.CharField(max_length=8)),
                ("title_key", models.TextField(blank=True)),
                ("vector", django.contrib.postgres.search.SearchVectorField(null=True)),
                ("words", django.contrib.postgres.search.SearchVectorField(null=True)),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to="search.indexeddocument"
                    ),
                ),
                (
                    "generation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to="search.indexgeneration"
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="indexeddocument",
            name="generation",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, to="search.indexgeneration"
            ),
        ),
        migrations.CreateModel(
            name="IndexedWord",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("word", models.CharField(max_length=128)),
                ("count", models.IntegerField(default=0)),
                (
                    "generation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to="search.indexgeneration"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("generation", "word"), name="search_word_unique"
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="indexeddocument",
            index=models.Index(fields=["generation", "doc_id"], name="search_doc_id"),
        ),
        migrations.AddIndex(
            model_name="indexeddocument",
            index=models.Index(fields=["generation", "grp"], name="search_doc_group"),
        ),
        migrations.AddIndex(
            model_name="indexeddocument",
            index=models.Index(fields=["generation", "number"], name="search_doc_number"),
        ),
        migrations.AddIndex(
            model_name="indexeddocument",
            index=models.Index(fields=["generation", "handle"], name="search_doc_handle"),
        ),
        migrations.RunPython(create_postgres_objects, drop_postgres_objects),
    ]
