"""A ruling corrected in the admin shows right after save (issue 12), on the full archive and
the real cards: on its card's page, in the rulings panel of the rule it is linked to, and in search.

The admin POST is the form as rendered; the commit hooks run as after a request's commit, then
the index drains (KB_SEARCH_AUTO_DRAIN is off in tests). The on-disk index outlives the test's
transaction: the source text is put back through the same service and drained again."""

from __future__ import annotations

from html import unescape

import pytest
from django.contrib.auth.models import User
from django.db.models import Count
from django.test import Client
from django.urls import reverse

from rulings.corrections import save_ruling
from rulings.models import LinkKind, Ruling, RulingLink
from search.indexing import drain
from tests.kb.html_forms import form_values

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

MARK = "Snorgleplume"  # a word no card, ruling or rule uses


def a_linked_ruling() -> tuple[Ruling, str]:
    """A ruling linked to a current rule that has the fewest rulings (the rule page's panel
    then lists it on its first page)."""
    shown = RulingLink.objects.exclude(kind=LinkKind.REJECTED).exclude(current_number="")
    quiet = (
        shown.filter(ruling__missing=False, ruling__is_heading=False)
        .values("lineage_id")
        .annotate(n=Count("id"))
        .order_by("n", "lineage_id")
        .first()
    )
    assert quiet is not None
    link = (
        shown.filter(lineage_id=quiet["lineage_id"], ruling__missing=False)
        .select_related("ruling__card")
        .order_by("id")
        .first()
    )
    return link.ruling, link.current_number


def test_a_ruling_edit_shows_on_the_card_the_rule_and_in_search(
    search_index, django_capture_on_commit_callbacks
) -> None:
    staff = Client()
    staff.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    ruling, number = a_linked_ruling()
    original = ruling.text
    edited = f"{original} {MARK}."
    url = reverse("admin:rulings_ruling_change", args=[ruling.pk])
    data = form_values(staff.get(url).content.decode(), "ruling_form")
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(url, {**data, "text": edited})
    assert response.status_code == 302, response.content.decode()[:3000]
    drain()
    try:
        reader = Client()
        card = reader.get(reverse("rulings:card", args=[ruling.card.slug])).content.decode()
        assert edited in unescape(card)
        rule = reader.get(f"/en/rules/{number}/").content.decode()
        assert MARK in rule, f"the rulings panel of {number} does not show the edit"
        hits = reader.get("/api/v1/search", {"q": MARK, "kind": "ruling"}).json()["hits"]
        assert hits and hits[0]["card"] == ruling.card.name_en
    finally:
        ruling.refresh_from_db()
        ruling.text = original
        save_ruling(ruling=ruling, changed=["text"])
        drain()
    assert not Client().get("/api/v1/search", {"q": MARK, "kind": "ruling"}).json()["hits"]
