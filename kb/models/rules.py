"""Rule lineages, the numbers they held, their texts, examples and references."""

from __future__ import annotations

import datetime as dt
from typing import Self

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .versioning import IntervalBase, IntervalQuerySet, TextVersionBase, valid_on


class EntryKind(models.TextChoices):
    SECTION = "section", _("section")
    CHAPTER = "chapter", _("chapter")
    RULE = "rule", _("rule")
    SUBRULE = "subrule", _("subrule")


class Lineage(models.Model):
    """A rule's identity across releases, whatever numbers it had.

    The key is derived from its first appearance (number @ effective date, "#2" for a number the
    source printed twice), so the same archive always yields the same keys.
    """

    key = models.CharField(max_length=48, unique=True)
    kind = models.CharField(max_length=10, choices=EntryKind.choices)

    class Meta:
        verbose_name = _("lineage")

    def __str__(self) -> str:
        return self.key


class RuleNumberQuerySet(IntervalQuerySet):
    def moves(self) -> RuleNumberQuerySet:
        """Renumberings: numbers a lineage took after holding another one."""
        return self.exclude(previous_number="")


class RuleNumber(IntervalBase):
    """The number a lineage held over an interval. A row with a previous number is a move."""

    lineage = models.ForeignKey(Lineage, on_delete=models.CASCADE, related_name="numbers")
    number = models.CharField(_("number"), max_length=12)
    kind = models.CharField(max_length=10, choices=EntryKind.choices)
    chapter = models.CharField(max_length=3, help_text=_("Chapter (or section) number."))
    sort_key = models.CharField(max_length=20)
    ordinal = models.PositiveSmallIntegerField(
        default=0, help_text=_("Above 0 when the source printed the same number again.")
    )
    previous_number = models.CharField(
        max_length=12, blank=True, help_text=_("The number this lineage held just before.")
    )

    objects = RuleNumberQuerySet.as_manager()

    class Meta:
        verbose_name = _("rule number")
        indexes = [
            models.Index(fields=["number", "valid_from"], name="kb_rn_number_from"),
            models.Index(fields=["chapter", "valid_from"], name="kb_rn_chapter_from"),
            models.Index(fields=["lineage", "valid_from"], name="kb_rn_lineage_from"),
        ]

    def __str__(self) -> str:
        end = self.valid_to.isoformat() if self.valid_to else "…"
        return f"{self.number} [{self.valid_from.isoformat()}, {end})"


class RuleVersionQuerySet(IntervalQuerySet):
    def numbered_as_of(self, date: dt.date, where: Q | None = None) -> Self:
        """Versions in force on `date` whose lineage's number in force on `date` satisfies
        `where` (a Q over `lineage__numbers__`).

        The number's validity and `where` go in one filter(): across a multi-valued relation,
        separate filter() calls may each join a different number row.
        """
        return self.as_of(date).filter(valid_on(date, "lineage__numbers__") & (where or Q()))


class RuleVersion(TextVersionBase):
    """One wording of a rule (text and examples), whatever number it was printed under."""

    lineage = models.ForeignKey(Lineage, on_delete=models.CASCADE, related_name="versions")

    objects = RuleVersionQuerySet.as_manager()

    class Meta:
        verbose_name = _("rule version")
        indexes = [models.Index(fields=["lineage", "valid_from"], name="kb_rv_lineage_from")]

    def __str__(self) -> str:
        end = self.valid_to.isoformat() if self.valid_to else "…"
        return f"{self.lineage.key} [{self.valid_from.isoformat()}, {end})"


class Example(models.Model):
    version = models.ForeignKey(RuleVersion, on_delete=models.CASCADE, related_name="examples")
    position = models.PositiveSmallIntegerField()
    text = models.TextField()

    class Meta:
        ordering = ["version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "position"], name="kb_example_position")
        ]

    def __str__(self) -> str:
        return f"example {self.position + 1} of {self.version_id}"


class Reference(models.Model):
    """A citation inside a text, kept as a span and target numbers.

    Resolved when a page is read, against the release being viewed: a 2024 text citing 701.16a
    links to what 701.16a was in 2024.
    """

    rule_version = models.ForeignKey(
        RuleVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="references"
    )
    glossary_version = models.ForeignKey(
        "kb.GlossaryVersion",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="references",
    )
    example_position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Empty for the main text.")
    )
    lang = models.CharField(max_length=2, default="en")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    target = models.CharField(max_length=12)
    target_end = models.CharField(max_length=12, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(rule_version__isnull=False, glossary_version__isnull=True)
                    | models.Q(rule_version__isnull=True, glossary_version__isnull=False)
                ),
                name="kb_reference_one_owner",
            )
        ]
        indexes = [models.Index(fields=["target"], name="kb_ref_target")]

    def __str__(self) -> str:
        return f"→ {self.target}{'–' + self.target_end if self.target_end else ''}"
