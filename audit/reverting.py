"""Reverting to an earlier state through the same services as an edit.

django-simple-history's revert form is bound to the earlier state itself, so the form sees no
change and the services (which recompute, mark and relink by what changed) would see none:
what changed is what differs from the row as stored now.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from simple_history.admin import SimpleHistoryAdmin


def differing_fields(obj: Any) -> list[str]:
    """The names of `obj`'s fields whose values differ from its stored row."""
    model = type(obj)
    current = model._default_manager.get(pk=obj.pk)
    return [
        f.name
        for f in model._meta.concrete_fields
        if getattr(current, f.attname) != getattr(obj, f.attname)
    ]


class RevertingAdmin(SimpleHistoryAdmin):
    """History views and revert; `changed_fields` tells save_model what a save changes, for
    an edit and a revert alike."""

    def history_form_view(self, request: HttpRequest, object_id, version_id, extra_context=None):
        request._reverting = True  # type: ignore[attr-defined]
        return super().history_form_view(request, object_id, version_id, extra_context)

    def reverting(self, request: HttpRequest) -> bool:
        return getattr(request, "_reverting", False)

    def changed_fields(self, request: HttpRequest, obj: Any, form: Any) -> list[str]:
        if self.reverting(request) and obj.pk is not None:
            return differing_fields(obj)
        return list(form.changed_data)
