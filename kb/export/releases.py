"""The archive as one JSON object per release, and back.

A release's object holds everything in force in it: its metadata and anomalies, every rule
(number, lineage key, kind, English and French text with the French's status, examples,
references resolved in that release) and the glossary. Reading back regroups consecutive
releases in which a lineage's number or text is the same into one interval row, which is how
the archive stores them (a release that changes nothing adds no row).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from kb.archive.families import REFERENCE_FIELDS
from kb.archive.texts import hashes
from kb.crtext.numbers import chapter_of, sort_key
from kb.dbutil import insert_dicts, under
from kb.models import (
    Anomaly,
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Lineage,
    Reference,
    Release,
    RuleNumber,
    RuleVersion,
)
from kb.models.versioning import EDIT_FIELDS, HASH_FIELDS, row_valid_on

RELEASE_FIELDS = ("set_code", "title", "introduction", "credits", "source", "sha256", "counts")


def _iso(value: dt.date | None) -> str | None:
    return value.isoformat() if value else None


def _edited(row: dict[str, Any]) -> dict[str, Any] | None:
    """A maintainer's edit of the text (null: never edited): the official English it replaced,
    which language was edited, by whom and when."""
    if not any(row[f] for f in EDIT_FIELDS):
        return None
    return {
        "source_text": row["source_text"],
        "en_edited": row["en_edited"],
        "fr_edited": row["fr_edited"],
        "by": row["edited_by"],
        "at": row["edited_at"].isoformat() if row["edited_at"] else None,
    }


def _edit_fields(edited: dict[str, Any] | None) -> dict[str, Any]:
    """The row fields of an export's `edited` object."""
    edited = edited or {}
    at = edited.get("at")
    return {
        "source_text": edited.get("source_text", ""),
        "en_edited": edited.get("en_edited", False),
        "fr_edited": edited.get("fr_edited", False),
        "edited_by": edited.get("by", ""),
        "edited_at": dt.datetime.fromisoformat(at) if at else None,
    }


def _french(row: dict[str, Any], release_dates: dict[int, dt.date]) -> dict[str, Any] | None:
    """The French text's status and the English release it translates (None: no French)."""
    if not row["fr_status"] and not row["fr_release_id"]:
        return None
    out = {
        "status": row["fr_status"],
        "translates": _iso(release_dates.get(row["fr_release_id"])),
    }
    if row.get("fr_translates_hash"):  # a replacement reworded the English under it
        out["translated_english"] = row["fr_translates_text"]
        out["translated_hash"] = row["fr_translates_hash"]
    return out


class ArchiveReader:
    """The whole archive read once (a few queries), then cut into releases in memory: one
    query per release and table would be ~600 queries for the full archive."""

    def __init__(self) -> None:
        self.releases = list(Release.objects.order_by("effective_date"))
        self.release_dates = {r.id: r.effective_date for r in self.releases}
        self.lineages = dict(Lineage.objects.values_list("id", "key"))
        self.lineage_kinds = dict(Lineage.objects.values_list("id", "kind"))
        self.numbers = list(
            RuleNumber.objects.values(
                "lineage_id",
                "number",
                "kind",
                "ordinal",
                "previous_number",
                "sort_key",
                "valid_from",
                "valid_to",
            )
        )
        text_fields = (
            *EDIT_FIELDS,
            "id",
            "text_en",
            "text_fr",
            "fr_status",
            "fr_release_id",
            "fr_translates_text",
            "fr_translates_hash",
            "change",
            "wording_since",
            "valid_from",
            "valid_to",
        )
        self.versions = list(RuleVersion.objects.values("lineage_id", *text_fields))
        self.terms = {t["id"]: t for t in GlossaryTerm.objects.values("id", "key", "slug")}
        self.glossary = list(
            GlossaryVersion.objects.values(
                "term_id", "headword", "aliases", "obsolete", "ordinal", *text_fields
            )
        )
        self.examples: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for ex in Example.objects.order_by("version_id", "position").values(
            "version_id", "position", "text_en", "text_fr", "origin", *EDIT_FIELDS
        ):
            self.examples[ex.pop("version_id")].append(ex)
        self.rule_refs: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self.glossary_refs: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for ref in Reference.objects.values(*REFERENCE_FIELDS):
            rid, gid = ref.pop("rule_version_id"), ref.pop("glossary_version_id")
            (self.rule_refs[rid] if rid else self.glossary_refs[gid]).append(ref)
        self.anomalies: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for a in Anomaly.objects.values("release_id", "lang", "kind", "line", "number", "detail"):
            self.anomalies[a.pop("release_id")].append(a)

    def release_object(self, release: Release) -> dict[str, Any]:
        date = release.effective_date
        numbers = sorted(
            (n for n in self.numbers if row_valid_on(n, date)),
            key=lambda n: (n["sort_key"], n["ordinal"], self.lineages[n["lineage_id"]]),
        )
        resolve: dict[str, str] = {}
        for n in sorted(numbers, key=lambda n: -n["ordinal"]):  # the first printed one wins
            resolve[n["number"]] = self.lineages[n["lineage_id"]]
        versions = {v["lineage_id"]: v for v in self.versions if row_valid_on(v, date)}
        rules = [self._rule(n, versions.get(n["lineage_id"]), resolve) for n in numbers]
        glossary = sorted(
            (self._glossary(g, resolve) for g in self.glossary if row_valid_on(g, date)),
            key=lambda g: (g["ordinal"], g["term"]),
        )
        meta = {f: getattr(release, f) for f in RELEASE_FIELDS}
        meta.update(
            effective_date=date.isoformat(),
            set_name={"en": release.set_name_en or "", "fr": release.set_name_fr},
        )
        anomalies = sorted(
            self.anomalies.get(release.id, []),
            key=lambda a: (a["lang"], a["line"] or 0, a["kind"], a["number"], a["detail"]),
        )
        return {
            "schema_version": 1,
            "release": meta,
            "anomalies": anomalies,
            "rules": rules,
            "glossary": glossary,
        }

    def _text(self, version: dict[str, Any], refs: list[dict], resolve: dict[str, str]) -> dict:
        return {
            "text_en": version["text_en"],
            "text_fr": version["text_fr"],
            "french": _french(version, self.release_dates),
            "change": version["change"],
            "wording_since": _iso(version["wording_since"]),
            "references": _references(refs, resolve),
            "edited": _edited(version),
        }

    def _rule(self, number: dict, version: dict | None, resolve: dict[str, str]) -> dict:
        lid = number["lineage_id"]
        rule: dict[str, Any] = {
            "number": number["number"],
            "ordinal": number["ordinal"],
            "previous_number": number["previous_number"],
            "kind": number["kind"],
            "lineage": self.lineages[lid],
            "lineage_kind": self.lineage_kinds[lid],
        }
        if version is None:  # a number with no text row: kept visible, never invented
            rule.update(text_en=None, text_fr=None, french=None, change="", wording_since=None)
            rule["edited"] = None
            rule.update(references=[], examples=[])
            return rule
        rule.update(self._text(version, self.rule_refs.get(version["id"], []), resolve))
        rule["examples"] = [
            {
                "text_en": e["text_en"],
                "text_fr": e["text_fr"],
                "origin": e["origin"],
                "edited": _edited(e),
            }
            for e in self.examples.get(version["id"], [])
        ]
        return rule

    def _glossary(self, version: dict, resolve: dict[str, str]) -> dict[str, Any]:
        term = self.terms[version["term_id"]]
        entry = {
            "term": term["key"],
            "slug": term["slug"],
            "headword": version["headword"],
            "aliases": version["aliases"],
            "obsolete": version["obsolete"],
            "ordinal": version["ordinal"],
        }
        entry.update(self._text(version, self.glossary_refs.get(version["id"], []), resolve))
        return entry


def _references(refs: Iterable[dict[str, Any]], resolve: dict[str, str]) -> list[dict]:
    """Stored spans with their targets resolved in the release (lineage key, None when the
    number is not a rule of that release)."""
    out = []
    for ref in refs:
        out.append(
            {
                **ref,
                "lineage": resolve.get(ref["target"]),
                "end_lineage": resolve.get(ref["target_end"]) if ref["target_end"] else None,
            }
        )
    out.sort(
        key=lambda r: (
            -1 if r["example_position"] is None else r["example_position"],
            r["lang"],
            r["start"],
            r["end"],
            r["target"],
            r["target_end"],
        )
    )
    return out


def release_objects() -> Iterable[tuple[str, dict[str, Any]]]:
    """(effective date, object) for every release, in date order."""
    reader = ArchiveReader()
    for release in reader.releases:
        yield release.effective_date.isoformat(), reader.release_object(release)


def release_counts(obj: dict[str, Any]) -> dict[str, int]:
    return {
        "rules": len(obj["rules"]),
        "glossary": len(obj["glossary"]),
        "examples": sum(len(r["examples"]) for r in obj["rules"]),
        "references": sum(len(r["references"]) for r in obj["rules"] + obj["glossary"]),
        "anomalies": len(obj["anomalies"]),
    }


# --- reading back -------------------------------------------------------------------------


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class _Runs:
    """Consecutive releases in which an identity (lineage, glossary term) has the same value
    become one [valid_from, valid_to) row."""

    def __init__(self, dates: list[dt.date]) -> None:
        self.dates = dates
        self.open: dict[str, tuple[int, int, str, Any]] = {}  # id -> (first, last, key, value)
        self.rows: list[tuple[str, dt.date, dt.date | None, Any]] = []

    def see(self, ident: str, index: int, value: Any) -> None:
        key = _key(value)
        run = self.open.get(ident)
        if run is not None and run[1] == index - 1 and run[2] == key:
            self.open[ident] = (run[0], index, key, run[3])
            return
        if run is not None:
            self._close(ident, run)
        self.open[ident] = (index, index, key, value)

    def _close(self, ident: str, run: tuple[int, int, str, Any]) -> None:
        first, last, _, value = run
        end = self.dates[last + 1] if last + 1 < len(self.dates) else None
        self.rows.append((ident, self.dates[first], end, value))

    def finish(self) -> list[tuple[str, dt.date, dt.date | None, Any]]:
        for ident, run in sorted(self.open.items()):
            self._close(ident, run)
        self.open = {}
        return sorted(self.rows, key=lambda r: (r[0], r[1]))


def _date(value: str | None) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None


def _text_row(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "text_en": entry["text_en"],
        "text_fr": entry["text_fr"],
        "french": entry["french"],
        "change": entry["change"],
        "wording_since": entry["wording_since"],
        "edited": entry["edited"],
        "references": [
            {k: r[k] for k in ("example_position", "lang", "start", "end", "target", "target_end")}
            for r in entry["references"]
        ],
    }


def load_releases(objects: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Store releases read from an export, in date order, into an empty archive (bulk inserts,
    no importer replay): the rows a re-export reads are exactly those the files describe.

    `objects` may be a generator: one release is held in memory at a time (the whole archive's
    files parsed at once would take a gigabyte)."""
    metas: list[dict[str, Any]] = []
    anomalies: list[dict[str, Any]] = []  # release_id: the release's index until inserted
    dates: list[dt.date] = []
    numbers, texts, terms, glossary = _Runs(dates), _Runs(dates), _Runs(dates), _Runs(dates)
    lineage_kinds: dict[str, str] = {}
    for index, obj in enumerate(objects):
        date = dt.date.fromisoformat(obj["release"]["effective_date"])
        if dates and date <= dates[-1]:
            raise ValueError(f"release {date} out of order")
        dates.append(date)
        metas.append(obj["release"])
        # checked as its file is read, so that a refusal names that file
        anomalies.extend(under(a, "release_id", index) for a in obj["anomalies"])
        for rule in obj["rules"]:
            key = rule["lineage"]
            lineage_kinds.setdefault(key, rule["lineage_kind"])
            numbers.see(
                key,
                index,
                [rule["number"], rule["kind"], rule["ordinal"], rule["previous_number"]],
            )
            if rule["text_en"] is not None or rule["text_fr"] is not None:
                texts.see(key, index, {**_text_row(rule), "examples": rule["examples"]})
        for entry in obj["glossary"]:
            terms.see(entry["term"], index, entry["slug"])
            glossary.see(
                entry["term"],
                index,
                {
                    **_text_row(entry),
                    **{k: entry[k] for k in ("headword", "aliases", "obsolete", "ordinal")},
                },
            )
    # Plain INSERTs (kb.dbutil.insert_dicts) store what bulk_create of the same instances did,
    # without building tens of thousands of model instances.
    release_ids = insert_dicts(Release, [_release(m) for m in metas], returning=True)
    release_of = {
        _date(m["effective_date"]): rid for m, rid in zip(metas, release_ids, strict=True)
    }
    insert_dicts(Anomaly, [{**a, "release_id": release_ids[a["release_id"]]} for a in anomalies])
    lineage_rows = [{"key": k, "kind": v} for k, v in sorted(lineage_kinds.items())]
    lineage_ids = insert_dicts(Lineage, lineage_rows, returning=True)
    lineage_of = {row["key"]: lid for row, lid in zip(lineage_rows, lineage_ids, strict=True)}
    insert_dicts(
        RuleNumber,
        [
            {
                "lineage_id": lineage_of[key],
                "number": number,
                "kind": kind,
                "chapter": chapter_of(number),
                "sort_key": sort_key(number),
                "ordinal": ordinal,
                "previous_number": previous,
                "valid_from": start,
                "valid_to": end,
            }
            for key, start, end, (number, kind, ordinal, previous) in numbers.finish()
        ],
    )
    rule_rows = texts.finish()
    versions = insert_dicts(
        RuleVersion,
        [
            {"lineage_id": lineage_of[key], **_version_fields(value, start, end, release_of)}
            for key, start, end, value in rule_rows
        ],
        returning=True,
    )
    examples, refs = [], []
    for version_id, (_, _, _, value) in zip(versions, rule_rows, strict=True):
        for pos, ex in enumerate(value["examples"]):
            examples.append(
                {
                    "version_id": version_id,
                    "position": pos,
                    "text_en": ex["text_en"],
                    "text_fr": ex["text_fr"],
                    "origin": ex["origin"],
                    **_edit_fields(ex["edited"]),
                }
            )
        refs.extend({"rule_version_id": version_id, **r} for r in value["references"])
    # A term whose slug changed keeps its last one (a slug is unique, one per term).
    term_rows = [
        {"key": key, "slug": slug} for key, slug in {k: v for k, _, _, v in terms.finish()}.items()
    ]
    term_ids = insert_dicts(GlossaryTerm, term_rows, returning=True)
    term_of = {row["key"]: tid for row, tid in zip(term_rows, term_ids, strict=True)}
    glossary_rows = glossary.finish()
    gversions = insert_dicts(
        GlossaryVersion,
        [
            {
                "term_id": term_of[key],
                "headword": value["headword"],
                "aliases": value["aliases"],
                "obsolete": value["obsolete"],
                "ordinal": value["ordinal"],
                **_version_fields(value, start, end, release_of),
            }
            for key, start, end, value in glossary_rows
        ],
        returning=True,
    )
    for version_id, (_, _, _, value) in zip(gversions, glossary_rows, strict=True):
        refs.extend({"glossary_version_id": version_id, **r} for r in value["references"])
    insert_dicts(Example, examples)
    insert_dicts(Reference, refs)
    return {
        "releases": len(release_ids),
        "lineages": len(lineage_ids),
        "rule_versions": len(versions),
        "glossary_versions": len(gversions),
        "examples": len(examples),
        "references": len(refs),
    }


def _release(meta: dict[str, Any]) -> dict[str, Any]:
    """A release row (its `set_name` column is read from the two languages on insert)."""
    return {
        "effective_date": dt.date.fromisoformat(meta["effective_date"]),
        "set_name_en": meta["set_name"]["en"],
        "set_name_fr": meta["set_name"]["fr"],
        **{f: meta[f] for f in RELEASE_FIELDS},
    }


def _version_fields(
    value: dict[str, Any], start: dt.date, end: dt.date | None, release_of: dict[dt.date, int]
) -> dict[str, Any]:
    """A version row's fields (the `text` column is read from text_en/text_fr on insert); the
    comparison hashes are computed as the importer does."""
    text = value["text_en"] or ""
    h = hashes(text, tuple((e["text_en"] or "") for e in value.get("examples", [])))
    french = value["french"] or {}
    translates = _date(french.get("translates"))
    return {
        "text_en": value["text_en"],
        "text_fr": value["text_fr"],
        **dict(zip(HASH_FIELDS, (h.text, h.folded, h.masked, h.examples), strict=True)),
        "change": value["change"],
        "wording_since": _date(value["wording_since"]) or start,
        "fr_status": french.get("status", ""),
        "fr_release_id": release_of.get(translates) if translates else None,
        "fr_translates_text": french.get("translated_english", ""),
        "fr_translates_hash": french.get("translated_hash", ""),
        "valid_from": start,
        "valid_to": end,
        **_edit_fields(value["edited"]),
    }
