"""What interval rows share: validity over effective dates, and text comparison hashes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Self

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class FrenchStatus(models.TextChoices):
    OFFICIAL = "official", _("official")
    UNOFFICIAL = "unofficial", _("unofficial")
    REVIEWED = "reviewed", _("reviewed")


def valid_on(date: dt.date, prefix: str = "") -> Q:
    """Rows valid on `date`: valid_from <= date < valid_to (valid_to empty while current).

    Reads use `as_of` (or a named method built on it); the raw Q is for conditions across a
    relation (`prefix`) and for the archive's bulk work.
    """
    return Q(**{f"{prefix}valid_from__lte": date}) & (
        Q(**{f"{prefix}valid_to__gt": date}) | Q(**{f"{prefix}valid_to__isnull": True})
    )


def row_valid_on(row: Mapping[str, Any], date: dt.date) -> bool:
    """`valid_on` for a row already read (`.values()`): what the French states, the French
    import and the export check on rows they hold in memory."""
    return row["valid_from"] <= date and (row["valid_to"] is None or row["valid_to"] > date)


class IntervalQuerySet(models.QuerySet):
    def as_of(self, date: dt.date) -> Self:
        """Rows in force in the release effective on (or in force on) `date`: the one way
        reads pick a release's rows, so that the validity rule is written once."""
        return self.filter(valid_on(date))


def interval_check(name: str) -> models.CheckConstraint:
    """valid_from < valid_to where the interval is closed: an empty or inverted interval would
    show a version in no release, or in releases where another one is in force."""
    return models.CheckConstraint(
        condition=Q(valid_to__isnull=True) | Q(valid_from__lt=models.F("valid_to")),
        name=name,
        violation_error_message=_("“valid to” must be after “valid from”."),
    )


class IntervalBase(models.Model):
    """A value held over [valid_from, valid_to) effective dates (valid_to empty while current).

    A release that leaves the value unchanged adds no row; a removal closes the interval.
    """

    valid_from = models.DateField(_("valid from"), db_index=True)
    valid_to = models.DateField(_("valid to"), null=True, blank=True, db_index=True)

    objects = IntervalQuerySet.as_manager()

    class Meta:
        abstract = True


#: The hashes of a text (kb.archive.texts.hashes) that tell wording, reference and typography
#: changes apart, as TextVersionBase declares them: the field list the archive's importer,
#: edit services, history and admin read, in the order of `hashes`' values.
HASH_FIELDS = ("text_hash", "folded_hash", "masked_hash", "examples_hash")

#: What a maintainer changed on a row, kept apart from what the official source printed
#: (kb.archive.editing writes them), as TextVersionBase and kb.models.Example declare them: the
#: field list the export, the importer's carry-over and the admin read.
EDIT_FIELDS = ("source_text", "en_edited", "fr_edited", "edited_by", "edited_at")


class TextVersionBase(IntervalBase):
    """One wording of an entry, with hashes that tell wording, reference and typography apart
    (HASH_FIELDS) and a maintainer's edits kept apart from the official text (EDIT_FIELDS)."""

    text = models.TextField(_("text"))
    text_hash = models.CharField(max_length=16, help_text=_("Exact text and examples."))
    folded_hash = models.CharField(max_length=16, help_text=_("Typography folded."))
    masked_hash = models.CharField(
        max_length=16, help_text=_("Main text folded, cited numbers masked.")
    )
    examples_hash = models.CharField(max_length=16, blank=True)
    # Relative to the previous version of the same lineage: space-separated flags among
    # new, wording, examples, reference, typography (and renamed, for glossary headwords).
    change = models.CharField(max_length=60, blank=True)
    wording_since = models.DateField(
        _("wording since"),
        help_text=_("Effective date of the last change that was not typography or references."),
    )
    fr_release = models.ForeignKey(
        "kb.Release",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("The English release the French text translates."),
    )
    fr_status = models.CharField(max_length=12, choices=FrenchStatus.choices, blank=True)
    # A replacement that rewords the English of the very release a French text translates
    # leaves no row holding the English it was written against: that English is kept here,
    # with its folded hash, so that the French reads as stale (kb.french.status). Empty: the
    # French translates the row's own English, or its `fr_release`'s.
    fr_translates_text = models.TextField(
        _("English the French translates"),
        blank=True,
        db_default="",
        help_text=_(
            "Kept when a replacement reworded the English under an existing French text "
            "(empty: the French translates this row's English)."
        ),
    )
    fr_translates_hash = models.CharField(max_length=16, blank=True, db_default="")
    # What a maintainer changed, kept apart from what the official source says, so that an
    # import can tell the two apart and carry the maintainer's work over (kb.archive.editing writes
    # them).
    source_text = models.TextField(
        _("official English text"),
        blank=True,
        db_default="",
        help_text=_(
            "The English text as the official source printed it, kept once a "
            "maintainer edited the English text (empty: never edited)."
        ),
    )
    en_edited = models.BooleanField(_("English edited"), default=False, db_default=False)
    fr_edited = models.BooleanField(_("French edited"), default=False, db_default=False)
    edited_by = models.CharField(_("edited by"), max_length=150, blank=True, db_default="")
    edited_at = models.DateTimeField(_("edited at"), null=True, blank=True, db_index=True)

    class Meta:
        abstract = True
