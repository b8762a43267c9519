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
    Analyzer,
    CharsetFilter,
    Filter,
    LowercaseFilter,
    RegexTokenizer,
    StemFilter,
    StopFilter,
    Token,
)
from whoosh.lang.porter import stem as porter_stem
from whoosh.support.charset import accent_map

from search.conf import configured

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


class WordCache(Analyzer):
    """An analyzer chain run once per distinct word, not once per occurrence.

    Why: Whoosh passes every token of every text through one Python generator per filter;
    indexing the archive's 2.7 million tokens spent most of its analysis time there, on words
    seen thousands of times. Every filter of these chains works on one word at a time (a
    word's forms never depend on its neighbours), so a text is split by the chain's own
    tokenizer and each word's forms come from a table. Positions follow the chain's rules:
    numbered by word, or renumbered over the words kept when it drops stop words (Whoosh's
    StopFilter with `renumber`). What the table cannot give (positions with stop words kept,
    originals, an untokenized value) goes through the chain itself. Tests compare the two
    on every text."""

    #: Words remembered per analyzer before the table starts again.
    MAX_WORDS = 300_000

    def __init__(self, inner) -> None:
        self.inner = inner
        self._words: dict[tuple[str, bool, str, bool], tuple[tuple[str, bool], ...]] = {}

    @property
    def items(self):  # Whoosh reads a composite's parts (has_morph, clean)
        return self.inner.items

    def __repr__(self) -> str:
        return f"WordCache({self.inner!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WordCache) and self.inner == other.inner

    def __hash__(self) -> int:
        return hash(repr(self))

    def __getstate__(self) -> dict:  # pickled in the index's schema without its table
        return {"inner": self.inner}

    def __setstate__(self, state: dict) -> None:
        self.inner = state["inner"]
        self._words = {}

    def has_morph(self) -> bool:
        return self.inner.has_morph()

    def clean(self) -> None:
        self._words.clear()
        self.inner.clean()

    def __call__(
        self,
        value,
        positions=False,
        chars=False,
        keeporiginal=False,
        removestops=True,
        start_pos=0,
        start_char=0,
        tokenize=True,
        mode="",
        no_morph=False,
        **kwargs,
    ):
        if keeporiginal or not tokenize or (positions and not removestops):
            return self.inner(
                value, positions=positions, chars=chars, keeporiginal=keeporiginal,
                removestops=removestops, start_pos=start_pos, start_char=start_char,
                tokenize=tokenize, mode=mode, no_morph=no_morph, **kwargs,
            )  # fmt: skip
        return self._tokens(
            value, positions, chars, start_pos, start_char, mode, no_morph, removestops, kwargs
        )

    def _tokens(
        self, value, positions, chars, start_pos, start_char, mode, no_morph, removestops, kwargs
    ):
        tokenizer = self.inner.items[0]
        renumber = any(getattr(f, "renumber", False) for f in self.inner.items[1:])
        words = self._words
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        pos = None
        for number, match in enumerate(tokenizer.expression.finditer(value)):
            word = match.group(0)
            key = (word, no_morph, mode, removestops)  # no filter reads the mode; one might
            forms = words.get(key)
            if forms is None:
                if len(words) >= self.MAX_WORDS:
                    words.clear()
                forms = tuple(
                    (f.text, f.stopped)
                    for f in self.inner(word, mode=mode, no_morph=no_morph, removestops=removestops)
                )
                words[key] = forms
            for form, stopped in forms:
                t.text, t.boost, t.stopped = form, 1.0, stopped
                if positions:
                    if renumber:
                        pos = start_pos + number if pos is None else pos + 1
                    else:
                        pos = start_pos + number
                    t.pos = pos
                if chars:
                    t.startchar = start_char + match.start()
                    t.endchar = start_char + match.end()
                yield t


def english():
    """English stemming (Porter), accents folded, the shared stop words."""
    return WordCache(_base() | StopFilter(stoplist=stop_words(), minsize=1) | StemFilter())


def french():
    """French: accents folded *before* stemming, so "pietinement" finds "piétinement"."""
    return WordCache(_base() | StopFilter(stoplist=stop_words(), minsize=1) | StemFilter(lang="fr"))


#: The analyzer of each language's texts, by the name config/languages.py gives it.
ANALYZERS: dict[str, Callable] = {"english": english, "french": french}


def text_analyzer(name: str):
    """The text analyzer called `name`; a language with none of its own gets English's
    tokenizing and folding without stemming."""
    factory = ANALYZERS.get(name)
    return (
        factory() if factory else WordCache(_base() | StopFilter(stoplist=stop_words(), minsize=1))
    )


def names():
    """Names and titles: no stemming (prefixes must match: "Audaci*"), no stop words."""
    return WordCache(_base(keep_elided=True))


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
