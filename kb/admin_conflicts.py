"""Edit conflicts in the admin: never save silently over someone else's change.

Why: two maintainers opening the same object each get a form filled from the database; without
a check, the second save writes the values the second maintainer saw back over the first one's
work. `EditConflictMixin` puts a stamp of every field's value into the change form (a hidden
field) and, on save, compares it with what the database holds now. A field changed meanwhile
refuses the save with a message showing both values (theirs, now saved; yours, submitted); the
form comes back with a fresh stamp, so saving again after reading it is a deliberate choice.

Generic on purpose (no model field needed): any app's ModelAdmin can put it first in its bases.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.http import HttpRequest
from django.utils.translation import gettext as _

STAMP_FIELD = "_edit_stamp"


def _digest(value: Any) -> str:
    raw = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:12]


def _values(instance: Model, names: list[str]) -> dict[str, Any]:
    out = {}
    for name in names:
        try:
            field = instance._meta.get_field(name)
        except Exception:  # a form-only field: not stored, nobody else can change it
            continue
        if getattr(field, "concrete", False):
            out[name] = field.value_from_object(instance)
    return out


def edit_stamp(instance: Model, names: list[str]) -> str:
    """A compact, opaque record of the stored value of each named field."""
    digests = {n: _digest(v) for n, v in _values(instance, names).items()}
    return base64.urlsafe_b64encode(json.dumps(digests).encode()).decode()


def _read_stamp(stamp: str) -> dict[str, str] | None:
    try:
        found = json.loads(base64.urlsafe_b64decode(stamp.encode()).decode())
    except (ValueError, UnicodeDecodeError):
        return None
    return found if isinstance(found, dict) else None


def _show(value: Any) -> str:
    text = "" if value is None else str(value)
    text = text if len(text) <= 300 else text[:300] + "…"
    return f"“{text}”" if text else _("(empty)")


class ConflictFormMixin:
    """Form side of the check (the admin mixin builds forms with it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        instance = getattr(self, "instance", None)
        if instance is not None and instance.pk is not None and STAMP_FIELD in self.fields:
            # The row as stored, not the instance: a revert form is filled from an earlier
            # state (django-simple-history), and that is no one else's change.
            stored = type(instance)._default_manager.filter(pk=instance.pk).first()
            self.fields[STAMP_FIELD].initial = edit_stamp(stored or instance, self._stamped())

    def _stamped(self) -> list[str]:
        return [n for n in self.fields if n != STAMP_FIELD]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        instance = getattr(self, "instance", None)
        if instance is None or instance.pk is None or not self.is_bound:
            return cleaned
        seen = _read_stamp(self.data.get(self.add_prefix(STAMP_FIELD), "") or "")
        if seen is None:
            raise ValidationError(
                _("This form lost its edit stamp: reload the page and make your change again.")
            )
        names = self._stamped()
        # What the database holds now (a revert form's instance is an earlier state).
        stored = type(instance)._default_manager.filter(pk=instance.pk).first() or instance
        now = _values(stored, names)
        conflicts = [n for n, v in now.items() if n in seen and seen[n] != _digest(v)]
        if conflicts:
            fresh = edit_stamp(stored, names)
            data = self.data.copy()
            data[self.add_prefix(STAMP_FIELD)] = fresh
            self.data = data
            for name in conflicts:
                self.add_error(
                    name if name in self.fields else None,
                    _(
                        "Someone else changed this field since you opened the form. "
                        "Saved now: %(theirs)s. Yours: %(yours)s. Save again to replace "
                        "their value with yours, or reload to keep theirs."
                    )
                    % {"theirs": _show(now[name]), "yours": _show(cleaned.get(name))},
                )
        return cleaned


class EditConflictMixin:
    """Put first in a ModelAdmin's bases: change forms refuse to overwrite a concurrent edit."""

    def get_exclude(self, request: HttpRequest, obj: Model | None = None):
        # Not a model field: the form factory must not look for it on the model.
        return [*(super().get_exclude(request, obj) or []), STAMP_FIELD]

    def get_fieldsets(self, request: HttpRequest, obj: Model | None = None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or any(STAMP_FIELD in opts.get("fields", ()) for _name, opts in fieldsets):
            return fieldsets
        *head, (name, opts) = fieldsets
        return [*head, (name, {**opts, "fields": [*opts.get("fields", ()), STAMP_FIELD]})]

    def get_form(self, request: HttpRequest, obj: Model | None = None, **kwargs: Any):
        form = super().get_form(request, obj, **kwargs)
        if obj is None:
            return form
        return type(
            form.__name__,
            (ConflictFormMixin, form),
            {STAMP_FIELD: forms.CharField(widget=forms.HiddenInput, required=False)},
        )
