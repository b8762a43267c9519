"""The per-searcher tables (kinds, collapse groups, release scopes, the title catalogue, the
names of a kind) read a segment at a time and kept per process by segment id.

Why: every index change (an admin edit's drain, each release an import writes) makes a new
searcher, and each table was read again over the whole index: about three seconds of a web
process's time per change (a new searcher's scope 0.7 s, catalogue 0.8 s, names 0.6 s,
collapse 0.3 s), so that a site under an import answered a few requests a second. A segment
never changes once written but for its deleted documents, so what is read from it is kept;
a new searcher reads only the segments written since, and the tables are joined with the
current deletions applied where they matter (the kinds, the catalogue, the names). The
dictionary of title words is kept the same way (suggesting.read_dictionary).
"""

from __future__ import annotations

import heapq
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

import numpy as np
from whoosh.query import Query

from search import conf
from search.backends.whoosh.schema import title_field

T = TypeVar("T")

#: Entries kept (a segment's table each: its kinds, its collapse keys, its catalogue, its
#: names, and its scope for each release asked for).
KEPT = 1024
_tables: OrderedDict[tuple, object] = OrderedDict()
_lock = threading.Lock()


def of_segment(reader, key: tuple, build: Callable[[], T]) -> T:
    """What `build` reads from one segment's reader, kept by segment id and `key`."""
    segment = reader.segment()
    if segment is None:  # not a segment of a file index: nothing to key it by
        return build()
    full = (segment.segment_id(), *key)
    with _lock:
        found = _tables.get(full)
        if found is not None:
            _tables.move_to_end(full)
            return cast(T, found)
    found = build()
    with _lock:
        _tables[full] = found
        while len(_tables) > KEPT:
            _tables.popitem(last=False)
    return found


def forget_others(s) -> None:
    """Drop what was read from segments that are not the searcher's (merged away, or of a
    folder replaced by a rebuild): a process that outlives many index changes keeps only
    the tables of the index it reads."""
    current = {r.segment().segment_id() for r, _ in leaves(s) if r.segment() is not None}
    with _lock:
        for key in [k for k in _tables if k[0] not in current]:
            del _tables[key]


def leaves(s) -> list[tuple[object, int]]:
    """(segment reader, first document number) of each segment of a searcher."""
    return list(s.reader().leaf_readers())


def live(s) -> np.ndarray:
    """Whether each document is not deleted."""
    mask = np.ones(s.doc_count_all(), dtype=bool)
    for reader, offset in leaves(s):
        segment = reader.segment()
        if segment is not None and segment.has_deletions():
            deleted = np.fromiter(segment.deleted_docs(), dtype=np.int64)
            mask[deleted + offset] = False
    return mask


def _column(reader, name: str, default):
    """A column's values, one per document; `default` for each where the reader has no such
    column (an empty index's reader has none)."""
    if reader.has_column(name):
        return reader.column_reader(name)
    return [default] * reader.doc_count_all()


def kind_codes(s, kinds: tuple[str, ...]) -> np.ndarray:
    """Each document's kind as its index in `kinds` (their count for another kind or a
    deleted document)."""
    other = len(kinds)
    index = {kind: code for code, kind in enumerate(kinds)}

    def build(reader) -> np.ndarray:
        column = _column(reader, "kind", "")
        return np.fromiter((index.get(k, other) for k in column), np.int8, reader.doc_count_all())

    parts = [of_segment(r, ("kinds", kinds), lambda r=r: build(r)) for r, _ in leaves(s)]
    codes = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int8)
    codes[~live(s)] = other
    return codes


def collapse_codes(s) -> np.ndarray:
    """Each document's collapse group as a number, -1 for a document alone in its group."""

    def build(reader) -> np.ndarray:
        column = _column(reader, "collapse", "")
        return np.fromiter(
            (int(k, 16) if k else 0 for k in column), np.uint64, reader.doc_count_all()
        )

    parts = [of_segment(r, ("collapse",), lambda r=r: build(r)) for r, _ in leaves(s)]
    keys = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    codes = np.full(len(keys), -1, dtype=np.int32)
    keyed = np.flatnonzero(keys)
    if len(keyed):
        _, group, sizes = np.unique(keys[keyed], return_inverse=True, return_counts=True)
        shared = sizes[group] > 1
        # Numbered 0, 1, … among the groups of two or more, in the order of their keys.
        numbers = np.cumsum(sizes > 1) - 1
        codes[keyed[shared]] = numbers[group[shared]]
    return codes


def matching(s, key: tuple, query: Query) -> np.ndarray:
    """The documents `query` matches (not deleted when read) as a boolean array; `key` names
    the query (it is kept under that name)."""

    def build(reader, searcher) -> np.ndarray:
        mask = np.zeros(reader.doc_count_all(), dtype=bool)
        mask[list(searcher.docs_for_query(query))] = True
        return mask

    parts = [
        of_segment(sub.reader(), key, lambda sub=sub: build(sub.reader(), sub))
        for sub, _ in s.leaf_searchers()
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


#: (sorted folded titles, (document number, language) of each)
Catalogue = tuple[list[str], list[tuple[int, str]]]


def catalogue(s, fold: Callable[[str], str], keep: np.ndarray) -> Catalogue:
    """Every title of the documents `keep` holds (not deleted, of a known kind), folded and
    sorted."""

    def build(reader) -> list[tuple[str, int, str]]:
        folded: dict[str, str] = {}
        rows = []
        for lang in conf.codes():
            for n, title in enumerate(_column(reader, title_field(lang), "")):
                if title:
                    key = folded.get(title)
                    if key is None:
                        key = folded[title] = fold(title)
                    rows.append((key, n, lang))
        rows.sort()
        return rows

    runs = []
    for reader, offset in leaves(s):
        rows = of_segment(reader, ("catalogue",), lambda r=reader: build(r))
        runs.append([(k, n + offset, lang) for k, n, lang in rows if keep[n + offset]])
    merged = list(heapq.merge(*runs))
    return [r[0] for r in merged], [(r[1], r[2]) for r in merged]


def names(s, codes: np.ndarray, code: int, of_title: Callable[[str], set[str]]) -> frozenset[str]:
    """The names (`of_title` of each title) of the documents whose kind is `code` in `codes`
    (kind_codes: a deleted document has none)."""

    def build(reader, offset: int) -> list[tuple[int, frozenset[str]]]:
        rows = []
        for lang in conf.codes():
            for n, title in enumerate(_column(reader, title_field(lang), "")):
                if title and codes[n + offset] == code:
                    rows.append((n, frozenset(of_title(title))))
        return rows

    out: set[str] = set()
    for reader, offset in leaves(s):
        rows = of_segment(reader, ("names", code), lambda r=reader, o=offset: build(r, o))
        for n, found in rows:
            if codes[n + offset] == code:  # the kinds mark documents deleted since as no kind
                out |= found
    return frozenset(out)
