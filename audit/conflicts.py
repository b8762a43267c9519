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
from django.core.exceptions import FieldDoesNotExist, ValidationError
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


def _related(instance: Model, name: str, value: Any) -> Any:
    """A relation's object rather than its id ("2010-04-23", not "93")."""
    try:
        field = instance._meta.get_field(name)
    except FieldDoesNotExist:  # a form field that is no model field
        return value
    if value is not None and getattr(field, "many_to_one", False):
        return getattr(instance, name, value)
    return value


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
                    % {
                        "theirs": _show(_related(stored, name, now[name])),
                        "yours": _show(cleaned.get(name)),
                    },
                )
        return cleaned


def stamped_form(form: type[forms.BaseForm]) -> type[forms.BaseForm]:
    """`form` with the hidden edit stamp and the check (for change forms and inline forms)."""
    if issubclass(form, ConflictFormMixin):
        return form
    return type(
        form.__name__,
        (ConflictFormMixin, form),
        {STAMP_FIELD: forms.CharField(widget=forms.HiddenInput, required=False)},
    )


class RowConflictFormMixin:
    """The check for the rows of a change list's list_editable form set.

    A change list renders only the editable fields of each row (and its id): there is no
    place for a stamp. Each editable field instead carries the value it was shown with
    (Django's `show_hidden_initial`: a hidden "initial-" input beside it), which also makes
    an untouched row count as unchanged (not saved). A row the maintainer changed whose
    stored values differ from those shown is refused with both values, per field."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pk_name = self._meta.model._meta.pk.name
        for name, field in self.fields.items():
            if name != pk_name:
                field.show_hidden_initial = True

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        instance = getattr(self, "instance", None)
        if instance is None or instance.pk is None or not self.is_bound or not self.has_changed():
            return cleaned
        stored = type(instance)._default_manager.filter(pk=instance.pk).first()
        if stored is None:
            return cleaned
        data = None
        for name, field in self.fields.items():
            if not field.show_hidden_initial:
                continue
            key = self.add_initial_prefix(name)
            if key not in self.data:
                raise ValidationError(
                    _("This list lost the values it was shown with: reload the page.")
                )
            now = instance._meta.get_field(name).value_from_object(stored)
            shown = field.hidden_widget().value_from_datadict(self.data, self.files, key)
            if not field.has_changed(now, shown):
                continue
            data = data if data is not None else self.data.copy()
            data[key] = "" if now is None else str(field.prepare_value(now))
            self.add_error(
                name,
                _(
                    "Someone else changed this field since you opened the list. "
                    "Saved now: %(theirs)s. Yours: %(yours)s. Save again to replace "
                    "their value with yours, or reload to keep theirs."
                )
                % {"theirs": _show(now), "yours": _show(cleaned.get(name))},
            )
        if data is not None:
            self.data = data  # shown again with the stored values: saving again is deliberate
        return cleaned


class InlineEditConflictMixin:
    """Put first in an InlineModelAdmin's bases: each inline row carries its own edit stamp
    (rendered as a hidden field of the row) and is checked like a change form."""

    def get_fieldsets(self, request: HttpRequest, obj: Model | None = None):
        fieldsets = super().get_fieldsets(request, obj)
        if any(STAMP_FIELD in opts.get("fields", ()) for _name, opts in fieldsets):
            return fieldsets
        *head, (name, opts) = fieldsets
        return [*head, (name, {**opts, "fields": [*opts.get("fields", ()), STAMP_FIELD]})]

    def get_formset(self, request: HttpRequest, obj: Model | None = None, **kwargs: Any):
        kwargs["form"] = stamped_form(kwargs.get("form", self.form))
        return super().get_formset(request, obj, **kwargs)


class EditConflictMixin:
    """Put first in a ModelAdmin's bases: change forms refuse to overwrite a concurrent edit,
    and so do the rows of a list_editable change list."""

    def get_changelist_form(self, request: HttpRequest, **kwargs: Any):
        form = super().get_changelist_form(request, **kwargs)
        if issubclass(form, RowConflictFormMixin):
            return form
        return type(form.__name__, (RowConflictFormMixin, form), {})

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
        return stamped_form(form)
