"""How texts are compared, whatever the backend: folding, the stop-word policy's questions,
plain forms of titles and what was typed, the names a text holds.

Backend-neutral: it imports nothing of Whoosh, so choosing the PostgreSQL backend loads none
of it (tests/search/test_no_whoosh.py checks it in a fresh interpreter). What a word is and
which words every field drops live in search.words; the Whoosh analyzers that apply them when
indexing live with their backend (search.backends.whoosh.analyzers).

Two things here still reach Whoosh, only when called: `stem_words` stems with Porter's
algorithm as Whoosh ships it (whoosh.lang.porter: a module of plain Python that imports
nothing else of Whoosh), the stems English's analyzer gives; and `english` builds English's
Whoosh analyzer, which kb's site search uses to stem a definition's words as the Whoosh index
does. Loading those is the one reason a site on PostgreSQL still needs the Whoosh package.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from search.words import stop_words


def fold(text: str) -> str:
    """Lower case without accents: how every field compares words."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    if decomposed.isascii():  # most texts: nothing to drop (a search folds every hit's text)
        return decomposed
    return _combining().sub("", decomposed).replace("’", "'")


#: No combining character lies beyond the first two planes (tests check it against this
#: Python's Unicode database): scanning them alone keeps the first fold of a process short.
COMBINING_END = 0x20000


@lru_cache(maxsize=1)
def _combining() -> re.Pattern[str]:
    """Every combining character (what unicodedata.combining() tells), as one character
    class: removed in one pass instead of a Python test per character."""
    ranges: list[str] = []
    start = None
    for code in range(COMBINING_END + 1):
        inside = code < COMBINING_END and unicodedata.combining(chr(code)) != 0
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = None
    return re.compile(f"[{''.join(ranges)}]")


_WORD_RE = re.compile(r"\w+")


def plain(text: str) -> str:
    """Folded words, apostrophes dropped: how titles and what was typed are compared."""
    return " ".join(_WORD_RE.findall(fold(text).replace("'", "")))


def is_stop_word(word: str) -> bool:
    return fold(word) in stop_words()


def stem_words(text: str) -> str:
    """English words by their stems ("destroying a permanent" -> "destroi a perman"), for
    comparing what was typed with names whatever their endings. Porter's stemmer as Whoosh
    ships it (imported on the first call): the stems English's analyzer gives."""
    from whoosh.lang.porter import stem

    return " ".join(stem(w) for w in text.split())


def title_names(title: str) -> set[str]:
    """The names a title gives, plain: each face of "A // B" (the whole title when it has one
    face) and the part of a face before its comma ("Atraxa")."""
    found = set()
    for face in title.split(" // "):
        found.add(plain(face))
        if "," in face:
            found.add(plain(face.split(",")[0]))
    return found


def named(text: str, names: frozenset[str], longest: int = 8) -> list[str]:
    """The names `text` holds (plain, of `names`), longest first, each word used once."""
    words = plain(text).split()
    used = [False] * len(words)
    found = []
    for size in range(min(longest, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            if any(used[i : i + size]):
                continue
            phrase = " ".join(words[i : i + size])
            if phrase in names:
                found.append(phrase)
                used[i : i + size] = [True] * size
    return found


def english():
    """English's Whoosh analyzer (search.backends.whoosh.analyzers.english): Whoosh is
    imported on the first call, never by importing this module."""
    from search.backends.whoosh.analyzers import english as whoosh_english

    return whoosh_english()


#: Classes that lived here before the Whoosh analyzers moved: indexes written then pickled
#: them under this module's name, and still open.
_MOVED = frozenset({"ApostropheFilter", "DotFilter", "WordCache"})


def __getattr__(name: str):
    if name in _MOVED:
        from search.backends.whoosh import analyzers

        return getattr(analyzers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
