"""Importing a French document: attached to the English release it translates, aligned by
number and structure, stored beside the English texts without touching a maintainer's work.

The document is the test document of issue 13: a French header written here, then the seed's
French 602 exactly as it is (tests/crtext/french_fixtures.py). Most tests load four real English
releases around it (2010-02-01 to 2010-07-16); the slow ones use the whole archive.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management.base import CommandError

from kb.archive.french_import import (
    FrenchImportError,
    apply_french,
    candidate_releases,
    import_french_sources,
    read_french,
)
from kb.archive.importer import Importer, text_checksum
from kb.crtext import decode_bytes, parse_text
from kb.models import Anomaly, Example, ImportRecord
from kb.models.versioning import FrenchStatus
from kb.selectors import rule_version
from search.models import IndexOutbox
from tests.conftest import CR_EN, requires_shared
from tests.crtext.french_fixtures import french_document, french_pdf, requires_seed
from tests.kb.helpers import clear_archive, run, table_dump

pytestmark = [pytest.mark.django_db, requires_shared, requires_seed]

ROE = dt.date(2010, 4, 23)
ARC = dt.date(2010, 6, 18)
M11 = dt.date(2010, 7, 16)
AROUND = ("2010-02-01", "2010-04-23", "2010-06-18", "2010-07-16")


@pytest.fixture
def english(db) -> None:
    """The four English releases around the document (an empty archive otherwise)."""
    clear_archive()
    importer = Importer()
    for date in AROUND:
        text = decode_bytes((CR_EN / f"{date}.txt").read_bytes())
        importer.import_document(parse_text(text), checksum=text_checksum(text))


@pytest.fixture
def document(tmp_path):
    path = tmp_path / "regles-602.txt"
    path.write_text(french_document(), encoding="utf-8")
    return path


def test_the_document_aligns_to_its_release_and_stores_the_french(english, document) -> None:
    out = run("import_rules", str(document), "--lang", "fr")
    assert "French translating 2010-04-23: created (17 matched, 17 stored" in out
    v = rule_version("602.2a", ROE)
    assert v.text_fr.startswith("2a Le joueur annonce qu'il active la capacité.")  # as printed
    assert v.text_en.startswith("The player announces that he or she is activating")
    assert v.fr_status == FrenchStatus.OFFICIAL and v.fr_release.effective_date == ROE
    assert rule_version("602", ROE).text_fr == "Activer des capacités activées"
    # The same English text in the next release shows the same French (one row, not a copy).
    assert rule_version("602.2a", ARC).pk == v.pk
    # The English 602.1 changed in 2010-07-16: its new version has no French.
    assert rule_version("602.1", ROE).text_fr.startswith("Les capacités activées ont un coût")
    newer = rule_version("602.1", M11)
    assert newer.text_fr == "" and newer.fr_release is None
    example = Example.objects.get(version=rule_version("602.1", ROE))
    assert example.text_fr == "Le coût d'activation d'une capacité qui dit «,"
    flags = set(
        Anomaly.objects.filter(lang="fr", release__effective_date=ROE).values_list(
            "kind", "number", "line"
        )
    )
    assert flags == {
        ("lost_symbol", "602.1", 11),
        ("example_cut_short", "602.1", 12),
        ("doubled_number", "602.2a", 16),
        ("lost_symbol", "602.5a", 23),
    }
    record = ImportRecord.objects.get(lang="fr")
    assert record.release.effective_date == ROE and record.counts["stored"] == 17
    assert IndexOutbox.objects.filter(kind="rule").exclude(group="*").exists()


def test_importing_the_same_document_again_changes_nothing(english, document) -> None:
    run("import_rules", str(document), "--lang", "fr")
    before = table_dump()
    out = run("import_rules", str(document), "--lang", "fr")
    assert "unchanged (this document is already loaded)" in out
    assert table_dump() == before


def test_a_maintainers_french_text_is_kept(english, document) -> None:
    v = rule_version("602.3a", ROE)
    v.text_fr, v.fr_status = "Texte relu par un mainteneur.", FrenchStatus.REVIEWED
    v.save()
    out = run("import_rules", str(document), "--lang", "fr")
    assert "kept (a maintainer's French text): 602.3a" in out
    v.refresh_from_db()
    assert v.text_fr == "Texte relu par un mainteneur." and v.fr_status == FrenchStatus.REVIEWED
    assert rule_version("602.3b", ROE).fr_status == FrenchStatus.OFFICIAL


def test_the_pdf_imports_to_the_same_texts(english, document, tmp_path) -> None:
    pdf = tmp_path / "regles-602.pdf"
    pdf.write_bytes(french_pdf(french_document()))
    out = run("import_rules", str(pdf), "--lang", "fr")
    assert "French translating 2010-04-23: created (17 matched, 17 stored" in out
    # The text file's texts are then the ones already stored: nothing to write.
    doc, checksum = read_french(document.read_bytes(), source=document.name)
    result = apply_french(doc=doc, checksum=checksum, source=document.name)
    assert result.action == "replaced"
    assert result.stored == [] and len(result.unchanged) == 17


def test_without_a_date_line_the_refusal_lists_the_candidates(english, tmp_path) -> None:
    path = tmp_path / "sans-date.txt"
    path.write_text(french_document(date_line=False), encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        run("import_rules", str(path), "--lang", "fr")
    message = str(exc.value)
    assert "sans-date.txt: the document has no date line" in message
    listed = [
        line.split()[0] for line in message.split("candidate English releases")[1].split("\n")[1:]
    ]
    assert listed[:2] == ["2010-04-23", "2010-06-18"]
    assert "2010-04-23  exact match" in message and "2010-06-18  exact match" in message
    assert "602.2 cites 715 in French, 714 in English" in message  # 2010-02-01
    assert "missing in French: 602.1c, 602.1d" in message  # 2010-07-16
    assert not ImportRecord.objects.filter(lang="fr").exists()


def test_a_named_release_is_used_and_a_mismatch_is_not_attached(english, document) -> None:
    out = run("import_rules", str(document), "--lang", "fr", "--translates", "2010-07-16")
    assert "the document is dated 2010-04-23 (line 4) but was attached to 2010-07-16" in out
    # In 2010-07-16, 602.1a is another rule (the French 602.1a is the English 602.1c).
    assert rule_version("602.1a", M11).text_fr == ""
    assert rule_version("602.1c", M11).text_fr == ""
    assert Anomaly.objects.filter(
        lang="fr", kind="structure_mismatch", number="602.1", release__effective_date=M11
    ).exists()
    # Rules whose structure agrees are attached.
    assert rule_version("602.3a", M11).text_fr.startswith("Si plusieurs adversaires")


def test_a_date_with_no_release_attaches_to_the_one_before_with_a_warning(
    english, tmp_path
) -> None:
    path = tmp_path / "mai.txt"
    path.write_text(
        french_document().replace("au 23 avril 2010", "au 1er mai 2010"), encoding="utf-8"
    )
    out = run("import_rules", str(path), "--lang", "fr")
    assert "no English release effective 2010-05-01 (line 4): attached to the latest one " in out
    assert rule_version("602.2a", ROE).fr_release.effective_date == ROE


def test_called_directly_the_import_returns_what_it_attached(english, document) -> None:
    batch = import_french_sources([str(document)])
    assert batch.errors == [] and [o.name for o in batch.outcomes] == [str(document)]
    [result] = batch.results
    assert (result.translates, result.document_date, result.action) == (ROE, ROE, "created")
    assert result.matched[:3] == ["602", "602.1", "602.1a"] and len(result.matched) == 17
    assert sorted(result.stored) == sorted(result.matched)
    assert result.unchanged == [] and result.kept == [] and result.warnings == []
    assert {(f.kind, f.number, f.line) for f in result.flags} == {
        ("lost_symbol", "602.1", 11),
        ("example_cut_short", "602.1", 12),
        ("doubled_number", "602.2a", 16),
        ("lost_symbol", "602.5a", 23),
    }
    assert rule_version("602.2a", ROE).text_fr.startswith("2a Le joueur annonce")
    # Named with the other release, the same document says so in a warning.
    [again] = import_french_sources([str(document)], translates=ARC).results
    assert again.translates == ARC and again.warnings == [
        "the document is dated 2010-04-23 (line 4) but was attached to 2010-06-18 as asked"
    ]


def test_called_directly_a_refusal_raises_with_what_the_others_did(english, document, tmp_path):
    undated = tmp_path / "sans-date.txt"
    undated.write_text(french_document(date_line=False), encoding="utf-8")
    missing = tmp_path / "absent.txt"
    with pytest.raises(FrenchImportError) as exc:
        import_french_sources([str(undated), str(document)])
    message = str(exc.value)
    assert message.startswith(f"1 document(s) refused:\n{undated}: the document has no date line")
    assert "2010-04-23  exact match" in message  # the candidates, as the command shows them
    # The refused document changed nothing; the other one was imported all the same.
    outcomes = exc.value.batch.outcomes
    assert [(o.name, o.result is None) for o in outcomes] == [
        (str(undated), True),
        (str(document), False),
    ]
    assert outcomes[0].error in message and not outcomes[0].unreadable
    assert outcomes[1].result.action == "created" and len(outcomes[1].result.stored) == 17
    assert ImportRecord.objects.filter(lang="fr").count() == 1
    # A path that is not there is the source's error, named; nothing was tried.
    with pytest.raises(FrenchImportError) as exc:
        import_french_sources([str(missing)])
    assert str(exc.value) == f"{missing}: no such file or folder"
    assert exc.value.batch.outcomes == []


def test_the_command_refuses_with_the_imports_own_message(english, tmp_path) -> None:
    undated = tmp_path / "sans-date.txt"
    undated.write_text(french_document(date_line=False), encoding="utf-8")
    with pytest.raises(FrenchImportError) as direct:
        import_french_sources([str(undated)])
    with pytest.raises(CommandError) as command:
        run("import_rules", str(undated), "--lang", "fr")
    assert str(command.value) == str(direct.value)
    with pytest.raises(CommandError, match=r"--translates 'avril': not a date \(YYYY-MM-DD\)"):
        run("import_rules", str(undated), "--lang", "fr", "--translates", "avril")


@pytest.mark.slow
def test_over_the_whole_archive_the_refusal_lists_2010_04_23_and_2010_06_18_first(
    archive,
) -> None:
    from kb.crtext.french_parser import parse_french_text

    doc = parse_french_text(french_document(date_line=False))
    ranked = candidate_releases(doc=doc)
    assert [c.effective_date for c in ranked[:2]] == [ROE, ARC]
    assert ranked[0].exact and ranked[1].exact and not ranked[2].exact


@pytest.mark.slow
def test_over_the_whole_archive_todays_602_2a_gets_no_french(archive, document) -> None:
    run("import_rules", str(document), "--lang", "fr")
    assert rule_version("602.2a", ROE).text_fr.startswith("2a Le joueur")
    today = rule_version("602.2a", dt.date.today())
    assert today.text_fr == "" and today.fr_release is None
