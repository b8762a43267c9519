"""What a word is, and the one stop-word policy every field shares.

Why one policy: a query combining fields with different stop words (an exact field and a
French field, say) turns a stop word into a required term and returns nothing ("Héraut de la
guerre"). So stop words are removed once, from the query, before it is compiled for any field;
text fields drop the same words when indexing (only shifting positions), and name fields keep
them, for quoted phrases.

Plain Python, for every backend: search.analysis (folding, comparing names) and the Whoosh
analyzers (search.backends.whoosh.analyzers) both read it, so neither imports the other.
"""

from __future__ import annotations

from functools import lru_cache

from search.conf import configured

#: Stop words per analyzer. Rules words like "can", "not", "may", "each", "until" and "when"
#: carry meaning here; only grammatical words are dropped.
_STOP = {
    "english": "a an and are as at be by for from in into is it its of on or that the their this to was were with you your",  # noqa: E501
    "french": "au aux ce ces d de des du en et l la le les qu que qui s sa se ses son un une à",
}

# Words with internal apostrophes or dots stay whole ("602.2a", "urza's", "l'ennemi").
TOKENS = r"\w+(?:[.'’]\w+)*"


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """The stop words of every language the site speaks, dropped alike from every field and
    query (the one policy)."""
    names = tuple(analyzer for _, analyzer in configured())
    return frozenset(w for name in names for w in _STOP.get(name, "").split())
