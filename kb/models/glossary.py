"""Glossary terms and their versions (versioned like rules; the headword is the key)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .versioning import IntervalQuerySet, TextVersionBase


class GlossaryTerm(models.Model):
    """A glossary entry's identity: its headword without "(Obsolete)", normalised."""

    key = models.CharField(max_length=300, unique=True)
    slug = models.SlugField(max_length=120, unique=True)

    class Meta:
        verbose_name = _("glossary term")

    def __str__(self) -> str:
        return self.key


class GlossaryVersion(TextVersionBase):
    term = models.ForeignKey(GlossaryTerm, on_delete=models.CASCADE, related_name="versions")
    headword = models.CharField(max_length=300)
    aliases = models.JSONField(default=list)
    obsolete = models.BooleanField(default=False)
    ordinal = models.PositiveSmallIntegerField(default=0)

    objects = IntervalQuerySet.as_manager()

    class Meta:
        verbose_name = _("glossary version")
        indexes = [models.Index(fields=["term", "valid_from"], name="kb_gv_term_from")]

    def __str__(self) -> str:
        return self.headword
