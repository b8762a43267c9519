"""Choosing the PostgreSQL backend loads nothing of Whoosh: not the backend, not the
backend-neutral analysis, not the site's URLs and views a web process imports (only kb's
definition stemming does, when called: search.analysis says why).

Each check runs in a fresh interpreter, so that modules this test process already imported
(the Whoosh backend's, by other tests) cannot hide an import.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

BACKENDS = {
    "postgres": "search.backends.postgres.backend.PostgresBackend",
    "whoosh": "search.backends.whoosh.backend.WhooshBackend",
}

# What a web process on that backend imports: Django and every app, the configured backend,
# the neutral analysis, the URLs and so every view (the site search's service among them).
SCRIPT = """
import json, sys
import django
django.setup()
from django.urls import get_resolver
from search import analysis, words
from search.backend import get_backend
backend = get_backend()
get_resolver().url_patterns
analysis.plain("Atraxa, Praetors' Voice"), analysis.is_stop_word("the")
print(json.dumps({
    "backend": type(backend).__module__,
    "whoosh": sorted(m for m in sys.modules if m == "whoosh" or m.startswith("whoosh.")),
}))
"""


def _loaded(backend: str, tmp_path: Path) -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "KB_SEARCH_BACKEND": BACKENDS[backend],
        "KB_INDEX_DIR": str(tmp_path / "index"),
        "KB_SEARCH_WARM_UP": "0",
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_postgres_backend_and_the_site_import_nothing_of_whoosh(tmp_path: Path) -> None:
    loaded = _loaded("postgres", tmp_path)
    assert loaded["backend"] == "search.backends.postgres.backend"
    assert loaded["whoosh"] == []


def test_the_check_sees_whoosh_where_it_is_chosen(tmp_path: Path) -> None:
    """The same script on the Whoosh backend finds Whoosh and its patched codec: the check
    above would see an import if there were one."""
    loaded = _loaded("whoosh", tmp_path)
    assert loaded["backend"] == "search.backends.whoosh.backend"
    assert {"whoosh", "whoosh.analysis", "whoosh.codec.whoosh3"} <= set(loaded["whoosh"])


def test_no_postgres_module_imports_whoosh_even_inside_a_function() -> None:
    """What the fresh interpreter cannot see: an import inside a method runs only when it is
    called (names_in once imported the Whoosh backend's `named` so)."""
    found = []
    for path in sorted((Path(settings.BASE_DIR) / "search" / "backends" / "postgres").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = [node.module or ""]
            else:
                continue
            found += [
                f"{path.name}:{node.lineno} {t}"
                for t in targets
                if t.split(".")[0] == "whoosh" or t.startswith("search.backends.whoosh")
            ]
    assert found == []


@pytest.mark.parametrize(
    ("title", "names"),
    [
        ("Atraxa, Praetors' Voice", {"atraxa praetors voice", "atraxa"}),
        ("Fire // Ice", {"fire", "ice"}),
        ("Séance", {"seance"}),
    ],
)
def test_a_title_s_names_are_plain_without_whoosh(title: str, names: set[str]) -> None:
    from search.analysis import title_names

    assert title_names(title) == names


def test_the_names_a_text_holds_are_found_longest_first_each_word_once() -> None:
    from search.analysis import named

    known = frozenset({"atraxa", "atraxa praetors voice", "voice", "fire", "ice"})
    assert named("Does Atraxa, Praetors’ Voice see Fire // Ice?", known) == [
        "atraxa praetors voice",
        "fire",
        "ice",
    ]
