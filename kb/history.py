"""A rule's history through every release, and the diff between any two releases.

Both follow lineages: a renumbered rule is the same rule, so moves show as moves, not as a
removal and an addition. Changes are classified (wording, examples, reference renumbered,
typography only) by the hashes each version keeps, so noise is counted apart and folded.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connection
from django.utils.safestring import SafeString

from kb.crtext.numbers import parent_of
from kb.diffing import REAL, classify, is_noise, word_diff
from kb.models import (
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Release,
    RuleNumber,
    RuleVersion,
)
from kb.models.citations import cite_other_rules
from kb.models.versioning import HASH_FIELDS
from kb.selectors import Releases, contents, version_texts
from kb.stamps import archive_generation

# -- a rule's history -----------------------------------------------------------------------


@dataclass
class HistoryItem:
    """One release in which something happened to the rule."""

    date: dt.date
    release: Release | None
    number: str
    kinds: list[str]
    version: RuleVersion | None = None
    previous_number: str = ""
    previous_until: Release | None = None  # the last release with the previous number
    diff: SafeString | str = ""
    example_diffs: list[SafeString | str] = field(default_factory=list)
    url: str = ""
    previous_url: str = ""
    diff_url: str = ""

    @property
    def folded(self) -> bool:
        """Typography-only and reference-only versions are shown folded."""
        return is_noise(self.kinds)


def rule_history(lineage_id: int, releases: Releases) -> list[HistoryItem]:
    """Every change of a lineage, newest first: text versions and renumberings merged
    (three queries)."""
    versions = list(RuleVersion.objects.filter(lineage_id=lineage_id).order_by("valid_from"))
    numbers = list(RuleNumber.objects.filter(lineage_id=lineage_id).order_by("valid_from"))
    examples: dict[int, list[str]] = defaultdict(list)
    for vid, text in (
        Example.objects.filter(version__lineage_id=lineage_id)
        .order_by("version_id", "position")
        .values_list("version_id", "text_en")
    ):
        examples[vid].append(text)
    by_date = {r.effective_date: r for r in releases.all}
    starts = sorted({v.valid_from for v in versions} | {n.valid_from for n in numbers})
    items: list[HistoryItem] = []
    prev_version: RuleVersion | None = None
    prev_number: RuleNumber | None = None
    for date in starts:
        version = next(v for v in versions if v.valid_from <= date and _before(date, v.valid_to))
        number = next(n for n in numbers if n.valid_from <= date and _before(date, n.valid_to))
        item = HistoryItem(date, by_date.get(date), number.number, [], version)
        if prev_version is None:
            item.kinds = ["new"]
            item.diff = version.text_en
            item.example_diffs = list(examples[version.pk])
        else:
            if number is not prev_number:
                item.kinds.append("moved")
                item.previous_number = prev_number.number
                item.previous_until = _release_before(releases, date)
            if version is not prev_version:
                item.kinds.extend(k for k in version.change.split() if k != "new")
                item.diff = word_diff(prev_version.text_en, version.text_en)
                item.example_diffs = _example_diffs(examples[prev_version.pk], examples[version.pk])
            else:
                item.diff = version.text_en
        items.append(item)
        prev_version, prev_number = version, number
    last = versions[-1] if versions else None
    if last is not None and last.valid_to is not None:
        items.append(
            HistoryItem(last.valid_to, by_date.get(last.valid_to), numbers[-1].number, ["removed"])
        )
    return list(reversed(items))


def _before(date: dt.date, end: dt.date | None) -> bool:
    return end is None or date < end


def _release_before(releases: Releases, date: dt.date) -> Release | None:
    earlier = [r for r in releases.all if r.effective_date < date]
    return earlier[-1] if earlier else None


def _example_diffs(
    old: list[str], new: list[str], fold_typography: bool = False
) -> list[SafeString | str]:
    out: list[SafeString | str] = []
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else ""
        b = new[i] if i < len(new) else ""
        out.append(word_diff(a, b, fold_typography) if a != b else b)
    return out


# -- the diff between two releases ------------------------------------------------------------


@dataclass
class DiffItem:
    """One lineage that differs between two releases."""

    status: str  # added, removed, changed, moved (moved may also have text kinds)
    kinds: list[str]  # wording, examples, reference, typography
    lineage_id: int
    old_number: str
    new_number: str
    kind: str  # section, chapter, rule, subrule
    old_version: int | None
    new_version: int | None
    sort: str
    diff: SafeString | str = ""
    example_diffs: list[SafeString | str] = field(default_factory=list)
    old_url: str = ""
    new_url: str = ""
    rank: int = -1  # position in the newer release's order (adjacent ranks: a block)

    @property
    def number(self) -> str:
        return self.new_number or self.old_number

    @property
    def section(self) -> str:
        return self.number[0]

    @property
    def chapter(self) -> str:
        return self.number[:3] if self.kind in ("rule", "subrule", "chapter") else ""

    @property
    def moved(self) -> bool:
        return bool(self.old_number and self.new_number and self.old_number != self.new_number)

    @property
    def noise(self) -> bool:
        """Only references renumbered or typography changed, and not moved: folded away."""
        return self.status == "changed" and not self.moved and is_noise(self.kinds)

    @property
    def anchor(self) -> str:
        return f"r-{self.number}"

    @property
    def shift(self) -> bool:
        """Renumbered with its wording unchanged (typography or references at most): folded
        into a block of moves rather than listed with the real changes."""
        return self.moved and (not self.kinds or is_noise(self.kinds))


@dataclass
class MoveBlock:
    """Consecutive rules renumbered by the same step with their wording unchanged
    ("114.7c–114.7z → 115.7c–115.7z"): a block shift reads as one line, not 24."""

    items: list[DiffItem]

    @property
    def first(self) -> DiffItem:
        return self.items[0]

    @property
    def last(self) -> DiffItem:
        return self.items[-1]

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def unchanged(self) -> int:
        """How many keep their text exactly (the others differ by typography or references)."""
        return sum(1 for i in self.items if not i.kinds)

    @property
    def anchor(self) -> str:
        return f"m-{self.first.new_number}"


def _parts(number: str) -> list[str]:
    """A rule number's components: "114.7c" -> ["114", "7", "c"]."""
    return re.findall(r"\d+|[a-z]+", number)


def _value(part: str) -> int:
    return (
        int(part)
        if part.isdigit()
        else sum((ord(c) - 96) * 27**i for i, c in enumerate(reversed(part)))
    )


def _step(old: str, new: str) -> tuple[int, int] | None:
    """How a renumbering shifts: the first component that changes and by how much, the rest
    kept ("114.7c" -> "115.7c" and "114.7" -> "115.7" both shift component 0 by 1). None when
    the move is not a shift (other components change too)."""
    a, b = _parts(old), _parts(new)
    if len(a) != len(b):
        return None
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            if a[i + 1 :] != b[i + 1 :] or x.isdigit() != y.isdigit():
                return None
            return (i, _value(y) - _value(x))
    return None


def move_blocks(items: list[DiffItem]) -> list[MoveBlock]:
    """The shifts among `items` (in release order) folded into blocks: a block goes on while
    the next shift is the next rule of the newer release and moves by the same step."""
    blocks: list[MoveBlock] = []
    prev: DiffItem | None = None
    prev_step: tuple[int, int] | None = None
    for item in items:
        if not item.shift:
            prev = None
            continue
        step = _step(item.old_number, item.new_number)
        if (
            prev is not None
            and item.rank == prev.rank + 1
            and (step == prev_step if step is not None else _moved_with(item, prev, prev_step))
        ):
            blocks[-1].items.append(item)
        else:
            blocks.append(MoveBlock([item]))
        prev, prev_step = item, step
    return blocks


def _moved_with(item: DiffItem, prev: DiffItem, prev_step: tuple[int, int] | None) -> bool:
    """A move that is no shift (a rule and its subrules become rules of a new chapter: M20's
    110.5, 110.5a-g -> 111.1-111.8) goes on the previous one's block when that one was no
    shift either and the two came from one rule: siblings, or a rule and its first subrule."""
    if prev_step is not None:
        return False
    parent = parent_of(item.old_number)
    return parent is not None and parent in (prev.old_number, parent_of(prev.old_number))


@dataclass(frozen=True)
class DiffSummary:
    """The headline of a diff ("13 rules reworded, 18 added, 10 removed; 221 renumbered in
    6 blocks"): what the diff page and the home page both show first."""

    old_date: dt.date
    new_date: dt.date
    reworded: int  # wording or examples changed (moved or not)
    added: int
    removed: int
    renumbered: int  # moved with the wording unchanged
    blocks: int
    noise: int  # typography or references only, not moved
    glossary: int  # glossary terms added, removed, renamed or reworded

    @property
    def empty(self) -> bool:
        return not (self.reworded or self.added or self.removed or self.renumbered)


def _count_key(item: DiffItem) -> str:
    """The one count a rule that differs falls in (ReleaseDiff.counts, diff_summary)."""
    if item.status in ("added", "removed"):
        return item.status
    if any(k in REAL for k in item.kinds):
        return "changed"
    if item.shift:
        return "moved"
    return "reference" if "reference" in item.kinds else "typography"


def diff_summary(result: ReleaseDiff) -> DiffSummary:
    """Counts a reader can take in at a glance; moves folded into blocks as on the page.
    The same counts as the page's box (ReleaseDiff.counts), under the sentence's names."""
    c = result.counts()
    return DiffSummary(
        result.old.effective_date,
        result.new.effective_date,
        reworded=c["changed"],
        added=c["added"],
        removed=c["removed"],
        renumbered=c["moved"],
        blocks=len(move_blocks(result.items)),
        noise=c["reference"] + c["typography"],
        glossary=c["glossary"],
    )


@dataclass(frozen=True)
class DiffOverview:
    """What every page of a diff shows above its items: the counts, the summary and the
    sections with their sizes. Cached per archive state: a long diff has thousands of items
    and each page of it would otherwise count them all again."""

    counts: dict[str, int]
    summary: DiffSummary
    sections: list[tuple[str, str, int, int]]  # section, title, items, noise among them
    terms: int
    noise_terms: int


def diff_overview(result: ReleaseDiff) -> DiffOverview:
    """The overview of a diff (see DiffOverview), from the cache when it was computed in
    the same archive state."""
    pair = f"{result.old.effective_date}-{result.new.effective_date}"
    key = f"kb-diff-overview-{pair}-{result.generation}"
    found = cache.get(key) if result.generation else None
    if found is None:
        titles = {
            e.number: e.text for e in contents(result.new.effective_date) if e.kind == "section"
        }
        found = DiffOverview(
            counts=result.counts(),
            summary=diff_summary(result),
            sections=[
                (s, titles.get(s, ""), len(items), sum(1 for i in items if i.noise))
                for s, items in result.sections()
            ],
            terms=sum(1 for t in result.terms if not t.noise),
            noise_terms=sum(1 for t in result.terms if t.noise),
        )
        if result.generation:
            cache.set(key, found, timeout=None)
    return found


def cached_summary(old: Release, new: Release) -> DiffSummary:
    """The summary of a release pair, cached per archive state (the home page shows the
    latest release's: a few queries instead of a whole diff). An import or an edit changes
    the generation, so a stale summary is never read."""
    key = f"kb-diff-summary-{old.effective_date}-{new.effective_date}-{_generation_key()}"
    found = cache.get(key)
    if found is None:
        found = diff_summary(diff_between(old, new))
        cache.set(key, found, timeout=None)
    return found


@dataclass
class TermDiff:
    status: str  # added, removed, changed, renamed
    kinds: list[str]
    slug: str
    old_headword: str
    new_headword: str
    old_version: int | None
    new_version: int | None
    diff: SafeString | str = ""

    @property
    def noise(self) -> bool:
        return self.status == "changed" and is_noise(self.kinds)

    @property
    def headword(self) -> str:
        return self.new_headword or self.old_headword


#: Above this many items a diff is too long for one page: the page shows it a section at a
#: time, and the API links each item to its section's page.
DIFF_PAGE_LIMIT = 400

#: A page of a sectioned diff holds whole chapters up to this weight (a real or noise item
#: weighs 1, a folded move less); a chapter heavier than that is cut into parts. Measured to
#: keep the biggest page of the 2010 -> today diff under 300 KB.
PAGE_WEIGHT = 220
SHIFT_WEIGHT = 0.25
#: Glossary terms per page of a sectioned diff.
TERM_PAGE_LIMIT = 150


@dataclass
class ReleaseDiff:
    old: Release
    new: Release
    items: list[DiffItem]
    terms: list[TermDiff]
    generation: str = ""  # the archive state it was computed in (keys what pages cache)

    @property
    def sectioned(self) -> bool:
        """Shown section by section (see DIFF_PAGE_LIMIT)."""
        return len(self.items) > DIFF_PAGE_LIMIT

    def counts(self) -> dict[str, int]:
        """Each rule that differs counted once, so that the counts add up to `total` (the
        "N rules differ" of a sectioned diff): added, removed, changed (wording or examples,
        moved or not), moved (renumbered with the wording unchanged: the shifts folded into
        blocks), and the noise counted apart, neither moved nor reworded: reference-only and
        typography-only. The glossary's terms are counted apart."""
        c: Counter[str] = Counter()
        for item in self.items:
            c[_count_key(item)] += 1
        c["total"] = len(self.items)
        c["glossary"] = sum(1 for t in self.terms if not t.noise)
        c["glossary_noise"] = sum(1 for t in self.terms if t.noise)
        for key in ("added", "removed", "moved", "changed", "reference", "typography"):
            c.setdefault(key, 0)
        return dict(c)

    def sections(self) -> list[tuple[str, list[DiffItem]]]:
        groups: dict[str, list[DiffItem]] = defaultdict(list)
        for item in self.items:
            groups[item.section].append(item)
        return sorted(groups.items())

    def pages(self, section: str) -> list[DiffPage]:
        """The pages of one section of a sectioned diff, cut at chapters (see PAGE_WEIGHT);
        `glossary` pages the terms. [] for an unknown section."""
        if section == "glossary":
            return [
                DiffPage(
                    "glossary",
                    n + 1,
                    _initials(chunk[0].headword, chunk[-1].headword),
                    terms=chunk,
                )
                for n, chunk in enumerate(_chunks(self.terms, TERM_PAGE_LIMIT))
            ]
        items = dict(self.sections()).get(section, [])
        chapters: dict[str, list[DiffItem]] = {}
        for item in items:
            chapters.setdefault(item.chapter or section, []).append(item)
        parts: list[list[DiffItem]] = []
        for chapter_items in chapters.values():
            parts.extend(_cut(chapter_items, PAGE_WEIGHT))
        pages: list[list[DiffItem]] = []
        load = 0.0
        for part in parts:
            weight = _weight(part)
            if pages and load + weight <= PAGE_WEIGHT:
                pages[-1].extend(part)
                load += weight
            else:
                pages.append(list(part))
                load = weight
        return [
            DiffPage(section, n + 1, _span(chunk[0].number, chunk[-1].number), items=chunk)
            for n, chunk in enumerate(pages)
        ]

    def item_pages(self) -> dict[int, tuple[str, int]]:
        """Lineage -> (section, page) of a sectioned diff: where the API links each item."""
        out: dict[int, tuple[str, int]] = {}
        if self.sectioned:
            for section, _ in self.sections():
                for page in self.pages(section):
                    for item in page.items:
                        out[item.lineage_id] = (section, page.number)
        return out


@dataclass
class DiffPage:
    """One page of a sectioned diff: whole chapters, or a part of a very long one."""

    section: str
    number: int
    label: str  # "702.1–702.19" or "A–Cy"
    items: list[DiffItem] = field(default_factory=list)
    terms: list[TermDiff] = field(default_factory=list)


def _weight(items: list[DiffItem]) -> float:
    return sum(SHIFT_WEIGHT if i.shift else 1 for i in items)


def _cut(items: list[DiffItem], budget: float) -> list[list[DiffItem]]:
    """Items in runs of at most `budget` weight, in order."""
    out: list[list[DiffItem]] = [[]]
    load = 0.0
    for item in items:
        w = SHIFT_WEIGHT if item.shift else 1
        if out[-1] and load + w > budget:
            out.append([])
            load = 0.0
        out[-1].append(item)
        load += w
    return out


def _chunks(terms: list[TermDiff], size: int) -> list[list[TermDiff]]:
    return [terms[i : i + size] for i in range(0, len(terms), size)]


def _span(first: str, last: str) -> str:
    return first if first == last else f"{first}–{last}"


def _initials(first: str, last: str) -> str:
    a, b = first[:2].capitalize(), last[:2].capitalize()
    return a if a == b else f"{a}–{b}"


def ordered(one: Release, other: Release) -> tuple[Release, Release]:
    """The older release first: a diff reads from the older to the newer whichever way it
    was asked for."""
    return (other, one) if one.effective_date > other.effective_date else (one, other)


def diff_between(one: Release, other: Release) -> ReleaseDiff:
    """What changed from the older of two releases to the newer: what the diff page and the
    API both show."""
    return release_diff(*ordered(one, other))


def release_diff(old: Release, new: Release) -> ReleaseDiff:
    """What changed between two releases, matched by lineage (cached per archive state:
    releases never change once loaded, except by re-import, which changes the key)."""
    generation = _generation_key()
    key = f"kb-diff2-{old.effective_date}-{new.effective_date}-{generation}"
    found = cache.get(key)
    fresh = found is None
    if found is None:
        found = (
            _rule_items(old.effective_date, new.effective_date),
            _term_items(old.effective_date, new.effective_date),
        )
        cache.set(key, found, timeout=None)
    items, terms = found
    # Django's caches store pickles, so each read is a fresh copy: what a page renders into
    # the items never reaches the cache. The first computation is copied here likewise.
    if fresh:
        items = [DiffItem(**vars(i)) for i in items]
        terms = [TermDiff(**vars(t)) for t in terms]
    return ReleaseDiff(old, new, items, terms, generation)


def _generation_key() -> str:
    """The generation holds dates with spaces, which some cache backends refuse in keys."""
    return hashlib.blake2b(archive_generation().encode(), digest_size=8).hexdigest()


def _rows_valid_on(model: type, columns: str, date: dt.date) -> list[tuple]:
    """Plain SQL for the few thousand rows of a release: a diff reads four such snapshots and
    the ORM's per-row work would dominate it."""
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM {table} "
            "WHERE valid_from <= %s AND (valid_to > %s OR valid_to IS NULL)",
            [date, date],
        )
        return cursor.fetchall()


def _numbers(date: dt.date) -> dict[int, tuple[str, str, str]]:
    rows = _rows_valid_on(RuleNumber, "lineage_id, number, kind, sort_key", date)
    return {lid: (number, kind, sk) for lid, number, kind, sk in rows}


def _versions(date: dt.date) -> dict[int, tuple[int, tuple[str, str, str, str]]]:
    rows = _rows_valid_on(RuleVersion, ", ".join(("lineage_id", "id", *HASH_FIELDS)), date)
    return {lid: (vid, (th, fh, mh, eh)) for lid, vid, th, fh, mh, eh in rows}


def _rule_items(a: dt.date, b: dt.date) -> list[DiffItem]:
    na, nb, va, vb = _numbers(a), _numbers(b), _versions(a), _versions(b)
    ranks = {lid: r for r, lid in enumerate(sorted(nb, key=lambda lid: (nb[lid][2], lid)))}
    items = []
    for lid in na.keys() | nb.keys():
        if lid not in na:
            number, kind, sk = nb[lid]
            items.append(DiffItem("added", [], lid, "", number, kind, None, vb[lid][0], sk))
        elif lid not in nb:
            number, kind, sk = na[lid]
            items.append(DiffItem("removed", [], lid, number, "", kind, va[lid][0], None, sk))
        else:
            (old_n, kind, _), (new_n, _, sk) = na[lid], nb[lid]
            (old_v, old_h), (new_v, new_h) = va[lid], vb[lid]
            kinds = classify(old_h, new_h) if old_v != new_v else []
            if kinds or old_n != new_n:
                status = "changed" if kinds else "moved"
                items.append(DiffItem(status, kinds, lid, old_n, new_n, kind, old_v, new_v, sk))
    _cited_rules_changed(items, a, b)
    for item in items:
        item.rank = ranks.get(item.lineage_id, -1)
    items.sort(key=lambda i: (i.sort, i.lineage_id))
    return items


def _cited_rules_changed(items: list[DiffItem], a: dt.date, b: dt.date) -> None:
    """A reference change that now cites another rule (not the same rule renumbered) is a
    change of meaning: "wording", shown with its word diff, never folded as noise."""
    references = [i for i in items if i.kinds == ["reference"]]
    other = cite_other_rules((i.old_version, a, i.new_version, b) for i in references)
    for item in references:
        if item.new_version in other:
            item.kinds = ["wording"]


def _term_items(a: dt.date, b: dt.date) -> list[TermDiff]:
    def load(date: dt.date) -> dict[int, tuple[int, str, str, tuple[str, str, str, str]]]:
        return {
            tid: (vid, head, slug, (th, fh, mh, eh))
            for tid, vid, head, slug, th, fh, mh, eh in GlossaryVersion.objects.as_of(
                date
            ).values_list(
                "term_id",
                "id",
                "headword",
                "term__slug",
                *HASH_FIELDS,
            )
        }

    ga, gb = load(a), load(b)
    out = []
    for tid in ga.keys() | gb.keys():
        if tid not in ga:
            vid, head, slug, _ = gb[tid]
            out.append(TermDiff("added", [], slug, "", head, None, vid))
        elif tid not in gb:
            vid, head, slug, _ = ga[tid]
            out.append(TermDiff("removed", [], slug, head, "", vid, None))
        else:
            (ov, oh, slug, ohash), (nv, nh, _, nhash) = ga[tid], gb[tid]
            if ov == nv:
                continue
            kinds = classify(ohash, nhash)
            status = "renamed" if oh != nh else "changed"
            if kinds or status == "renamed":
                out.append(TermDiff(status, kinds, slug, oh, nh, ov, nv))
    out.sort(key=lambda t: (t.new_headword or t.old_headword).casefold())
    return out


def render_item_diffs(
    items: list[DiffItem], terms: list[TermDiff] | None = None, *, fold_typography: bool = True
) -> None:
    """Word diffs for the items about to be shown (two queries whatever their number).

    Shifts are shown folded into their block with no text. With `fold_typography`, a
    changed item highlights its wording only (quotes or dashes that changed beside it are
    not marked); a typography-only item always shows what changed, that being its point.
    """
    shown = [i for i in items if i.status != "moved" and not i.shift]
    ids = {i.old_version for i in shown if i.old_version} | {
        i.new_version for i in shown if i.new_version
    }
    texts = version_texts(ids)
    examples: dict[int, list[str]] = defaultdict(list)
    for vid, text in (
        Example.objects.filter(version_id__in=ids)
        .order_by("version_id", "position")
        .values_list("version_id", "text_en")
    ):
        examples[vid].append(text)
    for item in shown:
        fold = fold_typography and item.kinds != ["typography"]
        old = texts.get(item.old_version, "") if item.old_version else ""
        new = texts.get(item.new_version, "") if item.new_version else ""
        item.diff = word_diff(old, new, fold) if old != new else new
        item.example_diffs = _example_diffs(
            examples.get(item.old_version, []) if item.old_version else [],
            examples.get(item.new_version, []) if item.new_version else [],
            fold,
        )
    if terms:
        tids = {t.old_version for t in terms if t.old_version} | {
            t.new_version for t in terms if t.new_version
        }
        gtexts = dict(GlossaryVersion.objects.filter(id__in=tids).values_list("id", "text_en"))
        for t in terms:
            fold = fold_typography and t.kinds != ["typography"]
            old = gtexts.get(t.old_version, "") if t.old_version else ""
            new = gtexts.get(t.new_version, "") if t.new_version else ""
            t.diff = word_diff(old, new, fold) if old != new else new


def term_history(term: GlossaryTerm, releases: Releases) -> list[HistoryItem]:
    """A glossary term's versions, newest first, with word diffs (one query)."""
    versions = list(term.versions.order_by("valid_from"))
    by_date = {r.effective_date: r for r in releases.all}
    items: list[HistoryItem] = []
    prev = None
    for v in versions:
        kinds = v.change.split() if prev is not None else ["new"]
        item = HistoryItem(v.valid_from, by_date.get(v.valid_from), v.headword, kinds)
        item.diff = word_diff(prev.text_en, v.text_en) if prev is not None else v.text_en
        if prev is not None and prev.headword != v.headword:
            item.previous_number = prev.headword
        items.append(item)
        prev = v
    if versions and versions[-1].valid_to is not None:
        items.append(
            HistoryItem(
                versions[-1].valid_to,
                by_date.get(versions[-1].valid_to),
                versions[-1].headword,
                ["removed"],
            )
        )
    return list(reversed(items))


# -- across the Magic 2010 renumbering -------------------------------------------------------


@dataclass
class EraStep:
    """One link of a rule across Magic 2010: the rule on the other side, how much of it, and
    the word diff from the legacy text to the modern one."""

    number: str  # the rule on the other side
    date: dt.date  # the release it is read in (2009-05-01 or 2009-07-11)
    whole: bool  # the whole legacy rule (else a part of it, or part of a merge)
    title: str  # the other side's chapter title ("Playing Spells and Activated Abilities")
    diff: SafeString
    confirmed: bool
    url: str = ""  # the page of that rule in that release (the view sets it)


def across_2010(lineage_id: int) -> tuple[list[EraStep], list[EraStep]]:
    """(where a modern rule came from, where a legacy rule went): shown links only, read in
    four queries whatever their number (a page lists them all)."""
    from django.db.models import Count, Q

    from kb.archive.eras import FIRST_MODERN, LAST_LEGACY
    from kb.models import EraLink

    links = list(
        EraLink.objects.shown()
        .filter(Q(modern_id=lineage_id) | Q(legacy_id=lineage_id))
        .order_by("legacy_number", "modern_number")
    )
    if not links:
        return [], []
    siblings = dict(
        EraLink.objects.shown()
        .filter(legacy_number__in={k.legacy_number for k in links})
        .values_list("legacy_number")
        .annotate(n=Count("id"))
    )

    def texts(date: dt.date, numbers: set[str]) -> dict[str, str]:
        numbers |= {n.split(".")[0] for n in numbers}  # and their chapters' titles
        return dict(
            RuleVersion.objects.numbered_as_of(date, Q(lineage__numbers__number__in=numbers))
            .order_by("lineage__numbers__ordinal")
            .values_list("lineage__numbers__number", "text_en")
        )

    old = texts(LAST_LEGACY, {k.legacy_number for k in links})
    new = texts(FIRST_MODERN, {k.modern_number for k in links})

    def step(link: EraLink, number: str, date: dt.date, side: dict[str, str]) -> EraStep:
        return EraStep(
            number=number,
            date=date,
            whole=link.how == EraLink.How.WHOLE and siblings.get(link.legacy_number) == 1,
            title=side.get(number.split(".")[0], "") if "." in number else "",
            diff=word_diff(old.get(link.legacy_number, ""), new.get(link.modern_number, ""), True),
            confirmed=link.status == EraLink.Status.CONFIRMED,
        )

    origins = [
        step(k, k.legacy_number, LAST_LEGACY, old) for k in links if k.modern_id == lineage_id
    ]
    successors = [
        step(k, k.modern_number, FIRST_MODERN, new) for k in links if k.legacy_id == lineage_id
    ]
    return origins, successors


def counterparts(number: str, date: dt.date) -> list[str]:
    """For a number missing from the release of `date`, the rules of that release it stands
    for across Magic 2010: asked for today's 602.2a in 2003, the 409.1a of 2003 it came from;
    asked for 2009's 409.1a today, the rules it became (their numbers on `date`)."""
    from kb.archive.eras import FIRST_MODERN, LAST_LEGACY
    from kb.crtext.numbers import is_legacy_date
    from kb.models import EraLink
    from kb.models.versioning import valid_on

    legacy_side = is_legacy_date(date)
    other = FIRST_MODERN if legacy_side else LAST_LEGACY
    held = RuleNumber.objects.filter(number=number)
    lineage = held.filter(valid_on(other)).values_list("lineage_id", flat=True).first() or (
        held.filter(valid_to__isnull=True).values_list("lineage_id", flat=True).first()
        if legacy_side
        else None
    )
    if lineage is None:
        return []
    links = EraLink.objects.shown()
    if legacy_side:
        ids = links.filter(modern_id=lineage).values_list("legacy_id", flat=True)
    else:
        ids = links.filter(legacy_id=lineage).values_list("modern_id", flat=True)
    return list(
        RuleNumber.objects.filter(valid_on(date), lineage_id__in=list(ids))
        .order_by("sort_key")
        .values_list("number", flat=True)
    )
