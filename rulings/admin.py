"""Admin: maintainers correct cards and rulings, and confirm or reject the linker's guesses.

Every save goes through `rulings.corrections` (the same services any command or view uses):
an edit is marked as a maintainer's so imports keep it, relinks what it affects and reaches the
index. Derived fields (hashes, source texts, link numbers, keys) are read-only. A rejected link
stays (so the linker does not infer it again); a confirmed one survives relinking and reworded
rulings. The ruling links list is the review queue of inferred links, and of the links proposed
by meaning for rulings the linker found nothing for (counts on the admin index).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from modeltranslation.admin import TranslationAdmin
from simple_history.admin import SimpleHistoryAdmin

from audit.conflicts import EditConflictMixin, InlineEditConflictMixin
from audit.reverting import RevertingAdmin
from kb.admin.queues import register_queue
from rulings.corrections import DECISIONS, decide_links, relink_ruling, save_card, save_ruling
from rulings.importing import limits
from rulings.models import EDITABLE_CARD_FIELDS, Card, CardFace, LinkKind, Ruling, RulingLink
from search.admin import IndexedAdminMixin


def register_review_queues() -> None:
    """The rulings app's review queues on the admin index (kb.admin.queues shows them): each
    count is one query with the same filter as the change list it links to."""
    register_queue(
        "inferred",
        _("Inferred ruling links to confirm or reject"),
        "admin:rulings_rulinglink_changelist",
        lambda: RulingLink.objects.filter(kind=LinkKind.INFERRED).count(),
        params={"kind__exact": LinkKind.INFERRED},
        order=10,
    )
    register_queue(
        "proposed",
        _("Ruling links proposed by meaning (not shown until confirmed)"),
        "admin:rulings_rulinglink_changelist",
        lambda: RulingLink.objects.filter(kind=LinkKind.PROPOSED).count(),
        params={"kind__exact": LinkKind.PROPOSED},
        order=11,
    )
    register_queue(
        "edited",
        _("Rulings corrected by a maintainer"),
        "admin:rulings_ruling_changelist",
        lambda: Ruling.objects.filter(text_edited=True).count(),
        params={"text_edited__exact": "1"},
        order=30,
    )
    register_queue(
        "missing",
        _("Rulings absent from the last file"),
        "admin:rulings_ruling_changelist",
        lambda: Ruling.objects.filter(missing=True).count(),
        params={"missing__exact": "1"},
        order=31,
    )
    register_queue(
        "cards",
        _("Cards with fields edited by a maintainer"),
        "admin:rulings_card_changelist",
        lambda: Card.objects.exclude(edited={}).count(),
        params={"edited": "1"},
        order=32,
    )


register_review_queues()


class TextListFormField(forms.JSONField):
    """A JSON list of texts (keywords, colors): anything else is refused with an example; the
    import's limits (rulings.importing.limits) hold for the list and each text."""

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value in self.empty_values:
            return
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise forms.ValidationError(
                _('Enter a JSON list of texts, for example ["Flying", "Haste"].'),
                code="not_a_text_list",
            )
        if len(value) > limits.MAX_ITEMS:
            raise forms.ValidationError(
                _("At most %(limit)s items, not %(count)s.")
                % {"limit": f"{limits.MAX_ITEMS:,}", "count": f"{len(value):,}"},
                code="too_many_items",
            )
        for item in value:
            problem = limits.text_problem("", item)
            if problem:
                raise forms.ValidationError(
                    _("An item %(problem)s.") % {"problem": problem}, code="bad_item"
                )

    def clean(self, value: Any) -> Any:
        cleaned = super().clean(value)
        return [] if cleaned in (None, "") else cleaned


class LimitedForm(forms.ModelForm):
    """Texts within what an import accepts (rulings.importing.limits): a longer one, or one holding
    a
    NUL character, is an error on its field. `limited` maps form fields to the import's keys."""

    limited: dict[str, str] = {}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name, key in self.limited.items():
            value = cleaned.get(name)
            problem = limits.text_problem(key, value) if isinstance(value, str) else None
            if problem:
                self.add_error(name, _("This text %(problem)s.") % {"problem": problem})
        return cleaned


class CardForm(LimitedForm):
    keywords = TextListFormField(required=False, label=_("keywords"))
    colors = TextListFormField(required=False, label=_("colors"))
    layout = forms.ChoiceField(
        label=_("layout"),
        required=False,
        choices=[("", "—"), *((v, v) for v in sorted(limits.LAYOUTS))],
        help_text=_("One of the layouts the card import knows."),
    )
    limited = {
        "name_en": "name",
        "name_fr": "name",
        "mana_cost": "mana_cost",
        "type_line_en": "type_line",
        "type_line_fr": "type_line",
        "text_en": "text",
        "text_fr": "text",
        "power": "power",
        "toughness": "toughness",
        "loyalty": "loyalty",
        "defense": "defense",
        "fr_face_name": "face_name",
    }

    class Meta:
        model = Card
        fields = list(EDITABLE_CARD_FIELDS)

    def clean_mana_value(self) -> float | None:
        value = self.cleaned_data.get("mana_value")
        problem = limits.mana_value_problem(value) if value is not None else None
        if problem:
            raise forms.ValidationError(problem[:1].upper() + problem[1:] + ".")
        return value


class RulingForm(LimitedForm):
    """A ruling's text and date within what an import accepts (rulings.importing.limits)."""

    limited = {"text": "comment"}

    class Meta:
        model = Ruling
        fields = ["card", "date", "text", "is_heading", "group"]

    def clean_date(self) -> Any:
        value = self.cleaned_data.get("date")
        problem = limits.date_problem(value) if value is not None else None
        if problem:
            raise forms.ValidationError(_("A ruling's date is %(problem)s.") % {"problem": problem})
        return value


class FaceInline(admin.TabularInline):
    """Faces come from the source (an import replaces them): shown, not edited."""

    model = CardFace
    extra = 0
    fields = ["position", "name", "mana_cost", "type_line", "text"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class EditedFilter(admin.SimpleListFilter):
    title = _("edited by a maintainer")
    parameter_name = "edited"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("1", _("yes"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Card]) -> QuerySet[Card]:
        return queryset.exclude(edited={}) if self.value() == "1" else queryset


@admin.register(Card)
class CardAdmin(EditConflictMixin, IndexedAdminMixin, RevertingAdmin, TranslationAdmin):
    form = CardForm
    list_display = ["name", "type_line", "mana_cost", "data_source", "updated_at"]
    search_fields = ["name_en", "name_fr", "oracle_id", "key"]
    list_filter = [EditedFilter, "data_source", "layout"]
    readonly_fields = [
        "key",
        "oracle_id",
        "slug",
        "data_source",
        "printings",
        "updated_at",
        "edited_fields",
    ]
    inlines = [FaceInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # cards come from the imported files

    @admin.display(description=_("fields edited by a maintainer (what the source says)"))
    def edited_fields(self, obj: Card) -> str:
        if not obj.edited:
            return "—"
        items = format_html_join(
            "", "<li><b>{}</b>: {}</li>", ((n, repr(v)) for n, v in obj.edited.items())
        )
        return format_html("<ul>{}</ul>", items)

    def save_model(self, request: HttpRequest, obj: Card, form: Any, change: bool) -> None:
        obj._history_user = request.user
        save_card(card=obj, changed=self.changed_fields(request, obj, form))


class LinkInline(InlineEditConflictMixin, admin.TabularInline):
    model = RulingLink
    extra = 0
    fields = ["lineage", "kind", "evidence", "release", "number", "current_number"]
    readonly_fields = ["evidence", "release", "number", "current_number"]
    raw_id_fields = ["lineage"]


@admin.register(Ruling)
class RulingAdmin(EditConflictMixin, IndexedAdminMixin, RevertingAdmin):
    form = RulingForm
    list_display = ["card", "date", "short_text", "text_edited", "missing", "is_heading"]
    list_filter = ["text_edited", "missing", "is_heading", "grouped_by_hand", "date"]
    list_select_related = ["card"]
    search_fields = ["text", "card__name_en"]
    raw_id_fields = ["card", "group"]
    readonly_fields = [
        "text_edited",
        "source_text",
        "text_hash",
        "source_hash",
        "missing",
        "linked_at",
    ]
    inlines = [LinkInline]

    @admin.display(description=_("text"))
    def short_text(self, obj: Ruling) -> str:
        return obj.text[:100]

    def save_model(self, request: HttpRequest, obj: Ruling, form: Any, change: bool) -> None:
        # Links are recomputed in save_related, after the maintainer's link rows are saved;
        # a revert from the history has no link rows and no save_related: relinked here.
        obj._history_user = request.user
        reverting = self.reverting(request)
        save_ruling(ruling=obj, changed=self.changed_fields(request, obj, form), relink=reverting)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if {"text", "is_heading", "group", "card"} & set(form.changed_data) or not change:
            relink_ruling(ruling=form.instance)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model is not RulingLink:
            return super().save_formset(request, form, formset, change)
        decided: dict[str, list[RulingLink]] = {}
        for link_form in formset.forms:
            link = link_form.instance
            if link.pk and "kind" in link_form.changed_data and link.kind in DECISIONS:
                decided.setdefault(link.kind, []).append(link)
                link_form.changed_data.remove("kind")
            elif link.pk is None and link.kind not in DECISIONS:
                link.kind = LinkKind.CONFIRMED  # added by hand: relinking must keep it
        formset.save()
        for kind, links in decided.items():
            decide_links(links=links, kind=kind, user=request.user)
        return None


@admin.register(RulingLink)
class RulingLinkAdmin(EditConflictMixin, SimpleHistoryAdmin):
    """The review queue of inferred links: what the ruling says, on which card, the rule's
    number then (in the release in force on the ruling's date) and now, and the evidence."""

    list_display = [
        "ruling_start",
        "card",
        "number_then",
        "current_number",
        "evidence_short",
        "kind",
    ]
    list_display_links = ["ruling_start"]
    list_filter = ["kind"]
    list_select_related = ["ruling__card"]
    list_per_page = 50
    search_fields = ["current_number", "number", "evidence", "ruling__card__name_en"]
    raw_id_fields = ["ruling", "lineage", "release"]
    readonly_fields = ["evidence", "release", "number", "current_number", "date"]
    actions = ["confirm", "reject"]

    @admin.display(description=_("ruling"), ordering="ruling__text")
    def ruling_start(self, obj: RulingLink) -> str:
        return Truncator(obj.ruling.text).chars(90)

    @admin.display(description=_("card"), ordering="ruling__card__name_en")
    def card(self, obj: RulingLink) -> str:
        return obj.ruling.card.name_en

    @admin.display(description=_("rule then"), ordering="number")
    def number_then(self, obj: RulingLink) -> str:
        return format_html("{}<br><small>{}</small>", obj.number or "—", obj.date)

    @admin.display(description=_("evidence"), ordering="evidence")
    def evidence_short(self, obj: RulingLink) -> str:
        return format_html(
            '<span title="{}">{}</span>', obj.evidence, Truncator(obj.evidence).chars(70)
        )

    @admin.action(description=_("Confirm the selected links"))
    def confirm(self, request: HttpRequest, queryset: QuerySet[RulingLink]) -> None:
        self._decide(request, queryset, LinkKind.CONFIRMED)

    @admin.action(description=_("Reject the selected links"))
    def reject(self, request: HttpRequest, queryset: QuerySet[RulingLink]) -> None:
        self._decide(request, queryset, LinkKind.REJECTED)

    def _decide(self, request: HttpRequest, queryset: QuerySet[RulingLink], kind: str) -> None:
        count = decide_links(links=queryset, kind=kind, user=request.user)
        self.message_user(
            request,
            ngettext("%(count)d link marked %(kind)s.", "%(count)d links marked %(kind)s.", count)
            % {"count": count, "kind": LinkKind(kind).label},
            messages.SUCCESS,
        )
