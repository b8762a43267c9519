"""What a query asks, before it is searched: a definition, a question, a card's name.

People type questions ("what happens when a creature with deathtouch deals damage"), definition
requests ("what is ward", "cycling meaning") and card names. Requiring every word of a question
returns nothing; its question words are no topic; a definition request is about its term; and
a card outranks the rules only when the query is (close to) that card's name. These are rules
about the shape of queries in general, in English and French, not about particular queries.
"""

from __future__ import annotations

import csv
import math
import re
from functools import cache
from pathlib import Path

from rapidfuzz import fuzz

from search.analysis import fold, plain
from search.backend import Suggestion
from search.syntax import Group, Phrase

#: Words that say a query is a question or a request, not what it is about (English, French).
FILLER = frozenset(
    """
    what whats which who whom whose when where why how does do did doing done is are was were
    be been being am can could should would will shall may might must i im me my mine we us our
    you your yours someone something anything happens happen happened happening work works
    working mean means meaning meant define defined definition explain explained explanation
    rule rules magic mtg tell about there here any way get gets got please need want
    quoi que quel quelle quels quelles qui comment pourquoi quand ou est sont peut peuvent
    faire fait je me mon ma mes nous vous signifie veut dire definition regle regles
    """.split()  # noqa: SIM905 - a word list reads best as words
)

_DEFINITION_BEFORE = re.compile(
    r"^(?:what does it mean (?:for (?:an? |the )?\w+ )?to (?:be )?|"
    r"what (?:counts|count|is counted|is considered|are considered) (?:as |to be )?|"
    r"what(?:'s| is| are| does| do)? |whats |define |definition of |meaning of |explain |"
    r"qu'est[- ]ce qu(?:e |')|c'est quoi |definition de |que signifie |que veut dire )\s*"
    r"(?:an? |the |une? |la |le |les |l')?(?P<term>.+?)\s*\??$",
    re.IGNORECASE,
)
#: What follows a term in a definition request ("cloak meaning mtg", "prowl mean").
_DEFINITION_AFTER = re.compile(
    r"\s+(?:mean|means|meaning|do|does|definition|defined|explained|rules?|keyword|mtg|magic|"
    r"in magic|in mtg|signification|definition)\s*\??$",
    re.IGNORECASE,
)


def definition_term(text: str) -> str:
    """The term a definition request asks about ("what is ward" -> "ward", "cycling meaning
    mtg" -> "cycling", "what does it mean for a creature to die" -> "die"), or "" when the
    query is not shaped so. Long remainders are questions, not terms ("what happens when a
    creature dies" is not asking for a definition of "happens")."""
    plain = " ".join(fold(text).replace("’", "'").split()).strip(" ?")
    found = _DEFINITION_BEFORE.match(plain)
    term, asked = (found["term"], True) if found else (plain, False)
    while True:  # request words after the term, any number of them
        shorter = _DEFINITION_AFTER.sub("", term)
        if shorter == term or not shorter:
            break
        term, asked = shorter, True
    term = term.strip(" ?")
    words = term.split()
    if asked and 1 <= len(words) <= 4 and not FILLER.intersection(words[:1]):
        return term
    return ""


def without_filler(groups: list[Group]) -> list[Group]:
    """A question's words that carry its topic: question words and requests dropped from
    queries of three words or more (a short query is all topic: "how" alone is searched).
    Quoted phrases and alternatives (a OR b) stay as typed."""
    if len(groups) < 3:
        return groups
    groups = list(dict.fromkeys(groups))  # a word asked twice is not twice the topic
    kept = [
        g for g in groups if len(g.items) > 1 or isinstance(g.items[0], Phrase) or not _filler(g)
    ]
    return kept or groups


def _filler(group: Group) -> bool:
    word = fold(group.items[0].text)  # "what's" is filler as "whats" and as "what"
    return word.replace("'", "") in FILLER or word.split("'")[0] in FILLER


def min_match(groups: int) -> int:
    """How many of a query's word groups a document must match: all of a short query's; of a
    longer one, half (documents matching more come first: coordination). Measured on the dev
    set: a third or a quarter let noise in, two thirds left questions with nothing."""
    if groups <= 2:
        return 0
    return max(2, math.ceil(groups * 0.5))


#: Words in the longest card names people type whole; a longer query is not a card's name.
LONGEST_NAME = 6


def names_a_card(text: str, suggestions: list[Suggestion]) -> bool:
    """Whether the query is (close to) a card's name: the catalogue's titles starting with
    what was typed, compared as typed, folded."""
    typed = plain(text)
    if len(typed) < 3:
        return False
    starting: set[str] = set()
    for s in suggestions:
        if s.kind != "card":
            continue
        faces = [plain(face) for face in s.title.split("//")]
        names = [plain(s.title), *faces]
        if any(fuzz.ratio(typed, name) >= 85 for name in names):
            return True
        starting.update(name for name in names if name.startswith(typed))
    # The start of one card's name only ("snapcaster"), not a word many names start with.
    return len(starting) == 1 and len(typed) >= 0.5 * len(starting.pop())


JARGON_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "vocabulary" / "jargon.csv"


@cache
def jargon() -> dict[tuple[str, ...], list[str]]:
    """Players' shorthand and the words the rules use for it (fixtures/vocabulary/jargon.csv:
    `said`, then `means`, alternatives separated by "|"), keyed by the folded words said."""
    with JARGON_FILE.open(encoding="utf-8", newline="") as f:
        return {
            tuple(fold(row["said"]).split()): [m.strip() for m in row["means"].split("|")]
            for row in csv.DictReader(f)
        }


#: First words that make a long query a question or a told situation (English, French).
_QUESTION_OPENERS = frozenset(
    """
    what whats which who when whenever where why how does do did is are was were can could
    should would will if my i when once after before while during
    doesn don didn isn aren wasn weren couldn wouldn shouldn won
    si quand comment est que quoi qu pourquoi peut peux puis mon ma mes je j lorsque apres
    avant pendant
    """.split()  # noqa: SIM905 - a word list reads best as words
)
#: Question words that follow a preposition at a question's start.
_AFTER_PREPOSITION = frozenset(
    "what which whom whose how quel quelle quels quelles quoi".split()  # noqa: SIM905
)
#: Fewer words than this are a term, a name or a keyword search, whatever their shape.
QUESTION_MIN_WORDS = 5


def question_shaped(text: str, *, asked: bool | None = None, typed: str | None = None) -> bool:
    """Whether a query is a question or a situation told in a player's words ("if i sac the
    creature in response does the pump still resolve", "blocked creature removed from combat,
    damage still dealt?", "creature that's both a pirate and a rogue, does it count as 2
    outlaws"): five words or more, and a question mark, a question's or a story's first word
    (or a preposition and a question's word: "at what point…"), or a later clause that asks.
    Such queries are searched by meaning too (kb.sitesearch.meaning).
    `asked`: whether the query as typed asks (`asks`), and `typed` the query as typed, for a
    `text` the parser has already stripped of its punctuation (None: read `text` itself)."""
    # Apostrophes and hyphens split ("doesn't" -> "doesn", "peut-on" -> "peut").
    words = fold(text).replace("'", " ").replace("’", " ").replace("-", " ").split()
    if len(words) < QUESTION_MIN_WORDS:
        return False
    typed = text if typed is None else typed
    if asked is None:
        asked = asks(typed)
    first, second = (w.strip("?,.!") for w in words[:2])
    return asked or first in _QUESTION_OPENERS or second in _AFTER_PREPOSITION or _asks_later(typed)


def asks(text: str) -> bool:
    """Whether a query, as typed, asks: a question mark, at its end or within it ("two
    landfall triggers off one land, which resolves first? do i pick"). A rule answers it, and
    the retriever's list leads (kb.sitesearch.meaning.blend_for). A question without one
    ("…, does it count as 2 outlaws") is question-shaped but told: on the sampled set's
    paraphrases, which read so, letting the retriever lead cost 0.05 (dev, 2026-12-06)."""
    return "?" in text


def _asks_later(typed: str) -> bool:
    """Whether a clause after the first opens with a question's word: players set the scene,
    then ask. Read from the query as typed, with its punctuation; the first clause does not
    count ("when this creature enters, …" is a card's text; the first word is read anyway)."""
    clauses = _CLAUSE_BREAK_RE.split(fold(typed).replace("’", "'"))[1:]
    # "what's" -> "whats"; "can't" -> "cant", which asks nothing ("…, can't block").
    return any(c.split()[0].replace("'", "") in _CLAUSE_QUESTIONS for c in clauses if c.split())


#: What splits a query into clauses: the punctuation that sets a question apart from its scene.
_CLAUSE_BREAK_RE = re.compile(r"[,;:]|\s[-\u2013\u2014]+\s")
#: Words that open a clause that asks (English, French), folded, apostrophes dropped; "when"
#: and "if" open conditions, not questions.
_CLAUSE_QUESTIONS = frozenset(
    """
    what whats which who where why how does do did is are was were can could should would will
    est comment pourquoi combien quel quelle quels quelles peut peux puis faut dois
    """.split()  # noqa: SIM905 - a word list reads best as words
)


_NUMBER_QUERY_RE = re.compile(
    r"^(?:(?:cr|rule|r[èe]gle|r)\s*\.?\s*)?([1-9]\d\d(?:\.\d+(?:\s?[a-z]{1,2})?)?)\.?$",
    re.IGNORECASE,
)


def number_in_query(query: str) -> str | None:
    """A rule number typed in any usual shape ("602.2a", "602.2 a", "CR 602.2a", "R602.2a")."""
    m = _NUMBER_QUERY_RE.match(query.strip())
    return m.group(1).replace(" ", "").lower() if m else None
