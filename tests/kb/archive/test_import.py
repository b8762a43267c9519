"""import_rules: atomic, idempotent, clear refusals; on the demo set and real releases (files
it refuses: test_import_limits)."""

from __future__ import annotations

import datetime as dt
import http.server
import shutil
import threading
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from kb.archive.importer import Importer, ImportRefused, text_checksum
from kb.archive.snapshot import snapshot
from kb.crtext import parse_text
from kb.models import Anomaly, ImportRecord, Release, RuleNumber
from kb.selectors import rule_version
from tests.conftest import CR_EN, CR_LEGACY, requires_shared
from tests.kb.helpers import DEMO, clear_archive, run, table_dump

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_archive(db) -> None:
    """These tests start from an empty archive, even after the session imported the full one."""
    clear_archive()


def test_import_one_file_leaves_a_record(capsys) -> None:
    out = run("import_rules", str(DEMO / "2024-06-07.txt"))
    assert "2024-06-07: created (5 rules, 11 subrules, 1 glossary terms" in out
    release = Release.objects.get()
    assert release.effective_date == dt.date(2024, 6, 7)
    assert release.set_name_en == "Modern Horizons 3"  # from versions.csv beside the file
    record = ImportRecord.objects.get()
    assert (record.action, record.lang, record.effective_date) == (
        "created",
        "en",
        release.effective_date,
    )
    assert record.sha256 == release.sha256 and record.user
    assert record.counts["subrules"] == 11
    v = rule_version("602.2a", dt.date(2024, 6, 7))
    assert v is not None and "(see rule 701.16a)" in v.text_en
    # The demo has no rule 701: the citation is kept and recorded as dangling.
    assert Anomaly.objects.filter(kind="dangling_reference", number="701.16a").count() == 1


def test_the_same_file_again_changes_nothing() -> None:
    run("import_rules", str(DEMO))
    before = table_dump()
    out = run("import_rules", str(DEMO / "2019-01-25.txt"))
    assert "unchanged (already loaded with the same text; nothing changed)" in out
    out = run("import_rules", str(DEMO))
    assert "0 imported, 0 replaced, 10 unchanged, 0 refused" in out
    assert table_dump() == before


def test_the_same_text_with_other_line_endings_is_the_same_release(tmp_path: Path) -> None:
    run("import_rules", str(DEMO / "2019-01-25.txt"))
    before = table_dump()
    crlf = tmp_path / "2019-01-25.txt"
    crlf.write_bytes((DEMO / "2019-01-25.txt").read_bytes().replace(b"\n", b"\r\n"))
    assert "unchanged" in run("import_rules", str(crlf))
    assert table_dump() == before


def test_a_different_text_for_a_loaded_date_needs_replace(tmp_path: Path) -> None:
    run("import_rules", str(DEMO))
    original = snapshot()
    before = table_dump()
    changed = tmp_path / "2019-01-25.txt"
    changed.write_text(
        (DEMO / "2019-01-25.txt").read_text().replace("he or she", "they"), encoding="utf-8"
    )
    with pytest.raises(CommandError, match="already loaded with different content"):
        run("import_rules", str(changed))
    assert table_dump() == before
    out = run("import_rules", str(changed), "--replace")
    assert "2019-01-25: replaced" in out
    assert "they" in rule_version("602.5d", dt.date(2019, 1, 25)).text_en
    assert "he or she" in rule_version("602.5d", dt.date(2018, 4, 27)).text_en
    assert ImportRecord.objects.filter(action="replaced").count() == 1
    assert Release.objects.get(effective_date=dt.date(2019, 1, 25)).set_name_en == (
        "Ravnica Allegiance"
    )
    # Putting the original text back restores the archive as it was (ids aside).
    run("import_rules", str(DEMO / "2019-01-25.txt"), "--replace")
    assert snapshot() == original


def test_a_folder_imports_the_good_files_and_names_the_bad_ones(tmp_path: Path) -> None:
    for name in ("2014-02-01.txt", "2018-04-27.txt", "versions.csv"):
        shutil.copy(DEMO / name, tmp_path / name)
    (tmp_path / "2016-01-01.txt").write_text("not a rules document\n")
    with pytest.raises(CommandError, match=r"1 document\(s\) refused:\n.*2016-01-01\.txt, line 1"):
        run("import_rules", str(tmp_path))
    assert [str(r) for r in Release.objects.all()] == [
        "2014-02-01 (Born of the Gods)",
        "2018-04-27 (Dominaria)",
    ]


@requires_shared
def test_legacy_releases_import_and_their_rules_keep_their_lineage_within_the_era(
    tmp_path: Path,
) -> None:
    for date in ("2008-10-01", "2009-02-01"):
        shutil.copy(CR_LEGACY / f"{date}.txt", tmp_path / f"{date}.txt")
    run("import_rules", str(tmp_path))
    assert [r.effective_date.isoformat() for r in Release.objects.all()] == [
        "2008-10-01",
        "2009-02-01",
    ]
    old, new = (dt.date(2008, 10, 1), dt.date(2009, 2, 1))
    assert Release.objects.get(effective_date=new).counts["rules"] == 489
    kinds = ["rule", "subrule"]
    before = dict(
        RuleNumber.objects.as_of(old).filter(kind__in=kinds).values_list("lineage_id", "number")
    )
    after = dict(
        RuleNumber.objects.as_of(new).filter(kind__in=kinds).values_list("lineage_id", "number")
    )
    assert len(before) == 1174  # 486 rules and 688 subrules
    same = sum(1 for lid, number in before.items() if after.get(lid) == number)
    followed = sum(1 for lid in before if lid in after)
    assert same >= 1150 and followed >= same + 5  # a few renumbered, followed all the same
    # Legacy 409.1a is a different rule from modern 409.1a: nothing ties them by number.
    assert rule_version("409.1a", new).text_en.startswith("The player announces that he or she")
    run("import_rules", str(tmp_path))  # again: nothing changes
    assert ImportRecord.objects.filter(action="created").count() == 2


def test_import_from_an_http_url() -> None:
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(DEMO), **k
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        out = run("import_rules", f"{url}/2011-09-30.txt", "--set-name", "Innistrad")
        assert "2011-09-30: created" in out
        assert Release.objects.get().set_name_en == "Innistrad"
        with pytest.raises(CommandError, match=r"/missing\.txt: download failed"):
            run("import_rules", f"{url}/missing.txt")
    finally:
        server.shutdown()


def test_bad_arguments_are_command_errors() -> None:
    with pytest.raises(CommandError, match="no such file or folder"):
        run("import_rules", "/nonexistent/cr.txt")
    with pytest.raises(CommandError, match="--set-name applies to a single document"):
        run("import_rules", str(DEMO), "--set-name", "X")
    with pytest.raises(CommandError, match="this is an English document"):
        run("import_rules", str(DEMO / "2010-02-01.txt"), "--lang", "fr")


def test_an_import_that_fails_midway_changes_nothing(monkeypatch) -> None:
    run("import_rules", str(DEMO / "2010-02-01.txt"))
    before = table_dump()
    from kb.archive import families

    def boom(self, date):
        raise RuntimeError("disk full")

    monkeypatch.setattr(families.GlossaryFamily, "load_cells", boom)
    text = (DEMO / "2011-02-04.txt").read_text()
    with pytest.raises(RuntimeError, match="disk full"):
        Importer().import_document(parse_text(text), checksum=text_checksum(text))
    assert table_dump() == before


def _import(importer: Importer, path: Path, **kw) -> None:
    text = path.read_text(encoding="utf-8")
    importer.import_document(parse_text(text, source=path.name), checksum=text_checksum(text), **kw)


@requires_shared
@pytest.mark.slow
def test_inserting_and_removing_a_release_between_two_loaded_ones() -> None:
    a, b, c = (CR_EN / f"{d}.txt" for d in ("2019-06-14", "2019-07-12", "2019-08-23"))
    importer = Importer()
    for path in (a, b, c):
        _import(importer, path)
    in_order = snapshot()
    moves = RuleNumber.objects.moves().filter(valid_from=dt.date(2019, 7, 12)).count()
    # The Tokens insertion (111) shifts 111-122, and subrules 110.5a-g become rules 111.2-111.8
    assert moves == 228
    importer.remove(dt.date(2019, 7, 12))
    without_b = snapshot()
    clear_archive()
    for path in (a, c):
        _import(Importer(), path)
    assert snapshot() == without_b  # removing b is as if it had never been imported
    _import(Importer(), b)  # inserted last, between a and c
    assert snapshot() == in_order


@requires_shared
@pytest.mark.slow
def test_removing_a_release_whose_neighbours_trade_rows() -> None:
    """Without Commander Legends (2020-11-20), 2020-08-07 and 2021-02-05 match so that two
    lineages exchange their 2021-02-05 versions (700.x on different names): each row takes the
    place the other leaves, which the unique (lineage, valid_from) once refused mid-update
    (an IntegrityError, and `import_rules --rematch` of the archive stopped there)."""
    a, b, c = (CR_EN / f"{d}.txt" for d in ("2020-08-07", "2020-11-20", "2021-02-05"))
    for path in (a, b, c):
        _import(Importer(), path)
    Importer().remove(dt.date(2020, 11, 20))
    without_b = snapshot()
    clear_archive()
    for path in (a, c):
        _import(Importer(), path)
    assert snapshot() == without_b


@requires_shared
@pytest.mark.slow
def test_replacing_a_release_in_the_middle(tmp_path: Path) -> None:
    dates = ("2024-04-12", "2024-06-07", "2024-07-30")
    importer = Importer()
    for d in dates:
        _import(importer, CR_EN / f"{d}.txt")
    original = snapshot()
    text = (CR_EN / "2024-06-07.txt").read_text(encoding="utf-8")
    edited = text.replace(
        "The player announces that they are activating the ability.",
        "The player announces that they activate the ability.",
    )
    assert edited != text
    with pytest.raises(ImportRefused):
        importer.import_document(parse_text(edited), checksum=text_checksum(edited))
    importer.import_document(parse_text(edited), checksum=text_checksum(edited), replace=True)
    assert rule_version("602.2a", dt.date(2024, 6, 7)).text_en.startswith(
        "The player announces that they activate the ability."
    )
    assert rule_version("602.2a", dt.date(2024, 7, 30)).text_en.startswith(
        "The player announces that they are activating the ability."
    )
    importer.import_document(parse_text(text), checksum=text_checksum(text), replace=True)
    assert snapshot() == original


def test_the_progress_bar_redraws_one_line() -> None:
    """The bar over the releases is drawn on stderr's own stream: through Django's wrapper,
    which ends every write with a newline, each redraw was a line (a hundred on a first
    `make run`)."""
    import io

    from django.core.management import call_command

    clear_archive()
    err = io.StringIO()
    call_command("import_rules", str(DEMO), stdout=io.StringIO(), stderr=err)
    drawn = err.getvalue()
    assert "release" in drawn and drawn.count("\r") >= 2, drawn  # drawn, and redrawn
    assert drawn.count("\n") <= 1, drawn
