"""When a term a ruling names is not what the ruling is about.

Examples ("such as kicker"), the card's own name ("Flying Crane Technique"), a keyword a
creature lacks ("creatures without flying") and one ability of the card ("its triggered
ability") name rules terms without leaning on their rules. Kept apart from the linker so that
each rule can be read, and tuned against the labelled samples, on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rulings.linking.literals import prefilterable


@dataclass(frozen=True)
class Reading:
    """A ruling's text as the linker reads it."""

    text: str  # as written: evidence is cut from it
    masked: str  # apostrophes straightened, the card's names blanked (the same offsets)
    own: frozenset[str]  # the card's keywords, casefolded
    examples: tuple[tuple[int, int], ...]  # spans naming examples ("such as …")

    @classmethod
    def of(cls, text: str, card_names: Iterable[str], keywords: Iterable[str]) -> Reading:
        masked = _mask_names(_plain(text), (_plain(n) for n in card_names))
        own = frozenset(k.casefold() for k in keywords)
        return cls(text, masked, own, _example_spans(masked))


#: Examples of what a ruling is about, not its topic: "such as …" (to the closing parenthesis
#: or the end of the clause) and hypothetical asides ("(perhaps because …)").
_EXAMPLES_RE = re.compile(
    r"\((?:perhaps|for example|for instance|e\.g\.|most likely|probably|such as)\b[^)]*\)"
    r"|\bsuch as [^,;:.()]*"
    r"|\bfor (?:example|instance), [^.;]*",
    re.IGNORECASE,
)


def _example_spans(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(m.span() for m in _EXAMPLES_RE.finditer(text))


def inside(position: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(s <= position < e for s, e in spans)


#: "Victor's ability", "Stoneshock Giant's last ability" (the name blanked): a ruling about an
#: ability of the card it names this way, not about its keyword, which it would name.
_OWN_ABILITY_RE = re.compile(r"\s's (?:[\w-]+ ){0,2}abilit(?:y|ies)\b")


def names_own_ability(masked: str) -> bool:
    """Whether a ruling (its card's names blanked) names an ability of its card by the name."""
    return bool(_OWN_ABILITY_RE.search(masked))


_LACKING_RE = re.compile(
    r"\b(?:without|(?:doesn't|does not|don't|do not|didn't|did not) have)\s+$", re.IGNORECASE
)


def named_as_lacking(text: str, start: int) -> bool:
    """Whether the words just before `start` say a creature lacks what follows."""
    return bool(_LACKING_RE.search(text[max(0, start - 20) : start]))


#: What a phrase pointing at particular abilities starts with: "its mana abilities", "Vivien's
#: last loyalty ability" (blanked card names leave the "'s"), "the activated ability".
_ORDINAL = (
    r"\s+(?:(?:first|second|third|last|other|own|delayed|reflexive|granted|\S+-\S+)\s+){0,2}$"
)
_POSSESSIVE_RE = re.compile(r"(?:\b(?:its|their|his|her)|'s)" + _ORDINAL, re.IGNORECASE)
_DEFINITE_RE = re.compile(r"\b(?:the|this)" + _ORDINAL, re.IGNORECASE)


def names_one(text: str, start: int, end: int) -> bool:
    """Whether a kind of ability is named as the card's own rather than in general:
    "Activated abilities contain a colon" is about 602, "Saruli Caretaker's activated
    ability" about the card. "The activated abilities of …" still speaks of a kind."""
    before = text[max(0, start - 60) : start]
    if _POSSESSIVE_RE.search(before):
        return True
    plural = text[end - 3 : end].casefold() == "ies"
    return not plural and bool(_DEFINITE_RE.search(before))


def keyword_case(text: str, start: int, word: str) -> bool:
    """Rulings write keywords in lower case; capitalised mid-sentence it is a card's name
    ("Lightning Storm"), unless it opens a sentence ("Deathtouch applies…")."""
    if word[:1].islower():
        return True
    before = text[:start].rstrip()
    return not before or before[-1] in '.:;!?"“(' or before.endswith("—")


def _plain(text: str) -> str:
    """Typographic apostrophes as straight ones (same length), so that terms read "isn't"
    whichever a ruling uses."""
    return text.replace("’", "'")


def _mask_names(text: str, names: Iterable[str]) -> str:
    """Blank out the card's own names: "Flying Crane Technique" is not about flying. Rulings
    call a legendary card by its short name ("Victor" for "Victor, Valgavoth's Seneschal")."""
    names = {n for name in names if name for n in (name, name.split(", ")[0])}
    lowered = text.lower() if prefilterable(text) else None
    for name in sorted(names, key=len, reverse=True):
        if lowered is not None and name.lower() not in lowered:
            continue  # most rulings name few of their card's names: no regex to compile
        pattern = r"(?<!\w)" + re.escape(name) + r"(?!\w)"
        masked = re.sub(pattern, lambda m: " " * len(m.group()), text, flags=re.IGNORECASE)
        if masked != text:
            text, lowered = masked, masked.lower() if lowered is not None else None
    return text
