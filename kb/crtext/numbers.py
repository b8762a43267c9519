"""Rule numbers: their shapes, order and parents.

A number is text ("602.2a"), but pages list entries in document order and the archive needs
"the next subrule after 704.5z" (704.5aa), so numbers get a sort key that orders sections,
chapters, rules and subrules the way the document does.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Literal

from kb.crtext.limits import MAX_RULE_DIGITS

Kind = Literal["section", "chapter", "rule", "subrule"]

SECTION_RE = re.compile(r"^[1-9]$")
CHAPTER_RE = re.compile(r"^[1-9]\d\d$")
# At most MAX_RULE_DIGITS digits after the dot (kb.crtext.limits): a longer "number" is no rule's,
# and no URL can be built for it.
_DIGITS = rf"\d{{1,{MAX_RULE_DIGITS}}}"
RULE_RE = re.compile(rf"^([1-9]\d\d)\.({_DIGITS})$")
SUBRULE_RE = re.compile(rf"^([1-9]\d\d)\.({_DIGITS})([a-z]{{1,2}})$")
ANY_NUMBER_RE = re.compile(rf"^(?:[1-9]|[1-9]\d\d(?:\.{_DIGITS}(?:[a-z]{{1,2}})?)?)$")

#: Subrule letters as the CR uses them: "l" and "o" are skipped (they read like 1 and 0).
SUBRULE_LETTERS = "abcdefghijkmnpqrstuvwxyz"


#: Magic 2010's release: the rules were renumbered and rewritten; every earlier release (1999 to
#: 2009-05-01) is in the legacy layout and numbering.
MODERN_LAYOUT_START = dt.date(2009, 7, 11)


def is_legacy_date(date: dt.date) -> bool:
    """Is a release of `date` numbered in the legacy scheme (before Magic 2010)?"""
    return date < MODERN_LAYOUT_START


@lru_cache(maxsize=20_000)
def kind_of(number: str) -> Kind | None:
    """Which level of the hierarchy a number names, or None if it is not a CR number."""
    if SECTION_RE.match(number):
        return "section"
    if CHAPTER_RE.match(number):
        return "chapter"
    if RULE_RE.match(number):
        return "rule"
    if SUBRULE_RE.match(number):
        return "subrule"
    return None


def is_number(text: str) -> bool:
    return bool(ANY_NUMBER_RE.match(text))


@lru_cache(maxsize=20_000)
def parent_of(number: str) -> str | None:
    """The structural parent: subrule -> rule -> chapter -> section -> None."""
    kind = kind_of(number)
    if kind == "subrule":
        m = SUBRULE_RE.match(number)
        assert m
        return f"{m.group(1)}.{m.group(2)}"
    if kind == "rule":
        return number.split(".")[0]
    if kind == "chapter":
        return number[0]
    return None


def ancestors_of(number: str) -> list[str]:
    """Every structural parent, nearest first: 602.2a -> [602.2, 602, 6]."""
    out = []
    parent = parent_of(number)
    while parent:
        out.append(parent)
        parent = parent_of(parent)
    return out


@lru_cache(maxsize=20_000)
def chapter_of(number: str) -> str:
    """The chapter ("602") a number lives in; sections answer their own digit."""
    return number[:3] if len(number) >= 3 else number


def letter_rank(letters: str) -> int:
    """a=1 … z=26, aa=27 …: the order subrule letters run in, past z."""
    rank = 0
    for ch in letters:
        rank = rank * 26 + (ord(ch) - ord("a") + 1)
    return rank


def letters_for_rank(rank: int) -> str:
    out = ""
    while rank > 0:
        rank, rem = divmod(rank - 1, 26)
        out = chr(ord("a") + rem) + out
    return out


def next_letters(letters: str) -> str:
    """The subrule letter that follows `letters` in the CR's alphabet (skips l and o)."""
    rank = letter_rank(letters) + 1
    nxt = letters_for_rank(rank)
    while "l" in nxt or "o" in nxt:
        rank += 1
        nxt = letters_for_rank(rank)
    return nxt


def letter_range(first: str, last: str) -> list[str]:
    """Letters from `first` to `last` inclusive, in CR order ("k".."p" skips l and o)."""
    out = [first]
    guard = 0
    while out[-1] != last and guard < 800:
        out.append(next_letters(out[-1]))
        guard += 1
    return out if out[-1] == last else [first, last]


@lru_cache(maxsize=20_000)
def sort_key(number: str) -> str:
    """A string that sorts entries in document order: 1 < 100 < 100.1 < 100.1a < 100.2 < 101."""
    kind = kind_of(number)
    if kind == "section":
        return f"{number}00.00000.0000"
    if kind == "chapter":
        return f"{number}.00000.0001"
    if kind == "rule":
        ch, rule = number.split(".")
        return f"{ch}.{int(rule):05d}.0000"
    if kind == "subrule":
        m = SUBRULE_RE.match(number)
        assert m
        return f"{m.group(1)}.{int(m.group(2)):05d}.{letter_rank(m.group(3)) + 1:04d}"
    raise ValueError(f"not a rule number: {number!r}")
