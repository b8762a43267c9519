"""rulings' search documents: cards (names, texts and type lines in English and French) and
rulings (their text; the card's name shown with them). Registered with the search app."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator

from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from config.languages import CODES, SOURCE
from rulings.models import Card, CardFace, Ruling
from search.analysis import plain
from search.documents import Hit, SearchDocument
from search.registry import DocumentType, register


def _ids(groups: Collection[str] | None) -> list[int] | None:
    return None if groups is None else [int(g) for g in groups if g.isdigit()]


def _french_name(name: str, face: str) -> str:
    return f"{name} // {face}" if face and face not in name.split(" // ") else name


def card_documents(groups: Collection[str] | None) -> Iterator[SearchDocument]:
    """Documents of these cards (None: every card)."""
    ids = _ids(groups)
    cards = Card.objects.order_by("id")
    faces = CardFace.objects.order_by("card_id", "position")
    if ids is not None:
        cards, faces = cards.filter(id__in=ids), faces.filter(card_id__in=ids)
    face_names: dict[int, list[str]] = defaultdict(list)
    for card_id, name in faces.values_list("card_id", "name"):
        face_names[card_id].append(name)
    translated = [f"{f}_{code}" for f in ("name", "type_line", "text") for code in CODES]
    for c in cards.values("id", "slug", "fr_face_name", *translated).iterator(chunk_size=2000):
        name = c[f"name_{SOURCE}"] or ""
        extra_names = [n for n in face_names.get(c["id"], []) if n not in name.split(" // ")]
        yield SearchDocument(
            kind="card",
            key=str(c["id"]),
            group=str(c["id"]),
            titles={
                **{code: c[f"name_{code}"] or "" for code in CODES},
                SOURCE: " // ".join([name, *extra_names]) if extra_names else name,
                "fr": _french_name(c["name_fr"] or "", c["fr_face_name"]),
            },
            bodies={code: c[f"text_{code}"] or "" for code in CODES},
            extras={SOURCE: c[f"type_line_{SOURCE}"] or ""},
            ref=c["slug"],
            label=c["type_line_fr"] or "",
        )


def ruling_documents(groups: Collection[str] | None) -> Iterator[SearchDocument]:
    """Rulings of these cards (None: every card); rulings marked missing and headings (not
    rulings) are left out."""
    ids = _ids(groups)
    rulings = Ruling.objects.proper().filter(missing=False).order_by("card_id", "date", "id")
    if ids is not None:
        rulings = rulings.filter(card_id__in=ids)
    fields = ("id", "card_id", "date", "text", "card__slug", "card__name_en")
    for r in rulings.values(*fields).iterator(chunk_size=5000):
        yield SearchDocument(
            kind="ruling",
            key=str(r["id"]),
            group=str(r["card_id"]),
            bodies={SOURCE: r["text"]},
            extras={SOURCE: r["card__name_en"] or ""},  # found by the card's name too
            ref=f"{r['card__slug']}#ruling-{r['id']}",
            label=r["card__name_en"] or "",
            date=r["date"],
            # One ruling printed on many cards ("Cycling is an activated ability…") is one
            # result, shown with the cards it is on.
            collapse=plain(r["text"]),
        )


def card_url(hit: Hit, release: str | None) -> str:
    return reverse("rulings:card", args=[hit.ref])


def ruling_url(hit: Hit, release: str | None) -> str:
    slug, _, anchor = hit.ref.partition("#")
    return reverse("rulings:card", args=[slug]) + (f"#{anchor}" if anchor else "")


def register_documents() -> None:
    register(
        DocumentType(
            kind="card",
            label=_("cards"),
            documents=card_documents,
            url=card_url,
            aliases=("cards", "carte"),
            order=30,
            models={Card: lambda c: [str(c.pk)], CardFace: lambda f: [str(f.card_id)]},
        )
    )
    register(
        DocumentType(
            kind="ruling",
            label=_("rulings"),
            documents=ruling_documents,
            url=ruling_url,
            aliases=("rulings", "decision", "décision"),
            order=40,
            models={Ruling: lambda r: [str(r.card_id)], Card: lambda c: [str(c.pk)]},
        )
    )
