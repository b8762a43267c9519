# The PostgreSQL backend's match table (search.backends.postgres): one narrow row per document
# with what a search filters and counts by (kind, number, collapse key, validity) and one
# tsvector of all its texts, every language and the unstemmed words, without positions.
#
# Why: a search used to compute its matches and ts_rank on every language row matching any of
# its words (a question of nine words read two thirds of the archive, every rule version of 101
# releases included) and joined each to its wide document row. Asked of this table first, with
# the GIN index and the release's validity, it narrows a search to the documents that can
# match before any text row is read; the counts come from here without the documents' texts.
#
# The vectors have no positions or weights, so the table stays narrow (65 MB of heap for 85,000
# documents, against 160 MB for the language rows and 120 MB for the documents). The storage
# settings only move the rare row over 2 kB out of line uncompressed; most stay in the heap.
# Only PostgreSQL has it (nothing on SQLite); no model: the backend alone reads and writes it
# in SQL. The table is filled here from an existing index, so no rebuild is needed.

from django.db import migrations

TABLE = "search_indexedmatch"
#: A document's lexemes, each tagged with its language row and column (en:creatur from the
#: stemmed vector, en~creature from the unstemmed words): without positions or weights, and
#: the same as search.backends.postgres.queries.MATCH_VECTOR when written.
MATCH_VECTOR = """coalesce((
  SELECT array_to_tsvector(array_agg(DISTINCT u.lexeme))
  FROM search_indexedtext t, LATERAL (
    SELECT t.lang || ':' || l FROM unnest(tsvector_to_array(t.vector)) AS l
    UNION ALL SELECT t.lang || '~' || l FROM unnest(tsvector_to_array(t.words)) AS l
  ) AS u(lexeme)
  WHERE t.document_id = d.id), ''::tsvector)"""


def create_match_table(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    run = schema_editor.execute
    run(
        f"""CREATE TABLE {TABLE} (
  document_id bigint PRIMARY KEY
    REFERENCES search_indexeddocument (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  generation_id bigint NOT NULL
    REFERENCES search_indexgeneration (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  kind varchar(20) NOT NULL,
  number varchar(64) NOT NULL,
  collapse varchar(32) NOT NULL,
  valid_from date,
  valid_to date,
  vector tsvector NOT NULL
) WITH (toast_tuple_target = 128)"""
    )
    run(f"ALTER TABLE {TABLE} ALTER COLUMN vector SET STORAGE EXTERNAL")
    run(f"CREATE INDEX search_match_vector ON {TABLE} USING gin (vector)")
    # By number alone: led by generation_id, the planner, before the table's first ANALYZE,
    # read all of it through this index rather than the GIN index.
    run(f"CREATE INDEX search_match_number ON {TABLE} (number) WHERE number <> ''")
    run(
        f"""INSERT INTO {TABLE} (document_id, generation_id, kind, number, collapse,
  valid_from, valid_to, vector)
SELECT d.id, d.generation_id, d.kind, d.number, d.collapse, d.valid_from, d.valid_to,
  {MATCH_VECTOR}
FROM search_indexeddocument d"""
    )


def drop_match_table(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TABLE IF EXISTS {TABLE}")


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0002_postgres_index"),
    ]

    operations = [migrations.RunPython(create_match_table, drop_match_table)]
