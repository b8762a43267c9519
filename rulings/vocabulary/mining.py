"""Mining the French names of the CR's keywords from cards printed in both languages.

No French Comprehensive Rules exists offline, but 18,000 cards carry their English Oracle text
and their printed French text. Two kinds of evidence, both counted per card:

* keyword lines: a line of the English text made only of keyword abilities ("Flying, ward {2}")
  lines up with the same line of the French text ("Vol, parade {2}"); the items pair up in
  order. This names most keyword abilities of chapter 702 exactly.
* association: keyword actions live inside sentences ("Scry 2.", "exile target creature"), so
  for each action the French word most specific to the lines where the English uses it wins
  ("regard" for scry). Verb forms are kept as printed (imperative "exilez"); the curated list
  in ``fixtures/vocabulary/fr_terms.csv`` gives the dictionary form where it matters.

The result goes to ``kb.VocabularyTerm`` (kb shows it on keyword rules and glossary entries;
search uses it). A curated row wins over a mined one for the same English term, but keeps the
mined evidence so a reviewer sees whether the cards agree.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction

from kb.models import Release, RuleNumber, RuleVersion
from kb.models.vocabulary import VocabularySource, VocabularyTerm
from kb.selectors import glossary_key, glossary_names
from rulings.linking import ability_forms, action_forms, words_pattern
from rulings.linking.literals import may_match, prefilterable, required_literals
from rulings.models import Card
from rulings.vocabulary.french_forms import action_term, phrase_around, tokens
from search.indexing import enqueue

CURATED_FILE = Path(settings.BASE_DIR) / "fixtures" / "vocabulary" / "fr_terms.csv"

#: A mined term needs this many agreeing cards (or every card seen), and this share of them.
MIN_AGREEING = 2
MIN_SHARE = 0.5
#: French lines kept per keyword to widen a fragment to its phrase (french_forms).
MAX_LINES = 600

_REMINDER = re.compile(r"\s*\([^)]*\)")
_COST = re.compile(r"\{[^}]*\}")
_FR_WORD = re.compile(r"[a-zàâäçéèêëîïôöùûüÿœæ]+(?:['’-][a-zàâäçéèêëîïôöùûüÿœæ]+)*")
#: Tell-tale English words: some "French" texts in the source are untranslated English.
_ENGLISH = re.compile(r"\b(?:the|you|your|of|creature|target|with|when)\b")
#: French words too common to name anything (articles, pronouns, frequent verbs of rules text).
_FR_STOP = frozenset(
    """a à au aux avec ce ces cet cette chaque chacun chacune contre dans de des du elle elles en
    est et il ils jusqu la le les leur leurs lui ne n ou où par pas peut plus pour qu que qui sa se
    ses si son sont sous sur ta te ton tour tous tout toute toutes un une vos votre vous y l d s
    fin qu'il n'importe quelle quel cible ciblé ciblée carte cartes créature créatures joueur
    adversaire contrôle contrôlez mettez mana marqueur marqueurs""".split()  # noqa: SIM905
)


@dataclass
class Keyword:
    name: str  # as the CR titles it ("Double strike")
    lineage_id: int
    kind: str  # "keyword ability" or "keyword action"


@dataclass
class Evidence:
    """Per keyword: French candidates and how many cards gave each."""

    votes: Counter[str] = field(default_factory=Counter)
    seen: int = 0
    #: Association evidence ranks by specificity, not by raw count, and needs no majority.
    ranked: list[str] = field(default_factory=list)
    #: Some French lines of the cards using the keyword (to widen a fragment to its phrase).
    lines: list[str] = field(default_factory=list)

    def best(self) -> tuple[str, int] | None:
        if self.ranked:
            return self.ranked[0], self.votes[self.ranked[0]]
        if not self.votes:
            return None
        term, count = self.votes.most_common(1)[0]
        # A keyword printed on a single card in both languages is named by it (Ravenous:
        # "Voracité"); two cards or more must mostly agree.
        unanimous = count == self.seen
        if (count < MIN_AGREEING and not unanimous) or count < MIN_SHARE * self.seen:
            return None
        return term, count

    def weak(self) -> tuple[str, int] | None:
        """The leading candidate even when too few cards agree: stored for maintainers, and
        left out of the pages by the shown rule (kb.models.vocabulary)."""
        if not self.votes:
            return None
        return self.votes.most_common(1)[0]

    def alternatives(self, chosen: str) -> list[list[str | int]]:
        return [
            [t, n]
            for t, n in self.votes.most_common(4)
            if t.casefold() != chosen.casefold() and n >= MIN_AGREEING
        ]


def keywords_in_force(date: dt.date | None = None) -> list[Keyword]:
    """The keyword abilities (702.x) and actions (701.x) of the release in force on ``date``."""
    if date is None:
        current = Release.objects.current()
        if current is None:
            return []
        date = current.effective_date
    rows = RuleNumber.objects.as_of(date).filter(kind="rule", chapter__in=["701", "702"])
    chapter_of = {r.lineage_id: r.chapter for r in rows}
    titles = RuleVersion.objects.as_of(date).filter(lineage__in=list(chapter_of))
    result = []
    for lineage_id, text in titles.values_list("lineage_id", "text_en"):
        name = text.strip()
        if not name or len(name) > 40 or "." in name:
            continue  # a keyword rule's text is its name; longer texts are general rules
        kind = "keyword ability" if chapter_of[lineage_id] == "702" else "keyword action"
        result.append(Keyword(name, lineage_id, kind))
    return sorted(result, key=lambda k: k.name)


# -- reading the cards -----------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip() and line.strip() != "//"]


def card_pairs(cards: Iterable[Card] | None = None) -> Iterator[tuple[list[str], list[str]]]:
    """The aligned (English, French) lines of every card printed with a French text."""
    if cards is None:
        cards = (
            Card.objects.exclude(text_fr="")
            .exclude(text_fr__isnull=True)
            .only("text_en", "text_fr")
            .iterator(chunk_size=2000)
        )
    for card in cards:
        english, french = _lines(card.text_en or ""), _lines(card.text_fr or "")
        if not english or len(english) != len(french):
            continue  # a reprint's French text may have a different shape: no reliable pairing
        if any(_ENGLISH.search(line.casefold()) for line in french):
            continue  # the source sometimes gives the English text as the "French" one
        yield english, french


def _split_items(line: str) -> list[str]:
    return [item.strip() for item in _REMINDER.sub("", line).strip().split(",") if item.strip()]


def _keyword_of(item: str, names: dict[str, list[str]]) -> tuple[str, str] | None:
    """The keyword an English keyword-line item starts with, and what follows it (`names`
    by their first character: 45,000 items against 260 names each was a third of the
    vocabulary build)."""
    folded = item.casefold()
    for name in names.get(folded[:1], ()):  # longest first: "double strike" before "strike"
        rest = folded[len(name) :]
        if folded.startswith(name) and not rest[:1].isalpha():
            return name, item[len(name) :].strip()
    return None


def _french_term(item: str) -> str:
    """The keyword part of a French keyword-line item ("Parade {2}" -> "Parade")."""
    item = item.split(":")[0]
    item = re.split(r"\s[—–-]|—", item)[0]
    item = _COST.sub(" ", item)
    item = re.sub(r"\s\d+\b|\bX\b", " ", item)
    item = " ".join(item.split()).strip(" .")
    if re.search(r"[«»().;!?]", item) or len(item.split()) > 5:
        return ""  # a reminder text cut by a comma, not a keyword
    return item[:1].upper() + item[1:]


def _parameter_only(rest: str) -> bool:
    """True when what follows an English keyword is only a cost or a number ("{2}", "3")."""
    rest = _COST.sub(" ", rest)
    rest = re.split(r"[—–]", rest)[0]
    return not re.sub(r"\b(?:\d+|X)\b", " ", rest).strip(" .")


def mine_keyword_lines(
    pairs: Iterable[tuple[list[str], list[str]]], keywords: list[Keyword]
) -> dict[str, Evidence]:
    names: dict[str, list[str]] = defaultdict(list)
    for name in sorted({k.name.casefold() for k in keywords}, key=len, reverse=True):
        names[name[:1]].append(name)
    evidence: dict[str, Evidence] = defaultdict(Evidence)
    for english, french in pairs:
        seen_here: dict[str, str] = {}
        for en_line, fr_line in zip(english, french, strict=True):
            items = _split_items(en_line)
            matched = [_keyword_of(item, names) for item in items]
            if not items or not all(matched):
                continue
            fr_items = _split_items(fr_line)
            if len(fr_items) != len(items):
                continue
            for (name, rest), fr_item in zip(matched, fr_items, strict=True):
                if _parameter_only(rest) or ":" in fr_item:  # "Enchanter : créature"
                    seen_here.setdefault(name, _french_term(fr_item))
        for name, term in seen_here.items():  # one vote per card, whatever its reprints
            evidence[name].seen += 1
            if term:
                evidence[name].votes[term] += 1
    return evidence


_ELIDED = re.compile(r"^(?:[ldsnjmct]|qu|jusqu|lorsqu|puisqu)['’]")


def _french_words(line: str) -> list[str]:
    """Words of a French line, without reminder text or elided articles ("l'air" -> "air")."""
    return [_ELIDED.sub("", w) for w in _FR_WORD.findall(_REMINDER.sub("", line).casefold())]


def mine_associations(
    pairs: list[tuple[list[str], list[str]]],
    keywords: list[Keyword],
    forms: dict[str, list[str]],
    all_names: Iterable[str] = (),
) -> dict[str, Evidence]:
    """For each keyword, the French word most specific to the lines using it in English.

    A line counts for a keyword only where it uses it outside a longer keyword name of
    `all_names` (longest match first: "double strike" is not the action "double")."""
    patterns = {k.name.casefold(): words_pattern(forms[k.name.casefold()]) for k in keywords}
    # A keyword's pattern only searched in lines holding one of its words (linking.literals).
    literals = {name: required_literals(pattern) for name, pattern in patterns.items()}
    names = {n.casefold() for n in all_names}
    longer = {
        name: words_pattern(wider)
        for name in patterns
        if (wider := [n for n in names if n != name and re.search(rf"\b{re.escape(name)}\b", n)])
    }
    line_count: Counter[str] = Counter()
    hits: dict[str, Counter[str]] = defaultdict(Counter)
    lines_with: Counter[str] = Counter()
    french_lines: dict[str, list[str]] = defaultdict(list)
    for english, french in pairs:
        for en_line, fr_line in zip(english, french, strict=True):
            words = {w for w in _french_words(fr_line) if w not in _FR_STOP}
            line_count.update(words)
            en_text = _REMINDER.sub("", en_line)
            lowered = en_text.lower() if prefilterable(en_text) else None
            for name, pattern in patterns.items():
                if lowered is not None and not may_match(literals[name], lowered):
                    continue
                if pattern.search(en_text) and (
                    name not in longer or pattern.search(longer[name].sub(" ", en_text))
                ):
                    lines_with[name] += 1
                    hits[name].update(words)
                    if len(french_lines[name]) < MAX_LINES:
                        french_lines[name].append(_REMINDER.sub("", fr_line))
    evidence: dict[str, Evidence] = {}
    for name, counter in hits.items():
        total = lines_with[name]
        scored = []
        for word, count in counter.items():
            precision = count / line_count[word]
            enough = count >= max(MIN_AGREEING, 0.25 * total)
            if enough and precision >= 0.4 and len(word) > 2:
                scored.append((count * precision, word, count))
        scored.sort(reverse=True)
        evidence[name] = Evidence(
            votes=Counter({w: c for _s, w, c in scored[:4]}),
            seen=total,
            ranked=[w for _s, w, _c in scored[:4]],
            lines=french_lines[name],
        )
    return evidence


# -- the curated list ------------------------------------------------------------------------


@dataclass
class CuratedTerm:
    en: str
    fr: str
    kind: str
    rule: str
    glossary: str
    line: int


class VocabularyFileError(ValueError):
    """The curated list cannot be read; the message names the file and line."""


def read_curated(path: Path = CURATED_FILE) -> list[CuratedTerm]:
    """The curated EN/FR terms; a malformed row is refused naming the file and line."""
    terms = []
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"en", "fr", "kind"} - set(reader.fieldnames or [])
        if missing:
            raise VocabularyFileError(f"{path}: missing columns {', '.join(sorted(missing))}")
        for line, row in enumerate(reader, start=2):
            en, fr, kind = (row.get(k, "").strip() for k in ("en", "fr", "kind"))
            if not (en and fr and kind):
                raise VocabularyFileError(f"{path}, line {line}: en, fr and kind are required")
            terms.append(
                CuratedTerm(
                    en,
                    fr,
                    kind,
                    (row.get("rule") or "").strip(),
                    (row.get("glossary") or "").strip(),
                    line,
                )
            )
    return terms


# -- building the table ----------------------------------------------------------------------


@dataclass
class Report:
    keywords: Counter[str] = field(default_factory=Counter)  # by kind, in the current CR
    mined: Counter[str] = field(default_factory=Counter)  # by kind, named by the cards
    curated: int = 0
    unresolved: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # keywords the cards do not name
    #: Terms stored but not shown: too few agreeing cards (kb.models.vocabulary.SHOWN_*).
    left_out: list[str] = field(default_factory=list)

    def lines(self, *, detail: bool = True) -> list[str]:
        """What the rebuild did; without `detail` (what `make run` prints) the lists are
        counted, not spelt out: they are a maintainer's worklist, not a problem of the run."""
        out = [
            f"{kind.replace('ability', 'abilitie')}s named by the cards: "
            f"{self.mined[kind]} of {self.keywords[kind]}"
            for kind in sorted(self.keywords)
        ]
        out.append(f"curated terms: {self.curated}")
        if self.left_out:
            out.append(
                f"left out until a maintainer checks them (too few agreeing cards): "
                f"{len(self.left_out)}"
            )
            if detail:
                out += [f"  left out: {line}" for line in self.left_out]
        if self.missing and detail:
            out.append(f"no French term from the cards: {', '.join(self.missing)}")
        elif self.missing:
            out.append(
                f"keywords no card names in French: {len(self.missing)} "
                "(manage.py build_vocabulary lists them)"
            )
        out += [f"unresolved: {u}" for u in self.unresolved]
        return out


def build_vocabulary(curated_path: Path = CURATED_FILE) -> Report:
    """Rebuild the vocabulary table from what the cards and the curated list say, keeping
    every term a maintainer edited (see `_store`). Atomic."""
    curated = read_curated(curated_path)
    keywords = keywords_in_force()
    pairs = list(card_pairs())
    line_evidence = mine_keyword_lines(pairs, keywords)
    actions = [k for k in keywords if k.kind == "keyword action"]
    abilities_without_lines = [
        k
        for k in keywords
        if k.kind == "keyword ability" and not line_evidence[k.name.casefold()].best()
    ]
    forms = {k.name.casefold(): action_forms(k.name.casefold()) for k in actions}
    forms.update(
        {k.name.casefold(): ability_forms(k.name.casefold()) for k in abilities_without_lines}
    )
    assoc = mine_associations(
        pairs, actions + abilities_without_lines, forms, [k.name for k in keywords]
    )

    known = _word_counts(pairs)
    report = Report(keywords=Counter(k.kind for k in keywords))
    rows: dict[tuple[str, str], VocabularyTerm] = {}
    # Abilities first: an action's phrase may not be another keyword's name (see _action_name).
    taken = {t.fr.casefold() for t in curated}
    for k in sorted(keywords, key=lambda k: (k.kind != "keyword ability", k.name)):
        key = k.name.casefold()
        chosen = _choose(line_evidence.get(key), assoc.get(key))
        if chosen is None:
            report.missing.append(k.name)
            continue
        report.mined[k.kind] += 1
        ev, (term, count) = chosen
        alternatives = ev.alternatives(term)
        if k.kind == "keyword ability":  # abilities are names, printed capitalised
            term = term[:1].upper() + term[1:]
        else:
            term, count, alternatives = _action_name(ev, term, count, known.get, taken)
        taken.add(term.casefold())
        rows[(k.name, k.kind)] = VocabularyTerm(
            en=k.name,
            fr=term,
            kind=k.kind,
            lineage_id=k.lineage_id,
            source=VocabularySource.CARDS,
            agreeing=min(count, ev.seen),
            seen=ev.seen,
            alternatives=alternatives,
        )

    lineage_by_number = _current_lineages()
    glossary_by_name = _current_glossary()
    keyword_lineage = {(k.name.casefold(), k.kind): k.lineage_id for k in keywords}
    for term in curated:
        lineage_id = (
            lineage_by_number.get(term.rule)
            if term.rule
            else keyword_lineage.get((term.en.casefold(), term.kind))
        )
        if lineage_id is None and (term.rule or term.kind.startswith("keyword")):
            what = f"rule {term.rule}" if term.rule else f"no {term.kind} named {term.en}"
            report.unresolved.append(f"{curated_path.name}, line {term.line}: {what}")
        glossary_id = glossary_by_name.get(glossary_key(term.glossary or term.en))
        existing = rows.get((term.en, term.kind))
        if existing is not None:  # the curated wording wins; the cards' evidence stays
            mined = existing.fr
            existing.fr = term.fr
            existing.source = VocabularySource.CURATED
            if mined.casefold() != term.fr.casefold():
                existing.alternatives = [[mined, existing.agreeing], *existing.alternatives]
            existing.glossary_term_id = glossary_id
            if lineage_id:
                existing.lineage_id = lineage_id
        else:
            rows[(term.en, term.kind)] = VocabularyTerm(
                en=term.en,
                fr=term.fr,
                kind=term.kind,
                lineage_id=lineage_id,
                glossary_term_id=glossary_id,
                source=VocabularySource.CURATED,
            )
        report.curated += 1
    for row in rows.values():  # a keyword's glossary entry shares its name
        if row.glossary_term_id is None:
            row.glossary_term_id = glossary_by_name.get(glossary_key(row.en))
        if not row.shown:
            report.left_out.append(f"{row.en} = {row.fr} ({row.agreeing} of {row.seen} agree)")
    with transaction.atomic():
        _store(rows)
        # French terms are searchable on the rules and glossary entries they name.
        enqueue("rule")
        enqueue("glossary")
    return report


_EVIDENCE = ["mined_fr", "source", "agreeing", "seen", "alternatives", "lineage", "glossary_term"]


def _store(rows: dict[tuple[str, str], VocabularyTerm]) -> None:
    """Write the rebuilt rows without losing a maintainer's work.

    A row a maintainer edited keeps its id, its French term and its "checked" mark; the rebuild
    only refreshes its evidence (what the cards now say goes to `mined_fr`). An edited row the
    rebuild no longer produces stays as it is. A row only ticked "checked" keeps the mark while
    the mined term is still the one that was checked. Every other row is rebuilt.
    """
    for row in rows.values():
        row.mined_fr = row.fr
    old = {(t.en, t.kind): t for t in VocabularyTerm.objects.all()}
    keep: list[VocabularyTerm] = []
    for key, row in rows.items():
        was = old.get(key)
        if was is None:
            continue
        if was.edited:
            for name in _EVIDENCE:
                setattr(was, name, getattr(row, name))
            keep.append(was)
        elif was.checked and was.fr == row.fr:
            row.checked = True
    kept_ids = {t.pk for t in keep} | {t.pk for t in old.values() if t.edited}
    VocabularyTerm.objects.exclude(pk__in=kept_ids).delete()
    VocabularyTerm.objects.bulk_update(keep, _EVIDENCE, batch_size=500)
    kept_keys = {(t.en, t.kind) for t in old.values() if t.edited}
    VocabularyTerm.objects.bulk_create(
        [row for key, row in rows.items() if key not in kept_keys], batch_size=500
    )


def _choose(*evidence: Evidence | None) -> tuple[Evidence, tuple[str, int]] | None:
    """The first well-supported candidate (keyword lines before associations), else the first
    weak one: stored for maintainers, left out of the pages by the shown rule."""
    for ev in evidence:
        if ev is not None and (best := ev.best()) is not None:
            return ev, best
    for ev in evidence:
        if ev is not None and (weak := ev.weak()) is not None:
            return ev, weak
    return None


def _word_counts(pairs: Iterable[tuple[list[str], list[str]]]) -> Counter[str]:
    """How often each French word is printed on the cards (which verb forms exist)."""
    counts: Counter[str] = Counter()
    for _english, french in pairs:
        for line in french:
            for clause in tokens(line):
                counts.update(t.casefold().replace("’", "'") for t in clause)
    return counts


def _action_name(
    ev: Evidence,
    term: str,
    count: int,
    known: Callable[[str], int | None],
    taken: set[str],
) -> tuple[str, int, list[list[str | int]]]:
    """A keyword action's French name as the French rules give it: the whole phrase the mined
    word belongs to ("air" -> "maîtrisez l'Air"), then its infinitive ("maîtriser l'Air"). The
    cards printing another form of the same name ("contemplez", "contempler") agree with it.
    A phrase that is another keyword's French name ("double initiative") is not this one's."""
    counted = lambda form: known(form) or 0  # noqa: E731
    mined = term
    if " " not in term and ev.lines:
        phrase, support = phrase_around(term, ev.lines, _FR_STOP, counted)
        if phrase != term and phrase.casefold() not in taken:
            term, count = phrase, min(count, support)
    name = action_term(term, counted)
    same = name.casefold()
    count += sum(
        n for t, n in ev.votes.items() if t != mined and action_term(t, counted).casefold() == same
    )
    alternatives = [
        [t, n] for t, n in ev.alternatives(mined) if action_term(str(t), counted).casefold() != same
    ]
    return name, count, alternatives


def _today_release() -> dt.date:
    current = Release.objects.current()
    return current.effective_date if current else dt.date.today()


def _current_glossary() -> dict[str, int]:
    """Glossary term ids by `glossary_key` of headword and alias, as the current release has
    them."""
    return {key: n.term_id for key, n in glossary_names(_today_release()).items()}


def _current_lineages() -> dict[str, int]:
    date = _today_release()
    return dict(RuleNumber.objects.as_of(date).values_list("number", "lineage_id"))
