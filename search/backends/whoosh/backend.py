"""The default backend: Whoosh 2.7.4, pinned, on disk. Not only Whoosh's public API: importing
this module patches Whoosh's codec (patches.py), and the scoring, folder and writer modules
read or override its private internals. The package's docstring (search/backends/whoosh/
__init__.py) lists each and what moving to a Whoosh fork or to another engine would cost.

The roles live in modules of their own: the fields (schema), the folder swap (folders), the
searcher lifecycle, memo and warming (searchers), compiling a request (compiling), scoring the
query tree (scoring), hits and snippets (results), autocomplete and did-you-mean
(suggesting). This class joins them behind search.backend.SearchBackend.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np
from whoosh import index, searching, sorting
from whoosh.query import Every, Or, Term

from search import analysis
from search.backend import IndexStats, SearchBackend, SearchRequest, Suggestion
from search.backends.whoosh import patches, scoring, suggesting
from search.backends.whoosh.compiling import compile_request
from search.backends.whoosh.folders import LiveFolder
from search.backends.whoosh.results import query_terms, to_hit
from search.backends.whoosh.schema import document_fields, schema
from search.backends.whoosh.searchers import Searchers, serialized
from search.backends.whoosh.workers import GuardedMpWriter
from search.documents import Hit, Results, SearchDocument
from search.registry import kinds as registered_kinds

patches.apply()

BULK = 5_000  # from this many documents, index with two processes


class WhooshBackend(Searchers, SearchBackend):
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._schema = schema()
        self.folder = LiveFolder(self.root, self._schema)
        self._init_searchers()

    def exists(self) -> bool:
        return self.folder.exists()

    # -- writing -----------------------------------------------------------------------------

    def _writer(self, ix: index.Index, bulk: bool):
        if bulk:  # two child processes that exit if this one is killed (workers.py)
            return GuardedMpWriter(ix, procs=2, multisegment=True, limitmb=256)
        return ix.writer(timeout=30.0)

    def update(
        self, add: Iterable[SearchDocument] = (), delete: Iterable[str] = (), *, bulk: bool = False
    ) -> tuple[int, int]:
        add, delete = list(add), list(delete)
        if not add and not delete:
            return 0, 0
        writer = self._writer(self._index(), bulk or len(add) >= BULK)
        try:
            for doc_id in delete:
                writer.delete_by_term("id", doc_id)
            for doc in add:
                writer.add_document(**document_fields(doc))
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        return len(add), len(delete)

    def rebuild(self, docs: Iterable[SearchDocument]) -> int:
        self.clean_up()
        name = self.folder.new_folder(building=True)
        ix = self.folder.create(name)
        writer = self._writer(ix, bulk=True)
        count = 0
        try:
            for doc in docs:
                writer.add_document(**document_fields(doc))
                count += 1
        except BaseException:
            writer.cancel()
            self.folder.discard(name)
            raise
        writer.commit()
        self.folder.built(name)
        with self._lock:
            self.folder.swap(name)
        return count

    def clean_up(self) -> list[str]:
        """Remove the folders of rebuilds that were killed before their swap, and the scratch
        of writers killed mid-write (folders.LiveFolder.remove_scratch)."""
        return self.folder.remove_unfinished() + self.folder.remove_scratch()

    # -- reading -----------------------------------------------------------------------------

    @serialized
    def ids(self, kind: str | None = None, groups: Iterable[str] | None = None) -> set[str]:
        if not self.exists():
            return set()
        s = self.searcher()
        if not s.doc_count_all():  # an empty index has no columns (Whoosh raises)
            return set()
        column = s.reader().column_reader("id")
        if groups is not None:
            terms = [Term("group", g) for g in groups]
            if not terms:
                return set()
            docnums = s.search(Or(terms), limit=None, scored=False).docs()
        else:
            docnums = s.reader().all_doc_ids()
        prefix = f"{kind}:" if kind else ""
        found = (column[n] for n in docnums)
        return {i for i in found if i.startswith(prefix)}

    @serialized
    def stats(self) -> IndexStats:
        if not self.exists():
            return IndexStats(0, 0, str(self.root))
        s = self.searcher()
        folder, size = self.folder.size()
        counts = s.search(
            Every(), groupedby=sorting.FieldFacet("kind", maptype=sorting.Count), limit=1
        ).groups()
        return IndexStats(s.doc_count(), size, folder, dict(counts))

    @serialized
    def search(self, request: SearchRequest) -> Results:
        s = self.searcher()
        query = compile_request(request, self._schema)
        if request.page < 1:
            request = replace(request, page=1)
        if query is None:
            return Results([], 0, request.page, request.per_page)
        # Whoosh's own collectors walk the query a document at a time (and its block-quality
        # skipping loops forever on some unions of fields); see scoring for why the leaves
        # are scored once per searcher and combined with numpy instead. Every match is known,
        # so the counts per kind (the kind filters show them) are exact.
        matched, scores = scoring.evaluate(query, self._leaves(s))
        scope = self._scope(s, request.release)
        if scope is not None:
            matched &= scope
        known = registered_kinds()
        codes = self._kind_codes(s)
        if request.kind_weights:
            weights = np.ones(len(known) + 1)
            for kind, factor in request.kind_weights:
                if kind in known:
                    weights[known.index(kind)] = factor
            scores = scores * weights[codes]
        collapsed = scoring.collapse(matched, scores, self._collapse_codes(s))
        matched = collapsed.matched
        per_kind = np.bincount(codes[matched], minlength=len(known) + 1)
        counts = {k: int(n) for k, n in zip(known, per_kind, strict=False) if n}
        kinds = tuple(sorted(request.kinds))
        total = sum(counts.get(k, 0) for k in kinds) if kinds else sum(counts.values())
        if not total:
            return Results([], 0, 1, request.per_page, counts)
        pages = max(1, -(-total // request.per_page))
        if request.page > pages:
            return self.search(replace(request, page=pages))
        if kinds:
            matched &= np.isin(codes, [known.index(k) for k in kinds if k in known])
        limit = request.page * request.per_page
        found = searching.Results(s, query, scoring.top(scores, np.flatnonzero(matched), limit))
        start = (request.page - 1) * request.per_page
        terms = query_terms(query)
        hits = [
            to_hit(found[i], request, terms, self._schema) for i in range(start, len(found.top_n))
        ]
        groups = self._collapse_codes(s)
        for hit, (_, docnum) in zip(hits, found.top_n[start:], strict=True):
            others = collapsed.others(docnum, int(groups[docnum]))
            if len(others):
                hit.also = _refs(s, others)
        return Results(hits, total, request.page, request.per_page, counts)

    def lookup(
        self, kind: str, *, number: str = "", ref: str = "", release: dt.date | None = None
    ) -> Hit | None:
        key = number or ref
        found = self.lookup_many([(kind, key, bool(number))], release=release)
        return found.get((kind, key))

    @serialized
    def lookup_many(
        self, wanted: Iterable[tuple[str, str, bool]], *, release: dt.date | None = None
    ) -> dict[tuple[str, str], Hit]:
        """One searcher, scope and kind table for all of them: opening the searcher (which
        reads the live index's name from disk) was two thirds of a single lookup."""
        s = self.searcher()
        scope = self._scope(s, release)
        known = registered_kinds()
        codes = self._kind_codes(s)
        out: dict[tuple[str, str], Hit] = {}
        for kind, key, is_number in wanted:
            term = Term("number", key.lower()) if is_number else Term("handle", key)
            code = known.index(kind) if kind in known else -1
            for docnum in s.docs_for_query(term):
                if codes[docnum] == code and (scope is None or scope[docnum]):
                    found = searching.Results(s, term, [(0.0, docnum)])
                    out[(kind, key)] = to_hit(found[0], SearchRequest(groups=()), {}, self._schema)
                    break
        return out

    @serialized
    def suggest(
        self,
        text: str,
        *,
        limit: int = 10,
        release: dt.date | None = None,
        inner: bool = True,
    ) -> list[Suggestion]:
        typed = suggesting.plain(text)
        if len(typed) < 2 or not self.exists():
            return []
        s = self.searcher()
        catalogue = self._catalogue(s, release)
        return suggesting.suggestions(s, catalogue, typed, limit, _kind_order, inner=inner)

    @serialized
    def names_in(self, text: str, *, kind: str) -> list[str]:
        known = registered_kinds()
        if kind not in known or not self.exists():
            return []
        return analysis.named(text, self._names(self.searcher(), kind))

    @serialized
    def corrections(self, words: Iterable[str]) -> dict[str, str]:
        if not self.exists():
            return {}
        s = self.searcher()
        out = {}
        for word in words:
            folded = analysis.fold(word)
            if len(folded) < 4 or not folded.isalpha() or suggesting.known(s, self._schema, word):
                continue
            best = suggesting.closest(word, self._dictionary(s))
            if best:
                out[word] = best
        return out


def _refs(s, docnums: np.ndarray) -> tuple[tuple[str, str], ...]:
    """(ref, label) of these documents, read from their columns."""
    refs, labels = s.reader().column_reader("ref"), s.reader().column_reader("label")
    return tuple((refs[int(n)], labels[int(n)]) for n in docnums)


def _kind_order(kind: str) -> int:
    known = registered_kinds()
    return known.index(kind) if kind in known else len(known)
