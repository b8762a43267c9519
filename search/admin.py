"""Admin deletions follow the index too (saves do, through post_save; see registry.register)."""

from __future__ import annotations

from typing import Any

from django.db.models import Model, QuerySet
from django.http import HttpRequest

from search.indexing import enqueue, groups_touched


class IndexedAdminMixin:
    """Put first in a ModelAdmin's bases: deleting objects re-indexes the groups they were in
    (computed before they are gone), in the admin's own transaction."""

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        touched = groups_touched(obj)
        super().delete_model(request, obj)
        _enqueue(touched)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        touched = [t for obj in queryset for t in groups_touched(obj)]
        super().delete_queryset(request, queryset)
        _enqueue(touched)


def _enqueue(touched: list[tuple[str, list[str]]]) -> None:
    by_kind: dict[str, set[str]] = {}
    for kind, groups in touched:
        by_kind.setdefault(kind, set()).update(groups)
    for kind, groups in by_kind.items():
        enqueue(kind, groups)
