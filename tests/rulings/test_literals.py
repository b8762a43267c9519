"""The curated patterns' literal prefilters: what they read from a pattern, that they never
hide a match (every curated pattern, generated texts), and that the linker finds exactly the
same links with them on real rulings."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulings.linking.literals import may_match, prefilterable, required_literals

CURATED = Path(__file__).parents[2] / "fixtures" / "vocabulary" / "ruling_terms.csv"


def literals(pattern: str) -> frozenset[str] | None:
    return required_literals(re.compile(pattern, re.IGNORECASE))


def test_a_pattern_gives_the_strings_every_match_contains() -> None:
    assert literals(r"\blayers?\b|\btimestamps?\b|\bdependenc(?:y|ies)\b") == {
        "layer",
        "timestamp",
        "dependenc",
    }
    # the most selective item of a sequence; lookarounds and classes require nothing
    assert literals(r"(?:^|(?<=[.!?] ))[^.!?]*?\bface[- ]down\b") == {"face"}
    assert literals(r"(?:very )?\bTapped\b") == {"tapped"}
    assert literals(r"(?:ab)+c") == {"ab"}
    assert literals(r"\w+ counters?") == {" counter"}
    # a string holding another adds nothing
    assert literals(r"\btrigger(?:s|ing)?\b|\btriggered\b") == {"trigger"}


def test_a_pattern_with_an_optional_or_open_alternative_gives_none() -> None:
    assert literals(r"(?:foo)?\d+") is None
    assert literals(r"foo|[a-z]+") is None
    assert literals(r"x*") is None


def test_texts_with_characters_that_ignorecase_folds_otherwise_are_not_prefiltered() -> None:
    assert prefilterable("Deathtouch — damage")
    assert not prefilterable("ſacrifice")  # long s: IGNORECASE matches it as "s"
    assert re.search("sacrifice", "ſacrifice", re.IGNORECASE)


def _curated() -> list[re.Pattern[str]]:
    with CURATED.open(encoding="utf-8") as f:
        return [re.compile(row["pattern"], re.IGNORECASE) for row in csv.DictReader(f)]


PATTERNS = _curated()
PIECES = sorted(
    {piece for p in PATTERNS for piece in re.findall(r"[A-Za-z][A-Za-z' -]{2,}", p.pattern)}
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(PIECES),
            st.sampled_from(PIECES).map(str.upper),
            st.sampled_from([" ", ". ", ", ", "—", "{X}", "X", "0", "+1/+1", "(", ")", "ſ", "K"]),
            st.text(max_size=4),
        ),
        max_size=12,
    )
)
def test_a_prefilter_never_hides_a_match(parts: list[str]) -> None:
    text = "".join(parts)
    if not prefilterable(text):
        return
    lowered = text.lower()
    for pattern in PATTERNS:
        if pattern.search(text):
            assert may_match(required_literals(pattern), lowered), (pattern.pattern, text)


def test_every_curated_pattern_has_a_prefilter() -> None:
    unfiltered = [p.pattern for p in PATTERNS if required_literals(p) is None]
    assert unfiltered == []


@pytest.mark.django_db
@pytest.mark.slow
def test_the_linker_finds_the_same_links_without_the_prefilters(cards, django_db_blocker) -> None:
    from rulings.linking import Linker
    from rulings.linking.batch import _names_and_keywords
    from rulings.models import Ruling

    linker = Linker()
    rows = list(
        Ruling.objects.filter(is_heading=False)
        .order_by("id")
        .values_list("card_id", "date", "text", "group__text")[::16]
    )
    names, keywords = _names_and_keywords({r[0] for r in rows}, linker)
    items = [(t, d, names.get(c, []), keywords.get(c, []), h or "") for c, d, t, h in rows]
    with_prefilters = [linker.find(*item) for item in items]
    linker._prefilters = [None] * len(linker._prefilters)
    without = [linker.find(*item) for item in items]
    assert len(items) > 2_700
    assert sum(1 for found in without if found) > 1_500
    assert with_prefilters == without
