"""Bulk export (export_data) and its import into an empty database (import_data), on the demo
set: files, checksums, determinism, the round trip, and the refusals that change nothing.

The round trip empties the archive and cards tables inside the test's transaction (rolled back
afterwards, as tests/kb/archive/test_site_data.py does): the session database is never flushed.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from django.core.management import CommandError
from django.db import connection, models
from django.test import Client, override_settings
from django.utils import timezone

from kb.archive.texts import hashes
from kb.export.bulk import SCHEMA_DIR
from kb.export.files import MANIFEST
from kb.models import (
    Anomaly,
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Lineage,
    Reference,
    Release,
    RuleNumber,
    RuleVersion,
)
from rulings.exporting import SCHEMA as CARDS_SCHEMA
from rulings.models import Card, CardFace, Ruling, RulingLink
from tests.kb.helpers import clear_archive, run, table_dump
from tests.rulings.helpers import clear_cards

pytestmark = pytest.mark.django_db


def _load(name: str, folder: Path) -> dict:
    return json.loads(gzip.decompress((folder / name).read_bytes()))


def _rewrite(folder: Path, name: str, obj: dict) -> dict:
    """Write a changed export file with its checksum updated in the manifest (as if the
    export had been made that way); returns the manifest."""
    data = gzip.compress(json.dumps(obj).encode(), mtime=0)
    (folder / name).write_bytes(data)
    manifest = json.loads((folder / MANIFEST).read_text())
    for entry in manifest["files"]:
        if entry["name"] == name:
            entry["sha256"] = hashlib.sha256(data).hexdigest()
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return manifest


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture
def demo(db, tmp_path: Path) -> None:
    """The demo set (rules, The Peregrine Dynamo's rulings), with what the demo lacks and an
    export must carry: a French text with its status, examples in both languages (one added by
    a maintainer), a ruling listed under a heading."""
    clear_archive()
    clear_cards()
    run("load_site_data", "--data-dir", str(tmp_path / "nothing"))
    latest = Release.objects.order_by("-effective_date").first()
    version = RuleVersion.objects.as_of(latest.effective_date).get(
        lineage__numbers__number="602.2a", lineage__numbers__valid_to=None
    )
    version.text_fr = "Pour activer une capacité, un joueur la met sur la pile."
    version.fr_status = "unofficial"
    version.fr_release = latest
    version.fr_edited, version.edited_by = True, "ana"
    version.edited_at = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
    version.save()
    Example.objects.create(
        version=version, position=0, text="Example: one.", text_en="Example: one.", text_fr="Ex."
    )
    Example.objects.create(
        version=version,
        position=1,
        text="Example: two.",
        text_en="Example: two.",
        text_fr=None,
        origin="maintainer",
    )
    first, second = Ruling.objects.order_by("date", "id")[:2]
    first.is_heading = True
    first.save()
    second.group = first
    second.save()


def test_export_writes_one_file_per_release_cards_a_manifest_and_sums(demo, tmp_path: Path) -> None:
    out = tmp_path / "export"
    assert "Exported 11 files" in run("export_data", "--out", str(out))
    names = sorted(_files(out))
    releases = [n for n in names if n.startswith("releases/")]
    assert len(releases) == Release.objects.count() == 10
    assert {"cards.json.gz", "manifest.json", "SHA256SUMS"} <= set(names)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["schema_version"] == 1
    assert manifest["latest_release"] == "2025-06-06"
    for entry in manifest["files"]:
        data = (out / entry["name"]).read_bytes()
        assert entry["bytes"] == len(data)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    # sha256sum -c reads SHA256SUMS as written.
    check = subprocess.run(
        ["sha256sum", "-c", "SHA256SUMS"], cwd=out, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count(": OK") == 11
    # The newest release: its rules, the French text with its status, examples, references.
    obj = _load("releases/2025-06-06.json.gz", out)
    jsonschema.validate(obj, json.loads((SCHEMA_DIR / "release.schema.json").read_text()))
    assert _load("releases/2019-05-03.json.gz", out)["release"]["set_name"]["en"] == (
        "War of the Spark"
    )
    rules = {r["number"]: r for r in obj["rules"]}
    assert len(rules) == 18
    rule = rules["602.2a"]
    assert rule["lineage"] == "602.2a@2010-02-01"
    assert rule["kind"] == "subrule"
    assert rule["text_fr"].startswith("Pour activer une capacité")
    assert rule["french"] == {"status": "unofficial", "translates": "2025-06-06"}
    assert rule["edited"] == {
        "source_text": "",
        "en_edited": False,
        "fr_edited": True,
        "by": "ana",
        "at": "2026-11-30T12:00:00+00:00",
    }
    assert rules["602.2b"]["edited"] is None
    assert rule["examples"] == [
        {"text_en": "Example: one.", "text_fr": "Ex.", "origin": "source", "edited": None},
        {"text_en": "Example: two.", "text_fr": None, "origin": "maintainer", "edited": None},
    ]
    cited = {r["target"]: r["lineage"] for r in rules["602.2"]["references"]}
    assert cited["714"] is None  # the demo lacks chapter 714: unresolved, kept
    glossary = obj["glossary"][0]
    assert glossary["term"] == "activated ability"
    assert glossary["references"][0]["lineage"] == "602@2010-02-01"
    cards = _load("cards.json.gz", out)
    jsonschema.validate(cards, json.loads(CARDS_SCHEMA.read_text()))
    (dynamo,) = cards["cards"]
    assert dynamo["name_en"] == "The Peregrine Dynamo"
    assert len(dynamo["rulings"]) == 11
    assert dynamo["rulings"][0]["is_heading"]
    assert dynamo["rulings"][1]["group"] == 0
    links = [link for r in dynamo["rulings"] for link in r["links"]]
    assert {"lineage": "602@2010-02-01", "current_number": "602"}.items() <= links[0].items()


def test_the_same_database_exports_the_same_bytes(demo, tmp_path: Path) -> None:
    run("export_data", "--out", str(tmp_path / "a"))
    run("export_data", "--out", str(tmp_path / "b"))
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    header = (tmp_path / "a" / "cards.json.gz").read_bytes()[:10]
    assert header[3] == 0  # no file name in the gzip header
    assert header[4:8] == b"\0\0\0\0"  # mtime 0


def test_export_import_export_gives_identical_files(demo, tmp_path: Path) -> None:
    run("export_data", "--out", str(tmp_path / "first"))
    clear_archive()
    clear_cards()
    out = run("import_data", str(tmp_path / "first"))
    assert "10 releases" in out and "11 rulings" in out
    run("export_data", "--out", str(tmp_path / "second"))
    assert _files(tmp_path / "first") == _files(tmp_path / "second")
    # The imported database reads like the one exported: pages and the grouping work.
    assert "Pour activer une capacité" in Client().get("/fr/rules/602.2a/").content.decode()
    grouped = Ruling.objects.filter(group__isnull=False).get()
    assert grouped.group.is_heading


#: Every table an export carries, and the columns set when a row is written (not exported).
EXPORTED_MODELS = [
    Release,
    Anomaly,
    Lineage,
    RuleNumber,
    RuleVersion,
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Reference,
    Card,
    CardFace,
    Ruling,
    RulingLink,
]
WRITE_TIMES = {"imported_at", "updated_at"}


def _stored_rows() -> dict[str, list[str]]:
    """Every concrete column of every row of the exported tables, read with plain SQL (the
    base column of a translated field too, which the ORM's values() would rewrite), ids left
    out: a foreign key reads as the row it points at, so that rows compare across a round
    trip whose ids differ. The write times are checked apart."""
    raw: dict[type[models.Model], dict[int, dict[str, object]]] = {}
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        for model in EXPORTED_MODELS:
            fields = model._meta.concrete_fields
            cursor.execute(
                f"SELECT {', '.join(qn(f.column) for f in fields)} FROM {qn(model._meta.db_table)}"
            )
            rows = {}
            for values in cursor.fetchall():
                row = dict(zip((f.name for f in fields), values, strict=True))
                for f in fields:  # SQLite hands JSON back as text, PostgreSQL decoded
                    if isinstance(f, models.JSONField) and isinstance(row[f.name], str):
                        row[f.name] = json.loads(row[f.name])
                rows[row.pop(model._meta.pk.name)] = row
            raw[model] = rows
    memo: dict[tuple[type[models.Model], int], str] = {}

    def content(model: type[models.Model], pk: int) -> str:
        if (model, pk) not in memo:
            row = dict(raw[model][pk])
            for f in model._meta.concrete_fields:
                if f.name in WRITE_TIMES:
                    row.pop(f.name)
                elif f.is_relation and row[f.name] is not None:
                    row[f.name] = content(f.related_model, row[f.name])
            memo[model, pk] = json.dumps(row, sort_keys=True, default=repr, ensure_ascii=False)
        return memo[model, pk]

    return {m._meta.label: sorted(content(m, pk) for pk in raw[m]) for m in EXPORTED_MODELS}


def test_a_round_trip_stores_every_column_of_every_row_as_it_was(demo, tmp_path: Path) -> None:
    """Not only the exported fields: the base column of translated fields, hashes, defaults of
    columns an export leaves out, JSON, UUIDs, nullable keys; the write times are now."""
    Card.objects.update(oracle_id="8b6b1e6c-1d7b-4c0a-9b61-2b0f1d6a9f44", printings=["LEA"])
    CardFace.objects.create(
        card=Card.objects.get(), position=0, name="Dynamo", type_line="Artifact", name_fr="Dynamo"
    )
    # The fixture adds examples with create(), which leaves the version's comparison hashes as
    # they were; an import computes them from the texts, as the importer does.
    for version in RuleVersion.objects.filter(examples__isnull=False).distinct():
        examples = tuple(e.text_en or "" for e in version.examples.order_by("position"))
        h = hashes(version.text_en or "", examples)
        RuleVersion.objects.filter(pk=version.pk).update(
            text_hash=h.text, folded_hash=h.folded, masked_hash=h.masked, examples_hash=h.examples
        )
    before = _stored_rows()
    assert {label for label, rows in before.items() if not rows} == set()
    run("export_data", "--out", str(tmp_path / "e"))
    clear_archive()
    clear_cards()
    started = timezone.now()
    run("import_data", str(tmp_path / "e"))
    after = _stored_rows()
    for label, rows in before.items():
        assert after[label] == rows, label
    assert started <= Release.objects.earliest("imported_at").imported_at <= timezone.now()
    assert started <= Card.objects.get().updated_at <= timezone.now()


def test_a_non_empty_database_is_refused_and_left_as_it_was(demo, tmp_path: Path) -> None:
    run("export_data", "--out", str(tmp_path / "e"))
    before = table_dump()
    with pytest.raises(CommandError, match=r"the database is not empty .*10 releases"):
        run("import_data", str(tmp_path / "e"))
    assert table_dump() == before
    clear_archive()  # the cards alone are enough to refuse
    with pytest.raises(CommandError, match=r"not empty \(it holds cards\)"):
        run("import_data", str(tmp_path / "e"))
    assert Card.objects.count() == 1


def test_a_file_that_does_not_match_its_checksum_is_refused_by_name(demo, tmp_path: Path) -> None:
    folder = tmp_path / "e"
    run("export_data", "--out", str(folder))
    clear_archive()
    clear_cards()
    target = folder / "releases" / "2019-01-25.json.gz"
    target.write_bytes(gzip.compress(b'{"schema_version": 1}'))
    with pytest.raises(CommandError, match=r"releases/2019-01-25\.json\.gz: checksum does not"):
        run("import_data", str(folder))
    assert not Release.objects.exists()


def test_a_truncated_file_is_a_clear_error_and_changes_nothing(demo, tmp_path: Path) -> None:
    """Cut after the manifest was written (its checksum updated): the gzip itself is refused."""
    folder = tmp_path / "e"
    run("export_data", "--out", str(folder))
    clear_archive()
    clear_cards()
    target = folder / "cards.json.gz"
    cut = target.read_bytes()[:200]
    target.write_bytes(cut)
    manifest = json.loads((folder / MANIFEST).read_text())
    for entry in manifest["files"]:
        if entry["name"] == "cards.json.gz":
            entry["sha256"] = hashlib.sha256(cut).hexdigest()
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(CommandError, match=r"cards\.json\.gz: not a complete gzip JSON file"):
        run("import_data", str(folder))
    assert not Release.objects.exists() and not Card.objects.exists()


def test_a_folder_without_manifest_is_refused(db, tmp_path: Path) -> None:
    clear_archive()
    clear_cards()
    with pytest.raises(CommandError, match="no manifest"):
        run("import_data", str(tmp_path))
    with pytest.raises(CommandError, match="no such folder"):
        run("import_data", str(tmp_path / "absent"))


def test_a_rerun_replaces_the_folder_whole(demo, tmp_path: Path) -> None:
    folder = tmp_path / "e"
    run("export_data", "--out", str(folder))
    (folder / "stale.txt").write_text("left by hand")
    run("export_data", "--out", str(folder))
    assert not (folder / "stale.txt").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["e"]  # no temporary folder left


def test_downloads_page_lists_the_files_and_serves_them(demo, tmp_path: Path) -> None:
    folder = tmp_path / "e"
    with override_settings(KB_EXPORT_DIR=folder):
        client = Client()
        empty = client.get("/en/downloads/").content.decode()
        assert "No export has been made yet" in empty and "manage.py export_data" in empty
        assert "Aucun export" in client.get("/fr/downloads/").content.decode()
        run("export_data", "--out", str(folder))
        html = client.get("/en/downloads/").content.decode()
        manifest = json.loads((folder / MANIFEST).read_text())
        for entry in manifest["files"]:
            assert f'href="/downloads/{entry["name"]}"' in html
            assert entry["sha256"] in html
        assert "1 cards, 10 rulings, 2 links to rules" in html  # one of the 11 is a heading
        assert "18 rules, 1 glossary entries" in html
        fr = client.get("/fr/downloads/").content.decode()
        assert "Téléchargements" in fr and "18 règles" in fr and "Contenu" in fr
        assert 'href="/en/downloads/"' in client.get("/en/").content.decode()  # footer
        response = client.get("/downloads/releases/2025-06-06.json.gz")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/gzip"
        assert "attachment" in response["Content-Disposition"]
        body = b"".join(response.streaming_content)
        assert body == (folder / "releases" / "2025-06-06.json.gz").read_bytes()
        sums = client.get("/downloads/SHA256SUMS")
        assert sums["Content-Type"].startswith("text/plain")
        schema = client.get("/downloads/schema/release.schema.json")
        assert schema.status_code == 200
        assert json.loads(b"".join(schema.streaming_content))["$id"] == "release.schema.json"
        assert client.get("/downloads/schema/cards.schema.json").status_code == 200
        (folder / "secret.txt").write_text("not listed")
        for name in (
            "secret.txt",
            "releases/1999-01-01.json.gz",
            "../manifest.json",
            "releases/../../etc/passwd",
            "%2e%2e/%2e%2e/etc/passwd",
            "schema/../../../settings.py",
        ):
            assert client.get(f"/downloads/{name}").status_code == 404, name


def test_a_malformed_export_is_refused_and_a_broken_manifest_shows_no_files(
    demo, tmp_path: Path
) -> None:
    folder = tmp_path / "e"
    run("export_data", "--out", str(folder))
    clear_archive()
    clear_cards()
    # A release file whose rule lacks its lineage key (checksums updated): refused, named.
    name = "releases/2019-01-25.json.gz"
    obj = _load(name, folder)
    del obj["rules"][0]["lineage"]
    manifest = _rewrite(folder, name, obj)
    with pytest.raises(CommandError, match=r"releases/2019-01-25\.json\.gz: malformed content"):
        run("import_data", str(folder))
    assert not Release.objects.exists()
    manifest["files"][0] = {"name": "cards.json.gz"}  # no size, no checksum
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with override_settings(KB_EXPORT_DIR=folder):
        page = Client().get("/en/downloads/")
    assert page.status_code == 200
    assert "No export has been made yet" in page.content.decode()


def test_a_nested_row_naming_a_parent_of_its_own_is_refused(demo, tmp_path: Path) -> None:
    """An anomaly carrying a release id (or a face a card id) inside its parent's entry is
    malformed: the import refuses it rather than storing it under either parent."""
    folder = tmp_path / "e"
    run("export_data", "--out", str(folder))
    clear_archive()
    clear_cards()
    manifest = json.loads((folder / MANIFEST).read_text())
    names = [e["name"] for e in manifest["files"] if e["name"].startswith("releases/")]
    name = next(n for n in names if _load(n, folder)["anomalies"])
    obj = _load(name, folder)
    obj["anomalies"][0]["release_id"] = 1
    _rewrite(folder, name, obj)
    with pytest.raises(CommandError, match=rf"{re.escape(name)}: malformed content.*release_id"):
        run("import_data", str(folder))
    assert not Release.objects.exists()
