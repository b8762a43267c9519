"""Search as the site offers it: what views, the API and the bench call.

On top of a backend's full-text search: rule numbers typed in any usual shape jump to the rule;
one stop-word policy for every field; French queries reach English rules through the EN<->FR
vocabulary; a keyword or glossary term puts its defining rules first, then its glossary entry;
a did-you-mean over titles; links, chapter headings and the release for each hit.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from config import languages
from kb import hooks, selectors
from kb.crtext.numbers import is_number
from kb.french import glosses
from kb.models import Release
from kb.sitesearch import crosslingual, meaning, understanding
from kb.stamps import archive_generation
from kb.web import page_cache
from search.analysis import english as english_analyzer
from search.analysis import fold, is_stop_word, plain, stem_words
from search.backend import SearchRequest, SearchUnavailable, Suggestion, get_backend
from search.documents import Hit, Results
from search.registry import document_type
from search.syntax import Group, Item, ParsedQuery, Phrase, Word, parse

log = logging.getLogger(__name__)
PER_PAGE = 20
MAX_PAGE = 500


@dataclass
class SearchPage:
    """Everything a results page or API answer shows."""

    query: str
    parsed: ParsedQuery
    release: Release | None
    is_current: bool
    results: Results = field(default_factory=lambda: Results([], 0, 1, PER_PAGE))
    jump: str = ""  # the rule's URL when the query is a rule number found in the release
    number: str = ""  # a rule number the query named (found or not)
    nearest: list[str] = field(default_factory=list)  # when that number does not exist
    correction: str = ""  # did you mean …
    corrected: bool = False  # the results are the correction's (the query found nothing)
    suggestions: list[Suggestion] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    via: dict[str, str] = field(default_factory=dict)  # French term -> English term used
    unavailable: bool = False
    building: bool = False  # unavailable because a first index is being built
    kinds: list[str] = field(default_factory=list)
    lang: str | None = None
    #: All of them, oldest first (the release filter lists them).
    releases: selectors.Releases = field(default_factory=lambda: selectors.Releases([]))

    @property
    def release_token(self) -> str | None:
        """None for the current release (links go to current pages), else its date."""
        if self.release is None or self.is_current:
            return None
        return self.release.effective_date.isoformat()


def search(
    raw: str,
    *,
    kinds: Iterable[str] = (),
    release: str | None = None,
    lang: str | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
) -> SearchPage:
    """Run a query as typed. Filters given as arguments (the page's and the API's
    parameters) win over those typed in the query."""
    parsed = parse(raw)
    kinds = [k for k in kinds if document_type(k)] or parsed.kinds
    lang = languages.supported(lang) or parsed.lang
    releases = selectors.Releases.load()
    chosen, notices = _release(release or parsed.release, releases)
    out = SearchPage(
        query=parsed.text if parsed.empty else raw.strip()[:500],
        parsed=parsed,
        release=chosen,
        is_current=chosen is None or chosen == releases.current,
        notices=notices,
        kinds=list(kinds),
        lang=lang,
        releases=releases,
    )
    if chosen is not None and releases.is_upcoming(chosen):
        out.notices.append(
            _("The release effective %(d)s is not in force yet: these are the rules to come.")
            % {"d": chosen.effective_date.isoformat()}
        )
    if parsed.truncated:
        out.notices.append(_("Only the first 500 characters of the query were read."))
    for f in parsed.ignored:
        out.notices.append(
            _("“%(f)s” is not a filter this search knows; it was ignored.") % {"f": f}
        )
    if parsed.empty or chosen is None:
        return out
    date = chosen.effective_date
    number = understanding.number_in_query(parsed.text)
    if number and len(parsed.groups) <= 3:
        _number(out, number, date)
    term = understanding.definition_term(parsed.text) if not parsed.excluded else ""
    # A question is embedded while its words are searched (kb.sitesearch.meaning): started
    # before anything else, the expansions below included, as the encoder is the longest step.
    # The parser drops punctuation: whether the query asks is read from it as typed.
    asked = understanding.asks(raw)
    pending = (
        meaning.start(parsed.text, asked=asked)
        if page == 1
        and out.is_current
        and not term
        and not parsed.excluded
        and not (number and len(parsed.groups) <= 3)
        and meaning.applies(kinds, lang)
        and understanding.question_shaped(parsed.text, asked=asked, typed=raw)
        else None
    )
    groups = list(parse(term).groups if term else parsed.groups)
    # Before stop words go: "actions basées sur un état" is a term as typed.
    as_typed = understanding.without_filler(without_stop_words(groups))
    if lang != languages.SOURCE:
        groups = _expand_french(groups, out.via)
    groups = _expand_jargon(groups, out)
    groups = understanding.without_filler(without_stop_words(groups))
    backend = get_backend()
    request = SearchRequest(
        groups=tuple(groups),
        excluded=tuple(parsed.excluded),
        kinds=tuple(kinds),
        release=date,
        lang=lang,
        page=max(1, min(page, MAX_PAGE)),
        per_page=per_page,
        min_match=understanding.min_match(len(groups)),
    )
    try:
        if lang != languages.SOURCE and not parsed.excluded and not _one_term(out.via, as_typed):
            request = _bridge(out, backend, request, as_typed, term or parsed.text)
        request = _weigh_kinds(request, backend, term or parsed.text, date)
        out.results = backend.search(request)
        _correct(out, backend, request, parsed)
        if not out.results.total:
            _relax(out, backend, request)
        if request.page == 1:  # a corrected query ("mulligen") is the term it was corrected to
            _definitions_first(
                out,
                backend,
                request,
                out.correction if out.corrected else term or parsed.text,
                asked=bool(term),
            )
        if out.number and out.jump and request.page == 1:
            _number_first(out, backend, request)
        elif pending is not None:
            _by_meaning(out, backend, request, pending)
        elif (
            request.page == 1
            and out.is_current
            and not term
            and not parsed.excluded
            and len(parsed.text.split()) <= NAME_MAX_WORDS
        ):
            _name_first(out, backend, request, parsed.text)
        if not out.results.total:
            out.suggestions = backend.suggest(parsed.text, limit=8, release=date)
    except SearchUnavailable as exc:
        # A first build under way is progress, said once by the worker; anything else is
        # an operator's problem.
        (log.info if exc.building else log.warning)("search unavailable: %s", exc)
        out.unavailable = True
        out.building = exc.building
        page_cache.do_not_store()  # the index will come: this answer must not stay
    _decorate(out.results.hits, out)
    return out


def _by_meaning(out: SearchPage, backend, request: SearchRequest, pending) -> None:
    """A question in the current release: its first page fused with the semantic retriever's
    answers (kb.sitesearch.meaning), said so; while the retriever is not ready, said too."""
    fused = meaning.fuse(out.results.hits, pending, backend, request, per_page=request.per_page)
    if fused is None:
        notice = meaning.unavailable_notice(pending)
        if notice:
            out.notices.append(notice)
            page_cache.do_not_store()  # the vectors will come: this answer must not stay
        return
    out.results.hits = fused.hits
    out.results.total = max(out.results.total, len(fused.hits))
    out.notices.append(fused.notice)


def start_warm_up() -> threading.Thread | None:
    """Warm the search backend in a thread, for the current release (wsgi.py calls it, so
    that a new web process does not make its first searchers wait for what every search
    needs: the index opened, tables per searcher, the most frequent words scored)."""
    from django.conf import settings

    if not getattr(settings, "KB_SEARCH_WARM_UP", True):
        return None
    thread = threading.Thread(target=_warm_up, name="search-warm-up", daemon=True)
    thread.start()
    return thread


def _warm_up() -> None:
    from django.db import connection

    try:
        current = selectors.Releases.load().current
        get_backend().warm(current.effective_date if current else None)
        meaning.warm()
    except SearchUnavailable as exc:
        log.info("search warm-up skipped: %s", exc)
    except Exception:  # an optimisation: never a reason for a web process to fail
        log.warning("search warm-up failed", exc_info=True)
    finally:
        connection.close()  # this thread's own connection


def suggest(text: str, *, limit: int = 10) -> list[tuple[Suggestion, str]]:
    """Autocomplete: titles starting with what was typed, with their links (current); the
    cards as the Cards page finds them (typos, apostrophes left out, the better known card
    first: kb.hooks.name_finders), where the index's own card titles were."""
    current = selectors.Releases.load().current
    try:
        found = get_backend().suggest(
            text[:100], limit=limit, release=current.effective_date if current else None
        )
    except SearchUnavailable:
        page_cache.do_not_store()
        return []
    named = [s for finder in hooks.name_finders() for s, _sure in finder(text[:100], limit)]
    if named:
        others = [s for s in found if s.kind != "card"]
        cards_first = not others or (bool(found) and found[0].kind == "card")
        found = (named + others if cards_first else others + named)[:limit]
    out = []
    for s in found:
        hit = _link_only(s.kind, s.ref, s.number, {s.lang: s.title})
        doc_type = document_type(s.kind)
        out.append((s, doc_type.url(hit, None) if doc_type else ""))
    return out


def _card_hit(backend, request: SearchRequest, name: Suggestion) -> Hit | None:
    """The index's hit for a card the name finder found (searched by its name as a phrase,
    among cards: card documents are not looked up by their ref)."""
    probe = SearchRequest(
        groups=(Group((Phrase(name.title),)),),
        kinds=("card",),
        release=request.release,
        per_page=10,
    )
    return next((h for h in backend.search(probe).hits if h.ref == name.ref), None)


#: How sure a name finder must be that the query is a name misspelt (or typed whole) for the
#: search to put that card first and say "did you mean": a close spelling of the whole name.
NAME_SURE = 85.0
#: Longer queries are sentences, not names (nearly every card name has four words or fewer).
NAME_MAX_WORDS = 4


def _name_first(out: SearchPage, backend, request: SearchRequest, typed: str) -> None:
    """A query that is a card's name misspelt ("lightnig blot") has that card first and is
    corrected ("Did you mean Lightning Bolt?"): the words alone found other cards that share
    one of them (Blot Out)."""
    if (request.kinds and "card" not in request.kinds) or out.via:
        return  # out.via: the words were read as a rules term ("engager": tap)
    hits = out.results.hits
    if hits and any(plain(t) == plain(typed) for t in hits[0].titles.values() if t):
        return  # the words found what they name ("first strike", "règle des légendes")
    # Asked only where a name looks meant (a word the index does not know, or the words led
    # to a card or its rulings): the finder reads 45,000 names, some 10 ms a query.
    if not out.correction and not (hits and hits[0].kind in ("card", "ruling")):
        return
    for finder in hooks.name_finders():
        best = finder(typed, 1, least=NAME_SURE)
        # A name typed whole is the words' to find (a card named "Flash" must not push the
        # keyword aside); a close spelling of one is what the words cannot find.
        if not best or not NAME_SURE <= best[0][1] < 100:
            continue
        name = best[0][0]
        hits = out.results.hits
        if hits and hits[0].kind == "card" and hits[0].ref == name.ref:
            return
        hit = _card_hit(backend, request, name)
        if hit is None:
            return
        rest = [h for h in hits if not (h.kind == "card" and h.ref == name.ref)]
        out.results.hits = [hit, *rest][: max(len(hits), 1)]
        out.results.total = max(out.results.total, len(out.results.hits))
        if plain(name.title) != plain(typed):
            out.correction, out.corrected = name.title, False
        return


# -- the steps ---------------------------------------------------------------------------------


def _release(token: str | None, releases: selectors.Releases) -> tuple[Release | None, list[str]]:
    """The release to search and why it is not the one asked for: search never fails on a
    release filter, it searches the current rules and says so."""
    if not releases.all:
        return None, [_("No rules are loaded yet.")]
    try:
        return selectors.release_for(token or "current", releases), []
    except selectors.BadRelease:
        return releases.current, [
            _("“%(r)s” is not a date (YYYY-MM-DD); searching the current rules.") % {"r": token}
        ]
    except selectors.NoRelease as exc:
        message = _(
            "No release was in force on %(d)s (the first is %(first)s); "
            "searching the current rules."
        )
        first = exc.first.isoformat() if exc.first else ""
        return releases.current, [message % {"d": token, "first": first}]


def _number(out: SearchPage, number: str, date: dt.date) -> None:
    out.number = number
    if selectors.rule_version(number, date) is None:
        out.nearest = selectors.nearest_numbers(number, date) if is_number(number) else []
        return
    hit = _link_only("rule", number, number)
    out.jump = document_type("rule").url(hit, out.release_token)


def _link_only(kind: str, ref: str, number: str, titles: dict[str, str] | None = None) -> Hit:
    """A hit with what a kind's URL builder reads, for a link to something not searched."""
    return Hit(
        kind=kind, key="", ref=ref, titles=titles or {}, number=number, chapter="", label="",
        date=None, valid_from=None, valid_to=None, score=0.0,
    )  # fmt: skip


def without_stop_words(groups: list[Group]) -> list[Group]:
    """One stop-word policy for every field: a stop word is never a required term (it would
    have to match in the fields that keep stop words). Quoted phrases keep theirs."""
    kept = []
    for g in groups:
        items = tuple(i for i in g.items if isinstance(i, Phrase) or not is_stop_word(i.text))
        if items:
            kept.append(Group(items))
    return kept or groups  # a query made only of stop words searches them as typed


@lru_cache(maxsize=1)
def _vocabulary(stamp: tuple) -> dict[tuple[str, ...], str]:
    out: dict[tuple[str, ...], str] = {}
    for en, fr in selectors.vocabulary_pairs():
        words = tuple(fold(fr).replace("'", " ").split())
        if words and fold(en) != " ".join(words):
            out.setdefault(words, en)
    return out


def _vocabulary_now() -> dict[tuple[str, ...], str]:
    """The vocabulary, re-read when it changes (glosses.vocabulary_stamp: the pages' own key,
    read at most every two seconds; a count of the terms on every search before, which missed
    an edit for up to a minute)."""
    return _vocabulary(glosses.vocabulary_stamp())


def _expand_french(groups: list[Group], via: dict[str, str]) -> list[Group]:
    """French words of the vocabulary ("piétinement", "contact mortel") also search their
    English term, so French queries reach English rules, rulings and card texts."""
    vocabulary = _vocabulary_now()
    found: dict[str, list[str]] = {}
    out = expand(groups, {k: [v] for k, v in vocabulary.items()}, found)
    via.update({typed: alternatives[0] for typed, alternatives in found.items()})
    return out


def expand(
    groups: list[Group], table: dict[tuple[str, ...], list[str]], found: dict[str, list[str]]
) -> list[Group]:
    """Each run of words that `table` knows (folded words -> what else to search) becomes one
    group of alternatives: the words as typed, or any of the table's; longest runs first.
    What was expanded is recorded in `found` (as typed -> alternatives)."""
    words = [g.items[0] if len(g.items) == 1 else None for g in groups]
    if not table or not any(isinstance(w, Word) and not w.prefix for w in words):
        return groups
    longest = max(len(k) for k in table)
    out: list[Group] = []
    i = 0
    while i < len(groups):
        match = None
        for size in range(min(longest, len(groups) - i), 0, -1):
            span = words[i : i + size]
            if all(isinstance(w, Word) and not w.prefix for w in span):
                key = tuple(fold(w.text) for w in span)
                if key in table:
                    match = (size, table[key])
                    break
        if match is None:
            out.append(groups[i])
            i += 1
            continue
        size, alternatives = match
        typed = " ".join(w.text for w in words[i : i + size])
        original: Item = Phrase(typed) if size > 1 else Word(typed)
        others = [Phrase(a) if " " in a else Word(a) for a in alternatives]
        out.append(Group((original, *others)))
        found[typed] = alternatives
        i += size
    return out


def _expand_jargon(groups: list[Group], out: SearchPage) -> list[Group]:
    """Players' shorthand ("ETB", "CMC", "flyer", "sorcery speed") also searches the words
    the rules use, said so."""
    found: dict[str, list[str]] = {}
    groups = expand(groups, understanding.jargon(), found)
    for typed, alternatives in found.items():
        out.notices.append(
            _("“%(typed)s” was also searched as %(means)s.")
            % {"typed": typed, "means": ", ".join(f"“{a}”" for a in alternatives)}
        )
    return groups


def _one_term(via: dict[str, str], groups: list[Group]) -> bool:
    """Whether the vocabulary read the whole query as one of its terms."""
    if len(via) != 1:
        return False
    typed = [w for w in fold(next(iter(via))).replace("'", " ").split() if not is_stop_word(w)]
    return typed == [fold(i.text) for g in groups for i in g.items[:1]]


def _bridge(
    out: SearchPage, backend, request: SearchRequest, groups: list[Group], text: str
) -> SearchRequest:
    """French words the vocabulary lacks, searched as the English rules term that the cards
    printed with them say they stand for (see crosslingual), said so like the vocabulary."""
    assert out.release is not None
    names = glossary_targets(out.release.effective_date)
    found = crosslingual.bridge(backend, groups, request.release, names)
    if found is None:
        return request
    out.via.clear()  # the words stand for one term, not for the vocabulary's words in them
    english: Item = Phrase(found.english) if " " in found.english else Word(found.english)
    typed: list[Item] = [] if " " in found.typed else [Word(found.typed)]
    out.via[text.strip()] = found.english
    group = Group((*typed, english))
    return replace(request, groups=(group,), min_match=0)


def _correct(out: SearchPage, backend, request: SearchRequest, parsed: ParsedQuery) -> None:
    words = [
        i.text
        for g in parsed.groups
        for i in g.items
        if isinstance(i, Word) and not i.prefix and not i.text[:1].isdigit()
    ]
    fixes = backend.corrections(words)
    if not fixes:
        return
    out.correction = " ".join(fixes.get(w, w) for w in parsed.text.split())
    if out.results.total:
        return
    fixed = [
        Group(tuple(Word(fixes.get(i.text, i.text)) if isinstance(i, Word) else i for i in g.items))
        for g in request.groups
    ]
    retry = SearchRequest(**{**request.__dict__, "groups": tuple(fixed), "page": 1})
    results = backend.search(retry)
    if results.total:
        out.results, out.corrected = results, True


def glossary_targets(date: dt.date) -> dict[str, tuple[str, list[str]]]:
    """Folded headword or alias (singular too) -> (the term's slug, rules its entry cites), in
    the release in force on `date`. Kept per process under the archive's stamp
    (kb.stamps.archive_generation), which a glossary edit by any process moves: keyed on the
    release's import checksum, another worker kept the old glossary until it restarted. Not
    to be changed by the caller."""
    return _glossary_targets(date, archive_generation())


def glossary_stems(date: dt.date) -> dict[str, tuple[str, list[str]]]:
    """`glossary_targets` by the stems of the names' words ("destroying" asks for Destroy),
    kept under the same stamp."""
    return _stems(date, archive_generation())


@lru_cache(maxsize=8)
def _glossary_targets(date: dt.date, generation: str) -> dict[str, tuple[str, list[str]]]:
    names = selectors.glossary_names(date)
    cited = selectors.glossary_citations({n.version_id for n in names.values()})
    out: dict[str, tuple[str, list[str]]] = {}

    def claim(key: str, name: selectors.GlossaryName) -> None:
        target = (name.slug, cited.get(name.version_id, [])[:3])
        out.setdefault(key, target)
        out.setdefault(key.rstrip("s"), target)

    for key, name in names.items():
        claim(key, name)
    for name in {n.version_id: n for n in names.values()}.values():  # after every real name
        stem = name.headword[:-5].strip() if name.headword.lower().endswith(" rule") else ""
        if " " in stem:  # "Summoning Sickness Rule" is asked for as "summoning sickness"
            claim(selectors.glossary_key(stem), name)
    return out


def _definitions_first(
    out: SearchPage, backend, request: SearchRequest, text: str, *, asked: bool = False
) -> None:
    """A query naming a glossary term (or, in French, its vocabulary term): the rules its
    entry cites first, then the entry, then the rest as ranked. A definition request (`asked`)
    names it by its first words too ("what does it mean to exile target creature")."""
    if request.lang or (request.kinds and not {"rule", "glossary"} & set(request.kinds)):
        return  # a language filter asks for texts in that language, not definitions
    assert out.release is not None
    index = glossary_targets(out.release.effective_date)
    key = fold(text).strip()
    english = out.via.get(text.strip())
    stems = glossary_stems(out.release.effective_date)
    entry = (
        index.get(key)
        or index.get(key.rstrip("s"))
        or (index.get(fold(english)) if english else None)
        or stems.get(stem_words(key))
        or (_leading_term(index, stems, key) if asked else None)
    )
    if entry is None:
        return
    slug, numbers = entry
    ranked = {(h.kind, h.number or h.ref): h for h in out.results.hits}
    wanted = [("rule", n) for n in numbers] + [("glossary", slug)]
    wanted = [(kind, key) for kind, key in wanted if not request.kinds or kind in request.kinds]
    # The hit already ranked has its snippet highlighted; else it is looked up.
    missing = [(kind, key, kind == "rule") for kind, key in wanted if (kind, key) not in ranked]
    looked_up = backend.lookup_many(missing, release=request.release) if missing else {}
    first = [hit for k in wanted if (hit := ranked.get(k) or looked_up.get(k))]
    first = _defining_order(first, english or key)
    seen = {(h.kind, h.number or h.ref) for h in first}
    rest = [h for h in out.results.hits if (h.kind, h.number or h.ref) not in seen]
    out.results.hits = (first + rest)[: max(request.per_page, len(first))]


def _defining_order(hits: list[Hit], term: str) -> list[Hit]:
    """The rules an entry cites, those sharing more of the term's words first: an entry
    cites the general rule before the precise one ("Activated Ability: see rule 113,
    Abilities, and rule 602, Activating Activated Abilities"; Face Down cites section 4,
    Zones, before 110.5, which says what face down is). Ties keep the entry's order."""
    wanted = _stemmed(term)

    def shared(hit: Hit) -> int:
        return len(wanted & _stemmed(hit.text))

    rules = sorted((h for h in hits if h.kind == "rule"), key=lambda h: -shared(h))
    return rules + [h for h in hits if h.kind != "rule"]


def _stemmed(text: str) -> set[str]:
    """A text's words as the index stems them ("Abilities" and "ability" meet)."""
    return {token.text for token in _analyzer()(text)}


@lru_cache(maxsize=1)
def _analyzer():
    return english_analyzer()


def _leading_term(index: dict, stems: dict, key: str):
    """The glossary term a longer definition request starts with ("exile target creature"
    asks what exiling is, "destroying a permanent" what destroying is), longest first."""
    words = key.split()
    for size in range(len(words) - 1, 0, -1):
        start = " ".join(words[:size])
        found = index.get(start) or stems.get(stem_words(start))
        if found:
            return found
    return None


@lru_cache(maxsize=8)
def _stems(date: dt.date, generation: str) -> dict[str, tuple[str, list[str]]]:
    out: dict[str, tuple[str, list[str]]] = {}
    # Shortest names first: "abandon" stands for Abandon, not for a longer name sharing its
    # stem ("abandoned" in another entry).
    targets = _glossary_targets(date, generation)
    for key, target in sorted(targets.items(), key=lambda kv: len(kv[0])):
        out.setdefault(stem_words(key), target)
    return out


#: The weight of titles in a question: a heading ("503. Upkeep Step") names a topic, the rule
#: under it answers.
QUESTION_TITLES = 0.5

#: Score factors by kind when the query is not a card's name: the rules and the glossary answer
#: questions; rulings next; cards last (a query sharing words with card names is still about
#: the rules: "counter target spell").
RULES_FIRST = (("rule", 1.0), ("glossary", 1.0), ("ruling", 0.5), ("card", 0.3))
#: The glossary's weight in a long query (a question), where its entries named by ordinary
#: words ("Damage", "Blocked Creature") would crowd out the rule that answers.
QUESTION_GLOSSARY = 0.35
#: The same for cards, when the question names none ("what does it mean for a creature to die"
#: is not about the card Die Young).
QUESTION_CARD = 0.5
#: When the query names a card among other words ("tarmogoyf counts card types"): its rulings
#: and the rules come first, the card itself after them.
ABOUT_A_CARD = (("rule", 1.0), ("glossary", 1.0), ("ruling", 1.0), ("card", 0.5))


def _weigh_kinds(request: SearchRequest, backend, text: str, date: dt.date) -> SearchRequest:
    if request.kinds and len(request.kinds) == 1:
        return request  # one kind asked for: nothing to weigh against
    short = len(text.split()) <= understanding.LONGEST_NAME
    titles = backend.suggest(text, limit=10, release=date, inner=False) if short else []
    if understanding.names_a_card(text, titles):
        return request
    names = [n for n in backend.names_in(text, kind="card") if _proper_name(backend, n, date)]
    if names and names[0] == plain(text):
        return request  # the whole query is a card's name, or its short name ("atraxa")
    weights = ABOUT_A_CARD if names else RULES_FIRST
    if request.min_match:  # a question: glossary headwords and card names are its words
        factors = {"glossary": QUESTION_GLOSSARY, "card": 1.0 if names else QUESTION_CARD}
        weights = tuple((k, w * factors.get(k, 1.0)) for k, w in weights)
        # Three words may still be a card's name missing a word ("jace mind sculptor").
        titles = QUESTION_TITLES if len(request.groups) > 3 else 1.0
        return replace(request, kind_weights=weights, title_weight=titles)
    return replace(request, kind_weights=weights)


def _proper_name(backend, name: str, date: dt.date) -> bool:
    """A card's name, not a rules word that is also a card's name ("Fight", "Wither"): names
    of several words are; a one-word name only when no rule of the release uses the word."""
    if " " in name:
        return True
    probe = SearchRequest(
        groups=(Group((Word(name),)),), kinds=("rule",), release=date, per_page=1, snippets=False
    )
    return not backend.search(probe).total


def _relax(out: SearchPage, backend, request: SearchRequest) -> None:
    """Nothing has every word (a typo too short to correct, a word no text uses): the
    documents with half of them rather than nothing ("into teh core", "rol a d20"), said so."""
    groups = len(request.groups)
    if groups < 2 or 0 < request.min_match <= max(1, groups // 2):
        return
    results = backend.search(replace(request, min_match=max(1, groups // 2)))
    if results.total:
        out.results = results
        out.notices.append(_("No result has every word of the query: these have some of them."))


def _number_first(out: SearchPage, backend, request: SearchRequest) -> None:
    hit = backend.lookup("rule", number=out.number, release=request.release)
    if hit:
        rest = [h for h in out.results.hits if not (h.kind == "rule" and h.number == out.number)]
        out.results.hits = [hit, *rest[: request.per_page - 1]]


#: The other language of the rules vocabulary (kb.models.VocabularyTerm: English and French).
VOCABULARY_LANGUAGE = "fr"


def _decorate(hits: list[Hit], out: SearchPage) -> None:
    """Links in the release searched, the rule's chapter heading (on French pages its French
    title first where one is known, as on the rule pages: "405. Pile (Stack)"), how French
    reached English."""
    if not hits or out.release is None:
        return
    date = out.release.effective_date
    chapters = {h.chapter for h in hits if h.kind == "rule" and h.chapter}
    if (get_language() or "")[:2] == VOCABULARY_LANGUAGE:
        both = selectors.chapter_titles_with_french(chapters, date)
        titles = {n: f"{fr} ({en})" if fr else en for n, (en, fr) in both.items()}
    else:
        titles = selectors.chapter_titles(chapters, date)
    via = ", ".join(f"{fr} → {en}" for fr, en in out.via.items())
    for h in hits:
        doc_type = document_type(h.kind)
        h.url = (
            doc_type.url(h, out.release_token if doc_type.versioned else None) if doc_type else ""
        )
        if h.kind == "rule" and h.chapter in titles:
            h.context = f"{h.chapter}. {titles[h.chapter]}"
        if via and VOCABULARY_LANGUAGE not in h.matched:
            h.via = via
