"""The stamp of the cards' and rulings' data: what the cached pages are keyed with (issue 16).

Cards, rulings and links carry no reliable "last changed" of their own (imports write them in
bulk, a maintainer's link decision is an UPDATE), so every service that writes them bumps one
counter row in its transaction, and a post_save/post_delete on the models catches a save made
elsewhere (an admin formset). After the commit the page cache is purged; the moved key alone
already keeps every process from serving a page as it was before.
"""

from __future__ import annotations

import functools

from django.db import connection, connections, router, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from rulings.models import DataStamp

STAMP_ID = 1


def bump(**_signal_kwargs: object) -> None:
    """Move the stamp (inside the caller's transaction) and purge the page cache after the
    commit. Usable as a signal receiver."""
    now = timezone.now()
    if not DataStamp.objects.filter(pk=STAMP_ID).update(counter=F("counter") + 1, changed_at=now):
        DataStamp.objects.update_or_create(pk=STAMP_ID, defaults={"counter": 1, "changed_at": now})
    # Once per bump: a purge of an emptied store is cheap, and a test's transaction (never
    # committed) would keep a first registration that later ones could not rely on.
    transaction.on_commit(_purge)


def query() -> QuerySet:
    """The stamp's query (one primary-key read; no row before any card was written)."""
    return DataStamp.objects.filter(pk=STAMP_ID).values_list("counter")


def exact() -> tuple[object, ...]:
    """(counter, changed_at), read where the page's reads go (a replica): what caches of this
    app's data key on. The time as well as the counter: a rolled-back write takes its
    counter back, and the next write would bring the same counter with other data."""
    with connections[router.db_for_read(DataStamp)].cursor() as cursor:
        cursor.execute(_exact_sql())
        return tuple(cursor.fetchone() or (0, None))


@functools.lru_cache(maxsize=1)
def _exact_sql() -> str:
    """Written once: compiling the queryset cost more than running it."""
    table = connection.ops.quote_name(DataStamp._meta.db_table)
    return f"SELECT counter, changed_at FROM {table} WHERE id = {STAMP_ID}"


def current() -> int:
    """The stamp now."""
    return query().values_list("counter", flat=True).first() or 0


def _purge() -> None:
    from kb.web.page_cache import purge

    purge()
