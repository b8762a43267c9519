"""French word forms for the mined vocabulary: keyword actions named by their infinitive, and
terms that are only a fragment of the French phrase the cards print.

Cards speak to the player ("Sacrifiez une créature", "maîtrisez l'Air sur…"), while the French
rules name a keyword action by its infinitive ("701.21. Sacrifier"). Mining words from card
texts therefore yields imperatives ("abandonnez"), imperatives with a pronoun
("assimilez-les"), third persons ("vote") or a fragment of a longer fixed phrase ("air" of
"maîtrisez l'Air", "tente" of "l'Anneau vous tente"). Two general rules fix these, both
checked against what the cards themselves print (no per-term list):

* `phrase_around` widens a mined word to the fixed phrase it sits in on most of the lines that
  use the keyword;
* `infinitive` turns a conjugated verb into its infinitive, preferring a form the cards print
  and otherwise following French conjugation (first group unless the ending says otherwise).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

#: Object pronouns glued to an imperative ("assimilez-les", "exilez-la", "défaussez-vous").
_PRONOUN = re.compile(r"-(?:les|la|le|lui|leur|vous|nous|en|y|moi|toi)$")
#: Imperative endings and the infinitive endings they come from, most specific first. The
#: default (-ez -> -er) is the first group, that of almost every keyword action.
_IMPERATIVE_ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("prenez", ("prendre",)),
    ("uisez", ("uire",)),
    ("ettez", ("ettre",)),
    ("attez", ("attre",)),
    ("enez", ("enir",)),
    ("ouvrez", ("ouvrir",)),
    ("issez", ("ir", "isser")),
    ("ez", ("er", "ir", "re")),
)
_TOKEN = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*['’]?")
_CLAUSE = re.compile(r"[.,;:!?()«»—–\"“”\n]|\s-\s")
#: Articles that may open a phrase ("l'Anneau vous tente"); other function words may not.
_ARTICLES = frozenset({"l'", "la", "le", "les"})
#: A neighbour printed on this share of the occurrences that have one, and on this share of
#: all of them, is part of the phrase.
PHRASE_SHARE = 0.6
PHRASE_MIN_SHARE = 0.4
PHRASE_MAX_WORDS = 5


def infinitive(word: str, known: Callable[[str], int] | None = None) -> str | None:
    """The infinitive of a conjugated French verb ("abandonnez" -> "abandonner",
    "assimilez-les" -> "assimiler", "détenez" -> "détenir"), or None when `word` does not look
    conjugated. `known(form)` counts a form in the cards' French texts: a printed infinitive
    wins over the conjugation rules."""
    w = _PRONOUN.sub("", word.casefold())
    for ending, replacements in _IMPERATIVE_ENDINGS:
        if w.endswith(ending) and len(w) > len(ending):
            stem = w[: -len(ending)]
            candidates = [stem + r for r in replacements]
            if known is not None:
                printed = [c for c in candidates if known(c)]
                if printed:
                    return max(printed, key=known)
            return candidates[0]
    return None


def third_person_infinitive(word: str, known: Callable[[str], int]) -> str | None:
    """A third person of a first-group verb ("vote", "explore") as an infinitive, when the cards
    print another form of the same verb (so that nouns such as "gangrène" stay nouns)."""
    w = word.casefold()
    if not w.endswith("e") or w.endswith("ée") or len(w) < 4:
        return None
    stem = w[:-1]
    forms = (w + "r", w + "nt", stem + "ez", stem + "é", stem + "ée")
    return w + "r" if any(known(f) for f in forms) else None


def tokens(line: str) -> list[list[str]]:
    """Words of a French line by clause, elided articles split off ("l'Air" -> "l'", "Air")."""
    return [_TOKEN.findall(clause) for clause in _CLAUSE.split(line) if clause.strip()]


def _key(token: str) -> str:
    """What two tokens share to count as the same word: case, apostrophe and the verb form
    (imperative or infinitive) aside."""
    t = token.casefold().replace("’", "'")
    return infinitive(t) or t


def phrase_around(
    word: str,
    lines: Iterable[str],
    stop: frozenset[str],
    known: Callable[[str], int] = lambda form: 0,
) -> tuple[str, int]:
    """The fixed phrase `word` belongs to on the given French lines ("air" -> "maîtrisez l'Air"),
    or `word` itself; and on how many occurrences it was found. A neighbour joins the phrase
    when it is the same word on at least PHRASE_SHARE of the occurrences still matching; the
    phrase may not end on a function word (`stop`), and may open only on an article."""
    target = word.casefold()
    occurrences: list[tuple[list[str], int]] = []
    for line in lines:
        for clause in tokens(line):
            keys = [t.casefold().replace("’", "'") for t in clause]
            occurrences += [(clause, i) for i, k in enumerate(keys) if k == target]
    if len(occurrences) < 2:
        return word, len(occurrences)
    start = end = 0  # offsets of the phrase around each occurrence
    current = occurrences
    # A verb opens its phrase ("vous pouvez surmener" names "surmener"): only other words
    # ("air", "tente", "gangrène") take what precedes them.
    while not is_verb(word, known) and end - start + 1 < PHRASE_MAX_WORDS:
        grown = _grow(current, start - 1)
        if grown is None:
            break
        start -= 1
        current = grown
        if is_verb(_at(current[0], start), known):
            break  # the verb opens the phrase ("appliquez gangrène", not "pouvez appliquer…")
    while end - start + 1 < PHRASE_MAX_WORDS:
        grown = _grow(current, end + 1)
        if grown is None or _plain(_at(grown[0], end + 1)) in stop:
            break
        end += 1
        current = grown
    # Trim function words at both ends (an article may open the phrase before a content word).
    while (
        start < 0
        and _function_word(_at(current[0], start), stop)
        and not _article(_at(current[0], start))
    ):
        start += 1
    while end > 0 and _function_word(_at(current[0], end), stop):
        end -= 1
    if start == end == 0:
        return word, len(occurrences)
    words = [_surface(current, k) for k in range(start, end + 1)]
    return re.sub(r"(['’]) ", r"\1", " ".join(words)), len(current)


def _plain(token: str) -> str:
    return token.casefold().replace("’", "'")


def _function_word(token: str, stop: frozenset[str]) -> bool:
    """Articles, pronouns, prepositions: elided ones too ("d'", "n'")."""
    plain = _plain(token)
    return plain in stop or plain.endswith("'")


def _article(token: str) -> bool:
    return _plain(token) in _ARTICLES


def is_verb(word: str, known: Callable[[str], int]) -> bool:
    """An imperative ("abandonnez", "assimilez-les"), or an infinitive whose imperative the
    cards print ("surmener": "surmenez"; not "terre")."""
    w = _PRONOUN.sub("", word.casefold())
    if w.endswith("ez"):
        return True
    if w.endswith(("er", "ir")):
        return bool(known(w[:-2] + "ez") or known(w[:-2] + "issez"))
    if w.endswith("re"):
        return bool(known(w[:-2] + "ez") or known(w[:-3] + "sez"))
    return False


def _at(occurrence: tuple[list[str], int], offset: int) -> str:
    clause, i = occurrence
    return clause[i + offset]


def _grow(current: list[tuple[list[str], int]], offset: int) -> list[tuple[list[str], int]] | None:
    """The occurrences whose neighbour at `offset` is the most common one, if it is common
    enough; None otherwise."""
    neighbours = Counter(
        _key(clause[i + offset]) for clause, i in current if 0 <= i + offset < len(clause)
    )
    if not neighbours:
        return None
    key, count = neighbours.most_common(1)[0]
    # Occurrences at the edge of a clause ("{T}, gangrène 1 :") have no neighbour to vote with.
    with_neighbour = sum(neighbours.values())
    if count < PHRASE_SHARE * with_neighbour or count < PHRASE_MIN_SHARE * len(current):
        return None
    if count < 2:
        return None
    return [
        (clause, i)
        for clause, i in current
        if 0 <= i + offset < len(clause) and _key(clause[i + offset]) == key
    ]


def _surface(current: list[tuple[list[str], int]], offset: int) -> str:
    """The form most often printed at `offset` of the phrase."""
    return Counter(_at(o, offset) for o in current).most_common(1)[0][0]


def action_term(phrase: str, known: Callable[[str], int]) -> str:
    """A keyword action's French name as the French rules give it: the infinitive, with the
    rest of the phrase as printed ("Maîtrisez la Terre" -> "maîtriser la Terre", "vote" ->
    "voter"); nouns and phrases without a verb stay as they are ("monstruosité")."""
    head, sep, rest = phrase.partition(" ")
    # A leading article belongs to a noun phrase ("l'Anneau vous tente"): nothing to conjugate.
    verb = infinitive(head, known)
    if verb is None and not sep:
        verb = third_person_infinitive(head, known)
    if verb is None:
        return phrase
    return verb + sep + rest


def is_conjugated(term: str) -> bool:
    """Whether a French term opens on an imperative ("abandonnez", "assimilez-les"): what a
    keyword action's name must never be."""
    head = term.split(" ")[0].casefold()
    return head.endswith("ez") or bool(_PRONOUN.search(head))
