"""JSON API for cards and rulings: search, autocomplete, a card with its rulings in context,
the rulings on a rule."""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router, Schema
from ninja.errors import HttpError

from kb import selectors
from kb.crtext.numbers import is_number
from kb.web.api_types import ErrorOut, ReleaseToken, resolve_release
from rulings import selectors as rulings_selectors
from rulings.names import search_cards
from rulings.ruling_context import RulingView, ruling_views
from rulings.selectors import rulings_on

router = Router(tags=["cards"])


class NameOut(Schema):
    name: str
    lang: str
    card: str  # the card's slug
    name_en: str
    url: str


class RuleLinkOut(Schema):
    number: str
    number_then: str
    kind: str
    evidence: str
    url: str | None
    changed_since: dt.date | None
    diff_url: str | None


class OldWordingOut(Schema):
    phrase: str
    now: str
    since: dt.date


class RulingOut(Schema):
    date: dt.date
    text: str
    missing: bool
    card: str
    release: dt.date | None
    predates_modern_rules: bool
    old_wording: list[OldWordingOut]
    rules: list[RuleLinkOut]
    heading: str = ""  # the Gatherer heading the ruling is listed under, if any


class FaceOut(Schema):
    name: str
    mana_cost: str
    type_line: str
    text: str
    name_fr: str = ""  # empty where the data has no French for this face
    type_line_fr: str = ""
    text_fr: str = ""


class CardOut(Schema):
    slug: str
    oracle_id: str | None
    name_en: str
    name_fr: str
    mana_cost: str
    type_line_en: str
    type_line_fr: str
    text_en: str
    text_fr: str
    keywords: list[str]
    faces: list[FaceOut]
    url: str
    rulings: list[RulingOut]


class RulingsPageOut(Schema):
    number: str
    release: dt.date
    count: int
    page: int
    pages: int
    rulings: list[RulingOut]


def _names(request: HttpRequest, q: str, limit: int) -> list[NameOut]:
    matches = search_cards(q, limit=limit)
    cards = rulings_selectors.cards_by_id(m.card_id for m in matches)
    return [
        NameOut(
            name=m.name,
            lang=m.lang,
            card=cards[m.card_id].slug,
            name_en=cards[m.card_id].name_en,
            url=request.build_absolute_uri(reverse("rulings:card", args=[cards[m.card_id].slug])),
        )
        for m in matches
        if m.card_id in cards
    ]


@router.get("/cards/autocomplete", response=list[NameOut], summary="Up to 20 card names")
def autocomplete(request: HttpRequest, q: str = "") -> list[NameOut]:
    """Names as typed so far, English or French; typos and accents do not matter."""
    return _names(request, q[:100], 20)


@router.get("/cards", response=list[NameOut], summary="Search cards by name")
def cards(request: HttpRequest, q: str = "") -> list[NameOut]:
    return _names(request, q[:200], 50)


def _ruling_out(view: RulingView, request: HttpRequest) -> RulingOut:
    return RulingOut(
        date=view.ruling.date,
        text=view.ruling.text,
        missing=view.ruling.missing,
        card=view.ruling.card.slug,
        heading=rulings_selectors.heading_text(view.ruling),
        release=view.release.effective_date if view.release else None,
        predates_modern_rules=view.predates_modern,
        old_wording=[OldWordingOut(phrase=p, now=n, since=s) for p, n, s in view.old_wording],
        rules=[
            RuleLinkOut(
                number=link.number,
                number_then=link.number_then,
                kind=link.kind,
                evidence=link.evidence,
                url=request.build_absolute_uri(link.url) if link.url else None,
                changed_since=link.changed_since,
                diff_url=request.build_absolute_uri(link.diff_url) if link.diff_url else None,
            )
            for link in view.links
        ],
    )


@router.get(
    "/cards/{card}",
    response={200: CardOut, 404: ErrorOut},
    summary="A card with its rulings and the rules they lean on",
)
def card(request: HttpRequest, card: str) -> CardOut:
    """`card`: the card's slug or Oracle id."""
    found = rulings_selectors.card_by_slug_or_oracle_id(card)
    if found is None:
        raise HttpError(404, f"no card {card!r}")
    rulings = rulings_selectors.rulings_of(found)
    views = ruling_views(rulings, selectors.Releases.load())
    return CardOut(
        slug=found.slug,
        oracle_id=str(found.oracle_id) if found.oracle_id else None,
        name_en=found.name_en,
        name_fr=found.name_fr or "",
        mana_cost=found.mana_cost,
        type_line_en=found.type_line_en or "",
        type_line_fr=found.type_line_fr or "",
        text_en=found.text_en or "",
        text_fr=found.text_fr or "",
        keywords=found.keywords,
        faces=[
            FaceOut(
                name=f.name,
                mana_cost=f.mana_cost,
                type_line=f.type_line,
                text=f.text,
                name_fr=f.name_fr,
                type_line_fr=f.type_line_fr,
                text_fr=f.text_fr,
            )
            for f in found.faces.all()
        ],
        url=request.build_absolute_uri(reverse("rulings:card", args=[found.slug])),
        rulings=[_ruling_out(v, request) for v in views],
    )


@router.get(
    "/rules/{number}/rulings",
    response={200: RulingsPageOut, 400: ErrorOut, 404: ErrorOut},
    summary="Rulings that lean on a rule, newest first",
)
def rule_rulings(
    request: HttpRequest, number: str, release: ReleaseToken = "current", page: int = 1
) -> RulingsPageOut:
    """`number` is read in `release`; rulings follow the rule's lineage (renumberings too)."""
    releases = selectors.Releases.load()
    rel = resolve_release(release, releases)
    version = selectors.rule_version(number, rel.effective_date) if is_number(number) else None
    if version is None:
        raise HttpError(404, f"no rule {number} in the release of {rel.effective_date}")
    current, rulings = rulings_on(version.lineage_id, page, 50)
    views = ruling_views(rulings, releases)
    return RulingsPageOut(
        number=number,
        release=rel.effective_date,
        count=current.paginator.count,
        page=current.number,
        pages=current.paginator.num_pages,
        rulings=[_ruling_out(v, request) for v in views],
    )
