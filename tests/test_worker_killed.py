"""A gunicorn worker killed with SIGKILL mid-request (issue 16): the master starts another,
the next requests answer 200, and the database passes SQLite's integrity check.

gunicorn as `make serve` runs it (production settings, static files collected), with one
worker so that the request in flight is known to be the killed worker's, on the session's
test database holding the whole archive: the diff of the first and last releases as JSON
takes a while to build, and the worker is killed as soon as it has accepted the connection.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.conftest import release_files
from tests.search.test_rebuild_killed import _alive, _children, _wait

# django_db makes pytest-django set up the test database even when only this test runs.
pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only, pytest.mark.django_db]

BIN = Path(sys.executable).parent
AFTER = ["/en/", "/en/rules/602.2a/", "/fr/rules/602.2a/", "/api/v1/rules/602.2a?lang=fr"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=60) as answer:
        answer.read()
        return answer.status


def test_a_worker_killed_mid_request_is_replaced_and_nothing_breaks(
    archive, django_db_blocker, tmp_path: Path
) -> None:
    with django_db_blocker.unblock():
        if connection.vendor != "sqlite":
            pytest.skip(
                "gunicorn serves the SQLite test database file; run it without DATABASE_URL"
            )
        db = connection.settings_dict["NAME"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.prod",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"sqlite:///{db}",
        "KB_VAR_DIR": str(tmp_path),  # static files collected here
        "KB_INDEX_DIR": str(tmp_path / "index"),
        "KB_SEARCH_AUTO_DRAIN": "0",
        "KB_SEARCH_WARM_UP": "0",
        "KB_SEARCH_THROTTLE": "",
    }
    collect = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert collect.returncode == 0, collect.stderr
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    master = subprocess.Popen(
        [
            *(str(BIN / "gunicorn"), "config.wsgi:application", "--workers", "1"),
            *("--bind", f"127.0.0.1:{port}", "--timeout", "120"),
        ],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait(lambda: _answers(base), 60), "gunicorn did not answer"
        (worker,) = _children(master.pid)
        first, last = (p.stem for p in (release_files()[0], release_files()[-1]))
        slow = f"{base}/api/v1/diff?from={first}&to={last}"
        outcome: list[object] = []

        def request() -> None:
            try:
                outcome.append(_get(slow))
            except OSError as exc:  # the connection closed without an answer
                outcome.append(exc)

        held = _client_sockets(worker)
        in_flight = threading.Thread(target=request)
        in_flight.start()
        # Killed the moment the worker holds the request's connection: it is then reading the
        # request or building the answer (the diff of the whole archive: far longer than the
        # fraction of a millisecond between two looks), never done with it.
        assert _wait(lambda: _client_sockets(worker) - held, 30, step=0.0002), "not accepted"
        os.kill(worker, signal.SIGKILL)
        in_flight.join(timeout=60)
        assert outcome and isinstance(outcome[0], OSError), outcome  # no half answer

        assert _wait(lambda: _children(master.pid) - {worker}, 30), "no new worker"
        assert master.poll() is None and not _alive(worker)
        assert _wait(lambda: _answers(base), 60)
        assert [_get(base + path) for path in AFTER] == [200] * len(AFTER)
        assert _get(slow) == 200  # the killed request, asked again
    finally:
        master.terminate()
        try:
            master.wait(timeout=30)
        except subprocess.TimeoutExpired:
            master.kill()
    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _client_sockets(pid: int) -> set[str]:
    """The sockets a process holds open (its listening socket and the connections it
    accepted), by inode."""
    out = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed between the listing and the reading
            continue
        if target.startswith("socket:"):
            out.add(target)
    return out


def _answers(base: str) -> bool:
    try:
        return _get(base + "/en/") == 200
    except OSError:
        return False
