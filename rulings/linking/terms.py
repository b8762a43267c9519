"""What the linker looks for: keyword abilities and actions as the CR names them, in the forms
rulings inflect them to ("kicked", "crews"), and the curated rules concepts.

Keyword terms are read from the archive (the titles of 701.x and 702.x), so a new keyword is
linked once its release is imported; the curated concepts, which no title names, come from
fixtures/vocabulary/ruling_terms.csv. The vocabulary reuses the inflections.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from kb.models import RuleNumber, RuleVersion

TERMS_FILE = Path(settings.BASE_DIR) / "fixtures" / "vocabulary" / "ruling_terms.csv"
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


@dataclass
class Term:
    pattern: re.Pattern[str]
    lineage_id: int
    trust: int
    keyword: str = ""  # the keyword's name, for keyword terms
    ability: bool = False  # a keyword ability (702), not an action
    unless: frozenset[int] = frozenset()  # lineages that make this term redundant
    general: bool = False  # counts only when it names a kind of ability, not one ability


#: Stands in for a lineage no term has, so lookups need no None checks.
NO_TERM = Term(re.compile("$^"), 0, 9)


def word(token: str) -> str:
    """A token as keyword forms are written: casefolded, possessive dropped ("rebound's")."""
    token = token.casefold()
    return token[:-2] if token.endswith(("'s", "’s")) else token


#: Words of keyword names as rulings write them ("start your engines!", "∞").
WORD_RE = re.compile(r"[\w’'∞]+(?:-[\w’']+)*!?")


@dataclass
class KeywordTerms:
    """The keyword terms of a release and the indexes the linker reads rulings through."""

    terms: list[Term]
    named: dict[str, Term]  # by keyword name, casefolded
    #: Forms by their first word, longest first: a ruling's words are looked up, not
    #: regex-scanned (one scan per keyword was most of the linker's time).
    by_first: dict[str, list[tuple[tuple[str, ...], Term]]]


def keyword_terms(date: dt.date) -> KeywordTerms:
    """The keyword abilities and actions of the release in force on a date."""
    rows = RuleNumber.objects.as_of(date).filter(kind="rule", chapter__in=["701", "702"])
    titles = dict(
        RuleVersion.objects.as_of(date)
        .filter(lineage__in=[r.lineage_id for r in rows])
        .values_list("lineage_id", "text_en")
    )
    verbs = _VerbsOfRules(date)
    terms: list[Term] = []
    named: dict[str, Term] = {}
    keyword_forms: dict[str, Term] = {}
    for row in rows:
        name = titles.get(row.lineage_id, "")
        if not name or len(name) > 40 or "." in name:
            continue  # a keyword rule's first line is its name
        key = name.casefold()
        forms = ability_forms(key) if row.chapter == "702" else action_forms(key)
        if row.chapter == "702":
            forms += verbs.of(key, row.number)
        trust = 3 if key in EVERYDAY else 1
        term = Term(
            words_pattern(forms),
            row.lineage_id,
            trust,
            keyword=key,
            ability=row.chapter == "702",
        )
        terms.append(term)
        named[key] = term
        for form in forms:
            keyword_forms.setdefault(" ".join(form.split()), term)
    return KeywordTerms(terms, named, _by_first_word(keyword_forms))


class _VerbsOfRules:
    """The verb a keyword named by its "-ing" form is written with ("cycling": "cycle it",
    "cycled"; "phasing": "phased out"), read from the rules: a form the keyword's own rules
    write more often than all the other rules together (so "phase", which names the turn's
    phases far more often, is not read as phasing)."""

    def __init__(self, date: dt.date) -> None:
        self.texts: dict[str, str] = {}
        numbers = dict(RuleNumber.objects.as_of(date).values_list("lineage_id", "number"))
        for lid, text in RuleVersion.objects.as_of(date).values_list("lineage_id", "text_en"):
            if lid in numbers:
                self.texts[numbers[lid]] = (text or "").casefold()
        self._all = "\n".join(self.texts.values())

    def of(self, name: str, number: str) -> list[str]:
        if not name.endswith("ing") or " " in name or name in _UNINFLECTED:
            return []
        own = "\n".join(t for n, t in self.texts.items() if _under(n, number))
        stem = name[:-3]
        found = []
        for form in {*action_forms(stem), *action_forms(stem + "e")} - {name}:
            pattern = re.compile(r"(?<![\w-])" + re.escape(form) + r"(?![\w-])")
            mine = len(pattern.findall(own))
            if mine and mine > len(pattern.findall(self._all)) - mine:
                found.append(form)
        return sorted(found)


def _under(number: str, rule: str) -> bool:
    """Whether a number is a keyword rule or one of its subrules (702.29, 702.29c)."""
    return number == rule or (number.startswith(rule) and number[len(rule) :].isalpha())


def _by_first_word(
    keyword_forms: dict[str, Term],
) -> dict[str, list[tuple[tuple[str, ...], Term]]]:
    by_first: dict[str, list[tuple[tuple[str, ...], Term]]] = defaultdict(list)
    for form, term in keyword_forms.items():
        words = tuple(WORD_RE.findall(form))
        if words:
            by_first[words[0]].append((words, term))
    for candidates in by_first.values():
        candidates.sort(key=lambda c: -len(c[0]))
    return by_first


def curated_terms(lineage_now: Callable[[str], int | None]) -> tuple[list[Term], list[str]]:
    """The curated rules concepts, and where the CSV names a rule the archive lacks."""
    terms: list[Term] = []
    unresolved: list[str] = []
    with TERMS_FILE.open(newline="", encoding="utf-8") as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            lid = lineage_now(row["rule"])
            if lid is None:  # a partial archive (the demo set): the term waits for its rule
                unresolved.append(f"{TERMS_FILE.name}, line {lineno}: {row['rule']}")
                continue
            unless = frozenset(
                filter(None, (lineage_now(n) for n in (row.get("unless") or "").split()))
            )
            general = (row.get("when") or "") == "general"
            pattern = re.compile(row["pattern"], re.IGNORECASE)
            terms.append(Term(pattern, lid, 2, unless=unless, general=general))
    return terms, unresolved


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
