"""Browser tests: Playwright drives Debian's Chromium against a real server.

The server is a separate process serving the session's test database (a SQLite file holding the
full archive, imported once by the `archive` fixture). pytest-django's live_server would flush
that database, so it is not used.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

# Playwright's sync API keeps an event loop running in the test thread; the database work
# these fixtures do (the archive import, reading the test database's name) is plain sync code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server_url(archive, cards, search_index, django_db_blocker) -> Iterator[str]:
    """A server process on the prepared test database (SQLite file), started once the
    session's index is built: the pages search it, and what browser tests commit to the
    database (a French import, a maintainer's edit) must not reach an index being built."""
    with django_db_blocker.unblock():
        if connection.vendor != "sqlite":
            pytest.skip("browser tests serve the SQLite test database")
        db = connection.settings_dict["NAME"]
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DJANGO_DEBUG": "0",
        "KB_INDEX_DIR": str(settings.KB_INDEX_DIR),
        "KB_SEARCH_AUTO_DRAIN": "0",
        "KB_SEARCH_THROTTLE": "",  # as in every test: throttling is tested on its own
    }
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", "--insecure", f"127.0.0.1:{port}"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/en/", timeout=2).read()
            break
        except OSError as exc:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                log = proc.stderr.read()[-2000:]
                raise RuntimeError(f"the test server did not start: {log}") from exc
            time.sleep(0.3)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `make install` (apt chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    pg = context.new_page()
    failed: list[str] = []
    # A load the browser gave up because the page navigated away (an admin icon still loading
    # when a form is submitted) is not a failure of the site; anything else is.
    pg.on(
        "requestfailed",
        lambda r: "ERR_ABORTED" in (r.failure or "") or failed.append(f"{r.url} ({r.failure})"),
    )
    pg.on(
        "request", lambda r: r.url.startswith(("http://127.0.0.1", "data:")) or failed.append(r.url)
    )
    yield pg
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=False)
    context.close()
    assert not failed, f"requests that failed or left the site: {failed}"


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)
