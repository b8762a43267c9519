"""Which legacy rules (2009-05-01) each Magic 2010 rule (2009-07-11) came from.

Magic 2010 renumbered every rule and rewrote many: the lineage matcher, which follows a rule
from one release to the next by number and text, does not cross that line
(`Family.matches_across_layouts`). This module links the two eras by text alone, with the
evidence kept: a legacy rule found whole in a modern one (most rules: same words, the new
terms), or in parts (409.1a's sentences went to 601.2a and 602.2a; a rule merged into a
larger one). A link it is sure of is shown as the rule's past; one it is not is proposed to
maintainers, who confirm or reject it (kb.models.EraLink), and their verdict outlives
re-imports: links are keyed by the two numbers, which never change in those two releases.

Pure functions: the caller (kb.archive.eras) reads the two releases and stores the links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from kb.crtext.typography import fold

#: A whole match: this alike (Indel ratio of the normalised texts, 0..1) …
WHOLE_RATIO = 0.8
#: … and ahead of the next modern rule by this much.
WHOLE_LEAD = 0.05
#: A looser whole match, when far ahead of any other rule.
LOOSE_RATIO = 0.7
LOOSE_LEAD = 0.15
#: A sentence found in a modern rule's sentence at least this alike.
SENTENCE_RATIO = 0.85
#: Sentences shorter than this say too little to place ("Flying." "See rule 212.").
MIN_SENTENCE = 25
#: A legacy rule is found in parts when its placed sentences hold this share of its words.
PART_SHARE = 0.6
#: Below sureness, the best candidate is still proposed for review from this ratio.
PROPOSE_RATIO = 0.5

#: Magic 2010's new words, mapped onto one vocabulary for both eras (the legacy side is read
#: in modern words; "play"/"cast"/"activate" collapse, since the new rules split "play" in two).
_TERMS = [
    (r"\bremoved-from-the-game zone\b", "exile zone"),
    (r"\bremoved? from the game\b", "exiled"),
    (r"\bremoves? (.{1,40}?) from the game\b", r"exiles \1"),
    (r"\b(comes?|came|coming) into play\b", "enters the battlefield"),
    (r"\b(put|puts|putting) (.{1,40}?)into play\b", r"\1 \2onto the battlefield"),
    (r"\binto play\b", "onto the battlefield"),
    (r"\b(leaves?|left|leaving) play\b", r"\1 the battlefield"),
    (r"\bin-play zone\b", "battlefield"),
    (r"\bin play\b", "on the battlefield"),
    (r"\bstate-based effects?\b", "state-based actions"),
    (r"\b(play|cast|activate)(s|ed|ing|d)?\b", "play"),
    (r"\bhis or her\b", "their"),
]
_TERM_RES = [(re.compile(a, re.IGNORECASE), b) for a, b in _TERMS]
_NUMBER_RE = re.compile(
    r"\b(?:rules?|sections?)?\s*\d{1,3}(?:\.\d+[a-z]{0,2})?(?:[-–]\d+[a-z]*)?\b"
)
_SENTENCE_RE = re.compile(r"(?<=[.!?:])\s+(?=[A-Z\"“(])")
_SPACES_RE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Rule:
    """A numbered rule or subrule of one of the two releases."""

    number: str
    text: str


@dataclass(frozen=True, slots=True)
class Link:
    """Legacy rule `legacy` went (whole or in part) into modern rule `modern`."""

    legacy: str
    modern: str
    how: str  # "whole" or "part"
    score: float  # the ratio behind it
    sure: bool
    evidence: str  # what was found, for maintainers


def normalise(text: str) -> str:
    """A rule's words in one vocabulary: typography folded, Magic 2010's terms, no numbers."""
    text = fold(text)
    for rx, repl in _TERM_RES:
        text = rx.sub(repl, text)
    text = _NUMBER_RE.sub(" ", text)
    return _SPACES_RE.sub(" ", text).strip().lower()


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_RE.split(fold(text).replace("\n", " ")) if s.strip()]


def cross(legacy: list[Rule], modern: list[Rule]) -> list[Link]:
    """The links of every legacy rule that can be placed, sure ones and proposals.

    First whole: the most alike modern rule, when alike enough and clearly ahead of the next.
    Otherwise in parts: each sentence of the legacy rule found in a sentence of a modern rule;
    when those sentences hold most of its words, a link to each modern rule holding some.
    Otherwise the most alike modern rule is proposed, for maintainers to confirm or reject.
    """
    if not legacy or not modern:
        return []
    old = [normalise(r.text) for r in legacy]
    new = [normalise(r.text) for r in modern]
    scores = process.cdist(old, new, scorer=fuzz.ratio, workers=1, dtype=np.int16)
    new_sentences: list[str] = []
    owner: list[int] = []
    for j, r in enumerate(modern):
        for s in sentences(r.text):
            if len(s) >= MIN_SENTENCE:
                new_sentences.append(normalise(s))
                owner.append(j)
    owners = np.array(owner)
    links: list[Link] = []
    for i, rule in enumerate(legacy):
        row = scores[i]
        order = np.argsort(-row, kind="stable")[:2]
        best = int(order[0])
        first = row[best] / 100
        second = row[int(order[1])] / 100 if len(order) > 1 else 0.0
        if (first >= WHOLE_RATIO and first - second >= WHOLE_LEAD) or (
            first >= LOOSE_RATIO and first - second >= LOOSE_LEAD
        ):
            links.append(
                Link(
                    rule.number,
                    modern[best].number,
                    "whole",
                    first,
                    True,
                    f"{first:.0%} alike; next {modern[int(order[1])].number} {second:.0%}",
                )
            )
            continue
        parts = _parts(rule, new_sentences, owners, modern)
        if parts:
            links.extend(parts)
            continue
        if first >= PROPOSE_RATIO:
            links.append(
                Link(
                    rule.number,
                    modern[best].number,
                    "whole",
                    first,
                    False,
                    f"{first:.0%} alike; next {modern[int(order[1])].number} {second:.0%}",
                )
            )
    return links


def _parts(
    rule: Rule, new_sentences: list[str], owners: np.ndarray, modern: list[Rule]
) -> list[Link]:
    mine = [normalise(s) for s in sentences(rule.text)]
    total = sum(len(s.split()) for s in mine) or 1
    placed: dict[int, list[tuple[str, float]]] = {}
    covered = 0
    for s in mine:
        if len(s) < MIN_SENTENCE or not new_sentences:
            continue
        found = process.extractOne(
            s, new_sentences, scorer=fuzz.ratio, score_cutoff=SENTENCE_RATIO * 100
        )
        if found is None:
            continue
        _text, score, k = found
        placed.setdefault(int(owners[k]), []).append((s, score / 100))
        covered += len(s.split())
    if not placed or covered / total < PART_SHARE:
        return []
    share = covered / total
    return [
        Link(
            rule.number,
            modern[j].number,
            "part",
            min(sc for _s, sc in found),
            True,
            f"{len(found)} of its {len(mine)} sentences here ({share:.0%} of its words placed)",
        )
        for j, found in sorted(placed.items())
    ]


#: A modern chapter came from the legacy chapter that gave it at least this share of the
#: rules linked into it …
CHAPTER_SHARE = 0.5
#: … and at least this many of them.
CHAPTER_RULES = 2


def cross_chapters(
    links: list[Link], legacy_chapters: list[Rule], modern_chapters: list[Rule]
) -> list[Link]:
    """Chapters follow their rules: a 2009-07-11 chapter came from the 2009-05-01 chapter most
    of its linked rules came from (603 "Handling Triggered Abilities" from 410, whose rules it
    holds). Titles alone say too little ("General" is the title of a dozen chapters)."""
    legacy_titles = {r.number: r.text for r in legacy_chapters}
    counts: dict[str, dict[str, int]] = {}
    for link in links:
        if not link.sure:
            continue
        mine = counts.setdefault(link.modern.split(".")[0], {})
        source = link.legacy.split(".")[0]
        mine[source] = mine.get(source, 0) + 1
    out = []
    for chapter in modern_chapters:
        sources = counts.get(chapter.number)
        if not sources:
            continue
        total = sum(sources.values())
        best, n = max(sources.items(), key=lambda kv: (kv[1], kv[0]))
        share = n / total
        if best in legacy_titles and n >= CHAPTER_RULES and share >= CHAPTER_SHARE:
            out.append(
                Link(
                    best,
                    chapter.number,
                    "whole" if share >= 0.9 else "part",
                    share,
                    True,
                    f"{n} of the {total} rules linked into it came from {best}",
                )
            )
    return out
