"""Card pages: search by name, a card with its rulings in context."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from kb.selectors import Releases
from kb.web.page_cache import reads
from rulings import selectors
from rulings.models import Card
from rulings.names import search_cards
from rulings.rendering import rulings_html
from rulings.ruling_context import ruling_views


@reads("q", "go")  # the query parameters the page cache keeps (kb.web.page_cache.reads)
def card_list(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")[:200].strip()
    matches = search_cards(query, limit=50) if query else []
    cards = selectors.cards_by_id(m.card_id for m in matches)
    results = [(m, cards[m.card_id]) for m in matches if m.card_id in cards]
    if query and len(results) == 1 and request.GET.get("go"):
        return redirect("rulings:card", slug=results[0][1].slug)
    return render(request, "rulings/card_list.html", {"query": query, "results": results})


@reads()
def card(request: HttpRequest, slug: str) -> HttpResponse:
    card = get_object_or_404(Card.objects.prefetch_related("faces"), slug=slug)
    rulings = selectors.rulings_of(card)
    views = ruling_views(rulings, Releases.load())
    sections = selectors.grouped(rulings, rulings_html(views))
    return render(
        request, "rulings/card.html", {"card": card, "count": len(rulings), "sections": sections}
    )
