"""The switch that keeps CI from passing by skipping: with the shared data absent, a test that
reads it skips with its reason on a developer's machine, and fails under KB_REQUIRE_DATA=1
(.ci/run) — through the skipif marker (requires_shared) and a fixture's skip (archive) alike."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: One test per way of needing the data: a skipif marker, and the archive fixture's skip.
NODES = (
    "tests/crtext/test_parser.py::test_all_101_releases_are_there",
    "tests/kb/archive/test_history.py",
)


@pytest.mark.parametrize("node", NODES)
def test_missing_data_skips_by_default_and_fails_where_required(tmp_path: Path, node: str) -> None:
    env = {
        **os.environ,
        "KB_DATA_DIR": str(tmp_path / "no-data-here"),
        "KB_VAR_DIR": str(tmp_path / "var"),
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "", node]
    relaxed = subprocess.run(
        command, cwd=ROOT, env={**env, "KB_REQUIRE_DATA": "0"}, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert relaxed.returncode == 0, relaxed.stdout[-2000:]
    assert "skipped" in relaxed.stdout and "failed" not in relaxed.stdout
    strict = subprocess.run(
        command, cwd=ROOT, env={**env, "KB_REQUIRE_DATA": "1"}, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert strict.returncode == 1, strict.stdout[-2000:]
    assert "required here" in strict.stdout
    assert "skipped" not in strict.stdout.splitlines()[-1]
