"""The document types apps register: how to build their documents and link to a hit.

kb registers rules and glossary entries (kb/documents.py); rulings registers cards and rulings.
The engine never imports an app that registers here: the registry is how it learns about them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.db.models import Model

from search.documents import Example, Hit, Passage, SearchDocument

#: groups to rebuild (None: every document of the kind) -> the documents.
DocumentBuilder = Callable[[Collection[str] | None], Iterator[SearchDocument]]
#: (hit, release token or None for current) -> the URL of the page it points to.
UrlBuilder = Callable[[Hit, str | None], str]
#: an edited or deleted instance -> the groups whose documents must be rebuilt.
GroupsOf = Callable[[Any], list[str]]
#: the kind's passages for the semantic retriever (its current texts), and a version that
#: changes whenever they may have (the retriever reloads its matrix then).
PassageBuilder = Callable[[], list[Passage]]
PassagesVersion = Callable[[], str]
#: questions its passages answer, in players' words (search.semantic.adapter learns from them).
ExampleBuilder = Callable[[], list[Example]]


@dataclass(frozen=True)
class DocumentType:
    """A kind of document. `aliases` are the words a query's `kind:` filter accepts for it
    (in every language the site speaks); `order` places its results and filters."""

    kind: str
    label: Any  # a lazy translated name, e.g. _("rules")
    documents: DocumentBuilder
    url: UrlBuilder
    models: dict[type[Model], GroupsOf] = field(default_factory=dict)
    versioned: bool = False  # documents carry validity intervals (scoped to a release)
    aliases: tuple[str, ...] = ()
    order: int = 100
    passages: PassageBuilder | None = None  # None: not searched semantically
    passages_version: PassagesVersion | None = None
    examples: ExampleBuilder | None = None  # None: no example questions


_types: dict[str, DocumentType] = {}


def register(doc_type: DocumentType) -> DocumentType:
    """Register a document type: from now on saves of its models re-index their group
    (search.indexing listens to post_save for the models registered here).

    Deletions are not followed by a signal: a delete receiver would stop Django's fast bulk
    deletes the importers rely on; the admin enqueues its deletions itself
    (search.admin.IndexedAdminMixin).
    """
    _types[doc_type.kind] = doc_type
    _indexed_models.cache_clear()
    return doc_type


def document_types() -> list[DocumentType]:
    """Registered types in result order."""
    return sorted(_types.values(), key=lambda t: t.order)


def document_type(kind: str) -> DocumentType | None:
    return _types.get(kind)


def kinds() -> tuple[str, ...]:
    """Registered kinds in result order: how results are grouped and filters listed."""
    return tuple(t.kind for t in document_types())


def kind_named(word: str) -> str | None:
    """The kind a `kind:` filter word names (its name, or one of its aliases), if any."""
    word = word.lower()
    for doc_type in _types.values():
        if word == doc_type.kind or word in doc_type.aliases:
            return doc_type.kind
    return None


@lru_cache(maxsize=1)
def _indexed_models() -> tuple[type[Model], ...]:
    return tuple({model for t in _types.values() for model in t.models})


def is_indexed(instance: object) -> bool:
    """Whether saving `instance` can change indexed documents."""
    return isinstance(instance, _indexed_models())
