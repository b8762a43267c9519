"""Admin for the rules archive: maintainers edit texts; the archive's structure stays derived.

Every write goes through kb.editing (texts, examples, glossary, vocabulary) or the importer
(removing a release), so hashes, change kinds, references, the index, the caches and other apps
follow one path. What imports derive (intervals, hashes, lineage keys, numbers, references) is
shown read-only: edited by hand it would break the archive's invariants.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from simple_history.admin import SimpleHistoryAdmin

from search.admin import IndexedAdminMixin

from . import editing
from .admin_conflicts import EditConflictMixin, InlineEditConflictMixin
from .admin_french import FrenchStateFilter, french_queue_counts
from .admin_publish import PublishAdminMixin
from .admin_queues import register_french_queues, register_queue
from .admin_translation import LocalTabbedStackedInline, LocalTabbedTranslationAdmin
from .archive.importer import Importer, ImportRefused
from .models import (
    Anomaly,
    Example,
    GlossaryTerm,
    GlossaryVersion,
    ImportRecord,
    Lineage,
    Reference,
    Release,
    RuleNumber,
    RuleVersion,
    VocabularyTerm,
)
from .models.glossary import alias_errors
from .models.rules import ExampleOrigin

_EDIT_MARKS = ["source_text", "en_edited", "fr_edited", "edited_by", "edited_at"]
_DERIVED = [
    "valid_from",
    "valid_to",
    "text_hash",
    "folded_hash",
    "masked_hash",
    "examples_hash",
    "change",
    "wording_since",
]


def _user(request: HttpRequest) -> str:
    return request.user.get_username() if request.user.is_authenticated else ""


class ReadOnlyAdmin(admin.ModelAdmin):
    """Derived or recorded data: viewable, never added, changed or deleted by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class NoAddDeleteMixin:
    """Rows come from imports: an added or deleted row would break a lineage's intervals."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# -- releases ------------------------------------------------------------------------------


@admin.register(Release)
class ReleaseAdmin(
    PublishAdminMixin, EditConflictMixin, SimpleHistoryAdmin, LocalTabbedTranslationAdmin
):
    """Names and texts of a release are editable; its date and checksum key the archive.
    Deleting goes through the importer's removal path (its neighbours' intervals re-link);
    new releases are published from an uploaded file (kb.admin_publish)."""

    list_display = ["effective_date", "set_name", "set_code", "imported_at"]
    search_fields = ["set_name_en", "set_name_fr", "set_code"]
    readonly_fields = ["effective_date", "sha256", "counts", "imported_at", "source"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # releases are imported (import_rules), never typed in

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple:
        """The removal service deletes the release's own rows and re-links its neighbours'
        (their import records stay): what the page lists is the releases themselves."""
        names = [f"{Release._meta.verbose_name}: {obj}" for obj in objs]
        return names, {Release._meta.verbose_name_plural: len(names)}, set(), []

    def delete_model(self, request: HttpRequest, obj: Release) -> None:
        _remove_releases(request, [obj.effective_date])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Release]) -> None:
        _remove_releases(request, list(queryset.values_list("effective_date", flat=True)))


def _remove_releases(request: HttpRequest, dates: list) -> None:
    importer = Importer(user=_user(request))
    for date in sorted(dates, reverse=True):
        try:
            importer.remove(date)
        except ImportRefused as exc:
            messages.error(request, str(exc))


# -- lineages and numbers: derived by imports ------------------------------------------------


class NumberInline(admin.TabularInline):
    model = RuleNumber
    extra = 0
    fields = ["number", "valid_from", "valid_to", "previous_number"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Lineage)
class LineageAdmin(IndexedAdminMixin, ReadOnlyAdmin):
    list_display = ["key", "kind"]
    search_fields = ["key", "numbers__number"]
    list_filter = ["kind"]
    inlines = [NumberInline]


@admin.register(RuleNumber)
class RuleNumberAdmin(IndexedAdminMixin, ReadOnlyAdmin):
    list_display = ["number", "valid_from", "valid_to", "previous_number", "lineage"]
    list_select_related = ["lineage"]
    search_fields = ["number"]
    list_filter = ["kind"]


# -- rule versions and examples: maintainers' texts ------------------------------------------


class ExampleFormSet(BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or not form.cleaned_data:
                continue
            example = form.instance
            if (
                form.cleaned_data.get("DELETE")
                and example.pk
                and example.origin != ExampleOrigin.MAINTAINER
            ):
                raise ValidationError(
                    f"Example {example.position + 1} is printed by the official source: "
                    "edit its text instead of deleting it."
                )
            empty = not (form.cleaned_data.get("text_en") or "").strip()
            if not form.cleaned_data.get("DELETE") and form.has_changed() and empty:
                form.add_error("text_en", "An example needs an English text.")


class ExampleInline(InlineEditConflictMixin, LocalTabbedStackedInline):
    model = Example
    formset = ExampleFormSet
    extra = 0
    fields = ["text", "origin", "position"]
    readonly_fields = ["origin", "position"]


class RuleVersionForm(forms.ModelForm):
    class Meta:
        model = RuleVersion
        fields = ["text", "fr_status", "fr_release"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if "text_en" in self.fields and not (cleaned.get("text_en") or "").strip():
            self.add_error("text_en", "The English text cannot be empty.")
        if cleaned.get("fr_status") and not (cleaned.get("text_fr") or "").strip():
            self.add_error("fr_status", "A French status needs a French text.")
        return cleaned


@admin.register(RuleVersion)
class RuleVersionAdmin(
    EditConflictMixin, NoAddDeleteMixin, SimpleHistoryAdmin, LocalTabbedTranslationAdmin
):
    form = RuleVersionForm
    list_display = ["lineage", "valid_from", "valid_to", "change", "wording_since", "fr_status"]
    list_select_related = ["lineage"]
    search_fields = ["lineage__key", "text_en", "text_fr"]
    list_filter = [FrenchStateFilter, "change", "fr_status", "en_edited", "fr_edited"]
    raw_id_fields = ["fr_release"]
    readonly_fields = ["lineage", *_DERIVED, *_EDIT_MARKS]
    fields = ["lineage", "text", "fr_status", "fr_release", *_DERIVED, *_EDIT_MARKS]
    inlines = [ExampleInline]

    def save_model(self, request: HttpRequest, obj: RuleVersion, form: Any, change: bool) -> None:
        data = form.cleaned_data
        editing.edit_rule_version(
            version=obj,
            user=_user(request),
            text_en=data.get("text_en"),
            text_fr=data.get("text_fr") or "",
            fr_status=data.get("fr_status") or "",
            fr_release=data.get("fr_release"),
        )

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model is not Example:
            return super().save_formset(request, form, formset, change)
        user = _user(request)
        formset.save(commit=False)
        for example in formset.deleted_objects:
            editing.remove_example(example=example, user=user)
        for example in formset.new_objects:
            editing.add_example(
                version=form.instance,
                user=user,
                text_en=example.text_en or "",
                text_fr=example.text_fr or "",
            )
        for example, _fields in formset.changed_objects:
            editing.edit_example(
                example=example, user=user, text_en=example.text_en, text_fr=example.text_fr or ""
            )
        return None


# -- glossary ----------------------------------------------------------------------------------


class GlossaryVersionForm(forms.ModelForm):
    class Meta:
        model = GlossaryVersion
        fields = ["aliases", "text", "fr_status", "fr_release"]

    def clean_aliases(self) -> Any:
        value = self.cleaned_data.get("aliases")
        problem = alias_errors(value)
        if problem:
            raise ValidationError(problem)
        return value

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if "text_en" in self.fields and not (cleaned.get("text_en") or "").strip():
            self.add_error("text_en", "The English text cannot be empty.")
        if cleaned.get("fr_status") and not (cleaned.get("text_fr") or "").strip():
            self.add_error("fr_status", "A French status needs a French text.")
        return cleaned


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(IndexedAdminMixin, ReadOnlyAdmin):
    list_display = ["key", "slug"]
    search_fields = ["key"]


@admin.register(GlossaryVersion)
class GlossaryVersionAdmin(
    EditConflictMixin, NoAddDeleteMixin, SimpleHistoryAdmin, LocalTabbedTranslationAdmin
):
    form = GlossaryVersionForm
    list_display = ["headword", "valid_from", "valid_to", "obsolete", "change"]
    search_fields = ["headword", "text_en", "text_fr"]
    raw_id_fields = ["fr_release"]
    readonly_fields = ["term", "headword", "obsolete", "ordinal", *_DERIVED, *_EDIT_MARKS]
    fields = [
        "term",
        "headword",
        "aliases",
        "text",
        "fr_status",
        "fr_release",
        "obsolete",
        "ordinal",
        *_DERIVED,
        *_EDIT_MARKS,
    ]

    def save_model(
        self, request: HttpRequest, obj: GlossaryVersion, form: Any, change: bool
    ) -> None:
        data = form.cleaned_data
        editing.edit_glossary_version(
            version=obj,
            user=_user(request),
            text_en=data.get("text_en"),
            text_fr=data.get("text_fr") or "",
            fr_status=data.get("fr_status") or "",
            fr_release=data.get("fr_release"),
            aliases=data.get("aliases"),
        )


# -- what imports leave behind ---------------------------------------------------------------


@admin.register(Reference)
class ReferenceAdmin(ReadOnlyAdmin):
    list_display = ["target", "target_end", "rule_version", "glossary_version", "lang"]
    list_select_related = ["rule_version__lineage", "glossary_version"]
    search_fields = ["target"]


@admin.register(Anomaly)
class AnomalyAdmin(ReadOnlyAdmin):
    list_display = ["release", "kind", "line", "number", "detail"]
    list_select_related = ["release"]
    list_filter = ["kind", "release"]


@admin.register(ImportRecord)
class ImportRecordAdmin(ReadOnlyAdmin):
    """Import records are the archive's audit trail: read-only for everyone."""

    list_display = ["effective_date", "lang", "action", "user", "created_at", "seconds"]
    list_filter = ["action", "lang"]


# -- vocabulary ----------------------------------------------------------------------------------


class VocabularyTermForm(forms.ModelForm):
    class Meta:
        model = VocabularyTerm
        fields = ["fr", "checked"]

    def clean_fr(self) -> str:
        value = " ".join((self.cleaned_data.get("fr") or "").split())
        if not value:
            raise ValidationError("The French term cannot be empty.")
        return value


class ShownFilter(admin.SimpleListFilter):
    """Which terms the pages show: checked or curated ones, mined ones with enough agreeing
    cards; the others are left out until a maintainer checks or corrects them."""

    title = _("on the pages")
    parameter_name = "shown"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("yes", _("shown")),
            ("unverified", _("shown, unverified (mined, not checked)")),
            ("no", _("left out (too few agreeing cards)")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.shown()
        if self.value() == "unverified":
            return queryset.shown().filter(source="cards", checked=False, edited=False)
        if self.value() == "no":
            return queryset.left_out()
        return queryset


@admin.register(VocabularyTerm)
class VocabularyTermAdmin(
    EditConflictMixin, IndexedAdminMixin, NoAddDeleteMixin, SimpleHistoryAdmin
):
    """Maintainers correct a mined French term by editing it (and ticking "checked"): the edit
    is marked, and a rebuild keeps it while refreshing the mined evidence."""

    form = VocabularyTermForm
    list_display = ["en", "fr", "kind", "source", "agreeing", "seen", "checked", "edited"]
    list_filter = [ShownFilter, "kind", "source", "checked", "edited"]
    search_fields = ["en", "fr"]
    list_editable = ["fr", "checked"]
    fields = [
        "en",
        "fr",
        "checked",
        "kind",
        "source",
        "mined_fr",
        "agreeing",
        "seen",
        "alternatives",
        "lineage",
        "glossary_term",
        "edited",
        "edited_by",
        "edited_at",
    ]
    readonly_fields = [f for f in fields if f not in ("fr", "checked")]

    actions = ["mark_checked"]

    @admin.action(description=_("Mark the selected terms checked"), permissions=["change"])
    def mark_checked(self, request: HttpRequest, queryset: QuerySet[VocabularyTerm]) -> None:
        count = editing.mark_vocabulary_checked(terms=queryset, user=request.user)
        self.message_user(
            request,
            ngettext("%(count)d term marked checked.", "%(count)d terms marked checked.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    def get_changelist_form(self, request: HttpRequest, **kwargs: Any):
        kwargs.setdefault("form", VocabularyTermForm)
        return super().get_changelist_form(request, **kwargs)

    def save_model(
        self, request: HttpRequest, obj: VocabularyTerm, form: Any, change: bool
    ) -> None:
        data = form.cleaned_data
        editing.edit_vocabulary_term(
            term=obj, user=_user(request), fr=data.get("fr"), checked=data.get("checked")
        )


register_queue(
    "vocabulary",
    _("Vocabulary terms not yet checked"),
    "admin:kb_vocabularyterm_changelist",
    lambda: VocabularyTerm.objects.filter(checked=False).count(),
    params={"checked__exact": "0"},
    order=20,
)

register_french_queues(
    lambda: {f"french-{state}": n for state, n in french_queue_counts().items()},
    [
        (
            "french-missing",
            _("Rules of the current release without French"),
            "admin:kb_ruleversion_changelist",
            {"french": "missing"},
        ),
        (
            "french-stale",
            _("French texts translating an older English text"),
            "admin:kb_ruleversion_changelist",
            {"french": "stale"},
        ),
        (
            "french-unofficial",
            _("French texts not reviewed (written by a maintainer)"),
            "admin:kb_ruleversion_changelist",
            {"french": "unofficial"},
        ),
    ],
)
