"""The index writer killed with SIGKILL mid-drain (issue 16): nothing is lost, nothing is left.

A drain deletes outbox entries only once the index holds their documents, so a writer killed
while it writes leaves its entries in the outbox; the next drain applies them (the index then
matches the database: `check_index` is clean) and first sweeps what the killed writer left in
the index folder (Whoosh's `MAIN.tmp` scratch, an uncommitted segment's files), and neither
lock stays held. Both of Whoosh's writers: the plain one, and the two-process one a drain of
many documents uses (its children exit with it).

On two real releases (the last two of the shared archive), in a SQLite database and an index
folder of the test's own; the drain runs in a process of its own, as `index_worker` does.
"""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import pytest

from search.backends.whoosh.folders import _scratch
from tests.conftest import release_files, requires_shared
from tests.search.test_rebuild_killed import (
    _alive,
    _children,
    _env,
    _manage,
    _processes,
    _python,
    _wait,
)

pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only, pytest.mark.standalone, requires_shared]

# An empty live index first, then two releases imported with the index left behind
# (KB_SEARCH_AUTO_DRAIN=0): every document of both waits in the outbox.
SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("rebuild_index", verbosity=0)
for path in {paths!r}:
    call_command("import_rules", path, verbosity=0)
"""

# `index_worker --once`, whose writer slows down after its first 300 documents and says so in
# a mark file, so that the test kills it while it writes. BULK: from how many documents a
# drain uses the two-process writer (the two releases hold about 3,800).
SLOW_DRAIN = """
import time
from pathlib import Path
import django
django.setup()
import search.backends.whoosh.backend as backend
backend.BULK = {bulk}
fields = backend.document_fields
count = [0]
def slow(doc):
    count[0] += 1
    if count[0] == 300:
        Path({mark!r}).write_text("writing")
    if count[0] >= 300:
        time.sleep(0.05)
    return fields(doc)
backend.document_fields = slow
from django.core.management import call_command
call_command("index_worker", once=True, verbosity=0)
"""


def _outbox(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT count(*) FROM search_indexoutbox").fetchone()[0]


def _integrity(db: Path) -> str:
    with sqlite3.connect(db) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


def _session(sid: int) -> set[int]:
    """The running processes of session `sid` (the drain was started as a session leader)."""
    return {
        pid for pid, fields in _processes() if int(fields[3]) == sid and fields[0] not in ("Z", "X")
    }


def _locks_free(index: Path, live: Path) -> bool:
    """Neither the drain's writer lock nor Whoosh's own is held by anyone."""
    from filelock import FileLock, Timeout
    from whoosh.util.filelock import FcntlLock

    try:
        with FileLock(str(index / "writer.lock")).acquire(timeout=0):
            pass
    except Timeout:
        return False
    whoosh = FcntlLock(str(live / "MAIN_WRITELOCK"))
    if not whoosh.acquire(blocking=False):
        return False
    whoosh.release()
    return True


@pytest.mark.parametrize("bulk", [False, True], ids=["one-process-writer", "two-process-writer"])
def test_a_drain_killed_mid_write_loses_nothing_and_the_next_one_cleans_up(
    tmp_path: Path, bulk: bool
) -> None:
    env = _env(tmp_path)
    db, index = tmp_path / "db.sqlite3", tmp_path / "index"
    setup = _python(SETUP.format(paths=[str(p) for p in release_files()[-2:]]), env)
    _, err = setup.communicate(timeout=600)
    assert setup.returncode == 0, err
    waiting = _outbox(db)
    assert waiting > 0
    live = index / (index / "CURRENT").read_text().strip()

    mark = tmp_path / "writing"
    script = SLOW_DRAIN.format(bulk=1000 if bulk else 10**9, mark=str(mark))
    drain = _python(script, env, start_new_session=True)
    try:
        _wait(lambda: mark.exists() or drain.poll() is not None, 120)
        assert mark.exists(), drain.stderr.read() if drain.poll() is not None else "no write"
        if bulk:
            assert _wait(lambda: len(_children(drain.pid)) >= 2, 30), "no indexing children"
        children = _children(drain.pid)
        os.kill(drain.pid, signal.SIGKILL)
        drain.wait(timeout=10)
    finally:
        if drain.poll() is None:
            drain.kill()
    try:
        assert _wait(lambda: not any(_alive(pid) for pid in children), 5), "orphans still run"
        # Every process of the drain's session, those started after the list above included
        # (they share its descriptors, the locks among them), exits with it.
        assert _wait(lambda: not _session(drain.pid), 5), f"still running: {_session(drain.pid)}"
    finally:
        for pid in children | _session(drain.pid):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)

    # Killed while writing: its scratch is in the live folder, its entries in the outbox.
    left = _scratch(live)
    assert any(p.name == "MAIN.tmp" for p in left), sorted(p.name for p in live.iterdir())
    assert _outbox(db) == waiting
    assert _integrity(db) == "ok"
    assert _locks_free(index, live)

    again = _manage(env, "index_worker", "--once")
    assert again.returncode == 0, again.stderr
    assert _outbox(db) == 0
    assert _scratch(live) == []
    assert not [p for p in index.rglob("*") if p.name.endswith(".tmp")]
    assert (index / "CURRENT").read_text().strip() == live.name  # the same index, completed
    checked = _manage(env, "check_index")
    assert checked.returncode == 0, checked.stdout
    assert "index is up to date" in checked.stdout
    assert _locks_free(index, live)
    assert _integrity(db) == "ok"
