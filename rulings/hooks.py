"""What rulings plugs into kb: a "Rulings on this rule" panel on every rule page, and the
cards `make run` loads after the rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db.models import QuerySet
from django.urls import reverse

from kb.crtext.numbers import kind_of
from kb.hooks import (
    ExportPart,
    Panel,
    RulePage,
    register_export_part,
    register_maintainer_decisions,
    register_name_finder,
    register_page_stamp,
    register_rule_panel,
    register_site_data_loader,
)
from kb.models import VocabularyTerm
from rulings import exporting
from rulings.models import Card, LinkKind, Ruling, RulingLink
from rulings.rendering import rulings_html
from rulings.ruling_context import ruling_views
from rulings.selectors import link_counts, rulings_above, rulings_on
from search.backend import Suggestion

PER_PAGE = 20


@register_rule_panel
def rulings_on_this_rule(page: RulePage) -> Panel | None:
    """Rulings linked to the rule's lineage, newest first, paginated (constant queries), and
    links to those of the rule and chapter above it."""
    counts = link_counts()
    current, rulings = rulings_on(
        page.lineage_id, page.request.GET.get("rulings", "1"), PER_PAGE, counts
    )
    above = [
        {"number": n, "count": count, "kind": kind_of(n), "url": _rule_url(page, n)}
        for n, count in rulings_above(page.number, page.release.effective_date, counts)
    ]
    if current.paginator.count == 0 and not above:
        return None
    views = ruling_views(rulings, page.releases)
    html = rulings_html(views, show_card=True)
    return Panel(
        "rulings/rule_panel.html",
        {
            "page": current,
            "rulings": html,
            "count": current.paginator.count,
            "number": page.number,
            "kind": kind_of(page.number),
            "above": above,
        },
    )


def _rule_url(page: RulePage, number: str) -> str:
    """The page of another rule in the release read."""
    if page.is_current:
        return reverse("kb:current_rule", args=[number])
    return reverse("kb:rule", args=[page.release.effective_date.isoformat(), number])


@register_maintainer_decisions
def decided_links(lineage_ids: set[int]) -> dict[int, list[str]]:
    """Links a maintainer confirmed or rejected on these rules (the publish preview lists
    them under the rules a new release changes, renumbers or removes). One query."""
    out: dict[int, list[str]] = {}
    rows = (
        RulingLink.objects.filter(
            lineage_id__in=lineage_ids, kind__in=[LinkKind.CONFIRMED, LinkKind.REJECTED]
        )
        .order_by("lineage_id", "ruling__card__name_en", "ruling__date")
        .values_list("lineage_id", "kind", "ruling__card__name_en", "ruling__date")
    )
    for lid, kind, card, date in rows:
        out.setdefault(lid, []).append(f"{kind} link: ruling on {card} ({date.isoformat()})")
    return out


DEMO_CARDS = Path(settings.BASE_DIR) / "fixtures" / "demo" / "cards" / "cards.jsonl"
#: What the seed card says it comes from (its `data_source`): the seed documents.
DEMO_SOURCE = "seed 001"


def _shared_data_has_the_seed_card() -> bool:
    """Whether a card of the seed card's name came from elsewhere than the seed."""
    import json

    first = DEMO_CARDS.read_text(encoding="utf-8").split("\n", 1)[0]
    name = json.loads(first)["name"]
    return Card.objects.filter(name_en=name).exclude(data_source=DEMO_SOURCE).exists()


@register_name_finder
def cards_named(text: str, limit: int, least: float = 0.0) -> list[tuple[Suggestion, float]]:
    """Cards by name for the site search (its autocomplete, its "did you mean"), found as
    the Cards page finds them: typos, missing apostrophes, the better known card first.
    Sureness: 100 for the whole name as typed, the spelling's closeness for a close one, 0
    for a name only begun (an autocomplete's, never a correction's)."""
    from rulings.names import search_cards

    matches = search_cards(text, limit=limit, least=least)
    slugs = dict(Card.objects.filter(id__in=[m.card_id for m in matches]).values_list("id", "slug"))
    return [
        (
            Suggestion(kind="card", title=m.name, ref=slugs[m.card_id], lang=m.lang),
            100.0 if m.how == "exact" else m.closeness if m.how == "close" else 0.0,
        )
        for m in matches
        if m.card_id in slugs
    ]


@register_site_data_loader
def load_cards(data_dir: Path | None, write: Callable[[str], None], verbosity: int) -> None:
    """Cards and rulings for `make run`: the shared files, and the card the seed documents
    are about (The Peregrine Dynamo, with its dated rulings: the shared card data predates
    its set) on top of them, as long as the shared data has no card of that name (then the
    seed's copy goes); then the vocabulary."""
    from rulings.importing.cards import import_cards
    from rulings.linking import link_rulings, rules_changed_since_linking
    from rulings.vocabulary.mining import build_vocabulary

    sources: list[tuple[str, str | None]] = []
    cards = data_dir / "cards" / "cards.jsonl.gz" if data_dir else None
    changed = False
    if cards is not None and cards.is_file():
        rulings = cards.with_name("rulings.jsonl.gz")
        sources.append((str(cards), str(rulings) if rulings.is_file() else None))
    elif data_dir is not None:
        write(f"{cards} not found: only the seed documents' card is loaded.")
    sources.append((str(DEMO_CARDS), None))
    for cards_file, rulings_file in sources:
        if cards_file == str(DEMO_CARDS) and _shared_data_has_the_seed_card():
            seeded = Card.objects.filter(data_source=DEMO_SOURCE)
            if seeded.exists():
                write("The shared data now has the seed documents' card: its seed copy goes.")
                seeded.delete()
                changed = True
            continue
        write(f"Importing cards from {cards_file} …")

        def link(result):
            ids = result.to_link()
            if ids is None or ids:
                link_rulings(ids)

        result = import_cards(cards_file, rulings_file, after=link)
        changed = changed or result.changed()
        if verbosity >= 1:
            write(
                f"  cards: {result.cards_created} created, {result.cards_updated} updated, "
                f"{result.cards_unchanged} unchanged; rulings: {result.rulings_created} created"
            )
    if rules_changed_since_linking():
        write("The rules changed since the rulings were linked: relinking them all …")
        link_rulings()
        changed = True
    elif unlinked := list(Ruling.objects.filter(linked_at=None).values_list("id", flat=True)):
        write(f"Linking {len(unlinked)} rulings never linked (or regrouped) …")
        link_rulings(unlinked)
    elif verbosity >= 1:
        # A release imported since (the admin's publish, import_rules) relinked what it
        # touched as it was committed (rulings.linking.changed).
        write("The rulings' links follow the rules as loaded: nothing to relink.")
    if changed or not VocabularyTerm.objects.exists():
        write("Building the English/French vocabulary …")
        for line in build_vocabulary().lines(detail=verbosity >= 2):
            if verbosity >= 1:
                write(f"  {line}")


# Cards, rulings and their links: one file of the bulk export (kb's export_data/import_data).
register_export_part(
    ExportPart(
        name="cards",
        filename=exporting.FILENAME,
        build=exporting.build,
        load=exporting.load,
        is_empty=exporting.is_empty,
        counts=exporting.counts,
        schema=exporting.SCHEMA,
    )
)


@register_page_stamp
def cards_and_rulings_stamp() -> QuerySet:
    """Cached pages show cards and rulings: their stamp is part of every page's key."""
    from rulings.stamp import query

    return query()
