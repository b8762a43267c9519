"""How a page of ranked hits is shown: in groups, with a keyword rule's defining subrule.

The ranking is the service's (kb.sitesearch.service); this module only orders and dresses what
it returned, and the results page and /api/v1/search both call it, so that they list the same
hits in the same order. Groups: the rules and the glossary answer questions, so they come
first, then rulings, then cards; but when the query is a card's name the ranking puts the card
first, and then the groups follow their best-ranked hit instead.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from django.utils.safestring import SafeString, mark_safe

from config import languages
from kb import selectors
from kb.crtext.numbers import kind_of
from search.documents import Hit
from search.registry import document_type

#: The groups of the "All" tab, in their default order: (name, kinds).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rules", ("rule", "glossary")),
    ("rulings", ("ruling",)),
    ("cards", ("card",)),
)
#: The kind tabs, in this order (kinds registered later come after them).
TAB_ORDER = ("rule", "glossary", "ruling", "card")


@dataclass
class HitGroup:
    """Hits of one group on this page, in ranked order, and how many match in all."""

    name: str
    kinds: tuple[str, ...]
    hits: list[Hit] = field(default_factory=list)
    best: int = 0  # the page position (0-based) of its best-ranked hit
    total: int = 0  # matches of its kinds over every page (the exact counts)

    @property
    def more(self) -> int:
        """Matches of the group not shown on this page (its tab lists them)."""
        return max(0, self.total - len(self.hits))


def tabs(kinds: Iterable[str]) -> list[str]:
    """Kinds in tab order: rules, glossary, rulings, cards, then any other."""
    kinds = list(kinds)
    known = [k for k in TAB_ORDER if k in kinds]
    return known + [k for k in kinds if k not in known]


def group_of(kind: str) -> str:
    for name, kinds in GROUPS:
        if kind in kinds:
            return name
    return kind


def grouped(hits: Sequence[Hit], counts: Mapping[str, int], *, every_kind: bool) -> list[HitGroup]:
    """The page's hits in groups. In the default order (rules and glossary, rulings, cards)
    unless the best-ranked hit is not in the first group (a card's name was searched): then
    each group comes at the rank of its best hit. With `every_kind` (the "All" tab), a group
    with matches but none on this page is kept, empty, so that the page can link to them."""
    groups: dict[str, HitGroup] = {}
    for position, hit in enumerate(hits):
        name = group_of(hit.kind)
        if name not in groups:
            kinds = dict(GROUPS).get(name, (hit.kind,))
            total = sum(counts.get(k, 0) for k in kinds)
            groups[name] = HitGroup(name, kinds, best=position, total=total)
        groups[name].hits.append(hit)
    default = {name: i for i, (name, _) in enumerate(GROUPS)}
    ordered = sorted(groups.values(), key=lambda g: (default.get(g.name, len(default)), g.best))
    if ordered and hits and group_of(hits[0].kind) != ordered[0].name:
        ordered.sort(key=lambda g: g.best)
    if every_kind:
        for name, kinds in GROUPS[1:]:
            total = sum(counts.get(k, 0) for k in kinds)
            if name not in groups and total:
                ordered.append(HitGroup(name, kinds, best=len(hits), total=total))
    return ordered


def in_order(groups: Iterable[HitGroup]) -> list[Hit]:
    """The hits as the page lists them: group after group."""
    return [h for g in groups for h in g.hits]


# -- a keyword rule's defining subrule ---------------------------------------------------------

#: "Trample is a static ability…", "Flying is an evasion ability.": what kind of thing the
#: keyword is, not what it does (which the next subrule says).
_CLASSIFIES = re.compile(r"^[^.]{1,60}? is an? (?:[\w-]+ ){0,3}?(?:ability|action)\b", re.I)
_MEANS = re.compile(r"\bmeans?\b", re.I)
#: Subrules that never define: a pointer elsewhere, the redundancy boilerplate.
_NOT_A_DEFINITION = re.compile(r"^(?:for more information|see rule|multiple instances)", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?”)])\s+(?=[A-Z“(])")
_POINTER = re.compile(r"^\(?see (?:rule|also)", re.I)
#: What a subrule may add to its classification and still say nothing of what the keyword
#: does ("The ability has no effect when a creature with trample is blocking…").
ASIDE = 130


def is_heading(hit: Hit) -> bool:
    """A rule whose whole text is its name ("702.19 Trample"): its subrules say what it is."""
    return (
        hit.kind == "rule" and kind_of(hit.number) == "rule" and bool(hit.title(languages.SOURCE))
    )


def defining(name: str, subrules: Sequence[selectors.Subrule]) -> selectors.Subrule | None:
    """The subrule that says what a keyword rule is. Usually its first ("Investigate" means
    …); but when the first only classifies the keyword ("Trample is a static ability that
    modifies the rules…") and the next one is about the keyword, the next one (702.19b: "The
    controller of an attacking creature with trample first assigns damage…")."""
    if not subrules:
        return None
    first = subrules[0]
    text = first.texts.get(languages.SOURCE, "")
    if len(subrules) == 1 or not _only_classifies(text):
        return first
    following = subrules[1].texts.get(languages.SOURCE, "")
    if _NOT_A_DEFINITION.match(following) or name.lower() not in following.lower():
        return first
    return subrules[1]


def definitions(hits: Iterable[Hit], date: dt.date) -> dict[str, selectors.Subrule]:
    """Rule number -> its defining subrule, for the heading rules among these hits (one
    query)."""
    names = {h.number: h.title(languages.SOURCE) for h in hits if is_heading(h)}
    if not names:
        return {}
    found = selectors.subrules_of(names, date)
    out = {}
    for number, subrules in found.items():
        chosen = defining(names[number], subrules)
        if chosen:
            out[number] = chosen
    return out


def _only_classifies(text: str) -> bool:
    if _MEANS.search(text) or not _CLASSIFIES.match(text):
        return False
    sentences = [s for s in _SENTENCE_END.split(text) if not _POINTER.match(s)]
    rest = sentences[1:]
    return len(rest) <= 1 and sum(map(len, rest)) <= ASIDE


_MARKED = re.compile(r"<mark>(.*?)</mark>", re.S)


def marked_words(hits: Iterable[Hit]) -> set[str]:
    """The words the engine highlighted in these hits' snippets (as written in the texts):
    what a text shown instead of a snippet highlights too."""
    words = set()
    for hit in hits:
        for snippet in hit.snippets.values():
            words.update(html.unescape(w).strip().lower() for w in _MARKED.findall(snippet))
    return {w for w in words if w}


#: About as long as the engine's snippets.
SNIPPET_CHARS = 300


def shortened(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The text cut at a word before `limit` characters, with an ellipsis where cut."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def highlight(text: str, words: Iterable[str]) -> SafeString:
    """The text (shortened to a snippet's length) escaped, these words (whole words, any
    case) in <mark>: like a snippet."""
    text = shortened(text)
    words = sorted(set(words), key=len, reverse=True)
    if not words:
        return mark_safe(html.escape(text))
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.I)
    out, last = [], 0
    for m in pattern.finditer(text):
        out += [html.escape(text[last : m.start()]), f"<mark>{html.escape(m.group(0))}</mark>"]
        last = m.end()
    out.append(html.escape(text[last:]))
    return mark_safe("".join(out))


def usual_languages(hits: Iterable[Hit]) -> tuple[str, ...]:
    """The languages most hits matched in: said once for the page; a hit that matched in
    others says so itself."""
    found = Counter(tuple(h.matched) for h in hits if h.matched)
    return found.most_common(1)[0][0] if found else ()


def also_on(hit: Hit, *, limit: int | None) -> list[tuple[str, str]]:
    """(label, link) of the other documents a collapsed hit stands for (a ruling printed on
    several cards: "also on"), the first `limit` of them."""
    doc_type = document_type(hit.kind)
    if not hit.also or doc_type is None:
        return []
    return [
        (label, doc_type.url(replace(hit, ref=ref, label=label), None))
        for ref, label in hit.also[:limit]
    ]
