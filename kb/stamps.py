"""The archive's stamp: one cheap statement whose answer changes with every import and edit.

Caches of what the archive says (diffs, page fragments, whole pages, chapter titles) key on
it rather than expire, so a maintainer's edit shows at once in every process.
"""

from __future__ import annotations

from django.db import connection, connections, router

from .models import GlossaryVersion, ImportRecord, Release, RuleVersion


def archive_generation() -> str:
    """Changes whenever a release is imported, replaced or removed, or a maintainer edits a
    text (keys diff and page caches: a cached page must never show a text as it was before an
    edit). One query: the releases' count and last import, the last import record, the latest
    rule and glossary edits (indexed lookups). Read where the archive's reads go (a read
    replica, config.routers): a stamp taken from the primary while a lagging replica answers
    would keep the replica's old rows under the new stamp."""
    with connections[router.db_for_read(Release)].cursor() as cursor:
        cursor.execute("SELECT " + archive_state_sql())
        return "-".join(map(str, cursor.fetchone()))


def archive_state_sql() -> str:
    """The columns of archive_generation's query, for a statement that reads more stamps in
    the same round trip (kb.page_cache). Written as SQL, not built by the ORM: the page cache
    reads it on every request, where compiling the queryset cost more than running it."""
    q = connection.ops.quote_name
    release, rule, term, record = (
        q(model._meta.db_table) for model in (Release, RuleVersion, GlossaryVersion, ImportRecord)
    )
    return (
        f"(SELECT COUNT(*) FROM {release}), (SELECT MAX(imported_at) FROM {release}), "
        f"(SELECT MAX(id) FROM {record}), (SELECT MAX(edited_at) FROM {rule}), "
        f"(SELECT MAX(edited_at) FROM {term})"
    )
