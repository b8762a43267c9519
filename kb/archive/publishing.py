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

from kb.archive import ledger
from kb.archive.importer import Importer, ImportRefused, ImportResult, text_checksum
from kb.crtext import CRFormatError, Document, decode_bytes, parse_text
from kb.crtext.limits import MAX_DOCUMENT_BYTES
from kb.diffing import REAL, classify
from kb.hooks import maintainer_decisions
from kb.models import GlossaryVersion, ImportRecord, Release, RuleVersion
from kb.models.releases import today as site_today
from kb.models.versioning import HASH_FIELDS, valid_on

#: The official TXT is about 1 MB; anything far larger is not one (kb.crtext.limits).
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
    #: The effective date is after the day of the preview: published, the release is loaded
    #: but not in force (not "current") until that date.
    future: bool = False

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


def not_yet_in_force(effective_date: dt.date, today: dt.date | None = None) -> bool:
    """Whether a release takes effect after `today` (default: the site's today): loaded, it
    is not the release in force until that date, and the preview says so."""
    return effective_date > (today or site_today())


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
    preview.future = not_yet_in_force(date)
    if preview.unchanged:
        preview.counts = dict(existing.counts)
        return preview
    base = existing or Release.objects.before(date)
    preview.compared_with = base.effective_date if base else None
    try:
        with transaction.atomic():
            before = _Snapshot.read(preview.compared_with)
            work = ledger.take()
            result = _import(doc, checksum, preview, user, replace=True, force=True)
            after = _Snapshot.read(date)
            record = ImportRecord.objects.filter(effective_date=date, lang="en").latest("id")
            preview.counts = dict(result.counts)
            preview.anomalies = result.anomalies
            preview.carried = dict(record.carried or {})
            preview.lost = list(record.lost or [])
            touched = _compare(preview, before, after)
            _maintainer_items(preview, before, after, work, touched)
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

        hashes = HASH_FIELDS
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


def _maintainer_items(
    preview: ReleasePreview,
    before: _Snapshot,
    after: _Snapshot,
    work: ledger.Ledger,
    touched: dict[int, str],
) -> None:
    """Each piece of maintainers' work the import touches, and its fate.

    Read from the ledger (kb.archive.ledger) the importer checks itself against: every English
    correction, French text (a maintainer's or an imported one), edited and added example, on
    rules and glossary entries, and the releases each applies to, looked for again after the
    import. A replacement lists all the work on the replaced release (carried over or lost); a
    new release, the work on the release before it that does not go on into it (the rule or
    term is gone or reworded: a French text then becomes stale) and the work that now also
    applies to it. Then the decisions other apps keep on the rules it touches."""
    date = preview.effective_date
    prev = None if preview.replaces else preview.compared_with
    found: dict[tuple[str, str, str, str], int] = {}
    for w, here in ledger.where_now(work, also=[date]).items():
        applied = {p.release for p in w.places}
        if preview.replaces:
            if date in applied:
                fate, detail = _replaced_fate(w, here[date], before, after)
            elif here.get(date) == "":
                fate, detail = "now also applies to this release (the same official text)", ""
            else:
                continue
        elif here.get(date) == "":
            if prev in applied:
                continue  # the same text goes on into the new release, and the work with it
            fate, detail = "now also applies to the new release (the same official text)", ""
        elif prev is not None and prev in applied:
            fate, detail = _left_behind(w, here[date], before, after)
        else:
            continue
        key = (_where(w, prev or date, before, after), _what(w), fate, detail)
        found[key] = found.get(key, 0) + 1
    items = [
        MaintainerItem(where, f"{n} added example(s)" if what == ledger.ADDED else what, fate, d)
        for (where, what, fate, d), n in found.items()
    ]
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


def _replaced_fate(
    w: ledger.Work, reason: str, before: _Snapshot, after: _Snapshot
) -> tuple[str, str]:
    """A replaced release's work: carried over (a French text whose English the new text
    rewords is kept, but translates the old wording) or lost, and why."""
    if reason:
        return "would be lost", reason
    kinds = [k for k in _english_change(w, before, after) if k in REAL]
    if w.what == ledger.FRENCH and kinds:
        changed = ", ".join(kinds)
        return "carries over", f"the English it translates changes ({changed}): check it"
    return "carries over", ""


def _left_behind(
    w: ledger.Work, reason: str, before: _Snapshot, after: _Snapshot
) -> tuple[str, str]:
    """The fate of work on the release before a new one that does not go on into it."""
    noun = "term" if w.kind == "glossary" else "rule"
    if reason.startswith(f"the {noun} is not in"):
        return f"stays with the earlier releases (the {noun} is gone)", ""
    fate = "stays with the earlier releases (the new text has none)"
    kinds = _english_change(w, before, after)
    if w.what == ledger.FRENCH:
        if any(k in REAL for k in kinds):
            changed = ", ".join(kinds)
            return (
                fate,
                f"becomes stale: the new release changes the English it translates ({changed})",
            )
        return fate, "still shown as current: only typography or references change"
    if w.what == ledger.ENGLISH:
        return fate, "the new release prints another official text: check that it still applies"
    return fate, f"the new release changes the {noun} ({', '.join(kinds) or 'its rows'})"


def _english_change(w: ledger.Work, before: _Snapshot, after: _Snapshot) -> list[str]:
    if w.kind == "glossary":
        old, new = before.terms.get(w.owner), after.terms.get(w.owner)
        return classify(old[2], new[2]) if old and new else []
    old, new = before.versions.get(w.owner), after.versions.get(w.owner)
    return classify(old[1], new[1]) if old and new else []


def _where(w: ledger.Work, date: dt.date | None, before: _Snapshot, after: _Snapshot) -> str:
    """The rule's number (in the new text if it has the rule) or the glossary headword."""
    if w.kind == "glossary":
        return w.places[-1].label if w.places else ""
    if w.owner in after.numbers:
        return after.numbers[w.owner][0]
    if w.owner in before.numbers:
        return before.numbers[w.owner][0]
    near = [p for p in w.places if date is None or p.release <= date]
    return (near or list(w.places))[-1].label


def _what(w: ledger.Work) -> str:
    if w.what == ledger.ADDED:
        return ledger.ADDED
    if w.kind == "example":
        return f"example {(w.position or 0) + 1} {w.what}"
    label = w.what
    if w.what == ledger.FRENCH:
        label = f"French text ({w.value[1]})" if w.value[1] else "French text"
    return f"glossary {label}" if w.kind == "glossary" else label
