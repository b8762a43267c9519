"""import_cards refuses what no card or rulings file holds (rulings.importing.limits): bytes that
are not
UTF-8, nesting past the limit (a hundred thousand brackets too), wrong types, a truncated
gzip, NaN and infinite numbers, a string of keywords, NUL characters, dates out of range,
over-long fields and lines, a file past the size limit. Each refusal is a CommandError naming
the file, the line or item and the field; the database is unchanged (rows counted before and
after). Small generated files: quick."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from rulings.importing import limits, sources
from rulings.models import Card, CardFace, Ruling, RulingLink
from tests.kb.helpers import run
from tests.rulings.helpers import clear_cards

pytestmark = pytest.mark.django_db

BOLT = {
    "oracle_id": "4457ed35-7c10-48c8-9776-456485fdf070",
    "name": "Lightning Bolt",
    "layout": "normal",
    "mana_cost": "{R}",
    "type_line": "Instant",
    "oracle_text": "Lightning Bolt deals 3 damage to any target.",
    "mana_value": 1.0,
    "colors": ["R"],
    "keywords": [],
    "printings": [{"set": "LEA", "number": "161"}],
    "rulings": [{"date": "2009-10-01", "text": "Bolt can target a planeswalker."}],
}
GIANT = {
    "oracle_id": "0b5a6b4c-3e41-4b36-9a3c-3b6b1c8d2f11",
    "name": "Hill Giant",
    "layout": "normal",
    "mana_cost": "{3}{R}",
    "type_line": "Creature — Giant",
    "oracle_text": "",
    "power": "3",
    "toughness": "3",
    "mana_value": 4.0,
    "colors": ["R"],
    "keywords": [],
    "rulings": [{"date": "2004-10-04", "text": "A vanilla creature."}],
}


@pytest.fixture(autouse=True)
def no_cards(db) -> None:
    """Start from no cards (the session may have loaded them; the transaction rolls back)."""
    clear_cards()


def counts() -> tuple[int, int, int, int]:
    return (
        Card.objects.count(),
        CardFace.objects.count(),
        Ruling.objects.count(),
        RulingLink.objects.count(),
    )


def lines(*records: object) -> bytes:
    return b"".join(
        (r if isinstance(r, bytes) else json.dumps(r).encode("utf-8")) + b"\n" for r in records
    )


def write(path: Path, data: bytes, gz: bool = False) -> Path:
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def refused(path: Path, *expected: str, rulings: Path | None = None) -> str:
    # One card already loaded: the refused file leaves it as it is and adds nothing.
    run("import_cards", str(write(path.parent / "first.jsonl", lines(GIANT))), "--no-link")
    before = counts()
    args = [str(path)] + ([str(rulings)] if rulings else [])
    with pytest.raises(CommandError) as exc:
        run("import_cards", *args, "--no-link")
    message = str(exc.value)
    assert str(rulings or path) in message, message
    for text in expected:
        assert text in message, message
    assert "Traceback" not in message
    assert counts() == before
    assert not Card.objects.filter(name_en="Lightning Bolt").exists()
    return message


@pytest.mark.parametrize(
    ("byte", "expected"),
    [
        (b"\xe9", "cards.jsonl, line 2: not UTF-8 text (byte"),
        (b"\x00", "cards.jsonl, line 2: not JSON"),
    ],
    ids=["not_utf8", "raw_nul"],
)
def test_a_byte_no_json_text_holds_is_refused_naming_the_line(
    tmp_path: Path, byte: bytes, expected: str
) -> None:
    data = lines(GIANT, json.dumps(BOLT).encode().replace(b"Bolt can", b"Bolt " + byte + b" can"))
    refused(write(tmp_path / "cards.jsonl", data), expected)


def test_invalid_utf8_in_a_json_array_is_refused(tmp_path: Path) -> None:
    data = b"[" + json.dumps(BOLT).encode().replace(b"Bolt can", b"Bolt \xe9 can") + b"]"
    refused(write(tmp_path / "oracle-cards.json", data), "oracle-cards.json: not valid JSON")


@pytest.mark.parametrize("depth", [17, 100_000])
def test_deep_nesting_is_refused_naming_the_line(tmp_path: Path, depth: int) -> None:
    deep = b'{"name": "Deep", "printings": ' + b"[" * depth + b"]" * depth + b"}"
    message = refused(write(tmp_path / "cards.jsonl", lines(BOLT, deep)), "cards.jsonl, line 2")
    assert "nested too deeply" in message or "nested deeper than 16 levels" in message


@pytest.mark.parametrize("depth", [17, 100_000])
def test_deep_nesting_in_a_json_array_is_refused_before_the_parser_sees_it(
    tmp_path: Path, depth: int
) -> None:
    """yajl (ijson's C parser) exhausted memory on 100,000 brackets: the process was killed."""
    deep = b'{"name": "Deep", "printings": ' + b"[" * depth + b"]" * depth + b"}"
    data = b"[\n" + json.dumps(BOLT).encode() + b",\n" + deep + b"\n]"
    refused(
        write(tmp_path / "oracle-cards.json", data),
        "oracle-cards.json, item 2: nested deeper than 16 levels",
    )


def test_brackets_inside_strings_are_not_nesting(tmp_path: Path) -> None:
    card = dict(BOLT, oracle_text='[+1]: Draw. "[[[[[[[[[[[[[[[[[[[[" \\ [−2]: Bolt.')
    data = b"[" + json.dumps(card).encode() + b"]"  # one line: read a character at a time
    run("import_cards", str(write(tmp_path / "oracle-cards.json", data)), "--no-link")
    assert Card.objects.get(name_en="Lightning Bolt").text_en == card["oracle_text"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"name": 12}, "line 2: “name” is not text"),
        ({"keywords": "Flying"}, "line 2: “keywords” must be a list of texts, not text"),
        ({"colors": "R"}, "line 2: “colors” must be a list of texts, not text"),
        ({"printings": {"set": "LEA"}}, "line 2: “printings” must be a list of objects"),
        ({"faces": [["Fire"]]}, "line 2: “faces” must be a list of objects"),
        ({"power": True}, "line 2: “power” is not text or a number"),
        ({"mana_value": "1"}, "line 2: “mana_value”: mana value is not a number"),
        ({"oracle_id": "not-a-uuid"}, "line 2: “oracle_id” is not a UUID"),
        ({"fr": {"name": 3}}, "line 2: fr: “name” is not text"),
        ({"fr": {"name": "Foudre", "text": ["x"]}}, "line 2: fr: “text” is not text"),
        ({"fr": "Foudre"}, "line 2: “fr” must be an object"),
        ({"rulings": [{"date": 20091001, "text": "x"}]}, "line 2, ruling 1: “published_at”"),
        # NUL characters
        ({"name": "Bolt\x00"}, "line 2: “name” contains a NUL character"),
        ({"oracle_text": "Deal 3.\x00"}, "line 2: “oracle_text” contains a NUL"),
        ({"keywords": ["Ha\x00ste"]}, "line 2: “keywords” contains a NUL"),
        (
            {"rulings": [{"date": "2009-10-01", "text": "A\x00B"}]},
            "line 2, ruling 1: “comment” contains a NUL character",
        ),
        # over-long fields
        ({"name": "B" * 301}, "line 2: “name” is longer than 300 characters (301)"),
        ({"type_line": "T" * 301}, "line 2: “type_line” is longer than 300 characters"),
        ({"mana_cost": "{R}" * 41}, "line 2: “mana_cost” is longer than 120 characters"),
        ({"oracle_text": "x" * 20_001}, "line 2: “oracle_text” is longer than 20000"),
        ({"power": "1" * 11}, "line 2: “power” is longer than 10 characters"),
        ({"keywords": ["Haste"] * 2_001}, "line 2: “keywords” has more than 2000 items"),
    ],
)
def test_a_field_of_the_wrong_type_or_past_the_limits_is_refused_naming_line_and_field(
    tmp_path: Path, change: dict, expected: str
) -> None:
    """Wrong types, NUL characters and over-long fields of a record."""
    refused(write(tmp_path / "cards.jsonl", lines(GIANT, dict(BOLT, **change))), expected)


def test_a_truncated_gzip_is_refused(tmp_path: Path) -> None:
    full = gzip.compress(lines(*[dict(BOLT, name=f"Bolt {i}") for i in range(200)]))
    path = write(tmp_path / "cards.jsonl.gz", full[: len(full) // 2])
    refused(path, "cards.jsonl.gz: cannot be read after", "Compressed file ended")


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"1e400"])
def test_nan_and_infinite_mana_values_are_refused(tmp_path: Path, literal: bytes) -> None:
    record = json.dumps(BOLT).encode().replace(b'"mana_value": 1.0', b'"mana_value": ' + literal)
    refused(
        write(tmp_path / "cards.jsonl", lines(GIANT, record)),
        "line 2: “mana_value”: mana value is not a number from 0 to 1000000",
    )


def test_a_reimport_of_the_same_cards_reports_nothing_changed(tmp_path: Path) -> None:
    """NaN never equals itself: when it was stored, every re-import reported an update."""
    path = write(tmp_path / "cards.jsonl", lines(BOLT, GIANT, dict(BOLT, name="X", oracle_id=None)))
    first = run("import_cards", str(path), "--no-link")
    assert "cards: 3 created" in first
    again = run("import_cards", str(path), "--no-link")
    assert "0 created, 0 updated, 3 unchanged" in again and "nothing changed" in again


def test_a_string_of_keywords_is_refused_not_stored_letter_by_letter(tmp_path: Path) -> None:
    refused(
        write(tmp_path / "cards.jsonl", lines(dict(BOLT, keywords="Haste"))),
        "line 1: “keywords” must be a list of texts, not text",
    )


def ahead(years: int) -> str:
    return dt.date(dt.date.today().year + years, 12, 31).isoformat()


@pytest.mark.parametrize("date", ["9999-12-31", "1900-01-01", "1992-12-31", ahead(4)])
def test_ruling_dates_out_of_range_are_refused(tmp_path: Path, date: str) -> None:
    card = dict(BOLT, rulings=[{"date": date, "text": "When?"}])
    refused(
        write(tmp_path / "cards.jsonl", lines(GIANT, card)),
        f"line 2, ruling 1: “published_at” is out of range (1993-01-01 to {ahead(3)})",
    )


def test_a_rulings_file_with_a_date_out_of_range_is_refused(tmp_path: Path) -> None:
    cards = write(tmp_path / "cards.jsonl", lines(dict(BOLT, rulings=[]), GIANT))
    ruling = {
        "object": "ruling",
        "oracle_id": BOLT["oracle_id"],
        "published_at": "9999-12-31",
        "comment": "Far.",
    }
    rulings = write(tmp_path / "rulings.jsonl", lines(ruling))
    refused(cards, "rulings.jsonl, line 1: “published_at” is out of range", rulings=rulings)


def test_dates_in_range_are_accepted(tmp_path: Path) -> None:
    card = dict(
        BOLT,
        rulings=[{"date": "1993-08-05", "text": "Alpha."}, {"date": ahead(3), "text": "Soon."}],
    )
    run("import_cards", str(write(tmp_path / "cards.jsonl", lines(card))), "--no-link")
    assert Ruling.objects.filter(card__name_en="Lightning Bolt").count() == 2


def test_an_over_long_line_is_refused_and_the_next_line_still_read(tmp_path: Path) -> None:
    long = dict(BOLT, oracle_text="x" * (limits.MAX_LINE_BYTES + 10))
    message = refused(
        write(tmp_path / "cards.jsonl", lines(long, json.dumps(GIANT).encode() + b"{")),
        "cards.jsonl, line 1: line longer than 1024 KB: not a card record",
        "cards.jsonl, line 2: not JSON",
    )
    assert "2 malformed record(s)" in message


def test_a_file_past_the_size_limit_is_refused_gzipped_or_not(tmp_path: Path, monkeypatch) -> None:
    """A small gzip may inflate to any size: the limit counts the decompressed bytes."""
    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 1024 * 1024)
    many = lines(*[dict(BOLT, name=f"Bolt {i}", oracle_id=None) for i in range(5_000)])
    assert len(many) > 1024 * 1024
    path = write(tmp_path / "cards.jsonl.gz", many, gz=True)
    assert path.stat().st_size < 100 * 1024
    refused(path, "cards.jsonl.gz: larger than 1 MB (decompressed)")
    array = b"[" + b",".join(many.splitlines()) + b"]"
    refused(write(tmp_path / "oracle-cards.json", array), "oracle-cards.json: larger than 1 MB")


def test_a_valid_file_within_the_limits_imports(tmp_path: Path) -> None:
    data = b"[\n" + json.dumps(dict(BOLT, oracle_text='[+1]: \\ "q"')).encode() + b"\n]"
    run("import_cards", str(write(tmp_path / "oracle-cards.json", data)), "--no-link")
    assert Card.objects.filter(name_en="Lightning Bolt").exists()
