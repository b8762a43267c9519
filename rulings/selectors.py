"""The rulings that lean on a rule, newest first: shared by the rule page panel and the API."""

from __future__ import annotations

from django.core.paginator import Page, Paginator

from .models import LinkKind, Ruling, RulingLink


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
