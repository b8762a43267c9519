"""The rulings admin accepts only what `import_cards` accepts (issue 31), on the shared cards
and rulings: a 1 MB ruling, ruling dates 0001-01-01 and 9999-12-31, a card layout
`bogus<script>`, a mana value out of range, 5,000 keywords, a 1 MB Oracle text. Each is an
error on its field (no 500, nothing cut, nothing saved), with the limits of
rulings.importing.limits, the
ones the import applies to a file (which refuses the same layout)."""

from __future__ import annotations

import gzip
import json
from html import unescape
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from rulings.importing import limits
from rulings.models import Card, Ruling
from tests.conftest import CARDS
from tests.kb.helpers import run
from tests.kb.html_forms import form_values

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

ONE_MB = "Tarmogoyf " * (1024 * 1024 // 10)


@pytest.fixture
def staff(cards) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    return client


def refused(client: Client, url: str, form_id: str, changes: dict, message: str) -> None:
    data = form_values(client.get(url).content.decode(), form_id)
    response = client.post(url, {**data, **changes})
    html = unescape(response.content.decode())
    assert response.status_code == 200, html[:2000]
    assert message in html and 'class="errorlist' in html


def tarmogoyf_ruling() -> Ruling:
    return Ruling.objects.get(
        card__name_en="Tarmogoyf", text__startswith="Tarmogoyf counts card types, not cards."
    )


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"text": ONE_MB}, f"This text is longer than {limits.MAX_TEXT:,} characters"),
        ({"date": "0001-01-01"}, "A ruling's date is out of range (1993-01-01 to"),
        ({"date": "9999-12-31"}, "A ruling's date is out of range (1993-01-01 to"),
    ],
)
def test_a_ruling_past_the_imports_limits_is_refused(
    staff: Client, changes: dict, message: str
) -> None:
    ruling = tarmogoyf_ruling()
    before = (ruling.text, ruling.date, ruling.text_edited)
    url = reverse("admin:rulings_ruling_change", args=[ruling.pk])
    refused(staff, url, "ruling_form", changes, message)
    ruling.refresh_from_db()
    assert (ruling.text, ruling.date, ruling.text_edited) == before


def test_adding_a_ruling_is_refused_out_of_range_and_saved_within(staff: Client) -> None:
    card = Card.objects.get(name_en="Tarmogoyf")
    url = reverse("admin:rulings_ruling_add")
    count = Ruling.objects.count()
    ruling = {"card": str(card.pk), "date": "9999-12-31", "text": "A ruling of the future."}
    refused(staff, url, "ruling_form", ruling, "A ruling's date is out of range")
    assert Ruling.objects.count() == count
    data = form_values(staff.get(url).content.decode(), "ruling_form")
    assert staff.post(url, {**data, **ruling, "date": "2021-03-20"}).status_code == 302
    assert Ruling.objects.get(card=card, text=ruling["text"]).date.isoformat() == "2021-03-20"


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"layout": "bogus<script>"}, "Select a valid choice. bogus<script> is not one"),
        ({"mana_value": "-1"}, "A mana value is a number from 0 to 1,000,000"),
        ({"mana_value": "1e12"}, "A mana value is a number from 0 to 1,000,000"),
        ({"text_en": ONE_MB}, f"This text is longer than {limits.MAX_TEXT:,} characters"),
        ({"text_fr": ONE_MB}, f"This text is longer than {limits.MAX_TEXT:,} characters"),
        (
            {"keywords": json.dumps([f"Keyword {i}" for i in range(5000)])},
            f"At most {limits.MAX_ITEMS:,} items, not 5,000.",
        ),
        ({"keywords": json.dumps(["Flying\x00"])}, "An item contains a NUL character."),
    ],
)
def test_a_card_past_the_imports_limits_is_refused(
    staff: Client, changes: dict, message: str
) -> None:
    card = Card.objects.get(name_en="Delver of Secrets // Insectile Aberration")
    before = Card.objects.filter(pk=card.pk).values().get()
    url = reverse("admin:rulings_card_change", args=[card.pk])
    refused(staff, url, "card_form", changes, message)
    assert Card.objects.filter(pk=card.pk).values().get() == before


def test_the_layout_is_chosen_among_the_imports_layouts(staff: Client) -> None:
    card = Card.objects.get(name_en="Delver of Secrets // Insectile Aberration")
    url = reverse("admin:rulings_card_change", args=[card.pk])
    html = staff.get(url).content.decode()
    assert '<select name="layout"' in html
    assert '<option value="transform" selected>transform</option>' in html
    data = form_values(html, "card_form")
    assert staff.post(url, {**data, "layout": "modal_dfc"}).status_code == 302
    card.refresh_from_db()
    assert card.layout == "modal_dfc" and card.edited == {"layout": "transform"}


def test_the_import_refuses_the_same_layout(cards, tmp_path: Path) -> None:
    with gzip.open(CARDS / "cards.jsonl.gz", "rt", encoding="utf-8") as fh:
        record = next(r for r in map(json.loads, fh) if r["name"] == "Tarmogoyf")
    record["layout"] = "bogus<script>"
    path = tmp_path / "cards.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    count = Card.objects.count()
    with pytest.raises(CommandError, match="“layout”: 'bogus<script>' is not a card layout"):
        run("import_cards", str(path), "--no-link")
    assert Card.objects.count() == count
    assert Card.objects.get(name_en="Tarmogoyf").layout == "normal"
