"""Helpers for tests that import releases."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from kb.models import (
    Anomaly,
    Example,
    GlossaryTerm,
    GlossaryVersion,
    ImportRecord,
    Lineage,
    Reference,
    Release,
    RuleNumber,
    RuleVersion,
)

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "cr" / "en"
# In dependency order: each table points only at tables listed before it.
MODELS = [
    Release,
    Lineage,
    RuleNumber,
    RuleVersion,
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Reference,
    Anomaly,
    ImportRecord,
]


def run(*args: str, **opts: Any) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out, **opts)
    return out.getvalue()


def table_dump() -> dict[str, list[tuple]]:
    """Every row of every archive table, ids included: 'exactly as before' means this is equal."""
    dump = {}
    with connection.cursor() as cursor:
        for model in MODELS:
            table = model._meta.db_table
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)} ORDER BY 1")
            dump[table] = [tuple(map(str, row)) for row in cursor.fetchall()]
    return dump


def clear_archive() -> None:
    """Empty every archive table, within the test's transaction (rolled back afterwards).

    Plain DELETEs in dependency order: the session's full archive may be loaded, and other
    apps' rows pointing at it (ruling links, vocabulary) go first.
    """
    with connection.cursor() as cursor:
        for table in ("rulings_rulinglink", "kb_vocabularyterm"):
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")
        for model in reversed(MODELS):
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)}")


@contextmanager
def without_page_cache() -> Iterator[None]:
    """Pages as their views build them: the whole-page cache (kb/web/page_cache.py) kept out, so
    that a second read measures the view again, not a cache hit (hits are measured in
    tests/kb/web/test_page_cache.py)."""
    from kb.web import page_cache

    kept = page_cache.may_read
    page_cache.may_read = lambda request: False
    try:
        yield
    finally:
        page_cache.may_read = kept


def page_queries(client: Client, url: str, params: dict | None = None) -> int:
    """Queries of a page once per-process caches are warm: the least of two reads, with the
    vocabulary's stamp (re-read every 2 s: a slow first read would leave it stale) trusted
    for the while. The page as its view builds it (without_page_cache)."""
    from kb.french import glosses

    trusted, glosses.STAMP_SECONDS = glosses.STAMP_SECONDS, 3600.0
    try:
        with without_page_cache():
            client.get(url, params)
            seen = []
            for _ in range(2):
                with CaptureQueriesContext(connection) as queries:
                    assert client.get(url, params).status_code == 200
                seen.append(len(queries))
    finally:
        glosses.STAMP_SECONDS = trusted
    return min(seen)


def superuser_client() -> Client:
    """A client signed in as a new superuser (the admin's tests act as one)."""
    from django.contrib.auth.models import User

    client = Client()
    client.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    return client


def current_date():
    """The effective date of the release the site calls current (in force today)."""
    from kb.selectors import Releases

    return Releases.load().current.effective_date


def version_in_force(number: str, date=None):
    """The rule version `number` names in the release in force on `date` (default: today's)."""
    from kb.models import RuleNumber, RuleVersion

    date = date or current_date()
    lineage = RuleNumber.objects.as_of(date).get(number=number).lineage_id
    return RuleVersion.objects.as_of(date).get(lineage_id=lineage)
