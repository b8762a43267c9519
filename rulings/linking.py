"""Link rulings to the rules they lean on.

Rulings almost never cite numbers; they speak in rules terms. Three sources of links, in order
of trust: explicit citations ("rule 702.19c", always linked); keyword abilities and actions,
named as the CR names them (701.x / 702.x titles), trusted when distinctive or when they are the
card's own keyword (an everyday verb like "destroy" counts only then); and a curated list of rules
concepts (fixtures/vocabulary/ruling_terms.csv). Every link points at a rule's lineage and keeps
its evidence and the numbers it had in the release in force on the ruling's date and today.

A term named is not always what a ruling is about, so context counts: examples ("such as
kicker", "(perhaps because …)") are not the topic; "its triggered ability" points at the card's
own ability where "triggered abilities" speak of the rules; a curated concept may be redundant
beside a more precise one (its "unless" column).
"""

from __future__ import annotations

import csv
import datetime as dt
import multiprocessing as mp
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from kb.crtext.numbers import kind_of, parent_of
from kb.crtext.references import find_references
from kb.dbutil import chunks, insert_rows, update_rows
from kb.models import Release, RuleNumber, RuleVersion
from kb.models.versioning import valid_on

from .models import Card, CardFace, LinkKind, Ruling, RulingLink

TERMS_FILE = Path(settings.BASE_DIR) / "fixtures" / "vocabulary" / "ruling_terms.csv"
#: Links kept per ruling (the most trusted first), of which curated rules concepts at most
#: MAX_CONCEPTS: a ruling is usually about one concept; more are mostly incidental mentions.
MAX_LINKS = 3
MAX_CONCEPTS = 2
#: Keyword actions that are everyday verbs: linked only when the card has the keyword.
EVERYDAY = {
    "activate",
    "attach",
    "cast",
    "counter",
    "create",
    "destroy",
    "discard",
    "double",
    "triple",
    "exchange",
    "exile",
    "fight",
    "play",
    "reveal",
    "sacrifice",
    "search",
    "shuffle",
    "tap and untap",
    "transform",
    "vote",
    "learn",
    "heal",
    "blight",
    "suspect",
    "recruit",
    "behold",
    "convert",
    "support",
    "adapt",
    "endure",
    "harness",
    "forage",
    "discover",
}
#: Keywords every card of a type has: never the subject of a ruling by default.
STRUCTURAL = {"enchant", "equip"}
#: Keywords printed in nearly every set, on hundreds of cards each: a ruling that does not name
#: one is about the rest of the card, so they are no fallback topic.
EVERGREEN = {
    "deathtouch",
    "defender",
    "double strike",
    "first strike",
    "flash",
    "flying",
    "haste",
    "hexproof",
    "indestructible",
    "lifelink",
    "menace",
    "protection",
    "reach",
    "trample",
    "vigilance",
    "ward",
    "mill",
    "scry",
}
#: The modern Comprehensive Rules start here; older rulings predate them.
MODERN_CR = dt.date(2009, 7, 11)


@dataclass(frozen=True)
class Found:
    lineage_id: int
    evidence: str
    kind: str  # cited or inferred
    trust: int  # lower is more trusted
    concept: bool = False  # from the curated list (at most MAX_CONCEPTS kept)


@dataclass
class _Term:
    pattern: re.Pattern[str]
    lineage_id: int
    trust: int
    keyword: str = ""  # the keyword's name, for keyword terms
    ability: bool = False  # a keyword ability (702), not an action
    unless: frozenset[int] = frozenset()  # lineages that make this term redundant
    general: bool = False  # counts only when it names a kind of ability, not one ability


_NONE = _Term(re.compile("$^"), 0, 9)


@dataclass(frozen=True)
class _Reading:
    """A ruling's text as the linker reads it."""

    text: str  # as written: evidence is cut from it
    masked: str  # apostrophes straightened, the card's names blanked (the same offsets)
    own: frozenset[str]  # the card's keywords, casefolded
    examples: tuple[tuple[int, int], ...]  # spans naming examples ("such as …")

    @classmethod
    def of(cls, text: str, card_names: Iterable[str], keywords: Iterable[str]) -> _Reading:
        masked = _mask_names(_plain(text), (_plain(n) for n in card_names))
        own = frozenset(k.casefold() for k in keywords)
        return cls(text, masked, own, _example_spans(masked))


def _word(token: str) -> str:
    """A token as keyword forms are written: casefolded, possessive dropped ("rebound's")."""
    token = token.casefold()
    return token[:-2] if token.endswith(("'s", "’s")) else token


#: Words of keyword names as rulings write them ("start your engines!", "∞").
_WORD_RE = re.compile(r"[\w’'∞]+(?:-[\w’']+)*!?")


class Numbers:
    """Every number every lineage held, in memory: which number a rule had on any date."""

    def __init__(self) -> None:
        self.releases = list(Release.objects.order_by("effective_date"))
        self.current = self.releases[-1].effective_date if self.releases else dt.date.today()
        self.spans: dict[int, list[tuple[dt.date, dt.date | None, str]]] = defaultdict(list)
        self.by_number: dict[str, list[tuple[dt.date, dt.date | None, int]]] = defaultdict(list)
        for lid, number, start, end in RuleNumber.objects.values_list(
            "lineage_id", "number", "valid_from", "valid_to"
        ):
            self.spans[lid].append((start, end, number))
            self.by_number[number].append((start, end, lid))

    def lineage_now(self, number: str) -> int | None:
        return self.lineage_at(number, self.current)

    def lineage_at(self, number: str, date: dt.date) -> int | None:
        for start, end, lid in self.by_number.get(number, ()):
            if start <= date and (end is None or date < end):
                return lid
        return None

    def number_at(self, lineage_id: int, date: dt.date) -> str:
        for start, end, number in self.spans.get(lineage_id, ()):
            if start <= date and (end is None or date < end):
                return number
        return ""

    def release_at(self, date: dt.date) -> Release | None:
        found = None
        for r in self.releases:
            if r.effective_date <= date:
                found = r
        return found


class Linker(Numbers):
    """Finds rules terms in ruling texts; built once per run from the archive."""

    def __init__(self) -> None:
        super().__init__()
        self.unresolved: list[str] = []  # curated rules the current release does not have
        self.terms: list[_Term] = []
        self._keyword_terms(self.current)
        self._curated_terms()
        self._term_of = {t.lineage_id: t for t in self.terms}
        self._curated = [t for t in self.terms if not t.keyword]

    # -- building the terms ---------------------------------------------------------------

    def _keyword_terms(self, date: dt.date) -> None:
        rows = RuleNumber.objects.filter(valid_on(date), kind="rule", chapter__in=["701", "702"])
        titles = dict(
            RuleVersion.objects.filter(
                valid_on(date), lineage__in=[r.lineage_id for r in rows]
            ).values_list("lineage_id", "text_en")
        )
        self._keyword_named: dict[str, _Term] = {}
        self._keyword_forms: dict[str, _Term] = {}
        for row in rows:
            name = titles.get(row.lineage_id, "")
            if not name or len(name) > 40 or "." in name:
                continue  # a keyword rule's first line is its name
            key = name.casefold()
            forms = ability_forms(key) if row.chapter == "702" else action_forms(key)
            trust = 3 if key in EVERYDAY else 1
            term = _Term(
                words_pattern(forms),
                row.lineage_id,
                trust,
                keyword=key,
                ability=row.chapter == "702",
            )
            self.terms.append(term)
            self._keyword_named[key] = term
            for form in forms:
                self._keyword_forms.setdefault(" ".join(form.split()), term)
        # Keyword forms by their first word: a ruling's words are looked up, not regex-scanned.
        self._by_first: dict[str, list[tuple[tuple[str, ...], _Term]]] = defaultdict(list)
        for form, term in self._keyword_forms.items():
            words = tuple(_WORD_RE.findall(form))
            if words:
                self._by_first[words[0]].append((words, term))
        for candidates in self._by_first.values():
            candidates.sort(key=lambda c: -len(c[0]))

    def _curated_terms(self) -> None:
        with TERMS_FILE.open(newline="", encoding="utf-8") as fh:
            for lineno, row in enumerate(csv.DictReader(fh), start=2):
                lid = self.lineage_now(row["rule"])
                if lid is None:  # a partial archive (the demo set): the term waits for its rule
                    self.unresolved.append(f"{TERMS_FILE.name}, line {lineno}: {row['rule']}")
                    continue
                unless = frozenset(
                    filter(None, (self.lineage_now(n) for n in (row.get("unless") or "").split()))
                )
                general = (row.get("when") or "") == "general"
                pattern = re.compile(row["pattern"], re.IGNORECASE)
                self.terms.append(_Term(pattern, lid, 2, unless=unless, general=general))

    # -- finding links ----------------------------------------------------------------------

    def find(
        self, text: str, date: dt.date, card_names: Iterable[str], keywords: Iterable[str]
    ) -> list[Found]:
        """The rules a ruling leans on, most trusted first, at most MAX_LINKS."""
        ruling = _Reading.of(text, card_names, keywords)
        found = self._citations(text, date)
        taken = self._keywords(ruling, found)
        self._concepts(ruling, taken, found)
        found = self._prune(found, ruling.own)
        if not found and not taken:
            self._fallback(ruling, found)
        return _ranked(found, text)

    def _citations(self, text: str, date: dt.date) -> dict[int, Found]:
        """Explicit rule numbers, resolved as they stood on the ruling's date."""
        found: dict[int, Found] = {}
        cited_at = date if date >= MODERN_CR else MODERN_CR
        for ref in find_references(text):
            lid = self.lineage_at(ref.target, cited_at) or self.lineage_now(ref.target)
            if lid is not None:
                found.setdefault(lid, Found(lid, text[ref.start : ref.end], "cited", 0))
        return found

    def _keywords(self, ruling: _Reading, found: dict[int, Found]) -> list[tuple[int, int]]:
        """Add the keywords named; returns the spans of all it read as keywords.

        A keyword named only as an example ("cost increases (such as kicker)") is not what the
        ruling is about: weak when it is another card's keyword, ignored when it is the card's
        own (a general ruling printed on every card of the set). Another card's keyword named
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
            if not _keyword_case(masked, start, form):
                continue
            seen.add(term.lineage_id)
            taken.append((start, end))
            example = _inside(start, ruling.examples)
            if example and term.keyword in own:
                continue
            if term.keyword not in own and _LACKING_RE.search(masked[max(0, start - 20) : start]):
                continue
            trust = 3 if example else 0 if term.keyword in own else term.trust
            self._add(found, term, ruling.text[start:end], trust)
        return taken

    def _concepts(
        self, ruling: _Reading, taken: list[tuple[int, int]], found: dict[int, Found]
    ) -> None:
        """Add the curated rules concepts named, outside examples and keyword spans. A pattern
        may name the words that are the evidence (group "term") and read context around them."""
        for term in self._curated:
            for m in term.pattern.finditer(ruling.masked):
                start, end = m.span("term") if "term" in term.pattern.groupindex else m.span()
                if any(s < end and start < e for s, e in taken) or _inside(start, ruling.examples):
                    continue
                if term.general and _names_one(ruling.masked, start, end):
                    continue
                self._add(found, term, ruling.text[start:end], term.trust, concept=True)
                taken.append((start, end))
                break

    def _fallback(self, ruling: _Reading, found: dict[int, Found]) -> None:
        """A ruling that names no rules term (not even as an example) is, for a one-keyword
        card, about that keyword; not when it names an ability of the card ("Victor's
        ability"): a ruling about the keyword would name the keyword."""
        if _OWN_ABILITY_RE.search(ruling.masked):
            return
        term = self._single_own_keyword(ruling.own)
        if term is not None:
            # The evidence says why: the card's own keyword, not a phrase of the ruling.
            found[term.lineage_id] = Found(term.lineage_id, f"[{term.keyword}]", "inferred", 3)

    def _keyword_matches(self, text: str) -> Iterable[tuple[int, int, str, _Term]]:
        """(start, end, matched text, term) of keyword forms in a text, longest first."""
        words = [(m.start(), m.end(), _word(m.group())) for m in _WORD_RE.finditer(text)]
        i = 0
        while i < len(words):
            for form, term in self._by_first.get(words[i][2], ()):
                n = len(form)
                if i + n <= len(words) and all(words[i + k][2] == form[k] for k in range(1, n)):
                    start, end = words[i][0], words[i + n - 1][1]
                    yield start, end, text[start:end], term
                    i += n - 1
                    break
            i += 1

    @staticmethod
    def _add(
        found: dict[int, Found], term: _Term, evidence: str, trust: int, concept: bool = False
    ) -> None:
        current = found.get(term.lineage_id)
        if current is None or trust < current.trust:
            found[term.lineage_id] = Found(
                term.lineage_id, evidence[:200], "inferred", trust, concept
            )

    def _prune(self, found: dict[int, Found], own: frozenset[str]) -> dict[int, Found]:
        """Drop what the rest makes redundant.

        Keyword abilities the card does not have are incidental when the card's own keyword is
        there, and examples when several are named ("such as equip or eternalize"). A term
        covered by a more precise one (X in a cost covers "without paying its mana cost":
        107.3b) goes too.
        """
        terms = self._term_of
        own_found = any(terms[lid].keyword in own for lid in found if terms.get(lid, _NONE).keyword)
        others = [
            lid
            for lid in found
            if terms.get(lid, _NONE).ability
            and terms[lid].keyword not in own
            and found[lid].kind != "cited"
        ]
        drop = set(others) if own_found or len(others) >= 2 else set()
        drop |= {lid for lid in found if terms.get(lid, _NONE).unless & found.keys()}
        return {lid: f for lid, f in found.items() if lid not in drop}

    def _single_own_keyword(self, own: frozenset[str]) -> _Term | None:
        """The card's one keyword, if it has one: not counting Enchant or Equip, which every Aura
        and Equipment has, nor evergreen keywords (rulings about flying say "flying")."""
        named = self._keyword_named
        terms = {named[k].lineage_id: named[k] for k in own - STRUCTURAL - EVERGREEN if k in named}
        return next(iter(terms.values())) if len(terms) == 1 else None


def _ranked(found: dict[int, Found], text: str) -> list[Found]:
    """Most trusted first, then in reading order; at most MAX_CONCEPTS curated concepts (a
    ruling is usually about one; more are mostly incidental mentions) and MAX_LINKS links."""
    ordered = sorted(found.values(), key=lambda f: (f.trust, text.find(f.evidence)))
    concepts = [f for f in ordered if f.concept]
    ordered = [f for f in ordered if f not in concepts[MAX_CONCEPTS:]]
    return ordered[:MAX_LINKS]


def words_pattern(forms: Iterable[str]) -> re.Pattern[str]:
    alternatives = sorted(
        {re.escape(f).replace(r"\ ", r"\s+") for f in forms}, key=len, reverse=True
    )
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])", re.IGNORECASE)


#: Keyword abilities whose inflections mean something else ("enchanted creature" is about
#: Auras, "equipped creature" about Equipment, "protected" and "reached" are plain English).
_UNINFLECTED = {
    "enchant",
    "equip",
    "protection",
    "reach",
    "flash",
    "fear",
    "shadow",
    "fortify",
    "flying",
    "defender",
    "vigilance",
    "haste",
    "banding",
    "landwalk",
    "champion",
}


def ability_forms(name: str) -> list[str]:
    """The keyword and the forms rules text uses for it ("kicked", "escaped", "crews")."""
    forms = [name]
    if " " in name or name in _UNINFLECTED or name.endswith(("ing", "ed")):
        return forms
    if name.endswith("er"):  # kicker -> kicked
        forms.append(name[:-2] + "ed")
    if name.endswith("e"):
        forms += [name + "s", name + "d"]
    elif _DOUBLES.search(name):  # plot -> plotted
        forms += [name + "s", name + name[-1] + "ed"]
    else:
        forms += [name + "s", name + "ed"]
    return forms


#: Short verbs ending consonant-vowel-consonant double it before -ed ("plotted", "fought" aside).
_DOUBLES = re.compile(r"^[^aeiou]*[aeiou][bdgmnpt]$")


def action_forms(name: str) -> list[str]:
    if " and " in name:  # Tap and Untap
        return [f for part in name.split(" and ") for f in action_forms(part)]
    head, _, rest = name.partition(" ")
    tail = f" {rest}" if rest else ""
    irregular = {"fight": ["fought"], "learn": ["learned"]}
    if head.endswith("e"):
        verbs = [head, head + "s", head + "d", head[:-1] + "ing"]
    elif head.endswith("y") and head[-2:-1] not in "aeiou":
        verbs = [head, head[:-1] + "ies", head[:-1] + "ied", head + "ing"]
    elif _DOUBLES.search(head):
        verbs = [head, head + "s", head + head[-1] + "ed", head + head[-1] + "ing"]
    else:
        verbs = [head, head + "s", head + "es", head + "ed", head + "ing"]
    return [v + tail for v in verbs + irregular.get(head, [])]


#: Examples of what a ruling is about, not its topic: "such as …" (to the closing parenthesis
#: or the end of the clause) and hypothetical asides ("(perhaps because …)").
_EXAMPLES_RE = re.compile(
    r"\((?:perhaps|for example|for instance|e\.g\.|most likely|probably|such as)\b[^)]*\)"
    r"|\bsuch as [^,;:.()]*",
    re.IGNORECASE,
)


def _example_spans(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(m.span() for m in _EXAMPLES_RE.finditer(text))


def _inside(position: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(s <= position < e for s, e in spans)


#: "Victor's ability", "Stoneshock Giant's last ability" (the name blanked): a ruling about an
#: ability of the card it names this way, not about its keyword, which it would name.
_OWN_ABILITY_RE = re.compile(r"\s's (?:[\w-]+ ){0,2}abilit(?:y|ies)\b")

_LACKING_RE = re.compile(
    r"\b(?:without|(?:doesn't|does not|don't|do not|didn't|did not) have)\s+$", re.IGNORECASE
)

#: What a phrase pointing at particular abilities starts with: "its mana abilities", "Vivien's
#: last loyalty ability" (blanked card names leave the "'s"), "the activated ability".
_ORDINAL = (
    r"\s+(?:(?:first|second|third|last|other|own|delayed|reflexive|granted|\S+-\S+)\s+){0,2}$"
)
_POSSESSIVE_RE = re.compile(r"(?:\b(?:its|their|his|her)|'s)" + _ORDINAL, re.IGNORECASE)
_DEFINITE_RE = re.compile(r"\b(?:the|this)" + _ORDINAL, re.IGNORECASE)


def _names_one(text: str, start: int, end: int) -> bool:
    """Whether a kind of ability is named as the card's own rather than in general:
    "Activated abilities contain a colon" is about 602, "Saruli Caretaker's activated
    ability" about the card. "The activated abilities of …" still speaks of a kind."""
    before = text[max(0, start - 60) : start]
    if _POSSESSIVE_RE.search(before):
        return True
    plural = text[end - 3 : end].casefold() == "ies"
    return not plural and bool(_DEFINITE_RE.search(before))


def _keyword_case(text: str, start: int, word: str) -> bool:
    """Rulings write keywords in lower case; capitalised mid-sentence it is a card's name
    ("Lightning Storm"), unless it opens a sentence ("Deathtouch applies…")."""
    if word[:1].islower():
        return True
    before = text[:start].rstrip()
    return not before or before[-1] in '.:;!?"“(' or before.endswith("—")


def _plain(text: str) -> str:
    """Typographic apostrophes as straight ones (same length), so that terms read "isn't"
    whichever a ruling uses."""
    return text.replace("’", "'")


def _mask_names(text: str, names: Iterable[str]) -> str:
    """Blank out the card's own names: "Flying Crane Technique" is not about flying. Rulings
    call a legendary card by its short name ("Victor" for "Victor, Valgavoth's Seneschal")."""
    names = {n for name in names if name for n in (name, name.split(", ")[0])}
    for name in sorted(names, key=len, reverse=True):
        pattern = r"(?<!\w)" + re.escape(name) + r"(?!\w)"
        text = re.sub(pattern, lambda m: " " * len(m.group()), text, flags=re.IGNORECASE)
    return text


# -- storing links ---------------------------------------------------------------------------


#: From this many rulings, the linker reads them in two processes (the bench's 43,774: 30 s
#: in one, about half in two).
PARALLEL_FROM = 4_000
_worker_linker: Linker | None = None


def _find_one(item: tuple) -> list[Found]:
    assert _worker_linker is not None
    return _worker_linker.find(*item)


def _find_all(linker: Linker, items: list[tuple]) -> list[list[Found]]:
    """Linker.find over many rulings; in forked worker processes for large batches (they
    inherit the linker and never touch the database)."""
    global _worker_linker
    procs = min(2, os.cpu_count() or 1)
    if len(items) < PARALLEL_FROM or procs < 2 or "fork" not in mp.get_all_start_methods():
        return [linker.find(*item) for item in items]
    _worker_linker = linker
    try:
        with mp.get_context("fork").Pool(procs) as pool:
            return pool.map(_find_one, items, chunksize=500)
    finally:
        _worker_linker = None


@transaction.atomic
def link_rulings(ruling_ids: Iterable[int] | None = None, linker: Linker | None = None) -> int:
    """(Re)compute cited and inferred links of rulings (all by default); confirmed and rejected
    links are kept, and a rejected link is not inferred again. Returns the rulings linked."""
    linker = linker or Linker()
    rulings = (
        Ruling.objects.all()
        if ruling_ids is None
        else Ruling.objects.filter(id__in=list(ruling_ids))
    )
    rows = list(rulings.values_list("id", "card_id", "date", "text"))
    if not rows:
        return 0
    card_ids = {r[1] for r in rows}
    names: dict[int, list[str]] = defaultdict(list)
    keywords: dict[int, list[str]] = {}
    for cid, name_en, name_fr, kws in (
        Card.objects.filter(id__in=card_ids).values_list("id", "name_en", "name_fr", "keywords")
        if len(card_ids) < 900
        else Card.objects.values_list("id", "name_en", "name_fr", "keywords")
    ):
        if cid in card_ids:
            names[cid] += [name_en, *name_en.split(" // "), name_fr or ""]
            keywords[cid] = kws or []
    for cid, face in (
        CardFace.objects.values_list("card_id", "name")
        if len(card_ids) >= 900
        else CardFace.objects.filter(card_id__in=card_ids).values_list("card_id", "name")
    ):
        if cid in card_ids:
            names[cid].append(face)
    ids = [r[0] for r in rows]
    kept: dict[int, dict[int, str]] = defaultdict(dict)
    for chunk in chunks(ids):
        for rid, lid, kind in RulingLink.objects.filter(
            ruling_id__in=chunk, kind__in=[LinkKind.CONFIRMED, LinkKind.REJECTED]
        ).values_list("ruling_id", "lineage_id", "kind"):
            kept[rid][lid] = kind
        RulingLink.objects.filter(
            ruling_id__in=chunk, kind__in=[LinkKind.CITED, LinkKind.INFERRED]
        ).delete()
    new_rows = []
    items = [(text, date, names.get(cid, []), keywords.get(cid, [])) for _, cid, date, text in rows]
    found_all = _find_all(linker, items)
    for (rid, _cid, date, _text), found in zip(rows, found_all, strict=True):
        release = linker.release_at(date)
        for f in found:
            if f.lineage_id in kept[rid]:
                continue
            new_rows.append(
                (
                    rid,
                    f.lineage_id,
                    f.kind,
                    f.evidence,
                    release.pk if release else None,
                    linker.number_at(f.lineage_id, date) if release else "",
                    linker.number_at(f.lineage_id, linker.current),
                    date,
                )
            )
    insert_rows(
        RulingLink,
        ["ruling", "lineage", "kind", "evidence", "release", "number", "current_number", "date"],
        new_rows,
    )
    now = timezone.now()
    for chunk in chunks(ids):
        Ruling.objects.filter(id__in=chunk).update(linked_at=now)
    return len(rows)


def rules_changed_since_linking() -> bool:
    """True when a release was imported after some ruling was last linked.

    A release import only re-resolves numbers (signal); a batch of new releases (make run
    switching from the demo set to the real archive) may bring new keywords and lineages, so
    loaders relink everything then.
    """
    last_import = Release.objects.aggregate(last=Max("imported_at"))["last"]
    return last_import is not None and Ruling.objects.filter(linked_at__lt=last_import).exists()


def refresh_numbers() -> int:
    """Re-resolve the numbers links record, then and now (after a release is imported,
    replaced or removed); only links whose numbers changed are written. Returns how many."""
    if not RulingLink.objects.exists():
        return 0
    numbers = Numbers()
    updates = []
    for link_id, lid, date, release_id, then, now in RulingLink.objects.values_list(
        "id", "lineage_id", "ruling__date", "release_id", "number", "current_number"
    ):
        release = numbers.release_at(date)
        values = (
            release.pk if release else None,
            numbers.number_at(lid, date) if release else "",
            numbers.number_at(lid, numbers.current),
        )
        if values != (release_id, then, now):
            updates.append((*values, link_id))
    update_rows(RulingLink, ["release", "number", "current_number"], updates)
    return len(updates)


def scoring_key(number: str) -> str:
    """The granularity links are scored at: keyword rules (701.5, 702.19), else the chapter."""
    if number.startswith(("701.", "702.")):
        kind = kind_of(number)
        while kind == "subrule":
            number = parent_of(number) or number
            kind = kind_of(number)
        return number
    return number[:3]
