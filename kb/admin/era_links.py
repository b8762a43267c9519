"""The review queue of the links across Magic 2010 (kb.archive.eras): a proposal is the most
alike 2009-07-11 rule of a 2009-05-01 rule the texts could not place surely; maintainers
confirm or reject it (and may overrule a sure link), and their verdict outlives re-imports."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from kb.archive.eras import FIRST_MODERN, LAST_LEGACY, review
from kb.diffing import word_diff
from kb.models import EraLink
from kb.selectors import rule_version


@admin.register(EraLink)
class EraLinkAdmin(admin.ModelAdmin):
    list_display = ["legacy_number", "modern_number", "how", "score", "status", "evidence"]
    list_filter = ["status", "how"]
    search_fields = ["legacy_number", "modern_number"]
    ordering = ["status", "-score"]
    actions = ["confirm", "reject"]
    fields = [
        "legacy_number", "modern_number", "how", "score", "evidence", "status",
        "reviewed_by", "reviewed_at", "texts",
    ]  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # computed from the two releases' texts (link_eras)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # reject instead: a rejection is kept, a deletion would come back

    @admin.display(description=_("Texts (2009-05-01 to 2009-07-11)"))
    def texts(self, obj: EraLink) -> str:
        old = rule_version(obj.legacy_number, LAST_LEGACY)
        new = rule_version(obj.modern_number, FIRST_MODERN)
        return format_html(
            '<p class="diff" lang="en">{}</p>',
            word_diff(old.text_en if old else "", new.text_en if new else "", True),
        )

    @admin.action(description=_("Confirm the selected links (shown as the rules' past)"))
    def confirm(self, request: HttpRequest, queryset: QuerySet[EraLink]) -> None:
        self._review(request, queryset, confirm=True)

    @admin.action(description=_("Reject the selected links (never shown)"))
    def reject(self, request: HttpRequest, queryset: QuerySet[EraLink]) -> None:
        self._review(request, queryset, confirm=False)

    def _review(self, request: HttpRequest, queryset: QuerySet[EraLink], *, confirm: bool) -> None:
        user = request.user.get_username()
        count = 0
        for link in queryset:
            review(link, confirm=confirm, user=user)
            count += 1
        self.message_user(
            request,
            (_("%(n)d link(s) confirmed.") if confirm else _("%(n)d link(s) rejected."))
            % {"n": count},
            messages.SUCCESS,
        )
