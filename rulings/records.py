"""Validate raw card and ruling objects into plain records (no database here)."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.utils.text import slugify

from kb.crtext.typography import digest

from .sources import _Malformed


class RecordError(ValueError):
    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


@dataclass
class CardRecord:
    key: str
    oracle_id: str | None
    name: str
    layout: str
    mana_cost: str
    type_line: str
    text: str
    power: str
    toughness: str
    loyalty: str
    defense: str
    mana_value: float | None
    colors: list[str]
    keywords: list[str]
    printings: list[dict[str, Any]]
    faces: list[dict[str, str]]
    data_source: str
    fr: dict[str, str] | None  # name, face_name, type_line, text (MTGJSON data only)
    rulings: list[RulingRecord] = field(default_factory=list)


@dataclass
class RulingRecord:
    where: str
    oracle_id: str | None
    card_name: str
    date: dt.date
    text: str

    @property
    def text_hash(self) -> str:
        return ruling_hash(self.text)


def ruling_hash(text: str) -> str:
    """Identity of a ruling's text (whitespace folded): sources give rulings no id."""
    return digest((" ".join(text.split()),))


def name_key(name: str) -> str:
    """The stable key of a card the source gives no Oracle id: its English name."""
    return "name:" + slugify(name)[:70]


def _str(obj: dict[str, Any], key: str, where: str, *, required: bool = False) -> str:
    value = obj.get(key)
    if value is None:
        if required:
            raise RecordError(where, f"missing “{key}”")
        return ""
    if not isinstance(value, str):
        raise RecordError(where, f"“{key}” is not text")
    return value


def _stat(obj: dict[str, Any], key: str, where: str) -> str:
    """Power, toughness, loyalty, defense: text ("*", "1+*") or, in older data, a number."""
    value = obj.get(key)
    if isinstance(value, bool):
        raise RecordError(where, f"“{key}” is not text or a number")
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else str(value)
    return _str(obj, key, where)


def _oracle_id(obj: dict[str, Any], where: str) -> str | None:
    value = obj.get("oracle_id")
    if value in (None, ""):
        return None
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise RecordError(where, f"“oracle_id” is not a UUID: {value!r}") from None


def card_record(obj: Any, where: str) -> CardRecord:
    """A card from MTGJSON-style (shared data) or Scryfall (oracle-cards) JSON."""
    if isinstance(obj, _Malformed):
        raise RecordError(where, obj.message)
    if not isinstance(obj, dict):
        raise RecordError(where, "a card must be a JSON object")
    name = _str(obj, "name", where, required=True).strip()
    if not name:
        raise RecordError(where, "empty card name")
    oracle_id = _oracle_id(obj, where)
    scryfall = "card_faces" in obj or obj.get("object") == "card"
    faces_src = obj.get("card_faces" if scryfall else "faces") or []
    if not isinstance(faces_src, list):
        raise RecordError(where, "faces must be a list")
    faces = []
    for face in faces_src:
        if not isinstance(face, dict):
            raise RecordError(where, "a face must be a JSON object")
        faces.append(
            {
                "name": _str(face, "name", where, required=True),
                "mana_cost": _str(face, "mana_cost", where),
                "type_line": _str(face, "type_line", where),
                "text": _str(face, "oracle_text", where),
                "power": _stat(face, "power", where),
                "toughness": _stat(face, "toughness", where),
                "loyalty": _stat(face, "loyalty", where),
            }
        )
    text = _str(obj, "oracle_text", where)
    if not text and faces:
        text = "\n//\n".join(f["text"] for f in faces)
    mana_value = obj.get("cmc" if scryfall else "mana_value")
    if mana_value is not None and not isinstance(mana_value, int | float):
        raise RecordError(where, "mana value is not a number")
    fr = obj.get("fr")
    if fr is not None and not isinstance(fr, dict):
        raise RecordError(where, "“fr” must be an object")
    record = CardRecord(
        key=oracle_id or name_key(name),
        oracle_id=oracle_id,
        name=name,
        layout=_str(obj, "layout", where),
        mana_cost=_str(obj, "mana_cost", where),
        type_line=_str(obj, "type_line", where),
        text=text,
        power=_stat(obj, "power", where),
        toughness=_stat(obj, "toughness", where),
        loyalty=_stat(obj, "loyalty", where),
        defense=_stat(obj, "defense", where),
        mana_value=float(mana_value) if mana_value is not None else None,
        colors=[c for c in obj.get("colors") or [] if isinstance(c, str)],
        keywords=[k for k in obj.get("keywords") or [] if isinstance(k, str)],
        printings=[p for p in obj.get("printings") or [] if isinstance(p, dict)],
        faces=faces,
        data_source=_str(obj, "data_source", where) or ("scryfall" if scryfall else ""),
        fr={k: v for k, v in fr.items() if isinstance(v, str)} if fr else None,
    )
    for i, ruling in enumerate(obj.get("rulings") or [], start=1):
        record.rulings.append(
            ruling_record(
                {
                    "oracle_id": oracle_id,
                    "card_name": name,
                    "published_at": (ruling or {}).get("date"),
                    "comment": (ruling or {}).get("text"),
                },
                f"{where}, ruling {i}",
            )
        )
    return record


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def ruling_record(obj: Any, where: str) -> RulingRecord:
    """A ruling from Scryfall's rulings file or the shared rulings.jsonl."""
    if isinstance(obj, _Malformed):
        raise RecordError(where, obj.message)
    if not isinstance(obj, dict):
        raise RecordError(where, "a ruling must be a JSON object")
    text = _str(obj, "comment", where, required=True).strip()
    if not text:
        raise RecordError(where, "empty ruling text")
    raw_date = obj.get("published_at")
    if not isinstance(raw_date, str) or not _DATE_RE.match(raw_date):
        raise RecordError(where, f"“published_at” is not a YYYY-MM-DD date: {raw_date!r}")
    try:
        date = dt.date.fromisoformat(raw_date)
    except ValueError:
        raise RecordError(where, f"“published_at” is not a valid date: {raw_date!r}") from None
    oracle_id = _oracle_id(obj, where)
    card_name = _str(obj, "card_name", where)
    if oracle_id is None and not card_name:
        raise RecordError(where, "a ruling needs an “oracle_id” or a “card_name”")
    return RulingRecord(where, oracle_id, card_name, date, text)
