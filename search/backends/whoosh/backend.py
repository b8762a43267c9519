"""The default backend: Whoosh 2.7.4, on disk, used only through API its forks share
(whoosh-reloaded, whoosh3), so switching is a one-line change in pyproject.toml.

Layout of the index folder: `CURRENT` names the live index (a sub-folder); a rebuild writes a
new sub-folder and replaces `CURRENT` atomically (os.replace), keeping the previous one so that
readers still holding it finish their searches. Readers open the live index once per process
and refresh when a writer commits or a rebuild swaps.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import html
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA
from whoosh import highlight, index, searching, sorting
from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema
from whoosh.query import And, AndNot, Every, NumericRange, Or, Phrase, Prefix, Query, Term

from search import analysis
from search.backend import IndexStats, SearchBackend, SearchRequest, SearchUnavailable, Suggestion
from search.documents import Hit, Results, SearchDocument
from search.registry import kinds as registered_kinds
from search.syntax import Item
from search.syntax import Phrase as PhraseItem

from . import matching

log = logging.getLogger(__name__)
OPEN_END = dt.date.max.toordinal()
BULK = 5_000  # from this many documents, index with two processes
#: Postings of the previous searcher's most recent leaves scored again for a new one (about
#: a second of a background thread's time).
WARM_POSTINGS = 300_000
#: Postings of the most frequent words scored when a web process starts (a few seconds of a
#: background thread's time; the words any query of common terms needs).
WARM_START_POSTINGS = 1_000_000
MEMO_RELEASES = 32  # entries per release kept per searcher (a scope and a catalogue each)
_WARM_ORDER = ("kinds", "scope", "catalogue", "dictionary")

#: (field, boost) searched for each language; titles weigh most, examples least.
FIELDS = {
    "en": (("title_en", 4.0), ("body_en", 1.0), ("extra_en", 0.3)),
    "fr": (("title_fr", 4.0), ("body_fr", 1.0)),
}
FIELD_LANG = {f: lang for lang, fields in FIELDS.items() for f, _ in fields}
NUMBER_BOOST = 30.0
#: word*: titles are unstemmed; bodies are stemmed, so a prefix there matches stems ("trampl*").
PREFIX_FIELDS = (("title_en", 2.0), ("title_fr", 2.0), ("body_en", 0.5), ("body_fr", 0.5))


def schema() -> Schema:
    return Schema(
        id=ID(unique=True, sortable=True),  # read from its column, not stored twice
        kind=ID(stored=True, sortable=True),
        group=ID,
        key=STORED,
        ref=STORED,
        handle=ID,  # the ref of documents looked up by it (glossary entries)
        label=STORED,
        date=STORED,
        chapter=STORED,
        number=ID(stored=True),
        # Titles (headings, glossary terms, card names) are unstemmed: prefixes match
        # ("Audaci*") and their words are the did-you-mean dictionary.
        # Titles are also columns: autocomplete reads them all at once (see _catalogue).
        title_en=TEXT(analysis.names(), stored=True, spelling=True, sortable=True),
        title_fr=TEXT(analysis.names(), stored=True, spelling=True, sortable=True),
        body_en=TEXT(analysis.english(), stored=True),
        body_fr=TEXT(analysis.french(), stored=True),
        extra_en=TEXT(analysis.english(), stored=True),
        valid_from=NUMERIC(int, bits=32, stored=True),
        valid_to=NUMERIC(int, bits=32, stored=True),
    )


def _fields(doc: SearchDocument) -> dict:
    return {
        "id": doc.doc_id,
        "kind": doc.kind,
        "group": doc.group_id,
        "key": doc.key,
        "ref": doc.ref,
        "handle": doc.ref if doc.lookup else "",
        "label": doc.label,
        "date": doc.date.isoformat() if doc.date else "",
        "chapter": doc.chapter,
        "number": doc.number.lower(),
        "title_en": doc.title_en,
        "title_fr": doc.title_fr,
        "body_en": doc.body_en,
        "body_fr": doc.body_fr,
        "extra_en": doc.extra_en,
        "valid_from": doc.valid_from.toordinal() if doc.valid_from else 0,
        "valid_to": doc.valid_to.toordinal() if doc.valid_to else OPEN_END,
    }


class _Mark(highlight.Formatter):
    """Matches in <mark>, everything else escaped: snippets are safe to show as HTML."""

    between = " … "

    def format_token(self, text, token, replace=False):  # type: ignore[no-untyped-def]
        return f"<mark>{html.escape(highlight.get_text(text, token, replace))}</mark>"

    def format_fragment(self, fragment, replace=False):  # type: ignore[no-untyped-def]
        out, index_ = [], fragment.startchar
        text = fragment.text
        for t in fragment.matches:
            if t.startchar is None or t.startchar < index_:
                continue
            out.append(html.escape(text[index_ : t.startchar]))
            out.append(self.format_token(text, t, replace))
            index_ = t.endchar
        out.append(html.escape(text[index_ : fragment.endchar]))
        return "".join(out)


def _serialized(method):  # type: ignore[no-untyped-def]
    @functools.wraps(method)
    def reading(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        with self._reading:
            return method(self, *args, **kwargs)

    return reading


class WhooshBackend(SearchBackend):
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._live: tuple[str, index.Index] | None = None
        self._searcher = None
        self._schema = schema()
        self._memo_of = None  # the searcher the memo below was computed from
        self._memo: dict = {}
        # Whoosh's readers seek and then read file objects that searchers share (a refreshed
        # searcher reuses the unchanged segments' readers): one thread reads at a time.
        self._reading = threading.RLock()
        self.warming: threading.Thread | None = None

    # -- where the live index is -------------------------------------------------------------

    @property
    def _pointer(self) -> Path:
        return self.root / "CURRENT"

    def _live_name(self) -> str | None:
        try:
            return self._pointer.read_text().strip() or None
        except FileNotFoundError:
            return None

    def exists(self) -> bool:
        name = self._live_name()
        if name and self._live is not None and self._live[0] == name:
            return True  # already open (opening its table of contents again costs 0.6 ms)
        return bool(name) and index.exists_in(str(self.root / name))

    def _index(self) -> index.Index:
        name = self._live_name()
        if not name:
            self._create_live()
            name = self._live_name()
        if self._live is None or self._live[0] != name:
            try:
                self._live = (name, index.open_dir(str(self.root / name)))
            except Exception as exc:  # any failure to open means "unavailable"
                raise SearchUnavailable(
                    f"cannot open the search index in {self.root}: {exc}"
                ) from exc
            self._searcher = None
        return self._live[1]

    def _create_live(self) -> None:
        name = self._new_folder()
        index.create_in(str(self.root / name), self._schema)
        self._swap(name)

    def _new_folder(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        name = f"ix-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        (self.root / name).mkdir()
        return name

    def _swap(self, name: str) -> None:
        tmp = self.root / f"CURRENT.{os.getpid()}.tmp"
        tmp.write_text(name)
        os.replace(tmp, self._pointer)
        self._remove_old(keep={name, *([self._live[0]] if self._live else [])})

    def _remove_old(self, keep: set[str]) -> None:
        folders = sorted(
            (p for p in self.root.glob("ix-*") if p.is_dir()), key=lambda p: p.stat().st_mtime
        )
        # The newest two stay: readers may still hold the previous index for a moment.
        for p in folders[:-2]:
            if p.name not in keep:
                shutil.rmtree(p, ignore_errors=True)

    def searcher(self):  # type: ignore[no-untyped-def]
        """The process's searcher, refreshed when the index changed (cheap when it did not)."""
        with self._lock:
            if not self.exists():
                raise SearchUnavailable(f"no search index in {self.root} (run rebuild_index)")
            ix = self._index()
            previous = self._searcher
            if previous is None:
                self._searcher = ix.searcher()
            elif not previous.up_to_date():
                self._searcher = previous.refresh()
            s = self._searcher
            if s is previous:
                return s
            plan = self._warming_plan()
            if not plan[0]:
                return s
        self.warming = threading.Thread(target=self._warm, args=(s, *plan), daemon=True)
        self.warming.start()
        return s

    # -- warming a new searcher --------------------------------------------------------------

    def _warming_plan(self) -> tuple[list[tuple], list[Query]]:
        """What the previous searcher had computed (its memo keys and its most recently used
        leaves), to compute again for the next one, as Solr's autowarming does: the first
        searches after an index change (an admin edit, a new release) would otherwise pay for
        them, up to a third of a second each. A process that never searched (an importer,
        the index worker) has nothing to warm."""
        keys = list(self._memo)
        leaves = self._memo.get(("leaves",))
        return (
            sorted(keys, key=lambda k: _WARM_ORDER.index(k[0]) if k[0] in _WARM_ORDER else 9),
            leaves.recent(WARM_POSTINGS) if leaves else [],
        )

    def warm(self, release: dt.date | None = None) -> None:
        with self._reading:  # a refresh must not close readers a search is using
            s = self.searcher()
        keys = [("kinds",), ("scope", release), ("catalogue", release), ("dictionary",)]
        self._warm(s, keys, self._frequent_leaves(s, WARM_START_POSTINGS))

    def _frequent_leaves(self, s, postings: int) -> list[Query]:  # type: ignore[no-untyped-def]
        """The leaves of the words with the most occurrences in each field, those in the
        most documents first, up to that many postings in all."""
        reader, found = s.reader(), []
        for name, boost in (f for fields in FIELDS.values() for f in fields):
            with self._reading:
                if self._searcher is not s:
                    return []
                frequent = reader.most_frequent_terms(name, number=60)
                for _, term in frequent:
                    text = term.decode() if isinstance(term, bytes) else term
                    found.append((reader.doc_frequency(name, text), Term(name, text, boost=boost)))
        found.sort(key=lambda f: -f[0])
        out = []
        for size, query in found:
            if size <= postings:
                postings -= size
                out.append(query)
        return out

    def _warm(self, s, keys: list[tuple], leaves: list[Query]) -> None:  # type: ignore[no-untyped-def]
        """Runs in a thread, a step at a time under the reading lock, pausing between steps
        so that waiting searches get the lock (it is not fair); gives up when a newer searcher
        arrives."""
        steps = {
            "kinds": lambda key: self._kind_codes(s),
            "scope": lambda key: self._scope(s, key[1]),
            "catalogue": lambda key: self._catalogue(s, key[1]),
            "dictionary": lambda key: self._dictionary(s),
        }
        try:
            for key in keys:
                with self._reading:
                    if self._searcher is not s:
                        return
                    if key[0] in steps:
                        steps[key[0]](key)
                time.sleep(0.001)
            for query in leaves:
                with self._reading:
                    if self._searcher is not s:
                        return
                    self._leaves(s).leaf(query)
                time.sleep(0.001)
        except Exception:  # a warm-up is an optimisation: the searches compute what they need
            log.warning("warming the search index failed", exc_info=True)

    # -- writing -----------------------------------------------------------------------------

    def _writer(self, ix: index.Index, bulk: bool):  # type: ignore[no-untyped-def]
        if bulk:
            return ix.writer(procs=2, multisegment=True, limitmb=256)
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
                writer.add_document(**_fields(doc))
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        return len(add), len(delete)

    def rebuild(self, docs: Iterable[SearchDocument]) -> int:
        name = self._new_folder()
        ix = index.create_in(str(self.root / name), self._schema)
        writer = self._writer(ix, bulk=True)
        count = 0
        try:
            for doc in docs:
                writer.add_document(**_fields(doc))
                count += 1
        except BaseException:
            writer.cancel()
            shutil.rmtree(self.root / name, ignore_errors=True)
            raise
        writer.commit()
        with self._lock:
            self._swap(name)
        return count

    # -- reading -----------------------------------------------------------------------------

    @_serialized
    def ids(self, kind: str | None = None, groups: Iterable[str] | None = None) -> set[str]:
        if not self.exists():
            return set()
        s = self.searcher()
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

    @_serialized
    def stats(self) -> IndexStats:
        if not self.exists():
            return IndexStats(0, 0, str(self.root))
        s = self.searcher()
        name = self._live_name() or ""
        size = sum(p.stat().st_size for p in (self.root / name).glob("*") if p.is_file())
        counts = s.search(
            Every(), groupedby=sorting.FieldFacet("kind", maptype=sorting.Count), limit=1
        ).groups()
        return IndexStats(s.doc_count(), size, str(self.root / name), dict(counts))

    @_serialized
    def search(self, request: SearchRequest) -> Results:
        s = self.searcher()
        query = self._compile(request, s)
        if request.page < 1:
            request = replace(request, page=1)
        if query is None:
            return Results([], 0, request.page, request.per_page)
        # Whoosh's own collectors walk the query a document at a time (and its block-quality
        # skipping loops forever on some unions of fields); see whoosh_matching for why the
        # leaves are scored once per searcher and combined with numpy instead. Every match is
        # known, so the counts per kind (the kind filters show them) are exact.
        matched, scores = matching.evaluate(query, self._leaves(s))
        scope = self._scope(s, request.release)
        if scope is not None:
            matched &= scope
        codes = self._kind_codes(s)
        per_kind = np.bincount(codes[matched], minlength=len(registered_kinds()) + 1)
        counts = {k: int(n) for k, n in zip(registered_kinds(), per_kind, strict=False) if n}
        kinds = tuple(sorted(request.kinds))
        total = sum(counts.get(k, 0) for k in kinds) if kinds else sum(counts.values())
        if not total:
            return Results([], 0, 1, request.per_page, counts)
        pages = max(1, -(-total // request.per_page))
        if request.page > pages:
            return self.search(replace(request, page=pages))
        if kinds:
            known = registered_kinds()
            matched &= np.isin(codes, [known.index(k) for k in kinds if k in known])
        limit = request.page * request.per_page
        found = searching.Results(s, query, matching.top(scores, np.flatnonzero(matched), limit))
        start = (request.page - 1) * request.per_page
        terms = self._query_terms(s, query)
        hits = [self._hit(found[i], request, terms) for i in range(start, len(found.top_n))]
        return Results(hits, total, request.page, request.per_page, counts)

    @_serialized
    def lookup(
        self, kind: str, *, number: str = "", ref: str = "", release: dt.date | None = None
    ) -> Hit | None:
        s = self.searcher()
        term = Term("number", number.lower()) if number else Term("handle", ref)
        scope = self._scope(s, release)
        code = registered_kinds().index(kind) if kind in registered_kinds() else -1
        codes = self._kind_codes(s)
        for docnum in s.docs_for_query(term):
            if codes[docnum] == code and (scope is None or scope[docnum]):
                found = searching.Results(s, term, [(0.0, docnum)])
                return self._hit(found[0], SearchRequest(groups=()), {})
        return None

    @_serialized
    def suggest(
        self, text: str, *, limit: int = 10, release: dt.date | None = None
    ) -> list[Suggestion]:
        typed = _plain(text)
        if len(typed) < 2 or not self.exists():
            return []
        s = self.searcher()
        keys, entries = self._catalogue(s, release)
        found: list[tuple[tuple, int, str]] = []
        start = bisect.bisect_left(keys, typed)
        for i in range(start, min(start + 400, len(keys))):
            if not keys[i].startswith(typed):
                break
            found.append(((False, len(keys[i])), *entries[i]))
        if len(found) < limit:  # then titles with a word starting so ("bolt" -> Lightning Bolt)
            inner = f" {typed}"
            for key, entry in zip(keys, entries, strict=True):
                if inner in key:
                    found.append(((True, len(key)), *entry))
                    if len(found) >= 400:
                        break
        out: list[Suggestion] = []
        seen: set[tuple[str, str]] = set()
        kinds = s.reader().column_reader("kind")
        found.sort(key=lambda f: (f[0], _kind_order(kinds[f[1]]), f[1]))
        for _, docnum, lang in found:
            fields = s.stored_fields(docnum)
            title = fields.get(f"title_{lang}", "")
            if (fields["kind"], title) in seen:
                continue
            seen.add((fields["kind"], title))
            out.append(
                Suggestion(fields["kind"], title, fields["ref"], fields.get("number", ""), lang)
            )
            if len(out) == limit:
                break
        return out

    def _catalogue(self, s, release: dt.date | None) -> tuple[list[str], list[tuple[int, str]]]:  # type: ignore[no-untyped-def]
        """Every title valid on `release`, folded and sorted, read once per searcher from the
        title columns: a prefix is then a binary search (a Whoosh prefix query over titles
        expands to hundreds of terms and takes tens of milliseconds)."""
        everything = self._memoized(s, ("catalogue", None), lambda: self._read_catalogue(s))
        scope = self._scope(s, release)
        if scope is None:
            return everything

        def build() -> tuple[list[str], list[tuple[int, str]]]:
            keys, entries = everything
            keep = [i for i, (n, _) in enumerate(entries) if scope[n]]
            return [keys[i] for i in keep], [entries[i] for i in keep]

        return self._memoized(s, ("catalogue", release), build)

    def _read_catalogue(self, s) -> tuple[list[str], list[tuple[int, str]]]:  # type: ignore[no-untyped-def]
        """Every title of every release, read once per searcher; a release's catalogue is
        a filter of it. Titles repeat across rule versions, so each is folded once."""
        reader = s.reader()
        live = self._kind_codes(s) < len(registered_kinds())  # not deleted
        folded: dict[str, str] = {}
        rows = []
        for lang in ("en", "fr"):
            for n, title in enumerate(reader.column_reader(f"title_{lang}")):
                if title and live[n]:
                    key = folded.get(title)
                    if key is None:
                        key = folded[title] = _plain(title)
                    rows.append((key, n, lang))
        rows.sort()
        return [r[0] for r in rows], [(r[1], r[2]) for r in rows]

    @_serialized
    def corrections(self, words: Iterable[str]) -> dict[str, str]:
        if not self.exists():
            return {}
        s = self.searcher()
        out = {}
        for word in words:
            folded = analysis.fold(word)
            if len(folded) < 4 or not folded.isalpha() or self._known(s, word):
                continue
            dictionary, frequencies = self._dictionary(s)
            maxdist = 1 if len(folded) <= 5 else 2
            found = process.extract(
                folded, dictionary, scorer=OSA.distance, score_cutoff=maxdist, limit=20
            )
            if found:
                # The closest, then the most frequent: "trampel" -> "trample" (a transposition).
                best = min(found, key=lambda f: (f[1], -frequencies[f[2]]))
                out[word] = best[0]
        return out

    def _known(self, s, word: str) -> bool:  # type: ignore[no-untyped-def]
        """Whether any field holds the word (as that field analyses it)."""
        for name in ("title_en", "title_fr", "body_en", "body_fr"):
            for token in self._schema[name].analyzer(word, mode="query"):
                if s.doc_frequency(name, token.text):
                    return True
        return False

    # -- compiling a request -----------------------------------------------------------------

    def _compile(self, request: SearchRequest, s) -> Query | None:  # type: ignore[no-untyped-def]
        fields = [f for lang, fs in FIELDS.items() if request.lang in (None, lang) for f in fs]
        groups = [self._group(g.items, fields) for g in request.groups]
        groups = [g for g in groups if g is not None]
        if not groups:
            return None
        query: Query = And(groups) if len(groups) > 1 else groups[0]
        excluded = [self._item(i, fields) for i in request.excluded]
        excluded = [e for e in excluded if e is not None]
        if excluded:
            query = AndNot(query, Or(excluded))
        return query

    def _group(self, items: Iterable[Item], fields) -> Query | None:  # type: ignore[no-untyped-def]
        alternatives = [q for q in (self._item(i, fields) for i in items) if q is not None]
        if not alternatives:
            return None
        return Or(alternatives) if len(alternatives) > 1 else alternatives[0]

    def _item(self, item: Item, fields) -> Query | None:  # type: ignore[no-untyped-def]
        clauses: list[Query] = []
        if isinstance(item, PhraseItem):
            text, prefix = item.text, False
        else:
            text, prefix = item.text, item.prefix
            if text[:1].isdigit():
                clauses.append(Term("number", text.lower().rstrip("."), boost=NUMBER_BOOST))
        if prefix:
            stem = analysis.fold(text)
            clauses += [Prefix(f, stem, boost=b) for f, b in PREFIX_FIELDS]
        else:
            for name, boost in fields:
                tokens = [t.text for t in self._schema[name].analyzer(text, mode="query")]
                if len(tokens) == 1:
                    clauses.append(Term(name, tokens[0], boost=boost))
                elif tokens:
                    clauses.append(Phrase(name, tokens, boost=boost))
        if not clauses:
            return None
        return Or(clauses) if len(clauses) > 1 else clauses[0]

    def _memoized(self, s, key: tuple, build):  # type: ignore[no-untyped-def]
        """What `build` computes from searcher `s`, kept until the searcher changes (the
        release scopes, kind sets, title catalogue and spelling dictionary all are)."""
        with self._lock:
            if self._memo_of is not s:
                if s is not self._searcher:  # a replaced searcher: never wipe the live memo
                    return build()
                self._memo_of, self._memo = s, {}
            found = self._memo.get(key)
        if found is None:
            found = build()
            with self._lock:
                if self._memo_of is s:
                    self._make_room()
                    self._memo[key] = found
        return found

    def _make_room(self) -> None:
        """Entries per release (its scope and its catalogue) are dropped, oldest first,
        beyond 32; the others (kinds, leaves, dictionary, the whole catalogue) stay."""
        dated = [k for k in self._memo if len(k) > 1 and k[1] is not None]
        for key in dated[: max(0, len(dated) - (MEMO_RELEASES - 1))]:
            del self._memo[key]

    def forget_leaves(self) -> None:
        """Score every leaf again from now on (the bench measures searches that way: cold)."""
        with self._lock:
            self._memo.pop(("leaves",), None)

    def _dictionary(self, s) -> tuple[list[str], list[int]]:  # type: ignore[no-untyped-def]
        return self._memoized(s, ("dictionary",), lambda: _dictionary(s))

    def _leaves(self, s) -> matching.LeafCache:  # type: ignore[no-untyped-def]
        return self._memoized(s, ("leaves",), lambda: matching.LeafCache(s))

    def _kind_codes(self, s) -> np.ndarray:  # type: ignore[no-untyped-def]
        """Each document's kind as its index in the registered kinds (their count for another
        kind or a deleted document), kept per searcher."""

        def build() -> np.ndarray:
            codes = np.full(s.doc_count_all(), len(registered_kinds()), dtype=np.int8)
            for code, kind in enumerate(registered_kinds()):
                codes[list(s.docs_for_query(Term("kind", kind)))] = code
            return codes

        return self._memoized(s, ("kinds",), build)

    def _scope(self, s, date: dt.date | None):  # type: ignore[no-untyped-def]
        """The documents valid on `date` as a boolean array by document number, kept per
        searcher: a range filter run on every query would cost a third of a second."""
        if date is None:
            return None

        def build() -> np.ndarray:
            mask = np.zeros(s.doc_count_all(), dtype=bool)
            mask[list(s.docs_for_query(self._release_filter(date)))] = True
            return mask

        return self._memoized(s, ("scope", date), build)

    @staticmethod
    def _release_filter(date: dt.date | None) -> Query | None:
        if date is None:
            return None
        day = date.toordinal()
        return And(
            [
                NumericRange("valid_from", None, day),
                NumericRange("valid_to", min(day + 1, OPEN_END), None),
            ]
        )

    # -- results -----------------------------------------------------------------------------

    @staticmethod
    def _query_terms(s, query: Query) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
        """The words the query asks for, by field; a prefix ends with "*"."""
        terms: dict[str, set[str]] = {}
        for leaf in query.leaves():
            for name, text in leaf.iter_all_terms(phrases=True):
                if name in FIELD_LANG:
                    word = text.decode() if isinstance(text, bytes) else text
                    terms.setdefault(name, set()).add(
                        f"{word}*" if isinstance(leaf, Prefix) else word
                    )
        return terms

    def _matched(
        self, fields: dict, terms: dict[str, set[str]], marked: set[str], bodies: bool
    ) -> list[str]:
        """Languages whose fields hold a word of the query: the highlighted snippets say it for
        the bodies (`marked`); titles are read again, being short (cheaper than asking Whoosh
        to record matched terms for every match)."""
        langs = set(marked)
        for name, lang in FIELD_LANG.items():
            wanted, text = terms.get(name), fields.get(name)
            if lang in langs or not wanted or not text:
                continue
            if not bodies and not name.startswith("title_"):
                continue
            prefixes = tuple(w[:-1] for w in wanted if w.endswith("*"))
            for token in self._schema[name].analyzer(text):
                if token.text in wanted or (prefixes and token.text.startswith(prefixes)):
                    langs.add(lang)
                    break
        return sorted(langs)

    def _hit(self, hit, request: SearchRequest, terms: dict[str, set[str]]) -> Hit:  # type: ignore[no-untyped-def]
        fields = hit.fields()
        snippet_en = self._snippet(hit, ("body_en", "extra_en"), request)
        snippet_fr = self._snippet(hit, ("body_fr",), request)
        marked = {lang for lang, s in (("en", snippet_en), ("fr", snippet_fr)) if "<mark>" in s}
        matched = self._matched(fields, terms, marked, bodies=not request.snippets)
        return Hit(
            kind=fields["kind"],
            key=fields["key"],
            ref=fields["ref"],
            title_en=fields.get("title_en", ""),
            title_fr=fields.get("title_fr", ""),
            number=fields.get("number", ""),
            chapter=fields.get("chapter", ""),
            label=fields.get("label", ""),
            date=dt.date.fromisoformat(fields["date"]) if fields.get("date") else None,
            valid_from=_day(fields.get("valid_from", 0)),
            valid_to=_day(fields.get("valid_to", OPEN_END)),
            score=float(hit.score or 0.0),
            snippet_en=snippet_en,
            snippet_fr=snippet_fr,
            matched=tuple(matched),
            text=fields.get("body_en", "")[:300],
        )

    @staticmethod
    def _snippet(hit, names: tuple[str, ...], request: SearchRequest) -> str:  # type: ignore[no-untyped-def]
        text = hit.get(names[0], "")
        if not text:
            return ""
        if request.snippets:
            hit.results.formatter = _Mark()
            hit.results.fragmenter = highlight.ContextFragmenter(maxchars=300, surround=80)
            for name in names:
                if hit.get(name):
                    marked = hit.highlights(name, top=2)
                    if marked:
                        return marked
        return html.escape(text if len(text) <= 300 else text[:300].rsplit(" ", 1)[0] + " …")


def _dictionary(s) -> tuple[list[str], list[int]]:  # type: ignore[no-untyped-def]
    """The words of all titles with their document frequencies, read once per searcher:
    rapidfuzz compares a word with all of them in a few milliseconds (Whoosh's own corrector
    takes a tenth of a second per field here)."""
    counts: dict[str, int] = {}
    reader = s.reader()
    for name in ("title_en", "title_fr"):
        for term, info in reader.iter_field(name):
            text = term.decode() if isinstance(term, bytes) else term
            if text.isalpha() and len(text) > 2:
                counts[text] = counts.get(text, 0) + info.doc_frequency()
    words = sorted(counts)
    return words, [counts[w] for w in words]


def _plain(text: str) -> str:
    """Folded words, apostrophes dropped: how titles and what was typed are compared."""
    return " ".join(_WORD_RE.findall(analysis.fold(text).replace("'", "")))


_WORD_RE = re.compile(r"\w+")


def _kind_order(kind: str) -> int:
    return registered_kinds().index(kind) if kind in registered_kinds() else len(registered_kinds())


def _day(ordinal: int) -> dt.date | None:
    if not ordinal or ordinal >= OPEN_END:
        return None
    return dt.date.fromordinal(ordinal)
