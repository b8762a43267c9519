"""What maintainers put on the archive and what each release printed, taken before an import and
checked after it.

Why a ledger and not more care in each code path: an import reshapes intervals (it splits a
row when a release lands inside it, re-creates the rows of a replaced release, copies a row to
the far side of the window) and each of those paths once lost or relabelled a maintainer's
correction in its own way. So the importer no longer trusts any of them to report what it could
not keep: it lists every piece of maintainers' work with the releases it applies to before the
import, looks for each one again afterwards, and what is no longer where it applied is "lost":
listed in the import record, and refused unless forced. The same ledger is the invariant the
tests check (`unaccounted`): every edit accounted for, and the official text of every release
still in the database (the row's own text, or `source_text` under a correction).

A piece of work (`Work`) is one English correction, one French text, one edited example or one
example a maintainer added, on one row, with the releases its row is valid in. It is found again
by the row's lineage (a rule renumbered keeps it); glossary work by its term. Where the lineage
has no row on a date any more, the number the rule had then may find a copy of its row the
import made under a new lineage (a row split at a release that lacks the rule), never another
rule: a rule the new text removes, whose number another rule takes, is reported as removed.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max, Q

from kb.archive.texts import hashes
from kb.crtext.model import Document
from kb.crtext.typography import digest
from kb.dbutil import chunks
from kb.models import Example, GlossaryVersion, Lineage, Release, RuleNumber, RuleVersion
from kb.models.rules import ExampleOrigin
from kb.models.versioning import EDIT_FIELDS

ENGLISH = "English correction"
FRENCH = "French text"
ADDED = "added example"

_ROW = ("id", "valid_from", "valid_to", "text_en", "text_fr", "fr_status", *EDIT_FIELDS)
_EXAMPLE = ("position", "origin", "text_en", "text_fr", *EDIT_FIELDS)


@dataclass(frozen=True)
class Place:
    """A release a piece of work applies to, and what the owner was called there."""

    release: dt.date
    label: str  # the rule's number, or the glossary headword
    ordinal: int = 0  # a number the source printed twice


@dataclass(frozen=True)
class Work:
    """One piece of a maintainer's work and the releases it applies to."""

    kind: str  # "rule", "example" or "glossary"
    owner: int  # lineage id (rule, example) or glossary term id
    what: str  # ENGLISH, FRENCH or ADDED
    value: tuple  # what must be found again on the row
    places: tuple[Place, ...]
    position: int | None = None  # a printed example's position
    #: The text the source printed on the work's row (rules): a lineage the archive held
    #: before that now holds the rule's number is the same rule only if it prints this.
    english: str = ""


@dataclass
class Ledger:
    """The work found before an import (and, when asked, every release's official texts)."""

    work: list[Work] = field(default_factory=list)
    official: dict[dt.date, dict[tuple[str, str], str]] = field(default_factory=dict)
    #: The highest rule lineage id when the ledger was taken: a lineage above it is one the
    #: import made (None: unknown, and work is looked for on its own lineage only).
    last_lineage: int | None = None


def _french(value: Any) -> str:
    return value or ""


def _has_french(row: dict[str, Any]) -> bool:
    return bool(_french(row["text_fr"]) or row.get("fr_status") or row["fr_edited"])


class _Releases:
    """The loaded releases' dates: which of them an interval covers."""

    def __init__(self) -> None:
        self.dates = list(
            Release.objects.order_by("effective_date").values_list("effective_date", flat=True)
        )

    def within(self, start: dt.date, end: dt.date | None) -> list[dt.date]:
        lo = bisect.bisect_left(self.dates, start)
        hi = len(self.dates) if end is None else bisect.bisect_left(self.dates, end)
        return self.dates[lo:hi]


class _Numbers:
    """The numbers lineages held, read once for the lineages asked about."""

    def __init__(self, lineage_ids: Iterable[int]) -> None:
        self.spans: dict[int, list[tuple[dt.date, dt.date | None, str, int]]] = defaultdict(list)
        for chunk in chunks(sorted(set(lineage_ids))):
            for lid, start, end, number, ordinal in RuleNumber.objects.filter(
                lineage_id__in=chunk
            ).values_list("lineage_id", "valid_from", "valid_to", "number", "ordinal"):
                self.spans[lid].append((start, end, number, ordinal))

    def on(self, lineage_id: int, date: dt.date) -> tuple[str, int]:
        for start, end, number, ordinal in self.spans.get(lineage_id, ()):
            if start <= date and (end is None or date < end):
                return number, ordinal
        return "", 0


# -- taking the ledger ---------------------------------------------------------------------------


def _marked() -> Q:
    return (
        Q(en_edited=True)
        | Q(fr_edited=True)
        | (Q(text_fr__isnull=False) & ~Q(text_fr=""))
        | ~Q(fr_status="")
    )


def take(*, official: bool = False) -> Ledger:
    """Every piece of maintainers' work in the archive, by row and release (a few queries;
    nothing is read when nobody edited anything); with `official`, every release's official
    texts too (the whole archive: for tests and checks, not for every import)."""
    releases = _Releases()
    ledger = Ledger()
    rules = list(RuleVersion.objects.filter(_marked()).values("lineage_id", *_ROW))
    examples = list(
        Example.objects.filter(
            Q(en_edited=True)
            | Q(fr_edited=True)
            | Q(origin=ExampleOrigin.MAINTAINER)
            | (Q(text_fr__isnull=False) & ~Q(text_fr=""))
        ).values(
            "version__lineage_id",
            "version__valid_from",
            "version__valid_to",
            *_EXAMPLE,
        )
    )
    numbers = _Numbers(
        [r["lineage_id"] for r in rules] + [e["version__lineage_id"] for e in examples]
    )
    if rules or examples:
        ledger.last_lineage = Lineage.objects.aggregate(last=Max("id"))["last"] or 0

    def places(lid: int, start: dt.date, end: dt.date | None) -> tuple[Place, ...]:
        return tuple(Place(d, *numbers.on(lid, d)) for d in releases.within(start, end))

    for row in rules:
        where = places(row["lineage_id"], row["valid_from"], row["valid_to"])
        ledger.work.extend(_text_work("rule", row["lineage_id"], row, where))
    for ex in examples:
        lid = ex["version__lineage_id"]
        where = places(lid, ex["version__valid_from"], ex["version__valid_to"])
        if ex["origin"] == ExampleOrigin.MAINTAINER:
            value = (ex["text_en"], _french(ex["text_fr"]))
            ledger.work.append(Work("example", lid, ADDED, value, where))
            continue
        if ex["en_edited"]:
            value = (ex["text_en"], ex["source_text"])
            ledger.work.append(Work("example", lid, ENGLISH, value, where, ex["position"]))
        if _french(ex["text_fr"]) or ex["fr_edited"]:
            value = (_french(ex["text_fr"]), ex["fr_edited"])
            ledger.work.append(Work("example", lid, FRENCH, value, where, ex["position"]))
    for row in GlossaryVersion.objects.filter(_marked()).values("term_id", "headword", *_ROW):
        where = tuple(
            Place(d, row["headword"]) for d in releases.within(row["valid_from"], row["valid_to"])
        )
        ledger.work.extend(_text_work("glossary", row["term_id"], row, where))
    if official:
        ledger.official = official_texts(releases)
    return ledger


def _text_work(kind: str, owner: int, row: dict[str, Any], where: tuple[Place, ...]) -> list[Work]:
    out = []
    english = row["source_text"] if row["en_edited"] else row["text_en"]
    if row["en_edited"]:
        value = (row["text_en"], row["source_text"])
        out.append(Work(kind, owner, ENGLISH, value, where, english=english))
    if _has_french(row):
        value = (_french(row["text_fr"]), row["fr_status"], row["fr_edited"])
        out.append(Work(kind, owner, FRENCH, value, where, english=english))
    return out


# -- looking for it again ------------------------------------------------------------------------


class _After:
    """The rows work may be found on after the import, read in a few queries."""

    def __init__(self, before: Ledger) -> None:
        work = before.work
        self.last_lineage = before.last_lineage
        lineages = {w.owner for w in work if w.kind != "glossary"}
        terms = {w.owner for w in work if w.kind == "glossary"}
        self.rules = self._rows(RuleVersion, "lineage_id", lineages)
        self.terms = self._rows(GlossaryVersion, "term_id", terms)
        self._examples: dict[int, list[dict[str, Any]]] = {}
        self._by_number: dict[tuple[str, int, dt.date], int | None] = {}

    @staticmethod
    def _rows(model: type, owner: str, ids: set[int]) -> dict[int, list[dict[str, Any]]]:
        rows: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for chunk in chunks(sorted(ids)):
            for row in model.objects.filter(**{f"{owner}__in": chunk}).values(owner, *_ROW):
                rows[row[owner]].append(row)
        return rows

    @staticmethod
    def _valid(rows: list[dict[str, Any]], date: dt.date) -> dict[str, Any] | None:
        for row in rows:
            if row["valid_from"] <= date and (row["valid_to"] is None or date < row["valid_to"]):
                return row
        return None

    def why_not(self, work: Work, place: Place) -> str:
        """Empty when the work is where it applied after the import; else why it is not."""
        if work.kind == "glossary":
            row = self._valid(self.terms.get(work.owner, []), place.release)
            return _why_not_here(work, row, self)
        row = self._valid(self.rules.get(work.owner, []), place.release)
        if row is None:
            copy = self._copy(place, work)
            if copy is not None and not _why_not_here(work, copy, self):
                return ""
        return _why_not_here(work, row, self)

    def _copy(self, place: Place, work: Work) -> dict[str, Any] | None:
        """Where the work's lineage has no row on the date: the row holding the number the
        rule had, if the import made its lineage (a copy of the work's row under a new
        lineage), or if that lineage prints the very text the work's row printed (a release
        matched again joined the two lineages). Another lineage the archive held before is
        another rule's (a rule renumbered into a removed one's number); the caller also
        requires the work on the row, which a rule the new text adds under that number does
        not carry."""
        if not place.label or self.last_lineage is None:
            return None
        lid = self._lineage_numbered(place)
        if lid is None:
            return None
        row = (
            RuleVersion.objects.filter(lineage_id=lid)
            .filter(
                Q(valid_from__lte=place.release)
                & (Q(valid_to__gt=place.release) | Q(valid_to__isnull=True))
            )
            .values("lineage_id", *_ROW)
            .first()
        )
        if lid > self.last_lineage:
            return row
        printed = row and (row["source_text"] if row["en_edited"] else row["text_en"])
        return row if work.english and printed == work.english else None

    def _lineage_numbered(self, place: Place) -> int | None:
        key = (place.label, place.ordinal, place.release)
        if key not in self._by_number:
            self._by_number[key] = (
                RuleNumber.objects.filter(number=place.label, ordinal=place.ordinal)
                .filter(
                    Q(valid_from__lte=place.release)
                    & (Q(valid_to__gt=place.release) | Q(valid_to__isnull=True))
                )
                .values_list("lineage_id", flat=True)
                .first()
            )
        return self._by_number[key]

    def examples(self, version_id: int) -> list[dict[str, Any]]:
        if version_id not in self._examples:
            self._examples[version_id] = list(
                Example.objects.filter(version_id=version_id).values(*_EXAMPLE)
            )
        return self._examples[version_id]


def _why_not_here(work: Work, row: dict[str, Any] | None, after: _After) -> str:
    """Empty when the work is where it applied; else why it is not."""
    noun = "term" if work.kind == "glossary" else "rule"
    if row is None:
        return f"the {noun} is not in this release any more"
    if work.kind == "example":
        examples = after.examples(row["id"])
        if work.what == ADDED:
            found = any(
                e["origin"] == ExampleOrigin.MAINTAINER
                and (e["text_en"], _french(e["text_fr"])) == work.value
                for e in examples
            )
            return "" if found else "the added example is not on the rule any more"
        printed = [e for e in examples if e["origin"] != ExampleOrigin.MAINTAINER]
        if work.what == ENGLISH:
            found = any(
                e["en_edited"] and (e["text_en"], e["source_text"]) == work.value for e in printed
            )
            official = {e["source_text"] if e["en_edited"] else e["text_en"] for e in printed}
            if found:
                return ""
            if work.value[1] not in official:
                return "the example's official text changed under it (or the example is gone)"
            return "the correction is not on the example any more"
        if any((_french(e["text_fr"]), e["fr_edited"]) == work.value for e in printed):
            return ""
        return "the example's French text is not there any more"
    if work.what == ENGLISH:
        if row["en_edited"] and (row["text_en"], row["source_text"]) == work.value:
            return ""
        official = row["source_text"] if row["en_edited"] else row["text_en"]
        if official != work.value[1]:
            return "the official text changed under it"
        return "the correction is not on the row any more (or not marked as one)"
    if (_french(row["text_fr"]), row["fr_status"], row["fr_edited"]) == work.value:
        return ""
    if _french(row["text_fr"]) and _french(row["text_fr"]) != work.value[0]:
        return "the new row has another"
    return "the French text is not on the row any more (or not marked as a maintainer's)"


def where_now(before: Ledger, also: Iterable[dt.date] = ()) -> dict[Work, dict[dt.date, str]]:
    """For each piece of work of `before`, the releases it applied to (and those of `also`)
    mapped to why it is not there now: empty where it still applies. What the publish preview
    reads to say which work an import touches."""
    after = _After(before)
    extra = sorted(set(also))
    out: dict[Work, dict[dt.date, str]] = {}
    for work in before.work:
        here = out[work] = {}
        for place in work.places:
            here[place.release] = after.why_not(work, place)
        label = work.places[-1] if work.places else Place(dt.date.min, "")
        for date in extra:
            if date not in here:
                here[date] = after.why_not(work, Place(date, label.label, label.ordinal))
    return out


#: Why work is missing after a release was removed: its row held that release only.
REMOVED_WITH_RELEASE = "it applied to the removed release only"


def missing(before: Ledger, *, removed: dt.date | None = None) -> list[dict[str, Any]]:
    """The work of `before` no longer where it applied, as import-record items: one per piece of
    work and reason, with the releases it is missing from (JSON-serialisable).

    With `removed` (a release removed since `before`): work that applied to other releases too
    is missing only if it left one of those (that release's own place went with it); work
    that applied to the removed release only went with it, and is listed so."""
    if not before.work:
        return []
    after = _After(before)
    grouped: dict[tuple, dict[str, Any]] = {}
    for work in before.work:
        kept = [p for p in work.places if p.release != removed]
        for place in kept or work.places:
            reason = after.why_not(work, place) if kept else REMOVED_WITH_RELEASE
            if not reason:
                continue
            key = (work, reason)
            item = grouped.get(key)
            if item is None:
                item = grouped[key] = _item(work, place, reason)
            item["releases"].append(place.release.isoformat())
    return list(grouped.values())


def _item(work: Work, place: Place, reason: str) -> dict[str, Any]:
    where = {"glossary" if work.kind == "glossary" else "rule": place.label}
    what = work.what
    if work.kind == "example" and work.position is not None:
        what = f"example {work.position + 1} {'edits' if what == ENGLISH else 'French text'}"
    item: dict[str, Any] = {**where, "kind": work.kind, "what": what, "reason": reason}
    if work.what == ENGLISH:
        item["text_en"], item["was_official"] = work.value
    elif work.what == FRENCH:
        item["text_fr"] = work.value[0]
        if work.kind != "example":
            item["fr_status"] = work.value[1]
    else:
        item["added_examples"] = [work.value[0]]
        if work.value[1]:
            item["text_fr"] = work.value[1]
    item["releases"] = []
    return item


# -- the official texts --------------------------------------------------------------------------


def official_texts(releases: _Releases | None = None) -> dict[dt.date, dict[tuple[str, str], str]]:
    """What every release printed, as the database holds it: per release, a hash per rule
    (number#ordinal: text and examples, corrections set aside) and per glossary entry
    (headword#ordinal: headword and text)."""
    releases = releases or _Releases()
    out: dict[dt.date, dict[tuple[str, str], str]] = {d: {} for d in releases.dates}
    official = _official_rule_hashes()
    numbers: dict[int, list[tuple[dt.date, dt.date | None, str]]] = defaultdict(list)
    for lid, start, end, number, ordinal in RuleNumber.objects.values_list(
        "lineage_id", "valid_from", "valid_to", "number", "ordinal"
    ):
        numbers[lid].append((start, end, f"{number}#{ordinal}"))
    for vid, lid, start, end, text_hash in RuleVersion.objects.values_list(
        "id", "lineage_id", "valid_from", "valid_to", "text_hash"
    ):
        value = official.get(vid, text_hash)
        for n_start, n_end, key in numbers.get(lid, ()):
            lo = max(start, n_start)
            hi = end if n_end is None else (n_end if end is None else min(end, n_end))
            if hi is not None and lo >= hi:
                continue
            for d in releases.within(lo, hi):
                out[d][("rule", key)] = value
    for start, end, headword, ordinal, text, source, edited in GlossaryVersion.objects.values_list(
        "valid_from", "valid_to", "headword", "ordinal", "text_en", "source_text", "en_edited"
    ):
        value = digest((headword, source if edited else text))
        for d in releases.within(start, end):
            out[d][("glossary", f"{headword}#{ordinal}")] = value
    return out


def _official_rule_hashes() -> dict[int, str]:
    """Versions whose text or examples a maintainer changed: the hash of what the source
    printed (the others' text_hash is it)."""
    edited = set(RuleVersion.objects.filter(en_edited=True).values_list("id", flat=True))
    edited |= set(
        Example.objects.filter(Q(origin=ExampleOrigin.MAINTAINER) | Q(en_edited=True)).values_list(
            "version_id", flat=True
        )
    )
    printed: dict[int, list[str]] = defaultdict(list)
    for chunk in chunks(sorted(edited)):
        for vid, text, source, en_edited in (
            Example.objects.filter(version_id__in=chunk, origin=ExampleOrigin.SOURCE)
            .order_by("version_id", "position")
            .values_list("version_id", "text_en", "source_text", "en_edited")
        ):
            printed[vid].append(source if en_edited else text)
    out = {}
    for chunk in chunks(sorted(edited)):
        for vid, text, source, en_edited in RuleVersion.objects.filter(id__in=chunk).values_list(
            "id", "text_en", "source_text", "en_edited"
        ):
            out[vid] = hashes(source if en_edited else text, tuple(printed[vid])).text
    return out


def document_texts(doc: Document) -> dict[tuple[str, str], str]:
    """What a parsed document prints, keyed as `official_texts` keys a release."""
    out = {
        ("rule", f"{e.number}#{e.ordinal}"): hashes(e.text, tuple(e.examples)).text
        for e in doc.entries
    }
    for g in doc.glossary:
        out[("glossary", f"{g.headword}#{g.ordinal}")] = digest((g.headword, g.text))
    return out


# -- the invariant -------------------------------------------------------------------------------


def unaccounted(
    before: Ledger, *, lost: Sequence[dict[str, Any]], document: Document | None = None
) -> list[str]:
    """What an import did not account for, in words (empty: all is well).

    Every piece of work of `before` must be where it applied, or listed in `lost` (an import
    record's) for each release it is missing from; every release's official texts must be
    those of `before` (taken with official=True), but for the release `document` was imported
    as, whose texts must be the document's."""
    problems = []
    listed = {
        (str(i.get("rule") or i.get("glossary") or ""), str(i.get("what")), d)
        for i in lost
        for d in i.get("releases", ())
    }
    for item in missing(before):
        where = str(item.get("rule") or item.get("glossary"))
        for d in item["releases"]:
            if (where, item["what"], d) not in listed:
                problems.append(
                    f"{item['kind']} {where}: {item['what']} missing from the release "
                    f"effective {d} ({item['reason']}) and not listed as lost"
                )
    if before.official:
        now = official_texts()
        replaced = document.effective_date if document is not None else None
        for date in sorted(set(before.official) | set(now)):
            expected = document_texts(document) if date == replaced else before.official.get(date)
            if expected is None:
                continue
            got = now.get(date, {})
            wrong = sorted(k for k in expected.keys() | got.keys() if expected.get(k) != got.get(k))
            if wrong:
                shown = ", ".join(f"{kind} {key}" for kind, key in wrong[:5])
                problems.append(
                    f"the release effective {date}: {len(wrong)} official text(s) not as "
                    f"printed ({shown})"
                )
    return problems
