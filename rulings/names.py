"""Find cards by name: case, accents, punctuation and small typos do not matter; face names
find their card ("Fire" finds Fire // Ice); French names find the card (all of the cards that
share one); prefix matches come first.

The index lives in each process's memory (about 45,000 names) and is rebuilt when the cards
change (one indexed MAX query per lookup tells).
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass

from django.db.models import Count, Max
from rapidfuzz import fuzz, process

from rulings.models import Card, CardFace, Ruling
from search.analysis import fold

_PUNCT_RE = re.compile(r"[^\w\s]|_")
#: Fuzzy matches below this score (0-100) are not offered.
FUZZY_CUTOFF = 72
#: Points a unit of how well known a card is (log of printings, half log of rulings) is
#: worth: Lightning Bolt (30 printings, 8 rulings) gets about 5 more than Lightning Blow.
KNOWN_WEIGHT = 1.5
#: What matching a face's name rather than the card's costs: more than being well known
#: can give back.
FACE_PENALTY = 10.0
#: Names read for a prefix before ranking (in name order): enough that a well-known card
#: is among them whatever lesser names sort first.
PREFIX_CANDIDATES = 100


def normalize(text: str) -> str:
    """Casefolded, accents stripped, apostrophes dropped ("teferis" is how "Teferi's" is
    typed), other punctuation a space, spaces collapsed."""
    plain = fold(text.casefold()).replace("æ", "ae").replace("œ", "oe")
    plain = plain.replace("'", "").replace("’", "")
    return " ".join(_PUNCT_RE.sub(" ", plain).split())


@dataclass(frozen=True)
class Match:
    card_id: int
    name: str  # the name that matched (English, French or a face)
    lang: str  # en or fr
    score: float
    #: How it matched: "exact" (the whole name), "prefix", "word" (a later word's start) or
    #: "close" (a close spelling of the whole name; `closeness` its ratio, 0-100).
    how: str = "exact"
    closeness: float = 100.0


class NameIndex:
    """All names of all cards, normalised and sorted, with a second sorted list of every
    name's word starts ("destined savior" from "aang destined savior"): prefix and
    word-prefix lookups are bisections; typos fall back to a whole-name fuzzy ratio."""

    def __init__(self, generation: object) -> None:
        self.generation = generation
        names: list[str] = []
        # (card id, display name, lang, whether the name is one face's, not the card's)
        entries: list[tuple[int, str, str, bool]] = []

        def add(cid: int, name: str, lang: str, part: bool = False) -> None:
            key = normalize(name)
            if key:
                names.append(key)
                entries.append((cid, name, lang, part))

        rulings = dict(
            Ruling.objects.order_by()
            .values("card_id")
            .annotate(n=Count("id"))
            .values_list("card_id", "n")
        )
        #: How well known each card is: printed often, ruled on often (issue 35: "lightning
        #: b" means Lightning Bolt, printed 30 times, before Lightning Blow, printed twice).
        self.known: dict[int, float] = {}
        for cid, en, fr, fr_face, printings in Card.objects.values_list(
            "id", "name_en", "name_fr", "fr_face_name", "printings"
        ):
            self.known[cid] = math.log1p(len(printings or ())) + 0.5 * math.log1p(
                rulings.get(cid, 0)
            )
            add(cid, en, "en")
            if fr:
                add(cid, fr, "fr")
                for half in fr.split(" // ") if " // " in fr else ():
                    add(cid, half, "fr", part=True)
            if fr_face and fr_face != fr:
                add(cid, fr_face, "fr", part=True)
        for cid, name, name_fr in CardFace.objects.values_list("card_id", "name", "name_fr"):
            add(cid, name, "en", part=True)
            if name_fr:
                add(cid, name_fr, "fr", part=True)
        order = sorted(range(len(names)), key=names.__getitem__)
        self.names = [names[i] for i in order]
        self.entries = [entries[i] for i in order]
        starts = [
            (name[k:], i)
            for i, name in enumerate(self.names)
            for k in [m.start() for m in re.finditer(r"(?<= )\w", name)]
        ]
        starts.sort()
        self.word_keys = [k for k, _ in starts]
        self.word_index = [i for _, i in starts]
        self.compact = [n.replace(" ", "") for n in self.names]

    def search(self, query: str, limit: int = 20, least: float = 0.0) -> list[Match]:
        """Best matches, one per card: exact, prefix, word prefix, then close spellings (as
        close as FUZZY_CUTOFF, or `least` where higher: a caller wanting only near-certain
        corrections asks for fewer, and the spelling search prunes faster)."""
        q = normalize(query)[:100]
        if not q:
            return []
        found: dict[int, Match] = {}

        def add(i: int, score: float, how: str, closeness: float = 100.0) -> None:
            cid, name, lang, part = self.entries[i]
            # A card named exactly so ranks above a card with a face so named ("Lightning
            # Bolt" above "Emeritus of Conflict // Lightning Bolt"), however well known.
            score -= FACE_PENALTY if part else 0
            # Among names that match as well, the better known card first: a few points,
            # worth a few letters of length.
            score += KNOWN_WEIGHT * self.known.get(cid, 0.0)
            if cid not in found or found[cid].score < score:
                found[cid] = Match(cid, name, lang, score, how, closeness)

        for i in _prefixed(self.names, q, max(limit * 4, PREFIX_CANDIDATES)):
            exact = self.names[i] == q
            score = 400 if exact else 300 - min(len(self.names[i]) - len(q), 99)
            add(i, score, "exact" if exact else "prefix")
        if len(found) < limit:
            for j in _prefixed(self.word_keys, q, max(limit * 4, PREFIX_CANDIDATES)):
                i = self.word_index[j]
                add(i, 200 - min(len(self.names[i]) - len(q), 99), "word")
        if len(found) < limit and len(q) >= 4:
            # Typos and spacing: the whole name, spaces kept and dropped ("thought seize");
            # more than asked for, as equally close names are then ranked by how well known
            # their cards are ("lightnig blot": Lightning Bolt before Lightning Blow).
            fuzzy = max(limit * 4, PREFIX_CANDIDATES // 5)
            cutoff = max(FUZZY_CUTOFF, least)
            # Spaces dropped catches typos and spacing alike; the spaced names are read too
            # for lists (the Cards page), not for a near-certain correction (`least`), which
            # is asked on every card-like search and must cost one pass over the names.
            passes = [(q.replace(" ", ""), self.compact)]
            if not least:
                passes.insert(0, (q, self.names))
            for typed, names in passes:
                scores = process.extract(
                    typed, names, scorer=fuzz.QRatio, limit=fuzzy, score_cutoff=cutoff
                )
                for _, score, i in scores:
                    add(i, score, "close", score)
        return sorted(found.values(), key=lambda m: (-m.score, m.name))[:limit]


def _prefixed(keys: list[str], q: str, cap: int) -> list[int]:
    """Positions of the keys starting with q (at most cap, shortest names first)."""
    lo = _bisect(keys, q)
    out = []
    i = lo
    while i < len(keys) and keys[i].startswith(q) and len(out) < cap:
        out.append(i)
        i += 1
    return out


def _bisect(names: list[str], q: str) -> int:
    lo, hi = 0, len(names)
    while lo < hi:
        mid = (lo + hi) // 2
        if names[mid] < q:
            lo = mid + 1
        else:
            hi = mid
    return lo


_index: NameIndex | None = None
_lock = threading.Lock()


def name_index() -> NameIndex:
    """The process's index, rebuilt when cards were imported since it was built."""
    global _index
    # One MAX on an indexed column (an index seek): cards are never deleted, and both
    # creating and updating a card sets updated_at.
    key = Card.objects.aggregate(last=Max("updated_at"))["last"]
    if _index is None or _index.generation != key:
        with _lock:
            if _index is None or _index.generation != key:
                _index = NameIndex(key)
    return _index


def search_cards(query: str, limit: int = 20, least: float = 0.0) -> list[Match]:
    return name_index().search(query, limit, least)
