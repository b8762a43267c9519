"""Rules terms the Comprehensive Rules define themselves: glossary entries and chapter titles.

A glossary entry names a rules term and cites the rules that define it ("Mana Pool: Where mana
created by an effect is temporarily stored. See rule 106.4."); a chapter's title names what its
rules are about ("Declare Blockers Step", "Copying Objects"). A ruling naming such a term leans
on those rules. Read from the archive, so the terms follow the releases with no list to keep.

Many terms are everyday words of the game ("creature", "spell", "mana cost", "target"): named in
most rulings, they say nothing about which rule a ruling is about. Which ones is measured, not
listed: a term the rules themselves write more than EVERYDAY_IN_RULES times is everyday.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kb.crtext.numbers import kind_of
from kb.crtext.references import find_references
from kb.models import GlossaryVersion, RuleNumber, RuleVersion
from kb.models.glossary import alias_list
from rulings.linking.terms import WORD_RE, Term, word

#: A term the rules write more often than this is an everyday word of the game, not a topic
#: (tuned on the dev set: "triggered ability" and "combat damage" are everyday by this measure,
#: "mana pool", "last known information" and "declare blockers step" are not).
EVERYDAY_IN_RULES = 15
#: Words a term must have more of than these to be read at all: a one-word term is a keyword
#: (read as such), a card type or an everyday word far more often than a rules topic.
MIN_WORDS = 2
#: Chapters whose titles are keywords, read with their inflections by `terms`.
KEYWORD_CHAPTERS = ("701", "702")
_SEE_RE = re.compile(r"^See (?:also )?[“\"]?([^.”\"]+)[.”\"]", re.IGNORECASE)
_OBSOLETE_RE = re.compile(r"\s*\(Obsolete\)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Defined:
    """A term the rules define: its names and the rule that defines it."""

    names: tuple[str, ...]
    number: str


@dataclass
class DefinedTerms:
    """The terms the rules define, indexed by first word (longest forms first)."""

    terms: list[Term]
    #: The terms specific enough to say what a ruling is about.
    specific: dict[str, list[tuple[tuple[str, ...], Term]]]
    #: Every term of two words or more: a heading ("The following rulings focus on what it
    #: means if your life total can't change") names its topic, everyday or not.
    named: dict[str, list[tuple[tuple[str, ...], Term]]]


def defined_terms(
    date: dt.date, lineage_now: Callable[[str], int | None], keywords: Iterable[str]
) -> DefinedTerms:
    """Terms for the glossary entries and chapter titles in force on a date (keywords aside:
    `terms` reads them with their inflections)."""
    skip = {k.casefold() for k in keywords}
    entries = [*_glossary(date), *_chapter_titles(date)]
    counts = _counts_in_rules(date, {f for e in entries for n in e.names for f in forms_of(n)})
    out = DefinedTerms([], {}, {})
    for entry in entries:
        lid = lineage_now(entry.number)
        if lid is None:
            continue
        term = Term(re.compile("$^"), lid, 2)
        out.terms.append(term)
        for name in entry.names:
            forms = forms_of(name)
            if len(forms[0]) < MIN_WORDS or " ".join(forms[0]) in skip:
                continue
            everyday = sum(counts[f] for f in forms) > EVERYDAY_IN_RULES
            for form in forms:
                out.named.setdefault(form[0], []).append((form, term))
                if not everyday:
                    out.specific.setdefault(form[0], []).append((form, term))
    for index in (out.specific, out.named):
        for candidates in index.values():
            candidates.sort(key=lambda c: -len(c[0]))
    return out


def forms_of(name: str) -> list[tuple[str, ...]]:
    """A term's words as rulings write them, singular and plural ("split card", "split
    cards"; "mana ability", "mana abilities")."""
    words = tuple(word(w) for w in WORD_RE.findall(name))
    if not words:
        return [()]
    forms = _inflected(words)
    # "type-changing effect" is also written "type changing effect".
    split = tuple(part for w in words for part in w.split("-"))
    return forms + (_inflected(split) if split != words else [])


def _inflected(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    *head, last = words
    if last.endswith("ies"):
        other = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith("ss"):
        other = last[:-1]
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "o", "u"):
        other = last[:-1] + "ies"
    else:
        other = last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s")
    return [words, (*head, other)]


def _glossary(date: dt.date) -> list[Defined]:
    """Glossary entries with the first rule they cite; an entry that only points at another
    ("Deal: See Damage.") cites what that one cites."""
    rows = list(
        GlossaryVersion.objects.as_of(date)
        .filter(obsolete=False)
        .values_list("headword", "aliases", "text_en")
    )
    cited: dict[str, str] = {}
    pointers: dict[str, str] = {}
    names: dict[str, tuple[str, ...]] = {}
    for headword, aliases, text in rows:
        key = _OBSOLETE_RE.sub("", headword).casefold()
        names[key] = tuple(alias_list(aliases) or [headword])
        number = _defining(r.target for r in find_references(text))
        if number:
            cited[key] = number
        elif m := _SEE_RE.match(text.strip()):
            pointers[key] = m.group(1).strip().casefold()
    for key, target in pointers.items():
        if target in cited:
            cited[key] = cited[target]
    return [Defined(names[k], n) for k, n in cited.items()]


def _defining(numbers: Iterable[str]) -> str:
    """The rule an entry cites that defines it: a keyword rule if it cites one ("Phased
    In, Phased Out": 702.26 rather than 110.5, the statuses), else the first it cites."""
    cited = [n for n in numbers if kind_of(n) != "section"]
    return next((n for n in cited if n.startswith(KEYWORD_CHAPTERS)), cited[0] if cited else "")


def _chapter_titles(date: dt.date) -> list[Defined]:
    """Chapters outside the keyword chapters, by their title ("Mana Abilities": 605)."""
    rows = (
        RuleNumber.objects.as_of(date).filter(kind="chapter").exclude(number__in=KEYWORD_CHAPTERS)
    )
    numbers = dict(rows.values_list("lineage_id", "number"))
    return [
        Defined((title,), numbers[lid])
        for lid, title in RuleVersion.objects.as_of(date)
        .filter(lineage__in=list(numbers))
        .values_list("lineage_id", "text_en")
        if title and len(title) <= 60 and "." not in title
    ]


def _counts_in_rules(date: dt.date, forms: set[tuple[str, ...]]) -> Counter[tuple[str, ...]]:
    """How often the rules in force on a date write each form (one pass over their words)."""
    lengths = sorted({len(f) for f in forms if f})
    counts: Counter[tuple[str, ...]] = Counter()
    for text in RuleVersion.objects.as_of(date).values_list("text_en", flat=True).iterator():
        words = [word(w) for w in WORD_RE.findall(text or "")]
        for i in range(len(words)):
            for n in lengths:
                gram = tuple(words[i : i + n])
                if gram in forms:
                    counts[gram] += 1
    return counts
