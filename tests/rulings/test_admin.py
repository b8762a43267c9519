"""The rulings admin: edits go through the services (marked, relinked, indexed, kept by imports),
JSON fields are validated, the review queue of inferred links, constant queries per change list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from kb.models import Lineage
from rulings.models import Card, Ruling, RulingLink
from tests.kb.helpers import run
from tests.rulings.helpers import clear_cards
from tests.rulings.test_import import BOLT, ICE, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(db) -> Client:
    user = User.objects.create_superuser("maintainer", "m@example.org", "pw")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def small_cards(db, tmp_path: Path) -> Path:
    clear_cards()
    path = Path(write_jsonl(tmp_path / "cards.jsonl", BOLT, ICE))
    run("import_cards", str(path), "--no-link")
    return path


def form_data(response: Any) -> dict[str, Any]:
    """The POST data of an admin change form as it was shown (main form and inlines)."""
    data: dict[str, Any] = {}

    def add(form: Any) -> None:
        for bound in form:
            if bound.field.disabled:
                continue
            value = bound.value()
            if value is None or value is False:
                continue
            data[bound.html_name] = "on" if value is True else value

    add(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for bound in formset.management_form:
            data[bound.html_name] = bound.value()
        for form in formset.forms:
            add(form)
    return data


def test_editing_a_ruling_in_the_admin_marks_it_and_the_next_import_keeps_it(
    admin_client: Client, small_cards: Path
) -> None:
    ruling = Ruling.objects.get(text__startswith="Bolt deals damage")
    url = reverse("admin:rulings_ruling_change", args=[ruling.pk])
    data = form_data(admin_client.get(url))
    data["text"] = "Lightning Bolt deals damage, never a loss of life (corrected)."
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    saved = Ruling.objects.get(pk=ruling.pk)
    assert saved.text == data["text"] and saved.text_edited and saved.linked_at is not None
    assert saved.source_text == ruling.text  # what the source says, kept apart
    page = admin_client.get(reverse("rulings:card", args=[saved.card.slug]))
    assert data["text"] in page.content.decode()
    out = run("import_cards", str(small_cards), "--no-link")
    assert "1 maintainer edit(s) kept" in out
    assert Ruling.objects.get(pk=ruling.pk).text == data["text"]


def test_editing_a_card_in_the_admin_is_kept_by_imports(
    admin_client: Client, small_cards: Path
) -> None:
    bolt = Card.objects.get(name_en="Lightning Bolt")
    url = reverse("admin:rulings_card_change", args=[bolt.pk])
    data = form_data(admin_client.get(url))
    data["type_line_en"] = "Instant — Arcane"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Card.objects.get(pk=bolt.pk).edited == {"type_line_en": "Instant"}
    run("import_cards", str(small_cards), "--no-link")
    assert Card.objects.get(pk=bolt.pk).type_line_en == "Instant — Arcane"


@pytest.mark.parametrize("value", ['"flying"', '{"a": 2}', "[1, 2]", "not json", '["Flying", ""]'])
def test_card_keywords_must_be_a_list_of_texts(
    admin_client: Client, small_cards: Path, value: str
) -> None:
    bolt = Card.objects.get(name_en="Lightning Bolt")
    url = reverse("admin:rulings_card_change", args=[bolt.pk])
    data = form_data(admin_client.get(url))
    data["keywords"] = value
    response = admin_client.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "keywords" in errors
    assert Card.objects.get(pk=bolt.pk).keywords == []


def test_a_legacy_bad_keywords_value_breaks_no_reader(admin_client: Client, small_cards) -> None:
    bolt = Card.objects.get(name_en="Lightning Bolt")
    Card.objects.filter(pk=bolt.pk).update(keywords="Flying")  # stored by older code
    Card.objects.filter(pk=bolt.pk).update(colors={"a": 2})
    assert Card.objects.get(pk=bolt.pk).keywords == []
    assert admin_client.get(f"/api/v1/cards/{bolt.slug}").status_code == 200
    assert admin_client.get(reverse("rulings:card", args=[bolt.slug])).status_code == 200
    url = reverse("admin:rulings_card_change", args=[bolt.pk])
    assert admin_client.get(url).status_code == 200


def test_derived_fields_are_read_only(admin_client: Client, small_cards: Path) -> None:
    ruling = Ruling.objects.first()
    form = (
        admin_client.get(reverse("admin:rulings_ruling_change", args=[ruling.pk]))
        .context["adminform"]
        .form
    )
    assert not {"text_hash", "source_text", "source_hash", "text_edited", "missing"} & set(
        form.fields
    )
    bolt = Card.objects.get(name_en="Lightning Bolt")
    form = (
        admin_client.get(reverse("admin:rulings_card_change", args=[bolt.pk]))
        .context["adminform"]
        .form
    )
    assert not {"key", "oracle_id", "slug", "data_source", "printings", "edited"} & set(form.fields)


def _links(n: int) -> list[RulingLink]:
    rulings = list(Ruling.objects.all())
    lineages = [Lineage.objects.create(key=f"test-{i}", kind="chapter") for i in range(n)]
    return [
        RulingLink.objects.create(
            ruling=rulings[i % len(rulings)],
            lineage=lineages[i],
            evidence=f"“term {i}”",
            number=f"702.{i}",
            current_number=f"702.{i + 1}",
        )
        for i in range(n)
    ]


def test_bulk_confirm_and_reject_leave_admin_log_entries(
    admin_client: Client, small_cards: Path
) -> None:
    links = _links(4)
    url = reverse("admin:rulings_rulinglink_changelist")
    response = admin_client.post(
        url, {"action": "confirm", "_selected_action": [links[0].pk, links[1].pk]}
    )
    assert response.status_code == 302
    response = admin_client.post(url, {"action": "reject", "_selected_action": [links[2].pk]})
    kinds = dict(RulingLink.objects.values_list("pk", "kind"))
    assert [kinds[link.pk] for link in links] == ["confirmed", "confirmed", "rejected", "inferred"]
    logged = LogEntry.objects.filter(content_type__model="rulinglink")
    assert sorted(int(e.object_id) for e in logged) == sorted(link.pk for link in links[:3])
    assert {e.user.username for e in logged} == {"maintainer"}


def test_the_review_queue_shows_what_a_reviewer_needs_and_its_count_on_the_index(
    admin_client: Client, small_cards: Path
) -> None:
    _links(3)
    page = admin_client.get(
        reverse("admin:rulings_rulinglink_changelist") + "?kind__exact=inferred"
    )
    html = page.content.decode()
    for shown in ("Bolt can target a planeswalker", "Lightning Bolt", "702.0", "702.1", "term 0"):
        assert shown in html
    index = admin_client.get(reverse("admin:index")).content.decode()
    assert 'id="review-queues"' in index
    assert "?kind__exact=inferred" in index and '<td class="count">3</td>' in index


@pytest.mark.parametrize("changelist", ["rulings_ruling", "rulings_card", "rulings_rulinglink"])
def test_change_lists_issue_no_query_per_row(
    admin_client: Client, small_cards: Path, changelist: str, django_assert_max_num_queries
) -> None:
    _links(2)
    url = reverse(f"admin:{changelist}_changelist")
    admin_client.get(url)  # warm caches (content types, sessions)
    with django_assert_max_num_queries(15) as few:
        assert admin_client.get(url).status_code == 200
    card = Card.objects.first()
    for i in range(30):
        Card.objects.create(key=f"k{i}", slug=f"s{i}", name_en=f"Card {i}", name=f"Card {i}")
        ruling = Ruling.objects.create(
            card=card, date="2020-01-01", text=f"R {i}", text_hash=f"{i}"
        )
        lineage = Lineage.objects.create(key=f"more-{i}", kind="chapter")
        RulingLink.objects.create(ruling=ruling, lineage=lineage, evidence="e", number="1")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert admin_client.get(url).status_code == 200


def test_a_maintainers_rule_edit_relinks_the_rulings_linked_to_it(
    small_cards: Path, monkeypatch
) -> None:
    from kb.signals import text_edited
    from rulings import linking

    ruling = Ruling.objects.first()
    lineage = Lineage.objects.create(key="999.1@2099-01-01", kind="rule")
    RulingLink.objects.create(ruling=ruling, lineage=lineage)
    asked: list[list[int]] = []
    monkeypatch.setattr(linking, "link_rulings", lambda ids, **kw: asked.append(list(ids)))
    text_edited.send(sender="rule", kind="glossary", object_id=1, lineage_id=lineage.pk)
    assert asked == []  # not a rule
    text_edited.send(sender="rule", kind="rule", object_id=1, lineage_id=lineage.pk)
    assert asked == [[ruling.pk]]
