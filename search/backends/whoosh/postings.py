"""A term's postings read a block at a time and scored with numpy, as Whoosh would score them.

Whoosh scores a term one posting at a time in Python: a word in 40,000 documents costs tens of
milliseconds, and a question of six words searched in six fields asks for thirty such leaves
the first time they are met (the "cold" query). Its on-disk format (codec whoosh3) keeps each
block of postings as arrays of document numbers and weights, and each field's lengths as one
byte per document, so the same BM25F arithmetic runs over whole arrays instead. This reads the
codec's block layout, which Whoosh 2.7 does not expose publicly: anything else (another codec,
weighting or query type) returns None and is scored by Whoosh itself; the tests compare both
on every field.
"""

from __future__ import annotations

import numpy as np
from whoosh import scoring as whoosh_scoring
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3LeafMatcher, _lenfield
from whoosh.matching.wrappers import FilterMatcher
from whoosh.query import Term
from whoosh.util.numeric import byte_to_length

#: Field length in words for each stored length byte (Whoosh's own lossy encoding).
_LENGTHS = np.array([byte_to_length(b) for b in range(256)], dtype=np.float64)


class Lengths:
    """Each field's length per document number, read once per searcher."""

    def __init__(self, searcher) -> None:
        self.searcher = searcher
        self._fields: dict[str, np.ndarray] = {}

    def of(self, field: str) -> np.ndarray | None:
        found = self._fields.get(field)
        if found is None:
            found = self._read(field)
            if found is None:
                return None
            self._fields[field] = found
        return found

    def _read(self, field: str) -> np.ndarray | None:
        parts = []
        for sub, _offset in self.searcher.leaf_searchers():
            reader = sub.reader()
            perdoc = getattr(reader, "_perdoc", None)
            if perdoc is None or not hasattr(perdoc, "_cached_reader"):
                return None
            count = reader.doc_count_all()
            column = perdoc._cached_reader(_lenfield(field), LENGTHS_COLUMN)
            codes = np.zeros(count, dtype=np.uint8)
            if column is not None:
                stored = min(column._count, count)
                raw = column._dbfile.get(column._basepos, stored)
                codes[:stored] = np.frombuffer(raw, dtype=np.uint8)
            parts.append(_LENGTHS[codes])
        return np.concatenate(parts) if parts else np.zeros(0)


def score_term(searcher, query: Term, lengths: Lengths) -> tuple[np.ndarray, np.ndarray] | None:
    """The (document numbers, scores) of a Term leaf, or None when this cannot compute them
    exactly as Whoosh would."""
    weighting = searcher.weighting
    if type(query) is not Term or type(weighting) is not whoosh_scoring.BM25F:
        return None
    field = query.fieldname
    if field not in searcher.schema or not searcher.schema[field].scorable:
        return None
    try:
        text = searcher.schema[field].to_bytes(query.text)
    except ValueError:
        return None
    ids: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for sub, offset in searcher.leaf_searchers():
        reader = sub.reader()
        if (field, text) not in reader:
            continue
        matcher = reader.postings(field, text)
        deleted = None
        if isinstance(matcher, FilterMatcher):
            deleted = np.fromiter(matcher._ids, dtype=np.int64)
            matcher = matcher.child
        if type(matcher) is not W3LeafMatcher:
            return None
        found_ids, found_weights = _blocks(matcher)
        if deleted is not None and len(deleted):
            keep = ~np.isin(found_ids, deleted)
            found_ids, found_weights = found_ids[keep], found_weights[keep]
        ids.append(found_ids + offset)
        weights.append(found_weights)
    if not ids:
        return np.zeros(0, dtype=np.int32), np.zeros(0)
    doc_ids = np.concatenate(ids)
    tf = np.concatenate(weights)
    field_lengths = lengths.of(field)
    if field_lengths is None:
        return None
    idf = searcher.idf(field, text)
    avgfl = searcher.avg_field_length(field) or 1
    b = weighting._field_B.get(field, weighting.B)
    k1 = weighting.K1
    fl = field_lengths[doc_ids]
    scores = idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl)))
    if query.boost != 1.0:
        scores = scores * query.boost
    return doc_ids.astype(np.int32), scores


def _blocks(matcher: W3LeafMatcher) -> tuple[np.ndarray, np.ndarray]:
    """Every posting's document number and weight, a block's arrays at a time (the codec
    keeps ids as deltas unless they are bytes, and a block's weights as None when all are
    1.0, as one float when all are equal)."""
    ids: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    while matcher.is_active():
        matcher._read_data()
        raw_ids, raw_weights = matcher._data[0], matcher._data[1]
        block = np.asarray(raw_ids, dtype=np.int64)
        ids.append(block if matcher._byteids else np.cumsum(block))
        if raw_weights is None:
            weights.append(np.ones(len(block)))
        elif isinstance(raw_weights, float):
            weights.append(np.full(len(block), np.float32(raw_weights), dtype=np.float64))
        else:
            weights.append(np.asarray(raw_weights, dtype=np.float64))
        matcher._next_block()
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate(ids), np.concatenate(weights)
