"""Shared fixtures: the real data in ../shared/data, and the full archive imported once.

Tests that need the shared data skip with a clear reason where it is absent, and fail instead
under KB_REQUIRE_DATA=1 (.ci/run sets it: CI always has the data). The
full archive is imported once per session into the test database, outside any test transaction:
tests run in transactions that roll back, so it stays as imported.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

SHARED = Path(settings.KB_DATA_DIR)
CR_EN = SHARED / "cr" / "en"
CR_LEGACY = SHARED / "cr" / "en-legacy"
SEEDS = Path(settings.BASE_DIR).parent / "shared" / "seeds"
NO_SHARED = (
    f"the shared data is not at {SHARED} (set KB_DATA_DIR): this test reads the real archive"
)


def shared_available() -> bool:
    return CR_EN.is_dir()


requires_shared = pytest.mark.skipif(not shared_available(), reason=NO_SHARED)


#: Every skip for missing input says "<what> is (are) not at <path>": NO_SHARED, the seeds'
#: NO_SEED, require_file. Under KB_REQUIRE_DATA=1 (.ci/run) such a skip is a failure.
MISSING_INPUT = " not at "


def data_required() -> bool:
    return os.environ.get("KB_REQUIRE_DATA") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A test skipped because its input is missing fails where the input is required: the
    skipif markers (requires_shared, requires_seed) and fixtures' skips all pass through here,
    so no test can pass CI by skipping (tests/test_required_data.py proves it)."""
    outcome = yield
    report = outcome.get_result()
    if not (report.skipped and data_required()):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if MISSING_INPUT in reason:
        report.outcome = "failed"
        report.longrepr = f"{reason} (KB_REQUIRE_DATA=1: required here, so this fails)"


def require_file(path: Path, what: str) -> None:
    """Skip a test whose input (`what`, at `path`) is absent, naming it; where it must be
    there (KB_REQUIRE_DATA=1, as .ci/run sets), fail instead: CI never passes by skipping."""
    if path.exists():
        return
    message = f"{what} is not at {path}"
    if data_required():
        pytest.fail(f"{message} (KB_REQUIRE_DATA=1: required here)")
    pytest.skip(message)


def release_files() -> list[Path]:
    return sorted(CR_EN.glob("*.txt")) if shared_available() else []


def legacy_files() -> list[Path]:
    """The 32 releases of 1999 to May 2009 (the legacy layout)."""
    return sorted(CR_LEGACY.glob("*.txt")) if shared_available() else []


def expected_counts(*, legacy: bool = False) -> dict[str, dict[str, int]]:
    """Independent counts of every modern release (shared/data's), and with `legacy` of the
    legacy ones too (tests/crtext/legacy_expected_counts.csv: its README says how made)."""
    if not shared_available():
        return {}
    paths = [CR_EN / "expected_counts.csv"]
    if legacy:
        paths.insert(0, Path(__file__).parent / "crtext" / "legacy_expected_counts.csv")
    out: dict[str, dict[str, int]] = {}
    for path in paths:
        with path.open(newline="") as fh:
            for row in csv.DictReader(fh):
                date = row.pop("date")
                out[date] = {k: int(v) for k, v in row.items()}
    return out


@pytest.fixture(scope="session")
def archive(django_db_setup, django_db_blocker):
    """The whole shared archive imported into the test database, once per session."""
    if not shared_available():
        pytest.skip(NO_SHARED)
    from django.db import connection

    name = str(connection.settings_dict["NAME"])
    if "test" not in name.rsplit("/", 1)[-1]:
        pytest.fail(f"refusing to import the archive into {name}: not a test database")
    with django_db_blocker.unblock():
        call_command("import_rules", str(CR_LEGACY), str(CR_EN), verbosity=0)
    return CR_EN


CARDS = SHARED / "cards"
DYNAMO = Path(settings.BASE_DIR) / "fixtures" / "demo" / "cards" / "cards.jsonl"


@pytest.fixture(scope="session")
def cards(archive, django_db_blocker, request):
    """All shared cards and rulings (plus the demo Peregrine Dynamo), linked to the archive,
    and the EN/FR vocabulary, imported once per session after the archive; then, where tests
    of this session read the search index, its build starts in the background."""
    if not (CARDS / "cards.jsonl.gz").is_file():
        pytest.skip(NO_SHARED)
    from rulings.vocabulary.mining import build_vocabulary

    with django_db_blocker.unblock():
        call_command(
            "import_cards",
            str(CARDS / "cards.jsonl.gz"),
            str(CARDS / "rulings.jsonl.gz"),
            verbosity=0,
        )
        call_command("import_cards", str(DYNAMO), verbosity=0)
        build_vocabulary()
        if any("search_index" in getattr(i, "fixturenames", ()) for i in request.session.items):
            _start_index_build()
            request.addfinalizer(_stop_index_build)
    return CARDS


#: The session index's build, running beside the tests that do not read it (see search_index).
_INDEX_BUILD: dict[str, object] = {}


def _index_root() -> Path:
    root = Path(settings.KB_INDEX_DIR)
    if "test" not in root.name:
        pytest.fail(f"refusing to rebuild {root}: not a test index folder")
    return root


def _start_index_build() -> None:
    """Build the session's index in another process (`rebuild_index` on the test database
    file, as the browser tests' server reads it) while the tests that do not read it run.

    Why: the build is three minutes of the suite, and pytest runs one test at a time; the
    tests reading the index run last (pytest_collection_modifyitems). The outbox is emptied
    first (what the in-process rebuild would delete), so the build never writes to the
    database: a test's open transaction cannot make it wait. Only on SQLite (a file other
    processes can read while a test writes, in WAL mode); on PostgreSQL these tests are left
    out (sqlite_only)."""
    from django.db import connection

    from search.models import IndexOutbox

    if connection.vendor != "sqlite":
        return
    IndexOutbox.objects.all().delete()
    root = _index_root()
    shutil.rmtree(root, ignore_errors=True)
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "KB_INDEX_DIR": str(root),
        "KB_SEARCH_AUTO_DRAIN": "0",
    }
    _INDEX_BUILD["started"] = time.perf_counter()
    _INDEX_BUILD["process"] = subprocess.Popen(
        [sys.executable, "manage.py", "rebuild_index", "--wait", "600"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _stop_index_build() -> None:
    """A session ending before any test waited for the build (-x, Ctrl-C) stops it: no
    process outlives the run (its own indexing children exit with it)."""
    process = _INDEX_BUILD.pop("process", None)
    if isinstance(process, subprocess.Popen) and process.poll() is None:
        process.kill()
        process.communicate()


@pytest.fixture(scope="session")
def search_index(cards, django_db_blocker):
    """The search index of everything above, built once per session into the test index
    folder (settings.KB_INDEX_DIR, which browser tests' server reads too)."""
    from search.backend import get_backend
    from search.indexing import rebuild

    process = _INDEX_BUILD.pop("process", None)
    if isinstance(process, subprocess.Popen):  # started beside the tests (cards)
        output, _ = process.communicate(timeout=1800)
        if process.returncode:
            pytest.fail(f"the session's index build failed:\n{output}")
        seconds = time.perf_counter() - float(_INDEX_BUILD["started"])  # type: ignore[arg-type]
        print(f"\nsearch index, built in the background: {output.strip()} ({seconds:.0f} s)")
        return get_backend()
    root = _index_root()
    shutil.rmtree(root, ignore_errors=True)
    started = time.perf_counter()
    with django_db_blocker.unblock():
        count = rebuild()
    print(f"\nsearch index: {count} documents in {time.perf_counter() - started:.0f} s")
    return get_backend()


#: The session fixtures that fill the test database with the whole archive.
ARCHIVE_FIXTURES = frozenset({"archive", "cards", "search_index"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that read the session's search index run on SQLite only (`make test`'s
    PostgreSQL run leaves out `sqlite_only`): the index is the same files on every database,
    and building it a second time would be a third of the suite's time.

    Tests that need none of the archive fixtures run first, in their usual order: many of them
    empty the archive tables inside their transaction (tests/kb/helpers.clear_archive) to load
    a few releases, which costs seconds per test once the session has imported the archive
    (the DELETEs and their rollback) and nothing while the tables are still empty. Those
    reading the search index run last, so that its build (started once the cards are in)
    runs beside the others."""
    for item in items:
        if "search_index" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.sqlite_only)

    def group(item: pytest.Item) -> int:
        names = getattr(item, "fixturenames", ())
        if "search_index" in names:
            return 2
        return 0 if ARCHIVE_FIXTURES.isdisjoint(names) else 1

    items.sort(key=group)


@pytest.fixture(autouse=True)
def _default_language_after_each_test():
    """A request to a /fr/ page leaves French active in the thread (LocaleMiddleware does not
    reset it): later tests would build /fr/ URLs depending on the order they run in."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _empty_page_cache():
    """Each test starts with an empty page cache (kb/web/page_cache.py) and a fresh vocabulary
    stamp: a test's rolled-back transaction takes its data back, and a later test could reach
    the same stamps with other data (a counter bumped again), where production never rolls a
    committed stamp back."""
    from django.core.cache import caches

    from kb.french import glosses

    caches["pages"].clear()
    # The vocabulary's stamp is trusted for two seconds per process (kb.french.glosses._stamp): read
    # in the last test, it would describe rows that test rolled back, and key this test's first
    # pages apart from the ones it builds two seconds later (a page cache miss on a slow machine).
    glosses._checked = None
    yield
