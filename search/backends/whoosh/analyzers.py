"""The Whoosh analyzers of each language: tokenizing, folding, stop words and stemming as
the index's fields apply them.

Built on Whoosh's analysis module (its public extension API: Filter, Analyzer, composing with
`|`), with one reach into its internals: WordCache reads a composite analyzer's `items`, the
tokenizer's compiled `expression` and StopFilter's `renumber`, and fills Whoosh's Token
itself. Whoosh pickles these classes into every index it writes (the schema), by module
path: moving or renaming one leaves older indexes unreadable unless the old name still
answers (search.analysis answers for the three that lived there) or the index layout is
raised (folders.LAYOUT).

What words are and which are dropped is search.words' (the one stop-word policy, shared with
the other backends and the site); only the Whoosh chains live here.
"""

from __future__ import annotations

from collections.abc import Callable

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
from whoosh.support.charset import accent_map

from search.words import TOKENS, stop_words


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
    on every text.

    Whoosh internals it reads (2.7.4's attributes, not its documented API): a composite
    analyzer's `items` (the tokenizer first), RegexTokenizer's compiled `expression` and
    StopFilter's `renumber`. It yields one Token again and again, as Whoosh's tokenizers do."""

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
