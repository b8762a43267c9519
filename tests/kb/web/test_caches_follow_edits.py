"""Per-process tables of the glossary follow an edit made by another process (issue 31).

The glossary's links in rule texts (kb.web.entries._term_index) and search's table of glossary
names (kb.sitesearch.service's glossary_targets and glossary_stems) were kept under the
release's import checksum, which an edit does not change: the editing process cleared its own
copies, every other worker kept the old glossary until it restarted. Here a web server
(gunicorn, one worker, on a copy of the session's database holding the real archive) reads the
pages before and after another process (`manage.py shell`) edits a glossary entry through the
edit service; nothing tells the server but the database.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.search.test_rebuild_killed import _wait

pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only, pytest.mark.django_db]

BIN = Path(sys.executable).parent
#: 704.5v as of 2026-08-07: "If a Siege battle has defense 0 and it isn't the source of...".
RULE = "/en/rules/704.5v/"
SIEGE_LINK = 'href="/en/current/glossary/siege/"'
#: Two rules words no glossary entry is named by: the search finds Siege by this name alone.
MADE_UP = "Ante Banding"

EDIT = """
from kb.archive import editing
from kb.models import GlossaryVersion
from kb.selectors import Releases

version = GlossaryVersion.objects.as_of(Releases.load().current.effective_date).get(
    term__slug="siege"
)
aliases = [a for a in version.alias_list if a not in ("Siege battle", "{made_up}")]
if {add}:
    aliases += ["Siege battle", "{made_up}"]
editing.edit_glossary_version(version=version, user="another process", aliases=aliases)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=120) as answer:
        return answer.read().decode()


def _answers(base: str) -> bool:
    try:
        _get(base + "/en/releases/")
    except OSError:
        return False
    return True


@pytest.fixture
def copied_database(search_index, django_db_blocker, tmp_path: Path) -> Path:
    """The session's database (the real archive, cards, vocabulary) copied: the other
    processes commit to the copy, never to the database the other tests share."""
    with django_db_blocker.unblock():
        if connection.vendor != "sqlite":
            pytest.skip("the server reads a copy of the SQLite test database file")
        source = connection.settings_dict["NAME"]
    copy = tmp_path / "kb.sqlite3"
    with sqlite3.connect(source) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    return copy


def _environment(database: Path, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DJANGO_DEBUG": "0",
        "DATABASE_URL": f"sqlite:///{database}",
        "KB_VAR_DIR": str(tmp_path / "var"),
        "KB_INDEX_DIR": str(settings.KB_INDEX_DIR),  # the session's index, only read
        "KB_SEARCH_AUTO_DRAIN": "0",  # an edit queues its indexing: the index is not written
        "KB_SEARCH_WARM_UP": "0",
        "KB_SEARCH_THROTTLE": "",
    }


def _edit(env: dict[str, str], *, add: bool) -> None:
    code = EDIT.format(made_up=MADE_UP, add=add)
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def _search(base: str) -> list[str]:
    import json

    found = json.loads(_get(f"{base}/api/v1/search?q=ante+banding"))
    return [hit["url"] for hit in found["hits"]]


def test_a_glossary_edit_in_one_process_is_read_by_another(
    copied_database: Path, tmp_path: Path
) -> None:
    env = _environment(copied_database, tmp_path)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
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
        assert _wait(lambda: _answers(base), 120), "gunicorn did not answer"
        # The server builds its tables: the rule's glossary links, search's glossary names.
        page = _get(base + RULE)
        assert "If a Siege battle has defense 0" in page and SIEGE_LINK not in page
        assert not any("/glossary/siege/" in url for url in _search(base))

        _edit(env, add=True)  # another process: "Siege battle" and a made-up name for Siege
        page = _get(base + RULE)
        assert f'<a class="term" {SIEGE_LINK}>Siege battle</a>' in page
        assert any(url.endswith("/glossary/siege/") for url in _search(base))

        _edit(env, add=False)  # and taken back
        assert SIEGE_LINK not in _get(base + RULE)
        assert not any("/glossary/siege/" in url for url in _search(base))
    finally:
        server.terminate()
        try:
            server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()
