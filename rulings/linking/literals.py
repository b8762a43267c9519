"""Literal prefilters for the curated concept patterns.

The linker runs about a hundred curated regular expressions over every ruling, and most of
them find nothing in most rulings: that was over half of the linker's time (each failing
search still walks the whole text). Almost every pattern can only match where one of a few
plain strings occurs ("layer", "timestamp", "dependenc" for the layers pattern), and a
substring test on the lower-cased text is many times cheaper than the search. The strings are
read from the pattern itself (its parse tree), so a row added to the curated CSV gets its
prefilter with no hand-written list to keep in step.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

try:  # the parser behind re.compile; private, so any surprise only costs the prefilter
    from re import _casefix, _constants, _parser
except ImportError:  # pragma: no cover - another Python: patterns run unfiltered
    _parser = None

#: Characters that IGNORECASE matches beyond what str.lower() equates ("ſ" for "s", the Kelvin
#: sign for "k"): a text holding one is searched without the prefilter.
_UNSAFE: frozenset[str] = (
    frozenset(
        chr(c) for key, extra in _casefix._EXTRA_CASES.items() for c in (key, *extra) if c > 127
    )
    if _parser is not None
    else frozenset()
)

Literals = frozenset[str] | None  # None: no string every match must contain is known


def required_literals(pattern: re.Pattern[str]) -> Literals:
    """Lower-cased strings of which every match of the pattern contains at least one."""
    if _parser is None:
        return None
    try:
        found = _sequence(_parser.parse(pattern.pattern, pattern.flags))
    except Exception:  # an unreadable tree only means no prefilter
        return None
    if found is None or not all(found):
        return None
    lowered = {s.lower() for s in found}
    # "trigger" found wherever "triggered" is: the longer string adds nothing to test
    return frozenset(s for s in lowered if not any(o != s and o in s for o in lowered))


def _better(a: Literals, b: Literals) -> Literals:
    """The more selective of two candidate sets: the one whose shortest string is longer,
    then the one with fewer strings."""
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b, key=lambda s: (min(map(len, s)), -len(s)))


def _sequence(items: Iterable) -> Literals:
    """For a sequence every match goes through in order, any one item's set will do; runs of
    literal characters are one string."""
    best: Literals = None
    run: list[str] = []

    def close() -> None:
        nonlocal best, run
        if run:
            best = _better(best, frozenset(["".join(run)]))
        run = []

    for op, av in items:
        if op is _constants.LITERAL:
            run.append(chr(av))
            continue
        if op is _constants.AT:  # \b, ^, $: zero width, the run stays contiguous
            continue
        close()
        best = _better(best, _item(op, av))
    close()
    return best


def _item(op, av) -> Literals:
    if op is _constants.SUBPATTERN:
        return _sequence(av[-1])
    if op is _constants.BRANCH:
        sets = [_sequence(alternative) for alternative in av[1]]
        if any(s is None for s in sets):
            return None
        return frozenset().union(*sets)
    if op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT):
        low, _high, inner = av
        return _sequence(inner) if low >= 1 else None
    if op is _constants.ATOMIC_GROUP:
        return _sequence(av)
    return None  # character classes, lookarounds, back-references: nothing required


def may_match(literals: Literals, lowered: str) -> bool:
    """Whether a pattern with these required strings can match a text (lower-cased)."""
    return literals is None or any(s in lowered for s in literals)


def prefilterable(text: str) -> bool:
    """Whether lower-casing keeps every case-insensitive match of the text findable."""
    return text.isascii() or not _UNSAFE.intersection(text)
