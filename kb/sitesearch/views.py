"""Search pages: results, the help page, the OpenSearch description and its suggestions.

Thin: kb.sitesearch.service does the work; any input gives a normal page (never a 500).
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html_join
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from config import languages
from kb import selectors
from kb.sitesearch import markup, presenting, service, throttling
from kb.web import page_cache
from search import registry
from search.documents import Hit
from search.registry import document_type

PAGE_WINDOW = 3


def _page_number(raw: str | None) -> int:
    try:
        return max(1, min(int(raw or 1), service.MAX_PAGE))
    except ValueError:
        return 1


def _url(request: HttpRequest, **changes: object) -> str:
    params = {k: v for k, v in request.GET.lists() if k != "page"}
    for key, value in changes.items():
        if value in (None, "", []):
            params.pop(key, None)
        else:
            params[key] = value if isinstance(value, list) else [str(value)]
    return f"{request.path}?{urlencode(params, doseq=True)}"


@page_cache.reads("q", "kind", "release", "lang", "page", "all")
def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    wait = throttling.retry_after(request) if query.strip() else None  # the bare form is cheap
    if wait is not None:
        return too_many_searches(request, wait)
    wanted = [k for k in request.GET.getlist("kind") if k in registry.kinds()]
    release = request.GET.get("release", "").strip() or None
    lang = languages.supported(request.GET.get("lang"))
    page = _page_number(request.GET.get("page"))
    found = service.search(query, kinds=wanted, release=release, lang=lang, page=page)
    if found.jump and not request.GET.get("all"):
        return redirect(found.jump)
    results = found.results
    every_kind = not found.kinds
    groups = presenting.grouped(results.hits, results.counts, every_kind=every_kind)
    shown_hits = presenting.in_order(groups)
    usual = presenting.usual_languages(shown_hits)
    dress = _Dresser(found, shown_hits, usual)
    first = max(1, results.page - PAGE_WINDOW)
    last = min(results.pages, results.page + PAGE_WINDOW)
    pages = [(n, _url(request, page=n)) for n in range(first, last + 1)]
    tabs = _tabs(request, found)
    context = {
        "found": found,
        "query": found.query,
        "results": results,
        "tabs": tabs,
        "kind_options": [(t["kind"], t["label"]) for t in tabs[1:]],
        "kind_value": found.kinds[0] if len(found.kinds) == 1 else "",
        "groups": [
            {
                "name": g.name,
                "label": _group_label(g.name),
                "total": g.total,
                "items": markup.hit_items(dress(h) for h in g.hits),
                "more": g.more if len(g.kinds) == 1 and every_kind else 0,
                "more_label": _kind_label(g.kinds[0]),
                "more_url": _url(request, kind=[g.kinds[0]]),
            }
            for g in groups
        ],
        "headed": every_kind and len(groups) > 1,
        "usual_matched": _languages_named(usual),
        "pages": pages if results.pages > 1 else [],
        "previous": _url(request, page=results.page - 1) if results.page > 1 else "",
        "next": _url(request, page=results.page + 1) if results.page < results.pages else "",
        "correction_url": _url(request, q=found.correction) if found.correction else "",
        "original_url": _url(request, q=query) if found.corrected else "",
        "release_options": _release_options(found.releases, release or ""),
        "release_value": release or "",
        "lang_value": lang or "",
        "languages": [(code, _(language.name)) for code, language in _languages()],
        "all_languages": get_text_list([_(lang.name) for lang in languages.LANGUAGES], _("and")),
    }
    return render(request, "search/results.html", context)


def too_many_searches(request: HttpRequest, wait: int) -> HttpResponse:
    """429 in the reader's language, saying when to try again (and Retry-After for robots)."""
    response = render(request, "search/throttled.html", {"wait": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response


def _kind_label(kind: str) -> str:
    doc_type = document_type(kind)
    return str(doc_type.label) if doc_type else kind


def _group_label(name: str) -> str:
    labels = {"rules": _("Rules and glossary"), "rulings": _("Rulings"), "cards": _("Cards")}
    return labels.get(name) or _kind_label(name).capitalize()


def _tabs(request: HttpRequest, found: service.SearchPage) -> list[dict[str, object]]:
    """All, then a tab per kind with its exact count: links keeping the query and the other
    filters (a new tab starts at its first page)."""
    counts = found.results.counts
    out: list[dict[str, object]] = [
        {
            "kind": "",
            "label": _("All"),
            "count": sum(counts.values()),
            "active": not found.kinds,
            "url": _url(request, kind=[]),
        }
    ]
    for kind in presenting.tabs(k for k in registry.kinds() if document_type(k)):
        out.append(
            {
                "kind": kind,
                "label": _kind_label(kind).capitalize(),
                "count": counts.get(kind, 0),
                "active": found.kinds == [kind],
                "url": _url(request, kind=[kind]),
            }
        )
    return out


def _languages() -> list[tuple[str, languages.Language]]:
    return [(lang.code, lang) for lang in languages.LANGUAGES]


def _languages_named(codes: tuple[str, ...]) -> str:
    names = [_(lang.name) for code, lang in _languages() if code in codes]
    return get_text_list(names, _("and")) if names else ""


class _Dresser:
    """What the page shows of each hit (see shown); the defining subrules of the page's
    keyword rules are read at once."""

    def __init__(self, found: service.SearchPage, hits: list[Hit], usual: tuple[str, ...]):
        date = found.release.effective_date if found.release else None
        self.definitions = presenting.definitions(hits, date) if date else {}
        self.words = presenting.marked_words(hits) if self.definitions else set()
        self.usual = usual

    def __call__(self, hit: Hit) -> dict[str, object]:
        return shown(hit, self.definitions.get(hit.number), self.words, self.usual)


def shown(
    hit: Hit,
    definition: selectors.Subrule | None = None,
    words: set[str] | frozenset[str] = frozenset(),
    usual: tuple[str, ...] = (),
) -> dict[str, object]:
    """What the results page shows of a hit, language by language: the title in the rules'
    language, names in the others; the snippet of the rules' language unless only another
    language matched; the snippets of the languages that matched. A rule that is only a
    heading ("702.19 Trample") shows its defining subrule instead (702.19b). Which languages
    matched, only where it differs from most hits (the page says that once)."""
    source = languages.SOURCE
    matched = set(hit.matched)
    codes = [
        c
        for c in languages.CODES
        if hit.snippet(c) and (c in matched or (c == source and not matched - {source}))
    ]
    if hit.kind in COUNTERPARTS and codes and source not in codes and hit.snippet(source):
        codes.append(source)  # the French that matched, then the English it translates
    reader = translation.get_language() or source
    codes.sort(key=lambda c: (c not in matched, c != reader))  # matched, then the page's
    if definition is not None:
        texts = definition.texts
        codes = [c for c in codes if texts.get(c)] or [source]
        snippets = [(c, presenting.highlight(texts.get(c, ""), words)) for c in codes]
    else:
        snippets = [(c, hit.snippet(c)) for c in codes]
    return {
        "hit": hit,
        "title": hit.title(source),
        "names": [(c, hit.title(c)) for c in languages.TRANSLATIONS if hit.title(c)],
        "snippets": snippets,
        "definition": definition.number if definition else "",
        "matched": _languages_named(tuple(hit.matched)) if tuple(hit.matched) != usual else "",
        "also": presenting.also_on(hit, limit=ALSO_SHOWN),
        "also_more": max(0, len(hit.also) - ALSO_SHOWN),
    }


#: Kinds whose French text translates the English one: a match in French shows both.
COUNTERPARTS = frozenset({"rule", "glossary"})

#: The other cards named under a ruling printed on several (the rest are counted).
ALSO_SHOWN = 5


def _release_options(releases: selectors.Releases, chosen: str) -> str:
    """The release filter's options, built here: a template loop over a hundred releases
    costs more than the search itself (and escaping them, 2 ms: kept for the same list)."""
    return _options(releases.labels(), chosen)


@lru_cache(maxsize=32)
def _options(releases: tuple[tuple[str, str], ...], chosen: str) -> str:
    rows = [
        (value, " selected" if value == chosen else "", f"{value} · {name}" if name else value)
        for value, name in reversed(releases)
    ]
    return format_html_join("\n", '<option value="{}"{}>{}</option>', rows)


@page_cache.reads()
def search_help(request: HttpRequest) -> HttpResponse:
    return render(request, "search/help.html")


@page_cache.reads()
def opensearch(request: HttpRequest) -> HttpResponse:
    """Lets browsers add the site as a search engine (and ask it for suggestions)."""
    base = request.build_absolute_uri("/").rstrip("/")
    context = {
        "search_url": base + reverse("kb:search"),
        "suggest_url": base + reverse("kb:search_suggest"),
        "self_url": base + reverse("kb:opensearch"),
    }
    return render(
        request,
        "search/opensearch.xml",
        context,
        content_type="application/opensearchdescription+xml; charset=utf-8",
    )


@page_cache.reads("q")
def suggestions(request: HttpRequest) -> JsonResponse:
    """OpenSearch suggestions: [query, [titles], [descriptions], [urls]]."""
    query = request.GET.get("q", "")[:100]
    found = service.suggest(query, limit=10)
    absolute = request.build_absolute_uri
    return JsonResponse(
        [
            query,
            [s.title for s, _ in found],
            [f"{s.number} {s.kind}".strip() for s, _ in found],
            [absolute(url) for _, url in found],
        ],
        safe=False,
        content_type="application/x-suggestions+json",
    )
