"""The Whoosh backend combines leaf postings with numpy (search.backends.whoosh.scoring): it must
match and score exactly what Whoosh's own document-at-a-time search does."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from whoosh import index
from whoosh.query import And, AndNot, Or, Phrase, Prefix, Term

from kb.sitesearch.service import without_stop_words
from search.backend import SearchRequest
from search.backends.whoosh import postings, scoring
from search.backends.whoosh.compiling import compile_request
from search.backends.whoosh.schema import schema
from search.syntax import parse

WORDS = [
    "trample",
    "creature",
    "ability",
    "triggered",
    "stack",
    "spell",
    "copy",
    "damage",
    "blocker",
    "lethal",
]


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    """Two segments of generated documents (so document numbers span sub-readers), with
    deletions in the first."""
    folder = tmp_path_factory.mktemp("matching")
    ix = index.create_in(str(folder), schema())
    rng = np.random.default_rng(7)
    for segment in range(2):
        writer = ix.writer()
        for i in range(300):
            words = rng.choice(WORDS, size=rng.integers(1, 12))
            writer.add_document(
                id=f"{segment}-{i}",
                kind="rule",
                title_en=" ".join(words[:2]),
                body_en=" ".join(words),
                extra_en=" ".join(words[::-1]),
            )
        writer.commit(merge=False)
    writer = ix.writer()
    for i in range(0, 300, 7):
        writer.delete_by_term("id", f"0-{i}")
    writer.commit(merge=False)
    with ix.searcher() as s:
        assert len(s.reader().leaf_readers()) == 2
        yield s


def _whoosh(s, query) -> dict[int, float]:
    return {hit.docnum: hit.score for hit in s.search(query, limit=None)}


def _ours(s, query) -> dict[int, float]:
    mask, scores = scoring.evaluate(query, scoring.LeafCache(s))
    return {int(n): float(scores[n]) for n in np.flatnonzero(mask)}


QUERIES = [
    Term("body_en", "trampl"),
    Or([Term("title_en", "trample", boost=4.0), Term("body_en", "trampl")]),
    And(
        [
            Or([Term("title_en", "triggered", boost=4.0), Term("body_en", "trigger")]),
            Or([Term("body_en", "abil"), Term("extra_en", "abil", boost=0.3)]),
        ]
    ),
    AndNot(
        Or([Term("body_en", "stack"), Term("body_en", "spell")]),
        Or([Term("body_en", "copi"), Term("title_en", "copy")]),
    ),
    Or([And([Term("body_en", "lethal"), Term("body_en", "damag")]), Term("body_en", "blocker")]),
    Phrase("body_en", ["lethal", "damag"]),
    Phrase("body_en", ["copi", "copi"], boost=2.0),  # a word twice: two positions in a row
    Phrase("extra_en", ["stack", "spell", "copi"]),
    Phrase("body_en", ["stack", "nothing-like-this"]),
    Phrase("title_en", ["triggered", "ability"], boost=4.0),
    Or([Term("body_en", "trampl")], boost=3.0),  # a lone child: Whoosh ignores the boost
    And([Term("body_en", "stack"), Term("body_en", "spell")], boost=2.0),
    Or([Term("body_en", "stack"), Term("body_en", "spell"), Term("body_en", "copi")], minmatch=2),
    Prefix("title_en", "tr", boost=2.0),
    Term("body_en", "nothing-like-this"),
]


@pytest.mark.parametrize("query", QUERIES, ids=repr)
def test_matches_and_scores_are_whooshs(searcher, query) -> None:
    theirs, ours = _whoosh(searcher, query), _ours(searcher, query)
    assert ours.keys() == theirs.keys()
    for docnum, score in theirs.items():
        assert ours[docnum] == pytest.approx(score, rel=1e-9)
    assert all(not searcher.reader().is_deleted(n) for n in ours)


@pytest.mark.parametrize("field", ["title_en", "body_en", "extra_en"])
def test_terms_are_scored_from_their_posting_blocks_as_whoosh_scores_them(searcher, field):
    """The block reader (postings.score_term) is what scores terms: it must not fall back to
    Whoosh on this codec, and must agree with it across segments and deletions."""
    lengths = postings.Lengths(searcher)
    for text in {t for word in WORDS for t in searcher.schema[field].analyzer(word)}:
        query = Term(field, text.text, boost=2.5)
        fast = postings.score_term(searcher, query, lengths)
        assert fast is not None, query
        theirs = _whoosh(searcher, query)
        assert dict(zip(fast[0].tolist(), fast[1].tolist(), strict=True)) == pytest.approx(theirs)
        assert len(theirs) > 0


@pytest.mark.parametrize("field", ["title_en", "body_en", "extra_en"])
def test_phrases_are_scored_from_their_posting_blocks_as_whoosh_scores_them(searcher, field):
    """Every phrase of two and three words (repeats too) that the generated texts hold: the
    same documents and scores as Whoosh's phrase matcher, across segments and deletions."""
    lengths = postings.Lengths(searcher)
    texts = sorted({t.text for word in WORDS for t in searcher.schema[field].analyzer(word)})
    phrases = [[a, b] for a in texts for b in texts] + [[a, b, a] for a in texts for b in texts]
    matched = 0
    for words in phrases:
        query = Phrase(field, words, boost=1.5)
        fast = postings.score_phrase(searcher, query, lengths)
        assert fast is not None, query
        theirs = _whoosh(searcher, query)
        assert dict(zip(fast[0].tolist(), fast[1].tolist(), strict=True)) == pytest.approx(
            theirs, rel=1e-12
        ), query
        matched += bool(theirs)
    assert matched > len(phrases) // 4  # most phrases occur somewhere: the test compares


def test_top_orders_by_score_then_document_number() -> None:
    scores = np.array([1.0, 3.0, 2.0, 3.0, 2.0, 0.5])
    assert scoring.top(scores, np.arange(6), 3) == [(3.0, 1), (3.0, 3), (2.0, 2)]
    assert scoring.top(scores, np.array([0, 4, 5]), 10) == [(2.0, 4), (1.0, 0), (0.5, 5)]


def test_the_leaf_cache_keeps_to_its_budget(searcher) -> None:
    cache = scoring.LeafCache(searcher, budget=400)
    sizes = [len(cache.leaf(Term("body_en", w))[0]) for w in ("trampl", "creatur", "abil")]
    assert sum(sizes) > 400  # so something had to go
    assert cache._postings <= 400 or len(cache._leaves) == 1
    assert repr(Term("body_en", "trampl")) not in cache._leaves  # the least recently used


@pytest.mark.slow
@pytest.mark.django_db
def test_on_the_whole_index_the_pages_are_whooshs(search_index) -> None:
    """The relevance queries on the session's full index: the same totals and the same top
    ten as Whoosh's own collector, release scope included."""
    from kb.selectors import Releases

    backend = search_index
    s = backend.searcher()
    today = Releases.load().current.effective_date
    scope = backend._scope(s, today)
    rows = (
        (Path(__file__).parents[1] / "kb" / "sitesearch" / "relevance.jsonl")
        .read_text()
        .splitlines()
    )
    compared = 0
    for q in (json.loads(line)["q"] for line in rows if line):
        groups = without_stop_words(parse(q).groups)
        query = compile_request(SearchRequest(groups=tuple(groups)), backend._schema)
        if query is None:
            continue
        allowed = set(np.flatnonzero(scope).tolist())
        theirs = s.search(query, limit=None, filter=allowed)
        expected = [(round(h.score, 9), h.docnum) for h in theirs[:10]]
        mask, scores = scoring.evaluate(query, backend._leaves(s))
        mask &= scope
        got = scoring.top(scores, np.flatnonzero(mask), 10)
        assert int(mask.sum()) == len(theirs), q
        assert [(round(score, 9), n) for score, n in got] == expected, q
        compared += 1
    assert compared >= 70


# -- the backend around it: warming a new searcher, one reading thread at a time ------------


@pytest.fixture
def backend(tmp_path):
    from search.backends.whoosh.backend import WhooshBackend
    from tests.search.test_contract import DOCS

    b = WhooshBackend(tmp_path / "index")
    b.index(DOCS)
    return b


def _ask(backend, word: str, **kwargs):
    from search.syntax import Group, Word

    return backend.search(SearchRequest(groups=(Group((Word(word),)),), **kwargs))


def test_a_new_searcher_is_warmed_with_what_the_last_one_computed(backend) -> None:
    import datetime as dt

    from tests.search.test_contract import DOCS

    assert _ask(backend, "trample", release=dt.date(2019, 1, 1)).total == 4
    before = backend.searcher()
    assert backend.warming is None  # a first open has nothing to warm
    flying = replace(
        DOCS[0], key="new", titles={"en": "Flying", "fr": "Vol"}, bodies={"en": "Flying"}
    )
    backend.index([flying])  # a commit: the next search sees a new searcher
    after = backend.searcher()
    assert after is not before
    backend.warming.join(timeout=30)
    assert backend._memo_of is after
    assert {("kinds",), ("scope", dt.date(2019, 1, 1)), ("leaves",)} <= set(backend._memo)
    warmed = backend._memo[("leaves",)]._leaves
    assert repr(Term("body_en", "trampl")) in warmed
    assert _ask(backend, "trample", release=dt.date(2019, 1, 1)).total == 4


def test_a_process_that_never_searched_warms_nothing(backend) -> None:
    from tests.search.test_contract import DOCS

    backend.ids()
    backend.index([replace(DOCS[0], key="new", bodies={"en": "Flying"})])
    backend.ids()
    assert backend.warming is None


def test_threads_searching_at_once_get_what_one_thread_gets(tmp_path) -> None:
    """Postings long enough to be read from the files, and no leaf cache: Whoosh's readers
    seek and read shared file objects, so unserialized threads would read each other's
    blocks."""
    import threading

    from search.backends.whoosh.backend import WhooshBackend
    from search.documents import SearchDocument

    rng = np.random.default_rng(11)
    backend = WhooshBackend(tmp_path / "index")
    backend.index(
        SearchDocument(
            kind="rule",
            key=str(i),
            group=str(i),
            bodies={"en": " ".join(rng.choice(WORDS, size=8))},
        )
        for i in range(3000)
    )
    words = WORDS[:6]
    expected = {w: [h.key for h in _ask(backend, w).hits] for w in words}
    failures: list[str] = []

    def run(offset: int) -> None:
        for i in range(40):
            word = words[(i + offset) % len(words)]
            backend._memo.pop(("leaves",), None)
            try:
                got = [h.key for h in _ask(backend, word).hits]
            except Exception as exc:
                failures.append(repr(exc))
                continue
            if got != expected[word]:
                failures.append(f"{word}: {got} != {expected[word]}")

    threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not failures, failures[:3]


def test_a_new_process_warms_the_tables_and_the_most_frequent_words(backend) -> None:
    import datetime as dt

    backend.warm(dt.date(2021, 1, 1))
    assert {
        ("kinds",),
        ("scope", dt.date(2021, 1, 1)),
        ("catalogue", dt.date(2021, 1, 1)),
        ("dictionary",),
    } <= set(backend._memo)
    s = backend.searcher()
    frequent = max(
        (s.doc_frequency("body_en", t), t.decode() if isinstance(t, bytes) else t)
        for t in s.reader().lexicon("body_en")
    )[1]
    assert repr(Term("body_en", frequent)) in backend._memo[("leaves",)]._leaves


@pytest.mark.django_db
def test_the_web_warm_up_without_an_index_does_nothing(tmp_path, settings, caplog) -> None:
    from kb.sitesearch import service

    assert service.start_warm_up() is None  # off in the test settings
    settings.KB_SEARCH_WARM_UP = True
    settings.KB_INDEX_DIR = tmp_path / "nothing-here"
    with caplog.at_level("INFO", logger="kb.sitesearch.service"):
        thread = service.start_warm_up()
        assert thread is not None
        thread.join(timeout=30)
    assert "search warm-up skipped" in caplog.text


def test_per_release_tables_make_room_without_dropping_the_others(backend) -> None:
    import datetime as dt

    from search.backends.whoosh.searchers import MEMO_RELEASES

    s = backend.searcher()
    _ask(backend, "trample")
    for day in range(60):
        backend._scope(s, dt.date(2020, 1, 1) + dt.timedelta(days=day))
    dated = [k for k in backend._memo if len(k) > 1 and k[1] is not None]
    assert len(dated) == MEMO_RELEASES
    assert ("scope", dt.date(2020, 1, 1) + dt.timedelta(days=59)) in dated  # the newest stay
    assert {("kinds",), ("leaves",)} <= set(backend._memo)


def test_a_replaced_searcher_never_wipes_the_live_memo(backend) -> None:
    from tests.search.test_contract import DOCS

    old = backend.searcher()
    backend.index([replace(DOCS[0], key="new", bodies={"en": "Flying"})])
    new = backend.searcher()
    backend._kind_codes(new)
    # (a refresh closes the replaced searcher's readers: a late caller computes, never keeps)
    assert backend._memoized(old, ("late",), lambda: "computed") == "computed"
    assert backend._memo_of is new and ("kinds",) in backend._memo
    assert ("late",) not in backend._memo


def test_a_page_below_one_is_the_first(backend) -> None:
    assert _ask(backend, "trample", page=0).hits == _ask(backend, "trample").hits
    assert _ask(backend, "trample", page=-3).page == 1


def test_an_index_of_another_layout_is_no_index_until_rebuilt(tmp_path) -> None:
    """An index written by an older version (other fields, analyzers pickled from modules that
    moved) is treated as absent: searches say so, writers refuse to add to it (a partial index
    would look complete), and a rebuild replaces it."""
    from search.backend import SearchUnavailable
    from search.backends.whoosh.backend import WhooshBackend
    from tests.search.test_contract import DOCS

    old = WhooshBackend(tmp_path / "index")
    old.index(DOCS)
    live = old.folder.live_name()
    (tmp_path / "index" / live / "LAYOUT").write_text("1")
    (tmp_path / "index" / live / "MAIN_WRITELOCK").unlink(missing_ok=True)
    upgraded = WhooshBackend(tmp_path / "index")
    assert not upgraded.exists()
    with pytest.raises(SearchUnavailable, match="rebuild_index"):
        _ask(upgraded, "trample")
    with pytest.raises(SearchUnavailable, match="another version"):
        upgraded.index(DOCS[:1])
    assert upgraded.ids() == set()
    assert upgraded.rebuild(DOCS) == len(DOCS)
    assert upgraded.exists() and _ask(upgraded, "trample").total


def test_the_spelling_dictionary_sums_its_segments_and_reads_each_once(
    searcher, monkeypatch
) -> None:
    """Per-segment title words summed are the whole reader's (deletions included, as Whoosh
    counts them); a segment already read is not read again (a new searcher after an edit
    reads only the new segments)."""
    from search.backends.whoosh import segments, suggesting

    counts: dict[str, int] = {}
    for term, info in searcher.reader().iter_field("title_en"):
        text = term.decode() if isinstance(term, bytes) else term
        if text.isalpha() and len(text) > 2:
            counts[text] = info.doc_frequency()
    expected = (sorted(counts), [counts[w] for w in sorted(counts)])
    segments._tables.clear()
    assert suggesting.read_dictionary(searcher) == expected
    assert len(segments._tables) == 2
    read = []
    for reader, _ in searcher.reader().leaf_readers():
        monkeypatch.setattr(reader, "iter_field", lambda *a, **k: read.append(a) or iter(()))
    assert suggesting.read_dictionary(searcher) == expected
    assert read == []
