"""The document types apps register: how to build their documents and link to a hit.

kb registers rules and glossary entries (kb/documents.py); rulings registers cards and rulings.
kb never imports an app that registers here: the registry is how it learns about them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Model
from django.db.models.signals import post_save

from .documents import Hit, SearchDocument

#: groups to rebuild (None: every document of the kind) -> the documents.
DocumentBuilder = Callable[[Collection[str] | None], Iterator[SearchDocument]]
#: (hit, release token or None for current) -> the URL of the page it points to.
UrlBuilder = Callable[[Hit, str | None], str]
#: an edited or deleted instance -> the groups whose documents must be rebuilt.
GroupsOf = Callable[[Any], list[str]]


@dataclass(frozen=True)
class DocumentType:
    kind: str
    label: Any  # a lazy translated name, e.g. _("rules")
    documents: DocumentBuilder
    url: UrlBuilder
    models: dict[type[Model], GroupsOf] = field(default_factory=dict)
    versioned: bool = False  # documents carry validity intervals (scoped to a release)


_types: dict[str, DocumentType] = {}


def register(doc_type: DocumentType) -> DocumentType:
    """Register a document type; saves of its models re-index their group from now on.

    Only post_save is connected: a delete receiver would stop Django's fast bulk deletes the
    importers rely on; the admin enqueues its deletions itself (kb.search.admin.IndexedAdminMixin).
    """
    _types[doc_type.kind] = doc_type
    for model in doc_type.models:
        post_save.connect(_saved, sender=model, dispatch_uid=f"kb-search-{model.__name__}")
    return doc_type


def _saved(sender, instance, raw=False, **kwargs) -> None:  # type: ignore[no-untyped-def]
    if raw:  # fixtures loading raw rows are followed by a rebuild
        return
    from .indexing import enqueue_instance

    enqueue_instance(instance)


def document_types() -> list[DocumentType]:
    return list(_types.values())


def document_type(kind: str) -> DocumentType | None:
    return _types.get(kind)


def kinds() -> list[str]:
    return list(_types)
