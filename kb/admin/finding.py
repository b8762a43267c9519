"""Finding the rule a maintainer means: change lists read one release, as the site's pages do.

Why: a lineage's key is the number a rule had when it first appeared, and numbers are reused
("702.19a@2009-07-11" is Banding, today 702.22a; today's 702.19a is Trample). Listed and searched
by that key, a maintainer who typed "702.19a" opened Banding and published Trample's French
beside it. So the change lists of rule versions, glossary versions and examples show each row
by the number and title it has *in the release being read* (the current one by default, the
"release" filter picks another, or every release: each row then read on the last day it is in
force), with its validity and its first words; a search for a number puts the row holding that
number in that release first, then the rows holding the number by title, then texts citing it.

Bounded work per page, whatever its size: the reading is a filter and annotations on the list's
one query (numbers joined in the same filter() call, see RuleVersionQuerySet.numbered_as_of),
and the rows' titles are read after pagination in one more query (kb.models.rules.rule_titles).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.db.models import (
    Case,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.utils.text import Truncator, smart_split, unescape_string_literal
from django.utils.translation import gettext_lazy as _

from kb.crtext.numbers import is_number
from kb.models import Release, RuleNumber, RuleVersion
from kb.models.rules import rule_titles
from kb.models.versioning import valid_on

#: The `release` parameter's value for "every release".
ALL_RELEASES = "all"
#: Words of a text a change list shows.
FIRST_WORDS = 12
#: Far enough: the end of an open interval when comparing dates in SQL.
_OPEN_END = dt.date(9999, 12, 31)


# -- the release being read --------------------------------------------------------------------


def releases() -> list[Release]:
    """Every release, oldest first (kb.selectors keeps the list per process)."""
    from kb.selectors import Releases

    return Releases.load().all


def current_release() -> Release | None:
    """The release the site calls current (kb.selectors decides)."""
    from kb.selectors import Releases

    return Releases.load().current


def reading_of(request: HttpRequest) -> Release | None:
    """The release a change list reads: `?release=YYYY-MM-DD` (the release in force on that
    date), `?release=all` (None: every release) or, by default and for a value that names no
    release, the current one. Kept on the request: the filter, the search and the columns ask."""
    if hasattr(request, "_kb_reading"):
        return request._kb_reading  # type: ignore[attr-defined]
    token = request.GET.get(ReleaseFilter.parameter_name, "")
    found: Release | None
    if token == ALL_RELEASES:
        found = None
    else:
        found = current_release()
        try:
            date = dt.date.fromisoformat(token) if token else None
        except ValueError:
            date = None
        if date is not None:
            earlier = [r for r in releases() if r.effective_date <= date]
            found = earlier[-1] if earlier else found
    request._kb_reading = found  # type: ignore[attr-defined]
    return found


def release_label(release: Release | None) -> str:
    """How a release is named to maintainers: "2026-08-07 (Edge of Eternities)"."""
    return "—" if release is None else str(release)


class ReleaseFilter(admin.SimpleListFilter):
    """`?release=`: which release the list reads (current by default, or every release). The
    reading itself is applied by ReadingChangeList, before the other filters and the search
    (the number a row is listed and searched by depends on it)."""

    title = _("release being read")
    parameter_name = "release"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        from kb.selectors import Releases

        loaded = Releases.load()
        out = [(ALL_RELEASES, str(_("every release (each row on its last day)")))]
        for r in reversed(loaded.all):
            to_come = f" — {_('to come')}" if loaded.is_upcoming(r) else ""
            out.append((r.effective_date.isoformat(), f"{r}{to_come}"))
        return out

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset  # applied by ReadingChangeList.get_queryset

    def value(self) -> str | None:
        return self.used_parameters.get(self.parameter_name)

    def choices(self, changelist: ChangeList) -> Iterable[dict[str, Any]]:
        value = self.value()
        current = current_release()
        yield {
            "selected": value is None,
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "display": _("current release (%(release)s)") % {"release": release_label(current)},
        }
        for lookup, title in self.lookup_choices:
            yield {
                "selected": value == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }


class ReadingChangeList(ChangeList):
    """A change list whose rows are read in one release (see the module's docstring)."""

    def get_queryset(self, request: HttpRequest, exclude_parameters: Any = None) -> QuerySet:
        if not getattr(self, "_read", False):  # facets call this again: read once
            self.reading = reading_of(request)
            self.root_queryset = self.model_admin.read_rows(self.root_queryset, self.reading)
            self._read = True
        return super().get_queryset(request, exclude_parameters)

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        self.model_admin.attach_titles(self.result_list, self.reading)


# -- searching -----------------------------------------------------------------------------------


def search_words(term: str) -> list[str]:
    """The words of a search as the admin splits them (quoted phrases kept whole)."""
    out = []
    for bit in smart_split(term):
        if bit[:1] in ('"', "'") and bit[-1:] == bit[:1] and len(bit) > 1:
            bit = unescape_string_literal(bit)
        if bit.strip():
            out.append(bit)
    return out


def text_match(words: Sequence[str], fields: Sequence[str]) -> Q:
    """Every word in one of `fields` (what the admin's plain search does)."""
    where = Q()
    for word in words:
        any_field = Q()
        for name in fields:
            any_field |= Q(**{f"{name}__icontains": word})
        where &= any_field
    return where


def as_number(term: str) -> str | None:
    """The rule number a search is, if it is one ("702.19a", "702.19.", "702")."""
    bare = term.strip().rstrip(".").lower()
    return bare if bare and is_number(bare) else None


def titled_lineages(words: Sequence[str], date: dt.date) -> set[int]:
    """Lineages whose title in the release in force on `date` holds every word: the headings
    themselves (a section, chapter or keyword rule) and, for a keyword rule, its subrules.
    Two queries."""
    from kb.models.rules import is_heading

    if not words:
        return set()
    headings = RuleVersion.objects.numbered_as_of(
        date, Q(lineage__numbers__kind__in=["section", "chapter", "rule"])
    ).filter(text_match(words, ["text_en"]))
    numbers = {
        number
        for number, kind, text in headings.values_list(
            "lineage__numbers__number", "lineage__numbers__kind", "text_en"
        )[:200]
        if is_heading(kind, text.strip())
    }
    if not numbers:
        return set()
    rules = [n for n in numbers if "." in n]
    where = Q(number__in=sorted(numbers))
    for rule in rules:
        where |= Q(number__regex=rf"^{rule.replace('.', '[.]')}[a-z]+$")
    return set(RuleNumber.objects.as_of(date).filter(where).values_list("lineage_id", flat=True))


def ranked(queryset: QuerySet, ranks: Sequence[Q]) -> QuerySet:
    """Rows matching any of `ranks`, the first matching rank first (then the list's order)."""
    if not ranks:
        return queryset
    where = Q()
    for q in ranks:
        where |= q
    rank = Case(
        *(When(q, then=Value(i)) for i, q in enumerate(ranks)),
        default=Value(len(ranks)),
        output_field=IntegerField(),
    )
    order = queryset.query.order_by
    return queryset.filter(where).annotate(search_rank=rank).order_by("search_rank", *order)


def validity(valid_from: dt.date, valid_to: dt.date | None) -> str:
    """ "2019-06-14 → current" or "2009-07-11 → 2014-02-01" (valid up to the day before)."""
    end = valid_to.isoformat() if valid_to else _("current")
    return f"{valid_from.isoformat()} → {end}"


def first_words(text: str | None) -> str:
    return Truncator(" ".join((text or "").split())).words(FIRST_WORDS, truncate=" …")


def last_release_date(valid_to: dt.date | None, reading: Release | None) -> dt.date:
    """The date a row is read on: the release being read, else the row's last day."""
    if reading is not None:
        return reading.effective_date
    return valid_to - dt.timedelta(days=1) if valid_to else _OPEN_END


# -- the three readers ------------------------------------------------------------------------


class ReadingAdminMixin:
    """A ModelAdmin whose change list reads one release (put before ModelAdmin in the bases).
    Subclasses say how rows are read (`read_rows`), titled (`attach_titles`) and searched
    (`search_ranks`)."""

    #: Fields a plain word search looks in.
    text_search_fields: Sequence[str] = ()

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return ReadingChangeList

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        """Unordered: the list's order (get_ordering) names what reading a release annotates,
        and the change list applies it once the rows are read."""
        return self.model._default_manager.get_queryset()

    def read_rows(self, queryset: QuerySet, reading: Release | None) -> QuerySet:
        """The rows valid in `reading` (every row when None), annotated with their number and
        title there: each admin (rule versions, glossary versions, examples) says how."""
        raise NotImplementedError

    def attach_titles(self, rows: Iterable[Any], reading: Release | None) -> None:
        """Give the page's rows what one more query reads (titles)."""

    def search_ranks(self, term: str, reading: Release | None) -> list[Q]:
        """What a search for `term` matches, best first (a number, then a title, then a
        text): each admin says it for its own rows."""
        raise NotImplementedError

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        return ranked(queryset, self.search_ranks(term, reading_of(request))), False


def _number_subquery(lineage: str, valid_to: str) -> QuerySet:
    """The numbers a lineage held before a row's end, latest first (for the "every release"
    reading: the row's number on its last day)."""
    return RuleNumber.objects.filter(
        lineage_id=OuterRef(lineage),
        valid_from__lt=Coalesce(OuterRef(valid_to), Value(_OPEN_END)),
    ).order_by("-valid_from")


def last_number_of(lineage: str, prefix: str = "") -> Subquery:
    """The number a row's lineage held on the row's last day (a subquery, for annotate)."""
    return Subquery(_number_subquery(lineage, f"{prefix}valid_to").values("number")[:1])


def read_numbered(
    queryset: QuerySet, reading: Release | None, lineage: str, prefix: str = ""
) -> QuerySet:
    """Rows (rule versions, or examples with prefix "version__") read in `reading`: those in
    force then, with the number their lineage held then (number, number_kind, number_sort,
    number_ordinal); every row with its number on its last day when `reading` is None."""
    if reading is not None:
        date = reading.effective_date
        numbers = f"{prefix}lineage__numbers__"
        return queryset.filter(valid_on(date, prefix) & valid_on(date, numbers)).annotate(
            number=F(f"{numbers}number"),
            number_kind=F(f"{numbers}kind"),
            number_sort=F(f"{numbers}sort_key"),
            number_ordinal=F(f"{numbers}ordinal"),
        )
    last = _number_subquery(lineage, f"{prefix}valid_to")
    return queryset.annotate(
        number=Subquery(last.values("number")[:1]),
        number_kind=Subquery(last.values("kind")[:1]),
        number_sort=Subquery(last.values("sort_key")[:1]),
        number_ordinal=Subquery(last.values("ordinal")[:1]),
    )


def number_ranks(number: str, reading: Release | None, lineage: str, prefix: str = "") -> list[Q]:
    """A search for a rule number: the rows holding it in the release being read; over every
    release, the current row holding it today first, then the rows that held it while in
    force."""
    if reading is not None:
        return [Q(number=number)]
    held = RuleNumber.objects.filter(
        lineage_id=OuterRef(lineage),
        number=number,
        valid_from__lt=Coalesce(OuterRef(f"{prefix}valid_to"), Value(_OPEN_END)),
    ).filter(Q(valid_to__isnull=True) | Q(valid_to__gt=OuterRef(f"{prefix}valid_from")))
    return [Q(number=number, **{f"{prefix}valid_to__isnull": True}), Q(Exists(held))]


def attach_rule_titles(rows: Sequence[Any], reading: Release | None) -> None:
    """row.title: the title of each row's number in the release read (one query). Rows are
    rule versions, or examples (read through their version)."""
    keys = []
    for row in rows:
        version = getattr(row, "version", row)
        row.read_on = last_release_date(version.valid_to, reading)
        if row.number:
            keys.append((row.number, row.number_kind, row.read_on, version.text_en or ""))
    titles = rule_titles(keys) if keys else {}
    for row in rows:
        row.title = titles.get((row.number, row.read_on), "") if row.number else ""


class RuleReadingMixin(ReadingAdminMixin):
    """Rule versions by number and title."""

    text_search_fields = ("text_en", "text_fr")

    def get_ordering(self, request: HttpRequest) -> list[str]:
        return ["number_sort", "number_ordinal", "-valid_from"]

    def read_rows(self, queryset: QuerySet, reading: Release | None) -> QuerySet:
        return read_numbered(queryset, reading, "lineage")

    def attach_titles(self, rows: Iterable[Any], reading: Release | None) -> None:
        attach_rule_titles(list(rows), reading)

    def search_ranks(self, term: str, reading: Release | None) -> list[Q]:
        words = search_words(term)
        ranks = []
        number = as_number(term)
        if number:
            ranks += number_ranks(number, reading, "lineage")
        elif "@" in term:  # a lineage key pasted from elsewhere
            ranks.append(Q(lineage__key=term))
        date = (reading or current_release() or Release(effective_date=_OPEN_END)).effective_date
        titled = titled_lineages(words, date) if not number else set()
        if titled:
            ranks.append(Q(lineage_id__in=sorted(titled)))
        ranks.append(text_match(words, self.text_search_fields))
        return ranks

    @admin.display(description=_("number"), ordering="number_sort")
    def number_read(self, obj: Any) -> str:
        return obj.number or "—"

    @admin.display(description=_("title"))
    def title_read(self, obj: Any) -> str:
        return getattr(obj, "title", "") or "—"

    @admin.display(description=_("valid"), ordering="valid_from")
    def validity(self, obj: Any) -> str:
        return validity(obj.valid_from, obj.valid_to)

    @admin.display(description=_("first words"))
    def first_words(self, obj: Any) -> str:
        return first_words(obj.text_en)


class ExampleReadingMixin(RuleReadingMixin):
    """Examples by their rule's number and title."""

    text_search_fields = ("text_en", "text_fr")

    def get_ordering(self, request: HttpRequest) -> list[str]:
        return ["number_sort", "number_ordinal", "-version__valid_from", "position"]

    def read_rows(self, queryset: QuerySet, reading: Release | None) -> QuerySet:
        return read_numbered(queryset, reading, "version__lineage", "version__")

    def search_ranks(self, term: str, reading: Release | None) -> list[Q]:
        words = search_words(term)
        ranks = []
        number = as_number(term)
        if number:
            ranks += number_ranks(number, reading, "version__lineage", "version__")
        date = (reading or current_release() or Release(effective_date=_OPEN_END)).effective_date
        titled = titled_lineages(words, date) if not number else set()
        if titled:
            ranks.append(Q(version__lineage_id__in=sorted(titled)))
        ranks.append(text_match(words, self.text_search_fields))
        return ranks

    @admin.display(description=_("valid"), ordering="version__valid_from")
    def validity(self, obj: Any) -> str:
        return validity(obj.version.valid_from, obj.version.valid_to)


class GlossaryReadingMixin(ReadingAdminMixin):
    """Glossary versions by the headword they have in the release being read."""

    text_search_fields = ("headword", "aliases", "text_en", "text_fr")

    def get_ordering(self, request: HttpRequest) -> list[str]:
        return ["headword", "ordinal", "-valid_from"]

    def read_rows(self, queryset: QuerySet, reading: Release | None) -> QuerySet:
        return queryset if reading is None else queryset.as_of(reading.effective_date)

    def search_ranks(self, term: str, reading: Release | None) -> list[Q]:
        words = search_words(term)
        bare = " ".join(words)
        exact = Q(headword__iexact=bare) | Q(headword__iexact=f"{bare} (Obsolete)")
        first = [exact & Q(valid_to__isnull=True), exact] if reading is None else [exact]
        return [*first, text_match(words, ["headword"]), text_match(words, self.text_search_fields)]

    @admin.display(description=_("valid"), ordering="valid_from")
    def validity(self, obj: Any) -> str:
        return validity(obj.valid_from, obj.valid_to)

    @admin.display(description=_("first words"))
    def first_words(self, obj: Any) -> str:
        return first_words(obj.text_en)


__all__ = [
    "ALL_RELEASES",
    "ExampleReadingMixin",
    "GlossaryReadingMixin",
    "ReadingChangeList",
    "ReleaseFilter",
    "RuleReadingMixin",
    "current_release",
    "last_number_of",
    "reading_of",
    "release_label",
    "validity",
]
