"""The English ↔ French vocabulary of the rules (keywords, zones, steps, game terms).

No full French CR is available: French terms are mined from cards printed in both languages
(rulings app) and completed by a curated list; kb shows them on keyword rules and glossary
entries, and search uses them to reach English rules from French queries.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class VocabularySource(models.TextChoices):
    CARDS = "cards", _("mined from cards")
    CURATED = "curated", _("curated list")


class VocabularyTerm(models.Model):
    en = models.CharField(_("English term"), max_length=120)
    fr = models.CharField(_("French term"), max_length=120)
    kind = models.CharField(
        max_length=20,
        help_text=_("keyword ability, keyword action, glossary, zone, step…"),
    )
    lineage = models.ForeignKey(
        "kb.Lineage", null=True, blank=True, on_delete=models.SET_NULL, related_name="vocabulary"
    )
    glossary_term = models.ForeignKey(
        "kb.GlossaryTerm",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="vocabulary",
    )
    source = models.CharField(max_length=10, choices=VocabularySource.choices)
    agreeing = models.PositiveIntegerField(
        default=0, help_text=_("Cards whose French text gives this term.")
    )
    seen = models.PositiveIntegerField(default=0, help_text=_("Cards examined for the term."))
    alternatives = models.JSONField(default=list, blank=True)
    checked = models.BooleanField(default=False, help_text=_("Checked by hand."))
    # A maintainer's French term outlives every rebuild: the rebuild refreshes the mined
    # evidence (mined_fr, agreeing, seen, alternatives) and leaves `fr` alone once edited.
    edited = models.BooleanField(_("edited by a maintainer"), default=False, db_default=False)
    mined_fr = models.CharField(
        _("mined French term"),
        max_length=120,
        blank=True,
        db_default="",
        help_text=_("What the last rebuild mined, kept apart from an edited French term."),
    )
    edited_by = models.CharField(_("edited by"), max_length=150, blank=True, db_default="")
    edited_at = models.DateTimeField(_("edited at"), null=True, blank=True)

    class Meta:
        ordering = ["en"]
        constraints = [models.UniqueConstraint(fields=["en", "kind"], name="kb_vocab_en_kind")]
        indexes = [models.Index(fields=["fr"], name="kb_vocab_fr")]

    def __str__(self) -> str:
        return f"{self.en} = {self.fr}"
