"""Cards, their faces, rulings and the rulings' links to rules, as one file of the bulk export
(kb's `export_data` / `import_data` call this through `kb.hooks.register_export_part`).

Links name the rule by its lineage key (stable across renumberings) with the number it had in
the release in force on the ruling's date and today's number.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

from kb.crtext.numbers import kind_of
from kb.dbutil import insert_dicts, under, update_rows
from kb.models import Lineage, Release
from rulings.importing.records import ruling_hash
from rulings.models import Card, CardFace, LinkKind, Ruling, RulingLink
from rulings.stamp import bump as bump_stamp

FILENAME = "cards.json.gz"
SCHEMA = Path(__file__).resolve().parent / "schema" / "cards.schema.json"

CARD_FIELDS = (
    "key",
    "slug",
    "layout",
    "mana_cost",
    "power",
    "toughness",
    "loyalty",
    "defense",
    "mana_value",
    "colors",
    "keywords",
    "printings",
    "fr_face_name",
    "data_source",
    "edited",
)
TRANSLATED = ("name", "type_line", "text")
FACE_FIELDS = (
    "position",
    "name",
    "mana_cost",
    "type_line",
    "text",
    "power",
    "toughness",
    "loyalty",
    "name_fr",
    "type_line_fr",
    "text_fr",
)
RULING_FIELDS = ("text", "source_text", "text_edited", "missing", "is_heading", "grouped_by_hand")
LINK_FIELDS = ("kind", "evidence", "number", "current_number")


def build() -> dict[str, Any]:
    """Every card (sorted by key) with its faces, its rulings in the site's order (date, then
    the order they were stored) and each ruling's links (sorted by lineage key)."""
    lineage_key = dict(Lineage.objects.values_list("id", "key"))
    release_date = dict(Release.objects.values_list("id", "effective_date"))
    faces: dict[int, list[dict]] = defaultdict(list)
    for face in CardFace.objects.order_by("card_id", "position").values("card_id", *FACE_FIELDS):
        faces[face.pop("card_id")].append(face)
    links: dict[int, list[dict]] = defaultdict(list)
    # Proposals are the site's unchecked guesses, recomputed from the data: not exported.
    shown = RulingLink.objects.exclude(kind=LinkKind.PROPOSED)
    for link in shown.values("ruling_id", "lineage_id", "release_id", *LINK_FIELDS):
        rid = link.pop("ruling_id")
        release = release_date.get(link.pop("release_id"))
        link["lineage"] = lineage_key[link.pop("lineage_id")]
        link["release"] = release.isoformat() if release else None
        links[rid].append(link)
    rulings: dict[int, list[dict]] = defaultdict(list)
    rows = Ruling.objects.order_by("card_id", "date", "id").values(
        "id", "card_id", "date", "linked_at", "group_id", *RULING_FIELDS
    )
    position: dict[int, int] = {}
    for row in rows:
        card_rulings = rulings[row["card_id"]]
        position[row["id"]] = len(card_rulings)
        card_rulings.append(row)
    cards = []
    translated = [f"{f}_{lang}" for f in TRANSLATED for lang in ("en", "fr")]
    for card in Card.objects.order_by("key").values("id", "oracle_id", *CARD_FIELDS, *translated):
        cid = card.pop("id")
        card["oracle_id"] = str(card["oracle_id"]) if card["oracle_id"] else None
        card["faces"] = faces.get(cid, [])
        card["rulings"] = [_ruling(r, position, links) for r in rulings.get(cid, [])]
        cards.append(card)
    return {"cards": cards}


def _ruling(row: dict, position: dict[int, int], links: dict[int, list[dict]]) -> dict[str, Any]:
    out = {f: row[f] for f in RULING_FIELDS}
    out["date"] = row["date"].isoformat()
    out["linked_at"] = row["linked_at"].isoformat() if row["linked_at"] else None
    # The heading it is listed under, as its index in the card's list of rulings.
    out["group"] = position.get(row["group_id"]) if row["group_id"] else None
    out["links"] = sorted(links.get(row["id"], []), key=lambda link: link["lineage"])
    return out


def counts(obj: dict[str, Any]) -> dict[str, int]:
    rulings = [r for c in obj["cards"] for r in c["rulings"]]
    return {
        "cards": len(obj["cards"]),
        "rulings": sum(1 for r in rulings if not r["is_heading"]),
        "headings": sum(1 for r in rulings if r["is_heading"]),
        "links": sum(len(r["links"]) for r in rulings),
    }


def is_empty() -> bool:
    return not Card.objects.exists()


def load(obj: dict[str, Any]) -> dict[str, int]:
    """Store the cards file into a database whose rules were just loaded from the same export
    (links find their rule by lineage key, their release by date)."""
    lineage_of = dict(Lineage.objects.values_list("key", "id"))
    release_of = dict(Release.objects.values_list("effective_date", "id"))
    translated = [f"{f}_{lang}" for f in TRANSLATED for lang in ("en", "fr")]
    # Plain INSERTs (kb.dbutil.insert_dicts) store what bulk_create of the same instances did
    # (the name/type_line/text columns read from the two languages, updated_at now), without
    # building some 115,000 model instances.
    card_ids = insert_dicts(
        Card,
        [
            {
                "oracle_id": uuid.UUID(c["oracle_id"]) if c["oracle_id"] else None,
                **{f: c[f] for f in (*CARD_FIELDS, *translated)},
            }
            for c in obj["cards"]
        ],
        returning=True,
    )
    faces, rulings, pending = [], [], []
    for card_id, data in zip(card_ids, obj["cards"], strict=True):
        faces.extend(under(face, "card_id", card_id) for face in data["faces"])
        for r in data["rulings"]:
            rulings.append(_ruling_row(card_id, r))
            pending.append((card_id, r))
    insert_dicts(CardFace, faces)
    ruling_ids = insert_dicts(Ruling, rulings, returning=True)
    by_card: dict[int, list[int]] = defaultdict(list)
    for card_id, ruling_id in zip((p[0] for p in pending), ruling_ids, strict=True):
        by_card[card_id].append(ruling_id)
    grouped, links = [], []
    for ruling_id, row, (card_id, data) in zip(ruling_ids, rulings, pending, strict=True):
        if data["group"] is not None:
            grouped.append((by_card[card_id][data["group"]], ruling_id))
        for link in data["links"]:
            links.append(
                {
                    "ruling_id": ruling_id,
                    "lineage_id": lineage_of.get(link["lineage"])
                    or _lineage(link["lineage"], link["number"], lineage_of),
                    "release_id": release_of.get(dt.date.fromisoformat(link["release"]))
                    if link["release"]
                    else None,
                    "date": row["date"],
                    **{f: link[f] for f in LINK_FIELDS},
                }
            )
    update_rows(Ruling, ["group"], grouped)
    insert_dicts(RulingLink, links)
    bump_stamp()  # bulk writes send no signal: the cached pages' key moves here
    return {
        "cards": len(card_ids),
        "faces": len(faces),
        "rulings": len(rulings),
        "links": len(links),
    }


def _ruling_row(card_id: int, r: dict[str, Any]) -> dict[str, Any]:
    return {
        "card_id": card_id,
        "date": dt.date.fromisoformat(r["date"]),
        "text_hash": ruling_hash(r["text"]),
        "source_hash": ruling_hash(r["source_text"]) if r["source_text"] else "",
        "linked_at": dt.datetime.fromisoformat(r["linked_at"]) if r["linked_at"] else None,
        **{f: r[f] for f in RULING_FIELDS},
    }


def _lineage(key: str, number: str, lineage_of: dict[str, int]) -> int:
    """A link to a lineage no release of the export holds (kept, not dropped)."""
    lineage = Lineage.objects.create(key=key, kind=kind_of(number) or "rule")
    lineage_of[key] = lineage.id
    return lineage.id


__all__ = ["FILENAME", "build", "counts", "is_empty", "load"]
