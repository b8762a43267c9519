"""The rulings admin accepts only what `import_cards` accepts (issue 31), on the shared cards
and rulings: a 1 MB ruling, ruling dates 0001-01-01 and 9999-12-31, a card layout
`bogus<script>`, a mana value out of range, 5,000 keywords, a 1 MB Oracle text. Each is an
error on its field (no 500, nothing cut, nothing saved), with the limits of
rulings.importing.limits, the
ones the import applies to a file (which refuses the same layout)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from rulings.importing import limits
from rulings.models import Card, Ruling
from tests.conftest import CARDS
from tests.kb.helpers import run, superuser_client
from tests.kb.html_forms import form_values, post_refused

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

ONE_MB = "Tarmogoyf " * (1024 * 1024 // 10)


@pytest.fixture
def staff(cards) -> Client:
    return superuser_client()


def tarmogoyf_ruling() -> Ruling:
    return Ruling.objects.get(
        card__name_en="Tarmogoyf", text__startswith="Tarmogoyf counts card types, not cards."
    )


def delver() -> Card:
    return Card.objects.get(name_en="Delver of Secrets // Insectile Aberration")


#: The rows the refusals are tried on.
ROWS = {"ruling": tarmogoyf_ruling, "card": delver}

TEXT_PAST_THE_LIMIT = f"This text is longer than {limits.MAX_TEXT:,} characters"


@pytest.mark.parametrize(
    ("row", "changes", "message"),
    [
        ("ruling", {"text": ONE_MB}, TEXT_PAST_THE_LIMIT),
        ("ruling", {"date": "0001-01-01"}, "A ruling's date is out of range (1993-01-01 to"),
        ("ruling", {"date": "9999-12-31"}, "A ruling's date is out of range (1993-01-01 to"),
        ("card", {"layout": "bogus<script>"}, "Select a valid choice. bogus<script> is not one"),
        ("card", {"mana_value": "-1"}, "A mana value is a number from 0 to 1,000,000"),
        ("card", {"mana_value": "1e12"}, "A mana value is a number from 0 to 1,000,000"),
        ("card", {"text_en": ONE_MB}, TEXT_PAST_THE_LIMIT),
        ("card", {"text_fr": ONE_MB}, TEXT_PAST_THE_LIMIT),
        (
            "card",
            {"keywords": json.dumps([f"Keyword {i}" for i in range(5000)])},
            f"At most {limits.MAX_ITEMS:,} items, not 5,000.",
        ),
        ("card", {"keywords": json.dumps(["Flying\x00"])}, "An item contains a NUL character."),
    ],
)
def test_a_value_past_the_imports_limits_is_refused_and_nothing_saved(
    staff: Client, row: str, changes: dict, message: str
) -> None:
    """Each is an error on its field of the ruling's or card's page, the row as it was."""
    entry = ROWS[row]()
    model = type(entry)
    url = reverse(f"admin:rulings_{model._meta.model_name}_change", args=[entry.pk])
    before = model.objects.filter(pk=entry.pk).values().get()
    post_refused(staff, url, f"{model._meta.model_name}_form", changes, message)
    assert model.objects.filter(pk=entry.pk).values().get() == before


def test_adding_a_ruling_is_refused_out_of_range_and_saved_within(staff: Client) -> None:
    card = Card.objects.get(name_en="Tarmogoyf")
    url = reverse("admin:rulings_ruling_add")
    count = Ruling.objects.count()
    ruling = {"card": str(card.pk), "date": "9999-12-31", "text": "A ruling of the future."}
    post_refused(staff, url, "ruling_form", ruling, "A ruling's date is out of range")
    assert Ruling.objects.count() == count
    data = form_values(staff.get(url).content.decode(), "ruling_form")
    assert staff.post(url, {**data, **ruling, "date": "2021-03-20"}).status_code == 302
    assert Ruling.objects.get(card=card, text=ruling["text"]).date.isoformat() == "2021-03-20"


def test_the_layout_is_chosen_among_the_imports_layouts(staff: Client) -> None:
    card = delver()
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
