"""Rules and glossary terms as "families" of the timeline engine.

Rules have two interval tables that follow one lineage: the numbers it held and its wordings, so
that a renumbering adds a number row, not a copy of the text. Glossary terms have one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.db.models import Model
from django.utils.text import slugify

from kb.archive.matching import Item, match_glossary, match_rules
from kb.archive.texts import analyse, hashes
from kb.archive.timeline import Cell, Family, Slot, Table, refresh_intervals
from kb.crtext.model import Document, Entry, GlossaryEntry, term_key
from kb.crtext.numbers import chapter_of, sort_key
from kb.crtext.typography import digest
from kb.dbutil import chunks, insert_rows
from kb.models import (
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Lineage,
    Reference,
    RuleNumber,
    RuleVersion,
)
from kb.models.citations import CitedPair, cite_other_rules
from kb.models.versioning import EDIT_FIELDS, HASH_FIELDS, valid_on


def _text_change(prev: tuple | None, row: tuple, carry: Any) -> tuple[tuple, Any]:
    """`change` flags and `wording_since` from the previous version of the lineage.

    Rows: (id, lineage, valid_from, text_hash, folded_hash, masked_hash, examples_hash, ...).
    """
    _, _, start, th, fh, mh, eh = row[:7]
    if prev is None:
        return ("new", start), start
    flags = []
    if prev[5] != mh:
        flags.append("wording")
    if prev[6] != eh:
        flags.append("examples")
    if prev[5] == mh and prev[6] == eh and prev[4] != fh:
        flags.append("reference")
    if prev[4] == fh and prev[3] != th:
        flags.append("typography")
    since = start if ("wording" in flags or "examples" in flags) else carry
    return (" ".join(flags), since), since


def _term_change(prev: tuple | None, row: tuple, carry: Any) -> tuple[tuple, Any]:
    """`_text_change`, and "renamed" when the headword (the row's eighth value) changed."""
    (change, since), carry = _text_change(prev, row, carry)
    if prev is not None and prev[7] != row[7]:
        change = " ".join(filter(None, ["renamed", change]))
    return (change, since), carry


_TEXT_FIELDS = ("valid_from", *HASH_FIELDS)
_CHANGE_FIELDS = ["change", "wording_since"]


def refresh_rule_changes(lineage_ids: set[int], model: type[Model] = RuleVersion) -> None:
    """The `change` flags and `wording_since` of the lineages' rule versions, derived again
    from their stored hashes (`model`: a data migration passes its historical RuleVersion).

    Then a version flagged "reference" (its cited numbers changed, nothing else) that now cites
    another rule, not the same rule renumbered, is a change of wording (kb.models.citations):
    the versions the walk flagged so are asked in one batch, and only the lineages of those
    that cite another rule are walked again. A migration's historical model gets the hashes'
    flags only (the citations read today's models)."""
    flagged: list[CitedPair] = []

    def change(prev: tuple | None, row: tuple, carry: Any) -> tuple[tuple, Any]:
        out = _text_change(prev, row, carry)
        if prev is not None and out[0][0] == "reference":
            start = row[2]  # the old version's numbers are read the day before this one
            flagged.append((prev[0], start - dt.timedelta(days=1), row[0], start))
        return out

    refresh_intervals(model, "lineage_id", lineage_ids, _TEXT_FIELDS, change, _CHANGE_FIELDS)
    if model is not RuleVersion or not flagged:
        return
    promoted = cite_other_rules(flagged)
    if not promoted:
        return
    lineages = set(RuleVersion.objects.filter(id__in=promoted).values_list("lineage_id", flat=True))

    def citing(prev: tuple | None, row: tuple, carry: Any) -> tuple[tuple, Any]:
        if row[0] in promoted:
            return ("wording", row[2]), row[2]
        return _text_change(prev, row, carry)

    refresh_intervals(RuleVersion, "lineage_id", lineages, _TEXT_FIELDS, citing, _CHANGE_FIELDS)


def refresh_term_changes(term_ids: set[int], model: type[Model] = GlossaryVersion) -> None:
    """The `change` flags and `wording_since` of the terms' glossary versions, derived again
    from their stored hashes and headwords (`model`: as in refresh_rule_changes)."""
    refresh_intervals(
        model, "term_id", term_ids, [*_TEXT_FIELDS, "headword"], _term_change, _CHANGE_FIELDS
    )


class RuleNumberTable(Table):
    model = RuleNumber
    fields = ["number", "kind", "chapter", "sort_key", "ordinal", "previous_number"]

    def new_values(self, cell: Cell) -> tuple[Any, ...]:
        e: Entry = cell.data
        return (e.number, e.kind, chapter_of(e.number), sort_key(e.number), e.ordinal, "")

    def refresh_derived(self, lineage_ids: set[int]) -> None:
        def compute(prev: tuple | None, row: tuple, carry: Any) -> tuple[tuple, Any]:
            return ((prev[2] if prev is not None else ""),), None

        refresh_intervals(
            RuleNumber, self.lineage_attr, lineage_ids, ["number"], compute, ["previous_number"]
        )


# What a maintainer changed on a row (EDIT_FIELDS) is part of a row's values: when the engine
# splits a row (a release inserted or replaced inside its interval), the copy carries the
# correction and its flags with it, so the copy still says which text is the maintainer's and
# which one the source printed. A new row is unedited:
_UNEDITED = ("", False, False, "", None)

_TEXT_ROW = [
    "text",
    "text_en",
    "text_fr",
    *HASH_FIELDS,
    "change",
    "wording_since",
    "fr_status",
    "fr_release",
    *EDIT_FIELDS,
]


def _text_values(text: str, examples: tuple[str, ...]) -> tuple[Any, ...]:
    h = hashes(text, examples)
    # wording_since and change are placeholders, set by refresh_derived.
    return (
        text,
        text,
        "",
        h.text,
        h.folded,
        h.masked,
        h.examples,
        "",
        dt.date.min,
        "",
        None,
        *_UNEDITED,
    )


class RuleTextTable(Table):
    model = RuleVersion
    fields = _TEXT_ROW

    def new_values(self, cell: Cell) -> tuple[Any, ...]:
        e: Entry = cell.data
        return _text_values(e.text, tuple(e.examples))

    def create_children(self, rows: list[tuple[int, Cell]]) -> None:
        examples, refs = [], []
        for rid, cell in rows:
            e: Entry = cell.data
            refs.extend(reference_rows(e.text, rid, None, None))
            for pos, text in enumerate(e.examples):
                examples.append((rid, pos, text, text, ""))
                refs.extend(reference_rows(text, rid, None, pos))
        insert_rows(Example, ["version", "position", "text", "text_en", "text_fr"], examples)
        insert_rows(Reference, REFERENCE_FIELDS, refs)

    def copy_children(self, pairs: list[tuple[int, int]]) -> None:
        new_of = {old: new for new, old in pairs}
        examples, refs = [], []
        for chunk in chunks(sorted(new_of)):
            for ex in Example.objects.filter(version_id__in=chunk):
                ex.pk, ex.version_id = None, new_of[ex.version_id]
                examples.append(ex)
            for ref in Reference.objects.filter(rule_version_id__in=chunk):
                ref.pk, ref.rule_version_id = None, new_of[ref.rule_version_id]
                refs.append(ref)
        Example.objects.bulk_create(examples, batch_size=500)
        Reference.objects.bulk_create(refs, batch_size=500)

    def refresh_derived(self, lineage_ids: set[int]) -> None:
        refresh_rule_changes(lineage_ids)


def source_texts(date: dt.date) -> dict[int, tuple[str, str]]:
    """What the official source printed, for the versions valid on `date` that a maintainer
    changed (English text, an example edited or added): version id -> (text, text hash).

    The timeline matches a new release against what the source printed, not against the
    maintainer's wording: an unchanged rule then keeps its row, and the maintainer's work on it.
    """
    from django.db.models import Q

    edited = set(
        RuleVersion.objects.filter(valid_on(date), en_edited=True).values_list("id", flat=True)
    )
    edited |= set(
        Example.objects.filter(valid_on(date, "version__"))
        .filter(Q(origin="maintainer") | Q(en_edited=True))
        .values_list("version_id", flat=True)
    )
    if not edited:
        return {}
    examples: dict[int, list[str]] = {vid: [] for vid in edited}
    for vid, text, source, en_edited in (
        Example.objects.filter(version_id__in=edited, origin="source")
        .order_by("version_id", "position")
        .values_list("version_id", "text_en", "source_text", "en_edited")
    ):
        examples[vid].append(source if en_edited else text)
    out = {}
    for vid, text, source, en_edited in RuleVersion.objects.filter(id__in=edited).values_list(
        "id", "text_en", "source_text", "en_edited"
    ):
        printed = source if en_edited else text
        out[vid] = (printed, hashes(printed, tuple(examples[vid])).text)
    return out


#: A reference row's fields, as the importer and the edit services insert them and the export
#: reads them.
REFERENCE_FIELDS = [
    "rule_version_id",
    "glossary_version_id",
    "example_position",
    "lang",
    "start",
    "end",
    "target",
    "target_end",
]


def reference_rows(
    text: str, rule_version: int | None, glossary_version: int | None, example: int | None
) -> list[tuple[Any, ...]]:
    return [
        (rule_version, glossary_version, example, "en", r.start, r.end, r.target, r.target_end)
        for r in analyse(text).refs
    ]


class RuleFamily(Family):
    lineage_model = Lineage

    def __init__(self) -> None:
        self.tables = [RuleNumberTable(), RuleTextTable()]

    def load_cells(self, date: dt.date) -> list[Cell]:
        texts = {
            lid: (rid, text, th, start, end)
            for rid, lid, text, th, start, end in RuleVersion.objects.filter(
                valid_on(date)
            ).values_list("id", "lineage_id", "text_en", "text_hash", "valid_from", "valid_to")
        }
        official = source_texts(date)
        for lid, (rid, _text, _th, start, end) in list(texts.items()):
            if rid in official:
                texts[lid] = (rid, *official[rid], start, end)
        cells = []
        for rid, lid, number, kind, ordinal, start, end in (
            RuleNumber.objects.filter(valid_on(date))
            .order_by("sort_key", "ordinal")
            .values_list("id", "lineage_id", "number", "kind", "ordinal", "valid_from", "valid_to")
        ):
            vid, text, th, vstart, vend = texts[lid]
            cells.append(
                Cell(
                    item=Item(number, kind, text, ordinal),
                    number=number,
                    ordinal=ordinal,
                    slots=[
                        Slot(f"{number}#{ordinal}", rid, start, end),
                        Slot(th, vid, vstart, vend),
                    ],
                    lineage_id=lid,
                )
            )
        return cells

    def cells_from_document(self, doc: Document) -> list[Cell]:
        # Canonical order (not the file's), so that both sides of a match always agree.
        entries = sorted(doc.entries, key=lambda e: (sort_key(e.number), e.ordinal))
        return [
            Cell(
                item=Item(e.number, e.kind, e.text, e.ordinal),
                number=e.number,
                ordinal=e.ordinal,
                slots=[
                    Slot(f"{e.number}#{e.ordinal}"),
                    Slot(hashes(e.text, tuple(e.examples)).text),
                ],
                data=e,
            )
            for e in entries
        ]

    def match(self, a: Sequence[Item], b: Sequence[Item]) -> list[tuple[int, int]]:
        return match_rules(a, b)

    def lineage_key(self, cell: Cell, date: dt.date) -> str:
        suffix = f"#{cell.ordinal + 1}" if cell.ordinal else ""
        return f"{cell.number}@{date.isoformat()}{suffix}"

    def new_lineage(self, key: str, cell: Cell) -> Model:
        return Lineage(key=key, kind=cell.item.kind)


class GlossaryTextTable(Table):
    model = GlossaryVersion
    lineage_field = "term"
    fields = [*_TEXT_ROW, "headword", "aliases", "obsolete", "ordinal"]

    def new_values(self, cell: Cell) -> tuple[Any, ...]:
        g: GlossaryEntry = cell.data
        return (
            *_text_values(g.text, ()),
            g.headword,
            list(g.terms),
            g.obsolete,
            g.ordinal,
        )

    def create_children(self, rows: list[tuple[int, Cell]]) -> None:
        refs = [r for rid, cell in rows for r in reference_rows(cell.data.text, None, rid, None)]
        insert_rows(Reference, REFERENCE_FIELDS, refs)

    def copy_children(self, pairs: list[tuple[int, int]]) -> None:
        new_of = {old: new for new, old in pairs}
        refs = []
        for chunk in chunks(sorted(new_of)):
            for ref in Reference.objects.filter(glossary_version_id__in=chunk):
                ref.pk, ref.glossary_version_id = None, new_of[ref.glossary_version_id]
                refs.append(ref)
        Reference.objects.bulk_create(refs, batch_size=500)

    def refresh_derived(self, lineage_ids: set[int]) -> None:
        refresh_term_changes(lineage_ids)


class GlossaryFamily(Family):
    lineage_model = GlossaryTerm
    keyed_lineages = True

    def __init__(self) -> None:
        self.tables = [GlossaryTextTable()]

    def load_cells(self, date: dt.date) -> list[Cell]:
        rows = (
            GlossaryVersion.objects.filter(valid_on(date))
            .order_by("term__key", "ordinal")
            .values_list(
                "id",
                "term_id",
                "headword",
                "aliases",
                "ordinal",
                "text_en",
                "source_text",
                "en_edited",
                "valid_from",
                "valid_to",
            )
        )
        # Compared by what the source printed, as rules are (source_texts): a maintainer's
        # correction must not make an unchanged entry look changed (a new row, the correction
        # left behind on the old one).
        return [
            Cell(
                item=_glossary_item(headword, aliases, ordinal),
                number=headword,
                ordinal=ordinal,
                slots=[Slot(digest((headword, source if edited else text)), rid, start, end)],
                lineage_id=lid,
            )
            for rid, lid, headword, aliases, ordinal, text, source, edited, start, end in rows
        ]

    def cells_from_document(self, doc: Document) -> list[Cell]:
        entries = sorted(doc.glossary, key=lambda g: (g.key, g.ordinal))
        return [
            Cell(
                item=_glossary_item(g.headword, g.terms, g.ordinal),
                number=g.headword,
                ordinal=g.ordinal,
                slots=[Slot(digest((g.headword, g.text)))],
                data=g,
            )
            for g in entries
        ]

    def match(self, a: Sequence[Item], b: Sequence[Item]) -> list[tuple[int, int]]:
        return match_glossary(a, b)

    def lineage_key(self, cell: Cell, date: dt.date) -> str:
        return cell.item.number + (f"#{cell.ordinal + 1}" if cell.ordinal else "")

    def new_lineage(self, key: str, cell: Cell) -> Model:
        slug = glossary_slug(key)
        if GlossaryTerm.objects.filter(slug=slug).exists():  # never seen in the real archive
            slug = f"{slug}-{digest((key,))[:4]}"
        return GlossaryTerm(key=key, slug=slug)


def _glossary_item(headword: str, aliases: Sequence[str], ordinal: int) -> Item:
    first = term_key(aliases[0]) if aliases else ""
    return Item(term_key(headword), "glossary", first, ordinal)


def glossary_slug(key: str) -> str:
    """A readable, stable slug for a glossary term's URL."""
    return slugify(key)[:90] or f"term-{digest((key,))[:6]}"
