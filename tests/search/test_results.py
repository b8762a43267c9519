"""Highlighting is skipped only where no word of the query can be (search.backends.whoosh)."""

from __future__ import annotations

import pytest

from search.backends.whoosh.results import _may_match


@pytest.mark.parametrize(
    ("text", "stems", "maybe"),
    [
        ("It becomes day.", {"dai"}, True),  # Porter: day -> dai
        ("Happy ponies.", {"happi", "poni"}, True),
        ("Trample over planeswalkers", {"trampl*"}, True),
        ("Piétinement", {"pietin"}, True),  # accents folded as the analyzers fold them
        ("Flying", {"trampl"}, False),
        ("Flying", set(), False),
    ],
)
def test_a_field_is_highlighted_when_a_stem_may_be_in_it(text, stems, maybe) -> None:
    assert _may_match(text, stems) is maybe
