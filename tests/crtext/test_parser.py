"""The CR parser against every real release of the shared archive."""

from __future__ import annotations

import gzip
import json
import re
from functools import cache

import pytest

from kb.crtext import CRFormatError, parse_bytes, parse_text
from kb.crtext.numbers import next_letters
from tests.conftest import CR_EN, SHARED, expected_counts, release_files, requires_shared

pytestmark = requires_shared


@cache
def parsed(date: str):
    return parse_bytes((CR_EN / f"{date}.txt").read_bytes(), source=f"{date}.txt")


def entry(date: str, number: str):
    return next(e for e in parsed(date).entries if e.number == number)


@pytest.mark.parametrize("path", release_files(), ids=lambda p: p.stem)
def test_every_release_parses_to_the_expected_counts(path) -> None:
    doc = parsed(path.stem)
    assert doc.effective_date.isoformat() == path.stem
    assert doc.counts() == expected_counts()[path.stem]


def test_all_101_releases_are_there() -> None:
    assert len(release_files()) == 101


def test_text_examples_and_glossary_match_rulesraker_parse_of_2026_01_16() -> None:
    with gzip.open(SHARED / "cr/structured/rulesraker-MagicCompRules-2026-01-16.json.gz") as fh:
        oracle = json.load(fh)
    doc = parsed("2026-01-16")
    mine = {e.number: e for e in doc.entries}
    assert len(doc.entries) == len(oracle["Rules"]) == 3269
    kinds = {"Part": "section", "Chapter": "chapter", "Rule": "rule", "SubRule": "subrule"}
    for rule in oracle["Rules"]:
        e = mine[rule["Number"].rstrip(".")]
        assert e.kind == kinds[rule["Type"]]
        # rulesraker joins a rule's continuation paragraphs with a space; we keep the line break.
        assert e.text.replace("\n", " ") == " ".join(rule["Body"]), e.number
        assert e.examples == rule.get("Examples", []), e.number
    glossary = {g["KeyText"]: g["Body"] for g in oracle["Glossary"]}
    assert {g.headword: g.text for g in doc.glossary} == glossary


def test_602_2a_today_and_in_2009() -> None:
    assert entry("2026-08-07", "602.2a").text.startswith(
        "The player announces that they are activating the ability."
    )
    assert "(see rule 701.20a)" in entry("2026-08-07", "602.2a").text
    assert "he or she" in entry("2009-07-11", "602.2a").text


def test_subrules_past_z() -> None:
    numbers = [e.number for e in parsed("2026-08-07").entries if e.number.startswith("704.5")]
    assert numbers[-2:] == ["704.5z", "704.5aa"]
    assert entry("2026-08-07", "704.5aa").text.startswith("If a player controls a permanent")


def _anomalies(date: str, kind: str) -> list:
    return [a for a in parsed(date).anomalies if a.kind == kind]


def test_stray_space_in_a_number_is_read_as_meant() -> None:
    assert entry("2009-07-11", "702.37a").text.startswith("Storm is a triggered ability")
    assert [a.line for a in _anomalies("2009-07-11", "stray_space_in_number")] == [2576, 2578]


def test_stray_digit_505_54_is_505_5() -> None:
    doc = parsed("2010-06-18")
    assert "505.54" not in {e.number for e in doc.entries}
    assert entry("2010-06-18", "505.5").text.startswith("Third, the active player gets priority")
    (a,) = _anomalies("2010-06-18", "stray_digit_in_number")
    assert (a.number, a.line, a.detail) == ("505.5", 1545, "printed 505.54")


@pytest.mark.parametrize(
    ("date", "numbers"),
    [
        ("2009-09-04", ["702.30d"]),
        ("2009-10-01", ["702.30d"]),
        ("2024-09-20", ["702.175", "702.175a"]),
    ],
)
def test_numbers_printed_twice_are_both_kept(date: str, numbers: list[str]) -> None:
    doc = parsed(date)
    for number in numbers:
        twice = [e for e in doc.entries if e.number == number]
        assert [e.ordinal for e in twice] == [0, 1]
    assert sorted(a.number for a in _anomalies(date, "duplicate_number")) == numbers


def test_orphan_subrules_are_kept_and_recorded() -> None:
    doc = parsed("2021-09-24")
    assert {"724.3a", "724.3b", "724.3c"} <= {e.number for e in doc.entries}
    assert "724.3" not in {e.number for e in doc.entries}
    assert [a.number for a in _anomalies("2021-09-24", "orphan_subrule")] == [
        "724.3a",
        "724.3b",
        "724.3c",
    ]


def test_doubled_example_prefix_is_one_example() -> None:
    e = entry("2014-06-01", "704.4")
    assert len(e.examples) == 1
    assert e.examples[0].startswith("A player controls a creature with the ability")
    assert len(_anomalies("2014-06-01", "doubled_example_prefix")) == 1


def test_stray_one_letter_line_is_not_an_entry() -> None:
    (a,) = _anomalies("2021-11-19", "stray_line")
    assert (a.line, a.detail) == (4540, "'f'")
    assert entry("2021-11-19", "702.148b").text.endswith("“Text-Changing Effects.”")


def test_glossary_terms_glued_to_their_definitions_are_split() -> None:
    doc = parsed("2021-06-18")
    ability = next(g for g in doc.glossary if g.headword == "Ability")
    assert ability.text.startswith("1. Text on an object that explains what that object does")
    assert len(_anomalies("2021-06-18", "glued_glossary_term")) == 11


def test_glossary_aliases_split_on_commas_outside_quotes() -> None:
    by_head = {g.headword: g for g in parsed("2026-08-07").glossary}
    assert by_head["Banding, “Bands with Other”"].terms == ["Banding", "“Bands with Other”"]
    assert by_head["Kicker, Kicked"].terms == ["Kicker", "Kicked"]
    partner = next(g for g in by_head.values() if g.headword.startswith("Partner,"))
    assert partner.terms == ["Partner", "“Partner—[text],”", "“Partner with [name]”"]
    obsolete = by_head["Tribal (Obsolete)"]
    assert obsolete.obsolete and obsolete.terms == ["Tribal"] and obsolete.key == "tribal"


def test_subrule_letters_skip_l_and_o_or_the_gap_is_recorded() -> None:
    """Across every release, each subrule follows its predecessor's letter (l and o skipped)."""
    for path in release_files():
        doc = parsed(path.stem)
        recorded = {a.line for a in doc.anomalies if a.kind == "subrule_letter_sequence"}
        last: dict[str, str] = {}
        for e in doc.entries:
            if e.kind != "subrule" or e.ordinal:
                continue
            rule, letters = re.match(r"^(\d+\.\d+)([a-z]+)$", e.number).groups()
            assert "l" not in letters and "o" not in letters, (path.stem, e.number)
            expected = next_letters(last[rule]) if rule in last else "a"
            assert letters == expected or e.line in recorded, (path.stem, e.number)
            last[rule] = letters
    assert {
        a.number for a in parsed("2023-04-14").anomalies if a.kind == "subrule_letter_sequence"
    } == {"712.3d"}


def test_line_endings_do_not_matter() -> None:
    raw = (CR_EN / "2026-01-16.txt").read_bytes()  # bare CR, with a few stray CRLF
    assert raw.count(b"\r") > 10 * raw.count(b"\n")
    text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    for variant in (text, text.replace("\n", "\r\n"), text.replace("\n", "\r")):
        doc = parse_bytes(variant.encode())
        assert doc.counts() == parsed("2026-01-16").counts()
        assert [e.text for e in doc.entries] == [e.text for e in parsed("2026-01-16").entries]


def test_intro_contents_and_credits() -> None:
    doc = parsed("2026-08-07")
    assert doc.title == "Magic: The Gathering Comprehensive Rules"
    assert doc.introduction.startswith("This document is the ultimate authority")
    assert doc.contents[:2] == ["1. Game Concepts", "100. General"]
    assert doc.credits.startswith("Magic: The Gathering Original Game Design: Richard Garfield")


class TestRefusals:
    """Files that are not CR documents are refused, naming the file and the line."""

    def test_empty(self) -> None:
        with pytest.raises(CRFormatError, match=r"x\.txt: the file is empty"):
            parse_bytes(b"  \n", source="x.txt")

    def test_binary(self) -> None:
        with pytest.raises(CRFormatError, match=r"x\.bin, line 2: binary data"):
            parse_bytes(b"PK\x03\x04\nzip\x00data", source="x.bin")

    def test_undecodable(self) -> None:
        with pytest.raises(CRFormatError, match=r"x\.txt, line 3: cannot decode byte 0x81"):
            parse_bytes(b"a\nb\n\x81\x8d\x8f", source="x.txt")

    def test_no_effective_date(self) -> None:
        with pytest.raises(CRFormatError, match=r"x\.txt, line 1: not a Comprehensive Rules"):
            parse_text("Hello\nworld\n", source="x.txt")

    def test_cut_off_before_the_glossary(self) -> None:
        text = (CR_EN / "2026-08-07.txt").read_text(encoding="utf-8").replace("\r", "\n")
        cut = text[: text.index("\nGlossary\n\nAbandon")]
        with pytest.raises(CRFormatError, match=r"cut\.txt, line \d+: the document is cut off"):
            parse_text(cut, source="cut.txt")

    def test_cut_off_in_the_glossary(self) -> None:
        text = (CR_EN / "2026-08-07.txt").read_text(encoding="utf-8").replace("\r", "\n")
        cut = text[: text.rindex("\nCredits\n")]
        with pytest.raises(CRFormatError, match="no Credits after the Glossary"):
            parse_text(cut, source="cut.txt")
