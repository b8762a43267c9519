"""Where a benchmark runs: its own throwaway data directory and SQLite database.

Why not the site's database: a bench imports, removes and rewrites releases, cards and the
index; it must never touch data someone relies on, and its figures must not depend on what an
earlier run left behind. Page timings run in a second process on the same directory, because
the process that imported holds warm caches a web worker would not have.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def setup(var_dir: str | Path) -> None:
    """Configure and start Django on `var_dir` (database, index) with the base settings."""
    os.environ["KB_VAR_DIR"] = str(var_dir)
    os.environ.pop("DATABASE_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    # Imports are timed alone: the search bench measures indexing (the outbox waits).
    os.environ.setdefault("KB_SEARCH_AUTO_DRAIN", "0")
    # Benches search hundreds of times a minute, in this process and in servers they start.
    os.environ["KB_SEARCH_THROTTLE"] = ""
    import django

    django.setup()


@contextmanager
def throwaway_var_dir(prefix: str) -> Iterator[Path]:
    """A new, empty data directory with Django set up on it, deleted afterwards."""
    with tempfile.TemporaryDirectory(prefix=prefix) as var_dir:
        _without_page_cache()
        setup(var_dir)
        yield Path(var_dir)


def setup_inherited() -> None:
    """Set up Django on the data directory the parent bench process passed in KB_VAR_DIR."""
    _without_page_cache()
    setup(os.environ["KB_VAR_DIR"])


def _without_page_cache() -> None:
    """Benches time building pages and searching, not the page cache's answers (`make
    loadtest`, which calls `setup` alone, measures serving, cache and all)."""
    os.environ.setdefault("KB_PAGE_CACHE", "off")


def pages_in_fresh_process(module: str, var_dir: Path) -> None:
    """Run `module --pages` on this benchmark's database in a new process, like a web
    worker's (this one holds the import's caches), and print what it measures."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    out = subprocess.run(
        [sys.executable, "-m", module, "--pages"],
        env={**os.environ, "KB_VAR_DIR": str(var_dir)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print(out, end="")
