"""The index follows the database: the outbox written with each change, drained by one writer
at a time, rebuilt beside the live index, checked. On the demo releases (no shared data needed),
with an index in a temporary folder; in the PostgreSQL pass also with the PostgreSQL backend
(its index in the test database)."""

from __future__ import annotations

import datetime as dt
import io
import threading
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from kb.models import GlossaryTerm, GlossaryVersion, RuleVersion
from search.backend import get_backend
from search.indexing import backend_lock, check, drain, enqueue, sync
from search.models import IndexOutbox
from tests.kb.helpers import clear_archive
from tests.rulings.helpers import clear_cards

pytestmark = pytest.mark.django_db
DEMO = Path(settings.BASE_DIR) / "fixtures" / "demo" / "cr" / "en"


@pytest.fixture(autouse=True)
def empty_database(db) -> None:
    """The session may have loaded the whole archive and the cards: start from nothing (the
    test's transaction rolls back)."""
    clear_archive()
    clear_cards()
    IndexOutbox.objects.all().delete()


WHOOSH = "search.backends.whoosh.backend.WhooshBackend"
POSTGRES = "search.backends.postgres.backend.PostgresBackend"
BACKENDS = [WHOOSH, *([POSTGRES] if connection.vendor == "postgresql" else [])]


@pytest.fixture(params=BACKENDS)
def index_dir(request, tmp_path: Path):
    with override_settings(KB_INDEX_DIR=tmp_path / "index", KB_SEARCH_BACKEND=request.param):
        yield tmp_path / "index"


def glossary_entry(text: str = "A keyword ability. See rule 702.19.") -> GlossaryVersion:
    term = GlossaryTerm.objects.create(key="trample", slug="trample")
    return GlossaryVersion.objects.create(
        term=term,
        headword="Trample",
        text_en=text,
        text_hash="x",
        folded_hash="x",
        masked_hash="x",
        wording_since=dt.date(2009, 7, 11),
        valid_from=dt.date(2009, 7, 11),
    )


def test_an_edit_reaches_the_index_through_the_outbox(index_dir: Path) -> None:
    version = glossary_entry()
    # The term's save and the version's, each in the outbox.
    assert set(IndexOutbox.objects.values_list("kind", "group")) == {
        ("glossary", str(version.term_id))
    }
    report = drain()
    assert report is not None and (report.added, report.deleted, report.entries) == (1, 0, 2)
    assert not IndexOutbox.objects.exists()
    backend = get_backend()
    (old_id,) = backend.ids("glossary")

    version.text_en = "A keyword ability that changes combat damage. See rule 702.19."
    version.save()
    report = drain()
    assert (report.added, report.deleted) == (1, 1)
    (new_id,) = backend.ids("glossary")
    assert new_id != old_id
    assert check().clean


def test_check_reports_missing_stale_and_pending(index_dir: Path) -> None:
    version = glossary_entry()
    drain()
    GlossaryVersion.objects.filter(pk=version.pk).update(text_en="Changed without a signal.")
    enqueue("rule", ["12345"])
    result = check()
    assert not result.clean
    assert len(result.missing["glossary"]) == 1 and len(result.stale["glossary"]) == 1
    assert result.outbox == 1
    assert any("NOT up to date" in line for line in result.lines())
    with pytest.raises(SystemExit) as exited:
        call_command("check_index", verbosity=0)
    assert exited.value.code == 1
    assert sync("glossary") == (1, 1)
    call_command("index_worker", "--once", verbosity=0)
    assert check().clean
    call_command("check_index", verbosity=0)  # clean: no exit


def test_a_busy_writer_leaves_the_entries_for_the_next_one(index_dir: Path) -> None:
    glossary_entry()
    held, done = threading.Event(), threading.Event()

    def other_writer() -> None:  # another process or node (PostgreSQL: another connection)
        try:
            with backend_lock(get_backend()).acquire(timeout=0):
                held.set()
                done.wait(30)
        finally:
            connection.close()

    writer = threading.Thread(target=other_writer)
    writer.start()
    try:
        assert held.wait(30)
        assert drain(wait=0) is None  # someone else is writing: the outbox keeps the entry
    finally:
        done.set()
        writer.join()
    assert IndexOutbox.objects.count() == 2  # the term's save and the version's
    assert drain(wait=0).added == 1


@override_settings(KB_SEARCH_AUTO_DRAIN=True)
def test_after_commit_the_outbox_drains_once(
    index_dir: Path, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        version = glossary_entry()
        version.text_en = "Edited twice in one transaction."
        version.save()
    assert len(callbacks) == 1
    assert not IndexOutbox.objects.exists()
    assert len(get_backend().ids("glossary")) == 1


def test_a_release_reindexes_only_the_versions_it_opens_or_closes(index_dir: Path) -> None:
    files = sorted(DEMO.glob("*.txt"))
    call_command(
        "import_rules", *[str(f) for f in files if f.name != "2019-01-25.txt"], verbosity=0
    )
    call_command("rebuild_index", verbosity=0)
    backend = get_backend()
    before = backend.ids("rule")
    assert len(before) == len(list(_expected_rule_ids()))
    call_command("import_rules", str(DEMO / "2019-01-25.txt"), verbosity=0)
    report = drain()
    after = backend.ids("rule")
    assert report is not None and report.added == len(after - before)
    assert 0 < report.added < len(before) // 2  # only the versions the release cut
    assert after == set(_expected_rule_ids())
    assert check().clean
    # An unchanged re-import changes nothing.
    call_command("import_rules", str(DEMO / "2019-01-25.txt"), verbosity=0)
    assert (drain().added, drain().deleted) == (0, 0)
    assert RuleVersion.objects.exists()


def _expected_rule_ids():
    from search.registry import document_type

    return (d.doc_id for d in document_type("rule").documents(None))


@override_settings(KB_SEARCH_AUTO_DRAIN=True)
def test_load_site_data_builds_the_index_then_applies_changes(
    index_dir: Path, tmp_path: Path
) -> None:
    from io import StringIO

    out = StringIO()
    call_command("load_site_data", "--data-dir", str(tmp_path / "nothing"), stdout=out)
    assert "Building the search index" in out.getvalue()
    assert get_backend().exists() and check().clean
    assert get_backend().ids("card")  # the demo's Peregrine Dynamo
    out = StringIO()
    call_command("load_site_data", "--data-dir", str(tmp_path / "nothing"), stdout=out)
    assert "Search index updated: +0 -0 documents" in out.getvalue()


def test_an_admin_deletion_leaves_the_index(index_dir: Path) -> None:
    from django.contrib import admin

    version = glossary_entry()
    drain()
    assert len(get_backend().ids("glossary")) == 1
    admin.site._registry[GlossaryTerm].delete_model(None, version.term)  # cascades the version
    assert IndexOutbox.objects.filter(kind="glossary").exists()
    report = drain()
    assert report is not None and report.deleted == 1
    assert get_backend().ids("glossary") == set() and check().clean


def test_the_worker_first_builds_a_missing_index_then_drains(index_dir: Path) -> None:
    """make run leaves a first build to the worker, so the site answers while it runs."""
    glossary_entry()
    backend = get_backend()
    assert not backend.exists()
    out = io.StringIO()
    call_command("index_worker", "--once", "--build-missing", stdout=out)
    assert "Search index built: 1 documents" in out.getvalue()
    assert backend.exists() and len(backend.ids("glossary")) == 1
    assert check().clean
    out = io.StringIO()
    call_command("index_worker", "--once", "--build-missing", stdout=out)
    assert "Building" not in out.getvalue()  # an index there is drained, not rebuilt


def test_the_worker_runs_the_encoder_s_follow_ups_once_every_passage_is_embedded(
    index_dir: Path, monkeypatch
) -> None:
    """Other apps' work with the encoder (rulings' proposals) waits for the passages, and a
    failing one does not stop the worker."""
    from search.semantic import retriever

    calls: list[float] = []

    def work(*, seconds: float) -> retriever.SyncReport:
        calls.append(seconds)
        return retriever.SyncReport(embedded=3, remaining=0)

    def broken(*, seconds: float) -> retriever.SyncReport:
        raise RuntimeError("boom")

    monkeypatch.setattr(retriever, "follow_ups", [broken, work])
    monkeypatch.setattr(retriever, "sync", lambda **_: retriever.SyncReport(remaining=5))
    call_command("index_worker", "--once", stdout=io.StringIO())
    assert calls == []  # passages still to embed: not yet
    monkeypatch.setattr(retriever, "sync", lambda **_: retriever.SyncReport())
    out = io.StringIO()
    call_command("index_worker", "--once", stdout=out)
    assert calls == [5.0] and "3 done, 0 to go" in out.getvalue()
