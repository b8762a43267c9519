"""Edit conflicts on the rulings admin (issue 12): cards, rulings, ruling links and the links
inline of a ruling refuse a stale save with both values, and take a deliberate second save."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from rulings.corrections import decide_links, save_card, save_ruling
from rulings.models import Card, Ruling, RulingLink
from tests.kb.admin.test_admin_conflicts import conflict_then_deliberate_save
from tests.rulings.test_admin import _links, admin_client, small_cards  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def test_ruling_form(admin_client: Client, small_cards: Path) -> None:  # noqa: F811
    ruling = Ruling.objects.get(text__startswith="Bolt can target")

    def theirs() -> None:
        ruling.text = "Bolt can target a planeswalker (Bob)."
        save_ruling(ruling=ruling, changed=["text"])

    conflict_then_deliberate_save(
        admin_client,
        reverse("admin:rulings_ruling_change", args=[ruling.pk]),
        "ruling_form",
        {"text": "Bolt can target a planeswalker (Ann)."},
        theirs,
        "Bolt can target a planeswalker (Bob).",
        lambda: Ruling.objects.get(pk=ruling.pk).text,
    )


def test_card_form(admin_client: Client, small_cards: Path) -> None:  # noqa: F811
    bolt = Card.objects.get(name_en="Lightning Bolt")

    def theirs() -> None:
        card = Card.objects.get(pk=bolt.pk)
        card.type_line_en = "Instant — Bob"
        save_card(card=card, changed=["type_line_en"])

    conflict_then_deliberate_save(
        admin_client,
        reverse("admin:rulings_card_change", args=[bolt.pk]),
        "card_form",
        {"type_line_en": "Instant — Ann"},
        theirs,
        "Instant — Bob",
        lambda: Card.objects.get(pk=bolt.pk).type_line_en,
    )


def test_ruling_link_form(admin_client: Client, small_cards: Path) -> None:  # noqa: F811
    link = _links(1)[0]
    conflict_then_deliberate_save(
        admin_client,
        reverse("admin:rulings_rulinglink_change", args=[link.pk]),
        "rulinglink_form",
        {"kind": "rejected"},
        lambda: decide_links(links=[link], kind="confirmed"),
        "confirmed",
        lambda: RulingLink.objects.get(pk=link.pk).kind,
    )


def test_links_inline_of_a_ruling(admin_client: Client, small_cards: Path) -> None:  # noqa: F811
    link = _links(1)[0]
    conflict_then_deliberate_save(
        admin_client,
        reverse("admin:rulings_ruling_change", args=[link.ruling_id]),
        "ruling_form",
        {"links-0-kind": "rejected"},
        lambda: decide_links(links=[link], kind="confirmed"),
        "confirmed",
        lambda: RulingLink.objects.get(pk=link.pk).kind,
    )
