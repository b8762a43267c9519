"""Import an official French CR document: attach it to the English release it translates,
align its rules by number and structure, and store the French texts beside the English ones.

Why a module of its own: a French document is not a release. It adds no numbers, lineages or
intervals; it gives a French text to English versions that already exist. So it never goes
through the timeline engine: it reads the English release it translates (kb.models, through the
interval queries) and writes `text_fr`, `fr_status` and `fr_release` on the versions valid in
that release, and nothing else.

The rules it keeps (DESIGN.md, issue 13):
- the French document translates one English release: the one with its effective date, else
  the latest one before it (with a warning), or the one named (`translates=`); with neither a
  date line nor a name it is refused, with the candidate releases listed best first, inferred
  from the numbers the document has and the numbers its rules cite;
- a rule is matched by number within that release, then checked by structure (same subrules,
  same cited numbers); a mismatch is kept and reported, never attached to a possibly wrong rule;
- a French text a maintainer wrote (unofficial or reviewed) is never overwritten: it is
  reported as kept; a French text is stored on the version valid in the release it translates
  and so is never shown as translating a later English text;
- atomic, idempotent (the same document again changes nothing), one import record each.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import F, Q

from kb.archive.sources import Source, SourceError, read_sources
from kb.archive.texts import analyse
from kb.crtext import CRFormatError, decode_bytes
from kb.crtext.french_parser import FrenchDocument, parse_french_text
from kb.crtext.model import Entry
from kb.crtext.numbers import parent_of, sort_key
from kb.crtext.pdf import pdf_text
from kb.models import Anomaly, Example, ImportRecord, Release, RuleVersion
from kb.models.versioning import FrenchStatus, row_valid_on
from search.indexing import enqueue

#: How many candidate releases a refusal lists.
CANDIDATES_SHOWN = 6
#: French statuses that mean a maintainer wrote or checked the text: an import keeps it.
MAINTAINER_STATUSES = frozenset({FrenchStatus.UNOFFICIAL, FrenchStatus.REVIEWED})


class FrenchImportError(Exception):
    """A French import that did not complete; its message names the file and line (or the
    source) at fault, as an operator reads it.

    `batch` is what an import of several documents did meanwhile (each document is imported on
    its own: the ones before and after a refused one stay imported), or None.
    """

    def __init__(self, message: str, *, batch: FrenchImportBatch | None = None) -> None:
        super().__init__(message)
        self.batch = batch


class FrenchImportRefused(FrenchImportError):
    """The French document cannot be imported as asked (and nothing was changed)."""

    def __init__(self, message: str, candidates: list[Candidate] | None = None) -> None:
        self.candidates = candidates or []
        if self.candidates:
            listed = "\n".join(f"  {c.describe()}" for c in self.candidates)
            message = f"{message}\ncandidate English releases, best first:\n{listed}"
        super().__init__(message)


@dataclass(frozen=True)
class Candidate:
    """An English release a document may translate, and how far its structure is from it."""

    effective_date: dt.date
    mismatches: int
    details: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return self.mismatches == 0

    def describe(self) -> str:
        how = "exact match" if self.exact else f"{self.mismatches} mismatch(es): "
        return f"{self.effective_date.isoformat()}  {how}" + "; ".join(self.details[:4])


@dataclass(frozen=True)
class Flag:
    """A defect of the French document or of its alignment, with the line it is on."""

    kind: str
    line: int | None
    number: str = ""
    detail: str = ""

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.kind} {self.number} {self.detail}".strip()


@dataclass(frozen=True)
class Match:
    """A French entry matched to the English version of the same number in the release."""

    entry: Entry
    version_id: int
    lineage_id: int
    english_examples: int


@dataclass
class Alignment:
    """The French document laid over one English release."""

    release: Release
    matched: list[Match] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class FrenchImportResult:
    """What an import did: the release translated, texts stored, kept and flagged."""

    translates: dt.date
    document_date: dt.date | None
    action: str  # created, replaced, unchanged
    matched: list[str] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # maintainer texts left as they are
    flags: list[Flag] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class FrenchSourceOutcome:
    """One document of a batch: the result of its import, or why it was not imported.

    `error` names the file (and line); `unreadable` is set when the file could not be read
    at all, rather than refused for what it holds.
    """

    name: str
    result: FrenchImportResult | None = None
    error: str = ""
    unreadable: bool = False


@dataclass
class FrenchImportBatch:
    """What `import_french_sources` did, document by document, in the order given."""

    outcomes: list[FrenchSourceOutcome] = field(default_factory=list)

    @property
    def results(self) -> list[FrenchImportResult]:
        """The documents imported (created, replaced or unchanged)."""
        return [o.result for o in self.outcomes if o.result is not None]

    @property
    def errors(self) -> list[str]:
        """The documents not imported, each message naming its file."""
        return [o.error for o in self.outcomes if o.result is None]


# -- reading -----------------------------------------------------------------------------------


def read_french(data: bytes, *, source: str = "") -> tuple[FrenchDocument, str]:
    """Parse a French document from TXT or PDF bytes; return it with its text's checksum.

    The checksum is of the text as parsed, so a TXT with CRLF and one with LF are the same
    document, and a PDF is one document whatever its metadata.
    """
    if data.startswith(b"%PDF") or source.lower().endswith(".pdf"):
        text = pdf_text(data, source=source)
    else:
        text = decode_bytes(data, source=source)
    doc = parse_french_text(text, source=source)
    return doc, hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- which English release ---------------------------------------------------------------------


def choose_release(
    *, doc: FrenchDocument, translates: dt.date | None = None
) -> tuple[Release, list[str]]:
    """The English release the document translates, with warnings; FrenchImportRefused if
    it cannot be told (the refusal lists the candidates, best first)."""
    warnings: list[str] = []
    if translates is not None:
        release = Release.objects.filter(effective_date=translates).first()
        if release is None:
            raise FrenchImportRefused(
                f"no English release effective {translates.isoformat()} is loaded "
                "(import it first, or name a loaded one)"
            )
        if doc.effective_date is not None and doc.effective_date != translates:
            warnings.append(
                f"the document is dated {doc.effective_date.isoformat()} (line {doc.date_line}) "
                f"but was attached to {translates.isoformat()} as asked"
            )
        return release, warnings
    if doc.effective_date is None:
        raise FrenchImportRefused(
            "the document has no date line (« Ces règles entrent en vigueur au … ») and no "
            "English release was named (--translates YYYY-MM-DD)",
            candidate_releases(doc=doc)[:CANDIDATES_SHOWN],
        )
    release = Release.objects.in_force_on(doc.effective_date)
    if release is None:
        raise FrenchImportRefused(
            f"no English release is loaded on or before {doc.effective_date.isoformat()} "
            f"(line {doc.date_line}): import the English release it translates first"
        )
    if release.effective_date != doc.effective_date:
        warnings.append(
            f"no English release effective {doc.effective_date.isoformat()} (line "
            f"{doc.date_line}): attached to the latest one before it, "
            f"{release.effective_date.isoformat()}"
        )
    return release, warnings


def candidate_releases(*, doc: FrenchDocument) -> list[Candidate]:
    """Every loaded English release, ranked by how well the document's structure fits it:
    the numbers its chapters and rules have (same subrules, same rules) and the numbers each of
    its rules cites. Exact fits first, then by the number of mismatches; ties by date."""
    english = _english_by_date(doc)
    french = _structure(doc.entries)
    out = [
        _compare(date, french, _structure_of_rows(rows)) for date, rows in sorted(english.items())
    ]
    out.sort(key=lambda c: (c.mismatches, c.effective_date))
    return out


@dataclass(frozen=True)
class _Shape:
    """What is compared: numbers, each number's children, each number's cited targets."""

    numbers: frozenset[tuple[str, int]]
    children: dict[str, frozenset[str]]
    cites: dict[tuple[str, int], frozenset[str]]


def _structure(entries: list[Entry]) -> _Shape:
    children: dict[str, set[str]] = defaultdict(set)
    for e in entries:
        parent = parent_of(e.number)
        if parent is not None and e.ordinal == 0:
            children[parent].add(e.number)
    return _Shape(
        frozenset((e.number, e.ordinal) for e in entries),
        {k: frozenset(v) for k, v in children.items()},
        {(e.number, e.ordinal): _cited(e.text) for e in entries},
    )


def _structure_of_rows(rows: list[dict[str, Any]]) -> _Shape:
    children: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        parent = parent_of(r["number"])
        if parent is not None and r["ordinal"] == 0:
            children[parent].add(r["number"])
    return _Shape(
        frozenset((r["number"], r["ordinal"]) for r in rows),
        {k: frozenset(v) for k, v in children.items()},
        {(r["number"], r["ordinal"]): _cited(r["text_en"]) for r in rows},
    )


def _cited(text: str) -> frozenset[str]:
    out = set()
    for ref in analyse(text).refs:
        out.add(ref.target)
        if ref.target_end:
            out.add(ref.target_end)
    return frozenset(out)


def _compare(date: dt.date, fr: _Shape, en: _Shape) -> Candidate:
    details: list[str] = []
    missing = sorted((n for n, _ in fr.numbers - en.numbers), key=sort_key)
    if missing:
        details.append(f"not in English: {', '.join(missing[:5])}")
    # Only below entries the French document has: a partial document lacks the rest.
    extra: list[str] = []
    for parent, kids in fr.children.items():
        if (parent, 0) in fr.numbers and parent in en.children:
            extra.extend(en.children[parent] - kids)
    for parent in {n for n, _ in fr.numbers} - set(fr.children):
        if parent in en.children and (parent, 0) in fr.numbers and "." in parent:
            extra.extend(en.children[parent])  # a rule whose subrules the French lacks
    extra.sort(key=sort_key)
    if extra:
        details.append(f"missing in French: {', '.join(extra[:5])}")
    cites = []
    for key in sorted(fr.numbers & en.numbers, key=lambda k: (sort_key(k[0]), k[1])):
        if fr.cites[key] != en.cites[key]:
            cites.append(
                f"{key[0]} cites {_list(fr.cites[key])} in French, {_list(en.cites[key])} "
                "in English"
            )
    details.extend(cites)
    return Candidate(date, len(missing) + len(extra) + len(cites), tuple(details))


def _list(numbers: frozenset[str]) -> str:
    return ", ".join(sorted(numbers, key=sort_key)) or "nothing"


def _scope(doc: FrenchDocument) -> Q:
    """The English numbers a document can be compared with: its chapters and sections."""
    sections = sorted({e.number for e in doc.entries if e.kind == "section"})
    return Q(lineage__numbers__chapter__in=[*doc.chapters, *sections])


def _english_by_date(doc: FrenchDocument) -> dict[dt.date, list[dict[str, Any]]]:
    """The English entries of the document's chapters in every release (two queries)."""
    from kb.models import RuleNumber

    chapters = [*doc.chapters, *sorted({e.number for e in doc.entries if e.kind == "section"})]
    numbers = list(
        RuleNumber.objects.filter(chapter__in=chapters).values(
            "lineage_id", "number", "ordinal", "valid_from", "valid_to"
        )
    )
    versions: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for v in RuleVersion.objects.filter(lineage_id__in={n["lineage_id"] for n in numbers}).values(
        "lineage_id", "text_en", "valid_from", "valid_to"
    ):
        versions[v["lineage_id"]].append(v)
    out: dict[dt.date, list[dict[str, Any]]] = {}
    for date in Release.objects.values_list("effective_date", flat=True):
        rows = []
        for n in numbers:
            if not row_valid_on(n, date):
                continue
            text = next(
                (v["text_en"] for v in versions[n["lineage_id"]] if row_valid_on(v, date)), ""
            )
            rows.append({**n, "text_en": text})
        out[date] = rows
    return out


# -- alignment ---------------------------------------------------------------------------------


def align(*, doc: FrenchDocument, release: Release) -> Alignment:
    """Match the document's entries to the release's by number, then check each by structure.

    An entry is attached when its number exists in the release, it cites the same numbers, its
    own children are the same (a rule's subrules) and so are its parent's (a subrule of a rule
    whose subrules differ may have been renumbered). Sections and chapters are titles: matched by
    number, flagged when their rules differ. Whatever is not attached is flagged with its line.
    """
    date = release.effective_date
    rows = list(
        RuleVersion.objects.numbered_as_of(date, _scope(doc))
        .annotate(
            number=F("lineage__numbers__number"),
            ordinal=F("lineage__numbers__ordinal"),
        )
        .values("id", "lineage_id", "number", "ordinal", "text_en")
    )
    example_counts = _example_counts([r["id"] for r in rows])
    en = _structure_of_rows(rows)
    fr = _structure(doc.entries)
    by_key = {(r["number"], r["ordinal"]): r for r in rows}
    out = Alignment(release)
    out.flags.extend(Flag(a.kind, a.line, a.number, a.detail) for a in doc.anomalies)
    differing = {
        n
        for n in {e.number for e in doc.entries if e.kind in ("chapter", "rule")}
        if fr.children.get(n, frozenset()) != en.children.get(n, frozenset())
    }
    for e in doc.entries:
        key = (e.number, e.ordinal)
        row = by_key.get(key)
        if row is None:
            out.flags.append(
                Flag(
                    "no_english_counterpart",
                    e.line,
                    e.number,
                    f"no {e.number} in the English release of {date.isoformat()}: not attached",
                )
            )
            continue
        reason = _mismatch(e, fr, en, differing)
        if reason:
            out.flags.append(Flag("structure_mismatch", e.line, e.number, reason))
            if e.kind not in ("section", "chapter"):
                continue
        examples = example_counts.get(row["id"], 0)
        if e.examples and len(e.examples) != examples:
            out.flags.append(
                Flag(
                    "example_count_mismatch",
                    e.line,
                    e.number,
                    f"{len(e.examples)} example(s) in French, {examples} in English: "
                    "the examples are not attached",
                )
            )
        out.matched.append(Match(e, row["id"], row["lineage_id"], examples))
    out.flags.sort(key=lambda f: (f.line or 0, f.kind))
    return out


def _mismatch(e: Entry, fr: _Shape, en: _Shape, differing: set[str]) -> str:
    key = (e.number, e.ordinal)
    if fr.cites[key] != en.cites[key]:
        return (
            f"cites {_list(fr.cites[key])} in French but {_list(en.cites[key])} in English: "
            "not attached"
        )
    if e.number in differing:
        mine = fr.children.get(e.number, frozenset())
        theirs = en.children.get(e.number, frozenset())
        parts = []
        if theirs - mine:
            parts.append("English only: " + _list(theirs - mine))
        if mine - theirs:
            parts.append("French only: " + _list(mine - theirs))
        verdict = "title attached" if e.kind == "chapter" else "not attached"
        what = "rules" if e.kind == "chapter" else "subrules"
        return f"its {what} differ ({'; '.join(parts)}): {verdict}"
    parent = parent_of(e.number)
    if e.kind == "subrule" and parent in differing:
        return f"the subrules of {parent} differ from the English ones: not attached"
    return ""


def _example_counts(version_ids: list[int]) -> dict[int, int]:
    counts: dict[int, int] = defaultdict(int)
    for vid in Example.objects.filter(version_id__in=version_ids).values_list(
        "version_id", flat=True
    ):
        counts[vid] += 1
    return counts


# -- writing -----------------------------------------------------------------------------------


def maintainer_wrote(version: RuleVersion) -> bool:
    """Is the version's French text a maintainer's (never overwritten by an import)?

    Unofficial or reviewed texts are; so is a French text with no status at all (its origin is
    unknown: keep it), and a version carrying any truthy "edited" marker field.
    """
    if version.fr_status in MAINTAINER_STATUSES:
        return True
    if version.text_fr and not version.fr_status:
        return True
    return any(
        "edited" in f.name and getattr(version, f.name, None) for f in version._meta.concrete_fields
    )


def apply_french(
    *,
    doc: FrenchDocument,
    checksum: str,
    source: str = "",
    translates: dt.date | None = None,
    user: str = "",
) -> FrenchImportResult:
    """Store the French texts of a document on the English versions they translate.

    Atomic (all or nothing) and idempotent: the same document for the same release again is
    a no-op, and texts already stored are not rewritten. A maintainer's French text is kept and
    reported; an official text from a later document for the same English text is kept too.
    """
    started = time.perf_counter()
    with transaction.atomic():
        release, warnings = choose_release(doc=doc, translates=translates)
        date = release.effective_date
        if ImportRecord.objects.filter(release=release, lang="fr", sha256=checksum).exists():
            return FrenchImportResult(date, doc.effective_date, "unchanged", warnings=warnings)
        alignment = align(doc=doc, release=release)
        result = FrenchImportResult(
            date,
            doc.effective_date,
            "replaced"
            if ImportRecord.objects.filter(release=release, lang="fr").exists()
            else "created",
            matched=[m.entry.number for m in alignment.matched],
            flags=alignment.flags,
            warnings=[*warnings, *alignment.warnings],
        )
        changed = _store(alignment, result)
        Anomaly.objects.filter(release=release, lang="fr").delete()
        Anomaly.objects.bulk_create(
            Anomaly(
                release=release,
                lang="fr",
                kind=f.kind[:40],
                line=f.line,
                number=f.number[:40],
                detail=f.detail,
            )
            for f in alignment.flags
        )
        result.seconds = time.perf_counter() - started
        ImportRecord.objects.create(
            release=release,
            effective_date=doc.effective_date or date,
            lang="fr",
            source=source[:500],
            sha256=checksum,
            action=result.action,
            counts={
                **doc.counts(),
                "matched": len(result.matched),
                "stored": len(result.stored),
                "kept": len(result.kept),
                "anomalies": len(alignment.flags),
            },
            anomaly_count=len(alignment.flags),
            user=user[:150],
            seconds=result.seconds,
        )
        if changed:
            enqueue("rule", changed)
    return result


def _store(alignment: Alignment, result: FrenchImportResult) -> set[int]:
    """Write the matched texts where allowed; return the lineages whose French changed."""
    release = alignment.release
    versions = RuleVersion.objects.select_related("fr_release").in_bulk(
        [m.version_id for m in alignment.matched]
    )
    examples: dict[int, list[Example]] = defaultdict(list)
    for ex in Example.objects.filter(version_id__in=list(versions)).order_by("position"):
        examples[ex.version_id].append(ex)
    changed: set[int] = set()
    for m in alignment.matched:
        v = versions[m.version_id]
        text = m.entry.text
        french_examples = m.entry.examples if len(m.entry.examples) == m.english_examples else []
        if maintainer_wrote(v):
            if v.text_fr != text:
                result.kept.append(m.entry.number)
            else:
                result.unchanged.append(m.entry.number)
            continue
        if (
            v.fr_status == FrenchStatus.OFFICIAL
            and v.fr_release is not None
            and v.fr_release.effective_date > release.effective_date
        ):
            result.kept.append(m.entry.number)  # a later document translates this English text
            continue
        stored_examples = [ex.text_fr or "" for ex in examples[v.pk]]
        same = (
            v.text_fr == text
            and v.fr_status == FrenchStatus.OFFICIAL
            and v.fr_release_id == release.pk
            and (not french_examples or stored_examples == french_examples)
        )
        if same:
            result.unchanged.append(m.entry.number)
            continue
        v.text_fr = text
        v.fr_status = FrenchStatus.OFFICIAL
        v.fr_release = release
        v.fr_translates_text, v.fr_translates_hash = "", ""  # it translates this row's English
        v.save(
            update_fields=[
                "text_fr",
                "fr_status",
                "fr_release",
                "fr_translates_text",
                "fr_translates_hash",
            ]
        )
        for ex, fr_text in zip(examples[v.pk], french_examples, strict=False):
            if ex.text_fr != fr_text:
                ex.text_fr = fr_text
                ex.save(update_fields=["text_fr"])
        result.stored.append(m.entry.number)
        changed.add(v.lineage_id)
    return changed


# -- whole documents and batches ---------------------------------------------------------------


def import_french_file(
    *, name: str, data: bytes, translates: dt.date | None = None, user: str = ""
) -> FrenchImportResult:
    """Read, attach, align and store one French document (TXT or PDF bytes named `name`)."""
    doc, checksum = read_french(data, source=name)
    return apply_french(doc=doc, checksum=checksum, source=name, translates=translates, user=user)


def describe(result: FrenchImportResult, *, verbose: bool = False) -> list[str]:
    """Lines an operator reads after an import (warnings and flags with their lines)."""
    date = result.translates.isoformat()
    if result.action == "unchanged":
        lines = [f"French translating {date}: unchanged (this document is already loaded)"]
    else:
        lines = [
            f"French translating {date}: {result.action} ({len(result.matched)} matched, "
            f"{len(result.stored)} stored, {len(result.unchanged)} unchanged, "
            f"{len(result.kept)} maintainer texts kept, {len(result.flags)} anomalies, "
            f"{result.seconds:.2f} s)"
        ]
    lines.extend(f"warning: {w}" for w in result.warnings)
    if result.kept:
        lines.append("kept (a maintainer's French text): " + ", ".join(result.kept))
    shown = result.flags if verbose else result.flags[:20]
    lines.extend(f"anomaly: {f}" for f in shown)
    if len(shown) < len(result.flags):
        lines.append(f"… {len(result.flags) - len(shown)} more anomalies (see the admin)")
    return lines


def import_french_sources(
    sources: list[str], *, translates: dt.date | None = None, user: str = ""
) -> FrenchImportBatch:
    """Import each French document of `sources` (files, folders of them, URLs) in turn.

    Why a function and not the command's own code: the admin, scripts and tests import French
    documents too, and read what happened from the returned batch (what each document attached,
    its counts, warnings and anomalies) rather than from a command's output. Each document is
    its own transaction: a refused one changes nothing and the others are still imported.

    Raises FrenchImportError once every document was tried if any was refused or unreadable
    (its message lists them, each naming its file and line; `batch` holds the outcomes), or
    when a source cannot be listed or downloaded at all.
    """
    batch = FrenchImportBatch()
    try:
        for source in read_sources(sources):
            batch.outcomes.append(_import_source(source, translates=translates, user=user))
    except SourceError as exc:
        raise FrenchImportError(str(exc), batch=batch) from exc
    errors = batch.errors
    if errors:
        raise FrenchImportError(
            f"{len(errors)} document(s) refused:\n" + "\n".join(errors), batch=batch
        )
    return batch


def _import_source(source: Source, *, translates: dt.date | None, user: str) -> FrenchSourceOutcome:
    """One document of a batch; a refusal or a read error is its outcome, not an exception."""
    try:
        result = import_french_file(
            name=source.name, data=source.read(), translates=translates, user=user
        )
    except (CRFormatError, FrenchImportRefused) as exc:
        message = str(exc) if str(exc).startswith(source.name) else f"{source.name}: {exc}"
        return FrenchSourceOutcome(source.name, error=message)
    except OSError as exc:
        return FrenchSourceOutcome(
            source.name, error=f"{source.name}: cannot read: {exc}", unreadable=True
        )
    return FrenchSourceOutcome(source.name, result=result)


__all__ = [
    "Alignment",
    "Candidate",
    "Flag",
    "FrenchImportBatch",
    "FrenchImportError",
    "FrenchImportRefused",
    "FrenchImportResult",
    "FrenchSourceOutcome",
    "Match",
    "align",
    "apply_french",
    "candidate_releases",
    "choose_release",
    "describe",
    "import_french_file",
    "import_french_sources",
    "maintainer_wrote",
    "read_french",
]
