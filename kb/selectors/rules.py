"""Reads of the rules a page shows: a release's contents, a section, chapter or rule with its
entries, their neighbours, subrules, titles and texts, each in a constant number of queries
whatever the size of the page, returned as plain dataclasses (`Entry`) the web layer renders."""

from __future__ import annotations

import copy
import datetime as dt
import re
import string
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from django.db.models import F, Q, QuerySet
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from config import languages
from kb.crtext.numbers import ancestors_of, kind_of, parent_of, sort_key
from kb.french import glosses
from kb.french.status import FrenchText
from kb.models import (
    Example,
    Lineage,
    Reference,
    RuleNumber,
    RuleVersion,
    VocabularyTerm,
)
from kb.stamps import archive_generation

#: number -> URL in the release being read (the page decides: current or dated links).


@dataclass
class Entry:
    """One numbered entry as displayed: its number, kind and rendered texts."""

    number: str
    kind: str
    ordinal: int
    lineage_id: int
    version: RuleVersion
    html: SafeString | str = ""
    examples: list[SafeString | str] = field(default_factory=list)
    url: str = ""
    french: VocabularyTerm | None = None  # a keyword rule's French name, where known
    fr: FrenchText | None = None  # the French text of the rule (kb.french.status), pages only

    @property
    def anchor(self) -> str:
        return self.number + (f"-{self.ordinal + 1}" if self.ordinal else "")

    @property
    def text(self) -> str:
        return self.version.text_en

    @property
    def title(self) -> str:
        """A section's or chapter's title in the page's language: on French pages the French
        document's title where one is loaded for this version (issue 13), else the English."""
        return self.version.text_fr if self.title_lang == "fr" else self.version.text_en

    @property
    def title_lang(self) -> str:
        """The language `title` is in (for the `lang` attribute around it)."""
        return "fr" if (get_language() or "")[:2] == "fr" and self.version.text_fr else "en"


#: What pages read of a version (not the modeltranslation mirror column `text`).
_VERSION_FIELDS = (
    "id",
    "lineage_id",
    "text_en",
    "text_fr",
    "valid_from",
    "valid_to",
    "wording_since",
    "change",
)


def _entries(qs: QuerySet[RuleVersion]) -> list[Entry]:
    rows = (
        qs.only(*_VERSION_FIELDS)
        .annotate(
            number=F("lineage__numbers__number"),
            kind=F("lineage__numbers__kind"),
            ordinal=F("lineage__numbers__ordinal"),
            sort=F("lineage__numbers__sort_key"),
        )
        .order_by("sort", "ordinal")
    )
    return [Entry(v.number, v.kind, v.ordinal, v.lineage_id, v) for v in rows]


def attach_french(entries: Iterable[Entry]) -> None:
    """Give keyword rules their French name from the EN↔FR vocabulary (no query): no French
    CR exists, so the name mined from bilingual cards is what a French reader can go by."""
    by_lineage = _french_names(glosses.vocabulary_stamp())
    for e in entries:
        e.french = by_lineage.get(e.lineage_id)


@lru_cache(maxsize=2)
def _french_names(stamp: tuple[object, ...]) -> dict[int, VocabularyTerm]:
    """Every shown term naming a rule, by lineage (the last by kind where a rule has two),
    kept until the vocabulary changes (glosses.vocabulary_stamp, which keys pages and their
    glosses too): a query on every rule page cost about 1 ms. Not to be changed by callers."""
    terms = VocabularyTerm.objects.shown().filter(lineage_id__isnull=False)
    return {t.lineage_id: t for t in terms.order_by("kind", "id")}


def rule_version(number: str, date: dt.date) -> RuleVersion | None:
    """The version of `number` in the release in force on `date` (one query)."""
    return (
        RuleVersion.objects.numbered_as_of(date, Q(lineage__numbers__number=number))
        .select_related("lineage")
        .order_by("lineage__numbers__ordinal")
        .first()
    )


def contents(date: dt.date) -> list[Entry]:
    """Sections and chapters of a release (titles only)."""
    return _entries(
        RuleVersion.objects.numbered_as_of(
            date, Q(lineage__numbers__kind__in=["section", "chapter"])
        )
    )


def entries_for(number: str, date: dt.date, *, alone: bool = False) -> list[Entry]:
    """The entries a page for `number` shows: a section's chapters, a chapter's rules,
    subrules and examples, a rule with its subrules, or one subrule (`alone`: only its own)."""
    kind = kind_of(number)
    if alone:
        where = Q(lineage__numbers__number=number)
    elif kind == "section":
        where = Q(lineage__numbers__number=number) | Q(
            lineage__numbers__kind="chapter", lineage__numbers__number__startswith=number
        )
    elif kind == "chapter":
        where = Q(lineage__numbers__chapter=number)
    elif kind == "rule":
        where = Q(lineage__numbers__chapter=number[:3]) & (
            Q(lineage__numbers__number=number)
            | Q(lineage__numbers__number__regex=rf"^{re.escape(number)}[a-z]+$")
        )
    elif kind == "subrule":
        where = Q(lineage__numbers__number=number)
    else:
        return []
    return _entries(RuleVersion.objects.numbered_as_of(date, where))


def headings(number: str, date: dt.date) -> list[Entry]:
    """The ancestors of `number` (section, chapter, rule, in that order) with their texts."""
    ancestors = ancestors_of(number)
    if not ancestors:
        return []
    # From tables kept per release and archive state: every rule page of a chapter asks for
    # the same section and chapter, and its subrules for the same few rules (about 1.5 ms of
    # queries a page before).
    generation = archive_generation()
    tables = [_sections_and_chapters(date, generation)]
    if kind_of(ancestors[0]) == "rule":
        tables.append(_rules_of_chapter(ancestors[0][:3], date, generation))
    found = {a: t[a] for t in tables for a in ancestors if a in t}
    # Copies: a page sets its own URLs on them.
    return [copy.copy(e) for a in reversed(ancestors) for e in found.get(a, ())]


def _by_number(entries: Iterable[Entry]) -> dict[str, tuple[Entry, ...]]:
    out: dict[str, tuple[Entry, ...]] = {}
    for e in entries:
        out[e.number] = (*out.get(e.number, ()), e)
    return out


def sections_and_chapters(date: dt.date) -> dict[str, Entry]:
    """Every section and chapter on `date` by number (the last of a duplicated number, as a
    dict built from `contents` would keep), from the table kept per archive state: not to be
    changed by the caller (diffs title their items with them)."""
    return {
        n: entries[-1] for n, entries in _sections_and_chapters(date, archive_generation()).items()
    }


@lru_cache(maxsize=128)
def _sections_and_chapters(date: dt.date, generation: str) -> dict[str, tuple[Entry, ...]]:
    return _by_number(contents(date))


@lru_cache(maxsize=256)
def _rules_of_chapter(chapter: str, date: dt.date, generation: str) -> dict[str, tuple[Entry, ...]]:
    where = Q(lineage__numbers__kind="rule", lineage__numbers__chapter=chapter)
    return _by_number(_entries(RuleVersion.objects.numbered_as_of(date, where)))


def neighbours(number: str, date: dt.date) -> tuple[str | None, str | None]:
    """Previous and next entry of the same kind under the same parent, in that release."""
    kind = kind_of(number)
    if kind is None:
        return None, None
    chapter = number[:3] if kind in ("rule", "subrule") else ""
    siblings = _siblings(kind, chapter, date, archive_generation())
    numbers = siblings.get((parent_of(number) or "") if chapter else "", ())
    if number not in numbers:
        return None, None
    i = numbers.index(number)
    return (numbers[i - 1] if i > 0 else None), (numbers[i + 1] if i + 1 < len(numbers) else None)


@lru_cache(maxsize=64)
def _siblings(
    kind: str, chapter: str, date: dt.date, generation: str
) -> dict[str, tuple[str, ...]]:
    """The numbers of `kind` in force on `date` (in `chapter` for rules and subrules), in
    order, by parent (rules and subrules; "" for sections and chapters). Kept until the
    archive changes: a subrule page of 702 read a thousand numbers to find two (about 1 ms)."""
    qs = RuleNumber.objects.as_of(date).filter(kind=kind)
    if chapter:
        qs = qs.filter(chapter=chapter)
    out: dict[str, list[str]] = defaultdict(list)
    for n in qs.order_by("sort_key").values_list("number", flat=True):
        out[(parent_of(n) or "") if chapter else ""].append(n)
    return {parent: tuple(numbers) for parent, numbers in out.items()}


def nearest_numbers(number: str, date: dt.date, limit: int = 6) -> list[str]:
    """Existing numbers near one that does not exist, at the same level, for a helpful 404.

    For a subrule of a rule that does not exist either (602.9z), the neighbours of that rule.
    """
    kind = kind_of(number)
    if kind is None:
        return []
    chapter = number[:3] if kind in ("rule", "subrule") else None
    qs = RuleNumber.objects.as_of(date)
    qs = qs.filter(chapter=chapter) if chapter else qs.filter(kind__in=["section", "chapter"])
    rows = list(qs.order_by("sort_key").values_list("number", "sort_key", "kind"))
    existing = {n for n, _, _ in rows}
    parent = parent_of(number)
    if kind == "subrule" and parent not in existing:
        number, kind = parent, "rule"
    key = sort_key(number)
    same = [(n, k) for n, k, kd in rows if kd == kind]
    if kind == "subrule":
        same = [(n, k) for n, k in same if parent_of(n) == parent] or same
    same = same or [(n, k) for n, k, _ in rows]
    before = [n for n, k in same if k < key]
    after = [n for n, k in same if k > key]
    n_after = min(len(after), max(limit // 2, limit - len(before)))
    n_before = min(len(before), limit - n_after)
    return before[len(before) - n_before :] + after[:n_after]


def examples_of(version: RuleVersion) -> list[Example]:
    return list(version.examples.order_by("position"))


def references_of(version: RuleVersion) -> list[Reference]:
    """A version's English citations, the main text's first, then each example's."""
    return list(version.references.filter(lang="en").order_by("example_position", "start"))


def lineage_versions(version: RuleVersion) -> dict[int, RuleVersion]:
    """Every version of `version`'s lineage with its examples, by id (two queries)."""
    return {v.pk: v for v in version.lineage.versions.prefetch_related("examples")}


def version_texts(ids: Iterable[int]) -> dict[int, str]:
    """English texts of rule versions by id (one query)."""
    return dict(RuleVersion.objects.filter(id__in=list(ids)).values_list("id", "text_en"))


def lineage_keys(ids: Iterable[int]) -> dict[int, str]:
    """Stable keys of lineages by id (one query)."""
    return dict(Lineage.objects.filter(id__in=list(ids)).values_list("id", "key"))


def chapter_titles(chapters: Iterable[str], date: dt.date) -> dict[str, str]:
    """Titles of chapters by number, as the release in force on `date` words them."""
    chapters = list(chapters)
    if not chapters:
        return {}
    every = _chapter_titles(date, archive_generation())
    return {n: every[n] for n in chapters if n in every}


@lru_cache(maxsize=8)
def _chapter_titles(date: dt.date, generation: str) -> dict[str, str]:
    """Every chapter's title on `date`, kept until the archive changes (each search page
    names the chapters of its hits: a query each time cost a millisecond)."""
    where = Q(lineage__numbers__kind="chapter")
    return dict(
        RuleVersion.objects.numbered_as_of(date, where).values_list(
            "lineage__numbers__number", "text_en"
        )
    )


class Subrule(NamedTuple):
    number: str
    texts: dict[str, str]  # by language code (empty where there is no text)


#: A subrule's letters after its rule's number: a to z, then aa, ab… (704.5aa follows 704.5z).
SUBRULE_LETTERS = tuple(string.ascii_lowercase) + tuple("a" + c for c in string.ascii_lowercase)


def subrules_of(rules: Iterable[str], date: dt.date) -> dict[str, list[Subrule]]:
    """The subrules of these rules (numbers like 702.19) in the release in force on `date`,
    in order, with their texts in every language (one query, whatever the number of rules;
    exact numbers, not a prefix: a LIKE scan costs three times as much): a search result for
    a rule that is only a heading ("702.19 Trample") shows one of them."""
    rules = {r for r in rules if kind_of(r) == "rule"}
    if not rules:
        return {}
    found = _subrules_of(tuple(sorted(rules)), date, archive_generation())
    return {rule: list(subrules) for rule, subrules in found.items()}


@lru_cache(maxsize=256)
def _subrules_of(
    rules: tuple[str, ...], date: dt.date, generation: str
) -> dict[str, tuple[Subrule, ...]]:
    """Kept until the archive changes: a search page asks for the same keyword rules again
    and again (about 2 ms a query)."""
    numbers = [r + letters for r in rules for letters in SUBRULE_LETTERS]
    rows = (
        RuleVersion.objects.numbered_as_of(date, Q(lineage__numbers__number__in=numbers))
        .annotate(number=F("lineage__numbers__number"), sort=F("lineage__numbers__sort_key"))
        .order_by("sort", "lineage__numbers__ordinal")
        .values_list("number", *(f"text_{code}" for code in languages.CODES))
    )
    out: dict[str, list[Subrule]] = defaultdict(list)
    for number, *texts in rows:
        by_language = {code: t or "" for code, t in zip(languages.CODES, texts, strict=True)}
        out[parent_of(number) or number].append(Subrule(number, by_language))
    return {rule: tuple(subrules) for rule, subrules in out.items()}


def chapter_titles_with_french(
    chapters: Iterable[str], date: dt.date
) -> dict[str, tuple[str, str]]:
    """Titles of chapters by number in the release in force on `date`, as (English, French):
    the French as the rule pages give it (kb.templatetags.kb_tags.entry_title), the French
    document's title, else the vocabulary's name of the English title ("405" -> "Pile"), ""
    when neither is known. Kept per archive state, as `chapter_titles` (the vocabulary's
    names are memoised)."""
    from kb.french.glosses import french_title

    chapters = list(chapters)
    if not chapters:
        return {}
    every = _chapter_rows(date, archive_generation())
    out = {}
    for number in chapters:
        if number in every:
            lineage_id, english, french = every[number]
            out[number] = (english, french or french_title(lineage_id, english))
    return out


@lru_cache(maxsize=8)
def _chapter_rows(date: dt.date, generation: str) -> dict[str, tuple[int, str, str]]:
    """Every chapter's (lineage, English title, French document's title) on `date`, kept
    until the archive changes (a query on every search page: about 1 ms)."""
    rows = RuleVersion.objects.numbered_as_of(
        date, Q(lineage__numbers__kind="chapter")
    ).values_list("lineage__numbers__number", "lineage_id", "text_en", "text_fr")
    return {n: (lid, en or "", fr or "") for n, lid, en, fr in rows}
