"""Review queues on the admin index (issue 12): each queue's count is the number of rows its
link lists; apps register their own queues (kb does not know rulings); a maintainer works
through the vocabulary queue with a bulk action that leaves history naming the reviewer."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from kb.archive import editing
from kb.models import VocabularyTerm
from roles.groups import MAINTAINERS
from tests.kb.archive.test_editing import demo, version_of  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def maintainer(demo) -> Client:  # noqa: F811
    user = User.objects.create_user("mai", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def terms(demo) -> list[VocabularyTerm]:  # noqa: F811
    lineage = version_of("602.2a").lineage_id
    rows = [
        ("activate", "activez", True),
        ("flying", "vol", False),
        ("haste", "célérité", False),
        ("scry", "regard", False),
    ]
    return [
        VocabularyTerm.objects.create(
            en=en, fr=fr, kind="keyword", source="cards", lineage_id=lineage, checked=checked
        )
        for en, fr, checked in rows
    ]


def queues_on_index(client: Client) -> dict[str, tuple[int, str]]:
    """{queue key: (count, link)} as the admin index shows them."""
    html = client.get(reverse("admin:index")).content.decode()
    box = re.search(r'<div class="module" id="review-queues">(.*?)</div>', html, re.S)
    assert box, "no review queues box on the admin index"
    rows = re.findall(
        r'<tr class="queue-([\w-]+)">\s*<th scope="row"><a href="([^"]+)">[^<]+</a></th>\s*'
        r'<td class="count">(\d+)</td>',
        box.group(1),
    )
    return {key: (int(count), url.replace("&amp;", "&")) for key, url, count in rows}


def listed(client: Client, url: str) -> int:
    """How many rows a change list link lists."""
    response = client.get(url)
    assert response.status_code == 200, url
    return response.context["cl"].result_count


def test_the_index_shows_each_queue_with_the_count_its_link_lists(
    maintainer: Client, terms
) -> None:
    queues = queues_on_index(maintainer)
    assert {"vocabulary", "inferred", "edited", "missing", "cards"} <= set(queues)
    count, url = queues["vocabulary"]
    assert count == 3 == listed(maintainer, url)
    assert url.endswith("?checked__exact=0")
    for key in ("inferred", "edited", "missing", "cards"):
        count, url = queues[key]
        assert count == listed(maintainer, url), key


def test_the_french_queues_count_what_their_filters_list(maintainer: Client) -> None:
    """kb.admin.french_filters's counts, registered: missing, stale and unofficial French texts of
    the current release, each the number of rule versions its filtered list shows."""
    editing.edit_rule_version(version=version_of("602.2a"), user="t", text_fr="Texte.")
    queues = queues_on_index(maintainer)
    assert {"french-missing", "french-stale", "french-unofficial"} <= set(queues)
    for key in ("french-missing", "french-stale", "french-unofficial"):
        count, url = queues[key]
        assert url.endswith("?french=" + key.removeprefix("french-"))
        assert count == listed(maintainer, url), key
    assert queues["french-unofficial"][0] == 1
    assert queues["french-missing"][0] > 0


def test_queues_are_shown_to_those_who_may_open_them(demo) -> None:  # noqa: F811
    nobody = User.objects.create_user("staff-only", password="pw", is_staff=True)
    client = Client()
    client.force_login(nobody)
    html = client.get(reverse("admin:index")).content.decode()
    assert 'id="review-queues"' not in html


def test_the_vocabulary_queue_empties_through_the_bulk_action_with_history(
    maintainer: Client, terms
) -> None:
    url = reverse("admin:kb_vocabularyterm_changelist") + "?checked__exact=0"
    unchecked = [t.pk for t in terms if not t.checked]
    response = maintainer.post(
        url, {"action": "mark_checked", "_selected_action": unchecked[:2]}, follow=True
    )
    assert "2 terms marked checked." in response.content.decode()
    assert queues_on_index(maintainer)["vocabulary"][0] == 1
    for pk in unchecked[:2]:
        term = VocabularyTerm.objects.get(pk=pk)
        assert term.checked and term.edited_by == "mai" and term.edited_at is not None
        assert not term.edited  # the French term is the mined one still: only checked
        last = term.history.latest("history_date")
        assert last.checked and last.history_user.username == "mai"
        assert last.history_change_reason == "marked checked"
        assert last.prev_record is not None and not last.prev_record.checked
    # Marking a checked term again changes nothing and records nothing.
    before = VocabularyTerm.history.count()
    maintainer.post(url, {"action": "mark_checked", "_selected_action": unchecked[:1]})
    assert VocabularyTerm.history.count() == before


def test_the_french_queues_are_counted_once_per_index_page(maintainer: Client, monkeypatch) -> None:
    """The three French queues are one group: their states are read once per page."""
    import kb.admin.model_admins

    calls: list[int] = []
    real = kb.admin.model_admins.french_queue_counts

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(kb.admin.model_admins, "french_queue_counts", counted)
    queues = queues_on_index(maintainer)
    assert len(calls) == 1
    assert {"french-missing", "french-stale", "french-unofficial"} <= set(queues)
