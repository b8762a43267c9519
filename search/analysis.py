"""Analyzers per language, and the one stop-word policy every field shares.

Why one policy: a query combining fields with different stop words (an exact field and a
French field, say) turns a stop word into a required term and returns nothing ("Héraut de la
guerre"). So stop words are removed once, from the query, before it is compiled for any field;
text fields drop the same words when indexing (only shifting positions), and name fields keep
them, for quoted phrases.

Written with Whoosh's analysis module (shared by its forks); the backend is the only user.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from whoosh.analysis import (
    CharsetFilter,
    Filter,
    LowercaseFilter,
    RegexTokenizer,
    StemFilter,
    StopFilter,
)
from whoosh.lang.porter import stem as porter_stem
from whoosh.support.charset import accent_map

from .conf import configured

#: Stop words per analyzer. Rules words like "can", "not", "may", "each", "until" and "when"
#: carry meaning here; only grammatical words are dropped.
_STOP = {
    "english": "a an and are as at be by for from in into is it its of on or that the their this to was were with you your",  # noqa: E501
    "french": "au aux ce ces d de des du en et l la le les qu que qui s sa se ses son un une à",
}


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """The stop words of every language the site speaks, dropped alike from every field and
    query (the one policy)."""
    return frozenset(w for name in _analyzer_names() for w in _STOP.get(name, "").split())


def _analyzer_names() -> tuple[str, ...]:
    return tuple(analyzer for _, analyzer in configured())


# Words with internal apostrophes or dots stay whole ("602.2a", "urza's", "l'ennemi").
TOKENS = r"\w+(?:[.'’]\w+)*"


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


class ApostropheFilter(Filter):
    """ "Urza's" -> "urzas", "l'ennemi" -> "lennemi" + "ennemi": names match typed with or
    without their apostrophes; French elisions drop their article (names keep the joined form
    too, "lennemi", for a name typed without its apostrophe)."""

    def __init__(self, keep_elided: bool = False) -> None:
        self.keep_elided = keep_elided

    def __call__(self, tokens):
        for t in tokens:
            text = t.text
            if "'" not in text and "’" not in text:
                yield t
                continue
            parts = text.replace("’", "'").split("'")
            elided = len(parts) == 2 and len(parts[0]) <= 2 and parts[0] != "o"  # l', d', qu'
            if not elided or self.keep_elided:
                t.text = "".join(parts)
                yield t
            if elided:
                t.text = parts[1]
                yield t


class DotFilter(Filter):
    """Keeps a rule number whole and adds its pieces nothing; splits dotted abbreviations
    that are not numbers ("e.g." -> "e", "g")."""

    def __call__(self, tokens):
        for t in tokens:
            if "." in t.text and not t.text[:1].isdigit():
                for part in t.text.split("."):
                    if part:
                        t.text = part
                        yield t
            else:
                yield t


def _base(keep_elided: bool = False):
    return (
        RegexTokenizer(TOKENS)
        | LowercaseFilter()
        | CharsetFilter(accent_map)
        | DotFilter()
        | ApostropheFilter(keep_elided)
    )


def english():
    """English stemming (Porter), accents folded, the shared stop words."""
    return _base() | StopFilter(stoplist=stop_words(), minsize=1) | StemFilter()


def french():
    """French: accents folded *before* stemming, so "pietinement" finds "piétinement"."""
    return _base() | StopFilter(stoplist=stop_words(), minsize=1) | StemFilter(lang="fr")


#: The analyzer of each language's texts, by the name config/languages.py gives it.
ANALYZERS: dict[str, Callable] = {"english": english, "french": french}


def text_analyzer(name: str):
    """The text analyzer called `name`; a language with none of its own gets English's
    tokenizing and folding without stemming."""
    factory = ANALYZERS.get(name)
    return factory() if factory else _base() | StopFilter(stoplist=stop_words(), minsize=1)


def names():
    """Names and titles: no stemming (prefixes must match: "Audaci*"), no stop words."""
    return _base(keep_elided=True)


_WORD_RE = re.compile(r"\w+")


def plain(text: str) -> str:
    """Folded words, apostrophes dropped: how titles and what was typed are compared."""
    return " ".join(_WORD_RE.findall(fold(text).replace("'", "")))


def is_stop_word(word: str) -> bool:
    return fold(word) in stop_words()


def stem_words(text: str) -> str:
    """English words by their stems ("destroying a permanent" -> "destroi a perman"), for
    comparing what was typed with names whatever their endings."""
    return " ".join(porter_stem(w) for w in text.split())
