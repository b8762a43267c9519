"""Import and remove releases: the single write path used by commands, admin and tests.

Atomic per release, idempotent (the same text again changes nothing), order-independent (the
timeline engine rebuilds only the window around the release), and every import leaves a record.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.db import transaction
from django.utils import timezone

from kb.archive import carry, ledger
from kb.archive.families import GlossaryFamily, RuleFamily
from kb.archive.texts import analyse
from kb.archive.timeline import Cell, Column, Family, restitch
from kb.crtext.model import Document
from kb.crtext.numbers import is_number
from kb.crtext.references import expand_targets
from kb.models import (
    Anomaly,
    GlossaryTerm,
    GlossaryVersion,
    ImportRecord,
    Lineage,
    Release,
    RuleVersion,
)
from kb.models.versioning import valid_on
from kb.signals import release_changed, rules_changed
from search.indexing import enqueue


class ImportRefused(Exception):
    """The document cannot be imported as asked (and nothing was changed)."""


@dataclass
class ImportResult:
    effective_date: dt.date
    action: str  # created, replaced, unchanged
    counts: dict[str, int] = field(default_factory=dict)
    anomalies: int = 0
    seconds: float = 0.0


@dataclass
class Changes:
    """What imports changed in the rules, for `kb.signals.rules_changed`: the releases, and
    the rule lineages and glossary terms whose rows changed."""

    dates: list[dt.date] = field(default_factory=list)
    lineages: set[int] = field(default_factory=set)
    terms: set[int] = field(default_factory=set)

    def add(self, lineage_model: type, ids: set[int]) -> None:
        (self.lineages if lineage_model is Lineage else self.terms).update(ids)

    def merge(self, other: Changes) -> None:
        self.dates.extend(d for d in other.dates if d not in self.dates)
        self.lineages |= other.lineages
        self.terms |= other.terms

    def send(self) -> None:
        rules_changed.send(
            sender=Release,
            dates=tuple(self.dates),
            lineages=frozenset(self.lineages),
            terms=frozenset(self.terms),
        )


_batches = threading.local()


@contextmanager
def batched() -> Iterator[Changes]:
    """Announce the rules' changes once, after a batch of imports, instead of after each.

    Why: what other apps derive from the rules (the rulings' links) is worth recomputing once
    for a folder of releases, not once per release; a single import (the admin's publish)
    announces its own as soon as it is committed. Only committed imports count."""
    stack = _batches.__dict__.setdefault("stack", [])
    batch = Changes()
    stack.append(batch)
    try:
        yield batch
    finally:
        stack.remove(batch)
        if batch.dates:
            if stack:
                stack[-1].merge(batch)
            else:
                transaction.on_commit(batch.send)


def _announce(changes: Changes) -> None:
    """After the import's commit: into the current batch, or sent at once."""
    stack = _batches.__dict__.get("stack") or []
    if stack:
        batch = stack[-1]
        transaction.on_commit(lambda: batch.merge(changes))
    else:
        transaction.on_commit(changes.send)


def text_checksum(text: str) -> str:
    """Checksum of the decoded text with normalised line ends (CRLF and LF copies are equal)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def families() -> list[Family]:
    return [RuleFamily(), GlossaryFamily()]


class Importer:
    """Imports releases one after another.

    It keeps the cells of the release it imported last: when the next release is appended after
    it (the usual case: a folder in date order), they stand for its rows without re-reading them.
    """

    def __init__(self, *, user: str = "") -> None:
        self.user = user
        self._last: tuple[dt.date, list[list[Cell]]] | None = None

    def import_document(
        self,
        doc: Document,
        *,
        checksum: str,
        source: str = "",
        set_name: str = "",
        set_code: str = "",
        replace: bool = False,
        force: bool = False,
        rematch: bool = False,
    ) -> ImportResult:
        """Store one parsed English release; refuse a different text for a loaded date.

        Maintainers' work is kept (a split row's copy keeps it, a replacement puts it back: see
        kb.archive.carry); whatever is no longer where it applied afterwards (kb.archive.ledger
        looks, for every import) makes it refuse, unless `force`, and then the import record
        keeps the list. `rematch`: replace the release even where its text is unchanged, so
        that today's matcher decides again which rules of the release before it its rules
        continue (an archive loaded before the matcher changed: docs/upgrading.md)."""
        last, self._last = self._last, None
        with transaction.atomic():
            result, cells = self._import(
                doc, checksum, source, set_name, set_code, replace or rematch, last, force, rematch
            )
        if cells is not None:
            self._last = (doc.effective_date, cells)
        return result

    def remove(self, effective_date: dt.date, *, force: bool = False) -> None:
        """Remove a release; its neighbours are re-linked as if it had never been imported.

        Maintainers' work on rows that only this release holds (a French text, a correction,
        an added example) would go with it: the removal is refused, naming each piece, unless
        `force`, and then the import record keeps them (as a forced replacement does)."""
        self._last = None
        with transaction.atomic():
            release = Release.objects.filter(effective_date=effective_date).first()
            if release is None:
                raise ImportRefused(f"no release effective {effective_date.isoformat()} is loaded")
            work = ledger.take()
            changes = Changes([effective_date])
            _remove(release, touched=changes)
            lost = ledger.missing(work, removed=effective_date)
            if lost and not force:
                raise ImportRefused(
                    _lost_message(f"removing {effective_date.isoformat()}", lost, "remove")
                )
            ImportRecord.objects.create(
                effective_date=effective_date,
                lang="en",
                source=release.source,
                sha256=release.sha256,
                action=ImportRecord.Action.REMOVED,
                counts=release.counts,
                user=self.user[:150],
                lost=lost,
            )
            _reindex()
            transaction.on_commit(
                lambda: release_changed.send(
                    sender=Release, effective_date=effective_date, action="removed"
                )
            )
            _announce(changes)

    def _import(
        self, doc, checksum, source, set_name, set_code, replace, last, force=False, rematch=False
    ):
        started = time.perf_counter()
        date = doc.effective_date
        existing = Release.objects.filter(effective_date=date).first()
        action = "created"
        carried, spared, numbered = None, None, {}
        if existing is not None:
            if existing.sha256 == checksum and not rematch:
                return ImportResult(date, "unchanged", dict(existing.counts)), None
            if not replace:
                raise ImportRefused(
                    f"{source or date}: a release effective {date.isoformat()} is already "
                    "loaded with different content (use --replace to replace it)"
                )
        work = ledger.take()  # every maintainer's work, looked for again below
        changes = Changes([date])
        if existing is not None:
            set_name = set_name or existing.set_name_en or ""
            set_code = set_code or existing.set_code
            carried = carry.read(date)
            after = Release.objects.after(date)
            numbered = carry.numbered([date, *([after.effective_date] if after else [])])
            spared = {Lineage: set(), GlossaryTerm: set()}
            _remove(existing, spared=spared, touched=changes)
            action, last = "replaced", None
        if existing is not None:
            # The same row: what points at the release (French texts' fr_release, ruling
            # links' release) keeps pointing at it.
            release = existing
            release.anomalies.all().delete()
            for name, value in _release_fields(doc, source, checksum, set_name, set_code).items():
                setattr(release, name, value)
            release.imported_at = timezone.now()
            release.save()
        else:
            release = Release.objects.create(
                effective_date=date, **_release_fields(doc, source, checksum, set_name, set_code)
            )
        cells = _insert(release, doc, last, spared, touched=changes)
        if carried is not None:
            absorbed = carry.absorbed(numbered)
            _restore(carried, date, absorbed)
            carry.orphans(carried, spared, absorbed)
        lost = ledger.missing(work) + (carried.lost if carried else [])
        if lost and not force:
            raise ImportRefused(_lost_message(source or str(date), lost))
        if carried is not None:
            carry.delete_orphans(spared)
            cells = None  # rows were changed after the cells were made: reload next time
        anomalies = _anomalies(release, doc)
        Anomaly.objects.bulk_create(anomalies)
        counts = document_counts(doc, len(anomalies))
        release.counts = counts
        release.save(update_fields=["counts"])
        seconds = time.perf_counter() - started
        ImportRecord.objects.create(
            release=release,
            effective_date=date,
            lang="en",
            source=source[:500],
            sha256=checksum,
            action=action,
            counts=counts,
            anomaly_count=len(anomalies),
            user=self.user[:150],
            seconds=seconds,
            carried=carried.counts if carried else {},
            lost=lost,
        )
        _reindex()
        transaction.on_commit(
            lambda: release_changed.send(sender=Release, effective_date=date, action=action)
        )
        _announce(changes)
        return ImportResult(date, action, counts, len(anomalies), seconds), cells


def _release_fields(doc, source, checksum, set_name, set_code) -> dict[str, Any]:
    return {
        "set_name_en": set_name,
        "set_code": set_code,
        "title": doc.title,
        "introduction": doc.introduction,
        "credits": doc.credits,
        "source": source[:500],
        "sha256": checksum,
    }


def _restore(carried: carry.Carried, date: dt.date, absorbed: dict[int, int]) -> None:
    """Put a replaced release's work back; rows whose English text changed get their hashes
    and references recomputed."""
    from kb.archive.editing import refresh_glossary_version, refresh_rule_version

    restored = carry.restore(carried, date, absorbed)
    for vid in restored.rules:
        refresh_rule_version(RuleVersion(pk=vid, lineage_id=_lineage_of(vid)))
    for vid in restored.glossary:
        term = GlossaryVersion.objects.filter(pk=vid).values_list("term_id", flat=True).get()
        refresh_glossary_version(GlossaryVersion(pk=vid, term_id=term))


def _lineage_of(version_id: int) -> int:
    return RuleVersion.objects.filter(pk=version_id).values_list("lineage_id", flat=True).get()


def _lost_message(what: str, lost: list[dict[str, Any]], verb: str = "replace") -> str:
    then = {
        "replace": "replacing would lose maintainers' work ({n} item(s)); nothing was changed. "
        "Use --force to replace anyway (the import record keeps them):",
        "remove": "removing would lose maintainers' work ({n} item(s)), held by this release "
        "only; nothing was changed. Copy it where it should go first, or remove with force "
        "(the import record keeps them):",
    }[verb]
    lines = [f"{what}: " + then.format(n=len(lost))]
    for item in lost[:50]:
        where = item.get("rule") or item.get("glossary") or ""
        releases = item.get("releases") or []
        when = f" (release {', '.join(releases[:3])}{' …' if len(releases) > 3 else ''})"
        lines.append(f"  - {where} {item['what']}: {item['reason']}{when if releases else ''}")
    if len(lost) > 50:
        lines.append(f"  … and {len(lost) - 50} more")
    return "\n".join(lines)


def _reindex() -> None:
    """A release opens and closes rule and glossary versions: the index follows (the outbox
    is drained after commit; only documents whose text or interval changed are rewritten)."""
    enqueue("rule")
    enqueue("glossary")


def import_document(doc: Document, **kwargs: Any) -> ImportResult:
    """Import one release (see Importer.import_document)."""
    user = kwargs.pop("user", "")
    return Importer(user=user).import_document(doc, **kwargs)


def _insert(
    release: Release,
    doc: Document,
    last: tuple[dt.date, list[list[Cell]]] | None,
    spared: dict[type, set[int]] | None = None,
    touched: Changes | None = None,
) -> list[list[Cell]]:
    date = release.effective_date
    prev = Release.objects.before(date)
    nxt = Release.objects.after(date)
    out = []
    for f, family in enumerate(families()):
        columns = []
        if prev is not None:
            if last is not None and last[0] == prev.effective_date:
                prev_cells = last[1][f]
            else:
                prev_cells = family.load_cells(prev.effective_date)
            columns.append(Column(prev.effective_date, prev_cells, prev))
        new = Column(date, family.cells_from_document(doc), release, is_new=True)
        columns.append(new)
        if nxt is not None:
            columns.append(Column(nxt.effective_date, family.load_cells(nxt.effective_date), nxt))
        changed = restitch(
            family,
            columns,
            earlier_exists=prev is not None and _exists_before(prev.effective_date),
            later_exists=nxt is not None and _exists_after(nxt.effective_date),
            spare=spared[family.lineage_model] if spared is not None else None,
        )
        if touched is not None:
            touched.add(family.lineage_model, changed)
        for c in new.cells:
            c.data = None  # from now on these cells stand for stored rows
        out.append(new.cells)
    return out


def _remove(
    release: Release,
    spared: dict[type, set[int]] | None = None,
    touched: Changes | None = None,
) -> None:
    """Remove a release's rows (relinking its neighbours); with `spared` (a replacement),
    lineages left empty are kept aside for the new text and the release row is kept."""
    date = release.effective_date
    prev = Release.objects.before(date)
    nxt = Release.objects.after(date)
    for family in families():
        doomed = [
            list(t.model.objects.filter(valid_on(date)).values_list("id", flat=True))
            for t in family.tables
        ]
        columns = []
        if prev is not None:
            columns.append(
                Column(prev.effective_date, family.load_cells(prev.effective_date), prev)
            )
        if nxt is not None:
            columns.append(Column(nxt.effective_date, family.load_cells(nxt.effective_date), nxt))
        first = columns[0].date if columns else None
        last = columns[-1].date if columns else None
        changed = restitch(
            family,
            columns,
            earlier_exists=first is not None and _exists_before(first, exclude=date),
            later_exists=last is not None and _exists_after(last, exclude=date),
            doomed=doomed,
            spare=spared[family.lineage_model] if spared is not None else None,
        )
        if touched is not None:
            touched.add(family.lineage_model, changed)
    if spared is None:
        release.delete()


def _exists_before(date: dt.date, exclude: dt.date | None = None) -> bool:
    return Release.objects.filter(effective_date__lt=date).exclude(effective_date=exclude).exists()


def _exists_after(date: dt.date, exclude: dt.date | None = None) -> bool:
    return Release.objects.filter(effective_date__gt=date).exclude(effective_date=exclude).exists()


def _anomalies(release: Release, doc: Document) -> list[Anomaly]:
    """The parser's anomalies, plus references to numbers this release does not have."""
    out = [
        Anomaly(release=release, kind=a.kind, line=a.line, number=a.number[:40], detail=a.detail)
        for a in doc.anomalies
    ]
    numbers = {e.number for e in doc.entries}
    cited: list[tuple[str, int, str]] = []
    for e in doc.entries:
        for text in (e.text, *e.examples):
            cited.extend((e.number, e.line, t) for t in _targets(text))
    for g in doc.glossary:
        cited.extend((g.headword, g.line, t) for t in _targets(g.text))
    for where, line, target in cited:
        if is_number(target) and target not in numbers:
            out.append(
                Anomaly(
                    release=release,
                    kind="dangling_reference",
                    line=line,
                    number=target,
                    detail=f"cited in {where}"[:500],
                )
            )
    return out


@lru_cache(maxsize=50_000)
def _targets(text: str) -> tuple[str, ...]:
    """Numbers a text cites (range ends included), for the dangling-reference check."""
    out: list[str] = []
    for ref in analyse(text).refs:
        out.append(ref.target)
        if ref.target_end:
            out.append(expand_targets(ref)[-1])
    return tuple(out)


def document_counts(doc: Document, anomalies: int) -> dict[str, int]:
    """Counts of a parsed release, in kb_stats' shape (a test checks they equal the rows')."""
    counts = doc.counts()
    counts["references"] = sum(
        len(analyse(text).refs) for e in doc.entries for text in (e.text, *e.examples)
    ) + sum(len(analyse(g.text).refs) for g in doc.glossary)
    counts["anomalies"] = anomalies
    return counts


def release_counts(date: dt.date) -> dict[str, int]:
    """Counts of the rows valid in the release effective on `date` (kb_stats uses the same)."""
    from django.db.models import Count, Q

    from kb.models import Example, GlossaryVersion, Reference, RuleNumber

    counts = {"sections": 0, "chapters": 0, "rules": 0, "subrules": 0}
    for row in RuleNumber.objects.filter(valid_on(date)).values("kind").annotate(n=Count("id")):
        counts[row["kind"] + "s"] = row["n"]
    counts["examples"] = Example.objects.filter(valid_on(date, "version__")).count()
    counts["glossary"] = GlossaryVersion.objects.filter(valid_on(date)).count()
    counts["references"] = Reference.objects.filter(
        Q(rule_version__isnull=False) & valid_on(date, "rule_version__")
        | Q(glossary_version__isnull=False) & valid_on(date, "glossary_version__")
    ).count()
    counts["anomalies"] = Anomaly.objects.filter(release__effective_date=date).count()
    return counts
