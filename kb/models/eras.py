"""Links across the Magic 2010 renumbering: a 2009-07-11 rule and the 2009-05-01 rule(s) it
came from (kb.archive.crossing finds them; kb.archive.eras stores them)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from kb.models.rules import Lineage


class EraLinkQuerySet(models.QuerySet):
    def shown(self) -> EraLinkQuerySet:
        """What readers see as a rule's past: sure links and confirmed ones, never a proposal
        or a rejected link."""
        return self.filter(status__in=[EraLink.Status.SURE, EraLink.Status.CONFIRMED])


class EraLink(models.Model):
    """Legacy rule `legacy_number` (2009-05-01) went, whole or in part, into `modern_number`
    (2009-07-11).

    Keyed by the two numbers, not by lineage rows: those two releases never change, so a
    maintainer's verdict (confirmed, rejected) finds its link again after any re-import or
    rebuild, and the lineages are looked up afresh each time links are computed.
    """

    class Status(models.TextChoices):
        SURE = "sure", _("sure (shown)")
        PROPOSED = "proposed", _("proposed (for review)")
        CONFIRMED = "confirmed", _("confirmed by a maintainer")
        REJECTED = "rejected", _("rejected by a maintainer")

    class How(models.TextChoices):
        WHOLE = "whole", _("whole")
        PART = "part", _("in part")

    legacy_number = models.CharField(max_length=16)
    modern_number = models.CharField(max_length=16)
    legacy = models.ForeignKey(
        Lineage, null=True, blank=True, on_delete=models.SET_NULL, related_name="successors"
    )
    modern = models.ForeignKey(
        Lineage, null=True, blank=True, on_delete=models.SET_NULL, related_name="origins"
    )
    how = models.CharField(max_length=8, choices=How.choices)
    score = models.FloatField(help_text=_("How alike the texts are (0 to 1)."))
    evidence = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, db_index=True)
    reviewed_by = models.CharField(max_length=150, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)

    objects = EraLinkQuerySet.as_manager()

    class Meta:
        verbose_name = _("link across Magic 2010")
        verbose_name_plural = _("links across Magic 2010")
        constraints = [
            models.UniqueConstraint(
                fields=["legacy_number", "modern_number"], name="era_link_unique_pair"
            )
        ]
        ordering = ["legacy_number", "modern_number"]

    def __str__(self) -> str:
        return f"{self.legacy_number} (2009-05-01) → {self.modern_number} (2009-07-11)"

    @property
    def reviewed(self) -> bool:
        return self.status in (self.Status.CONFIRMED, self.Status.REJECTED)
