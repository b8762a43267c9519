"""Highlighting is skipped only where no word of the query can be (search.backends.whoosh)."""

from __future__ import annotations

import pytest

from search.backends.whoosh.results import _may_match


@pytest.mark.parametrize(
    ("text", "stems", "maybe"),
    [
        ("It becomes day.", {"dai"}, True),  # Porter: day -> dai
        ("Happy ponies.", {"happi", "poni"}, True),
        ("Trample over planeswalkers", {"trampl*"}, True),
        ("Piétinement", {"pietin"}, True),  # accents folded as the analyzers fold them
        ("Flying", {"trampl"}, False),
        ("Flying", set(), False),
    ],
)
def test_a_field_is_highlighted_when_a_stem_may_be_in_it(text, stems, maybe) -> None:
    assert _may_match(text, stems) is maybe


# Whoosh's own highlighter analyses a hit's whole text again through its analyzer (most of a
# results page's cost); ours analyses each distinct word once. The passages and marks must be
# the ones Whoosh gives, on texts with what the analyzers treat apart: accents, elisions,
# possessives, dotted abbreviations, stop words, rule numbers, curly quotes.
TEXTS = [
    "If an attacking creature with trample is blocked, but there are no creatures blocking it "
    "when damage is assigned, all its damage is assigned to the player, planeswalker, or battle "
    "it’s attacking. (See rule 702.19c.) " * 3,
    "Le piétinement d'une créature attaquante : l'ennemi's blessures (e.g. mortelles) à "
    "Urza’s Saga — « qu'il soit » détruit. " * 4,
    "Equip [cost] means “[Cost]: Attach this permanent to target creature you control. "
    "Activate only as a sorcery.” See rule 301.5c, and 702.6a; it is on the stack. " * 5,
]


def _whoosh_highlight(text: str, analyzer, words: frozenset[str]) -> str:
    """Whoosh's highlighter (its token stream, fragmenter, scorer and formatter), with the
    passages tied on score taken in text order, as ours are (Whoosh orders ties by the
    fragments' memory addresses)."""
    from whoosh import highlight

    from search.backends.whoosh import results

    tokens = analyzer(text, positions=True, chars=True, mode="index", removestops=False)
    tokens = highlight.Highlighter()._merge_matched_tokens(
        highlight.set_matched_filter(tokens, words)
    )
    scored = [(results._SCORER(f), f) for f in results._FRAGMENTER.fragment_tokens(text, tokens)]
    best = sorted(scored, key=lambda sf: (-sf[0], sf[1].startchar))[:2]
    return results._FORMATTER.format(sorted((f for s, f in best if s >= 1), key=highlight.FIRST))


@pytest.mark.parametrize("field", ["body_en", "body_fr"])
@pytest.mark.parametrize("text", TEXTS)
def test_snippets_are_whooshs_own(field: str, text: str) -> None:
    from search.backends.whoosh.results import highlighted
    from search.backends.whoosh.schema import schema

    analyzer = schema()[field].analyzer
    vocabulary = sorted({t.text for t in analyzer(text, mode="index")})
    assert len(vocabulary) > 10
    for step in (1, 3, 7):
        words = frozenset(vocabulary[::step][:4])
        ours = highlighted(text, analyzer, words)
        assert "<mark>" in ours
        assert ours == _whoosh_highlight(text, analyzer, words), words
    # A prefix (trampl*) marks every word starting so, as Whoosh's expanded prefix does.
    start = vocabulary[0][:3]
    expanded = frozenset(w for w in vocabulary if w.startswith(start))
    assert highlighted(text, analyzer, {f"{start}*"}) == _whoosh_highlight(text, analyzer, expanded)


def test_fold_drops_every_combining_mark_as_unicodedata_tells() -> None:
    import sys
    import unicodedata

    from search.analysis import COMBINING_END, fold

    beyond = [c for c in range(COMBINING_END, sys.maxunicode + 1) if unicodedata.combining(chr(c))]
    assert beyond == []
    for text in ["Piétinement", "Ça’s “Œuvre”", "e\u0301te\u0301", "ﬁ①", "क\u093f", "plain"]:
        decomposed = unicodedata.normalize("NFKD", text.lower())
        slow = "".join(c for c in decomposed if not unicodedata.combining(c)).replace("’", "'")
        assert fold(text) == slow


@pytest.mark.parametrize("field", ["title_en", "body_en", "body_fr", "extra_fr"])
@pytest.mark.parametrize(
    "options",
    [
        {"positions": True, "chars": True, "mode": "index"},
        {"positions": True, "chars": True, "start_pos": 5, "start_char": 9},
        {"mode": "query"},
        {"no_morph": True, "positions": True},
        {"removestops": False, "positions": True, "chars": True},
    ],
)
def test_the_word_cache_analyses_as_the_chain_does(field: str, options: dict) -> None:
    """Texts are analysed a word at a time from a table (Whoosh analyzers' WordCache): the
    tokens, positions and offsets are the chain's own, stop words, elisions, dotted
    abbreviations and split words included."""
    from search.backends.whoosh.analyzers import WordCache
    from search.backends.whoosh.schema import schema

    analyzer = schema()[field].analyzer
    assert isinstance(analyzer, WordCache)

    def tokens(chain, text: str) -> list[tuple]:
        return [
            (t.text, getattr(t, "pos", None), getattr(t, "startchar", None), t.stopped)
            for t in chain(text, **options)
        ]

    for text in [*TEXTS, "The the e.g. a.b.c l’ennemi d'Urza's — 702.19c.", "", "à la"]:
        for _ in range(2):  # the second time from the table
            assert tokens(analyzer, text) == tokens(analyzer.inner, text)


def test_an_index_written_when_the_analyzers_lived_in_search_analysis_still_opens(
    tmp_path, monkeypatch
) -> None:
    """Whoosh pickles the analyzers' classes into the index by module path: an index written
    while WordCache and its filters lived in search.analysis names them there, and opens and
    searches with the classes of search.backends.whoosh.analyzers."""
    from whoosh import index
    from whoosh.query import Term

    from search.backends.whoosh import analyzers
    from search.backends.whoosh.schema import schema

    for cls in (analyzers.WordCache, analyzers.ApostropheFilter, analyzers.DotFilter):
        monkeypatch.setattr(cls, "__module__", "search.analysis")
    ix = index.create_in(str(tmp_path), schema())
    with ix.writer() as w:
        w.add_document(id="rule:1", kind="rule", body_en="Urza's creatures are trampling.")
    monkeypatch.undo()
    written = b"".join(p.read_bytes() for p in tmp_path.glob("*.toc"))
    assert b"search.analysis" in written and b"search.backends.whoosh" not in written

    opened = index.open_dir(str(tmp_path))
    assert type(opened.schema["body_en"].analyzer) is analyzers.WordCache
    with opened.searcher() as s:
        assert [h["kind"] for h in s.search(Term("body_en", "urza"))] == ["rule"]
        assert [h["kind"] for h in s.search(Term("body_en", "trampl"))] == ["rule"]
