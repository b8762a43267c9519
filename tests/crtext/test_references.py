"""Citations found inside texts, as spans with targets."""

from __future__ import annotations

import pytest

from kb.crtext import expand_targets, find_references, mask_references
from kb.crtext.numbers import letter_range, next_letters, sort_key


def spans(text: str) -> list[tuple[str, str, str]]:
    return [(text[r.start : r.end], r.target, r.target_end) for r in find_references(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("is revealed (see rule 701.20a).", [("701.20a", "701.20a", "")]),
        ("listed in rules 601.2b–h. Those", [("601.2b–h", "601.2b", "601.2h")]),
        ("rules 702.19c-d apply", [("702.19c-d", "702.19c", "702.19d")]),
        ("(see rule 714, “Handling Illegal Actions”)", [("714", "714", "")]),
        ("See section 8, “Multiplayer Rules.”", [("8", "8", "")]),
        (
            "See rules 305.1, 305.2, and 305.3.",
            [("305.1", "305.1", ""), ("305.2", "305.2", ""), ("305.3", "305.3", "")],
        ),
        (
            "rules 508.1c–d and 509.1b–c",
            [("508.1c–d", "508.1c", "508.1d"), ("509.1b–c", "509.1b", "509.1c")],
        ),
        ("sections 7 and 8", [("7", "7", ""), ("8", "8", "")]),
        ("(cf. règle 715 « Gérer les actions illégales »)", [("715", "715", "")]),
        ("listés dans les règles 601.2b–h.", [("601.2b–h", "601.2b", "601.2h")]),
        ("See rule 305.6.", [("305.6", "305.6", "")]),
        ("the rules of Magic", []),
        ("a 3/4 creature gets -5/-0", []),
    ],
)
def test_references(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert spans(text) == expected


def test_masking_makes_renumbered_references_equal() -> None:
    old = "the card that has that ability is revealed (see rule 701.16a)."
    new = "the card that has that ability is revealed (see rule 701.20a)."
    assert old != new
    assert (
        mask_references(old)
        == mask_references(new)
        == ("the card that has that ability is revealed (see rule #).")
    )


def test_ranges_expand_with_the_cr_alphabet() -> None:
    (ref,) = find_references("rules 601.2b–h")
    assert expand_targets(ref) == [f"601.2{x}" for x in "bcdefgh"]
    assert letter_range("k", "p") == ["k", "m", "n", "p"]


def test_letters_skip_l_and_o_and_run_past_z() -> None:
    assert next_letters("k") == "m" and next_letters("n") == "p" and next_letters("z") == "aa"


def test_sort_keys_follow_document_order() -> None:
    numbers = ["1", "100", "100.1", "100.1a", "100.1z", "100.1aa", "100.2", "100.10", "101", "2"]
    assert sorted(numbers, key=sort_key) == numbers
