"""Reads of cards and rulings that pages and the API share (kb.selectors holds the rules')."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.core.paginator import Page, Paginator

from .models import Card, LinkKind, Ruling, RulingLink


def rulings_on(lineage_id: int, page: object, per_page: int) -> tuple[Page, list[Ruling]]:
    """A page of the rulings linked to a lineage (rejected links excluded), newest first.

    Read from the links (one per ruling and lineage, each carrying the ruling's date) along
    an index: no DISTINCT, no join before the page is cut, whatever the rule's thousands.
    """
    links = (
        RulingLink.objects.filter(lineage_id=lineage_id)
        .exclude(kind=LinkKind.REJECTED)
        .order_by("-date", "ruling_id")
        .select_related("ruling__card")
    )
    current = Paginator(links, per_page).get_page(page)
    return current, [link.ruling for link in current.object_list]


def cards_by_id(ids: Iterable[int]) -> dict[int, Card]:
    """The cards of a list of name matches, by id (one query)."""
    return {c.pk: c for c in Card.objects.filter(pk__in=list(ids))}


def card_by_slug_or_oracle_id(key: str) -> Card | None:
    """A card with its faces, by its slug or its Oracle id."""
    cards = Card.objects.prefetch_related("faces")
    found = cards.filter(slug=key).first()
    if found is None:
        try:
            found = cards.filter(oracle_id=uuid.UUID(key)).first()
        except ValueError:  # neither a slug we know nor an Oracle id
            return None
    return found


def rulings_of(card: Card) -> list[Ruling]:
    """A card's rulings, newest first."""
    return list(card.rulings.select_related("card").order_by("-date", "id"))
