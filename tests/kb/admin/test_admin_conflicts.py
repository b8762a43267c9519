"""Edit conflicts on every kb maintainer admin (issue 12): a maintainer saving a form someone
else changed since it was opened gets a message with both values and nothing is overwritten;
saving the form as shown again (its stamp now fresh) is a deliberate choice and goes through.

Each test posts what the page held (tests.kb.html_forms reads the rendered form, hidden stamps
and hidden initial values included), as a browser would."""

from __future__ import annotations

from collections.abc import Callable
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from kb.archive import editing
from kb.models import Example, GlossaryVersion, Release, VocabularyTerm
from tests.kb.archive.test_editing import demo, version_of  # noqa: F401 (fixture)
from tests.kb.html_forms import form_values

pytestmark = pytest.mark.django_db

CONFLICT = "Someone else changed this field since you opened the"


@pytest.fixture
def ann(demo) -> Client:  # noqa: F811
    client = Client()
    client.force_login(User.objects.create_superuser("ann", "ann@example.org", "x"))
    return client


def page_text(response) -> str:
    return unescape(response.content.decode())


def conflict_then_deliberate_save(
    client: Client,
    url: str,
    form_id: str,
    mine: dict[str, str],
    theirs: Callable[[], None],
    theirs_value: str,
    stored: Callable[[], str],
) -> None:
    """Open the form, let someone else save `theirs`, post `mine`: refused with both values,
    theirs kept. Post the form as shown again: mine is saved."""
    data = form_values(client.get(url).content.decode(), form_id)
    theirs()
    response = client.post(url, {**data, **mine})
    html = page_text(response)
    assert response.status_code == 200, "a stale form was saved"
    assert CONFLICT in html
    (my_value,) = mine.values()
    assert f"Saved now: “{theirs_value}”" in html and f"Yours: “{my_value}”" in html
    assert stored() == theirs_value
    again = form_values(response.content.decode(), form_id)
    assert again[next(iter(mine))] == my_value  # the form keeps what the maintainer typed
    response = client.post(url, again)
    assert response.status_code == 302, page_text(response)[:3000]
    assert stored() == my_value


def test_rule_version_form(ann: Client) -> None:
    version = version_of("602.2a")
    conflict_then_deliberate_save(
        ann,
        reverse("admin:kb_ruleversion_change", args=[version.pk]),
        "ruleversion_form",
        {"text_fr": "Le texte d’Ann."},
        lambda: editing.edit_rule_version(version=version, user="bob", text_fr="Texte de Bob."),
        "Texte de Bob.",
        lambda: type(version).objects.get(pk=version.pk).text_fr,
    )


def test_example_inline_row(ann: Client) -> None:
    version = version_of("602.2a")
    example = editing.add_example(version=version, user="cy", text_en="Example: First text.")
    conflict_then_deliberate_save(
        ann,
        reverse("admin:kb_ruleversion_change", args=[version.pk]),
        "ruleversion_form",
        {"examples-0-text_en": "Example: Ann’s text."},
        lambda: editing.edit_example(example=example, user="bob", text_en="Example: Bob’s text."),
        "Example: Bob’s text.",
        lambda: Example.objects.get(pk=example.pk).text_en,
    )


def test_glossary_version_form(ann: Client) -> None:
    version = GlossaryVersion.objects.filter(valid_to__isnull=True).first()
    conflict_then_deliberate_save(
        ann,
        reverse("admin:kb_glossaryversion_change", args=[version.pk]),
        "glossaryversion_form",
        {"text_fr": "Définition d’Ann."},
        lambda: editing.edit_glossary_version(
            version=version, user="bob", text_fr="Définition de Bob."
        ),
        "Définition de Bob.",
        lambda: GlossaryVersion.objects.get(pk=version.pk).text_fr,
    )


def test_release_form(ann: Client) -> None:
    release = Release.objects.latest("effective_date")
    conflict_then_deliberate_save(
        ann,
        reverse("admin:kb_release_change", args=[release.pk]),
        "release_form",
        {"set_name_fr": "Nom d’Ann"},
        lambda: Release.objects.filter(pk=release.pk).update(set_name_fr="Nom de Bob"),
        "Nom de Bob",
        lambda: Release.objects.get(pk=release.pk).set_name_fr or "",
    )


@pytest.fixture
def terms(demo) -> list[VocabularyTerm]:  # noqa: F811
    lineage = version_of("602.2a").lineage_id
    return [
        VocabularyTerm.objects.create(
            en=en, fr=fr, kind="keyword", source="cards", lineage_id=lineage
        )
        for en, fr in [("flying", "vol"), ("haste", "célérité"), ("scry", "regard")]
    ]


def test_vocabulary_form(ann: Client, terms) -> None:
    term = terms[0]
    conflict_then_deliberate_save(
        ann,
        reverse("admin:kb_vocabularyterm_change", args=[term.pk]),
        "vocabularyterm_form",
        {"fr": "voler"},
        lambda: editing.edit_vocabulary_term(term=term, user="bob", fr="en vol"),
        "en vol",
        lambda: VocabularyTerm.objects.get(pk=term.pk).fr,
    )


def test_vocabulary_list_editable_rows(ann: Client, terms) -> None:
    """The change list edits several rows at once: the row someone else changed is refused
    with both values; rows nobody else touched are not overwritten by their stale values."""
    flying, haste, _scry = terms
    url = reverse("admin:kb_vocabularyterm_changelist")
    data = form_values(ann.get(url).content.decode(), "changelist-form")
    rows = {data[f"form-{i}-id"]: i for i in range(int(data["form-TOTAL_FORMS"]))}
    f, h = rows[str(flying.pk)], rows[str(haste.pk)]
    assert data[f"initial-form-{f}-fr"] == "vol"  # each row carries what it showed
    editing.edit_vocabulary_term(term=flying, user="bob", fr="en vol")
    editing.edit_vocabulary_term(term=haste, user="bob", checked=True)
    mine = {**data, f"form-{f}-fr": "voler", "_save": "Save"}
    response = ann.post(url, mine)
    html = page_text(response)
    assert response.status_code == 200, "a stale row was saved"
    assert "Saved now: “en vol”" in html and "Yours: “voler”" in html
    assert VocabularyTerm.objects.get(pk=flying.pk).fr == "en vol"
    # Ann did not touch Haste: Bob's "checked" stays, whatever her page showed.
    again = form_values(response.content.decode(), "changelist-form")
    assert again[f"form-{f}-fr"] == "voler"
    response = ann.post(url, {**again, "_save": "Save"})
    assert response.status_code == 302, page_text(response)[:3000]
    assert VocabularyTerm.objects.get(pk=flying.pk).fr == "voler"
    assert VocabularyTerm.objects.get(pk=haste.pk).checked
    assert h != f


def test_a_relation_in_conflict_is_named_not_numbered(ann: Client) -> None:
    """The French's release in a conflict message is the release, not its row id."""
    version = version_of("602.2a")
    first, last = Release.objects.order_by("effective_date")[:2]
    url = reverse("admin:kb_ruleversion_change", args=[version.pk])
    data = form_values(ann.get(url).content.decode(), "ruleversion_form")
    type(version).objects.filter(pk=version.pk).update(fr_release=first)
    html = page_text(ann.post(url, {**data, "fr_release": str(last.pk)}))
    assert CONFLICT in html
    assert f"Saved now: “{first}”" in html and f"Yours: “{last}”" in html
    assert f"Saved now: “{first.pk}”" not in html
