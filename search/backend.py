"""The interface every search backend implements, and how the configured one is found.

Shaped like Wagtail's modelsearch backends: index, delete, search, suggest, rebuild; the
bookkeeping that keeps the index in step with the database (outbox, sync, check) lives in
search.indexing and only needs `ids()` from a backend. A new backend (PostgreSQL full-text,
OpenSearch) implements this class and passes tests/search/test_contract.py.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.utils.module_loading import import_string

from search.documents import Hit, Results, SearchDocument
from search.syntax import Group, Item


@dataclass(frozen=True)
class SearchRequest:
    """A parsed query, ready for a backend: stop words already dropped (one policy for every
    field), French vocabulary already expanded, filters resolved."""

    groups: tuple[Group, ...]
    excluded: tuple[Item, ...] = ()
    kinds: tuple[str, ...] = ()
    release: dt.date | None = None  # versioned documents valid on this date; None: all
    lang: str | None = None  # only fields of this language
    page: int = 1
    per_page: int = 20
    snippets: bool = True
    #: Groups a document must match (0: all of them). Fewer than all ranks the documents
    #: matching more groups first (a coordination factor: matched / asked).
    min_match: int = 0
    #: (kind, factor) score multipliers: which kinds a query is more likely about.
    kind_weights: tuple[tuple[str, float], ...] = ()
    #: A factor on the weight of titles (headings, terms, names) against bodies.
    title_weight: float = 1.0


@dataclass(frozen=True)
class Suggestion:
    kind: str
    title: str
    ref: str
    number: str = ""
    lang: str = "en"


@dataclass
class IndexStats:
    documents: int
    size_bytes: int
    location: str
    by_kind: dict[str, int] = field(default_factory=dict)


class SearchUnavailable(RuntimeError):
    """No index has been built yet (or it cannot be read). `building`: a first build is
    running, so the index is coming (what a first `make run` shows for a minute or two), not
    a fault an operator must see to."""

    def __init__(self, message: str, *, building: bool = False) -> None:
        super().__init__(message)
        self.building = building


class SearchBackend(ABC):
    @abstractmethod
    def exists(self) -> bool: ...

    @abstractmethod
    def update(
        self, add: Iterable[SearchDocument] = (), delete: Iterable[str] = (), *, bulk: bool = False
    ) -> tuple[int, int]:
        """Delete documents by id and add others in one commit (readers never see a document
        missing between the two); `bulk` hints at a large batch. Returns (added, deleted)."""

    def index(self, docs: Iterable[SearchDocument], *, bulk: bool = False) -> int:
        return self.update(docs, (), bulk=bulk)[0]

    def delete(self, doc_ids: Iterable[str]) -> int:
        return self.update((), doc_ids)[1]

    @abstractmethod
    def ids(self, kind: str | None = None, groups: Iterable[str] | None = None) -> set[str]:
        """Ids of the indexed documents, of a kind or of some groups (kind:group)."""

    @abstractmethod
    def search(self, request: SearchRequest) -> Results: ...

    @abstractmethod
    def lookup(
        self, kind: str, *, number: str = "", ref: str = "", release: dt.date | None = None
    ) -> Hit | None:
        """One document of a kind by its rule number or its ref (valid on `release`)."""

    def lookup_many(
        self, wanted: Iterable[tuple[str, str, bool]], *, release: dt.date | None = None
    ) -> dict[tuple[str, str], Hit]:
        """Several documents at once, each (kind, key, whether the key is a rule number, else
        a ref), found ones by (kind, key): a question's page looks up a dozen or more of the
        retriever's answers, which a backend may find for the price of one."""
        out: dict[tuple[str, str], Hit] = {}
        for kind, key, is_number in wanted:
            hit = self.lookup(
                kind, number=key if is_number else "", ref="" if is_number else key, release=release
            )
            if hit is not None:
                out[(kind, key)] = hit
        return out

    def names_in(self, text: str, *, kind: str) -> list[str]:
        """The titles of documents of `kind` that `text` names (a whole title, a face of a
        "A // B" title, or the part of a title before its comma: "Atraxa"), folded, longest
        first. A backend without a title catalogue names none."""
        return []

    @abstractmethod
    def suggest(
        self,
        text: str,
        *,
        limit: int = 10,
        release: dt.date | None = None,
        inner: bool = True,
    ) -> list[Suggestion]:
        """Titles (rule headings, glossary terms, card names) starting with what was typed,
        then (`inner`) titles with a word starting so."""

    @abstractmethod
    def corrections(self, words: Iterable[str]) -> dict[str, str]:
        """Misspelt words -> the closest indexed word (a did-you-mean, not a fuzzy search)."""

    @abstractmethod
    def rebuild(self, docs: Iterable[SearchDocument]) -> int:
        """Build a fresh index beside the live one and swap it in atomically: searches during a
        rebuild keep answering from the old index."""

    @abstractmethod
    def stats(self) -> IndexStats: ...

    def clean_up(self) -> list[str]:
        """Remove what an interrupted rebuild left behind (called with the writer lock held);
        return what was removed. A backend that leaves nothing behind has nothing to do."""
        return []

    def warm(self, release: dt.date | None = None) -> None:  # noqa: B027 - optional
        """Open the index and compute what the first searches of a new process would (web
        processes run it in a thread at start); a backend with nothing to warm ignores it."""


@lru_cache(maxsize=8)
def _backend(path: str, location: str) -> SearchBackend:
    return import_string(path)(Path(location))


def get_backend() -> SearchBackend:
    """The configured backend (settings.KB_SEARCH_BACKEND), one instance per process and
    location: web processes open the index once."""
    path = getattr(settings, "KB_SEARCH_BACKEND", "search.backends.whoosh.backend.WhooshBackend")
    return _backend(path, str(settings.KB_INDEX_DIR))
