"""French names, type lines and texts of a multi-face card, face by face.

The source gives a card's French data as one record (name, printed face name, type line, text)
shaped by the printing it came from, and often wrong for cards with several faces:

* the name may repeat itself ("Experimental Lab // Staff Room // Experimental Lab // Staff
  Room"), keep a face in English ("Émérite du conflit // Lightning Bolt": the spell face was
  never translated in the data), or name one face only ("Akki Lavarunner");
* the type line and text cover the printed (first) face only, except in older records where
  the other faces follow the first one's text after a "//" or "-----" line, as
  "Name / {cost} / Type / P/T / text".

`french_faces` splits this into one French name, type line and text per face, and leaves empty
what the data does not give in French: pages then say so, and search never treats an English
face name as a French one (a card whose French name held "Lightning Bolt" ranked above the real
Lightning Bolt for "lightning bolt").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

_SEPARATOR = re.compile(r"\n(?://|-{3,})\n")
_COST = re.compile(r"^(?:\{[^}]+\})+$")
_PT = re.compile(r"^[\d*+X−-]+/[\d*+X−-]+$")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
#: Tell-tale English words: some "French" texts of the source are the English text.
_ENGLISH = re.compile(r"\b(?:the|you|your|of|creature|target|with|when)\b", re.IGNORECASE)


@dataclass
class FrenchFace:
    name: str = ""
    type_line: str = ""
    text: str = ""


@dataclass
class FrenchCard:
    faces: list[FrenchFace] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The French names of the faces that have one, in face order."""
        return " // ".join(f.name for f in self.faces if f.name)

    @property
    def type_line(self) -> str:
        return " // ".join(f.type_line for f in self.faces if f.type_line)

    @property
    def text(self) -> str:
        return "\n//\n".join(f.text for f in self.faces if f.text)

    @property
    def printed_face_name(self) -> str:
        return self.faces[0].name if self.faces else ""


def undouble(name: str) -> list[str]:
    """The halves of a French name, a repeated list said once ("A // B // A // B" -> A, B)."""
    halves = [h.strip() for h in name.split(" // ") if h.strip()]
    n = len(halves)
    if n % 2 == 0 and n and halves[: n // 2] == halves[n // 2 :]:
        halves = halves[: n // 2]
    return halves


def _parse_part(part: str) -> FrenchFace:
    """A face printed after the first one in an older record: "Name / {cost} / Type / P/T /
    text" (cost and P/T optional)."""
    lines = [line.strip() for line in part.strip().split("\n")]
    face = FrenchFace(name=lines.pop(0) if lines else "")
    if lines and _COST.match(lines[0]):
        lines.pop(0)
    if lines:
        face.type_line = lines.pop(0)
    if lines and _PT.match(lines[0]):
        lines.pop(0)
    face.text = "\n".join(lines).strip()
    return face


def french_faces(
    english: Sequence[str],
    fr: dict[str, object] | None,
    is_french_word: Callable[[str], bool] = lambda word: False,
) -> FrenchCard:
    """One French name, type line and text per English face name in `english`; empty where the
    data has no French. A French name equal to the English one counts only when each of its
    words is French (`is_french_word`: printed in French card texts), so "Collision" or
    "Statue" stay while "Lightning Bolt" and "Jump" go."""
    card = FrenchCard([FrenchFace() for _ in english])
    if not fr or not english:
        return card
    halves = undouble(str(fr.get("name") or ""))
    parts = _SEPARATOR.split(str(fr.get("text") or "").strip()) if fr.get("text") else []
    types = [t.strip() for t in str(fr.get("type_line") or "").split(" // ") if t.strip()]
    for i, face in enumerate(card.faces):
        if i < len(halves):
            face.name = halves[i]
        if i == 0 and parts:
            face.text = parts[0].strip()
        elif i < len(parts):
            later = _parse_part(parts[i])
            face.name = face.name or later.name
            face.type_line, face.text = later.type_line, later.text
        if i < len(types) and (i == 0 or len(types) == len(english)):
            face.type_line = types[i]
    for face, en in zip(card.faces, english, strict=True):
        if face.name.casefold() == en.casefold() and not all(
            is_french_word(w.casefold()) for w in _WORD.findall(face.name)
        ):
            face.name = ""  # the English name left in the French data
    return card


def french_words(texts: Sequence[str]) -> set[str]:
    """The words printed in French card texts: what tells a French name that happens to be
    spelled like the English one ("Collision") from an untranslated one ("Jump")."""
    words: set[str] = set()
    for text in texts:
        if not _ENGLISH.search(text):
            words.update(w.casefold() for w in _WORD.findall(text))
    return words
