"""`make loadtest --during rebuild`, bounded (issue 16): the reading and search mix through
`make serve` (gunicorn, 2 workers) while `rebuild_index` builds the whole index beside the
live one and swaps it in, over and over: no request fails (0 errors, no 503), the rebuilds
succeed, and afterwards the database passes its integrity check and `check_index` is clean.

A short version of the measured run (docs/benchmarks.md): two levels of a few seconds, on the last
three real releases and the demo card, in a data folder of the test's own.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import release_files, requires_shared

pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only, pytest.mark.standalone, requires_shared]

SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
for path in {paths!r}:
    call_command("import_rules", path, verbosity=0)
call_command("import_cards", {card!r}, verbosity=0)
call_command("rebuild_index", verbosity=0)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_mix_during_index_rebuilds_has_no_error(tmp_path: Path) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    }
    env |= {
        "KB_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "KB_SEARCH_WARM_UP": "0",
    }
    env.pop("KB_INDEX_DIR", None)
    card = Path(settings.BASE_DIR) / "fixtures" / "demo" / "cards" / "cards.jsonl"
    script = SETUP.format(paths=[str(p) for p in release_files()[-3:]], card=str(card))
    setup = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert setup.returncode == 0, setup.stderr
    live = (tmp_path / "index" / "CURRENT").read_text()

    out = tmp_path / "load.json"
    load = subprocess.run(
        [
            *(sys.executable, "-m", "bench.loadtest", "--seconds", "4", "--levels", "2,4"),
            *("--during", "rebuild", "--port", str(_free_port()), "--json", str(out)),
        ],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert load.returncode == 0, load.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert [level["clients"] for level in figures["levels"]] == [2, 4]
    for level in figures["levels"]:
        assert level["requests"] > 0
        assert level["errors"] == 0, (level["statuses"], load.stdout)
    runs = figures["runs"]
    assert runs and all(code == 0 for _name, _seconds, code, _tail in runs), runs
    assert (tmp_path / "index" / "CURRENT").read_text() != live  # a rebuild was swapped in
    assert figures["checks"][0] == "database: ok"
    assert figures["checks"][1].startswith("check_index: exit 0"), figures["checks"]
