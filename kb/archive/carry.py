"""Maintainers' work across `import_rules --replace`: read before, put back after.

A replacement removes the release's rows and imports the new text in their place. Rows that
continue from an earlier release keep their id and everything on them; rows that started in
the replaced release are re-created. This module records what maintainers put on the latter
(French texts and their status, English corrections, added and edited examples, glossary French
texts) keyed by lineage, and puts it back on the re-created rows. What cannot be put back (the
rule is gone from the new text, the official text under an English correction changed, a
lineage other apps point at has no row any more) is listed: the importer refuses unless forced,
and then keeps the list in the import record.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from django.core import serializers
from django.db.models import Q

from kb.dbutil import update_rows
from kb.models import Example, GlossaryVersion, Lineage, RuleNumber, RuleVersion
from kb.models.rules import ExampleOrigin
from kb.models.versioning import valid_on

_VERSION_FIELDS = [
    "id",
    "lineage_id",
    "text_en",
    "source_text",
    "en_edited",
    "text_fr",
    "fr_status",
    "fr_release_id",
    "fr_edited",
    "edited_by",
    "edited_at",
]
_EXAMPLE_FIELDS = [
    "position",
    "origin",
    "text_en",
    "text_fr",
    "source_text",
    "en_edited",
    "fr_edited",
    "edited_by",
    "edited_at",
]


@dataclass
class Carried:
    """What a replacement found, put back, and could not put back."""

    rules: list[dict[str, Any]] = field(default_factory=list)
    glossary: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    lost: list[dict[str, Any]] = field(default_factory=list)

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1


def _maintained(row: dict[str, Any]) -> bool:
    return bool(row["en_edited"] or row["fr_edited"] or row["text_fr"] or row["fr_status"])


def read(date: dt.date) -> Carried:
    """Maintainers' work on the rows valid on `date` (call before removing the release)."""
    out = Carried()
    with_examples = set(
        Example.objects.filter(valid_on(date, "version__"))
        .filter(Q(origin=ExampleOrigin.MAINTAINER) | Q(en_edited=True) | Q(fr_edited=True))
        .values_list("version_id", flat=True)
    )
    numbers = dict(RuleNumber.objects.as_of(date).values_list("lineage_id", "number"))
    keys = {}
    for row in RuleVersion.objects.filter(valid_on(date)).values(*_VERSION_FIELDS):
        if not (_maintained(row) or row["id"] in with_examples):
            continue
        row["examples"] = list(
            Example.objects.filter(version_id=row["id"])
            .order_by("position")
            .values(*_EXAMPLE_FIELDS)
        )
        row["number"] = numbers.get(row["lineage_id"], "")
        keys[row["lineage_id"]] = None
        out.rules.append(row)
    keys.update(Lineage.objects.filter(id__in=list(keys)).values_list("id", "key"))
    for row in out.rules:
        row["lineage_key"] = keys.get(row["lineage_id"], "")
    for row in GlossaryVersion.objects.filter(valid_on(date)).values(
        *_VERSION_FIELDS[:1], "term_id", *_VERSION_FIELDS[2:], "headword"
    ):
        if _maintained(row):
            out.glossary.append(row)
    return out


def restore(carried: Carried, date: dt.date) -> list[int]:
    """Put the work back on the rows now valid on `date`; returns the rule versions whose
    English text or examples changed (their hashes and references are recomputed)."""
    refresh: list[int] = []
    now = {
        lid: vid
        for vid, lid in RuleVersion.objects.filter(valid_on(date)).values_list("id", "lineage_id")
    }
    for row in carried.rules:
        vid = now.get(row["lineage_id"])
        where = {"rule": row["number"], "lineage": row["lineage_key"]}
        if vid is None:
            _lose_rule(carried, row, where, "the rule is not in the new text")
            continue
        if vid == row["id"]:
            carried.count("kept in place")
            continue
        if _restore_rule(carried, row, vid, where):
            refresh.append(vid)
    terms = {
        tid: vid
        for vid, tid in GlossaryVersion.objects.filter(valid_on(date)).values_list("id", "term_id")
    }
    for row in carried.glossary:
        vid = terms.get(row["term_id"])
        where = {"glossary": row["headword"]}
        if vid is None:
            carried.lost.append(
                {
                    **where,
                    "what": "French text",
                    "reason": "the term is gone",
                    "text_fr": row["text_fr"],
                    "fr_status": row["fr_status"],
                }
            )
            continue
        if vid != row["id"]:
            _put_french(GlossaryVersion, vid, row)
            carried.count("glossary French texts")
    return refresh


def _restore_rule(carried: Carried, row: dict[str, Any], vid: int, where: dict) -> bool:
    new = RuleVersion.objects.get(pk=vid)
    changed = False
    if (row["text_fr"] or row["fr_status"]) and not new.text_fr:
        _put_french(RuleVersion, vid, row)
        carried.count("French texts")
    elif row["text_fr"] and new.text_fr != row["text_fr"]:
        carried.lost.append(
            {
                **where,
                "what": "French text",
                "reason": "the new row has another",
                "text_fr": row["text_fr"],
            }
        )
    if row["en_edited"]:
        if new.text_en == row["source_text"]:
            update_rows(
                RuleVersion,
                ["text_en", "text", "source_text", "en_edited", "edited_by", "edited_at"],
                [
                    (
                        row["text_en"],
                        row["text_en"],
                        row["source_text"],
                        True,
                        row["edited_by"],
                        row["edited_at"],
                        vid,
                    )
                ],
            )
            carried.count("English corrections")
            changed = True
        else:
            carried.lost.append(
                {
                    **where,
                    "what": "English correction",
                    "reason": "the official text changed under it",
                    "text_en": row["text_en"],
                    "was_official": row["source_text"],
                }
            )
    printed = list(Example.objects.filter(version_id=vid).order_by("position"))
    for ex in row["examples"]:
        if ex["origin"] == ExampleOrigin.MAINTAINER:
            added = Example.objects.create(
                version_id=vid,
                position=len(printed),
                **{k: ex[k] for k in _EXAMPLE_FIELDS if k != "position"},
            )
            update_rows(Example, ["text"], [(ex["text_en"], added.pk)])
            printed.append(None)
            carried.count("added examples")
            changed = True
        elif ex["en_edited"] or ex["fr_edited"]:
            target = next(
                (p for p in printed if p is not None and p.position == ex["position"]), None
            )
            official = ex["source_text"] if ex["en_edited"] else ex["text_en"]
            if target is None or target.text_en != official:
                carried.lost.append(
                    {
                        **where,
                        "what": f"example {ex['position'] + 1} edits",
                        "reason": "the example changed or is gone",
                        "text_en": ex["text_en"],
                        "text_fr": ex["text_fr"],
                    }
                )
                continue
            for k in (
                "text_en",
                "text_fr",
                "source_text",
                "en_edited",
                "fr_edited",
                "edited_by",
                "edited_at",
            ):
                setattr(target, k, ex[k])
            target.save()
            update_rows(Example, ["text"], [(ex["text_en"], target.pk)])
            carried.count("edited examples")
            changed = changed or ex["en_edited"]
    return changed


def _put_french(model: type, vid: int, row: dict[str, Any]) -> None:
    update_rows(
        model,
        ["text_fr", "fr_status", "fr_release", "fr_edited", "edited_by", "edited_at"],
        [
            (
                row["text_fr"],
                row["fr_status"],
                row["fr_release_id"],
                row["fr_edited"],
                row["edited_by"],
                row["edited_at"],
                vid,
            )
        ],
    )


def _lose_rule(carried: Carried, row: dict[str, Any], where: dict, reason: str) -> None:
    item = {**where, "what": "maintainer work on the rule", "reason": reason}
    for k in ("text_fr", "fr_status", "text_en", "source_text"):
        if row.get(k):
            item[k] = row[k]
    added = [e["text_en"] for e in row["examples"] if e["origin"] == ExampleOrigin.MAINTAINER]
    if added:
        item["added_examples"] = added
    carried.lost.append(item)


def orphans(carried: Carried, spared: dict[type, set[int]]) -> None:
    """Lineages and glossary terms the new text no longer holds: what other apps attach to
    them would be deleted with them. List it (serialised, so the record keeps it)."""
    for model, ids in spared.items():
        gone = model.objects.filter(id__in=ids)
        gone = gone.filter(**{f"{_rows_of(model)}__isnull": True}).distinct()
        for obj in gone:
            for rel in model._meta.related_objects:
                if rel.related_model._meta.app_label == "kb" and rel.related_model not in (
                    _vocabulary_model(),
                ):
                    continue
                rows = list(rel.related_model._default_manager.filter(**{rel.field.name: obj}))
                if rows:
                    carried.lost.append(
                        {
                            "what": f"{len(rows)} {rel.related_model._meta.label} row(s)",
                            "reason": f"{model._meta.verbose_name} {obj} is not in the new text",
                            "rows": json.loads(serializers.serialize("json", rows)),
                        }
                    )


def _rows_of(model: type) -> str:
    return "versions"


def _vocabulary_model() -> type:
    from kb.models import VocabularyTerm

    return VocabularyTerm


def delete_orphans(spared: dict[type, set[int]]) -> None:
    for model, ids in spared.items():
        model.objects.filter(id__in=ids, **{f"{_rows_of(model)}__isnull": True}).delete()
