"""Import cards and rulings: atomic, idempotent, never deleting a ruling nor overwriting a
maintainer's edit.

Sources give rulings no id, so a ruling is its card, date and source text. Same card and date
with a close text is the same ruling reworded: it is updated in place and keeps its confirmed or
rejected links. A ruling missing from a file, for a card whose rulings the file gives, is kept
and marked missing; cards absent from the file, and cards the file gives no rulings for, keep
their rulings as they are (operators import several files, some without rulings).

What the source says is kept apart from what a maintainer changed: a ruling's `source_text`
beside its shown `text`, a card's `edited` (field -> source value) beside its fields. An import
updates the source side only where a maintainer edited, and reports the fields where the
source changed too ("source changed, maintainer value kept").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from kb.crtext.typography import digest
from kb.dbutil import insert_dicts, update_rows
from rulings.importing.french_faces import FrenchCard, french_faces, french_words
from rulings.importing.headings import group_rulings
from rulings.importing.records import (
    CardRecord,
    RecordError,
    RulingRecord,
    card_record,
    ruling_record,
)
from rulings.importing.sources import read_records
from rulings.models import Card, CardFace, Ruling
from rulings.stamp import bump as bump_stamp
from search.indexing import enqueue

#: Two texts of one card and date at least this similar are one ruling reworded.
REWORDED = 0.6
MAX_REPORTED = 50


class CardImportRefused(Exception):
    """Malformed records: nothing was imported (use --skip-invalid to import the rest)."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        shown = "\n".join(errors[:MAX_REPORTED])
        more = f"\n… and {len(errors) - MAX_REPORTED} more" if len(errors) > MAX_REPORTED else ""
        super().__init__(f"{len(errors)} malformed record(s), nothing imported:\n{shown}{more}")


@dataclass
class CardImportResult:
    cards_created: int = 0
    cards_updated: int = 0
    cards_unchanged: int = 0
    rulings_created: int = 0
    rulings_reworded: int = 0
    rulings_missing: int = 0
    rulings_restored: int = 0
    rulings_unchanged: int = 0
    rulings_ignored: int = 0  # for cards not in the cards file
    skipped: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # source changed, maintainer value kept
    edits_kept: int = 0  # maintainer-edited rulings and card fields the file did not overwrite
    touched_rulings: list[int] = field(default_factory=list)  # created or reworded
    changed_cards: list[int] = field(default_factory=list)  # created or updated

    def to_link(self) -> list[int] | None:
        """The rulings whose links may have changed (None: so many that all are relinked)."""
        if len(self.changed_cards) > 2000 or len(self.touched_rulings) > 5000:
            return None
        ids = set(self.touched_rulings)
        ids.update(
            Ruling.objects.filter(card_id__in=self.changed_cards).values_list("id", flat=True)
        )
        return sorted(ids)

    def changed(self) -> bool:
        return bool(
            self.cards_created
            or self.cards_updated
            or self.rulings_created
            or self.rulings_reworded
            or self.rulings_missing
            or self.rulings_restored
            or self.conflicts
        )


Progress = Callable[[int], None]


def read_files(
    cards_name: str, rulings_name: str | None, progress: Progress | None = None
) -> tuple[list[CardRecord], list[RulingRecord] | None, list[str]]:
    """Validate every record of the files; return cards, rulings (None: embedded) and errors."""
    cards: list[CardRecord] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    for where, obj in read_records(cards_name):
        try:
            card = card_record(obj, f"{cards_name}, {where}")
        except RecordError as exc:
            errors.append(str(exc))
            continue
        if card.key in seen:
            errors.append(f"{cards_name}, {where}: the same card as {seen[card.key]} ({card.name})")
            continue
        seen[card.key] = where
        cards.append(card)
        if progress:
            progress(1)
    rulings = None
    if rulings_name:
        rulings = []
        for where, obj in read_records(rulings_name):
            try:
                rulings.append(ruling_record(obj, f"{rulings_name}, {where}"))
            except RecordError as exc:
                errors.append(str(exc))
            if progress:
                progress(1)
    return cards, rulings, errors


def import_cards(
    cards_name: str,
    rulings_name: str | None = None,
    *,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    after: Callable[[CardImportResult], None] | None = None,
) -> CardImportResult:
    """Read, validate, then store in one transaction (`after` runs inside it: linking)."""
    cards, rulings, errors = read_files(cards_name, rulings_name, progress)
    if rulings is None:
        rulings = [r for c in cards for r in c.rulings]
    with transaction.atomic():
        result = CardImportResult()
        by_key = _store_cards(cards, result)
        card_of, result.rulings_ignored, unknown = _assign_rulings(rulings, cards, by_key)
        errors.extend(f"{r.where}: no card “{r.card_name or r.oracle_id}”" for r in unknown)
        if errors and not skip_invalid:
            raise CardImportRefused(errors)
        result.skipped = errors
        # Only cards the import gives rulings for: a file without rulings leaves them alone.
        stated = {cid for cid, records in card_of.items() if records}
        _store_rulings(card_of, stated, result)
        result.touched_rulings += group_rulings({by_key[c.key] for c in cards})
        enqueue("card")
        enqueue("ruling")
        bump_stamp()  # the cached pages show cards and rulings (bulk writes send no signal)
        if after is not None:
            after(result)
    return result


def _card_fields(c: CardRecord, words: Collection[str] = frozenset()) -> dict[str, object]:
    fr = c.fr or {}
    if c.faces and c.fr:
        # Multi-face cards: French per face (rulings.importing.french_faces), the card's fields
        # joined.
        built = french_faces([f["name"] for f in c.faces], c.fr, words.__contains__)
        fr = {
            "name": built.name,
            "face_name": built.printed_face_name,
            "type_line": built.type_line,
            "text": built.text,
        }
    return {
        "oracle_id": c.oracle_id,
        "name": c.name,
        "name_en": c.name,
        "name_fr": fr.get("name") or "",
        "layout": c.layout,
        "mana_cost": c.mana_cost,
        "type_line_en": c.type_line,
        "type_line_fr": fr.get("type_line") or "",
        "text_en": c.text,
        "text_fr": fr.get("text") or "",
        "power": c.power,
        "toughness": c.toughness,
        "loyalty": c.loyalty,
        "defense": c.defense,
        "mana_value": c.mana_value,
        "colors": c.colors,
        "keywords": c.keywords,
        "printings": c.printings,
        "fr_face_name": fr.get("face_name") or "",
        "data_source": c.data_source,
    }


def _store_cards(cards: list[CardRecord], result: CardImportResult) -> dict[str, int]:
    fields = list(_card_fields(cards[0])) if cards else []
    words = french_words(
        [str(c.fr.get(k) or "") for c in cards if c.fr for k in ("text", "type_line")]
    )
    existing = (
        {
            card.key: card
            for card in Card.objects.filter(key__in=[c.key for c in cards]).only(
                "id", "key", "slug", "edited", *fields
            )
        }
        if len(cards) < 900
        else {card.key: card for card in Card.objects.only("id", "key", "slug", "edited", *fields)}
    )
    taken = set(Card.objects.values_list("slug", flat=True))
    now = timezone.now()
    creates: list[dict[str, object]] = []
    updates: list[tuple[object, ...]] = []
    update_fields: list[list[str]] = []
    face_cards: list[CardRecord] = []
    unchanged_faced: list[tuple[int, CardRecord]] = []
    for c in cards:
        values = _card_fields(c, words)
        if c.fr is None:  # sources without French (Scryfall) keep what MTGJSON gave
            for key in ("name_fr", "type_line_fr", "text_fr", "fr_face_name"):
                values.pop(key)
        old = existing.get(c.key)
        if old is not None and old.edited:
            _keep_edits(old, values, result)
        if old is None:
            slug = _slug(c.name, c.key, taken)
            creates.append({"key": c.key, "slug": slug, **values})
            face_cards.append(c)
        elif any(_stored(old, k) != v for k, v in values.items()):
            updates.append((*values.values(), now, old.id))
            update_fields.append([*values, "updated_at"])
            face_cards.append(c)
        else:
            result.cards_unchanged += 1
            if c.faces and c.fr:
                unchanged_faced.append((old.id, c))
    insert_dicts(Card, creates)  # 22,000 new cards: no model instances (kb.dbutil)
    _refresh_face_french(unchanged_faced, words)
    for names in {tuple(f) for f in update_fields}:  # cards with and without French
        update_rows(
            Card,
            list(names),
            [u for u, f in zip(updates, update_fields, strict=True) if tuple(f) == names],
        )
    result.cards_created, result.cards_updated = len(creates), len(updates)
    ids = (
        dict(Card.objects.filter(key__in=[c.key for c in face_cards]).values_list("key", "id"))
        if len(face_cards) < 900
        else dict(Card.objects.values_list("key", "id"))
    )
    if face_cards:
        kept = _stored_face_french(
            [ids[c.key] for c in face_cards if c.fr is None and c.key in ids]
        )
        CardFace.objects.filter(
            card_id__in=[ids[c.key] for c in face_cards if c.key in ids]
        ).delete()
        insert_dicts(
            CardFace,
            [
                {
                    "card_id": ids[c.key],
                    "position": i,
                    **face,
                    **(
                        _face_french(french, i)
                        if c.fr is not None
                        else _kept_french(kept.get(ids[c.key], []), face["name"], i)
                    ),
                }
                for c in face_cards
                for french in [_french_of(c, words)]
                for i, face in enumerate(c.faces)
            ],
        )
    result.changed_cards = [ids[c.key] for c in face_cards if c.key in ids]
    by_key = {k: card.id for k, card in existing.items()}
    by_key.update(ids)
    return by_key


def _refresh_face_french(cards: list[tuple[int, CardRecord]], words: Collection[str]) -> None:
    """Faces of unchanged cards get the French their record gives (a database from before
    faces had French, or a better rule in rulings.importing.french_faces); the cards stay
    unchanged."""
    if not cards:
        return
    by_card = {card_id: _french_of(c, words) for card_id, c in cards}
    stale = []
    for face in CardFace.objects.filter(card_id__in=list(by_card)):
        wanted = _face_french(by_card[face.card_id], face.position)
        if wanted and any(getattr(face, k) != v for k, v in wanted.items()):
            for k, v in wanted.items():
                setattr(face, k, v)
            stale.append(face)
    CardFace.objects.bulk_update(stale, ["name_fr", "type_line_fr", "text_fr"], batch_size=500)


_FACE_FRENCH = ("name_fr", "type_line_fr", "text_fr")


def _stored_face_french(card_ids: list[int]) -> dict[int, list[tuple[str, dict[str, str]]]]:
    """The French of the stored faces of these cards (English face name, French fields), in
    face order: what a source without French (Scryfall) must not wipe when it rewrites the
    faces of a card whose English changed."""
    out: dict[int, list[tuple[str, dict[str, str]]]] = defaultdict(list)
    if not card_ids:
        return out
    rows = CardFace.objects.filter(card_id__in=card_ids).order_by("card_id", "position")
    for card_id, name, *french in rows.values_list("card_id", "name", *_FACE_FRENCH):
        out[card_id].append((name, dict(zip(_FACE_FRENCH, french, strict=True))))
    return out


def _kept_french(stored: list[tuple[str, dict[str, str]]], name: str, i: int) -> dict[str, str]:
    """The stored French of the face named `name` (else of the face at the same position, a
    face renamed in English keeps its French): a file without French changes none of it."""
    for stored_name, french in stored:
        if stored_name == name:
            return french
    return stored[i][1] if i < len(stored) else {}


def _french_of(c: CardRecord, words: Collection[str]) -> FrenchCard | None:
    if not c.faces or not c.fr:
        return None
    return french_faces([f["name"] for f in c.faces], c.fr, words.__contains__)


def _face_french(french: FrenchCard | None, i: int) -> dict[str, str]:
    if french is None or i >= len(french.faces):
        return {}
    face = french.faces[i]
    return {"name_fr": face.name, "type_line_fr": face.type_line, "text_fr": face.text}


def _keep_edits(old: Card, values: dict[str, object], result: CardImportResult) -> None:
    """Leave the fields a maintainer edited out of `values`; where the source changed them
    too, record the new source value (in `values["edited"]`) and report the conflict."""
    edited = dict(old.edited)
    for name, source_value in old.edited.items():
        if name not in values:
            continue
        result.edits_kept += 1
        new = values.pop(name)
        if name == "name_en":
            values.pop("name", None)  # the untranslated column follows the English name
        if new != source_value:
            edited[name] = new
            result.conflicts.append(
                f"{old.name_en or old.key}: {name}: source changed, maintainer value kept "
                f"(source now {new!r})"
            )
    if edited != old.edited:
        values["edited"] = edited


def _stored(card: Card, field: str) -> object:
    """A stored value in the form records use (Oracle ids as dashed text)."""
    value = getattr(card, field)
    return str(value) if field == "oracle_id" and value is not None else value


def _slug(name: str, key: str, taken: set[str]) -> str:
    slug = slugify(name)[:180] or "card"
    if slug in taken:
        slug = f"{slug}-{digest((key,))[:6]}"
    taken.add(slug)
    return slug


def _assign_rulings(
    rulings: Iterable[RulingRecord], cards: list[CardRecord], by_key: dict[str, int]
) -> tuple[dict[int, list[RulingRecord]], int, list[RulingRecord]]:
    """Which card each ruling is about: by Oracle id, else by English name. Rulings of cards
    that are loaded but not in this file are counted, not touched; others are unknown."""
    by_oracle = {c.oracle_id: by_key[c.key] for c in cards if c.oracle_id and c.key in by_key}
    by_name = {c.name: by_key[c.key] for c in cards if c.key in by_key}
    card_of: dict[int, list[RulingRecord]] = defaultdict(list)
    unknown = []
    ignored = 0
    db_cards: dict[str, int] | None = None
    for r in rulings:
        cid = by_oracle.get(r.oracle_id) if r.oracle_id else by_name.get(r.card_name)
        if cid is None:
            if db_cards is None:
                db_cards = dict(Card.objects.values_list("name_en", "id"))
                db_cards.update(
                    {
                        str(o): i
                        for o, i in Card.objects.exclude(oracle_id=None).values_list(
                            "oracle_id", "id"
                        )
                    }
                )
            known = db_cards.get(r.oracle_id or "") or db_cards.get(r.card_name)
            if known is None:
                unknown.append(r)
            else:
                ignored += 1
            continue
        card_of[cid].append(r)
    return card_of, ignored, unknown


def _store_rulings(
    card_of: dict[int, list[RulingRecord]], file_cards: set[int], result: CardImportResult
) -> None:
    """Match each card's stored rulings with the file's (by date and source text), create the
    new ones, update reworded ones (the shown text only where no maintainer edited it), mark
    missing the stored ones the file no longer gives."""
    fields = ("id", "card_id", "date", "text", "text_hash", "source_text", "source_hash")
    existing: dict[int, list[Ruling]] = defaultdict(list)
    for ruling in (
        Ruling.objects.filter(card_id__in=file_cards).only(*fields, "missing", "text_edited")
        if len(file_cards) < 900
        else Ruling.objects.only(*fields, "missing", "text_edited")
    ):
        if ruling.card_id in file_cards:
            existing[ruling.card_id].append(ruling)
    creates: list[dict[str, object]] = []
    updates: list[Ruling] = []
    touched: list[Ruling] = []
    conflicted: list[Ruling] = []
    for card_id in file_cards:
        records = {(r.date, r.text_hash): r for r in card_of.get(card_id, [])}
        olds = existing.get(card_id, [])
        matched: set[int] = set()
        unmatched_records = []
        for key, record in records.items():
            old = next(
                (o for o in olds if (o.date, _identity(o)) == key and o.id not in matched), None
            )
            if old is None:
                unmatched_records.append(record)
                continue
            matched.add(old.id)
            result.edits_kept += old.text_edited
            if not old.source_hash:  # added by hand before the source had it: adopted
                old.source_text, old.source_hash = record.text, record.text_hash
                updates.append(old)
            if old.missing:
                old.missing = False
                updates.append(old)
                result.rulings_restored += 1
            else:
                result.rulings_unchanged += 1
        for record in unmatched_records:
            old = _reworded(record, [o for o in olds if o.id not in matched])
            if old is not None:
                matched.add(old.id)
                old.source_text, old.source_hash = record.text, record.text_hash
                old.missing = False
                result.edits_kept += old.text_edited
                if old.text_edited and old.text_hash == record.text_hash:
                    old.text_edited = False  # the source now says what the maintainer did
                elif old.text_edited:
                    conflicted.append(old)
                else:
                    old.text, old.text_hash = record.text, record.text_hash
                    touched.append(old)
                updates.append(old)
                result.rulings_reworded += 1
            else:
                creates.append(
                    {
                        "card_id": card_id,
                        "date": record.date,
                        "text": record.text,
                        "text_hash": record.text_hash,
                        "source_text": record.text,
                        "source_hash": record.text_hash,
                    }
                )
        for old in olds:
            if old.id not in matched and not old.missing and old.source_hash:
                old.missing = True
                updates.append(old)
                result.rulings_missing += 1
    made = insert_dicts(Ruling, creates, returning=True)  # their ids, in order
    Ruling.objects.bulk_update(
        list({id(r): r for r in updates}.values()),
        ["text", "text_hash", "source_text", "source_hash", "missing", "text_edited"],
        batch_size=500,
    )
    result.rulings_created = len(made)
    result.touched_rulings = made + [r.id for r in touched]
    names = dict(
        Card.objects.filter(id__in={r.card_id for r in conflicted}).values_list("id", "name_en")
    )
    result.conflicts += [
        f"{names.get(r.card_id, r.card_id)}, ruling {r.id} of {r.date}: text: source changed, "
        f"maintainer value kept (source now {r.source_text[:80]!r})"
        for r in conflicted
    ]


def _identity(ruling: Ruling) -> str:
    """What a file's ruling is matched on: the source's text, or for a ruling added by hand
    (no source yet) its own text."""
    return ruling.source_hash or ruling.text_hash


def _reworded(record: RulingRecord, candidates: list[Ruling]) -> Ruling | None:
    best, best_score = None, REWORDED
    words = record.text.split()
    for old in candidates:
        if old.date != record.date:
            continue
        before = (old.source_text or old.text).split()
        score = SequenceMatcher(None, before, words, autojunk=False).ratio()
        if score >= best_score:
            best, best_score = old, score
    return best
