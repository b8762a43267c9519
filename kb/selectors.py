"""Every read of the rules the pages, the API and search make, as named functions.

What a reader sees (a release's contents, a section, chapter or rule with its texts rendered,
the glossary) is assembled in a constant number of queries whatever the size of the page, and
returned as plain dataclasses. Views, the API, search and rulings read through here, so that a
query-count budget or an index is checked in one place.
"""

from __future__ import annotations

import bisect
import copy
import datetime as dt
import re
import string
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

from django.db import connection, connections, router
from django.db.models import F, Q, QuerySet
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from config import languages
from kb.crtext.numbers import ancestors_of, kind_of, parent_of, sort_key
from search.analysis import fold

from . import glosses
from .archive.texts import analyse
from .french_status import FrenchText
from .models import (
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Lineage,
    Reference,
    Release,
    RuleNumber,
    RuleVersion,
    VocabularyTerm,
)
from .models.glossary import alias_list
from .models.releases import today
from .rendering import Span, TermIndex, TermLinker, render_text, term_linker
from .stamps import archive_generation

#: number -> URL in the release being read (the page decides: current or dated links).
UrlFor = Callable[[str], str]

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class BadRelease(ValueError):
    """A release token that is neither `current` nor a valid date."""


class NoRelease(LookupError):
    """No release was in force on the date asked (or none is loaded): callers word it their
    way (a 404 page, a JSON 404, a search notice), so the dates travel with the error."""

    def __init__(self, date: dt.date | None, first: dt.date | None) -> None:
        super().__init__(f"no release in force on {date}" if date else "no release loaded")
        self.date = date
        self.first = first


def parse_release_token(token: str) -> dt.date | None:
    """`current` -> None; "2016-05-20" -> the date; anything else -> BadRelease."""
    if token == "current":
        return None
    if not _DATE_RE.match(token or ""):
        raise BadRelease(f"{token!r} is not a date (YYYY-MM-DD) or “current”")
    try:
        return dt.date.fromisoformat(token)
    except ValueError as exc:
        raise BadRelease(f"{token!r} is not a valid date: {exc}") from None


RELEASES_TTL = 60
_releases_cache: dict = {}
_releases_lock = threading.Lock()


def forget_releases(**_kwargs) -> None:
    """Drop the kept list of releases (connected to Release's save and delete signals)."""
    with _releases_lock:
        _releases_cache.clear()


@dataclass
class Releases:
    """All releases, loaded once per request (there are about a hundred)."""

    all: list[Release]

    #: (effective date, set name) of each release by language: kept with the list they were
    #: read from (the search page's release filter lists them all, and reading a hundred
    #: translated names cost a millisecond a page).
    _labels: dict[str, tuple[tuple[str, str], ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @classmethod
    def load(cls) -> Releases:
        """Kept per process while the table's stamp is unchanged (an import adds or replaces
        rows) and for at most RELEASES_TTL seconds (another process's edit of a field); an
        edit in this process forgets it at once (`forget_releases`). Every page needs the
        list, and building it cost 2 ms a request (the stamp is plain SQL: compiling it as a
        queryset cost ten times its run)."""
        with connections[router.db_for_read(Release)].cursor() as cursor:  # as the rows below
            cursor.execute(_releases_stamp_sql())
            stamp = cursor.fetchone()
        key = (tuple(stamp), int(time.monotonic() // RELEASES_TTL))
        with _releases_lock:
            if _releases_cache.get("key") == key:
                return cls(list(_releases_cache["all"]), _releases_cache["labels"])
        # The introduction and credits are long texts no page of the list shows.
        found = list(Release.objects.defer("introduction", "credits").order_by("effective_date"))
        labels: dict[str, tuple[tuple[str, str], ...]] = {}
        with _releases_lock:
            _releases_cache.update(key=key, all=found, labels=labels)
        return cls(list(found), labels)

    def labels(self) -> tuple[tuple[str, str], ...]:
        """(effective date as YYYY-MM-DD, set name in the active language), oldest first."""
        language = get_language() or ""
        found = self._labels.get(language)
        if found is None:
            found = tuple((r.effective_date.isoformat(), r.set_name) for r in self.all)
            self._labels[language] = found
        return found

    @cached_property
    def today(self) -> dt.date:
        """The day this list is read for (`today()`, once: a page asks several times)."""
        return today()

    @cached_property
    def current(self) -> Release | None:
        """The release in force today: not the latest loaded, which may take effect later
        (Wizards publish a release days before its effective date). None when every loaded
        release is still to come."""
        return self.in_force(self.today)

    @property
    def latest(self) -> Release | None:
        """The latest release loaded, in force or not."""
        return self.all[-1] if self.all else None

    @property
    def in_force_now(self) -> list[Release]:
        """Every release up to the current one, oldest first (what is no longer to come)."""
        return self.all[: bisect.bisect_right(self._dates, self.today)]

    @property
    def upcoming(self) -> list[Release]:
        """The releases loaded before their effective date, the soonest first: readable by
        their date, not in force yet."""
        return self.all[bisect.bisect_right(self._dates, self.today) :]

    def is_upcoming(self, release: Release) -> bool:
        return release.effective_date > self.today

    def in_force(self, date: dt.date) -> Release | None:
        i = bisect.bisect_right(self._dates, date)
        return self.all[i - 1] if i else None

    @cached_property
    def _dates(self) -> list[dt.date]:
        return [r.effective_date for r in self.all]

    def previous(self, release: Release) -> Release | None:
        i = self.all.index(release)
        return self.all[i - 1] if i > 0 else None

    @property
    def first(self) -> Release | None:
        return self.all[0] if self.all else None


@lru_cache(maxsize=1)
def _releases_stamp_sql() -> str:
    table = connection.ops.quote_name(Release._meta.db_table)
    return f"SELECT COUNT(*), MAX(id), MAX(imported_at), MIN(effective_date) FROM {table}"


def release_for(token: str, releases: Releases) -> Release:
    """The release a URL or parameter names: `current` (the release in force today), an
    effective date, or any date (the release in force on it: a release to come is read by its
    date). The one place tokens are read, so that pages, the API and search agree; BadRelease
    for a malformed token, NoRelease when nothing was (or, for `current`, is yet) in force."""
    date = parse_release_token(token)
    release = releases.current if date is None else releases.in_force(date)
    if release is None:
        first = releases.first
        raise NoRelease(date, first.effective_date if first else None)
    return release


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
    fr: FrenchText | None = None  # the French text of the rule (kb.french_status), pages only

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


def render_entries(
    entries: Iterable[Entry],
    date: dt.date,
    url_for: UrlFor,
    terms: TermLinker | None = None,
    french: dict[int, FrenchText] | None = None,
) -> None:
    """Fill in the rendered HTML of entries and their examples (three queries in all).

    With `french` (kb.french_status states by version id), each entry also gets its French
    text rendered (`entry.fr`) with its examples, in the same three queries: the French
    examples are read with the English ones, and the numbers a current French text cites are
    resolved with the English citations (a stale French text cites the numbers of its own
    release, so its citations stay plain text)."""
    entries = list(entries)
    french = french or {}
    ids = [e.version.pk for e in entries]
    holders = {f.version_id for f in french.values() if f.version_id}
    examples: dict[int, list[Example]] = defaultdict(list)
    for ex in Example.objects.filter(version_id__in={*ids, *holders}).order_by(
        "version_id", "position"
    ):
        examples[ex.version_id].append(ex)
    spans: dict[tuple[int, int | None], list[Span]] = defaultdict(list)
    for ref in Reference.objects.filter(rule_version_id__in=ids, lang="en").order_by("start"):
        spans[(ref.rule_version_id, ref.example_position)].append(
            Span(ref.start, ref.end, ref.target, ref.target_end)
        )
    french_spans = {
        vid: [Span(r.start, r.end, r.target, r.target_end) for r in analyse(f.text).refs]
        for vid, f in french.items()
        if f.text and not f.stale
    }
    cited = [s for group in [*spans.values(), *french_spans.values()] for s in group]
    resolve = resolver(cited, date, url_for)
    for e in entries:
        # Titles of sections and chapters stay plain: a heading full of links reads badly.
        linker = terms if e.kind in ("rule", "subrule") else None
        e.html = render_text(e.text, spans[(e.version.pk, None)], resolve, linker)
        e.examples = [
            render_text(ex.text_en, spans[(e.version.pk, ex.position)], resolve, linker)
            for ex in examples[e.version.pk]
        ]
        fr = french.get(e.version.pk)
        if fr is None:
            continue
        e.fr = fr
        if fr.stale and fr.version_id:  # the examples' changes since, beside the text's
            fr.translated_examples = [ex.text_en for ex in examples[fr.version_id]]
            fr.shown_examples = [ex.text_en for ex in examples[e.version.pk]]
        if fr.text:
            fr.html = render_text(fr.text, french_spans.get(e.version.pk, []), resolve)
            fr.examples = [
                render_text(ex.text_fr, [], resolve) for ex in examples[fr.version_id] if ex.text_fr
            ]


def existing_numbers(spans: Iterable[Span], date: dt.date) -> set[str]:
    """Which of the numbers cited by `spans` exist in the release (one query)."""
    targets = {t for s in spans for t in (s.target, s.target_end) if t}
    if not targets:
        return set()
    return set(
        RuleNumber.objects.as_of(date).filter(number__in=targets).values_list("number", flat=True)
    )


def resolver(spans: Iterable[Span], date: dt.date, url_for: UrlFor) -> Callable[[str], str | None]:
    """A number -> URL function for the cited numbers that exist in the release."""
    existing = existing_numbers(spans, date)
    return lambda number: url_for(number) if number in existing else None


def lineage_releases(lineage_id: int, releases: Releases) -> list[tuple[Release, str]]:
    """Every release in which a lineage exists, with the number it had there (one query)."""
    spans = list(
        RuleNumber.objects.filter(lineage_id=lineage_id)
        .order_by("valid_from")
        .values_list("number", "valid_from", "valid_to")
    )
    out = []
    for r in releases.all:
        d = r.effective_date
        for number, start, end in spans:
            if start <= d and (end is None or d < end):
                out.append((r, number))
                break
    return out


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


def other_releases_with(number: str) -> list[tuple[dt.date, dt.date | None]]:
    """The intervals over which some lineage held `number` (for "it existed elsewhere")."""
    return list(
        RuleNumber.objects.filter(number=number)
        .order_by("valid_from")
        .values_list("valid_from", "valid_to")
    )


# -- glossary ------------------------------------------------------------------------------


@dataclass
class Term:
    slug: str
    version: GlossaryVersion
    html: SafeString | str = ""
    french: VocabularyTerm | None = None

    @property
    def headword(self) -> str:
        return self.version.headword


def glossary_term(slug: str) -> GlossaryTerm | None:
    return GlossaryTerm.objects.filter(slug=slug).first()


def glossary_references(version_ids: Iterable[int]) -> dict[int, list[Reference]]:
    """The English citations of glossary versions, by version, in reading order (one query)."""
    out: dict[int, list[Reference]] = defaultdict(list)
    for ref in Reference.objects.filter(
        glossary_version_id__in=list(version_ids), lang="en"
    ).order_by("start"):
        out[ref.glossary_version_id].append(ref)
    return dict(out)


def glossary(date: dt.date, url_for: UrlFor, slug: str | None = None) -> list[Term]:
    """Glossary entries of a release (or the one with `slug`), rendered (three queries)."""
    qs = GlossaryVersion.objects.as_of(date).select_related("term")
    if slug is not None:
        qs = qs.filter(term__slug=slug)
    terms = [Term(v.term.slug, v) for v in qs]
    terms.sort(key=lambda t: (t.headword.casefold(), t.version.ordinal))
    spans = {
        vid: [Span(r.start, r.end, r.target, r.target_end) for r in refs]
        for vid, refs in glossary_references([t.version.pk for t in terms]).items()
    }
    resolve = resolver([s for g in spans.values() for s in g], date, url_for)
    for t in terms:
        t.html = render_text(t.version.text_en, spans.get(t.version.pk, []), resolve)
    french = VocabularyTerm.objects.shown().filter(
        glossary_term_id__in={t.version.term_id for t in terms}
    )
    by_term = {v.glossary_term_id: v for v in french.order_by("kind")}
    for t in terms:
        t.french = by_term.get(t.version.term_id)
    return terms


def glossary_linker(release: Release, term_url: Callable[[str], str]) -> TermLinker:
    """Links multi-word glossary terms of `release` found in texts (one query per release and
    archive state in each process: kept under the archive's stamp, which a maintainer's
    glossary edit moves in every process, where the release's import checksum did not)."""
    return term_linker(_term_index(release.effective_date, archive_generation()), term_url)


@lru_cache(maxsize=64)
def _term_index(date: dt.date, generation: str) -> TermIndex:
    """The release's multi-word glossary terms, by casefolded alias (`generation`, the
    archive's stamp, keys the cache: nothing needs to clear it)."""
    slugs: dict[str, str] = {}
    for slug, aliases in (
        GlossaryVersion.objects.as_of(date)
        .filter(obsolete=False)
        .values_list("term__slug", "aliases")
    ):
        for alias in alias_list(aliases):
            clean = " ".join(re.findall(r"[A-Za-z][A-Za-z’'-]*", alias)).casefold()
            if len(clean.split()) >= 2 and "[" not in alias:
                slugs.setdefault(clean, slug)
    return TermIndex.build(slugs)


class GlossaryName(NamedTuple):
    term_id: int
    slug: str
    version_id: int
    headword: str


def glossary_key(name: str) -> str:
    """How a glossary name is compared with a typed or mined one: folded as search folds
    words, "(Obsolete)" left out."""
    return fold(name.replace("(Obsolete)", "")).strip()


def glossary_names(date: dt.date) -> dict[str, GlossaryName]:
    """The glossary entries of the release in force on `date` by `glossary_key` of their
    headword and of each alias (one query). Search and the vocabulary builder both look names
    up in it, so they agree on which entry a name means: a current entry before an obsolete
    one ("Converted Mana Cost (Obsolete)" keeps its name only while no current entry claims
    it), then the older term, whatever order the database returns rows in."""
    out: dict[str, GlossaryName] = {}
    rows = GlossaryVersion.objects.as_of(date).values_list(
        "id", "term_id", "term__slug", "headword", "aliases"
    )
    rows = sorted(rows, key=lambda r: (r[3].rstrip().endswith("(Obsolete)"), r[1], r[0]))
    for vid, term_id, slug, headword, aliases in rows:
        entry = GlossaryName(term_id, slug, vid, headword)
        for name in [headword, *alias_list(aliases)]:
            out.setdefault(glossary_key(name), entry)
    return out


def glossary_citations(version_ids: Iterable[int]) -> dict[int, list[str]]:
    """The rule numbers each glossary version cites, each once, in reading order (one query)."""
    out: dict[int, list[str]] = {}
    for vid, target in (
        Reference.objects.filter(glossary_version_id__in=list(version_ids))
        .order_by("glossary_version_id", "start")
        .values_list("glossary_version_id", "target")
    ):
        if target not in out.setdefault(vid, []):
            out[vid].append(target)
    return out


# -- what the API and search read besides pages -----------------------------------------------


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


def vocabulary_pairs() -> list[tuple[str, str]]:
    """The (English, French) pairs search may use: the terms pages show (checked, curated or
    with enough agreeing cards, verified or not). A left-out term (too few agreeing cards, a
    partial mined fragment such as "air" for Airbend) would send French queries to the wrong
    English rules, so it waits for a maintainer like on the pages."""
    return list(VocabularyTerm.objects.shown().values_list("en", "fr"))


def chapter_titles_with_french(
    chapters: Iterable[str], date: dt.date
) -> dict[str, tuple[str, str]]:
    """Titles of chapters by number in the release in force on `date`, as (English, French):
    the French as the rule pages give it (kb.templatetags.kb_tags.entry_title), the French
    document's title, else the vocabulary's name of the English title ("405" -> "Pile"), ""
    when neither is known. Kept per archive state, as `chapter_titles` (the vocabulary's
    names are memoised)."""
    from .glosses import french_title

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


# -- rule numbers typed in a search box ----------------------------------------------------

_NUMBER_QUERY_RE = re.compile(
    r"^(?:(?:cr|rule|r[èe]gle|r)\s*\.?\s*)?([1-9]\d\d(?:\.\d+(?:\s?[a-z]{1,2})?)?)\.?$",
    re.IGNORECASE,
)


def number_in_query(query: str) -> str | None:
    """A rule number typed in any usual shape ("602.2a", "602.2 a", "CR 602.2a", "R602.2a")."""
    m = _NUMBER_QUERY_RE.match(query.strip())
    return m.group(1).replace(" ", "").lower() if m else None
