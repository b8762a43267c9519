"""The English ↔ French vocabulary of the rules (keywords, zones, steps, game terms).

No full French CR is available: French terms are mined from cards printed in both languages
(rulings app) and completed by a curated list; kb shows them on keyword rules and glossary
entries, and search uses them to reach English rules from French queries.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

#: A French term mined from cards is shown only with this many agreeing cards and this share of
#: the cards examined (a single card may be a misprint or an untranslated text); below that it
#: is kept for maintainers ("left out" in the admin, listed by ``build_vocabulary``) until one
#: checks or corrects it. The same rule serves the badge, the glosses and the French titles.
SHOWN_MIN_AGREEING = 2
SHOWN_MIN_SHARE = 0.5


class VocabularySource(models.TextChoices):
    CARDS = "cards", _("mined from cards")
    CURATED = "curated", _("curated list")


def good_enough_q() -> Q:
    """Terms that are not a maintainer's and need no check to be shown: the curated list, and
    mined terms with enough agreeing cards."""
    return Q(source=VocabularySource.CURATED) | (
        Q(source=VocabularySource.CARDS, agreeing__gte=SHOWN_MIN_AGREEING)
        & Q(agreeing__gte=F("seen") * SHOWN_MIN_SHARE)
    )


class VocabularyQuerySet(models.QuerySet):
    def shown(self) -> VocabularyQuerySet:
        """The terms pages may show (badge, glosses, French titles): checked or corrected by a
        maintainer, curated, or mined with enough agreeing cards (see SHOWN_MIN_AGREEING)."""
        return self.filter(Q(checked=True) | Q(edited=True) | good_enough_q())

    def left_out(self) -> VocabularyQuerySet:
        """Mined terms too weakly supported to be shown: what a maintainer should look at."""
        return self.exclude(Q(checked=True) | Q(edited=True) | good_enough_q())


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

    objects = VocabularyQuerySet.as_manager()

    class Meta:
        ordering = ["en"]
        constraints = [models.UniqueConstraint(fields=["en", "kind"], name="kb_vocab_en_kind")]
        indexes = [models.Index(fields=["fr"], name="kb_vocab_fr")]

    def __str__(self) -> str:
        return f"{self.en} = {self.fr}"

    @property
    def verified(self) -> bool:
        """A person vouches for the term: a maintainer checked or wrote it, or it comes from
        the curated list. A term mined from cards is a guess until then."""
        return self.checked or self.edited or self.source == VocabularySource.CURATED

    @property
    def shown(self) -> bool:
        """Python twin of ``VocabularyQuerySet.shown`` for a row already loaded."""
        return self.verified or (
            self.agreeing >= SHOWN_MIN_AGREEING and self.agreeing >= self.seen * SHOWN_MIN_SHARE
        )
