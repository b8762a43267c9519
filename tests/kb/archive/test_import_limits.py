"""Rules imports refuse what no official document holds (kb.crtext.limits): over-long rule numbers,
lines and headwords, dates out of range, NUL bytes, undecodable bytes, too many rules, files
too large, a versions.csv that is not UTF-8 or holds a bad row; and files that are no rules
document at all (empty, binary, no effective date, cut off before the glossary). Each refusal
names the file, the line (and the column for versions.csv) and changes nothing; the admin's
upload refuses the same files with a form error. On the demo set: quick."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import CommandError
from django.test import Client, override_settings

from kb.crtext import CRFormatError, limits
from kb.crtext.french_parser import parse_french_text
from kb.crtext.numbers import is_number
from kb.crtext.pdf import pdf_text
from kb.documents import rule_documents, rule_url
from kb.models import Lineage, Release, RuleNumber, RuleVersion
from roles.groups import MAINTAINERS
from search.backend import get_backend
from search.documents import Hit
from tests.kb.helpers import DEMO, clear_archive, run, table_dump

pytestmark = pytest.mark.django_db

BASE = (DEMO / "2025-06-06.txt").read_text(encoding="utf-8")


def document(date: str = "February 3, 2099") -> str:
    """The demo's current release under another date (no real release has it)."""
    return BASE.replace("June 6, 2025", date, 1)


def with_rule(line: str, text: str | None = None) -> str:
    """A document with `line` inserted as a paragraph before rule 602.2."""
    text = text or document()
    at = text.index("\n602.2. ")
    return f"{text[:at]}\n\n{line}\n{text[at:]}"


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.fixture(autouse=True)
def demo(db, request) -> None:
    """The demo set alone (the slow test reads the session's full archive instead)."""
    if request.node.get_closest_marker("slow"):
        return
    clear_archive()
    run("import_rules", str(DEMO))


def row_counts() -> tuple[int, int, int]:
    return Release.objects.count(), RuleNumber.objects.count(), RuleVersion.objects.count()


def refused(path: Path, *patterns: str) -> str:
    """Import `path`: it must be refused with every pattern in the message, nothing changed."""
    before, counts = table_dump(), row_counts()
    with pytest.raises(CommandError) as exc:
        run("import_rules", str(path))
    message = str(exc.value)
    for pattern in patterns:
        assert pattern in message, message
    assert "Traceback" not in message
    assert row_counts() == counts
    assert table_dump() == before
    return message


LONG_NUMBER = "602.112345678901234567890123456789a"  # the 34 characters


def bad_files() -> dict[str, tuple[bytes, str, ...]]:
    """name -> (the file, how the refusal goes on after the file's name, what else it says):
    documents past the limits, and files that are no rules document at all."""
    long_number = with_rule(f"{LONG_NUMBER} A subrule with a junk number.")
    long_line = with_rule("602.1c " + "word " * 4_001)
    far = document("December 31, 9999")
    many = with_rule(
        "\n\n".join(f"{c}.{n}. Junk rule." for c in range(110, 190) for n in range(1, 260))
    )
    headword = BASE.replace("June 6, 2025", "February 3, 2099").replace(
        "Glossary\n\nActivated", "Glossary\n\n" + "Long" * 80 + "\nA junk term.\n\nActivated"
    )
    cut = document()
    cut_at = "Glossary\n\nActivated"
    documents = {
        "long_number": (
            long_number,
            f", line {line_of(long_number, LONG_NUMBER)}: rule number 602.112345678901… is too "
            "long (at most 4 digits after the dot, 10 characters)",
        ),
        "long_line": (
            long_line,
            f", line {line_of(long_line, '602.1c')}: line longer than 20000 characters (20012)",
        ),
        "far_future": (far, ", line 3: effective date 9999-12-31 is out of range"),
        "many_rules": (many, ", line ", "more than 20000 numbered rules"),
        "long_headword": (
            headword,
            ", line ",
            "glossary headword longer than 300 characters (320)",
        ),
        "cut_off": (
            cut[: cut.index(cut_at)],
            f", line {line_of(cut, cut_at)}: the document is cut off",
        ),
    }
    return {
        **{name: (text.encode("utf-8"), *says) for name, (text, *says) in documents.items()},
        "nul": (document().replace("602.1b", "602.1b \x00", 1).encode(), ", line ", "NUL byte"),
        "not_utf8_nor_cp1252": (
            document().encode("utf-8").replace(b"For many", b"For \x81many", 1),
            ", line ",
            "byte 0x81",
        ),
        "empty": (b"", ": the file is empty"),
        "binary": (b"PK\x03\x04\x14\x00\x06\x00", ", line 1: binary data"),
        "undecodable": (b"These rules\n\xff\xfe\x81", ", line 2: cannot decode"),
        "no_effective_date": (
            b"Just some notes\nabout Magic.\n",
            ", line 1: not a Comprehensive Rules",
        ),
    }


@pytest.mark.parametrize("case", list(bad_files()))
def test_a_bad_file_is_refused_naming_file_and_line(tmp_path: Path, case: str) -> None:
    """A document past the limits, or a file that is no rules document at all."""
    data, after_name, *more = bad_files()[case]
    path = tmp_path / f"{case}.txt"
    path.write_bytes(data)
    message = refused(path, f"{path}{after_name}", *more)
    assert "<input>" not in message


def test_a_50_mb_file_of_junk_rules_is_refused_in_seconds(tmp_path: Path) -> None:
    junk = "".join(f"602.{n}. Junk rule number {n}, words to fill a line.\n\n" for n in range(3, 9))
    text = with_rule(junk * (50 * 1024 * 1024 // len(junk)))
    path = tmp_path / "junk.txt"
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size > 50 * 1024 * 1024
    started = time.perf_counter()
    refused(path, f"{path}: larger than 8 MB", "not a Comprehensive Rules document")
    assert time.perf_counter() - started < 5  # it took 157 s and 1 GB before


def test_a_file_of_junk_rules_under_the_size_limit_is_refused_in_seconds(tmp_path: Path) -> None:
    junk = "\n\n".join(
        f"{c}.{n}. Junk rule number {n}, words to fill a line."
        for c in range(110, 999)
        for n in range(1, 100)
    )
    path = tmp_path / "junk.txt"
    path.write_text(with_rule(junk), encoding="utf-8")
    assert 4 * 1024 * 1024 < path.stat().st_size < limits.MAX_DOCUMENT_BYTES
    started = time.perf_counter()
    refused(path, f"{path}, line ", "more than 20000 numbered rules")
    assert time.perf_counter() - started < 10


def folder_with(tmp_path: Path, csv: bytes) -> Path:
    folder = tmp_path / "releases"
    folder.mkdir()
    (folder / "2099-02-03.txt").write_text(document(), encoding="utf-8")
    (folder / "versions.csv").write_bytes(csv)
    return folder


@pytest.mark.parametrize(
    ("csv", "expected"),
    [
        (
            b"date,set_name\n2099-02-03,Caf\xe9\n",
            "versions.csv, line 2: not UTF-8 text (byte 0xe9)",
        ),
        (b"date,set_name\n9999-12-31,Far\n", "versions.csv, line 2, date: effective date 9999"),
        (b"date,set_name\n2099-2-3,Odd\n", "versions.csv, line 2, date: not a YYYY-MM-DD date"),
        (
            b"date,set_name\n2099-02-03," + b"N" * 201 + b"\n",
            "versions.csv, line 2, set_name: longer than 200 characters (201)",
        ),
        (b"date,set_code\n2099-02-03,ABCDEFGHIJKLM\n", "line 2, set_code: longer than 12"),
        (b"date,set_name\n2099-02-03,A\x00B\n", "versions.csv, line 2: contains a NUL"),
        (b"date\n" + b"2099-02-03\n" * 200_000, "versions.csv: larger than 1024 KB"),
    ],
    ids=["not_utf8", "far_date", "bad_date", "long_name", "long_code", "nul", "too_large"],
)
def test_a_bad_versions_csv_refuses_the_folder(tmp_path: Path, csv: bytes, expected: str) -> None:
    folder = folder_with(tmp_path, csv)
    refused(folder, str(folder), expected)


def test_a_good_versions_csv_still_names_the_set(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, "date,set_name,set_code\n2099-02-03,Zéphyr,ZPH\n".encode())
    run("import_rules", str(folder))
    release = Release.objects.get(effective_date="2099-02-03")
    assert (release.set_name, release.set_code) == ("Zéphyr", "ZPH")


# -- the admin's upload goes through the same parser ------------------------------------------


@pytest.fixture
def maintainer() -> Client:
    user = User.objects.create_user("mai", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    client = Client()
    client.force_login(user)
    return client


def uploads() -> dict[str, tuple[bytes, str, ...]]:
    """name -> (an uploaded file, what its form error says)."""
    out: dict[str, tuple[bytes, str, ...]] = {
        case: (data, "rules.txt", says[-1].split(":", 1)[-1].strip()[:40])
        for case, (data, *says) in bad_files().items()
        if case in ("long_number", "far_future", "long_line", "many_rules")
    }
    out["too_large"] = (b"x" * (limits.MAX_DOCUMENT_BYTES + 1), "larger than 8 MB")
    return out


@pytest.mark.parametrize("case", list(uploads()))
def test_the_admin_upload_refuses_the_same_files_with_a_form_error(
    maintainer: Client, case: str, tmp_path: Path
) -> None:
    data, *expected = uploads()[case]
    before = table_dump()
    with override_settings(KB_PUBLISH_DIR=tmp_path / "publish"):
        page = maintainer.post(
            "/admin/kb/release/publish/", {"file": SimpleUploadedFile("rules.txt", data)}
        )
    assert page.status_code == 200
    body = page.content.decode().replace("&#x27;", "'")
    assert "errorlist" in body
    for text in expected:
        assert text in body
    assert table_dump() == before
    assert not list((tmp_path / "publish").glob("*.txt"))


# -- a number that is too long cannot be stored, nor break a page -----------------------------


def test_the_model_refuses_a_rule_number_past_the_limit() -> None:
    version = RuleNumber.objects.filter(number="602.1a").first()
    assert version is not None
    version.number = "602.12345a"
    with pytest.raises(ValidationError, match="is not a rule number"):
        version.full_clean()
    version.number = "602.1234aa"  # four digits, two letters: the most a number can be
    version.full_clean()
    assert len(version.number) == limits.MAX_NUMBER_LENGTH


def test_every_stored_number_is_a_number_a_url_holds() -> None:
    numbers = set(RuleNumber.objects.values_list("number", flat=True))
    assert numbers and all(is_number(n) and len(n) <= limits.MAX_NUMBER_LENGTH for n in numbers)
    assert not is_number(LONG_NUMBER) and not is_number("602.12345")


def hit_for(number: str) -> Hit:
    return Hit(
        kind="rule",
        key=number,
        ref=number,
        titles={},
        number=number,
        chapter=number[:3],
        label=number,
        date=None,
        valid_from=None,
        valid_to=None,
        score=1.0,
    )


def test_a_hit_whose_number_no_url_holds_links_to_a_search() -> None:
    """An index or database from before the limits may still hold one: no 500."""
    hit = hit_for(LONG_NUMBER)
    assert rule_url(hit, None) == f"/en/search/?q={LONG_NUMBER}"
    assert rule_url(hit, "2025-06-06") == f"/en/search/?q={LONG_NUMBER}"
    ok = hit_for("602.1a")
    assert rule_url(ok, None) == "/en/rules/602.1a/"


# PostgreSQL's varchar column refuses such a number outright: the case exists in SQLite only.
@pytest.mark.sqlite_only
def test_search_page_and_api_answer_with_an_old_too_long_number_stored(
    tmp_path: Path, client: Client
) -> None:
    """A database from before the limits: a junk number stored behind validation's back (as
    the old importer did) is searched without a 500, its hit linked to a search."""
    row = RuleNumber.objects.filter(number="602.1a").first()
    lineage = Lineage.objects.create(key="602.1z@2099-02-03", kind="subrule")
    RuleNumber.objects.bulk_create(
        [
            RuleNumber(
                lineage=lineage,
                number=LONG_NUMBER,
                kind="subrule",
                chapter="602",
                sort_key=row.sort_key + "z",
                valid_from=row.valid_from,
            )
        ]
    )
    version = RuleVersion.objects.filter(lineage=row.lineage).order_by("-valid_from").first()
    version.pk, version.lineage = None, lineage
    version.text_en = "Zyzzyva junk subrule text."
    version.save()
    with override_settings(KB_INDEX_DIR=tmp_path / "index"):
        # An index of these rules alone (the whole data's would take two minutes to build).
        get_backend().rebuild(rule_documents([str(lineage.pk), str(row.lineage_id)]))
        page = client.get("/en/search/", {"q": "zyzzyva"})
        api = client.get("/api/v1/search", {"q": "zyzzyva"})
    assert page.status_code == 200 and api.status_code == 200
    assert f"/en/search/?q={LONG_NUMBER}" in page.content.decode()
    assert api.json()["total"] >= 1


# -- French documents go through the same limits ---------------------------------------------

FRENCH = (
    "Magic : l'Assemblée\nRègles complètes\n\nCes règles entrent en vigueur au {date}.\n\n"
    "1. Concepts\n\n100. Généralités\n\n{rule}\n\nGlossaire\n\nX\nY.\n\nCrédits\n\nZ\n"
)


@pytest.mark.parametrize(
    ("date", "rule", "expected"),
    [
        ("31 décembre 9999", "100.1. Texte.", "line 4: effective date 9999-12-31 is out of range"),
        ("1er février 2010", "100.123456. Texte.", "line 10: rule number 100.123456… is too long"),
        ("1er février 2010", "100.1. " + "mot " * 5_001, "line 10: line longer than 20000"),
    ],
    ids=["far_date", "long_number", "long_line"],
)
def test_a_french_document_past_the_limits_is_refused(date: str, rule: str, expected: str) -> None:
    good = parse_french_text(FRENCH.format(date="1er février 2010", rule="100.1. Texte."))
    assert [e.number for e in good.entries] == ["1", "100", "100.1"]
    with pytest.raises(CRFormatError, match=re.escape(expected)) as exc:
        parse_french_text(FRENCH.format(date=date, rule=rule), source="regles.txt")
    assert str(exc.value).startswith("regles.txt, line ")


def test_a_pdf_over_the_download_limit_is_refused_before_it_is_read() -> None:
    with pytest.raises(CRFormatError, match=re.escape("regles.pdf: larger than 30 MB")):
        pdf_text(b"%PDF-1.7\n" + b"0" * limits.MAX_DOWNLOAD_BYTES, source="regles.pdf")


@pytest.mark.slow
def test_every_number_of_the_real_archive_is_within_the_limits_and_has_a_url(archive) -> None:
    """The limits leave the 133 real releases untouched (the session imported them all) and
    every number they hold builds its URLs: no search hit can fail on one."""
    from django.urls import reverse

    numbers = set(RuleNumber.objects.values_list("number", flat=True))
    assert len(numbers) > 3_000
    assert max(len(n) for n in numbers) == 8  # "702.100a"
    for number in numbers:
        assert is_number(number) and len(number) <= limits.MAX_NUMBER_LENGTH, number
        assert reverse("kb:current_rule", args=[number]) == f"/en/rules/{number}/"
    assert Release.objects.count() == 133
