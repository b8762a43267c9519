"""Publishing a release from the admin: preview what an import would do, then do it.

Why a preview runs the real import: the importer alone knows how a text splits intervals,
re-stitches lineages, carries maintainers' work over a replacement and what it cannot carry.
A second, "dry" implementation would drift from it. So `preview_release` runs the very import
`import_rules` runs, reads the result, and rolls the transaction back: nothing is left behind
(no release, no version, no import record, no outbox entry; after-commit hooks never run).
`publish_release` is the same import, committed.

What maintainers care about is listed apart: the French texts, English corrections and added
examples on rules the new text changes or removes, the ruling links someone confirmed or
rejected on them (other apps answer through `kb.hooks.maintainer_decisions`), and for a
replacement what carries over and what would be lost ("Replace anyway" is `--force`: the
import record keeps the lost items).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Q

from kb.crtext import CRFormatError, Document, decode_bytes, parse_text
from kb.diffing import REAL, classify
from kb.hooks import maintainer_decisions
from kb.limits import MAX_DOCUMENT_BYTES
from kb.models import Example, GlossaryVersion, ImportRecord, Release, RuleVersion
from kb.models.rules import ExampleOrigin
from kb.models.versioning import valid_on

from .importer import Importer, ImportRefused, ImportResult, text_checksum

#: The official TXT is about 1 MB; anything far larger is not one (kb.limits).
MAX_UPLOAD_BYTES = MAX_DOCUMENT_BYTES


class PublishError(Exception):
    """The file cannot be published as asked; nothing was changed. The message is meant for
    the person who uploaded it (a parse error names the line)."""


@dataclass
class RuleChange:
    """One rule the new text adds, removes, changes or renumbers."""

    number: str
    old_number: str = ""
    kinds: list[str] = field(default_factory=list)


@dataclass
class MaintainerItem:
    """A maintainer's work the import touches, and what becomes of it."""

    where: str  # a rule number or a glossary headword
    what: str  # "French text", "English correction", "added example", "confirmed link"…
    fate: str  # carries over | stays with the earlier release | would be lost | follows
    detail: str = ""


@dataclass
class ReleasePreview:
    """What publishing a file would do, as the preview page shows it (JSON-serialisable, so
    the admin keeps it beside the upload between preview and confirmation)."""

    effective_date: dt.date
    set_name: str
    set_code: str
    source: str
    checksum: str
    replaces: bool  # a release with this date is loaded (a replacement)
    unchanged: bool  # ...with this very text: nothing to publish
    compared_with: dt.date | None  # the release the changes are counted from
    counts: dict[str, int] = field(default_factory=dict)  # of the new document
    anomalies: int = 0
    added: list[RuleChange] = field(default_factory=list)
    removed: list[RuleChange] = field(default_factory=list)
    changed: list[RuleChange] = field(default_factory=list)  # wording or examples
    moved: list[RuleChange] = field(default_factory=list)  # renumbered (maybe changed too)
    noise: dict[str, int] = field(default_factory=dict)  # reference-only, typography-only
    glossary: dict[str, list[str]] = field(default_factory=dict)  # added/removed/changed/renamed
    maintainer: list[MaintainerItem] = field(default_factory=list)
    carried: dict[str, int] = field(default_factory=dict)  # a replacement's counts
    lost: list[dict[str, Any]] = field(default_factory=list)  # what --force would record
    seconds: float = 0.0

    @property
    def confirmation(self) -> str:
        """What the person must type to confirm: the set name, else the effective date."""
        return self.set_name or self.effective_date.isoformat()

    def lost_items(self) -> list[tuple[str, str, str]]:
        """What would be lost, as (rule or term, what, why) for the page."""
        return [
            (str(i.get("rule") or i.get("glossary") or ""), str(i["what"]), str(i["reason"]))
            for i in self.lost
        ]

    def summary(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "removed": len(self.removed),
            "changed": len(self.changed),
            "moved": len(self.moved),
            **self.noise,
            "glossary": sum(len(v) for v in self.glossary.values()),
            "maintainer": len(self.maintainer),
            "lost": len(self.lost),
        }

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["effective_date"] = self.effective_date.isoformat()
        out["compared_with"] = self.compared_with.isoformat() if self.compared_with else None
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReleasePreview:
        data = dict(data)
        data["effective_date"] = dt.date.fromisoformat(data["effective_date"])
        if data.get("compared_with"):
            data["compared_with"] = dt.date.fromisoformat(data["compared_with"])
        for name in ("added", "removed", "changed", "moved"):
            data[name] = [RuleChange(**c) for c in data.get(name, [])]
        data["maintainer"] = [MaintainerItem(**m) for m in data.get("maintainer", [])]
        return cls(**data)


def confirms(typed: str, preview: ReleasePreview) -> bool:
    """Whether what was typed names the release: its set name (case and spaces aside) or
    its effective date."""
    said = " ".join(typed.split()).casefold()
    if not said:
        return False
    names = {preview.effective_date.isoformat()}
    if preview.set_name:
        names.add(" ".join(preview.set_name.split()).casefold())
    return said in names


# -- reading the file -------------------------------------------------------------------------


def read_document(*, path: Path | None = None, data: bytes | None = None, source: str = ""):
    """Decode and parse an English CR text (UTF-8/cp1252/UTF-16, CR, LF or CRLF line ends).
    Returns (document, checksum); a file that is not one raises PublishError naming the line."""
    if (path is None) == (data is None):
        raise TypeError("give either path or data")
    source = source or (path.name if path is not None else "upload")
    try:
        raw = path.read_bytes() if path is not None else data
    except OSError as exc:
        raise PublishError(f"{source}: cannot read the file: {exc}") from None
    if len(raw) > MAX_UPLOAD_BYTES:
        raise PublishError(f"{source}: larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
    try:
        text = decode_bytes(raw, source=source)
        doc = parse_text(text, source=source)
    except CRFormatError as exc:
        raise PublishError(str(exc)) from None
    return doc, text_checksum(text)


# -- preview ----------------------------------------------------------------------------------


class _RollBack(Exception):
    """Raised inside the preview's transaction so that everything the import did is undone."""


def preview_release(
    *,
    path: Path | None = None,
    data: bytes | None = None,
    source: str = "",
    set_name: str = "",
    set_code: str = "",
    user: str = "",
) -> ReleasePreview:
    """Run the real import inside a transaction that is rolled back, and say what it did.

    A loaded release with the same date is replaced (with force, so that what would be lost
    is listed rather than refused); the changes are counted from it, else from the release
    before the new one."""
    doc, checksum = read_document(path=path, data=data, source=source)
    source = source or (path.name if path is not None else "upload")
    started = time.perf_counter()
    date = doc.effective_date
    existing = Release.objects.filter(effective_date=date).first()
    preview = ReleasePreview(
        effective_date=date,
        set_name=set_name or (existing.set_name_en or "" if existing else ""),
        set_code=set_code or (existing.set_code if existing else ""),
        source=source,
        checksum=checksum,
        replaces=existing is not None,
        unchanged=existing is not None and existing.sha256 == checksum,
        compared_with=None,
    )
    if preview.unchanged:
        preview.counts = dict(existing.counts)
        return preview
    base = existing or Release.objects.before(date)
    preview.compared_with = base.effective_date if base else None
    try:
        with transaction.atomic():
            before = _Snapshot.read(preview.compared_with)
            maintained = _maintained(preview.compared_with)
            result = _import(doc, checksum, preview, user, replace=True, force=True)
            after = _Snapshot.read(date)
            record = ImportRecord.objects.filter(effective_date=date, lang="en").latest("id")
            preview.counts = dict(result.counts)
            preview.anomalies = result.anomalies
            preview.carried = dict(record.carried or {})
            preview.lost = list(record.lost or [])
            touched = _compare(preview, before, after)
            _maintainer_items(preview, before, after, maintained, touched)
            raise _RollBack
    except _RollBack:
        pass
    preview.seconds = time.perf_counter() - started
    return preview


def publish_release(
    *,
    path: Path | None = None,
    data: bytes | None = None,
    source: str = "",
    set_name: str = "",
    set_code: str = "",
    user: str = "",
    replace: bool = False,
    force: bool = False,
) -> ImportResult:
    """Import the file for real (atomic, like `import_rules`): a loaded date needs `replace`;
    a replacement that would lose maintainers' work needs `force` (the record keeps it)."""
    doc, checksum = read_document(path=path, data=data, source=source)
    source = source or (path.name if path is not None else "upload")
    preview = ReleasePreview(
        effective_date=doc.effective_date,
        set_name=set_name,
        set_code=set_code,
        source=source,
        checksum=checksum,
        replaces=False,
        unchanged=False,
        compared_with=None,
    )
    return _import(doc, checksum, preview, user, replace=replace, force=force)


def _import(
    doc: Document, checksum: str, preview: ReleasePreview, user: str, *, replace: bool, force: bool
) -> ImportResult:
    try:
        return Importer(user=user).import_document(
            doc,
            checksum=checksum,
            source=preview.source,
            set_name=preview.set_name,
            set_code=preview.set_code,
            replace=replace,
            force=force,
        )
    except ImportRefused as exc:
        raise PublishError(str(exc)) from None


# -- comparing two states of the archive ---------------------------------------------------


@dataclass
class _Snapshot:
    """Numbers, text hashes and glossary headwords valid on one date, by lineage / term."""

    numbers: dict[int, tuple[str, str]]  # lineage -> (number, sort key)
    versions: dict[int, tuple[int, tuple[str, str, str, str]]]  # lineage -> (id, hashes)
    terms: dict[int, tuple[int, str, tuple[str, str, str, str]]]  # term -> (id, head, hashes)

    @classmethod
    def read(cls, date: dt.date | None) -> _Snapshot:
        if date is None:
            return cls({}, {}, {})
        from kb.models import RuleNumber

        hashes = ("text_hash", "folded_hash", "masked_hash", "examples_hash")
        numbers = {
            lid: (number, sk)
            for lid, number, sk in RuleNumber.objects.filter(valid_on(date)).values_list(
                "lineage_id", "number", "sort_key"
            )
        }
        versions = {
            row[0]: (row[1], tuple(row[2:]))
            for row in RuleVersion.objects.filter(valid_on(date)).values_list(
                "lineage_id", "id", *hashes
            )
        }
        terms = {
            row[0]: (row[1], row[2], tuple(row[3:]))
            for row in GlossaryVersion.objects.filter(valid_on(date)).values_list(
                "term_id", "id", "headword", *hashes
            )
        }
        return cls(numbers, versions, terms)


def _compare(preview: ReleasePreview, before: _Snapshot, after: _Snapshot) -> dict[int, str]:
    """Rules matched by lineage (a renumbered rule is moved, not removed and added), texts by
    their hashes (a re-created row with the same text is no change). Returns the lineages
    removed, changed or moved (what maintainers' decisions on them may be touched by)."""
    noise = {"reference": 0, "typography": 0}
    rows = []
    touched: dict[int, str] = {}
    for lid in before.numbers.keys() | after.numbers.keys():
        old, new = before.numbers.get(lid), after.numbers.get(lid)
        if old is None:
            rows.append((new[1], "added", RuleChange(new[0])))
        elif new is None:
            rows.append((old[1], "removed", RuleChange(old[0])))
            touched[lid] = "removed"
        else:
            kinds = classify(before.versions[lid][1], after.versions[lid][1])
            moved = old[0] != new[0]
            change = RuleChange(new[0], old[0] if moved else "", kinds)
            if moved:
                rows.append((new[1], "moved", change))
                touched[lid] = "moved"
            if any(k in REAL for k in kinds):
                rows.append((new[1], "changed", change))
                touched[lid] = "changed"
            elif kinds and not moved:
                noise["reference" if "reference" in kinds else "typography"] += 1
    for _sort, status, change in sorted(rows, key=lambda r: r[0]):
        getattr(preview, status).append(change)
    preview.noise = noise
    glossary: dict[str, list[str]] = {"added": [], "removed": [], "changed": [], "renamed": []}
    for tid in before.terms.keys() | after.terms.keys():
        old, new = before.terms.get(tid), after.terms.get(tid)
        if old is None:
            glossary["added"].append(new[1])
        elif new is None:
            glossary["removed"].append(old[1])
        elif old[1] != new[1]:
            glossary["renamed"].append(f"{old[1]} → {new[1]}")
        elif any(k in REAL for k in classify(old[2], new[2])):
            glossary["changed"].append(new[1])
    preview.glossary = {k: sorted(v, key=str.casefold) for k, v in glossary.items()}
    return touched


# -- maintainers' work ------------------------------------------------------------------------


@dataclass
class _Maintained:
    """Maintainers' work on the rows valid on the compared date (read before the import)."""

    rules: dict[int, dict[str, Any]]  # lineage -> fields of its version, "added" examples
    terms: dict[int, dict[str, Any]]  # glossary term -> fields of its version


def _maintained(date: dt.date | None) -> _Maintained:
    if date is None:
        return _Maintained({}, {})
    marked = Q(en_edited=True) | Q(fr_edited=True) | ~Q(text_fr="") | ~Q(fr_status="")
    added: dict[int, int] = {}
    for vid in (
        Example.objects.filter(valid_on(date, "version__"))
        .filter(origin=ExampleOrigin.MAINTAINER)
        .values_list("version_id", flat=True)
    ):
        added[vid] = added.get(vid, 0) + 1
    fields = ("id", "lineage_id", "text_fr", "fr_status", "en_edited")
    rules = {}
    for row in (
        RuleVersion.objects.filter(valid_on(date))
        .filter(marked | Q(id__in=list(added)))
        .values(*fields)
    ):
        row["added"] = added.get(row["id"], 0)
        rules[row["lineage_id"]] = row
    terms = {
        row["term_id"]: row
        for row in GlossaryVersion.objects.filter(valid_on(date))
        .filter(~Q(text_fr="") & Q(text_fr__isnull=False))
        .values("id", "term_id", "headword")
    }
    return _Maintained(rules, terms)


def _maintainer_items(
    preview: ReleasePreview,
    before: _Snapshot,
    after: _Snapshot,
    maintained: _Maintained,
    touched: dict[int, str],
) -> None:
    """Each piece of maintainers' work on a rule or term the import touches, and its fate."""
    items: list[MaintainerItem] = []
    lost_where = {(item.get("rule") or item.get("glossary") or "") for item in preview.lost}
    for lid, row in maintained.rules.items():
        old_number = before.numbers[lid][0]
        new = after.versions.get(lid)
        number = after.numbers[lid][0] if lid in after.numbers else old_number
        if preview.replaces:
            fate = "would be lost" if old_number in lost_where else "carries over"
        elif new is None:
            fate = "stays with the earlier releases (the rule is gone)"
        elif new[0] == before.versions[lid][0]:
            continue  # the same row goes on: nothing happens to it
        else:
            fate = "stays with the earlier releases (the new text has none)"
        for what in _work(row):
            items.append(MaintainerItem(number, what, fate))
    for tid, row in maintained.terms.items():
        new = after.terms.get(tid)
        if preview.replaces:
            fate = "would be lost" if row["headword"] in lost_where else "carries over"
        elif new is not None and new[0] == row["id"]:
            continue
        else:
            fate = "stays with the earlier releases (the new text has none)"
        items.append(MaintainerItem(row["headword"], "glossary French text", fate))
    numbers = {lid: n for lid, (n, _sk) in before.numbers.items()}
    numbers.update({lid: n for lid, (n, _sk) in after.numbers.items()})
    for lid, decisions in maintainer_decisions(set(touched)).items():
        fate = {
            "removed": "kept; the rule is gone from the new text (no current number)",
            "changed": "kept; the rule's text changed: check that it still holds",
            "moved": "follows the rule to its new number",
        }[touched[lid]]
        for decision in decisions:
            items.append(MaintainerItem(numbers.get(lid, ""), decision, fate))
    items.sort(key=lambda i: (i.where, i.what))
    preview.maintainer = items


def _work(row: dict[str, Any]) -> list[str]:
    out = []
    if row["text_fr"] or row["fr_status"]:
        out.append("French text" + (f" ({row['fr_status']})" if row["fr_status"] else ""))
    if row["en_edited"]:
        out.append("English correction")
    if row["added"]:
        out.append(f"{row['added']} added example(s)")
    return out
