"""Glossary terms and their versions (versioned like rules; the headword is the key)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from kb.crtext.limits import CONTROL_RE, MAX_ALIASES, MAX_HEADWORD_CHARS
from kb.models.versioning import IntervalQuerySet, TextVersionBase, interval_check


def alias_list(value: Any) -> list[str]:
    """The aliases as a list of strings, whatever a legacy row holds: readers call this so that
    one malformed value saved earlier (`[1, {"a": 2}]`, a bare string) never breaks a page,
    the search or the API (non-strings are dropped, a bare string is one alias)."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, list | tuple):
        return []
    return [a for a in value if isinstance(a, str) and a.strip()]


def alias_errors(value: Any) -> str:
    """Why `value` is not a valid aliases list (empty string: it is). The bounds are the
    import's (kb.crtext.limits): at most MAX_ALIASES aliases, each at most a headword long."""
    if not isinstance(value, list):
        return 'aliases must be a JSON list of strings, e.g. ["Attack", "Attacks"]'
    bad = [repr(a) for a in value if not isinstance(a, str) or not a.strip()]
    if bad:
        return f"aliases must be non-empty strings; not {', '.join(bad[:3])}"
    if len(value) > MAX_ALIASES:
        return f"at most {MAX_ALIASES} aliases, not {len(value):,}"
    long = [a for a in value if len(a) > MAX_HEADWORD_CHARS]
    if long:
        return (
            f"an alias holds at most {MAX_HEADWORD_CHARS} characters, not {len(long[0]):,} "
            f"({long[0][:40]!r}…)"
        )
    control = next((a for a in value if CONTROL_RE.search(a)), None)
    if control is not None:
        return f"an alias holds a control character: {control[:40]!r}"
    return ""


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
        constraints = [
            interval_check("kb_gv_interval"),
            models.UniqueConstraint(fields=["term", "valid_from"], name="kb_gv_term_once"),
        ]
        indexes = [models.Index(fields=["term", "valid_from"], name="kb_gv_term_from")]

    def __str__(self) -> str:
        """ "Trample (current since 2009-07-11)": the headword and when it was in force."""
        if not self.valid_from:
            return self.headword
        from kb.models.rules import validity_words

        return f"{self.headword} ({validity_words(self.valid_from, self.valid_to)})"

    @property
    def alias_list(self) -> list[str]:
        return alias_list(self.aliases)

    def get_absolute_url(self) -> str:
        """The term's page in the version's first release ("View on site")."""
        try:
            return reverse(
                "kb:glossary_term",
                kwargs={"release": self.valid_from.isoformat(), "slug": self.term.slug},
            )
        except NoReverseMatch:
            return ""

    def clean(self) -> None:
        from kb.models.rules import interval_errors, overlap_errors

        label = f"glossary “{self.headword}” ({self.valid_from})"
        errors = interval_errors(self, label)
        problem = alias_errors(self.aliases)
        if problem:
            errors["aliases"] = f"{label}: {problem}"
        if self.term_id and "valid_to" not in errors:
            siblings = GlossaryVersion.objects.filter(term_id=self.term_id)
            errors.update(overlap_errors(self, siblings, label))
        if errors:
            raise ValidationError(errors)
