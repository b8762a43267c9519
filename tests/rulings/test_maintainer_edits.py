"""On the real data: a ruling corrected in the admin shows on the card page and in search right
after save, and re-importing the real cards file keeps the correction and says so."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from rulings.corrections import save_ruling
from rulings.models import Ruling
from search.indexing import drain
from tests.conftest import CARDS
from tests.kb.helpers import run
from tests.rulings.test_admin import form_data

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

MARK = "Quokkaflarp"  # a word no card or ruling uses: search finds the corrected text only


def test_a_ruling_corrected_in_the_admin_is_public_at_once_and_survives_the_real_reimport(
    search_index,
) -> None:
    client = Client()
    client.force_login(User.objects.create_superuser("maintainer", "m@example.org", "pw"))
    ruling = (
        Ruling.objects.proper()
        .filter(missing=False, card__data_source="mtgjson5")
        .select_related("card")
        .order_by("id")
        .first()
    )
    original = ruling.text
    url = reverse("admin:rulings_ruling_change", args=[ruling.pk])
    data = form_data(client.get(url))
    data["text"] = f"{original} {MARK} corrected."
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    try:
        drain()  # what the web process does right after the commit
        page = client.get(reverse("rulings:card", args=[ruling.card.slug])).content.decode()
        assert MARK in page
        found = client.get("/en/search/", {"q": MARK}).content.decode()
        assert ruling.card.name_en in found and MARK in found

        out = run("import_cards", str(CARDS / "cards.jsonl.gz"), str(CARDS / "rulings.jsonl.gz"))
        assert "1 maintainer edit(s) kept" in out and "nothing changed" in out
        kept = Ruling.objects.get(pk=ruling.pk)
        assert kept.text == data["text"] and kept.text_edited and not kept.missing
        assert kept.source_text == original
        assert MARK in client.get(reverse("rulings:card", args=[ruling.card.slug])).content.decode()
    finally:
        # The on-disk index outlives the test's transaction: put the source text back in it.
        ruling.refresh_from_db()
        ruling.text = original
        save_ruling(ruling=ruling, changed=["text"])
        drain()
