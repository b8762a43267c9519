"""A rebuild killed with SIGKILL mid-build: its child processes exit with it, the live index
stays intact, and the next rebuild (or check_index) removes the half-built folder.

On the demo releases, in a SQLite database and an index folder of the test's own (the commands
run in processes of their own, as an operator runs them)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from search.backends.whoosh.folders import LiveFolder
from search.backends.whoosh.schema import schema
from search.indexing import check, drain, rebuild
from tests.kb.helpers import DEMO, clear_archive, run
from tests.rulings.helpers import clear_cards

pytestmark = [pytest.mark.django_db, pytest.mark.sqlite_only]

SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("import_rules", {demo!r}, verbosity=0)
call_command("rebuild_index", verbosity=0)
"""

# rebuild_index as run by an operator, fed the demo's documents over and over, slowly after
# the first 250 (a job of 100 documents starts each of the two indexing children), so that
# the test kills it mid-build while both children are at work.
SLOW_REBUILD = """
import itertools, time
import django
django.setup()
import search.indexing as indexing
documents = indexing.all_documents
def slow():
    for i, doc in enumerate(itertools.cycle(list(documents()))):
        if i >= 250:
            time.sleep(0.05)
        yield doc
indexing.all_documents = slow
from django.core.management import call_command
call_command("rebuild_index", verbosity=0)
"""


def _env(tmp: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "KB_INDEX_DIR": str(tmp / "index"),
        "KB_SEARCH_AUTO_DRAIN": "0",
        "KB_SEARCH_WARM_UP": "0",
    }


def _python(script: str, env: dict[str, str], **kwargs) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _processes() -> Iterator[tuple[int, list[str]]]:
    """Each running process's id and the fields of its /proc stat after the command name
    (state, parent, group, session...); one that ends while being read is skipped."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        yield int(stat.parent.name), fields


def _children(pid: int) -> set[int]:
    return {child for child, fields in _processes() if int(fields[1]) == pid}


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that never comes is not running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait(condition, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


@pytest.mark.standalone
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_a_rebuild_killed_mid_build_leaves_no_orphan_and_the_next_one_cleans_up(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path)
    setup = _python(SETUP.format(demo=str(DEMO)), env)
    _, err = setup.communicate(timeout=300)
    assert setup.returncode == 0, err
    index = tmp_path / "index"
    live = (index / "CURRENT").read_text().strip()
    assert _manage(env, "check_index").returncode == 0

    build = _python(SLOW_REBUILD, env, start_new_session=True)
    try:
        assert _wait(lambda: len(_children(build.pid)) >= 2, 30), "no indexing children"
        assert _wait(lambda: list(index.glob("ix-*/BUILDING")), 10)
        children = _children(build.pid)
        partial = [p.parent for p in index.glob("ix-*/BUILDING")]
        os.kill(build.pid, signal.SIGKILL)
        build.wait(timeout=10)
    finally:
        if build.poll() is None:
            build.kill()
    try:
        assert _wait(lambda: not any(_alive(pid) for pid in children), 5), "orphans still run"
    finally:  # a failing run leaves no orphan behind either
        for pid in children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert all(p.is_dir() for p in partial)  # what the killed build left
    assert (index / "CURRENT").read_text().strip() == live  # the live index untouched

    again = _manage(env, "rebuild_index")
    assert again.returncode == 0, again.stderr
    assert not any(p.exists() for p in partial)
    assert not list(index.glob("ix-*/BUILDING"))
    assert (index / "CURRENT").read_text().strip() != live
    checked = _manage(env, "check_index")
    assert checked.returncode == 0, checked.stdout
    assert "index is up to date" in checked.stdout


@pytest.fixture
def demo_index(tmp_path: Path):
    clear_archive()
    clear_cards()
    run("import_rules", str(DEMO / "2025-06-06.txt"))
    with override_settings(KB_INDEX_DIR=tmp_path / "index"):
        rebuild()
        yield tmp_path / "index"


def _leftover(index: Path) -> Path:
    """A folder as a killed rebuild leaves it: marked BUILDING, never swapped in."""
    folder = LiveFolder(index, schema())
    name = folder.new_folder(building=True)
    folder.create(name)
    (index / "CURRENT.999999.tmp").write_text(name)
    return index / name


def test_check_index_removes_what_a_killed_rebuild_left_and_stays_clean(
    demo_index: Path,
) -> None:
    left = _leftover(demo_index)
    result = check()
    assert result.clean
    assert result.cleaned == [left.name]
    assert not left.exists() and not list(demo_index.glob("CURRENT.*.tmp"))
    assert "removed what 1 interrupted rebuild(s) left" in result.lines()


def test_the_next_rebuild_removes_what_a_killed_one_left(demo_index: Path) -> None:
    left = _leftover(demo_index)
    live = (demo_index / "CURRENT").read_text()
    rebuild()
    assert not left.exists()
    assert (demo_index / "CURRENT").read_text() != live
    assert check().clean


def test_a_finished_folder_is_never_taken_for_a_leftover(demo_index: Path) -> None:
    folders = sorted(p.name for p in demo_index.glob("ix-*"))
    assert folders and not list(demo_index.glob("ix-*/BUILDING"))
    assert check().cleaned == []
    assert sorted(p.name for p in demo_index.glob("ix-*")) == folders


def test_check_index_sweeps_what_a_killed_writer_left_in_the_live_index(
    demo_index: Path,
) -> None:
    """Whoosh's scratch of a writer killed mid-drain (tests/search/test_drain_killed.py makes
    it for real): its temp folder, a segment no table of contents names, a half-written table
    of contents. The committed segments stay and the index still answers."""
    from search.backend import get_backend

    live = demo_index / (demo_index / "CURRENT").read_text().strip()
    before = sorted(p.name for p in live.iterdir())
    documents = get_backend().ids()
    assert len(documents) > 10
    (live / "MAIN.tmp").mkdir()
    (live / "MAIN.tmp" / "abc.run").write_bytes(b"x" * 100)
    (live / "MAIN_zz9orphan.seg").write_bytes(b"x")
    (live / "_MAIN_99.toc.1733130000.5").write_bytes(b"x")
    result = check()
    assert result.clean
    assert sorted(result.cleaned) == sorted(
        f"{live.name}/{n}" for n in ("MAIN.tmp", "MAIN_zz9orphan.seg", "_MAIN_99.toc.1733130000.5")
    )
    assert "removed 3 file(s) interrupted index writers left" in result.lines()
    assert sorted(p.name for p in live.iterdir()) == before
    assert get_backend().ids() == documents


def test_the_next_drain_sweeps_a_killed_writer_s_scratch_even_with_nothing_to_write(
    demo_index: Path,
) -> None:
    """Whoosh would sweep it at its next commit, but a drain with nothing to apply commits
    nothing: the drain sweeps it itself when it takes the writer lock."""
    live = demo_index / (demo_index / "CURRENT").read_text().strip()
    before = sorted(p.name for p in live.iterdir())
    (live / "MAIN.tmp").mkdir()
    (live / "MAIN_zz9orphan.seg").write_bytes(b"x")
    report = drain()
    assert report is not None and report.entries == 0
    assert sorted(p.name for p in live.iterdir()) == before
