"""Several nodes on one PostgreSQL primary and a real streaming replica (docs/deploy.md,
"Several nodes"; issue 16): what config.routers promises, shown on two running clusters
instead of a router asked in process (tests/test_replica_router.py).

The site is served by gunicorn (two workers), DATABASE_URL on the primary and
DATABASE_REPLICA_URL on a hot standby made with pg_basebackup. The standby's replay is paused,
then a maintainer's edit is made on the primary (as the admin makes it), and:
- a public page still shows the old text: its reads come from the replica, and its page-cache
  key is built from the replica's stamps, so the old page is never kept under the new state;
- the maintainer, logged in through the admin (sessions and accounts on the primary, while
  the replica lags), sees the new text in the admin at once;
- once the replica has replayed the edit, the public page shows the new text: that is how an
  edit (or an import) reaches every node.

On the demo set (no shared data needed), in clusters of the test's own; skipped only where no
PostgreSQL server is installed (CI installs one for the PostgreSQL pass of `make test`).
"""

from __future__ import annotations

import glob
import html
import http.cookiejar
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.search.test_rebuild_killed import _manage as run_manage
from tests.search.test_rebuild_killed import _wait
from tests.test_worker_killed import _free_port

INITDB = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
pytestmark = [
    pytest.mark.slow,
    pytest.mark.sqlite_only,  # its own clusters: nothing to run again in the PostgreSQL pass
    pytest.mark.standalone,
    pytest.mark.skipif(
        not INITDB, reason="no PostgreSQL server installed (/usr/lib/postgresql/*/bin/initdb)"
    ),
]

BIN = Path(sys.executable).parent
RULE = "/en/rules/602.1/"
OLD_WORDS = "Activated abilities have a cost and an effect."
NEW_WORDS = "Activated abilities have a cost and an effect, as the replica learns later."
ADMIN_PASSWORD = secrets.token_urlsafe(16)

# The edit a maintainer makes in the admin (kb.archive.editing, as the admin form calls it), made on
# the primary only, in a process of its own (an admin node).
EDIT = f"""
import django
django.setup()
from kb.archive.editing import edit_rule_version
from kb.models import RuleVersion
version = RuleVersion.objects.get(lineage__numbers__number="602.1", valid_to__isnull=True)
text = version.text_en.replace({OLD_WORDS!r}, {NEW_WORDS!r})
assert text != version.text_en
edit_rule_version(version=version, user="maintainer", text_en=text)
print(version.pk)
"""


class Cluster:
    """A throwaway PostgreSQL cluster, as .ci/with-postgres makes one (run as the postgres
    user when the test runs as root: the server refuses root)."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port = folder, port
        self.bin = Path(INITDB[-1]).parent
        self.socket = folder.parent

    def run(self, *command: str, timeout: float = 120) -> str:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        done = subprocess.run(
            [*as_postgres, *command], capture_output=True, text=True, timeout=timeout
        )
        assert done.returncode == 0, f"{command[0]}: {done.stderr or done.stdout}"
        return done.stdout

    def start(self) -> None:
        options = f"-p {self.port} -k {self.socket} -c fsync=off -c listen_addresses=127.0.0.1"
        self.run(
            str(self.bin / "pg_ctl"),
            *("-D", str(self.folder), "-o", options, "-l", f"{self.folder}.log", "-w", "start"),
        )

    def stop(self) -> None:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        subprocess.run(
            [
                *as_postgres,
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.folder),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
            timeout=60,
        )

    def sql(self, statement: str, database: str = "kb") -> str:
        return self.run(
            str(self.bin / "psql"),
            *("-h", str(self.socket), "-p", str(self.port), "-U", "postgres", "-d", database),
            *("-v", "ON_ERROR_STOP=1", "-At", "-c", statement),
        ).strip()

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/kb"


@pytest.fixture
def clusters() -> Iterator[tuple[Cluster, Cluster]]:
    """A primary and, after `prepare` filled it, a standby streaming from it."""
    # Not pytest's tmp_path: its parents are private to root, and the server runs as postgres.
    folder = Path(tempfile.mkdtemp(prefix="kb-replica-"))
    if os.getuid() == 0:
        shutil.chown(folder, "postgres")
    primary = Cluster(folder / "primary", _free_port())
    standby = Cluster(folder / "standby", _free_port())
    try:
        yield primary, standby
    finally:
        standby.stop()
        primary.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _manage(env: dict[str, str], *args: str) -> str:
    done = run_manage(env, *args)
    assert done.returncode == 0, f"manage.py {args[0]}: {done.stderr}"
    return done.stdout


class Browser:
    """urllib with a cookie jar: enough for the admin's login form and CSRF cookie."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=60) as answer:
            assert answer.status == 200, path
            return answer.read().decode()

    def login(self, username: str, password: str) -> None:
        form = self.get("/admin/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
        assert token, "no CSRF token in the admin's login form"
        data = urllib.parse.urlencode(
            {
                "csrfmiddlewaretoken": token.group(1),
                "username": username,
                "password": password,
                "next": "/admin/",
            }
        ).encode()
        request = urllib.request.Request(
            self.base + "/admin/login/", data=data, headers={"Referer": self.base + "/admin/"}
        )
        with self.opener.open(request, timeout=60) as answer:
            assert answer.status == 200
            page = answer.read().decode()
        assert "/admin/logout/" in page, "the admin login failed"


def _scans(cluster: Cluster) -> int:
    """How many times the rules' tables were scanned on that cluster."""
    return int(
        cluster.sql(
            "SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables "
            "WHERE relname LIKE 'kb_rule%'"
        )
    )


def _text_on(page: str) -> str:
    """Which text of 602.1 a page shows (its words are links and marks in HTML)."""
    page = html.unescape(re.sub(r"<[^>]+>", "", page))
    return "new" if NEW_WORDS in page else "old" if OLD_WORDS in page else "neither"


def test_an_edit_reaches_a_node_reading_a_real_replica_once_replayed(
    clusters: tuple[Cluster, Cluster], tmp_path: Path
) -> None:
    primary, standby = clusters
    primary.run(str(primary.bin / "initdb"), "-D", str(primary.folder), "-A", "trust")
    primary.start()
    primary.sql("CREATE DATABASE kb", database="postgres")

    var = tmp_path / "var"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": primary.url,
        "KB_VAR_DIR": str(var),
        "KB_INDEX_DIR": str(var / "index"),
        "KB_SEARCH_AUTO_DRAIN": "0",
        "KB_SEARCH_WARM_UP": "0",
        "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD,
    }
    env.pop("DATABASE_REPLICA_URL", None)
    _manage(env, "migrate", "--noinput", "-v", "0")
    _manage(env, "load_site_data", "--data-dir", str(tmp_path / "no-shared-data"), "-v", "0")
    _manage(env, "createsuperuser", "--noinput", "--username", "maintainer", "--email", "m@x.org")

    # The standby: a base backup of the primary that streams from it (-R writes the
    # connection and standby.signal), started as a hot standby on a port of its own.
    primary.run(
        str(primary.bin / "pg_basebackup"),
        *("-D", str(standby.folder), "-R", "-X", "stream", "-c", "fast", "-U", "postgres"),
        *("-h", str(primary.socket), "-p", str(primary.port)),
    )
    standby.start()
    assert standby.sql("SELECT pg_is_in_recovery()") == "t"

    # The development settings (production's cookies are https-only, and this is plain http
    # on loopback); the routing is the same in both.
    served = {**env, "DATABASE_REPLICA_URL": standby.url, "KB_SEARCH_THROTTLE": ""}
    port = _free_port()
    server = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "config.wsgi:application",
            *("--workers", "2"),
            "--bind",
            f"127.0.0.1:{port}",
        ],
        cwd=settings.BASE_DIR,
        env=served,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        reader, maintainer = Browser(f"http://127.0.0.1:{port}"), None

        def answers() -> bool:
            try:
                return bool(reader.get("/en/"))
            except OSError:
                return False

        assert _wait(answers, 60), "gunicorn did not answer"
        before = _scans(standby)
        assert _text_on(reader.get(RULE)) == "old"
        # The standby's own statistics (flushed within a second or so of a read).
        assert _wait(lambda: _scans(standby) > before, 15), "no page read from the replica"

        # The replica falls behind: its replay paused, the maintainer edits on the primary.
        standby.sql("SELECT pg_wal_replay_pause()")
        version = _manage(env, "shell", "-v", "0", "-c", EDIT).split()[0]
        assert NEW_WORDS in primary.sql(f"SELECT text_en FROM kb_ruleversion WHERE id={version}")
        edited_at = primary.sql("SELECT pg_current_wal_lsn()")

        # Public pages: still the replica's state (the edit purged the page cache; the page is
        # built again from the replica and kept under the replica's stamps).
        assert _text_on(reader.get(RULE)) == "old"
        assert _text_on(reader.get("/api/v1/rules/602.1?lang=en")) == "old"
        # The maintainer: logged in on a node whose replica lags, sees their edit at once.
        maintainer = Browser(reader.base)
        maintainer.login("maintainer", ADMIN_PASSWORD)
        change = maintainer.get(f"/admin/kb/ruleversion/{version}/change/")
        assert _text_on(change) == "new"

        # The replica catches up: every node's public pages show the edit.
        standby.sql("SELECT pg_wal_replay_resume()")
        assert _wait(
            lambda: standby.sql(f"SELECT pg_last_wal_replay_lsn() >= '{edited_at}'::pg_lsn") == "t",
            60,
        ), "the replica did not replay the edit"
        assert _text_on(reader.get(RULE)) == "new"
        assert _text_on(reader.get("/api/v1/rules/602.1?lang=en")) == "new"
    finally:
        server.terminate()
        try:
            _, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            _, err = server.communicate()
    assert "Traceback" not in err, err[-3000:]
