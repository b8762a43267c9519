"""Admin registrations: browse releases, lineages, numbers, versions and what imports left."""

from django.contrib import admin
from modeltranslation.admin import TranslationAdmin

from search.admin import IndexedAdminMixin

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


@admin.register(Release)
class ReleaseAdmin(TranslationAdmin):
    list_display = ["effective_date", "set_name", "set_code", "imported_at"]
    search_fields = ["set_name_en", "set_name_fr", "set_code"]
    readonly_fields = ["sha256", "counts", "imported_at", "source"]


class NumberInline(admin.TabularInline):
    model = RuleNumber
    extra = 0
    fields = ["number", "valid_from", "valid_to", "previous_number"]
    readonly_fields = fields
    can_delete = False


@admin.register(Lineage)
class LineageAdmin(IndexedAdminMixin, admin.ModelAdmin):
    list_display = ["key", "kind"]
    search_fields = ["key", "numbers__number"]
    list_filter = ["kind"]
    inlines = [NumberInline]


@admin.register(RuleNumber)
class RuleNumberAdmin(IndexedAdminMixin, admin.ModelAdmin):
    list_display = ["number", "valid_from", "valid_to", "previous_number", "lineage"]
    search_fields = ["number"]
    list_filter = ["kind"]
    raw_id_fields = ["lineage"]


class ExampleInline(admin.StackedInline):
    model = Example
    extra = 0


@admin.register(RuleVersion)
class RuleVersionAdmin(IndexedAdminMixin, TranslationAdmin):
    list_display = ["lineage", "valid_from", "valid_to", "change", "wording_since"]
    search_fields = ["lineage__key", "text_en", "text_fr"]
    list_filter = ["change"]
    raw_id_fields = ["lineage", "fr_release"]
    inlines = [ExampleInline]


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(IndexedAdminMixin, admin.ModelAdmin):
    list_display = ["key", "slug"]
    search_fields = ["key"]


@admin.register(GlossaryVersion)
class GlossaryVersionAdmin(IndexedAdminMixin, TranslationAdmin):
    list_display = ["headword", "valid_from", "valid_to", "obsolete", "change"]
    search_fields = ["headword", "text_en"]
    raw_id_fields = ["term", "fr_release"]


@admin.register(Reference)
class ReferenceAdmin(admin.ModelAdmin):
    list_display = ["target", "target_end", "rule_version", "glossary_version", "lang"]
    search_fields = ["target"]
    raw_id_fields = ["rule_version", "glossary_version"]


@admin.register(Anomaly)
class AnomalyAdmin(admin.ModelAdmin):
    list_display = ["release", "kind", "line", "number", "detail"]
    list_filter = ["kind", "release"]


@admin.register(ImportRecord)
class ImportRecordAdmin(admin.ModelAdmin):
    list_display = ["effective_date", "lang", "action", "user", "created_at", "seconds"]
    list_filter = ["action", "lang"]
    readonly_fields = [f.name for f in ImportRecord._meta.fields]


@admin.register(VocabularyTerm)
class VocabularyTermAdmin(IndexedAdminMixin, admin.ModelAdmin):
    """Maintainers correct a mined French term by editing it (and ticking "checked"); a
    rebuild keeps curated terms, so lasting fixes go to fixtures/vocabulary/fr_terms.csv."""

    list_display = ["en", "fr", "kind", "source", "agreeing", "seen", "checked"]
    list_filter = ["kind", "source", "checked"]
    search_fields = ["en", "fr"]
    list_editable = ["fr", "checked"]
    raw_id_fields = ["lineage", "glossary_term"]
