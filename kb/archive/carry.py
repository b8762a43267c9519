"""Maintainers' work across `import_rules --replace`: read before, put back after.

A replacement removes the release's rows and imports the new text in their place. Rows that
continue from an earlier release keep their id and everything on them; rows that started in
the replaced release are re-created. This module records what maintainers put on the latter
(French texts and their status, English corrections, added and edited examples, glossary French
texts and English corrections) keyed by lineage, and puts it back on the re-created rows.

What cannot be put back (the rule is gone from the new text, the official text under an English
correction changed) is found by the importer's ledger (kb.archive.ledger), which looks for every
piece of work after the import whatever moved it; what other apps attach to a lineage that has
no row any more is listed here (`orphans`). The importer refuses unless forced, and then keeps
the list in the import record.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.core import serializers
from django.db import IntegrityError, transaction
from django.db.models import Q

from kb.dbutil import update_rows
from kb.models import Example, GlossaryVersion, Lineage, RuleNumber, RuleVersion
from kb.models.rules import ExampleOrigin
from kb.models.versioning import EDIT_FIELDS, valid_on

# What is carried of a rule or glossary version (with its id and lineage or term), and of an
# example (with its position and origin).
_TEXT_FIELDS = (
    "text_en",
    "text_fr",
    "fr_status",
    "fr_release_id",
    "folded_hash",
    "fr_translates_text",
    "fr_translates_hash",
    *EDIT_FIELDS,
)
_EXAMPLE_TEXT_FIELDS = ("text_en", "text_fr", *EDIT_FIELDS)
_EXAMPLE_FIELDS = ("position", "origin", *_EXAMPLE_TEXT_FIELDS)


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
        .filter(
            Q(origin=ExampleOrigin.MAINTAINER)
            | Q(en_edited=True)
            | Q(fr_edited=True)
            | (Q(text_fr__isnull=False) & ~Q(text_fr=""))
        )
        .values_list("version_id", flat=True)
    )
    numbers = dict(RuleNumber.objects.as_of(date).values_list("lineage_id", "number"))
    keys = {}
    for row in RuleVersion.objects.filter(valid_on(date)).values("id", "lineage_id", *_TEXT_FIELDS):
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
        "id", "term_id", *_TEXT_FIELDS, "headword"
    ):
        if _maintained(row):
            out.glossary.append(row)
    return out


def official(row: dict[str, Any]) -> str:
    """The text the source printed for a row (under a correction, the one corrected)."""
    return row["source_text"] if row["en_edited"] else row["text_en"]


def numbered(dates: list[dt.date]) -> dict[int, tuple[dt.date, str, int, str]]:
    """Every rule valid on `dates` (a replaced release and the one after it, whose rows the
    replacement links again): lineage -> (date, number, ordinal, official text), the first
    date it is valid on. Read before a replacement removes the release's rows, to know
    afterwards which lineage took each."""
    out: dict[int, tuple[dt.date, str, int, str]] = {}
    for date in dates:
        numbers = {
            lid: (number, ordinal)
            for lid, number, ordinal in RuleNumber.objects.as_of(date).values_list(
                "lineage_id", "number", "ordinal"
            )
        }
        for row in RuleVersion.objects.filter(valid_on(date)).values(
            "lineage_id", "text_en", "source_text", "en_edited"
        ):
            lid = row["lineage_id"]
            if lid in numbers and lid not in out:
                out[lid] = (date, *numbers[lid], official(row))
    return out


def absorbed(before: dict[int, tuple[dt.date, str, int, str]]) -> dict[int, int]:
    """Lineages the replacement emptied whose rule another lineage now holds: the same number
    on the same date and the same printed text (a release matched again, `import_rules
    --rematch`, joined two lineages the old matching had kept apart). old lineage -> the one
    that took it. A rule the new text removes, whose number another rule takes, is not
    there: its text differs."""
    gone = set(before) - set(
        RuleVersion.objects.filter(lineage_id__in=list(before))
        .values_list("lineage_id", flat=True)
        .distinct()
    )
    out = {}
    for old in gone:
        date, number, ordinal, text = before[old]
        new = (
            RuleNumber.objects.as_of(date)
            .filter(number=number, ordinal=ordinal)
            .values_list("lineage_id", flat=True)
            .first()
        )
        if new is None or new == old:
            continue
        row = RuleVersion.objects.filter(valid_on(date), lineage_id=new).values(
            "text_en", "source_text", "en_edited"
        )
        if row and official(row[0]) == text:
            out[old] = new
    return out


@dataclass
class Restored:
    """Rows whose English text or examples were put back: their hashes and references are
    recomputed (kb.archive.editing.refresh_rule_version / refresh_glossary_version)."""

    rules: list[int] = field(default_factory=list)
    glossary: list[int] = field(default_factory=list)


def restore(carried: Carried, date: dt.date, absorbed: dict[int, int] | None = None) -> Restored:
    """Put the work back on the rows now valid on `date` (for a lineage another took, see
    `absorbed`, on that one's row).

    What cannot be put back is not listed here: the importer's ledger (kb.archive.ledger)
    looks for every piece of work after the import, whatever path moved it, and lists what
    is not where it applied."""
    out = Restored()
    for row, vid in _recreated(
        carried, carried.rules, RuleVersion, "lineage_id", date, absorbed or {}
    ):
        english = _restore_text(carried, RuleVersion, row, vid)
        if _restore_examples(carried, row, vid) or english:
            out.rules.append(vid)
    for row, vid in _recreated(carried, carried.glossary, GlossaryVersion, "term_id", date):
        if _restore_text(carried, GlossaryVersion, row, vid, glossary=True):
            out.glossary.append(vid)
    return out


def _recreated(
    carried: Carried,
    rows: list[dict[str, Any]],
    model: type,
    owner: str,
    date: dt.date,
    absorbed: dict[int, int] | None = None,
) -> Iterator[tuple[dict[str, Any], int]]:
    """(carried row, id of the row now valid on `date` for the same lineage or term, or the
    lineage that absorbed it) for the rows the replacement re-created; a row that kept its
    id is counted as kept in place."""
    now = dict(model.objects.filter(valid_on(date)).values_list(owner, "id"))
    absorbed = absorbed or {}
    for row in rows:
        vid = now.get(row[owner])
        if vid is None and row[owner] in absorbed:
            vid = now.get(absorbed[row[owner]])
        if vid is None:
            continue
        if vid == row["id"]:
            carried.count("kept in place")
            continue
        yield row, vid


def _restore_text(
    carried: Carried, model: type, row: dict[str, Any], vid: int, *, glossary: bool = False
) -> bool:
    """French text and English correction of a rule or glossary row, on the row re-created
    for the same entry. The French text goes back unless the new row has one of its own; the
    correction only where the source still prints the text it corrects. Returns whether the
    English text changed."""
    new = model.objects.filter(pk=vid).values("text_en", "text_fr", "folded_hash").get()
    corrected = row["en_edited"] and new["text_en"] == row["source_text"]
    if (row["text_fr"] or row["fr_status"] or row["fr_edited"]) and not new["text_fr"]:
        # The English the French was read against, when the new row prints another (and no
        # correction of the same official text puts it back): the French is then stale.
        reworded = not corrected and new["folded_hash"] != row["folded_hash"]
        translates = (
            (row["fr_translates_text"], row["fr_translates_hash"])
            if row["fr_translates_hash"]
            else ((row["text_en"], row["folded_hash"]) if reworded else ("", ""))
        )
        _put_french(model, vid, row, translates)
        carried.count("glossary French texts" if glossary else "French texts")
    if corrected:
        update_rows(
            model,
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
        carried.count("glossary English corrections" if glossary else "English corrections")
        return True
    return False


def _restore_examples(carried: Carried, row: dict[str, Any], vid: int) -> bool:
    """Examples a maintainer added (after the printed ones) and edits of printed examples the
    new text still prints. Returns whether any English text changed."""
    changed = False
    printed: list[Example | None] = list(
        Example.objects.filter(version_id=vid).order_by("position")
    )
    taken: set[int] = set()
    for ex in row["examples"]:
        if ex["origin"] == ExampleOrigin.MAINTAINER:
            added = Example.objects.create(
                version_id=vid,
                position=len(printed),
                origin=ex["origin"],
                **{k: ex[k] for k in _EXAMPLE_TEXT_FIELDS},
            )
            update_rows(Example, ["text"], [(ex["text_en"], added.pk)])
            printed.append(None)
            carried.count("added examples")
            changed = True
        elif ex["en_edited"] or ex["fr_edited"] or ex["text_fr"]:
            official = ex["source_text"] if ex["en_edited"] else ex["text_en"]
            target = _printed_example(printed, official, ex["position"], taken)
            if target is None:
                continue
            taken.add(target.pk)
            for k in _EXAMPLE_TEXT_FIELDS:
                setattr(target, k, ex[k])
            target.save()
            update_rows(Example, ["text"], [(ex["text_en"], target.pk)])
            carried.count("edited examples")
            changed = changed or ex["en_edited"]
    return changed


def _printed_example(
    printed: list[Example | None], official: str, position: int, taken: set[int]
) -> Example | None:
    """The new row's printed example an edit applies to: the one the source prints with the
    text the edit was made on, at the same position if it is there (a release that adds an
    example before it moves it down, and the edit follows)."""
    same = [
        p
        for p in printed
        if p is not None
        and p.pk not in taken
        and p.origin == ExampleOrigin.SOURCE
        and p.text_en == official
    ]
    return next((p for p in same if p.position == position), same[0] if same else None)


def _put_french(model: type, vid: int, row: dict[str, Any], translates: tuple[str, str]) -> None:
    update_rows(
        model,
        [
            "text_fr",
            "fr_status",
            "fr_release",
            "fr_edited",
            "edited_by",
            "edited_at",
            "fr_translates_text",
            "fr_translates_hash",
        ],
        [
            (
                row["text_fr"],
                row["fr_status"],
                row["fr_release_id"],
                row["fr_edited"],
                row["edited_by"],
                row["edited_at"],
                *translates,
                vid,
            )
        ],
    )


def orphans(
    carried: Carried, spared: dict[type, set[int]], absorbed: dict[int, int] | None = None
) -> None:
    """Lineages and glossary terms the new text no longer holds: what other apps attach to
    them would be deleted with them. What is attached to a lineage another absorbed moves to
    that one (`absorbed`); the rest is listed (serialised, so the record keeps it)."""
    absorbed = absorbed or {}
    for model, ids in spared.items():
        gone = model.objects.filter(id__in=ids)
        gone = gone.filter(**{f"{_rows_of(model)}__isnull": True}).distinct()
        for obj in gone:
            for rel in model._meta.related_objects:
                if rel.related_model._meta.app_label == "kb" and rel.related_model not in (
                    _vocabulary_model(),
                ):
                    continue
                manager = rel.related_model._default_manager
                if model is Lineage and obj.pk in absorbed:
                    _adopt(manager.filter(**{rel.field.name: obj}), rel.field, absorbed[obj.pk])
                rows = list(manager.filter(**{rel.field.name: obj}))
                if rows:
                    carried.lost.append(
                        {
                            "what": f"{len(rows)} {rel.related_model._meta.label} row(s)",
                            "reason": f"{model._meta.verbose_name} {obj} is not in the new text",
                            "rows": json.loads(serializers.serialize("json", rows)),
                        }
                    )


def _adopt(rows, field, new_owner: int) -> None:
    """Point `rows` at `new_owner`, each on its own: a row that would collide with one the
    new owner has (a ruling linked to both lineages) stays, and is listed as lost."""
    for pk in list(rows.values_list("pk", flat=True)):
        try:
            with transaction.atomic():
                rows.model._default_manager.filter(pk=pk).update(**{field.attname: new_owner})
        except IntegrityError:
            continue


def _rows_of(model: type) -> str:
    return "versions"


def _vocabulary_model() -> type:
    from kb.models import VocabularyTerm

    return VocabularyTerm


def delete_orphans(spared: dict[type, set[int]]) -> None:
    for model, ids in spared.items():
        model.objects.filter(id__in=ids, **{f"{_rows_of(model)}__isnull": True}).delete()
