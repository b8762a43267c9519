"""Validate raw card and ruling objects into plain records (no database here)."""

from __future__ import annotations

import datetime as dt
import math
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.utils.text import slugify

from kb.crtext.typography import digest
from rulings.importing.limits import (
    FIRST_DATE,
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_LENGTH,
    MAX_MANA_VALUE,
    MAX_TEXT,
    last_date,
    layout_problem,
)
from rulings.importing.sources import Malformed


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
    return _checked_text(value, key, where)


def _checked_text(value: str, key: str, where: str) -> str:
    if "\x00" in value:
        raise RecordError(where, f"“{key}” contains a NUL character")
    limit = MAX_LENGTH.get(key, MAX_TEXT)
    if len(value) > limit:
        raise RecordError(where, f"“{key}” is longer than {limit} characters ({len(value)})")
    return value


def _texts(obj: dict[str, Any], key: str, where: str) -> list[str]:
    """A list of texts (colors, keywords): a lone string is refused, not read letter by
    letter."""
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError(where, f"“{key}” must be a list of texts, not {_kind(value)}")
    if len(value) > MAX_ITEMS:
        raise RecordError(where, f"“{key}” has more than {MAX_ITEMS} items")
    return [_checked_text(v, key, where) for v in value]


def _objects(obj: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    """A list of JSON objects (faces, printings, rulings)."""
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise RecordError(where, f"“{key}” must be a list of objects, not {_kind(value)}")
    if len(value) > MAX_ITEMS:
        raise RecordError(where, f"“{key}” has more than {MAX_ITEMS} items")
    return value


def _check_depth(obj: Any, where: str) -> None:
    """Refuse objects and lists nested deeper than `MAX_DEPTH` (no card needs more than 4;
    stored JSON fields such as printings would keep any depth)."""
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RecordError(where, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def _kind(value: Any) -> str:
    return {str: "text", bool: "true/false", int: "a number", float: "a number"}.get(
        type(value), "a list with other items" if isinstance(value, list) else "an object"
    )


def _layout(obj: dict[str, Any], where: str) -> str:
    """A layout the site knows (rulings.importing.limits.LAYOUTS), or empty."""
    layout = _str(obj, "layout", where)
    problem = layout_problem(layout)
    if problem:
        raise RecordError(where, f"“layout”: {problem}")
    return layout


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


#: The French texts a card record gives (its other French data, such as a multiverse id, is
#: not read).
_FRENCH_TEXTS = ("name", "face_name", "type_line", "text")


def card_record(obj: Any, where: str) -> CardRecord:
    """A card from MTGJSON-style (shared data) or Scryfall (oracle-cards) JSON."""
    if isinstance(obj, Malformed):
        raise RecordError(where, obj.message)
    if not isinstance(obj, dict):
        raise RecordError(where, "a card must be a JSON object")
    _check_depth(obj, where)
    name = _str(obj, "name", where, required=True).strip()
    if not name:
        raise RecordError(where, "empty card name")
    oracle_id = _oracle_id(obj, where)
    scryfall = "card_faces" in obj or obj.get("object") == "card"
    faces = []
    for face in _objects(obj, "card_faces" if scryfall else "faces", where):
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
    if mana_value is not None and (
        isinstance(mana_value, bool)
        or not isinstance(mana_value, int | float)
        or not math.isfinite(mana_value)
        or not 0 <= mana_value <= MAX_MANA_VALUE
    ):
        raise RecordError(
            where,
            f"“{'cmc' if scryfall else 'mana_value'}”: mana value is not a number from 0 to "
            f"{MAX_MANA_VALUE}: {mana_value!r}",
        )
    fr = obj.get("fr")
    if fr is not None and not isinstance(fr, dict):
        raise RecordError(where, "“fr” must be an object")
    if fr:
        wrong = next(
            (k for k in _FRENCH_TEXTS if fr.get(k) is not None and not isinstance(fr[k], str)),
            None,
        )
        if wrong is not None:
            raise RecordError(where, f"fr: “{wrong}” is not text")
        fr = {k: _checked_text(v, k, f"{where}, fr") for k, v in fr.items() if isinstance(v, str)}
    record = CardRecord(
        key=oracle_id or name_key(name),
        oracle_id=oracle_id,
        name=name,
        layout=_layout(obj, where),
        mana_cost=_str(obj, "mana_cost", where),
        type_line=_str(obj, "type_line", where),
        text=text,
        power=_stat(obj, "power", where),
        toughness=_stat(obj, "toughness", where),
        loyalty=_stat(obj, "loyalty", where),
        defense=_stat(obj, "defense", where),
        mana_value=float(mana_value) if mana_value is not None else None,
        colors=_texts(obj, "colors", where),
        keywords=_texts(obj, "keywords", where),
        printings=_objects(obj, "printings", where),
        faces=faces,
        data_source=_str(obj, "data_source", where) or ("scryfall" if scryfall else ""),
        fr=fr or None,
    )
    for i, ruling in enumerate(_objects(obj, "rulings", where), start=1):
        record.rulings.append(
            ruling_record(
                {
                    "oracle_id": oracle_id,
                    "card_name": name,
                    "published_at": ruling.get("date"),
                    "comment": ruling.get("text"),
                },
                f"{where}, ruling {i}",
            )
        )
    return record


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def ruling_record(obj: Any, where: str) -> RulingRecord:
    """A ruling from Scryfall's rulings file or the shared rulings.jsonl."""
    if isinstance(obj, Malformed):
        raise RecordError(where, obj.message)
    if not isinstance(obj, dict):
        raise RecordError(where, "a ruling must be a JSON object")
    _check_depth(obj, where)
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
    if not FIRST_DATE <= date <= last_date():
        raise RecordError(
            where,
            f"“published_at” is out of range ({FIRST_DATE.isoformat()} to "
            f"{last_date().isoformat()}): {raw_date!r}",
        )
    oracle_id = _oracle_id(obj, where)
    card_name = _str(obj, "card_name", where)
    if oracle_id is None and not card_name:
        raise RecordError(where, "a ruling needs an “oracle_id” or a “card_name”")
    return RulingRecord(where, oracle_id, card_name, date, text)
