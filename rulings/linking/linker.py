"""Weighing the terms a ruling names into its links, most trusted first."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from kb.crtext.references import find_references
from rulings.importing.headings import heading_title, heading_topic
from rulings.linking.context_rules import (
    Reading,
    inside,
    keyword_case,
    named_as_lacking,
    names_one,
    names_own_ability,
)
from rulings.linking.defined_terms import defined_terms
from rulings.linking.lineage_numbers import MODERN_CR, Numbers
from rulings.linking.literals import may_match, prefilterable, required_literals
from rulings.linking.terms import (
    EVERGREEN,
    EVERYDAY,
    NO_TERM,
    STRUCTURAL,
    WORD_RE,
    Term,
    curated_terms,
    keyword_terms,
    word,
)
from rulings.linking.topics import Agreement, Topics, topic_of

#: Links kept per ruling (the most trusted first), of which curated rules concepts at most
#: MAX_CONCEPTS: a ruling is usually about one concept; more are mostly incidental mentions.
MAX_LINKS = 3
MAX_CONCEPTS = 2
#: How well a ruling that names no rules term must agree with a keyword's rules of its card
#: (cosine of their words, `topics`) to be read as about that keyword (tuned on the dev set).
FALLBACK_AGREEMENT = 0.06
#: Of several keywords, the one a ruling agrees with most, when the next is under half as close.
FALLBACK_MARGIN = 0.5
#: A ruling that names nothing is read as about the chapter whose words it speaks when the
#: cosine reaches TOPIC_AGREEMENT and the next chapter's is under TOPIC_MARGIN of it.
#: (Tuned on the dev set: from 0.3 down it adds more wrong links than right ones.)
TOPIC_AGREEMENT = 0.35
TOPIC_MARGIN = 0.8
#: ... and shares at least this many words with it (one word is a coincidence).
TOPIC_WORDS = 2
#: Terms the rules define rank after the curated concepts (which read context).
DEFINED_TRUST = 2


@dataclass(frozen=True)
class Found:
    lineage_id: int
    evidence: str
    kind: str  # cited or inferred
    trust: int  # lower is more trusted
    concept: bool = False  # from the curated list (at most MAX_CONCEPTS kept)


class Linker(Numbers):
    """Finds rules terms in ruling texts; built once per run from the archive."""

    def __init__(self) -> None:
        super().__init__()
        keywords = keyword_terms(self.current)
        curated, unresolved = curated_terms(self.lineage_now)
        self.unresolved = unresolved  # curated rules the current release does not have
        self.terms: list[Term] = [*keywords.terms, *curated]
        self._keyword_named = keywords.named
        self._by_first = keywords.by_first
        self._term_of = {t.lineage_id: t for t in self.terms}
        self._curated = [t for t in self.terms if not t.keyword]
        self._prefilters = [required_literals(t.pattern) for t in self._curated]
        self._ability_names = sorted(
            (k for k, t in self._keyword_named.items() if t.ability), key=len, reverse=True
        )
        # Glossary entries and chapter titles, read after the curated concepts (which know
        # context) and never in their spans.
        self.defined = defined_terms(self.current, self.lineage_now, keywords.named)
        self.topics = Topics(self.current)

    def card_keywords(self, keywords: Iterable[str], texts: Iterable[str]) -> list[str]:
        """A card's keywords: those its record lists, and those its Oracle text prints.

        Part of the card sources list none (the older MTGJSON files: 8,096 cards), though
        their text prints "Flying" or "Suspend 2—{2}{B}{B}". A keyword ability is read from a
        keyword line (keywords alone, commas between them, no sentence); a keyword action
        wherever the text uses it ("Scry 2."), as the newer source lists them, except everyday
        verbs ("destroy"), which every source leaves out.
        """
        out = {k.casefold(): k for k in keywords}
        for text in texts:
            for line in (text or "").splitlines():
                for name in self._keyword_line(line):
                    out.setdefault(name, name)
            for _s, _e, _form, term in _word_matches(self._by_first, text or ""):
                if not term.ability and term.keyword not in EVERYDAY:
                    out.setdefault(term.keyword, term.keyword)
        return list(out.values())

    def _keyword_line(self, line: str) -> list[str]:
        """The keyword abilities a line of Oracle text consists of ("First strike, vigilance",
        "Enchant creature", "Protection from red"); none when it is a sentence."""
        line = _REMINDER_RE.sub("", line).strip()
        if not line or line.endswith(".") or ":" in line:
            return []
        names = []
        for item in re.split(r"[,;]\s*", line.casefold()):
            name = next((n for n in self._ability_names if _starts_with(item, n)), None)
            if name is None:
                return []
            names.append(name)
        return names

    def find(
        self,
        text: str,
        date: dt.date,
        card_names: Iterable[str],
        keywords: Iterable[str],
        heading: str = "",
    ) -> list[Found]:
        """The rules a ruling leans on, most trusted first, at most MAX_LINKS. A ruling
        listed under a heading ("The following rulings focus on the phasing keyword") leans
        on the rules the heading names first, with the heading as evidence."""
        if heading:
            return self._under_heading(text, date, card_names, keywords, heading)
        ruling = Reading.of(text, card_names, keywords)
        found, taken = self._named(ruling, date, self.defined.specific)
        if not found and not taken:
            self._fallback(ruling, found)
        if not found and not taken:
            self._topic(ruling, found)
        return _ranked(found, text)

    def _named(
        self, ruling: Reading, date: dt.date, defined: dict[str, list]
    ) -> tuple[dict[int, Found], list]:
        """What a text names: citations, keywords, curated concepts, terms the rules define
        (those of the `defined` index), and the spans read as any of them."""
        found = self._citations(ruling.text, date)
        taken = self._keywords(ruling, found)
        self._concepts(ruling, taken, found)
        self._defined(ruling, taken, found, defined)
        return self._prune(found, ruling.own), taken

    def _under_heading(
        self,
        text: str,
        date: dt.date,
        card_names: Iterable[str],
        keywords: Iterable[str],
        heading: str,
    ) -> list[Found]:
        """The rules the heading names (not guessed from the card: a heading names its
        topic), then the ruling's own."""
        card_names, keywords = list(card_names), list(keywords)
        topic = heading_topic(heading)
        named, _taken = self._named(
            Reading.of(topic, card_names, keywords), date, self.defined.named
        )
        evidence = (heading_title(heading) or heading)[:200]
        found = {
            f.lineage_id: Found(f.lineage_id, evidence, f.kind, 0) for f in _ranked(named, topic)
        }
        for f in self.find(text, date, card_names, keywords):
            found.setdefault(f.lineage_id, f)
        return list(found.values())[:MAX_LINKS]

    def _citations(self, text: str, date: dt.date) -> dict[int, Found]:
        """Explicit rule numbers, resolved as they stood on the ruling's date."""
        found: dict[int, Found] = {}
        cited_at = date if date >= MODERN_CR else MODERN_CR
        for ref in find_references(text):
            lid = self.lineage_at(ref.target, cited_at) or self.lineage_now(ref.target)
            if lid is not None:
                found.setdefault(lid, Found(lid, text[ref.start : ref.end], "cited", 0))
        return found

    def _keywords(self, ruling: Reading, found: dict[int, Found]) -> list[tuple[int, int]]:
        """Add the keywords named; returns the spans of all it read as keywords.

        A keyword named only as an example ("cost increases (such as kicker)") is not what the
        ruling is about, whoever's keyword it is (the card's own: a general ruling printed on
        every card of the set; another's: an illustration, wrong 7 times in 8 on the labelled
        sets when it was kept as a weak link). Another card's keyword named
        as what a creature lacks ("creatures without flying") only says which ones are meant.
        """
        masked, own = ruling.masked, ruling.own
        taken: list[tuple[int, int]] = []
        seen: set[int] = set()
        for start, end, form, term in self._keyword_matches(masked):
            if term.lineage_id in seen:
                continue
            if term.keyword in EVERYDAY and term.keyword not in own:
                continue
            if not keyword_case(masked, start, form):
                continue
            seen.add(term.lineage_id)
            taken.append((start, end))
            if inside(start, ruling.examples):
                continue
            if term.keyword not in own and named_as_lacking(masked, start):
                continue
            trust = 0 if term.keyword in own else term.trust
            self._add(found, term, ruling.text[start:end], trust)
        return taken

    def _concepts(
        self, ruling: Reading, taken: list[tuple[int, int]], found: dict[int, Found]
    ) -> None:
        """Add the curated rules concepts named, outside examples and keyword spans. A pattern
        may name the words that are the evidence (group "term") and read context around them."""
        keywords = list(taken)
        lowered = ruling.masked.lower() if prefilterable(ruling.masked) else None
        for term, literals in zip(self._curated, self._prefilters, strict=True):
            if lowered is not None and not may_match(literals, lowered):
                continue
            for m in term.pattern.finditer(ruling.masked):
                start, end = m.span("term") if "term" in term.pattern.groupindex else m.span()
                if any(s < end and start < e for s, e in taken) or inside(start, ruling.examples):
                    continue
                if (
                    term.general
                    and names_one(ruling.masked, start, end)
                    and not _how_it_works(ruling.masked, start, end)
                ):
                    continue
                if term.general and _keywords_own(ruling.masked, start, keywords):
                    continue
                if self._is_step(term.lineage_id) and _MOMENT_RE.search(
                    ruling.masked[max(0, start - 40) : start]
                ):
                    continue
                if _listed(ruling.masked, start, end) or _selects(ruling.masked, start, end):
                    continue
                self._add(found, term, ruling.text[start:end], term.trust, concept=True)
                taken.append((start, end))
                break

    def _defined(
        self,
        ruling: Reading,
        taken: list[tuple[int, int]],
        found: dict[int, Found],
        index: dict[str, list[tuple[tuple[str, ...], Term]]],
    ) -> None:
        """Add the terms the rules define (glossary entries, chapter titles) named outside
        examples and the spans already read; capitalised mid-sentence, a term is a card's name
        ("Mana Pool" is not, "Last Known Information" may be)."""
        masked = ruling.masked
        for start, end, form, term in _word_matches(index, masked):
            if any(s < end and start < e for s, e in taken) or inside(start, ruling.examples):
                continue
            if not keyword_case(masked, start, form) or not _ONE_PHRASE_RE.fullmatch(form):
                continue
            if _MOMENT_RE.search(masked[max(0, start - 40) : start]):
                continue
            if _listed(masked, start, end) or _selects(masked, start, end):
                continue
            self._add(found, term, ruling.text[start:end], DEFINED_TRUST, concept=True)
            taken.append((start, end))

    def _fallback(self, ruling: Reading, found: dict[int, Found]) -> None:
        """A ruling that names no rules term (not even as an example) is about a keyword of
        its card when it speaks that keyword's rules' words, and clearly more than any other
        keyword's of the card; not when it names an ability of the card ("Victor's ability"):
        a ruling about the keyword would name the keyword."""
        if names_own_ability(ruling.masked):
            return
        scored = sorted(
            ((self._agreement(ruling, t.lineage_id), t) for t in self._own_keywords(ruling.own)),
            key=lambda c: -c[0].score,
        )
        if not scored or scored[0][0].score < FALLBACK_AGREEMENT:
            return
        if len(scored) > 1 and scored[1][0].score > scored[0][0].score * FALLBACK_MARGIN:
            return
        agreement, term = scored[0]
        # The evidence says why: the card's own keyword, and the words of its rules the
        # ruling uses.
        evidence = f"[{term.keyword}: {', '.join(agreement.shared[:3])}]"
        found[term.lineage_id] = Found(term.lineage_id, evidence, "inferred", 3)

    def _agreement(self, ruling: Reading, lineage_id: int) -> Agreement:
        """How a ruling's words agree with those of the rule's topic (keyword rule, chapter)."""
        topic = topic_of(self.number_at(lineage_id, self.current))
        return self.topics.agreement(ruling.masked, topic)

    def _topic(self, ruling: Reading, found: dict[int, Found]) -> None:
        """A ruling that names no rules term nor keyword, and is about no keyword of its card:
        the chapter whose rules speak its words, when they agree clearly (evidence: the
        chapter and the shared words). Least trusted of all links (vectors: `topics`)."""
        best = self.topics.best_chapters(ruling.masked)
        if not best or best[0][1] < TOPIC_AGREEMENT:
            return
        if len(best) > 1 and best[1][1] > best[0][1] * TOPIC_MARGIN:
            return
        chapter = best[0][0]
        lid = self.lineage_now(chapter)
        shared = self.topics.agreement(ruling.masked, chapter).shared[:3]
        if lid is None or len(shared) < TOPIC_WORDS:
            return
        evidence = f"[{chapter}: {', '.join(shared)}]"
        found[lid] = Found(lid, evidence, "inferred", 4, concept=True)

    def _keyword_matches(self, text: str) -> Iterable[tuple[int, int, str, Term]]:
        """(start, end, matched text, term) of keyword forms in a text, longest first."""
        return _word_matches(self._by_first, text)

    @staticmethod
    def _add(
        found: dict[int, Found], term: Term, evidence: str, trust: int, concept: bool = False
    ) -> None:
        current = found.get(term.lineage_id)
        if current is None or trust < current.trust:
            found[term.lineage_id] = Found(
                term.lineage_id, evidence[:200], "inferred", trust, concept
            )

    def _prune(self, found: dict[int, Found], own: frozenset[str]) -> dict[int, Found]:
        """Drop what the rest makes redundant.

        Keyword abilities the card does not have are incidental when the card's own keyword is
        there (several named are no longer dropped for that alone: examples are no links now,
        and "you can't suspend it, cycle it, or discard it" is about each). A term
        covered by a more precise one (X in a cost covers "without paying its mana cost":
        107.3b) goes too.
        """
        terms = self._term_of
        own_found = any(
            terms[lid].keyword in own for lid in found if terms.get(lid, NO_TERM).keyword
        )
        others = [
            lid
            for lid in found
            if terms.get(lid, NO_TERM).ability
            and terms[lid].keyword not in own
            and found[lid].kind != "cited"
        ]
        drop = set(others) if own_found else set()
        drop |= {lid for lid in found if terms.get(lid, NO_TERM).unless & found.keys()}
        return {lid: f for lid, f in found.items() if lid not in drop}

    def _is_step(self, lineage_id: int) -> bool:
        """Whether a rule is of the turn's structure (chapter 5xx: phases, steps)."""
        return self.number_at(lineage_id, self.current).startswith("5")

    def _own_keywords(self, own: frozenset[str]) -> list[Term]:
        """The card's keywords a ruling may be about without naming them: not Enchant or
        Equip, which every Aura and Equipment has, nor evergreen keywords (rulings about flying
        say "flying")."""
        named = self._keyword_named
        terms = {named[k].lineage_id: named[k] for k in own - STRUCTURAL - EVERGREEN if k in named}
        return list(terms.values())


#: What the rules say of every ability of a kind, said of one: whether it is optional, when it
#: goes on the stack, how often it triggers ("Midnight Entourage's triggered ability is
#: mandatory"): the rules of the kind, though one ability is named.
_HOW_IT_WORKS_RE = re.compile(
    r"\b(?:mandatory|optional|(?:goes|go|put|puts|placed) on(?:to)? the stack|only once"
    r"|(?:won't|doesn't|does not|will not|can't) trigger|triggers? again)\b",
    re.IGNORECASE,
)


def _how_it_works(text: str, start: int, end: int) -> bool:
    """Whether the sentence naming a triggered ability (or its triggering) says what the rules
    say of all triggered abilities (an activated ability being "optional" to use is not)."""
    if "trigger" not in text[start:end].casefold():
        return False
    left = max(text.rfind(". ", 0, start), text.rfind("! ", 0, start)) + 1
    right = text.find(". ", end)
    return bool(_HOW_IT_WORKS_RE.search(text[left : len(text) if right < 0 else right]))


#: A characteristic with a value, saying which objects are meant ("a card with converted mana
#: cost equal to X", "an artifact with mana value 0"), as "creatures without flying" does.
_WITH_RE = re.compile(r"\bwith (?:a |an |total |the same )?$", re.IGNORECASE)
_VALUE_RE = re.compile(r"^\s*(?:\d|X\b|\{|equal|less|greater|of \d|or (?:less|greater))", re.I)


def _selects(text: str, start: int, end: int) -> bool:
    """Whether a term names the value objects are picked by, not the rules of that value."""
    return bool(_WITH_RE.search(text[max(0, start - 20) : start]) and _VALUE_RE.match(text[end:]))


#: An item in the middle of a list ("the name, card types, subtypes, and rules text"): after
#: a comma or "and"/"or" and followed by more.
_LIST_BEFORE_RE = re.compile(r",\s*(?:and |or )?$|\w,? (?:and|or) $")
_LIST_AFTER_RE = re.compile(r"^,|^,? (?:and|or) \w")
#: The last item of a list of three or more ("static, activated, or triggered abilities").
_LIST_END_RE = re.compile(r"\w, \w[\w -]*, (?:and|or) (?:\w+ )?$")


def _listed(text: str, start: int, end: int) -> bool:
    """Whether a term is an item in the middle of a list: one of the things an effect changes
    or keeps, not what the ruling is about."""
    before, after = text[max(0, start - 30) : start], text[end : end + 60]
    middle = _LIST_BEFORE_RE.search(before) and _LIST_AFTER_RE.search(after)
    return bool(middle or _LIST_END_RE.search(before))


#: Reminder text, which explains a keyword in sentences.
_REMINDER_RE = re.compile(r"\([^)]*\)")


def _starts_with(item: str, name: str) -> bool:
    """Whether a keyword line's item is the keyword, alone or with its cost, number or
    quality ("kicker {2}{r}", "suspend 2—{1}{u}", "protection from red")."""
    return item == name or (item.startswith(name) and item[len(name)] in " —-{")


#: Words of one phrase: "artifact, creature" is not "artifact creature".
_ONE_PHRASE_RE = re.compile(r"[\w’'∞!]+(?:(?:\s+|-)[\w’'∞!]+)*")
#: A step or phase named as a moment ("at the beginning of the end step", "during combat"),
#: not as what the ruling is about.
_MOMENT_RE = re.compile(
    r"\b(?:beginning|end|start|rest) of (?:the |your |each |their |its |that player's |"
    r"its controller's )?(?:next |first |second )?$"
    r"|\b(?:during|until|in|before|after|since) (?:the |your |each |their |that )?(?:next )?$",
    re.IGNORECASE,
)


#: Between a keyword and a kind of ability: the keyword's own ability ("exalted abilities
#: trigger", "Cycling is an activated ability"), a rule of the keyword, not of the kind.
_TIED_RE = re.compile(
    r"^(?:'s)?\s+(?:(?:is|are) (?:an? |also an? )?)?(?:[\w-]+ )?$"
    # "each exalted ability on each permanent you control will trigger"
    r"|^\s+abilit(?:y|ies)\b[^.;:]*$",
    re.IGNORECASE,
)


def _keywords_own(text: str, start: int, keywords: list[tuple[int, int]]) -> bool:
    """Whether the kind of ability named at `start` is a keyword's, named just before it."""
    return any(e <= start and _TIED_RE.match(text[e:start]) for _s, e in keywords)


def _word_matches(
    by_first: dict[str, list[tuple[tuple[str, ...], Term]]], text: str
) -> Iterable[tuple[int, int, str, Term]]:
    """(start, end, matched text, term) of the forms of an index in a text, longest first:
    a ruling's words are looked up, not regex-scanned (one scan per term was most of the
    linker's time)."""
    words = [(m.start(), m.end(), word(m.group())) for m in WORD_RE.finditer(text)]
    i = 0
    while i < len(words):
        for form, term in by_first.get(words[i][2], ()):
            n = len(form)
            if i + n <= len(words) and all(words[i + k][2] == form[k] for k in range(1, n)):
                start, end = words[i][0], words[i + n - 1][1]
                yield start, end, text[start:end], term
                i += n - 1
                break
        i += 1


def _ranked(found: dict[int, Found], text: str) -> list[Found]:
    """Most trusted first, then in reading order; at most MAX_CONCEPTS curated concepts (a
    ruling is usually about one; more are mostly incidental mentions) and MAX_LINKS links."""
    ordered = sorted(found.values(), key=lambda f: (f.trust, text.find(f.evidence)))
    concepts = [f for f in ordered if f.concept]
    ordered = [f for f in ordered if f not in concepts[MAX_CONCEPTS:]]
    return ordered[:MAX_LINKS]
