"""/api/v1/search and /api/v1/search/suggest: the search page's answers as JSON.

The hits come in the page's order (kb.sitesearch.presenting: grouped as the page shows them),
each with its rank, so that the API and the page never disagree about what comes first.
"""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from ninja import Query, Router, Schema

from config import languages
from kb.sitesearch import presenting, service
from kb.sitesearch.throttling import SearchThrottle
from kb.web.api_types import LanguageCode
from search import registry

router = Router(tags=["search"])

#: Seconds a client is asked to wait while the index is being built (a first build takes a
#: minute or two).
UNAVAILABLE_RETRY = 30


class ThrottledOut(Schema):
    detail: str  # "Too many requests." (with a Retry-After header)


class AlsoOut(Schema):
    title: str
    url: str


class HitOut(Schema):
    kind: str
    group: str  # the page's group: rules (rules and glossary), rulings, cards
    rank: int  # its place in the ranking (1 = best); hits come in the page's order
    title: str
    titles: dict[str, str]  # by language code: the title, the term or the name in each
    title_fr: str  # = titles["fr"] (kept for existing clients)
    number: str
    url: str
    context: str
    snippets: dict[str, str]  # by language code; safe HTML: text escaped, matches in <mark>
    snippet_en: str  # = snippets["en"] (kept for existing clients)
    snippet_fr: str  # = snippets["fr"] (kept for existing clients)
    matched: list[str]  # codes of the languages whose text matched
    via: str  # the vocabulary term a French query used, if any
    card: str  # for rulings: the card's name
    date: dt.date | None  # for rulings
    valid_from: dt.date | None  # for rules and glossary: the version's interval
    valid_to: dt.date | None
    #: For a ruling printed on several cards: the other cards it is on (this hit stands for
    #: them all), best match first.
    also: list[AlsoOut]


class GroupOut(Schema):
    name: str  # rules, rulings, cards
    kinds: list[str]
    total: int  # matches of its kinds over every page
    shown: int  # of them on this page


class SearchOut(Schema):
    query: str
    release: dt.date | None
    total: int
    page: int
    pages: int
    counts: dict[str, int]  # exact matches per kind, whatever the kind filter
    groups: list[GroupOut]  # in the page's order: the hits come group after group
    jump: str  # the rule's URL when the query is a rule number found in the release
    correction: str
    corrected: bool
    notices: list[str]
    #: True when the search index cannot be read; while a first one is being built the answer
    #: is a 503 with a Retry-After header, and no hits (try again).
    unavailable: bool
    hits: list[HitOut]


class SearchParams(Schema):
    q: str = ""
    kind: str = ""  # comma-separated: rule,glossary,card,ruling
    release: str = "current"
    lang: LanguageCode | None = None  # only texts in that language (none: every language)
    page: int = 1
    per_page: int = 20


@router.get(
    "/search",
    response={200: SearchOut, 429: ThrottledOut, 503: SearchOut},
    summary="Search rules, glossary, cards and rulings",
    throttle=SearchThrottle(),
)
def search(
    request: HttpRequest, response: HttpResponse, params: Query[SearchParams]
) -> SearchOut | tuple[int, SearchOut]:
    """Links are absolute, as the API's others are. While the index is being built the answer
    is a 503 saying so (`unavailable`, Retry-After), not an empty 200 a client would take for
    "nothing matches"."""
    wanted = [k for k in params.kind.split(",") if k in registry.kinds()]
    lang = params.lang.value if params.lang else None
    with translation.override(lang or languages.SOURCE):
        found = service.search(
            params.q,
            kinds=wanted,
            release=params.release or None,
            lang=lang,
            page=max(1, min(params.page, service.MAX_PAGE)),
            per_page=max(1, min(params.per_page, 50)),
        )
    r = found.results
    groups = presenting.grouped(r.hits, r.counts, every_kind=not found.kinds)
    rank = {id(h): (r.page - 1) * r.per_page + i + 1 for i, h in enumerate(r.hits)}

    def absolute(url: str) -> str:
        return request.build_absolute_uri(url) if url else ""

    out = SearchOut(
        query=found.query,
        release=found.release.effective_date if found.release else None,
        total=r.total,
        page=r.page,
        pages=r.pages,
        counts=r.counts,
        groups=[
            GroupOut(name=g.name, kinds=list(g.kinds), total=g.total, shown=len(g.hits))
            for g in groups
        ],
        jump=absolute(found.jump),
        correction=found.correction,
        corrected=found.corrected,
        notices=found.notices,
        unavailable=found.unavailable,
        hits=[
            HitOut(
                kind=h.kind,
                group=presenting.group_of(h.kind),
                rank=rank[id(h)],
                title=h.title(languages.SOURCE) or h.number or h.label,
                titles=h.titles,
                title_fr=h.title("fr"),
                number=h.number,
                url=absolute(h.url),
                context=h.context,
                snippets=h.snippets,
                snippet_en=h.snippet("en"),
                snippet_fr=h.snippet("fr"),
                matched=list(h.matched),
                via=h.via,
                card=h.label if h.kind == "ruling" else "",
                date=h.date,
                valid_from=h.valid_from,
                valid_to=h.valid_to,
                also=[
                    AlsoOut(title=t, url=absolute(u)) for t, u in presenting.also_on(h, limit=None)
                ],
            )
            for h in presenting.in_order(groups)
        ],
    )
    if found.building:
        response["Retry-After"] = str(UNAVAILABLE_RETRY)
        return 503, out
    return out


class SuggestionOut(Schema):
    title: str
    kind: str
    number: str
    lang: str
    url: str


@router.get(
    "/search/suggest", response=list[SuggestionOut], summary="Titles starting with what was typed"
)
def suggest(request: HttpRequest, q: str = "") -> list[SuggestionOut]:
    return [
        SuggestionOut(
            title=s.title,
            kind=s.kind,
            number=s.number,
            lang=s.lang,
            url=request.build_absolute_uri(url),
        )
        for s, url in service.suggest(q, limit=10)
    ]
