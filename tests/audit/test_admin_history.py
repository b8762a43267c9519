"""An admin edit leaves a history entry (who, when, each field's old and new value) and can be
reverted from it, through the same service as an edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from rulings.models import Ruling
from tests.rulings.test_admin import admin_client, form_data, small_cards  # noqa: F401

pytestmark = pytest.mark.django_db


def test_a_ruling_edit_is_in_its_history_and_reverts_through_the_service(
    admin_client: Client,  # noqa: F811
    small_cards: Path,  # noqa: F811
) -> None:
    ruling = Ruling.objects.get(text__startswith="Bolt deals damage")
    original = ruling.text
    url = reverse("admin:rulings_ruling_change", args=[ruling.pk])
    data = form_data(admin_client.get(url))
    data["text"] = "Lightning Bolt deals damage, never a loss of life (corrected)."
    assert admin_client.post(url, data).status_code == 302

    history = admin_client.get(reverse("admin:rulings_ruling_history", args=[ruling.pk]))
    page = history.content.decode()
    assert history.status_code == 200 and "maintainer" in page  # who
    assert "corrected" in page and original[:20] in page  # old and new values
    records = list(Ruling.history.filter(id=ruling.pk).order_by("history_date"))
    assert records[-1].history_user.username == "maintainer"

    first = records[0]  # as imported
    revert = reverse("admin:rulings_ruling_simple_history", args=[ruling.pk, first.history_id])
    shown = admin_client.get(revert)
    form = {
        b.html_name: b.value()
        for b in shown.context["adminform"].form
        if b.value() not in (None, False) and not b.field.disabled
    }
    assert form["text"] == original
    assert admin_client.post(revert, form).status_code == 302
    reverted = Ruling.objects.get(pk=ruling.pk)
    assert reverted.text == original
    assert reverted.linked_at is not None  # saved through the service: relinked
    assert not reverted.text_edited  # the source text again: imports may update it
    assert Ruling.history.filter(id=ruling.pk).count() == len(records) + 1
