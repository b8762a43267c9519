"""What a rule is about, as words: a topic vector per keyword rule (701.x, 702.x with its
subrules) and per chapter, from its rules and the glossary entries citing them (headword
twice), weighed TF-IDF against the other topics, so that a ruling's words can be scored
against a rule's own vocabulary.

A ruling that names no rules term may still speak a rule's language: a ruling on a proliferate
card that says "you don't have to choose every permanent that has a counter" uses the words of
701.34, one on a splice card that discusses what a Swamp can target does not use 702.47's. The
linker reads a card's own keyword as the topic of such a ruling only when the words agree, and
the words that agree are the link's evidence. Read from the archive: no list to keep.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from kb.crtext.references import find_references
from kb.models import GlossaryVersion, RuleNumber, RuleVersion

#: Words too common in rules and rulings to say what either is about.
_STOP_TEXT = """a an the of to in on or and is are be been being it its it's this that these
those as by for with from at if any each can can't cannot may might would will won't you your
you're their they them he she his her not no does doesn't do don't did didn't than then there
which who whose what when whenever while was were has have had so such one two three other
another all also only into onto up out more most less number same still even just see rule rules
example player players card cards spell spells ability abilities permanent permanents creature
creatures game effect effects control controls controller owner"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
_WORD_RE = re.compile(r"[a-z][a-z'’-]*")


_SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def stem(token: str) -> str:
    """A crude English stem: enough to meet "counters" and "counter", "drawn" stays apart."""
    token = token.replace("’", "'")
    if token.endswith("'s"):
        token = token[:-2]
    for suffix, repl in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: -len(suffix)] + repl
    return token


def words(text: str) -> list[str]:
    """The stems of a text's content words."""
    return [
        stem(w) for w in _WORD_RE.findall(text.casefold()) if w.replace("’", "'") not in STOP_WORDS
    ]


@dataclass
class Agreement:
    """How much a ruling's words agree with a rule's, and the words they share."""

    score: float
    shared: tuple[str, ...]


class Topics:
    """Topic vectors of the keyword rules and chapters in force on a date, keyed by number
    ("702.94", "608")."""

    def __init__(self, date: dt.date) -> None:
        numbers = dict(RuleNumber.objects.as_of(date).values_list("lineage_id", "number"))
        texts: dict[str, list[str]] = defaultdict(list)
        for lid, text in RuleVersion.objects.as_of(date).values_list("lineage_id", "text_en"):
            key = topic_of(numbers.get(lid, ""))
            if key:
                texts[key].append(text or "")
        # A glossary entry says in plain words what the rule it cites is about.
        for headword, text in (
            GlossaryVersion.objects.as_of(date)
            .filter(obsolete=False)
            .values_list("headword", "text_en")
        ):
            cited = [r.target for r in find_references(text or "")]
            key = topic_of(cited[0]) if cited else ""
            if key in texts:
                texts[key].append(f"{headword} {headword} {text}")
        counts = {key: Counter(words(" ".join(parts))) for key, parts in texts.items()}
        df = Counter(w for c in counts.values() for w in c)
        n = len(counts) or 1
        self.idf = {w: math.log(n / d) for w, d in df.items()}
        self.vectors: dict[str, dict[str, float]] = {}
        for key, c in counts.items():
            vec = {w: (1 + math.log(k)) * self.idf[w] for w, k in c.items()}
            norm = math.sqrt(sum(x * x for x in vec.values())) or 1.0
            self.vectors[key] = {w: x / norm for w, x in vec.items()}
        # Chapters by word, so that the best chapter for a text is found without scoring all.
        self._chapters_of: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for key, vec in self.vectors.items():
            if "." not in key:
                for w, x in vec.items():
                    self._chapters_of[w].append((key, x))

    def agreement(self, text: str, key: str) -> Agreement:
        """Cosine of a text's words with a topic's, and the shared words, most telling first."""
        vec = self.vectors.get(key)
        if not vec:
            return Agreement(0.0, ())
        q = Counter(words(text))
        weights = {w: (1 + math.log(k)) * self.idf.get(w, 0.0) for w, k in q.items()}
        norm = math.sqrt(sum(x * x for x in weights.values())) or 1.0
        parts = {w: x * vec[w] for w, x in weights.items() if w in vec and x > 0}
        shared = tuple(sorted(parts, key=lambda w: -parts[w]))
        return Agreement(sum(parts.values()) / norm, shared)

    def best_chapters(self, text: str, n: int = 2) -> list[tuple[str, float]]:
        """The chapters whose words a text's words agree with most, best first (cosine)."""
        q = Counter(words(text))
        weights = {w: (1 + math.log(k)) * self.idf.get(w, 0.0) for w, k in q.items()}
        norm = math.sqrt(sum(x * x for x in weights.values())) or 1.0
        scores: Counter[str] = Counter()
        for w, x in weights.items():
            for key, y in self._chapters_of.get(w, ()):
                scores[key] += x * y / norm
        return scores.most_common(n)


def topic_of(number: str) -> str:
    """The topic a rule belongs to: its keyword rule in 701/702 ("702.94" for 702.94a), else
    its chapter ("608" for 608.2h); sections have none."""
    if not number or not number[:3].isdigit():
        return ""
    if number.startswith(("701.", "702.")):
        head, _, tail = number.partition(".")
        digits = re.match(r"\d+", tail)
        return f"{head}.{digits.group()}" if digits else ""
    return number[:3]
