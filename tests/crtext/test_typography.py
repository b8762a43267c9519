"""The typography fold: what it erases and what it keeps as wording."""

from __future__ import annotations

import pytest

from kb.crtext.typography import fold


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        # The plain-ASCII 2019-01-25 release spells trademark signs out in lowercase (issue 34).
        ("many Odyssey(tm) block cards", "many Odyssey block cards"),
        ("the Future Sight(r) set", "the Future Sight set"),
        (
            "Conspiracy: Take the Crown(tm) booster packs",
            "Conspiracy: Take the Crown booster packs",
        ),
        ("Odyssey(TM) Odyssey(Tm) Odyssey(tM)", "Odyssey Odyssey Odyssey"),
        # The signs themselves, and the uppercase spellings of the 2009-2013 releases.
        ("Odyssey™ block, Future Sight® set", "Odyssey block, Future Sight set"),
        ("Magic: The Gathering(R) (C)2009 Wizards", "Magic: The Gathering 2009 Wizards"),
        # A lowercase "(c)" is an enumeration's letter or the copyright line: wording.
        (
            "(b) applying the other; and (c) neither effect",
            "(b) applying the other; and (c) neither effect",
        ),
        ("is used with permission. (c)2019 Wizards.", "is used with permission. (c)2019 Wizards."),
        # So is an "(r)" that marks no word before it.
        ("choices (q) and (r) of the list", "choices (q) and (r) of the list"),
        ("item 3(r)", "item 3(r)"),
    ],
)
def test_trademark_signs(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_ascii_and_unicode_typography_fold_alike() -> None:
    ascii_ = 'such as "Choose one -." ... Future Sight(r) "timeshifted" frame'
    curly = "such as “Choose one —.” … Future Sight® “timeshifted” frame"
    assert fold(ascii_) == fold(curly)
