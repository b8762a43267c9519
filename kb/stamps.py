"""The archive's stamp: one cheap statement whose answer changes with every import and edit.

Caches of what the archive says (diffs, page fragments, whole pages, chapter titles) key on
it rather than expire, so a maintainer's edit shows at once in every process.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from django.db import connection, connections, router
from django.db.migrations.recorder import MigrationRecorder

from kb.models import EraLink, GlossaryVersion, ImportRecord, Release, RuleVersion

#: The archive's stamp as a reading request first read it (kb.web.page_cache opens the scope for
#: GET and HEAD): the tables kept per stamp (selectors, French states, link counts) then ask
#: the database once a page, not once each, and a page is built under the stamp it is kept by.
_request: ContextVar[dict[str, str] | None] = ContextVar("kb_request_stamps", default=None)


@contextmanager
def remembered() -> Iterator[None]:
    """Within: archive_generation() is read once (a reading request writes no archive)."""
    token = _request.set({})
    try:
        yield
    finally:
        _request.reset(token)


def remember(columns: Sequence[object]) -> None:
    """The archive's columns (archive_state_sql's) read by a statement of the caller's
    (kb.web.page_cache reads them with its other stamps): the request's stamp, no query of its
    own."""
    memo = _request.get()
    if memo is not None:
        memo["archive"] = "-".join(map(str, columns))


def archive_generation() -> str:
    """Changes whenever a release is imported, replaced or removed, or a maintainer edits a
    text (keys diff and page caches: a cached page must never show a text as it was before an
    edit) or reviews a link across Magic 2010, or a migration is applied (a data migration may
    rewrite what is derived from the texts, as kb/migrations/0006 does the hashes and change
    flags). One query: the releases' count and last import, the last import record, the latest
    rule and glossary edits, the last migration, the links across 2010 shown and last reviewed
    (indexed lookups but the last, on a table of about 1,300 rows). Read where the archive's
    reads go (a read replica, config.routers): a stamp taken from the primary while a lagging
    replica answers would keep the replica's old rows under the new stamp."""
    memo = _request.get()
    if memo is not None and "archive" in memo:
        return memo["archive"]
    with connections[router.db_for_read(Release)].cursor() as cursor:
        cursor.execute("SELECT " + archive_state_sql())
        stamp = "-".join(map(str, cursor.fetchone()))
    if memo is not None:
        memo["archive"] = stamp
    return stamp


def archive_state_sql() -> str:
    """The columns of archive_generation's query, for a statement that reads more stamps in
    the same round trip (kb.web.page_cache, which hands them back through `remember`). Written as
    SQL, not built by the ORM: the page cache reads it on every request, where compiling the
    queryset cost more than running it."""
    return ", ".join(_archive_columns())


def archive_column_count() -> int:
    """How many columns archive_state_sql has (the first ones of kb.web.page_cache's statement)."""
    return len(_archive_columns())


@lru_cache(maxsize=1)
def _archive_columns() -> tuple[str, ...]:
    """Written once per process (the page cache asks for them on every request)."""
    q = connection.ops.quote_name
    release, rule, term, record, migration, era = (
        q(model._meta.db_table)
        for model in (
            Release,
            RuleVersion,
            GlossaryVersion,
            ImportRecord,
            MigrationRecorder.Migration,
            EraLink,
        )
    )
    shown = ", ".join(f"'{s}'" for s in (EraLink.Status.SURE, EraLink.Status.CONFIRMED))
    return (
        f"(SELECT COUNT(*) FROM {release})",
        f"(SELECT MAX(imported_at) FROM {release})",
        f"(SELECT MAX(id) FROM {record})",
        f"(SELECT MAX(edited_at) FROM {rule})",
        f"(SELECT MAX(edited_at) FROM {term})",
        f"(SELECT MAX(id) FROM {migration})",
        # The links across Magic 2010 (kb.archive.eras): a maintainer's verdict, or links
        # computed again, change the history and card pages that show them.
        f"(SELECT COUNT(*) FROM {era} WHERE status IN ({shown}))",
        f"(SELECT MAX(reviewed_at) FROM {era})",
    )
