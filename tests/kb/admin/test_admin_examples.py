"""Adding, editing, reordering and removing examples in the rule version's admin form (issue
31), on the full archive, through a real POST of the inline formset as the page renders it.

Adding one answered 500 every time (the change message formatted the formset's unsaved
instance, which has no position) and the maintainer's form was lost. Each save goes through
kb.archive.editing: the example's history, the version's hashes and "edited by", the index's outbox
and the public page follow."""

from __future__ import annotations

from html import unescape

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from kb.models import Example, RuleVersion
from search.models import IndexOutbox
from tests.kb.helpers import superuser_client, without_page_cache
from tests.kb.helpers import version_in_force as version_of
from tests.kb.html_forms import form_values

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

FORM = "ruleversion_form"
SOURCE_702_19C = "A player controls a planeswalker with three loyalty counters"


@pytest.fixture
def staff(archive) -> Client:
    return superuser_client()


def url_of(version: RuleVersion) -> str:
    return reverse("admin:kb_ruleversion_change", args=[version.pk])


def shown(client: Client, version: RuleVersion) -> dict:
    """The form's values as the page holds them."""
    return form_values(client.get(url_of(version)).content.decode(), FORM)


def add_row(data: dict, text_en: str, text_fr: str = "") -> None:
    """What the page's "Add another example" does: the empty form's inputs, numbered."""
    n = int(data["examples-TOTAL_FORMS"])
    for name, value in list(data.items()):
        if name.startswith("examples-__prefix__-"):
            data[name.replace("__prefix__", str(n))] = value
    data[f"examples-{n}-text_en"] = text_en
    data[f"examples-{n}-text_fr"] = text_fr
    data["examples-TOTAL_FORMS"] = str(n + 1)


def post(client: Client, version: RuleVersion, data: dict, hooks) -> None:
    with hooks(execute=True):
        response = client.post(url_of(version), data)
    assert response.status_code == 302, unescape(response.content.decode())[:3000]


def texts(version: RuleVersion) -> list[tuple[int, str, str]]:
    return list(
        Example.objects.filter(version=version)
        .order_by("position")
        .values_list("position", "origin", "text_en")
    )


def public(number: str, lang: str = "en") -> str:
    with without_page_cache():
        return unescape(Client().get(f"/{lang}/rules/{number}/").content.decode())


def test_adding_an_example_saves_it_through_the_services(
    staff: Client, django_capture_on_commit_callbacks
) -> None:
    version = version_of("702.19c")
    assert texts(version)[0][2].startswith(SOURCE_702_19C) and len(texts(version)) == 1
    hashes = version.examples_hash
    IndexOutbox.objects.all().delete()
    new = "Example: A creature with trample over planeswalkers attacks a planeswalker alone."
    # Without English text: an error on the form, what was typed shown again, nothing saved.
    data = shown(staff, version)
    add_row(data, "", "Exemple : seulement en français.")
    response = staff.post(url_of(version), data)
    html = unescape(response.content.decode())
    assert response.status_code == 200 and "An example needs an English text." in html
    assert "Exemple : seulement en français." in html and len(texts(version)) == 1

    data = shown(staff, version)
    add_row(data, new, "Exemple : Une créature avec le piétinement attaque seule.")
    post(staff, version, data, django_capture_on_commit_callbacks)

    (_p, _o, first), (position, origin, text) = texts(version)
    assert first.startswith(SOURCE_702_19C)
    assert (position, origin, text) == (1, "maintainer", new)
    added = Example.objects.get(version=version, position=1)
    assert added.text_fr.startswith("Exemple : Une créature") and added.fr_edited
    assert added.edited_by == "maintainer"
    assert added.history.exists()  # django-simple-history, through the service's save
    version.refresh_from_db()
    assert version.examples_hash != hashes and version.edited_by == "maintainer"
    assert IndexOutbox.objects.filter(kind="rule", group=str(version.lineage_id)).exists()
    assert new.removeprefix("Example: ") in public("702.19c")
    message = LogEntry.objects.filter(object_id=str(version.pk)).latest("action_time")
    assert "example 2" in message.get_change_message()


def test_reordering_editing_and_removing_examples(
    staff: Client, django_capture_on_commit_callbacks
) -> None:
    version = version_of("702.19c")
    first, second = "Example: Zeroth added example.", "Example: Other added example."
    data = shown(staff, version)
    add_row(data, first)
    add_row(data, second)
    post(staff, version, data, django_capture_on_commit_callbacks)
    assert [t for _p, _o, t in texts(version)][1:] == [first, second]

    # The second added example before the first; the source's French text corrected.
    data = shown(staff, version)
    assert data["examples-1-order"] == "2" and data["examples-2-order"] == "3"
    assert "examples-0-order" not in data  # the source's example keeps its place (disabled)
    data["examples-1-order"], data["examples-2-order"] = "3", "2"
    data["examples-0-text_fr"] = "Exemple : Un joueur contrôle un planeswalker."
    post(staff, version, data, django_capture_on_commit_callbacks)
    positions = texts(version)
    assert [(p, t) for p, _o, t in positions] == [
        (0, positions[0][2]),
        (1, second),
        (2, first),
    ]
    assert positions[0][2].startswith(SOURCE_702_19C)
    source = Example.objects.get(version=version, position=0)
    assert source.fr_edited and source.text_fr == "Exemple : Un joueur contrôle un planeswalker."
    page = public("702.19c")
    assert page.index("Other added example") < page.index("Zeroth added example")

    # Removing the one now second: the other moves up, no hole is left.
    data = shown(staff, version)
    data["examples-1-DELETE"] = "on"
    post(staff, version, data, django_capture_on_commit_callbacks)
    assert [(p, t) for p, _o, t in texts(version)][1:] == [(1, first)]
    assert "Other added example" not in public("702.19c")

    # The source's example is refused, with a message, and nothing changes.
    data = shown(staff, version)
    data["examples-0-DELETE"] = "on"
    response = staff.post(url_of(version), data)
    assert response.status_code == 200
    assert "is printed by the official source" in unescape(response.content.decode())
    assert len(texts(version)) == 2
