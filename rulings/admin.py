"""Admin: maintainers correct cards and rulings, and confirm or reject the linker's guesses.

A rejected link stays (so the linker does not infer it again); a confirmed one survives
relinking and reworded rulings.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin

from search.admin import IndexedAdminMixin

from .linking import link_rulings
from .models import Card, CardFace, LinkKind, Ruling, RulingLink
from .records import ruling_hash


class FaceInline(admin.TabularInline):
    model = CardFace
    extra = 0
    fields = ["position", "name", "mana_cost", "type_line", "text"]


@admin.register(Card)
class CardAdmin(IndexedAdminMixin, TranslationAdmin):
    list_display = ["name", "type_line", "mana_cost", "data_source", "updated_at"]
    search_fields = ["name_en", "name_fr", "oracle_id", "key"]
    list_filter = ["data_source", "layout"]
    readonly_fields = ["key", "updated_at"]
    inlines = [FaceInline]


class LinkInline(admin.TabularInline):
    model = RulingLink
    extra = 0
    fields = ["lineage", "kind", "evidence", "release", "number", "current_number"]
    readonly_fields = ["evidence", "release", "number", "current_number"]
    raw_id_fields = ["lineage"]


@admin.register(Ruling)
class RulingAdmin(IndexedAdminMixin, admin.ModelAdmin):
    list_display = ["card", "date", "short_text", "missing", "is_heading"]
    list_filter = ["missing", "is_heading", "grouped_by_hand", "date"]
    search_fields = ["text", "card__name_en"]
    raw_id_fields = ["card", "group"]
    readonly_fields = ["text_hash", "linked_at"]
    inlines = [LinkInline]

    @admin.display(description=_("text"))
    def short_text(self, obj: Ruling) -> str:
        return obj.text[:100]

    def save_model(self, request: HttpRequest, obj: Ruling, form, change: bool) -> None:
        obj.text_hash = ruling_hash(obj.text)
        if {"is_heading", "group"} & set(form.changed_data):
            obj.grouped_by_hand = True  # imports leave a maintainer's grouping alone
        super().save_model(request, obj, form, change)
        obj.links.update(date=obj.date)  # the copy rule pages sort by

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        # A corrected text may lean on other rules; a ruling moved under another heading
        # leans on what that heading names.
        if {"text", "is_heading", "group"} & set(form.changed_data):
            link_rulings([form.instance.pk])


@admin.register(RulingLink)
class RulingLinkAdmin(admin.ModelAdmin):
    list_display = ["ruling", "current_number", "number", "kind", "evidence"]
    list_filter = ["kind"]
    search_fields = ["current_number", "evidence", "ruling__card__name_en"]
    raw_id_fields = ["ruling", "lineage", "release"]
    actions = ["confirm", "reject"]

    @admin.action(description=_("Confirm the selected links"))
    def confirm(self, request: HttpRequest, queryset: QuerySet[RulingLink]) -> None:
        queryset.update(kind=LinkKind.CONFIRMED)

    @admin.action(description=_("Reject the selected links"))
    def reject(self, request: HttpRequest, queryset: QuerySet[RulingLink]) -> None:
        queryset.update(kind=LinkKind.REJECTED)
