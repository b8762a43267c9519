"""The legacy-layout parser (1999-04-23 to 2009-05-01) against every real legacy release."""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

from kb.crtext import CRFormatError, LegacyLayoutError, parse_bytes, parse_text
from kb.crtext.decode import decode_bytes
from tests.conftest import CR_LEGACY, legacy_files, requires_shared

pytestmark = requires_shared

#: An independent count of every legacy release (how it was made: its README).
COUNTS = Path(__file__).parent / "legacy_expected_counts.csv"


@cache
def parsed(date: str):
    return parse_bytes((CR_LEGACY / f"{date}.txt").read_bytes(), source=f"{date}.txt")


@cache
def printed_lines(date: str) -> list[str]:
    return decode_bytes((CR_LEGACY / f"{date}.txt").read_bytes()).split("\n")


def entries(date: str, number: str):
    return [e for e in parsed(date).entries if e.number == number]


def term(date: str, key: str):
    return next(g for g in parsed(date).glossary if g.key == key)


def expected() -> dict[str, dict[str, int]]:
    with COUNTS.open(newline="") as fh:
        return {row.pop("date"): {k: int(v) for k, v in row.items()} for row in csv.DictReader(fh)}


def test_there_are_32_legacy_releases() -> None:
    assert len(legacy_files()) == 32


@pytest.mark.parametrize("path", legacy_files(), ids=lambda p: p.stem)
def test_every_legacy_release_parses_to_the_independent_counts(path) -> None:
    doc = parsed(path.stem)
    assert doc.effective_date.isoformat() == path.stem
    assert doc.counts() == expected()[path.stem]


def test_the_last_legacy_release_holds_its_1189_rules_and_subrules() -> None:
    counts = parsed("2009-05-01").counts()
    assert counts["rules"] + counts["subrules"] == 1189
    assert parsed("2009-05-01").title == "Magic: The Gathering Comprehensive Rules"


def test_a_wrapped_line_that_begins_like_a_rule_number_is_text() -> None:
    """2001-07-23 wraps 217.5c's citation onto a line of its own: "…has" / "217.5c." is not a
    second subrule, nor is 2003-10-01's "See rule" / "103.4. If a player must…"."""
    assert any(line.startswith("217.5c.") for line in printed_lines("2001-07-23"))
    (rule,) = entries("2001-07-23", "217.5c")
    assert rule.text.startswith("Whenever a card enters the in-play zone, it's considered a")
    assert rule.text.endswith('(see rule 217.8, "Phased-Out").')
    assert "\n" not in rule.text  # the wrapping undone: one paragraph
    (choices,) = entries("2003-10-01", "413.2d")
    assert "simultaneously. See rule 103.4. If a player must make more than one choice" in (
        choices.text
    )
    _first, second = choices.text.split("\n")  # the indented paragraph stays a paragraph
    assert second.startswith("Some spells and abilities have multiple steps or actions")
    assert len(entries("2003-10-01", "103.4")) == 1


def test_entries_keep_the_line_numbers_of_the_file_as_printed() -> None:
    (rule,) = entries("2001-07-23", "217.5c")
    assert printed_lines("2001-07-23")[rule.line - 1].startswith("217.5c Whenever a card enters")
    ante = term("2001-07-23", "ante")
    assert printed_lines("2001-07-23")[ante.line - 1] == "Ante (Obsolete)"


def test_1999_reads_its_banner_underlines_indented_subrules_and_capital_examples() -> None:
    doc = parsed("1999-04-23")
    (artifacts,) = entries("1999-04-23", "214.6")
    assert artifacts.text == "Artifacts"
    (colorless,) = entries("1999-04-23", "214.6a")
    assert colorless.text == (
        "Artifacts have no special characteristics. Artifact spells are colorless, although "
        "other spells or abilities might confer a color."
    )
    assert not any(set(e.text) <= {"-"} for e in doc.entries)
    examples = [x for e in doc.entries for x in e.examples]
    assert any(x.startswith("Merfolk or Wizard is acceptable") for x in examples)
    assert all(not x.startswith("EXAMPLE") for x in examples)
    assert next(e.text for e in doc.entries if e.kind == "section") == "The Game"


def test_the_1999_date_comes_from_the_end_of_the_file_or_from_its_banner() -> None:
    text = decode_bytes((CR_LEGACY / "1999-04-23.txt").read_bytes())
    lines = text.split("\n")
    (dated,) = [i for i, line in enumerate(lines) if "current as of April 23, 1999" in line]
    assert dated > len(lines) - 50  # printed at the very end only
    without = "\n".join(line for line in text.split("\n") if "current as of" not in line)
    assert parse_text(without, source="banner-only").effective_date.isoformat() == "1999-04-23"


def test_glossary_paragraphs_numbered_definitions_tables_and_the_1999_index() -> None:
    effect = term("1999-04-23", "effect")
    assert effect.text.split("\n")[-1] == (
        "Some effects may in turn create delayed abilities to be played later."
    )
    draw = term("1999-04-23", "draw")
    assert draw.text.split("\n")[-1] == (
        "2. A game ends in a draw if both players lose or win simultaneously."
    )
    counter = term("1999-11-01", "counter")
    assert counter.text.split("\n")[1].startswith("2. A counter is a marker placed on a")
    symbols = term("2002-10-07", "expansion symbol")
    assert "Expansions and Editions" in symbols.text
    assert "Fallen Empires(tm) [symbol]" in symbols.text
    ante = term("1999-04-23", "ante")
    assert ante.obsolete and ante.headword == "Ante (Obsolete)"
    # The 1999 Index ("Expansion symbol, 206") is not glossary.
    keys = {g.key for g in parsed("1999-04-23").glossary}
    assert not any(k[-1].isdigit() for k in keys)
    assert all(g.text for g in parsed("1999-04-23").glossary)


@pytest.mark.parametrize(
    ("date", "number", "printed", "kind", "starts"),
    [
        ("1999-11-01", "408.2f", "408.f", "rule_digits_missing", "Card text that isn't an"),
        ("1999-11-01", "408.2g", "408.g", "rule_digits_missing", "Game actions"),
        ("2008-10-01", "306.3b", "306.b", "rule_digits_missing", "If an effect would put a"),
        ("2008-10-01", "306.3c", "306.1c", "wrong_rule_digits", "If an effect would put a"),
        ("2004-06-01", "502.36b", "502.35b", "wrong_rule_digits", "If a spell or ability has"),
    ],
)
def test_misprinted_subrule_numbers_are_read_as_meant_and_reported(
    date, number, printed, kind, starts
) -> None:
    (entry,) = entries(date, number)
    assert entry.text.startswith(starts)
    (anomaly,) = [a for a in parsed(date).anomalies if a.number == number]
    assert (anomaly.kind, anomaly.detail) == (kind, f"printed {printed}")
    assert printed_lines(date)[anomaly.line - 1].startswith(f"{printed} ")


def test_hard_wrapped_files_are_the_seven_measured_and_say_so() -> None:
    wrapped = {
        p.stem
        for p in legacy_files()
        if any(a.kind == "hard_wrapped" for a in parsed(p.stem).anomalies)
    }
    assert wrapped == {
        "1999-04-23",
        "2001-07-23",
        "2001-09-24",
        "2002-02-20",
        "2003-10-01",
        "2003-12-01",
        "2004-02-01",
    }


def test_a_layout_and_a_date_that_disagree_are_refused_naming_the_line() -> None:
    text = decode_bytes((CR_LEGACY / "2009-05-01.txt").read_bytes())
    late = text.replace("current as of May 1, 2009", "current as of May 1, 2010")
    with pytest.raises(CRFormatError, match=r"late\.txt, line 3: a release of 2010-05-01 in the"):
        parse_text(late, source="late.txt")
    early = text.replace("current as of May 1, 2009", "effective as of May 1, 2009")
    with pytest.raises(LegacyLayoutError, match="line 3: a release of 2009-05-01 in the modern"):
        parse_text(early, source="early.txt")


def test_a_legacy_file_without_glossary_is_refused_naming_the_file() -> None:
    text = decode_bytes((CR_LEGACY / "2005-02-01.txt").read_bytes())
    cut = text[: text.index("\nGlossary\n", text.index("100.1."))]
    with pytest.raises(CRFormatError, match=r"cut\.txt, line \d+: the document is cut off"):
        parse_text(cut, source="cut.txt")
