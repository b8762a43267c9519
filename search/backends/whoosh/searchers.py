"""A process's searcher: opened once, refreshed when the index changes, with what it computed
kept beside it (per-searcher memo) and warmed in a background thread.

Why one thread reads at a time: Whoosh's readers seek and then read file objects that
searchers share (a refreshed searcher reuses the unchanged segments' readers); threads
reading at once read each other's blocks.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from whoosh.query import Query, Term

from search.backend import SearchUnavailable
from search.backends.whoosh import scoring, segments, suggesting
from search.backends.whoosh.compiling import release_filter
from search.backends.whoosh.folders import LiveFolder
from search.backends.whoosh.schema import language_fields
from search.registry import kinds as registered_kinds

log = logging.getLogger(__name__)
#: Postings of the previous searcher's most recent leaves scored again for a new one (about
#: a second of a background thread's time).
WARM_POSTINGS = 300_000
#: Postings of the most frequent words scored when a web process starts (a few seconds of a
#: background thread's time; the words any query of common terms needs).
WARM_START_POSTINGS = 1_000_000
MEMO_RELEASES = 32  # entries per release kept per searcher (a scope and a catalogue each)
_WARM_ORDER = ("kinds", "collapse", "scope", "catalogue", "dictionary", "names")


def serialized(method: Callable) -> Callable:
    """Run under the reading lock (see the module's docstring)."""

    @functools.wraps(method)
    def reading(self, *args, **kwargs):
        with self._reading:
            return method(self, *args, **kwargs)

    return reading


class Searchers:
    """The searcher lifecycle, its memo and its warming; WhooshBackend's reading half."""

    folder: LiveFolder

    def _init_searchers(self) -> None:
        self._lock = threading.Lock()
        self._searcher: Any = None
        self._memo_of: Any = None  # the searcher the memo below was computed from
        self._memo: dict = {}
        self._reading = threading.RLock()
        self.warming: threading.Thread | None = None

    def _index(self):
        ix, reopened = self.folder.open()
        if reopened:
            self._searcher = None
        return ix

    def searcher(self):
        """The process's searcher, refreshed when the index changed (cheap when it did not)."""
        with self._lock:
            if not self.folder.exists():
                if self.folder.building():
                    raise SearchUnavailable(
                        f"the search index in {self.folder.root} is being built", building=True
                    )
                raise SearchUnavailable(
                    f"no search index in {self.folder.root} (run rebuild_index)"
                )
            ix = self._index()
            previous = self._searcher
            if previous is None:
                self._searcher = ix.searcher()
            elif not previous.up_to_date():
                self._searcher = previous.refresh()
            s = self._searcher
            if s is previous:
                return s
            segments.forget_others(s)
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
        keys = [
            ("kinds",),
            ("collapse",),
            ("scope", release),
            ("catalogue", release),
            ("dictionary",),
        ]
        self._warm(s, keys, self._frequent_leaves(s, WARM_START_POSTINGS))

    def _frequent_leaves(self, s, postings: int) -> list[Query]:
        """The leaves of the words with the most occurrences in each field, those in the
        most documents first, up to that many postings in all."""
        reader, found = s.reader(), []
        for name, boost in (f for fields in language_fields().values() for f in fields):
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

    def _warm(self, s, keys: list[tuple], leaves: list[Query]) -> None:
        """Runs in a thread, a step at a time under the reading lock, pausing between steps
        so that waiting searches get the lock (it is not fair); gives up when a newer searcher
        arrives."""
        steps = {
            "kinds": lambda key: self._kind_codes(s),
            "collapse": lambda key: self._collapse_codes(s),
            "scope": lambda key: self._scope(s, key[1]),
            "catalogue": lambda key: self._catalogue(s, key[1]),
            "dictionary": lambda key: self._dictionary(s),
            "names": lambda key: self._names(s, key[1]),
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

    # -- what a searcher computed ------------------------------------------------------------

    def _memoized(self, s, key: tuple, build):
        """What `build` computes from searcher `s`, kept until the searcher changes (the
        release scopes, kind sets, title catalogue and spelling dictionary all are)."""
        with self._lock:
            # A replaced searcher: never wipe the live memo (and build outside the lock: a
            # build may ask for another memoized table, and the lock is not reentrant).
            replaced = self._memo_of is not s and s is not self._searcher
            if not replaced and self._memo_of is not s:
                self._memo_of, self._memo = s, {}
            found = None if replaced else self._memo.get(key)
        if replaced:
            return build()
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
        dated = [k for k in self._memo if k[0] in ("scope", "catalogue") and k[1] is not None]
        for key in dated[: max(0, len(dated) - (MEMO_RELEASES - 1))]:
            del self._memo[key]

    def forget_leaves(self) -> None:
        """Score every leaf again from now on (the bench measures searches that way: cold)."""
        with self._lock:
            self._memo.pop(("leaves",), None)

    def _dictionary(self, s) -> tuple[list[str], list[int]]:
        return self._memoized(s, ("dictionary",), lambda: suggesting.read_dictionary(s))

    def _leaves(self, s) -> scoring.LeafCache:
        return self._memoized(s, ("leaves",), lambda: scoring.LeafCache(s))

    def _kind_codes(self, s) -> np.ndarray:
        """Each document's kind as its index in the registered kinds (their count for another
        kind or a deleted document), kept per searcher."""
        kinds = tuple(registered_kinds())
        return self._memoized(s, ("kinds",), lambda: segments.kind_codes(s, kinds))

    def _collapse_codes(self, s) -> np.ndarray:
        """Each document's collapse group as a number, -1 for a document alone in its group
        (most are), kept per searcher."""
        return self._memoized(s, ("collapse",), lambda: segments.collapse_codes(s))

    def _scope(self, s, date: dt.date | None):
        """The documents valid on `date` as a boolean array by document number, kept per
        searcher: a range filter run on every query would cost a third of a second."""
        if date is None:
            return None

        return self._memoized(
            s, ("scope", date), lambda: segments.matching(s, ("scope", date), release_filter(date))
        )

    def _names(self, s, kind: str) -> frozenset[str]:
        """The names of the documents of `kind` (see suggesting.read_names), per searcher."""
        code = registered_kinds().index(kind)
        return self._memoized(
            s, ("names", kind), lambda: suggesting.read_names(s, self._kind_codes(s), code)
        )

    def _catalogue(self, s, release: dt.date | None) -> suggesting.Catalogue:
        """Every title valid on `release`, folded and sorted (see suggesting)."""
        everything = self._memoized(
            s,
            ("catalogue", None),
            lambda: segments.catalogue(
                s, suggesting.plain, self._kind_codes(s) < len(registered_kinds())
            ),
        )
        scope = self._scope(s, release)
        if scope is None:
            return everything
        return self._memoized(
            s, ("catalogue", release), lambda: suggesting.scoped(everything, scope)
        )
