"""Per-text analysis shared by import and matching, memoised.

Most texts are identical from one release to the next, so folding, masking and hashing are
cached by text: the whole archive holds ~15k distinct texts but ~350k entry occurrences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kb.crtext.model import Reference
from kb.crtext.references import find_references, mask_references
from kb.crtext.typography import digest, fold

_WORD_RE = re.compile(r"[\w#]+")


@dataclass(frozen=True, slots=True)
class TextInfo:
    folded: str
    masked: str  # folded, with cited numbers replaced by "#"
    refs: tuple[Reference, ...]  # spans over the original text
    tokens: frozenset[str]  # words of `masked`, for quick similarity
    key: str  # `masked` casefolded: equal keys are the same text for matching


@lru_cache(maxsize=200_000)
def analyse(text: str) -> TextInfo:
    refs = tuple(find_references(text))
    folded = fold(text)
    masked = fold(mask_references(text, list(refs)))
    key = masked.casefold()
    return TextInfo(folded, masked, refs, frozenset(_WORD_RE.findall(key)), key)


@dataclass(frozen=True, slots=True)
class Hashes:
    """Equality at several depths, to tell wording, reference and typography changes apart.

    text: exact text + examples (a version row holds one such text).
    folded: typography folded.  masked: main text folded with references masked.
    examples: examples folded with references masked.
    """

    text: str
    folded: str
    masked: str
    examples: str


@lru_cache(maxsize=200_000)
def hashes(text: str, examples: tuple[str, ...] = ()) -> Hashes:
    infos = [analyse(e) for e in examples]
    return Hashes(
        text=digest((text, *examples)),
        folded=digest((analyse(text).folded, *(i.folded for i in infos))),
        masked=digest((analyse(text).masked,)),
        examples=digest(i.masked for i in infos),
    )
