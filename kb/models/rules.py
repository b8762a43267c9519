"""Rule lineages, the numbers they held, their texts, examples and references."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Self

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from kb.crtext.numbers import is_number
from kb.models.versioning import (
    IntervalBase,
    IntervalQuerySet,
    TextVersionBase,
    interval_check,
    valid_on,
)


def interval_errors(obj: IntervalBase, label: str) -> dict[str, str]:
    """An inverted or empty interval, named by the row it concerns (what model clean() and
    the edit services report: "which rule, which release, which field")."""
    if obj.valid_from and obj.valid_to and obj.valid_from >= obj.valid_to:
        return {
            "valid_to": f"{label}: “valid to” ({obj.valid_to.isoformat()}) must be after "
            f"“valid from” ({obj.valid_from.isoformat()})."
        }
    return {}


def overlap_errors(obj: IntervalBase, siblings: models.QuerySet, label: str) -> dict[str, str]:
    """Two rows of one lineage valid on the same date would show the rule twice."""
    if not obj.valid_from:
        return {}
    others = siblings.exclude(pk=obj.pk).filter(
        Q(valid_to__isnull=True) | Q(valid_to__gt=obj.valid_from)
    )
    if obj.valid_to:
        others = others.filter(valid_from__lt=obj.valid_to)
    clash = others.order_by("valid_from").first()
    if clash is None:
        return {}
    end = clash.valid_to.isoformat() if clash.valid_to else "…"
    return {
        "valid_from": f"{label}: this interval overlaps another row of the same rule, valid "
        f"[{clash.valid_from.isoformat()}, {end})."
    }


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
        constraints = [
            interval_check("kb_rn_interval"),
            # A number is lower case and never empty ("602.2A" is not a rule number).
            models.CheckConstraint(
                condition=Q(number=Lower("number")) & ~Q(number=""),
                name="kb_rn_number_shape",
                violation_error_message=_("A rule number is lower case, e.g. 602.2a."),
            ),
            models.UniqueConstraint(fields=["lineage", "valid_from"], name="kb_rn_lineage_once"),
        ]
        indexes = [
            models.Index(fields=["number", "valid_from"], name="kb_rn_number_from"),
            models.Index(fields=["chapter", "valid_from"], name="kb_rn_chapter_from"),
            models.Index(fields=["lineage", "valid_from"], name="kb_rn_lineage_from"),
        ]

    def __str__(self) -> str:
        end = self.valid_to.isoformat() if self.valid_to else "…"
        return f"{self.number} [{self.valid_from.isoformat()}, {end})"

    def clean(self) -> None:
        label = f"rule {self.number or '?'} from {self.valid_from or '?'}"
        errors = interval_errors(self, label)
        if self.number and not is_number(self.number):
            errors["number"] = (
                f"{label}: “{self.number}” is not a rule number (e.g. 602.2a, 702.19, 100)."
            )
        if self.lineage_id and not errors:
            siblings = RuleNumber.objects.filter(lineage_id=self.lineage_id)
            errors.update(overlap_errors(self, siblings, label))
        if errors:
            raise ValidationError(errors)


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
        constraints = [
            interval_check("kb_rv_interval"),
            models.UniqueConstraint(fields=["lineage", "valid_from"], name="kb_rv_lineage_once"),
        ]
        indexes = [models.Index(fields=["lineage", "valid_from"], name="kb_rv_lineage_from")]

    def __str__(self) -> str:
        """What a maintainer recognises: "702.19a Trample (current since 2024-08-02)", the
        number and title the rule has in the last release this wording is in force in, not
        the lineage key (the number it had when it first appeared: "702.19a@2009-07-11" is
        Banding, today 702.22a). Two queries, kept on the instance."""
        cached = getattr(self, "_described", None)
        if cached is None:
            cached = self._described = self.describe()
        return cached

    def validity(self) -> str:
        """ "current since 2024-08-02", "2009-07-11 to 2011-06-17" (see validity_words)."""
        return validity_words(self.valid_from, self.valid_to)

    def last_day(self) -> dt.date:
        """The last day this version is in force (dt.date.max while it is current): reading
        the archive on it gives the rule as this wording last stood."""
        return self.valid_to - dt.timedelta(days=1) if self.valid_to else dt.date.max

    def last_number(self) -> tuple[str, str]:
        """(number, kind) the lineage held on the last day of this version (its number today
        while it is current); ("", "") for a lineage without numbers."""
        if not self.lineage_id or not self.valid_from:
            return "", ""
        numbers = RuleNumber.objects.filter(lineage_id=self.lineage_id)
        if self.valid_to is not None:
            numbers = numbers.filter(valid_from__lt=self.valid_to)
        row = numbers.order_by("-valid_from").values_list("number", "kind").first()
        return row if row else ("", "")

    def describe(self) -> str:
        """The number, title and validity of this version (see __str__)."""
        if not self.lineage_id or not self.valid_from:
            return "new rule version"
        number, kind = self.last_number()
        if not number:
            return f"rule version {self.lineage.key} ({self.validity()})"
        on = self.last_day()
        title = rule_titles([(number, kind, on, self.text_en or "")]).get((number, on), "")
        return " ".join(p for p in (number, title) if p) + f" ({self.validity()})"

    def number_on(self, date: object = None) -> str:
        """The number the lineage held on `date` (default: the version's first day)."""
        when = date or self.valid_from
        number = (
            RuleNumber.objects.filter(lineage_id=self.lineage_id)
            .as_of(when)
            .values_list("number", flat=True)
            .first()
        )
        return number or ""

    def label(self) -> str:
        """How messages name this version: "rule 602.2a (2025-06-06)"."""
        return f"rule {self.number_on() or self.lineage_id} ({self.valid_from})"

    def get_absolute_url(self) -> str:
        """The public page of this wording: its number in its first release ("View on site")."""
        number = self.number_on()
        try:
            return reverse(
                "kb:rule", kwargs={"release": self.valid_from.isoformat(), "number": number}
            )
        except NoReverseMatch:
            return ""

    def clean(self) -> None:
        label = self.label() if self.lineage_id and self.valid_from else "rule version"
        errors = interval_errors(self, label)
        if self.lineage_id and not errors:
            siblings = RuleVersion.objects.filter(lineage_id=self.lineage_id)
            errors.update(overlap_errors(self, siblings, label))
        if errors:
            raise ValidationError(errors)


def validity_words(valid_from: dt.date, valid_to: dt.date | None) -> str:
    """When a row is in force, as the change forms' titles say it: "current since 2024-08-02"
    (in force today: kb.selectors.today, the day the site reads), "2009-07-11 to 2011-06-17",
    "to come on 2099-01-01" for a release loaded before its date."""
    from kb.models.releases import today

    now = today()
    start = valid_from.isoformat()
    until = f" until {valid_to.isoformat()}" if valid_to else ""
    if valid_from > now:
        return f"to come on {start}{until}"
    if valid_to is None or valid_to > now:
        return f"current since {start}{until}"
    return f"{start} to {valid_to.isoformat()}"


def _within(date: dt.date, start: dt.date, end: dt.date | None) -> bool:
    return start <= date and (end is None or date < end)


def title_numbers(number: str, kind: str) -> list[str]:
    """The numbers whose text may title `number`, nearest first: the entry itself (a keyword
    rule, a chapter or a section is its own title), its rule, its chapter, its section."""
    from kb.crtext.numbers import parent_of

    chain = [number] if kind != "subrule" else []
    parent = parent_of(number)
    while parent is not None:
        chain.append(parent)
        parent = parent_of(parent)
    return chain


def rule_titles(
    keys: Iterable[tuple[str, str, dt.date, str]],
) -> dict[tuple[str, dt.date], str]:
    """The title of each (number, kind, date, own text): the nearest heading among the entry
    and its parents in the release in force on `date` ("Trample" for 702.19a, "General" for
    100.1a, whose rule 100.1 is a sentence). One query, whatever the number of keys and dates:
    what a change list page needs for its rows."""
    keys = list(keys)
    wanted: dict[dt.date, set[str]] = {}
    for number, kind, date, _text in keys:
        chain = title_numbers(number, kind)
        wanted.setdefault(date, set()).update(chain if kind == "subrule" else chain[1:])
    texts: dict[tuple[str, dt.date], tuple[str, str]] = {}
    if any(wanted.values()):
        where = Q()
        for date, numbers in wanted.items():
            if numbers:
                where |= (
                    valid_on(date)
                    & valid_on(date, "lineage__numbers__")
                    & Q(lineage__numbers__number__in=sorted(numbers), lineage__numbers__ordinal=0)
                )
        rows = RuleVersion.objects.filter(where).values_list(
            "lineage__numbers__number",
            "lineage__numbers__kind",
            "text_en",
            "valid_from",
            "valid_to",
            "lineage__numbers__valid_from",
            "lineage__numbers__valid_to",
        )
        for number, kind, text, vf, vt, nf, nt in rows:
            for date, numbers in wanted.items():
                if number in numbers and _within(date, vf, vt) and _within(date, nf, nt):
                    texts[(number, date)] = (kind, text)
    out = {}
    for number, kind, date, text in keys:
        title = ""
        for i, candidate in enumerate(title_numbers(number, kind)):
            found = (kind, text) if i == 0 and kind != "subrule" else texts.get((candidate, date))
            if found and is_heading(found[0], found[1].strip()):
                title = found[1].strip()
                break
        out[(number, date)] = title
    return out


class ExampleOrigin(models.TextChoices):
    SOURCE = "source", _("official source")
    MAINTAINER = "maintainer", _("added by a maintainer")


class Example(models.Model):
    version = models.ForeignKey(RuleVersion, on_delete=models.CASCADE, related_name="examples")
    position = models.PositiveSmallIntegerField()
    text = models.TextField()
    origin = models.CharField(
        max_length=10,
        choices=ExampleOrigin.choices,
        default=ExampleOrigin.SOURCE,
        db_default=ExampleOrigin.SOURCE,
    )
    source_text = models.TextField(
        _("official English text"),
        blank=True,
        db_default="",
        help_text=_("The English text as printed, kept once a maintainer edited it."),
    )
    en_edited = models.BooleanField(_("English edited"), default=False, db_default=False)
    fr_edited = models.BooleanField(_("French edited"), default=False, db_default=False)
    edited_by = models.CharField(_("edited by"), max_length=150, blank=True, db_default="")
    edited_at = models.DateTimeField(_("edited at"), null=True, blank=True)

    class Meta:
        ordering = ["version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "position"], name="kb_example_position")
        ]

    def __str__(self) -> str:
        """ "example 3" (the admin's change messages name it beside its rule); an example not
        saved yet (an inline form's instance) has no position: "new example"."""
        if self.position is None:
            return "new example"
        return f"example {self.position + 1}"


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


#: A rule this short with no closing period only names its topic ("702.19. Trample").
HEADING_MAX = 80


def is_heading(kind: str, text: str) -> bool:
    """Section and chapter titles, and rules that only name a keyword ("702.19. Trample")."""
    if kind in ("section", "chapter"):
        return True
    return kind == "rule" and len(text) <= HEADING_MAX and not text.rstrip().endswith((".", ":"))
