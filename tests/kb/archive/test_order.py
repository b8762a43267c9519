"""Any import order gives the same archive: reverse order, and one release inserted last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import CR_EN, release_files, requires_shared

# The imports compared run in SQLite databases of their own, whatever the suite's database.
pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only, pytest.mark.standalone, requires_shared]

SCRIPT = """
import json, sys
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("import_rules", *sys.argv[1:], verbosity=0)
from kb.archive.snapshot import snapshot
print(json.dumps(snapshot()))
"""


def _start(order: list[Path], db: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        # The archive alone is compared: these imports leave the search index alone.
        "KB_SEARCH_AUTO_DRAIN": "0",
        "KB_INDEX_DIR": str(db.parent / "index"),
    }
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT, *map(str, order)],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_reverse_order_and_a_release_inserted_last_give_the_same_archive(tmp_path: Path) -> None:
    """Every fourth release of the archive (2009 to 2026, so every era's renumberings, with
    wider gaps between neighbours than the archive has) imported in reverse order against the
    same releases by date; and the Tokens release (which renumbers 111-122) inserted after the
    releases around it, against the same releases by date.

    The whole archive in reverse costs twice a by-date import (each release put first moves
    where every chain starts: 154 s of CPU against 69 s), which the suite cannot afford on top
    of the session's import; the spread keeps every kind of step between releases."""
    files = release_files()
    middle = files.index(CR_EN / "2019-07-12.txt")
    around = files[middle - 6 : middle + 7]
    tokens_last = [f for f in around if f != files[middle]] + [files[middle]]
    spread = files[::4]
    if spread[-1] != files[-1]:  # the latest release always in
        spread.append(files[-1])
    orders = {
        "spread_by_date": spread,
        "spread_reverse": spread[::-1],
        "slice_by_date": around,
        "slice_inserted_last": tokens_last,
    }
    procs = {name: _start(order, tmp_path / f"{name}.sqlite3") for name, order in orders.items()}
    snapshots = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err[-2000:]
        snapshots[name] = json.loads(out)
    assert len(snapshots["slice_by_date"]["versions"]) > 2000  # 13 releases, not nothing
    assert len(spread) == 26 and len(snapshots["spread_by_date"]["versions"]) > 4000
    for name, expected in (
        ("spread_reverse", "spread_by_date"),
        ("slice_inserted_last", "slice_by_date"),
    ):
        for part in ("lineages", "terms", "numbers", "versions", "glossary"):
            assert snapshots[name][part] == snapshots[expected][part], (name, part)
