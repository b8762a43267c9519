"""Cards, their rulings, and the links from rulings to the rules they lean on.

`rulings` depends on `kb` (links point at rule lineages), never the reverse.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class TextListField(models.JSONField):
    """A JSON list of texts (card keywords, colors). Readers get a list of strings even from a
    legacy bad value (a string stored letter by letter, a dict): pages and the API never fail
    on it; the admin's form field refuses such values on save."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return clean_text_list(super().from_db_value(value, expression, connection))


def clean_text_list(value: Any) -> list[str]:
    """The strings of a list; anything else (None, a string, a dict, numbers) is dropped."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, str)]


#: Card fields a maintainer may correct; an import never overwrites one they changed.
EDITABLE_CARD_FIELDS = (
    "name_en",
    "name_fr",
    "layout",
    "mana_cost",
    "type_line_en",
    "type_line_fr",
    "text_en",
    "text_fr",
    "power",
    "toughness",
    "loyalty",
    "defense",
    "mana_value",
    "colors",
    "keywords",
    "fr_face_name",
)


class Card(models.Model):
    """One card (not one printing), keyed by its Oracle id or, where the source has none, by a
    stable key made from its English name."""

    key = models.CharField(max_length=80, unique=True)
    oracle_id = models.UUIDField(null=True, blank=True, unique=True)
    slug = models.SlugField(max_length=200, unique=True)
    name = models.CharField(_("name"), max_length=300)  # name_en, name_fr
    layout = models.CharField(max_length=30, blank=True)
    mana_cost = models.CharField(max_length=120, blank=True)
    type_line = models.CharField(_("type line"), max_length=300, blank=True)
    text = models.TextField(_("text"), blank=True)  # Oracle text; text_fr: printed French text
    power = models.CharField(max_length=10, blank=True)
    toughness = models.CharField(max_length=10, blank=True)
    loyalty = models.CharField(max_length=10, blank=True)
    defense = models.CharField(max_length=10, blank=True)
    mana_value = models.FloatField(null=True, blank=True)
    colors = TextListField(default=list, blank=True)
    keywords = TextListField(default=list, blank=True)
    printings = models.JSONField(default=list, blank=True)
    fr_face_name = models.CharField(max_length=300, blank=True)
    data_source = models.CharField(max_length=20, blank=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)  # the name index's staleness
    edited = models.JSONField(
        _("fields edited by a maintainer"),
        default=dict,
        blank=True,
        editable=False,
        help_text=_(
            "Field → what the source said when a maintainer changed it (updated by imports): "
            "imports keep the maintainer's value and report when the source changes too."
        ),
    )

    class Meta:
        ordering = ["name_en"]
        verbose_name = _("card")

    def __str__(self) -> str:
        return self.name_en or self.key


class CardFace(models.Model):
    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="faces")
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=300)
    mana_cost = models.CharField(max_length=120, blank=True)
    type_line = models.CharField(max_length=300, blank=True)
    text = models.TextField(blank=True)
    power = models.CharField(max_length=10, blank=True)
    toughness = models.CharField(max_length=10, blank=True)
    loyalty = models.CharField(max_length=10, blank=True)
    # The face's French, built per face by rulings.importing.french_faces; empty where the data has
    # none
    # (pages say so rather than show an English face as French).
    name_fr = models.CharField(_("French name"), max_length=300, blank=True, db_default="")
    type_line_fr = models.CharField(
        _("French type line"), max_length=300, blank=True, db_default=""
    )
    text_fr = models.TextField(_("French text"), blank=True, db_default="")

    class Meta:
        ordering = ["card", "position"]
        constraints = [
            models.UniqueConstraint(fields=["card", "position"], name="rulings_face_position")
        ]

    def __str__(self) -> str:
        return self.name


class RulingQuerySet(models.QuerySet):
    def proper(self) -> RulingQuerySet:
        """Rulings, not the separator lines stored with them (headings)."""
        return self.filter(is_heading=False)


class Ruling(models.Model):
    """A dated ruling on a card. Sources give rulings no id: a ruling is its card, date and
    text; a reworded ruling (same card and date, close text) is updated in place.

    What the source says (`source_text`, whose hash is the identity imports match on) is kept
    apart from the text shown, which a maintainer may correct (`text_edited`)."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="rulings")
    date = models.DateField(_("date"), db_index=True)
    text = models.TextField(_("text"))
    text_hash = models.CharField(max_length=16)  # of the text shown
    source_text = models.TextField(
        _("source text"),
        blank=True,
        help_text=_("The text as the last imported file gave it (empty: added by hand)."),
    )
    source_hash = models.CharField(max_length=16, blank=True)  # the ruling's identity
    text_edited = models.BooleanField(
        _("text edited"),
        default=False,
        help_text=_("Corrected by a maintainer: imports keep this text."),
    )
    missing = models.BooleanField(
        default=False,
        help_text=_("Absent from the last imported file that contained its card (kept)."),
    )
    linked_at = models.DateTimeField(null=True, blank=True)
    is_heading = models.BooleanField(
        _("heading"),
        default=False,
        help_text=_(
            "A Gatherer separator line (“The following rulings focus on …”): shown as the "
            "heading of the rulings under it, not as a ruling."
        ),
    )
    group = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="grouped",
        limit_choices_to={"is_heading": True},
        verbose_name=_("under the heading"),
        help_text=_("The heading this ruling is listed under; its links follow the heading."),
    )
    grouped_by_hand = models.BooleanField(
        default=False,
        help_text=_("Heading or group set by a maintainer: imports leave them as they are."),
    )

    objects = RulingQuerySet.as_manager()

    class Meta:
        ordering = ["card", "date", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["card", "date", "source_hash"],
                condition=~Q(source_hash=""),
                name="rulings_ruling_source_identity",
            )
        ]

    def __str__(self) -> str:
        return f"{self.card} {self.date}: {self.text[:60]}"


class LinkKind(models.TextChoices):
    CITED = "cited", _("cited")  # the ruling names the rule number
    INFERRED = "inferred", _("inferred")  # found from the rules terms it uses
    CONFIRMED = "confirmed", _("confirmed")  # checked by a maintainer
    REJECTED = "rejected", _("rejected")  # a wrong inference, kept so it is not made again
    # The nearest rule by meaning, for a ruling the linker found nothing for
    # (rulings.linking.proposals): shown to maintainers only, until one confirms it.
    PROPOSED = "proposed", _("proposed")


#: Links no reader sees: rejected ones, and proposals nobody has confirmed yet.
HIDDEN_KINDS = (LinkKind.REJECTED, LinkKind.PROPOSED)


class RulingLink(models.Model):
    """A ruling leans on a rule. The link follows the rule's lineage through renumberings and
    records the number it had in the release in force on the ruling's date and today."""

    ruling = models.ForeignKey(Ruling, on_delete=models.CASCADE, related_name="links")
    lineage = models.ForeignKey("kb.Lineage", on_delete=models.CASCADE, related_name="ruling_links")
    kind = models.CharField(max_length=10, choices=LinkKind.choices, default=LinkKind.INFERRED)
    evidence = models.CharField(max_length=200, blank=True)
    release = models.ForeignKey(
        "kb.Release",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("The release in force on the ruling's date."),
    )
    number = models.CharField(max_length=12, blank=True, help_text=_("The number in that release."))
    current_number = models.CharField(
        max_length=12, blank=True, help_text=_("The number today (empty if the rule is gone).")
    )
    date = models.DateField(
        editable=False,
        help_text=_("The ruling's date, copied: a rule's rulings are listed newest first."),
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ruling", "lineage"], name="rulings_link_once")
        ]
        indexes = [
            models.Index(fields=["lineage", "kind"], name="rulings_link_lineage"),
            models.Index(fields=["lineage", "-date", "ruling"], name="rulings_link_by_date"),
        ]

    def __str__(self) -> str:
        return f"{self.ruling_id} → {self.current_number or self.number} ({self.kind})"

    def save(self, *args, **kwargs) -> None:
        if self.date is None:  # a link added by hand (admin)
            self.date = self.ruling.date
        super().save(*args, **kwargs)


class DataStamp(models.Model):
    """One row whose counter moves in the same transaction as every write to cards, faces,
    rulings and links (rulings.stamp.bump): the cached pages' key for this app's data (kb's
    page cache, through kb.hooks.register_page_stamp). One primary-key read per request; a
    rolled-back import or edit rolls the counter back with it."""

    counter = models.BigIntegerField(default=0)
    changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("data stamp")

    def __str__(self) -> str:
        return f"cards and rulings stamp {self.counter}"
