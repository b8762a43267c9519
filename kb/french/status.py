"""The state of a rule's French text in a release: missing, official, unofficial or reviewed,
and stale when it translates an older English text than the one shown.

Why a module of its own: the rule pages, the API, the translators' worklist, the history page
and the admin all ask the same question, and must give the same answer. A French text is stored
on the English version it translates (the French import never copies it forward), so for a
version shown in a release the answer reads the lineage's earlier versions too:

- the shown version has French: it is current unless its `fr_release` names an English text
  that differs from the shown one, or a replacement reworded the English under it (the English
  it translates is then kept on the row, `fr_translates_text`);
- it has none, but an earlier version of the same lineage has: that French is shown, stale
  when the English changed since (typography-only changes do not count: the folded hashes the
  archive keeps are compared, so the 2019 quote changes leave a 2010 French text current);
- no version up to the shown one has French: missing.

Everything is computed from one query over the lineages' versions (no query per rule), so a
chapter page or the whole archive's worklist costs the same few queries.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Case, F, Min, Q, QuerySet, TextField, Value, When
from django.utils.safestring import SafeString

from kb.crtext.typography import fold
from kb.diffing import word_diff
from kb.models import Anomaly, Example, Release, RuleNumber, RuleVersion
from kb.models.versioning import FrenchStatus, row_valid_on, valid_on
from kb.stamps import archive_generation

MISSING = "missing"
STALE = "stale"
#: The states a French text can be in, as filters and counts name them (worklist, admin).
STATES = (MISSING, STALE, FrenchStatus.UNOFFICIAL.value, FrenchStatus.OFFICIAL.value,
          FrenchStatus.REVIEWED.value)  # fmt: skip
#: The states a translator has work to do on (the worklist's rows).
TO_DO = (MISSING, STALE, FrenchStatus.UNOFFICIAL.value)


@dataclass
class FrenchText:
    """What a reader (or a translator) needs to know about the French of one shown version."""

    status: str  # missing, official, unofficial, reviewed
    text: str = ""
    lineage_id: int | None = None
    version_id: int | None = None  # the version that holds the French text
    translates: dt.date | None = None  # the English release the French translates
    stale: bool = False
    english_changed_in: dt.date | None = None  # first release whose English differs since
    translated_english: str = ""  # the English the French translates (when texts are read)
    shown_english: str = ""
    edited: bool = False  # a maintainer edited the French text
    html: SafeString | str = ""  # the text rendered (symbols, citations), by the pages
    examples: list[SafeString | str] = field(default_factory=list)  # rendered, by the pages
    anomalies: list[Anomaly] = field(default_factory=list)  # filled in for maintainers
    # The English examples of the version the French translates, and of the version shown
    # (None until read: by the pages with the texts, by `attach_examples` for the API).
    translated_examples: list[str] | None = None
    shown_examples: list[str] | None = None

    @property
    def missing(self) -> bool:
        return self.status == MISSING

    @property
    def state(self) -> str:
        """One word for filters and counts: stale wins over the status it has."""
        return STALE if self.stale else self.status

    @property
    def to_do(self) -> bool:
        return self.state in TO_DO

    @property
    def diff(self) -> SafeString | str:
        """The English word diff a translator reads: from the English the French translates
        to the English shown (empty unless stale and the texts were read)."""
        if not self.stale or not (self.translated_english or self.shown_english):
            return ""
        return word_diff(self.translated_english, self.shown_english)

    @property
    def example_diffs(self) -> list[tuple[str, SafeString | str]]:
        """How the examples changed since the English the French translates: (change, word
        diff) with change one of EXAMPLE_CHANGES, in order (empty unless stale and read)."""
        if not self.stale or self.translated_examples is None or self.shown_examples is None:
            return []
        return example_changes(self.translated_examples, self.shown_examples)


#: How an example differs between the English a French text translates and the one shown.
EXAMPLE_ADDED, EXAMPLE_REMOVED, EXAMPLE_REWORDED = "added", "removed", "reworded"
EXAMPLE_CHANGES = (EXAMPLE_ADDED, EXAMPLE_REMOVED, EXAMPLE_REWORDED)


def example_changes(old: list[str], new: list[str]) -> list[tuple[str, SafeString | str]]:
    """The examples added, removed or reworded from `old` to `new`, each with its word diff.
    Examples are aligned as sequences (an example inserted before others is one addition, not
    every later one reworded); typography alone (quotes, dashes) is no change, as for the
    staleness the French is given."""
    a, b = [fold(x) for x in old], [fold(x) for x in new]
    out: list[tuple[str, SafeString | str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        j = j1
        for i in range(i1, i2):
            # A reworded example: the first one left in the block that says mostly the same.
            match = next((k for k in range(j, j2) if _alike(a[i], b[k])), None)
            if match is None:
                out.append((EXAMPLE_REMOVED, word_diff(old[i], "")))
                continue
            out += [(EXAMPLE_ADDED, word_diff("", new[k])) for k in range(j, match)]
            out.append((EXAMPLE_REWORDED, word_diff(old[i], new[match])))
            j = match + 1
        out += [(EXAMPLE_ADDED, word_diff("", new[k])) for k in range(j, j2)]
    return out


def _alike(a: str, b: str) -> bool:
    """Two examples that share most of their words (one reworded from the other)."""
    return SequenceMatcher(a=a.split(), b=b.split(), autojunk=False).ratio() >= 0.5


def attach_examples(states: dict[int, FrenchText]) -> None:
    """Give each stale French text (by shown version id) the English examples it translates
    and those shown, for its example diffs (one query; none when nothing is stale). The
    pages read them with the rest of their examples (kb.web.entries.render_entries)."""
    stale = {vid: f for vid, f in states.items() if f.stale and f.version_id}
    if not stale:
        return
    wanted = {*stale, *(f.version_id for f in stale.values())}
    found: dict[int, list[str]] = defaultdict(list)
    rows = QuerySet(model=Example).filter(version_id__in=wanted).order_by("version_id", "position")
    for version_id, text in rows.values_list("version_id", "text_en"):
        found[version_id].append(text or "")
    for vid, french in stale.items():
        french.translated_examples = found.get(french.version_id, [])
        french.shown_examples = found.get(vid, [])


_FIELDS = (
    "id",
    "lineage_id",
    "valid_from",
    "valid_to",
    "folded_hash",
    "text_fr",
    "fr_status",
    "fr_edited",
    "fr_translates_hash",
)


def _rows(lineage_ids: Iterable[int] | None, date: dt.date, texts: bool) -> list[dict[str, Any]]:
    """The versions a French state is read from, oldest first, in one query: the versions in
    force on `date` (of these lineages, or all), and every earlier version of the lineages
    that have a French text up to `date` (few: most of the archive has none, and reading the
    whole history of every lineage cost 0.4 s on the full archive). With `texts`, the English
    of the versions that hold a French text (the English it translates) comes too."""
    scope = Q(lineage_id__in=list(lineage_ids)) if lineage_ids is not None else Q()
    # A plain QuerySet: modeltranslation's rewrites every values() row (a third of the time
    # on a whole release); the columns read here are named explicitly (text_en, text_fr).
    plain = QuerySet(model=RuleVersion)
    with_french = plain.filter(scope, valid_from__lte=date, text_fr__gt="").values("lineage_id")
    qs = plain.filter(
        (scope & valid_on(date)) | Q(valid_from__lte=date, lineage_id__in=with_french)
    ).annotate(translates=F("fr_release__effective_date"))
    if texts:
        qs = qs.annotate(
            en=Case(
                When(text_fr__gt="", then=F("text_en")),
                default=Value(""),
                output_field=TextField(),
            )
        )
    return list(
        qs.order_by("lineage_id", "valid_from").values(
            *_FIELDS, "translates", *(["en", "fr_translates_text"] if texts else [])
        )
    )


def _state(versions: list[dict[str, Any]], shown: dict[str, Any], english: str) -> FrenchText:
    """The French state of `shown`, given its lineage's versions up to it (oldest first) and
    the shown English text."""
    upto = [v for v in versions if v["valid_from"] <= shown["valid_from"]]
    holder = next((v for v in reversed(upto) if v["text_fr"]), None)
    if holder is None:
        return FrenchText(MISSING, shown_english=english)
    translates = holder["translates"] or holder["valid_from"]
    # The English the French translates: the version valid in its release (the holder itself
    # for an imported text; a maintainer may name another release of the same lineage).
    source = next((v for v in upto if row_valid_on(v, translates)), holder)
    # The English it was read against: that release's version, or the English a replacement
    # reworded under it (kept on the holder: no row prints it any more).
    kept = holder.get("fr_translates_hash") or ""
    against = kept or source["folded_hash"]
    stale = against != shown["folded_hash"]
    changed_in = None
    if stale:
        later = (
            [v for v in upto if v["valid_from"] >= holder["valid_from"]]
            if kept
            else [v for v in upto if v["valid_from"] > source["valid_from"]]
        )
        changed_in = next((v["valid_from"] for v in later if v["folded_hash"] != against), None)
    return FrenchText(
        holder["fr_status"] or FrenchStatus.UNOFFICIAL.value,
        text=holder["text_fr"],
        version_id=holder["id"],
        translates=translates,
        stale=stale,
        english_changed_in=changed_in,
        # A maintainer's French naming another version's release: that version's English is
        # not read (it holds no French), the holder's stands in for it.
        translated_english=(
            (holder.get("fr_translates_text") if kept else source.get("en")) or holder.get("en", "")
        )
        if stale
        else "",
        shown_english=english,
        edited=bool(holder["fr_edited"]),
    )


def french_states(
    versions: Iterable[RuleVersion | dict[str, Any]], date: dt.date, *, texts: bool = True
) -> dict[int, FrenchText]:
    """The French state of each shown version (RuleVersion rows or dicts with `id` and
    `lineage_id`) in the release effective `date`, by version id (one query).

    `texts=False` leaves the English texts out (no diffs): what counts and lists need.
    """
    versions = list(versions)
    shown = {_get(v, "id"): _get(v, "lineage_id") for v in versions}
    if not shown:
        return {}
    english = {_get(v, "id"): _get(v, "text_en") or "" for v in versions} if texts else {}
    since = _french_since(archive_generation())
    with_french = {
        vid: lineage
        for vid, lineage in shown.items()
        if lineage in since and since[lineage] <= date
    }
    found = {}
    if with_french:
        by_lineage = _by_lineage(_rows(set(with_french.values()), date, texts))
        found = _states(with_french, by_lineage, english)
    out = {}
    for vid, lineage in shown.items():
        state = found.get(vid)
        if state is None:  # no French up to `date` in its lineage: missing, no query needed
            state = FrenchText(MISSING, shown_english=english.get(vid, ""))
            state.lineage_id = lineage
        out[vid] = state
    return out


@lru_cache(maxsize=2)
def _french_since(generation: str) -> dict[int, dt.date]:
    """Each lineage holding a French text, with the first release it holds one in; kept until
    the archive changes (every French import and edit changes its stamp). Most rules have no
    French: a rule page then needs no French query at all (it cost about 2 ms a page)."""
    rows = (
        QuerySet(model=RuleVersion)
        .filter(text_fr__gt="")
        .values_list("lineage_id")
        .annotate(first=Min("valid_from"))
        .order_by()
    )
    return dict(rows)


def release_french_states(date: dt.date, *, texts: bool = False) -> dict[int, FrenchText]:
    """The French state of every rule version valid in the release effective `date`, by
    version id (one query over the whole table: what the worklist and the admin count)."""
    by_lineage = _by_lineage(_rows(None, date, texts))
    shown = {
        rows[-1]["id"]: lineage
        for lineage, rows in by_lineage.items()
        if rows and row_valid_on(rows[-1], date)
    }
    return _states(shown, by_lineage, {})


def _by_lineage(rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row["lineage_id"]].append(row)
    return out


def _states(
    shown: dict[int, int], by_lineage: dict[int, list[dict[str, Any]]], english: dict[int, str]
) -> dict[int, FrenchText]:
    out = {}
    for vid, lineage in shown.items():
        versions = by_lineage.get(lineage, [])
        row = next((v for v in versions if v["id"] == vid), None)
        out[vid] = (
            _state(versions, row, english.get(vid, "")) if row is not None else FrenchText(MISSING)
        )
        out[vid].lineage_id = lineage
    return out


def _get(obj: RuleVersion | dict[str, Any], name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def attach_anomalies(states: Iterable[tuple[str, FrenchText]]) -> None:
    """Give each French text the import's anomalies for its number in the release it
    translates (one query): maintainers see them on the pages, readers never do."""
    pairs = [(number, fr) for number, fr in states if not fr.missing and fr.translates]
    if not pairs:
        return
    where = Q(lang="fr", number__in={n for n, _ in pairs}) & Q(
        release__effective_date__in={fr.translates for _, fr in pairs}
    )
    found: dict[tuple[str, dt.date], list[Anomaly]] = defaultdict(list)
    for a in Anomaly.objects.filter(where).annotate(date=F("release__effective_date")):
        found[(a.number, a.date)].append(a)
    for number, fr in pairs:
        fr.anomalies = found.get((number, fr.translates), [])


# -- the translators' worklist ----------------------------------------------------------------


@dataclass
class WorkRow:
    """A rule whose French needs work (or, filtered, any state)."""

    number: str
    kind: str
    sort: str
    french: FrenchText
    version_id: int
    url: str = ""  # the pages fill in the links
    diff_url: str = ""
    admin_url: str = ""


@dataclass
class WorkChapter:
    number: str
    title: str
    title_lang: str
    rows: list[WorkRow] = field(default_factory=list)
    url: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    continued: bool = False  # its first rows are on an earlier page


@dataclass
class WorkSection:
    number: str
    title: str
    title_lang: str
    chapters: list[WorkChapter] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


@dataclass
class Worklist:
    """Every rule of a release whose French is missing, stale or unofficial, grouped by
    section and chapter, with counts per state (over all rules, whatever the filter)."""

    date: dt.date
    state: str  # the filter ("" for every state to do)
    counts: dict[str, int]
    sections: list[WorkSection]
    total: int  # rules (and subrules) in the release

    @property
    def shown(self) -> int:
        return sum(len(c.rows) for s in self.sections for c in s.chapters)


def worklist(date: dt.date, *, state: str = "", french_titles: bool = False) -> Worklist:
    """The translators' worklist of the release effective `date` (three queries, whatever
    the size of the release: the French states, the numbers, the titles).

    `state`: one of TO_DO to list only those rows ("" lists them all). Counts are of every
    rule and subrule of the release, per state, at the top and per chapter. `french_titles`:
    section and chapter titles from the French document where loaded (French pages)."""
    states = release_french_states(date)
    by_lineage = {f.lineage_id: (vid, f) for vid, f in states.items()}
    numbers = list(
        RuleNumber.objects.as_of(date)
        .filter(kind__in=["rule", "subrule"])
        .order_by("sort_key", "ordinal")
        .values_list("lineage_id", "number", "kind", "sort_key")
    )
    titles = _titles(date, french_titles)
    wanted = (state,) if state in TO_DO else TO_DO
    counts = dict.fromkeys(STATES, 0)
    sections: dict[str, WorkSection] = {}
    chapters: dict[str, WorkChapter] = {}
    for lineage, number, kind, sort in numbers:
        found = by_lineage.get(lineage)
        if found is None:
            continue
        vid, french = found
        counts[french.state] += 1
        section = sections.get(number[0])
        if section is None:
            title, lang = titles.get(number[0], ("", "en"))
            section = sections[number[0]] = WorkSection(number[0], title, lang)
        chapter = chapters.get(number[:3])
        if chapter is None:
            title, lang = titles.get(number[:3], ("", "en"))
            chapter = chapters[number[:3]] = WorkChapter(number[:3], title, lang)
            section.chapters.append(chapter)
        for group in (section.counts, chapter.counts):
            group[french.state] = group.get(french.state, 0) + 1
        if french.state in wanted:
            chapter.rows.append(WorkRow(number, kind, sort, french, vid))
    for section in sections.values():
        section.chapters = [c for c in section.chapters if c.rows]
    return Worklist(
        date,
        state if state in TO_DO else "",
        counts,
        [s for s in sorted(sections.values(), key=lambda s: s.number) if s.chapters],
        sum(counts.values()),
    )


#: Rows per page of the worklist: the current release has 3000+ rules without French, one page
#: of them all was 1.5 MB of HTML.
WORKLIST_PAGE_SIZE = 200


def worklist_page(
    work: Worklist, number: str | int | None, per_page: int = WORKLIST_PAGE_SIZE
) -> tuple[Worklist, Page]:
    """One page of the worklist: its rows still grouped by section and chapter (a chapter cut
    by a page break starts the next page again under its heading, marked `continued`), the
    counts those groups and the whole release carry unchanged. Any page number answers (the
    last page past the end, the first for nonsense); no query is made."""
    flat = [
        (section, chapter, row)
        for section in work.sections
        for chapter in section.chapters
        for row in chapter.rows
    ]
    page = Paginator(flat, per_page).get_page(number)
    sections: list[WorkSection] = []
    first = page.start_index() - 1 if flat else 0
    for i, (section, chapter, row) in enumerate(page.object_list, start=first):
        if not sections or sections[-1].number != section.number:
            sections.append(replace(section, chapters=[]))
        chapters = sections[-1].chapters
        if not chapters or chapters[-1].number != chapter.number:
            continued = i > 0 and flat[i - 1][1] is chapter
            chapters.append(replace(chapter, rows=[], continued=continued))
        chapters[-1].rows.append(row)
    return replace(work, sections=sections), page


def _titles(date: dt.date, french: bool) -> dict[str, tuple[str, str]]:
    """Section and chapter titles by number, with the language each is in (one query)."""
    rows = RuleVersion.objects.numbered_as_of(
        date, Q(lineage__numbers__kind__in=["section", "chapter"])
    ).values_list("lineage__numbers__number", "text_en", "text_fr")
    return {number: (fr, "fr") if french and fr else (en, "en") for number, en, fr in rows}


def rule_french_states(date: dt.date | None = None) -> dict[int, FrenchText]:
    """The French state of every rule and subrule version of a release (the current one by
    default), by version id: sections' and chapters' titles left out, as on the worklist
    (three queries at most)."""
    if date is None:
        current = Release.objects.current()
        if current is None:
            return {}
        date = current.effective_date
    rules = set(
        RuleNumber.objects.as_of(date)
        .filter(kind__in=["rule", "subrule"])
        .values_list("lineage_id", flat=True)
    )
    return {
        vid: french
        for vid, french in release_french_states(date).items()
        if french.lineage_id in rules
    }


def french_queue_counts(date: dt.date | None = None) -> dict[str, int]:
    """How many rules of a release (the current one by default) have their French missing,
    stale or unofficial: what the admin's review queues show."""
    counts = dict.fromkeys(TO_DO, 0)
    for french in rule_french_states(date).values():
        if french.state in counts:
            counts[french.state] += 1
    return counts


__all__ = [
    "EXAMPLE_CHANGES",
    "MISSING",
    "STALE",
    "STATES",
    "TO_DO",
    "FrenchText",
    "Worklist",
    "attach_anomalies",
    "attach_examples",
    "example_changes",
    "french_queue_counts",
    "french_states",
    "release_french_states",
    "rule_french_states",
    "worklist",
    "worklist_page",
]
