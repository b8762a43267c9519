"""Keeping the index in step with the database: the outbox, draining it, rebuilds and checks.

Why an outbox: a change is recorded in the transaction that makes it, so a committed change
cannot be lost by the index, and no request waits on (or fails because of) the index. One
writer at a time (a file lock beside the index) drains it: right after commit when the lock is
free, else the writer holding it, the next writer, or `manage.py index_worker`.

Bringing documents up to date is a comparison of id sets (ids carry a hash of the content):
what the apps would index now vs what is indexed. A new release therefore re-indexes only the
rule versions whose text or interval it changed.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from filelock import FileLock, Timeout

from search.backend import SearchBackend, get_backend
from search.documents import SearchDocument
from search.models import IndexOutbox
from search.registry import document_type, document_types, is_indexed

log = logging.getLogger(__name__)
ALL = "*"


# -- recording changes ------------------------------------------------------------------------


def enqueue(kind: str, groups: Iterable[object] | None = None) -> None:
    """Record that documents of `kind` changed (in these groups; None: possibly all of them).

    Call inside the transaction making the change; the index follows after commit.
    """
    keys = [ALL] if groups is None else sorted({str(g) for g in groups})
    if not keys:
        return
    IndexOutbox.objects.bulk_create([IndexOutbox(kind=kind, group=k) for k in keys])
    if getattr(settings, "KB_SEARCH_AUTO_DRAIN", True) and not getattr(_state, "deferred", 0):
        _drain_after_commit()


_state = threading.local()


@contextmanager
def deferred(*, drain_after: bool = True, wait: float = 600) -> Iterator[None]:
    """Record changes without draining after each commit, then drain once: importing 101
    releases one transaction each would otherwise compare the index 101 times."""
    _state.deferred = getattr(_state, "deferred", 0) + 1
    try:
        yield
    finally:
        _state.deferred -= 1
    if drain_after and not _state.deferred and getattr(settings, "KB_SEARCH_AUTO_DRAIN", True):
        drain(wait=wait)


def _drain_after_commit() -> None:
    connection = transaction.get_connection()
    if connection.in_atomic_block and any(
        entry[1] is _drain_quietly for entry in connection.run_on_commit
    ):
        return  # one drain per transaction is enough
    transaction.on_commit(_drain_quietly)


def _drain_quietly() -> None:
    """After commit: drain if no other writer is at work; never let the index fail a request
    (the outbox keeps the change for the next writer)."""
    try:
        drain(wait=0)
    except Exception:
        log.exception("search index update failed; the outbox keeps the change for later")


# -- one writer at a time ---------------------------------------------------------------------


def writer_lock(backend_root: Path | None = None) -> FileLock:
    root = Path(backend_root or settings.KB_INDEX_DIR)
    root.mkdir(parents=True, exist_ok=True)
    return FileLock(str(root / "writer.lock"))


def backend_lock(backend: SearchBackend):
    """The backend's own writer lock when it has one (PostgreSQL's is in the database, shared
    by every node), else the file lock beside its index (one machine)."""
    own = getattr(backend, "writer_lock", None)
    return own() if callable(own) else writer_lock(getattr(backend, "root", None))


@dataclass
class SyncReport:
    added: int = 0
    deleted: int = 0
    entries: int = 0
    kinds: dict[str, tuple[int, int]] = field(default_factory=dict)

    def merge(self, kind: str, added: int, deleted: int) -> None:
        a, d = self.kinds.get(kind, (0, 0))
        self.kinds[kind] = (a + added, d + deleted)
        self.added += added
        self.deleted += deleted


def drain(*, wait: float = 0, backend: SearchBackend | None = None) -> SyncReport | None:
    """Apply the outbox to the index. Returns None when another writer holds the lock (it will
    see the new entries: it drains until the outbox is empty)."""
    backend = backend or get_backend()
    lock = backend_lock(backend)
    try:
        lock.acquire(timeout=wait)
    except Timeout:
        return None
    try:
        # A writer killed mid-drain (kill -9) left its entries in the outbox (they are deleted
        # only once applied) and Whoosh's scratch in the index: sweep it before writing.
        backend.clean_up()
        return _drain_locked(backend)
    finally:
        lock.release()


def _drain_locked(backend: SearchBackend) -> SyncReport:
    report = SyncReport()
    while True:
        rows = list(IndexOutbox.objects.order_by("id").values_list("id", "kind", "group")[:5000])
        if not rows:
            return report
        plan: dict[str, set[str] | None] = defaultdict(set)
        for _, kind, group in rows:
            if group == ALL or plan[kind] is None:
                plan[kind] = None
            else:
                plan[kind].add(group)
        for kind, groups in plan.items():
            added, deleted = sync(kind, groups, backend=backend)
            report.merge(kind, added, deleted)
        # Only the rows read: a row committed meanwhile with a smaller id is drained next turn.
        IndexOutbox.objects.filter(id__in=[r[0] for r in rows]).delete()
        report.entries += len(rows)


def sync(
    kind: str, groups: Iterable[str] | None = None, *, backend: SearchBackend | None = None
) -> tuple[int, int]:
    """Bring the documents of `kind` (of these groups; None: all) in line with the database."""
    backend = backend or get_backend()
    doc_type = document_type(kind)
    if doc_type is None:
        log.warning("outbox entry for unknown document kind %r ignored", kind)
        return 0, 0
    group_list = None if groups is None else sorted(set(groups))
    wanted = {d.doc_id: d for d in doc_type.documents(group_list)}
    if group_list is None:
        indexed = backend.ids(kind)
    else:
        indexed = backend.ids(groups=[f"{kind}:{g}" for g in group_list])
    missing = [wanted[i] for i in wanted.keys() - indexed]
    stale = indexed - wanted.keys()
    return backend.update(missing, stale, bulk=len(missing) > 5_000)


# -- rebuild and check ------------------------------------------------------------------------


def all_documents() -> Iterator[SearchDocument]:
    for doc_type in document_types():
        yield from doc_type.documents(None)


def rebuild(*, wait: float = 600, backend: SearchBackend | None = None) -> int:
    """Build the whole index beside the live one and swap it in; then apply what changed
    meanwhile. Searches keep answering from the old index until the swap."""
    backend = backend or get_backend()
    lock = backend_lock(backend)
    with lock.acquire(timeout=wait):
        # A rebuild killed earlier (its children exit with it) left a folder: remove it.
        backend.clean_up()
        seen = list(IndexOutbox.objects.values_list("id", flat=True))
        count = backend.rebuild(all_documents())
        # Entries committed before the build read the database are in the new index. None:
        # no write at all (a reader beside a writer's long transaction, as the test suite's
        # background build, must not wait for SQLite's write lock).
        if seen:
            IndexOutbox.objects.filter(id__in=seen).delete()
        _drain_locked(backend)
    return count


@dataclass
class Check:
    missing: dict[str, list[str]] = field(default_factory=dict)
    stale: dict[str, list[str]] = field(default_factory=dict)
    outbox: int = 0
    documents: int = 0
    # What killed rebuilds (folder names) and killed writers ("folder/file") had left.
    cleaned: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not any(self.missing.values()) and not any(self.stale.values()) and not self.outbox

    def lines(self) -> list[str]:
        out = [f"{self.documents} documents expected"]
        for kind in sorted(set(self.missing) | set(self.stale)):
            miss, stale = self.missing.get(kind, []), self.stale.get(kind, [])
            if miss or stale:
                out.append(
                    f"{kind}: {len(miss)} missing, {len(stale)} stale"
                    + (f" (e.g. missing {miss[0]})" if miss else "")
                    + (f" (e.g. stale {stale[0]})" if stale else "")
                )
        rebuilds = [c for c in self.cleaned if "/" not in c]
        files = [c for c in self.cleaned if "/" in c]
        if rebuilds:
            out.append(f"removed what {len(rebuilds)} interrupted rebuild(s) left")
        if files:
            out.append(f"removed {len(files)} file(s) interrupted index writers left")
        if self.outbox:
            out.append(f"outbox: {self.outbox} entries not yet applied")
        out.append("index is up to date" if self.clean else "index is NOT up to date")
        return out


def check(*, backend: SearchBackend | None = None) -> Check:
    """Documents the database implies but the index lacks (missing), documents indexed that
    it no longer implies (stale: changed or deleted), and the outbox's backlog."""
    backend = backend or get_backend()
    result = Check(outbox=IndexOutbox.objects.count(), cleaned=_clean_up_if_idle(backend))
    for doc_type in document_types():
        wanted = {d.doc_id for d in doc_type.documents(None)}
        indexed = backend.ids(doc_type.kind)
        result.documents += len(wanted)
        result.missing[doc_type.kind] = sorted(wanted - indexed)
        result.stale[doc_type.kind] = sorted(indexed - wanted)
    return result


def _clean_up_if_idle(backend: SearchBackend) -> list[str]:
    """Remove what killed rebuilds left, when no writer is at work (else leave it: the
    writer's folder is not a leftover; the next rebuild cleans up)."""
    try:
        with backend_lock(backend).acquire(timeout=0):
            return backend.clean_up()
    except Timeout:
        return []


# -- edits made one object at a time (the admin) ----------------------------------------------


def groups_touched(instance: object) -> list[tuple[str, list[str]]]:
    """(kind, groups) whose documents an edit of `instance` changes, per the registry."""
    touched = []
    for doc_type in document_types():
        for model, groups_of in doc_type.models.items():
            if isinstance(instance, model):
                groups = groups_of(instance)
                if groups:
                    touched.append((doc_type.kind, groups))
    return touched


def enqueue_instance(instance: object) -> None:
    for kind, groups in groups_touched(instance):
        enqueue(kind, groups)


def _saved(sender: type, instance: object, raw: bool = False, **kwargs: object) -> None:
    if raw or not is_indexed(instance):  # raw: fixtures loading rows are followed by a rebuild
        return
    enqueue_instance(instance)


def connect_signals() -> None:
    """Saves of the models registered with the search re-index their groups (one receiver for
    every model: the apps register their types after this app is ready)."""
    post_save.connect(_saved, dispatch_uid="search-indexed-save")
