"""Reads of cards and rulings that pages and the API share (kb.selectors holds the rules')."""

from __future__ import annotations

import datetime as dt
import uuid
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from typing import TypeVar

from django.core.paginator import Page, Paginator
from django.db.models import Count, QuerySet

from kb.crtext.numbers import ancestors_of, kind_of
from kb.selectors import headings
from kb.stamps import archive_generation
from rulings import stamp
from rulings.importing.headings import heading_title
from rulings.models import HIDDEN_KINDS, Card, Ruling, RulingLink

T = TypeVar("T")


def rulings_on(
    lineage_id: int, page: object, per_page: int, counts: dict[int, int] | None = None
) -> tuple[Page, list[Ruling]]:
    """A page of the rulings linked to a lineage (rejected links excluded), newest first.

    Read from the links (one per ruling and lineage, each carrying the ruling's date) along
    an index: no DISTINCT, no join before the page is cut, whatever the rule's thousands.
    Their number comes from `link_counts` (`counts`, where the caller has it: no COUNT).
    """
    links = (
        RulingLink.objects.filter(lineage_id=lineage_id)
        .exclude(kind__in=HIDDEN_KINDS)
        .order_by("-date", "ruling_id")
        .select_related("ruling__card")
    )
    sized = _Sized(links, (link_counts() if counts is None else counts).get(lineage_id, 0))
    current = Paginator(sized, per_page).get_page(page)
    return current, [link.ruling for link in current.object_list]


class _Sized:
    """A queryset whose length is known already: the paginator slices it, never counts it."""

    def __init__(self, queryset: QuerySet, count: int) -> None:
        self.queryset, self.count_known = queryset, count

    def __len__(self) -> int:
        return self.count_known

    def __getitem__(self, index: slice) -> list:
        return list(self.queryset[index]) if self.count_known else []


def rulings_above(
    number: str, date: dt.date, counts: dict[int, int] | None = None
) -> list[tuple[str, int]]:
    """(number, rulings linked to it) for the rule and chapter above a subrule, nearest
    first, those that have any: many rulings are linked at the chapter ("602") or the rule
    ("702.19"), and a reader on 602.2a should reach them. From the headings and link counts
    kept per data state: no query of its own."""
    above = [n for n in ancestors_of(number) if kind_of(n) != "section"]
    if not above:
        return []
    counts = link_counts() if counts is None else counts
    found: dict[str, int] = defaultdict(int)
    for heading in headings(number, date):
        found[heading.number] += counts.get(heading.lineage_id, 0)
    return [(n, found[n]) for n in above if found.get(n)]


def link_counts() -> dict[int, int]:
    """Links per lineage, rejected ones left out: every rule page shows its own count and the
    counts above it. Kept per process until cards, rulings, links or the archive change."""
    return _link_counts(stamp.exact(), archive_generation())


@lru_cache(maxsize=2)
def _link_counts(data: tuple[object, ...], archive: str) -> dict[int, int]:
    rows = (
        RulingLink.objects.exclude(kind__in=HIDDEN_KINDS)
        .order_by()
        .values("lineage_id")
        .annotate(n=Count("id"))
        .values_list("lineage_id", "n")
    )
    return dict(rows)


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
    """A card's rulings, newest first (the headings stored with them are not rulings; each
    ruling carries its heading, `group`)."""
    return list(card.rulings.proper().select_related("card", "group").order_by("-date", "id"))


def heading_text(ruling: Ruling) -> str:
    """The heading a ruling is listed under ("The following rulings focus on the phasing
    keyword"), or "" (needs `group` selected with the ruling)."""
    group = ruling.group
    return "" if group is None else heading_title(group.text) or group.text


def grouped(rulings: list[Ruling], items: list[T]) -> list[tuple[str, list[T]]]:
    """A card's rulings (as `items`, one per ruling) under their headings: those under none
    first, then each heading in the source's order with its rulings (Gatherer's layout)."""
    sections: dict[int, list[T]] = defaultdict(list)
    titles: dict[int, str] = {0: ""}
    for ruling, item in zip(rulings, items, strict=True):
        key = ruling.group_id or 0
        titles[key] = heading_text(ruling)
        sections[key].append(item)
    return [(titles[key], sections[key]) for key in sorted(sections)]
