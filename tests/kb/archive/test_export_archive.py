"""Bulk export of the whole archive (the session's rules, cards and rulings): the files hold
what kb_stats counts, exact texts, a French text, every card and ruling; and the round trip
export → import into an empty database → export gives the same bytes.

The import runs in a subprocess on an SQLite file of its own under KB_VAR_DIR (the session
database is never emptied), hence `sqlite_only`. The whole archive's round trip is fast enough
for the suite: export 18–52 s, import 45–115 s (idle to busy machine); this file took 238 s
with the session's archive and cards imported (7 minutes when the machine was busy).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from django.conf import settings

from kb.export.bulk import SCHEMA_DIR, export_data
from kb.stats import archive_stats
from rulings.models import Ruling, RulingLink
from tests.crtext.french_fixtures import french_document, requires_seed
from tests.kb.helpers import run

pytestmark = [pytest.mark.slow, pytest.mark.django_db, pytest.mark.sqlite_only, requires_seed]

TEXT_602_2A = (
    "The player announces that they are activating the ability. If an activated ability is "
    "being activated from a hidden zone, the card that has that ability is revealed (see rule "
    "701.20a). That ability is created on the stack as an object that’s not a card. It becomes "
    "the topmost object on the stack. It has the text of the ability that created it, and no "
    "other characteristics. Its controller is the player who activated the ability. The "
    "ability remains on the stack until it’s countered, it resolves, or an effect moves it "
    "elsewhere."
)

SCRIPT = """
import sys
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("import_data", sys.argv[1])
call_command("export_data", "--out", sys.argv[2])
"""


def _load(folder: Path, name: str) -> dict:
    return json.loads(gzip.decompress((folder / name).read_bytes()))


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _round_trip(first: Path, second: Path) -> subprocess.CompletedProcess[str]:
    db = Path(settings.VAR_DIR) / "export-round-trip.sqlite3"
    db.unlink(missing_ok=True)
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "KB_SEARCH_AUTO_DRAIN": "0",
        "KB_INDEX_DIR": str(db.parent / "export-round-trip-index"),
    }
    try:
        return subprocess.run(
            [sys.executable, "-c", SCRIPT, str(first), str(second)],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)


def test_the_whole_archive_exports_and_comes_back_identical(cards, tmp_path: Path) -> None:
    # A French text in the archive (issue 13's test document, translating 2010-04-23).
    french = tmp_path / "regles-602.txt"
    french.write_text(french_document(), encoding="utf-8")
    run("import_rules", str(french), "--lang", "fr")
    first = tmp_path / "first"
    result = export_data(first)
    assert len(result.files) == 134  # 133 releases and the cards
    stats = archive_stats()["releases"]

    latest = _load(first, "releases/2026-08-07.json.gz")
    jsonschema.validate(latest, json.loads((SCHEMA_DIR / "release.schema.json").read_text()))
    expected = stats["2026-08-07"]
    kinds = [r["kind"] for r in latest["rules"]]
    assert len(kinds) == sum(expected[k + "s"] for k in ("section", "chapter", "rule", "subrule"))
    assert len(kinds) == 9 + 147 + 1173 + 1989
    assert kinds.count("rule") == expected["rules"] == 1173
    assert len(latest["glossary"]) == expected["glossary"] == 739
    assert sum(len(r["examples"]) for r in latest["rules"]) == expected["examples"] == 277
    rule = next(r for r in latest["rules"] if r["number"] == "602.2a")
    assert rule["text_en"] == TEXT_602_2A
    assert rule["lineage"].startswith("602.2a@")
    cited = {r["target"]: r["lineage"] for r in rule["references"]}
    assert cited["701.20a"] is not None  # resolved in this release

    roe = _load(first, "releases/2010-04-23.json.gz")
    rule = next(r for r in roe["rules"] if r["number"] == "602.2a")
    assert rule["text_fr"].startswith("2a Le joueur annonce qu'il active la capacité.")
    assert rule["french"] == {"status": "official", "translates": "2010-04-23"}
    assert rule["text_en"].startswith("The player announces that he or she is activating")

    cards_file = _load(first, "cards.json.gz")
    shared = [c for c in cards_file["cards"] if c["name_en"] != "The Peregrine Dynamo"]
    assert len(shared) == 22_192
    rulings = [r for c in shared for r in c["rulings"] if not r["is_heading"]]
    assert len(rulings) == 43_771
    assert sum(1 for c in shared for r in c["rulings"] if r["is_heading"]) == 3
    in_db = Ruling.objects.proper().exclude(card__name_en="The Peregrine Dynamo")
    assert sum(1 for r in rulings if r["links"]) == (
        in_db.filter(links__isnull=False).distinct().count()
    )
    links = [link for c in cards_file["cards"] for r in c["rulings"] for link in r["links"]]
    assert len(links) == RulingLink.objects.count()
    kinds_in_db = set(RulingLink.objects.values_list("kind", flat=True).distinct())
    assert {link["kind"] for link in links} == kinds_in_db
    assert sum(1 for link in links if link["evidence"]) == (
        RulingLink.objects.exclude(evidence="").count()
    )

    second = tmp_path / "second"
    done = _round_trip(first, second)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Imported releases: 133 releases" in done.stdout
    assert _files(first) == _files(second)
