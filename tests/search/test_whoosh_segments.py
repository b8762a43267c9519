"""The per-searcher tables read a segment at a time (search.backends.whoosh.segments): after
an index change a new searcher reads only the new segments, and its tables equal tables read
from scratch, the documents deleted since left out."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import numpy as np
import pytest

from search.backends.whoosh import segments
from search.backends.whoosh.backend import WhooshBackend
from search.documents import SearchDocument
from tests.search.test_contract import DOCS

DAY = dt.date(2019, 1, 1)


def _tables(backend: WhooshBackend) -> dict:
    s = backend.searcher()
    return {
        "kinds": backend._kind_codes(s),
        "collapse": backend._collapse_codes(s),
        "scope": backend._scope(s, DAY),
        "catalogue": backend._catalogue(s, DAY),
        "names": backend._names(s, "card"),
    }


def _same(a: dict, b: dict) -> None:
    assert np.array_equal(a["kinds"], b["kinds"])
    assert np.array_equal(a["scope"], b["scope"])
    assert a["catalogue"] == b["catalogue"] and a["names"] == b["names"]
    # The same documents grouped together (groups are numbered by key, not by position).
    pairs = set(zip(a["collapse"].tolist(), b["collapse"].tolist(), strict=True))
    assert len(pairs) == len({x for x, _ in pairs}) == len({y for _, y in pairs})


def _cards(n: int, tag: str) -> list[SearchDocument]:
    return [
        SearchDocument(
            kind="card",
            key=f"{tag}{i}",
            group=f"{tag}{i}",
            titles={"en": f"Card {tag} {i}, the Bold"},
            bodies={"en": "Flying"},
            collapse="shared" if i % 2 else "",
        )
        for i in range(n)
    ]


@pytest.fixture
def backend(tmp_path) -> WhooshBackend:
    b = WhooshBackend(tmp_path / "index")
    b.index([*DOCS, *_cards(6, "a")])
    return b


def test_a_new_searcher_reads_only_the_new_segment(backend, monkeypatch) -> None:
    _tables(backend)
    backend.index(_cards(3, "b"))  # a drain: one more segment
    read: list[str] = []
    build = segments.of_segment

    def counting(reader, key, make):
        return build(reader, key, lambda: read.append(reader.segment().segment_id()) or make())

    monkeypatch.setattr(segments, "of_segment", counting)
    after = _tables(backend)
    new = {r.segment().segment_id() for r, _ in segments.leaves(backend.searcher())}
    assert len(new) == 2 and len(set(read)) == 1  # the old segment's tables were kept
    segments._tables.clear()
    _same(after, _tables(backend))


def test_documents_deleted_since_leave_the_tables(backend) -> None:
    before = _tables(backend)
    gone = _cards(6, "a")[:2]
    backend.delete([d.doc_id for d in gone])
    after = _tables(backend)
    segments._tables.clear()
    _same(after, _tables(backend))
    named = {f"card a {i}{rest}" for i in (0, 1) for rest in ("", " the bold")}
    assert named <= before["names"] and after["names"] == before["names"] - named
    assert len(after["catalogue"][0]) == len(before["catalogue"][0]) - 2
    assert (after["kinds"] != before["kinds"]).sum() == 2  # the two deleted: "no kind"


def test_an_edit_is_a_deletion_and_an_addition(backend) -> None:
    first = _cards(6, "a")[0]
    backend.update([replace(first, titles={"en": "Renamed Card"})], [first.doc_id])
    after = _tables(backend)
    assert "renamed card" in after["names"] and "card a 0" not in after["names"]
    segments._tables.clear()
    _same(after, _tables(backend))


def test_the_tables_of_segments_merged_away_are_dropped(backend) -> None:
    _tables(backend)
    old = {r.segment().segment_id() for r, _ in segments.leaves(backend.searcher())}
    for n in range(12):  # enough commits for Whoosh to merge the small segments
        backend.index(_cards(1, f"m{n}"))
        _tables(backend)
    now = {r.segment().segment_id() for r, _ in segments.leaves(backend.searcher())}
    kept = {key[0] for key in segments._tables}
    assert kept <= now and not (old - now) & kept
    assert len(now) < 13  # some were merged


def test_an_empty_index_answers_every_read(tmp_path) -> None:
    """The live index `make run` creates before its first build holds no document, and its
    reader no column: the tables are empty, not an error."""
    from search.backend import SearchRequest
    from search.syntax import Group, Word

    b = WhooshBackend(tmp_path / "index")
    b.folder.create_live()
    assert b.search(SearchRequest(groups=(Group((Word("trample"),)),), release=DAY)).total == 0
    assert b.suggest("tra", release=DAY) == [] and b.suggest("tra") == []
    assert b.names_in("lightning bolt", kind="card") == []
    assert b.lookup("rule", number="702.19", release=DAY) is None
    assert len(_tables(b)["kinds"]) == 0


def test_a_replaced_searchers_nested_table_does_not_hang(backend: WhooshBackend) -> None:
    """The names of a kind read the kind table: asked of a searcher a newer one replaced (a
    warm-up thread outliving its searcher), the nested build once ran under the memo's lock,
    which is not reentrant, and hung the process (a CI run stopped there for good). Now it
    answers at once: the old searcher is closed, so its reader says so (the warm-up logs it
    and stops)."""
    import threading

    from whoosh.reading import ReaderClosed

    old = backend.searcher()
    backend.index(_cards(2, "b"))
    backend.searcher()  # the newer searcher: `old` is replaced, and closed
    outcome: list = []

    def ask() -> None:
        try:
            outcome.append(backend._names(old, "card"))
        except ReaderClosed as exc:
            outcome.append(exc)

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "asking a replaced searcher for its names hung"
    assert isinstance(outcome[0], ReaderClosed)
    assert "card b 1 the bold" in backend._names(backend.searcher(), "card")  # the live one reads
