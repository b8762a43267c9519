"""A term's or a phrase's postings read a block at a time and scored with numpy, as Whoosh
would score them.

Whoosh scores a term one posting at a time in Python: a word in 40,000 documents costs tens of
milliseconds, and a question of six words searched in six fields asks for thirty such leaves
the first time they are met (the "cold" query). Its on-disk format (codec whoosh3) keeps each
block of postings as arrays of document numbers and weights, and each field's lengths as one
byte per document, so the same BM25F arithmetic runs over whole arrays instead. This reads the
codec's block layout, which Whoosh 2.7 does not expose publicly: the private `_INT_SIZE` and
`_lenfield` of `whoosh.codec.whoosh3`, a W3LeafMatcher's private block state (`_maxid`,
`_next_block`, `_read_data`, `_data`, `_byteids`, `_read_values`, `_values`), a segment
reader's `_perdoc` and its lengths column's `_dbfile`, `_basepos` and `_count`, a
FilterMatcher's `_ids` and BM25F's `_field_B`. Anything else (another codec, weighting or query
type) returns None and is scored by Whoosh itself; the tests compare both on every field.

A phrase ("enters the battlefield", "+1/+1" read as "1 1") is where Whoosh is slowest: its span
matchers walk every document holding all the words a posting at a time, 150 to 270 ms for a
common phrase, the bulk of a cold question's time. Here the documents holding every word are
found with numpy, only their positions are decoded, and the score is Whoosh's: the sum of the
words' term scores (a phrase matcher adds its words' scores), times the phrase's boost.
"""

from __future__ import annotations

from itertools import accumulate
from pickle import loads

import numpy as np
from whoosh import scoring as whoosh_scoring
from whoosh.codec.whoosh3 import _INT_SIZE, LENGTHS_COLUMN, W3LeafMatcher, _lenfield
from whoosh.formats import Positions
from whoosh.matching.wrappers import FilterMatcher
from whoosh.query import Phrase, Term
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
    if type(query) is not Term or not _scorable(searcher, query.fieldname):
        return None
    field = query.fieldname
    try:
        text = searcher.schema[field].to_bytes(query.text)
    except ValueError:
        return None
    ids: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for sub, offset in searcher.leaf_searchers():
        found = _postings(sub.reader(), field, text, values=False)
        if found is None:
            return None
        found_ids, found_weights, _ = found
        ids.append(found_ids + offset)
        weights.append(found_weights)
    if not sum(len(i) for i in ids):
        return np.zeros(0, dtype=np.int32), np.zeros(0)
    doc_ids = np.concatenate(ids)
    scores = _bm25(searcher, field, text, doc_ids, np.concatenate(weights), lengths)
    if scores is None:
        return None
    if query.boost != 1.0:
        scores = scores * query.boost
    return doc_ids.astype(np.int32), scores


def score_phrase(searcher, query: Phrase, lengths: Lengths) -> tuple[np.ndarray, np.ndarray] | None:
    """The (document numbers, scores) of a Phrase leaf of adjacent words (Whoosh's default
    slop of 1), or None when this cannot compute them exactly as Whoosh would."""
    if type(query) is not Phrase or query.slop != 1 or not query.words:
        return None
    field = query.fieldname
    if not _scorable(searcher, field) or type(searcher.schema[field].format) is not Positions:
        return None
    try:
        words = [searcher.schema[field].to_bytes(w) for w in query.words]
    except ValueError:
        return None
    empty = np.zeros(0, dtype=np.int32), np.zeros(0)
    reader = searcher.reader()
    if any((field, w) not in reader for w in words):
        return empty  # as Whoosh: a word the field never holds matches nothing
    distinct = list(dict.fromkeys(words))
    ids: list[np.ndarray] = []
    tfs: dict[bytes, list[np.ndarray]] = {w: [] for w in distinct}
    for sub, offset in searcher.leaf_searchers():
        segment = sub.reader()
        # The rarest word first: the others' blocks holding none of its documents are skipped.
        order = sorted(distinct, key=lambda w: segment.doc_frequency(field, w))
        found = {}
        candidates = None
        for word in order:
            posted = _postings(segment, field, word, values=True, within=candidates)
            if posted is None:
                return None
            found[word] = posted
            candidates = (
                posted[0]
                if candidates is None
                else np.intersect1d(candidates, posted[0], assume_unique=True)
            )
            if not len(candidates):
                break
        if candidates is None or not len(candidates):
            continue
        at = {w: np.searchsorted(found[w][0], candidates) for w in distinct}
        encoded = {w: [found[w][2][j] for j in at[w].tolist()] for w in distinct}
        keep = _adjacent(words, encoded, len(candidates))
        if keep.any():
            ids.append(candidates[keep] + offset)
            for w in distinct:
                tfs[w].append(found[w][1][at[w][keep]])
    if not ids:
        return empty
    doc_ids = np.concatenate(ids)
    per_word = {}
    for w in distinct:
        scores = _bm25(searcher, field, w, doc_ids, np.concatenate(tfs[w]), lengths)
        if scores is None:
            return None
        per_word[w] = scores
    total = _tree_sum([per_word[w] for w in words])
    if query.boost != 1.0:
        total = total * query.boost
    return doc_ids.astype(np.int32), total


def _adjacent(words: list[bytes], encoded: dict[bytes, list[bytes]], count: int) -> np.ndarray:
    """For each of `count` documents (each word's encoded positions in it), whether the words
    occur there one after the other, as Whoosh's phrase matcher (ordered spans, slop 1).
    Positions are decoded a document at a time: kept for all of them, the lists woke the
    garbage collector, which then walked the whole heap."""
    first, rest = encoded[words[0]], [(i, encoded[w]) for i, w in enumerate(words[1:], 1)]
    keep = np.zeros(count, dtype=bool)
    for doc in range(count):
        starts = _positions(first[doc])
        for offset, following in rest:
            there = set(_positions(following[doc]))
            starts = [p for p in starts if p + offset in there]
            if not starts:
                break
        keep[doc] = bool(starts)
    return keep


def _positions(value: bytes) -> list[int]:
    """Positions.decode_positions without its per-call overhead: a frequency, then the
    pickled gaps between positions (Whoosh strips the pickle's final STOP)."""
    codes = loads(value[_INT_SIZE:] if value.endswith(b".") else value[_INT_SIZE:] + b".")
    return list(accumulate(codes))


def _tree_sum(parts: list[np.ndarray]) -> np.ndarray:
    """Summed in the order of Whoosh's binary tree of intersections (make_binary_tree), so
    that the floating-point sums are Whoosh's to the last bit."""
    if len(parts) == 1:
        return parts[0]
    half = len(parts) // 2
    return _tree_sum(parts[:half]) + _tree_sum(parts[half:])


def _scorable(searcher, field: str) -> bool:
    return (
        type(searcher.weighting) is whoosh_scoring.BM25F
        and field in searcher.schema
        and searcher.schema[field].scorable
    )


def _postings(reader, field: str, text: bytes, *, values: bool, within: np.ndarray | None = None):
    """One segment's (document numbers, weights, encoded values or None) of a term, deleted
    documents left out (and, given `within`, sorted document numbers, only the blocks that
    may hold one of them); None when the codec is not the one read here."""
    if (field, text) not in reader:
        return np.zeros(0, dtype=np.int64), np.zeros(0), [] if values else None
    matcher = reader.postings(field, text)
    deleted = None
    if isinstance(matcher, FilterMatcher):
        deleted = np.fromiter(matcher._ids, dtype=np.int64)
        matcher = matcher.child
    if type(matcher) is not W3LeafMatcher:
        return None
    found_ids, found_weights, found_values = _blocks(matcher, values=values, within=within)
    if deleted is not None and len(deleted):
        keep = ~np.isin(found_ids, deleted)
        found_ids, found_weights = found_ids[keep], found_weights[keep]
        if found_values is not None:
            found_values = [v for v, k in zip(found_values, keep, strict=True) if k]
    return found_ids, found_weights, found_values


def _bm25(searcher, field, text, doc_ids, tf, lengths: Lengths) -> np.ndarray | None:
    """Whoosh's BM25F score of a term (boost 1) in each of these documents."""
    field_lengths = lengths.of(field)
    if field_lengths is None:
        return None
    weighting = searcher.weighting
    idf = searcher.idf(field, text)
    avgfl = searcher.avg_field_length(field) or 1
    b = weighting._field_B.get(field, weighting.B)
    k1 = weighting.K1
    fl = field_lengths[doc_ids]
    return idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl)))


def _blocks(
    matcher: W3LeafMatcher, *, values: bool = False, within: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, list | None]:
    """Every posting's document number and weight, a block's arrays at a time (the codec
    keeps ids as deltas unless they are bytes, and a block's weights as None when all are
    1.0, as one float when all are equal), and when asked each posting's encoded value."""
    ids: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    encoded: list | None = [] if values else None
    low = 0  # the first document number the current block may hold
    while matcher.is_active():
        high = matcher._maxid
        if within is not None:
            start = np.searchsorted(within, low)
            low = high + 1
            if start == len(within) or within[start] > high:
                matcher._next_block()  # none of them here: the block's data is not read
                continue
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
        if encoded is not None:
            matcher._read_values()
            encoded.extend(matcher._values)
        matcher._next_block()
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0), encoded
    return np.concatenate(ids), np.concatenate(weights), encoded
