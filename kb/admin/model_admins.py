"""Admin for the rules archive: maintainers edit texts; the archive's structure stays derived.

Every write goes through kb.archive.editing (texts, examples, glossary, vocabulary) or the importer
(removing a release), so hashes, change kinds, references, the index, the caches and other apps
follow one path. What imports derive (intervals, hashes, lineage keys, numbers, references) is
shown read-only: edited by hand it would break the archive's invariants.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from simple_history.admin import SimpleHistoryAdmin

from audit.conflicts import EditConflictMixin, InlineEditConflictMixin
from kb.admin.finding import (
    ExampleReadingMixin,
    GlossaryReadingMixin,
    ReleaseFilter,
    RuleReadingMixin,
    last_number_of,
    validity,
)
from kb.admin.french_filters import FrenchStateFilter, french_queue_counts
from kb.admin.publish import PublishAdminMixin
from kb.admin.queues import register_french_queues, register_queue
from kb.admin.tabs import LocalTabbedStackedInline, LocalTabbedTranslationAdmin
from kb.archive import editing
from kb.archive.importer import Importer, ImportRefused
from kb.crtext.limits import text_problem
from kb.models import (
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
from kb.models.glossary import alias_errors
from kb.models.rules import ExampleOrigin
from kb.models.versioning import EDIT_FIELDS, HASH_FIELDS
from search.admin import IndexedAdminMixin

_DERIVED = ["valid_from", "valid_to", *HASH_FIELDS, "change", "wording_since"]


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
    new releases are published from an uploaded file (kb.admin.publish)."""

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


def _text_limits(form: forms.BaseForm, names: Iterable[str]) -> None:
    """The import's limits on entry texts (kb.crtext.limits), as errors on the fields."""
    for name in names:
        value = form.cleaned_data.get(name)
        problem = text_problem(value) if isinstance(value, str) else None
        if problem:
            form.add_error(name, f"{problem[:1].upper()}{problem[1:]}.")


class ExampleTextForm(forms.ModelForm):
    """An example's English and French texts, within the import's limits."""

    class Meta:
        model = Example
        fields = ["text"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        _text_limits(self, ["text_en", "text_fr"])
        return cleaned


class ExampleForm(ExampleTextForm):
    """An example's texts and its place among the maintainer's examples (the source's keep
    theirs: an import matches an edit of one by its position)."""

    order = forms.IntegerField(
        label=_("order"),
        required=False,
        min_value=1,
        max_value=999,
        help_text=_(
            "Examples added by a maintainer: their order, after the official ones "
            "(empty for a new one: last)."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        example = self.instance
        if example.pk is not None:
            self.fields["order"].initial = example.position + 1
            if example.origin != ExampleOrigin.MAINTAINER:
                self.fields["order"].disabled = True
                self.fields["order"].help_text = _(
                    "Printed by the official source: it keeps its place."
                )


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

    def wanted_order(self, created: dict[int, Example]) -> list[int]:
        """The maintainer's examples kept, in the order asked for (their "order" values, then
        the form's order; new ones without a value last)."""
        keyed = []
        for n, form in enumerate(self.forms):
            data = getattr(form, "cleaned_data", None) or {}
            if data.get("DELETE"):
                continue
            example = created.get(n) or (form.instance if form.instance.pk else None)
            if example is None or example.origin != ExampleOrigin.MAINTAINER:
                continue
            asked = data.get("order")
            keyed.append((asked if asked is not None else 10_000, n, example.pk))
        return [pk for _a, _n, pk in sorted(keyed)]


class ExampleInline(InlineEditConflictMixin, LocalTabbedStackedInline):
    model = Example
    form = ExampleForm
    formset = ExampleFormSet
    extra = 0
    fields = ["text", "order", "origin"]
    readonly_fields = ["origin"]


class ReleaseChoiceField(forms.ModelChoiceField):
    """A release by its date and set ("2026-08-07 (Edge of Eternities)"), newest first."""

    def label_from_instance(self, obj: Release) -> str:
        return str(obj)


def _release_field(**kwargs: Any) -> ReleaseChoiceField:
    return ReleaseChoiceField(
        queryset=Release.objects.order_by("-effective_date").defer("introduction", "credits"),
        required=False,
        label=_("French translates the English of"),
        help_text=_("The English release the French text translates."),
        **kwargs,
    )


class VersionTextForm(forms.ModelForm):
    """A rule or glossary version's texts, the French text's status and the release it
    translates: an English text, a French one under a status, both within the import's
    limits."""

    fr_release = _release_field()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if "text_en" in self.fields and not (cleaned.get("text_en") or "").strip():
            self.add_error("text_en", "The English text cannot be empty.")
        if cleaned.get("fr_status") and not (cleaned.get("text_fr") or "").strip():
            self.add_error("fr_status", "A French status needs a French text.")
        _text_limits(self, ["text_en", "text_fr"])
        return cleaned


def _version_edits(form: VersionTextForm) -> dict[str, Any]:
    """The edit service's arguments a version form's texts and French status give."""
    data = form.cleaned_data
    return {
        "text_en": data.get("text_en"),
        "text_fr": data.get("text_fr") or "",
        "fr_status": data.get("fr_status") or "",
        "fr_release": data.get("fr_release"),
    }


class RuleVersionForm(VersionTextForm):
    class Meta:
        model = RuleVersion
        fields = ["text", "fr_status", "fr_release"]


def _titled(context: dict[str, Any], obj: Any, kind: Any) -> None:
    """The change form's heading names the row as maintainers know it (its number and title
    now, its validity), not by its lineage key."""
    if obj is not None:
        context["title"] = str(obj)
        context["subtitle"] = kind


@admin.register(RuleVersion)
class RuleVersionAdmin(
    RuleReadingMixin,
    EditConflictMixin,
    NoAddDeleteMixin,
    SimpleHistoryAdmin,
    LocalTabbedTranslationAdmin,
):
    form = RuleVersionForm
    list_display = [
        "number_read",
        "title_read",
        "validity",
        "first_words",
        "change",
        "wording_since",
        "fr_status",
    ]
    list_display_links = ["number_read", "first_words"]
    search_fields = ["text_en"]  # the search box; RuleReadingMixin decides what it finds
    search_help_text = _(
        "A rule number (702.19a) finds the rule holding it in the release being read first; "
        "words find titles (Trample), then texts."
    )
    list_filter = [
        ReleaseFilter,
        FrenchStateFilter,
        "change",
        "fr_status",
        "en_edited",
        "fr_edited",
    ]
    readonly_fields = ["lineage", *_DERIVED, *EDIT_FIELDS]
    fields = ["lineage", "text", "fr_status", "fr_release", *_DERIVED, *EDIT_FIELDS]
    inlines = [ExampleInline]

    def render_change_form(
        self, request: HttpRequest, context: dict[str, Any], *args: Any, obj: Any = None, **kw: Any
    ) -> Any:
        _titled(
            context,
            obj,
            _("Rule version (lineage %(key)s: the number it had when it first appeared)")
            % {"key": obj.lineage.key}
            if obj is not None
            else "",
        )
        return super().render_change_form(request, context, *args, obj=obj, **kw)

    def save_model(self, request: HttpRequest, obj: RuleVersion, form: Any, change: bool) -> None:
        editing.edit_rule_version(version=obj, user=_user(request), **_version_edits(form))
        obj.__dict__.pop("_described", None)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        """Examples through the edit services (history, hashes, the index follow): removed,
        edited, added, then put in the order asked for. The change message names the rows
        saved (the formset's own new instances are never saved)."""
        if formset.model is not Example:
            return super().save_formset(request, form, formset, change)
        user = _user(request)
        version = form.instance
        formset.save(commit=False)
        for example in formset.deleted_objects:
            editing.remove_example(example=example, user=user)
        for example, _fields in formset.changed_objects:
            editing.edit_example(
                example=example, user=user, text_en=example.text_en, text_fr=example.text_fr or ""
            )
        created: dict[int, Example] = {}
        for n, example_form in enumerate(formset.forms):
            example = example_form.instance
            if example.pk is None and example in formset.new_objects:
                created[n] = editing.add_example(
                    version=version,
                    user=user,
                    text_en=example.text_en or "",
                    text_fr=example.text_fr or "",
                )
        formset.new_objects = list(created.values())
        editing.reorder_examples(version=version, user=user, order=formset.wanted_order(created))
        for example in [*formset.new_objects, *(e for e, _f in formset.changed_objects)]:
            example.refresh_from_db(fields=["position"])
        return None


@admin.register(Example)
class ExampleAdmin(
    ExampleReadingMixin,
    EditConflictMixin,
    NoAddDeleteMixin,
    SimpleHistoryAdmin,
    LocalTabbedTranslationAdmin,
):
    """Examples listed by their rule's number and title in the release being read; edited
    through kb.archive.editing (added, removed and reordered in their rule version's form)."""

    form = ExampleTextForm
    list_display = [
        "number_read",
        "title_read",
        "example_number",
        "validity",
        "first_words",
        "origin",
        "en_edited",
        "fr_edited",
    ]
    list_display_links = ["number_read", "first_words"]
    list_select_related = ["version"]
    list_filter = [ReleaseFilter, "origin", "en_edited", "fr_edited"]
    search_fields = ["text_en"]  # the search box; ExampleReadingMixin decides what it finds
    search_help_text = RuleVersionAdmin.search_help_text
    fields = ["version_link", "text", "origin", *EDIT_FIELDS]
    readonly_fields = ["version_link", "origin", *EDIT_FIELDS]

    @admin.display(description=_("example"), ordering="position")
    def example_number(self, obj: Example) -> int:
        return obj.position + 1

    @admin.display(description=_("rule version"))
    def version_link(self, obj: Example) -> str:
        url = reverse("admin:kb_ruleversion_change", args=[obj.version_id])
        return format_html('<a href="{}">{}</a>', url, obj.version)

    def render_change_form(
        self, request: HttpRequest, context: dict[str, Any], *args: Any, obj: Any = None, **kw: Any
    ) -> Any:
        if obj is not None:
            context["title"] = f"{obj.version}, {obj}"
            context["subtitle"] = _("Example")
        return super().render_change_form(request, context, *args, obj=obj, **kw)

    def save_model(self, request: HttpRequest, obj: Example, form: Any, change: bool) -> None:
        data = form.cleaned_data
        editing.edit_example(
            example=obj,
            user=_user(request),
            text_en=data.get("text_en"),
            text_fr=data.get("text_fr") or "",
        )


# -- glossary ----------------------------------------------------------------------------------


class GlossaryVersionForm(VersionTextForm):
    class Meta:
        model = GlossaryVersion
        fields = ["aliases", "text", "fr_status", "fr_release"]

    def clean_aliases(self) -> Any:
        value = self.cleaned_data.get("aliases")
        problem = alias_errors(value)
        if problem:
            raise ValidationError(problem[:1].upper() + problem[1:] + ".")
        return value


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(IndexedAdminMixin, ReadOnlyAdmin):
    list_display = ["key", "slug"]
    search_fields = ["key"]


@admin.register(GlossaryVersion)
class GlossaryVersionAdmin(
    GlossaryReadingMixin,
    EditConflictMixin,
    NoAddDeleteMixin,
    SimpleHistoryAdmin,
    LocalTabbedTranslationAdmin,
):
    form = GlossaryVersionForm
    list_display = ["headword", "validity", "first_words", "obsolete", "change"]
    list_display_links = ["headword", "first_words"]
    list_filter = [ReleaseFilter, "obsolete", "change", "fr_status", "en_edited", "fr_edited"]
    search_fields = ["headword"]  # the search box; GlossaryReadingMixin decides what it finds
    search_help_text = _("A headword finds its entry in the release being read first.")
    readonly_fields = ["term", "headword", "obsolete", "ordinal", *_DERIVED, *EDIT_FIELDS]
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
        *EDIT_FIELDS,
    ]

    def render_change_form(
        self, request: HttpRequest, context: dict[str, Any], *args: Any, obj: Any = None, **kw: Any
    ) -> Any:
        _titled(context, obj, _("Glossary version"))
        return super().render_change_form(request, context, *args, obj=obj, **kw)

    def save_model(
        self, request: HttpRequest, obj: GlossaryVersion, form: Any, change: bool
    ) -> None:
        editing.edit_glossary_version(
            version=obj,
            user=_user(request),
            aliases=form.cleaned_data.get("aliases"),
            **_version_edits(form),
        )


# -- what imports leave behind ---------------------------------------------------------------


@admin.register(Reference)
class ReferenceAdmin(ReadOnlyAdmin):
    list_display = ["target", "target_end", "in_rule", "glossary_version", "lang"]
    list_select_related = ["rule_version", "glossary_version"]
    search_fields = ["target"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Reference]:
        return (
            super()
            .get_queryset(request)
            .annotate(rule_number=last_number_of("rule_version__lineage", "rule_version__"))
        )

    @admin.display(description=_("in rule"))
    def in_rule(self, obj: Reference) -> str:
        """The citing rule by its number on its wording's last day (one query a page)."""
        version = obj.rule_version
        if version is None:
            return "—"
        return f"{obj.rule_number or '?'} ({validity(version.valid_from, version.valid_to)})"


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
