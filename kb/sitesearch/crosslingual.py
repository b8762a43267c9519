"""French words the vocabulary does not know, bridged to the rules' English through the cards.

The EN<->FR vocabulary covers the terms mined or curated so far; a French query outside it
("contempler", "quitter le champ de bataille") would find only French card texts. Those cards
are printed in both languages, so their English texts say which rules term the French words
stand for: the glossary name that the cards matching the French words share far more often
than cards in general do (pseudo-relevance feedback across languages). A term found so is
searched besides the words as typed, and the page says so, as for the vocabulary.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass, replace
from functools import lru_cache

from search.analysis import fold, is_stop_word
from search.backend import SearchRequest
from search.syntax import Group, Phrase, Word

#: Cards matching the French words that are read for English terms.
SAMPLE = 40
#: A term must be in at least this share of the sampled cards (and in two of them)…
SUPPORT = 0.4
#: …and this many times more frequent there than among all cards.
LIFT = 8.0
#: How many of the terms the sample's cards print most are weighed against all cards.
CANDIDATES = 5
#: Queries longer than this are questions, not terms: their words are searched as typed.
LONGEST = 5


@dataclass(frozen=True)
class Bridge:
    typed: str  # the query's words as typed
    english: str  # the rules term they stand for


def bridge(backend, groups: list[Group], date: dt.date, names: dict[str, object]) -> Bridge | None:
    """The English rules term (a key of `names`: folded glossary names) that the French
    words of `groups` stand for, or None. Only plain words are bridged (not phrases typed in
    quotes, alternatives or prefixes): the whole query stands for one term."""
    words = [g.items[0] for g in groups if len(g.items) == 1]
    if not words or len(words) != len(groups) or len(words) > LONGEST:
        return None
    if not all(isinstance(w, Word) and not w.prefix for w in words):
        return None
    typed = " ".join(w.text for w in words)
    probe = SearchRequest(
        groups=tuple(groups), kinds=("card",), lang="fr", per_page=SAMPLE, snippets=False
    )
    sample = backend.search(probe)
    if len(sample.hits) < 2:
        return None
    if any(_names(words, h.title("fr")) for h in sample.hits):
        return None  # a card's French name ("ange de serra"): the card is the answer
    english = backend.search(replace(probe, lang="en", per_page=1))
    if english.total * 2 >= sample.total:
        return None  # the words are (also) English: a card's name, a rules word
    found: dict[str, int] = {}
    matcher = _matcher(tuple(sorted(names, key=len, reverse=True)))
    for hit in sample.hits:
        for key in dict.fromkeys(matcher.findall(fold(hit.text))):
            found[key] = found.get(key, 0) + 1
    needed = max(2, SUPPORT * len(sample.hits))
    folded_typed = fold(typed)
    cards = _card_count(backend)
    best: tuple[float, str] | None = None
    # The five most frequent terms, and any as frequent as the fifth: a cut among equals
    # once depended on a set's order, which changes with each process's hash seed
    # ("mobilise" bridged to Mobilize in some processes, to "end step" in others).
    ranked = sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))
    floor = ranked[min(len(ranked), CANDIDATES) - 1][1] if ranked else 0
    for key, count in (kv for kv in ranked if kv[1] >= floor):
        if count < needed or key == folded_typed or all(is_stop_word(w) for w in key.split()):
            continue
        everywhere = _cards_with(backend, key)
        if not everywhere:
            continue  # words the English fields do not index: no rate to compare with
        lift = (count / len(sample.hits)) / max(everywhere / cards, 1e-9)
        if lift >= LIFT and (best is None or lift * count > best[0]):
            best = (lift * count, key)
    return Bridge(typed, best[1]) if best else None


def _names(words: list[Word], title: str) -> bool:
    """Whether the words name the card: all of them in its title, or the whole title."""
    wanted = [fold(w.text) for w in words]
    named = [w for w in fold(title).replace("'", " ").split() if not is_stop_word(w)]
    return wanted == named if len(wanted) == 1 else set(wanted) <= set(named)


@lru_cache(maxsize=4)
def _matcher(keys: tuple[str, ...]) -> re.Pattern:
    """One pattern for every name, longest first, on word boundaries."""
    return re.compile(r"\b(" + "|".join(re.escape(k) for k in keys if k) + r")\b")


#: How long the card counts below are kept: they make rates, not exact figures.
COUNTS_TTL = 600

_CARDS: dict[str, float] = {}


def _card_count(backend) -> int:
    """Cards in the index, re-read every ten minutes (a rate, not an exact figure)."""
    now = time.monotonic()
    if not _CARDS or now - _CARDS["at"] > COUNTS_TTL:
        _CARDS.update(at=now, n=max(1, backend.stats().by_kind.get("card", 0)))
    return int(_CARDS["n"])


def _cards_with(backend, key: str) -> int:
    """Cards whose English texts hold a rules term, kept like the card count: a French query
    weighs up to five terms, each a search of its own (a third of its time)."""
    return _counted(backend, key, int(time.monotonic() // COUNTS_TTL))


@lru_cache(maxsize=2048)
def _counted(backend, key: str, period: int) -> int:
    request = SearchRequest(
        groups=(Group((Phrase(key) if " " in key else Word(key),)),),
        kinds=("card",),
        lang="en",
        per_page=1,
        snippets=False,
    )
    return backend.search(request).total
