"""The changes applied to Whoosh (search.backends.whoosh.patches): a field with no length
column is looked up on disk once per segment reader, not once per posting; posting blocks are
written as typed arrays, and blocks written either way read the same."""

from __future__ import annotations

import pickle
import pickletools
import zlib
from array import array
from pathlib import Path

import pytest
from whoosh import index
from whoosh.codec import whoosh3
from whoosh.fields import ID, TEXT, Schema

import search.backends.whoosh.backend  # noqa: F401 - importing the backend applies the fix
from search.backends.whoosh import patches


def test_a_missing_length_column_is_looked_up_once(tmp_path: Path, monkeypatch) -> None:
    ix = index.create_in(tmp_path, Schema(kind=ID(stored=True), body=TEXT))
    with ix.writer() as w:
        w.add_document(kind="rule", body="trample over planeswalkers")
    reader = ix.reader()
    per_doc = reader._perdoc  # the segment's per-document reader
    asked: list[str] = []
    real = per_doc.has_column
    monkeypatch.setattr(per_doc, "has_column", lambda name: asked.append(name) or real(name))
    for _ in range(3):
        assert reader.doc_field_length(0, "kind") == 0  # ID fields keep no lengths
        assert reader.doc_field_length(0, "body") == 3
    assert asked == ["_kind_len", "_body_len"], asked


def _index_of_repeated_words(root: Path):
    """300 documents (three blocks of postings) where "trample" occurs 1 to 3 times, so its
    block weights differ; "flying" once in each (its weights all 1.0)."""
    root.mkdir()
    ix = index.create_in(root, Schema(kind=ID(stored=True), body=TEXT))
    with ix.writer() as w:
        for n in range(300):
            w.add_document(kind="rule", body=" ".join(["trample"] * (1 + n % 3) + ["flying"]))
    return ix


def _postings(ix, word: str) -> tuple[list[int], list[float], list, list[bytes]]:
    """The word's postings as Whoosh reads them, its blocks' data and their bytes on disk."""
    with ix.searcher() as s:
        m = s.reader().postings("body", word)
        ids, weights, blocks, written = [], [], [], []
        while m.is_active():
            ids.append(m.id())
            weights.append(m.weight())
            if m._data is not None and m._data not in blocks:
                raw = m._postfile.get(m._dataoffset, m._nextoffset - m._dataoffset)
                blocks.append(m._data)
                written.append(zlib.decompress(raw) if m._compression else raw)
            m.next()
    return ids, weights, blocks, written


def test_posting_blocks_are_arrays_read_back_as_whoosh_reads_tuples(
    tmp_path: Path, monkeypatch
) -> None:
    new = _index_of_repeated_words(tmp_path / "new")
    ids, weights, blocks, written = _postings(new, "trample")
    assert ids == list(range(300)) and weights == [1.0 + n % 3 for n in range(300)]
    assert len(blocks) == 3 and all(
        isinstance(b[0], array) and isinstance(b[1], array) for b in blocks
    )
    for raw in written:  # not a number at a time: the arrays' bytes as they are in memory
        ops = [op.name for op, _, _ in pickletools.genops(raw)]
        numbers = [op for op in ops if op.startswith(("BININT", "BINFLOAT", "LONG"))]
        assert len(numbers) < 10 and not {"EMPTY_LIST", "APPENDS"} & set(ops), ops

    # An index written before the change (tuples, protocol 2) reads the same.
    monkeypatch.setattr(whoosh3.W3PostingsWriter, "_mini_ids", _stock_mini_ids)
    monkeypatch.setattr(whoosh3.W3PostingsWriter, "_mini_weights", _stock_mini_weights)
    monkeypatch.setattr(whoosh3, "dumps", lambda obj, protocol=None: pickle.dumps(obj, 2))
    old = _index_of_repeated_words(tmp_path / "old")
    old_ids, old_weights, old_blocks, _ = _postings(old, "trample")
    assert isinstance(old_blocks[0][0], tuple)
    assert (old_ids, old_weights) == (ids, weights)
    assert _postings(old, "flying")[:2] == _postings(new, "flying")[:2]


def _stock_mini_ids(self):
    return tuple(self._ids if self._byteids else whoosh3.delta_encode(self._ids))


def _stock_mini_weights(self):
    w = self._weights
    return None if all(x == 1.0 for x in w) else w[0] if all(x == w[0] for x in w) else tuple(w)


@pytest.mark.parametrize("obj", [(1, 2, 3.0, 0, 1, 2), ((1, 2), (1.0,), (b"x",))])
def test_what_holds_no_array_is_pickled_as_whoosh_pickles_it(obj) -> None:
    assert patches._dumps(obj, 2) == pickle.dumps(obj, 2)
