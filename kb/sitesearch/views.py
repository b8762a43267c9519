"""Search pages: results, the help page, the OpenSearch description and its suggestions.

Thin: kb.sitesearch.service does the work; any input gives a normal page (never a 500).
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from config import languages
from search import registry
from search.documents import Hit
from search.registry import document_type

from . import service

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


def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    wanted = [k for k in request.GET.getlist("kind") if k in registry.kinds()]
    release = request.GET.get("release", "").strip() or None
    lang = languages.supported(request.GET.get("lang"))
    page = _page_number(request.GET.get("page"))
    found = service.search(query, kinds=wanted, release=release, lang=lang, page=page)
    if found.jump and not request.GET.get("all"):
        return redirect(found.jump)
    results = found.results
    facets = [
        {
            "kind": k,
            "label": document_type(k).label if document_type(k) else k,
            "count": results.counts.get(k, 0),
            "active": k in found.kinds,
            "url": _url(request, kind=[] if found.kinds == [k] else [k]),
        }
        for k in registry.kinds()
        if document_type(k)
    ]
    first = max(1, results.page - PAGE_WINDOW)
    last = min(results.pages, results.page + PAGE_WINDOW)
    pages = [(n, _url(request, page=n)) for n in range(first, last + 1)]
    context = {
        "found": found,
        "query": found.query,
        "results": results,
        "facets": facets,
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
        "hits": [shown(h) for h in results.hits],
        "first_number": results.hits and (results.page - 1) * results.per_page + 1,
    }
    return render(request, "search/results.html", context)


def _languages() -> list[tuple[str, languages.Language]]:
    return [(lang.code, lang) for lang in languages.LANGUAGES]


def shown(hit: Hit) -> dict[str, object]:
    """What the results page shows of a hit, language by language: the title in the rules'
    language, names in the others; the snippet of the rules' language unless only another
    language matched; the snippets of the languages that matched; which ones did."""
    source = languages.SOURCE
    matched = set(hit.matched)
    snippets = [
        (code, text)
        for code, text in ((c, hit.snippet(c)) for c in languages.CODES)
        if text and (code in matched or (code == source and not matched - {source}))
    ]
    return {
        "hit": hit,
        "title": hit.title(source),
        "names": [(c, hit.title(c)) for c in languages.TRANSLATIONS if hit.title(c)],
        "snippets": snippets,
        "matched": [
            _("matched in %(language)s") % {"language": _(lang.name)}
            for code, lang in _languages()
            if code in matched
        ],
    }


def _release_options(releases: list, chosen: str) -> str:
    """The release filter's options, built here: a template loop over a hundred releases
    costs more than the search itself (and escaping them, 2 ms: kept for the same list)."""
    return _options(tuple((r.effective_date.isoformat(), r.set_name) for r in releases), chosen)


@lru_cache(maxsize=32)
def _options(releases: tuple[tuple[str, str], ...], chosen: str) -> str:
    rows = [
        (value, " selected" if value == chosen else "", f"{value} · {name}" if name else value)
        for value, name in reversed(releases)
    ]
    return format_html_join("\n", '<option value="{}"{}>{}</option>', rows)


def search_help(request: HttpRequest) -> HttpResponse:
    return render(request, "search/help.html")


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
