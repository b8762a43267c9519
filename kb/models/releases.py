"""Releases: one official CR document each, keyed by its effective date."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ReleaseQuerySet(models.QuerySet["Release"]):
    def in_force_on(self, date: dt.date) -> Release | None:
        """The release in force on `date`: the latest effective date not after it."""
        return self.filter(effective_date__lte=date).order_by("-effective_date").first()

    def current(self) -> Release | None:
        """The release in force today (`today()`): not the latest loaded, which may take
        effect later."""
        return self.in_force_on(today())

    def before(self, date: dt.date) -> Release | None:
        return self.filter(effective_date__lt=date).order_by("-effective_date").first()

    def after(self, date: dt.date) -> Release | None:
        return self.filter(effective_date__gt=date).order_by("effective_date").first()


class Release(models.Model):
    effective_date = models.DateField(_("effective date"), unique=True)
    # Set codes repeat (Ikoria and Kaldheim had two releases): never a key.
    set_name = models.CharField(_("set name"), max_length=200, blank=True)
    set_code = models.CharField(_("set code"), max_length=12, blank=True)
    title = models.CharField(max_length=200, blank=True)
    introduction = models.TextField(blank=True)
    credits = models.TextField(blank=True)
    source = models.CharField(
        max_length=500, blank=True, help_text=_("File name or URL the English text came from.")
    )
    sha256 = models.CharField(
        max_length=64, help_text=_("Checksum of the decoded text, line ends normalised.")
    )
    # Counts of the rows valid in this release, written at import (kb_stats recounts from rows).
    counts = models.JSONField(default=dict, blank=True)
    imported_at = models.DateTimeField(auto_now_add=True)

    objects = ReleaseQuerySet.as_manager()

    class Meta:
        ordering = ["effective_date"]
        verbose_name = _("release")
        verbose_name_plural = _("releases")

    def __str__(self) -> str:
        name = f" ({self.set_name})" if self.set_name else ""
        return f"{self.effective_date.isoformat()}{name}"

    def get_absolute_url(self) -> str:
        """The release's table of contents ("View on site")."""
        try:
            return reverse("kb:contents", kwargs={"release": self.effective_date.isoformat()})
        except NoReverseMatch:
            return ""


# The day (kb.selectors re-exports it: every read of "current" asks it).
def today() -> dt.date:
    """The day whose release is `current`: the one place the site asks what day it is, so that
    a release loaded before its effective date becomes current on that date with nothing done,
    and so that tests (and a maintainer previewing a release to come) can move the day with
    the setting KB_TODAY (a date or "YYYY-MM-DD"). Else today in the site's time zone."""
    fixed = getattr(settings, "KB_TODAY", None)
    if fixed:
        return fixed if isinstance(fixed, dt.date) else dt.date.fromisoformat(str(fixed))
    return timezone.localdate()
