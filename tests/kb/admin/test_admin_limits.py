"""The rules admin accepts only what an import accepts (issue 31), on the full archive: a 2 MB
rule text (English or French), a glossary text past the limit, 5,000 aliases, an example of
1 MB, a control character: each is an error on its field (no 500, nothing cut, nothing saved),
with the limits of kb.crtext.limits, the ones the CR parser applies to a file."""

from __future__ import annotations

import datetime as dt
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from kb.crtext import CRFormatError, parse_text
from kb.crtext.limits import MAX_ALIASES, MAX_TEXT_CHARS
from kb.models import Example, GlossaryVersion, RuleVersion
from tests.conftest import CR_EN
from tests.kb.helpers import current_date as current
from tests.kb.helpers import superuser_client
from tests.kb.helpers import version_in_force as version_of
from tests.kb.html_forms import form_values

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

TWO_MB = "Trample " * (2 * 1024 * 1024 // 8)


@pytest.fixture
def staff(archive) -> Client:
    return superuser_client()


def refused(client: Client, url: str, form_id: str, changes: dict, message: str) -> str:
    """Post the form as shown with `changes`: the page comes back with `message` and the
    field's error; returns the page."""
    data = form_values(client.get(url).content.decode(), form_id)
    response = client.post(url, {**data, **changes})
    html = unescape(response.content.decode())
    assert response.status_code == 200, html[:2000]
    assert message in html
    assert 'class="errorlist' in html
    return html


def rule_url(version: RuleVersion) -> str:
    return reverse("admin:kb_ruleversion_change", args=[version.pk])


@pytest.mark.parametrize("field", ["text_en", "text_fr"])
def test_a_2_mb_rule_text_is_refused(staff: Client, field: str) -> None:
    version = version_of("702.19a")
    before = (version.text_en, version.text_fr, version.edited_at)
    refused(
        staff,
        rule_url(version),
        "ruleversion_form",
        {field: TWO_MB, **({"fr_status": "unofficial"} if field == "text_fr" else {})},
        f"a rules text holds at most {MAX_TEXT_CHARS:,}",
    )
    version.refresh_from_db()
    assert (version.text_en, version.text_fr, version.edited_at) == before


def test_a_text_at_the_limit_is_saved_one_past_it_is_not(staff: Client) -> None:
    version = version_of("702.19a")
    refused(
        staff,
        rule_url(version),
        "ruleversion_form",
        {"text_fr": "é" * (MAX_TEXT_CHARS + 1), "fr_status": "unofficial"},
        f"This text is {MAX_TEXT_CHARS + 1:,} characters long",
    )
    data = form_values(staff.get(rule_url(version)).content.decode(), "ruleversion_form")
    response = staff.post(
        rule_url(version), {**data, "text_fr": "é" * MAX_TEXT_CHARS, "fr_status": "unofficial"}
    )
    assert response.status_code == 302
    version.refresh_from_db()
    assert len(version.text_fr) == MAX_TEXT_CHARS


def test_a_control_character_is_refused(staff: Client) -> None:
    version = version_of("702.19a")
    refused(
        staff,
        rule_url(version),
        "ruleversion_form",
        {"text_en": version.text_en + "\x1b[31m"},
        "This text holds a control character (U+001B)",
    )


def test_the_import_refuses_the_same_text(tmp_path) -> None:
    """The limit is the parser's too: 702.19a of the latest file, continued past the limit
    by lines each shorter than a line's limit, refuses the file."""
    latest = sorted(CR_EN.glob("*.txt"))[-1]
    text = latest.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\r", "\n")
    start = text.index("\n702.19a ")
    end = text.index("\n", start + 1)
    more = "\n".join(["continued " * 1000] * (MAX_TEXT_CHARS // 10_000 + 1))
    with pytest.raises(CRFormatError, match=f"longer than {MAX_TEXT_CHARS} characters"):
        parse_text(text[:end] + "\n" + more + text[end:])
    assert parse_text(text).effective_date == dt.date.fromisoformat(latest.stem)


def test_glossary_texts_and_aliases_are_bounded(staff: Client) -> None:
    entry = GlossaryVersion.objects.as_of(current()).get(headword="Trample")
    url = reverse("admin:kb_glossaryversion_change", args=[entry.pk])
    form = "glossaryversion_form"
    refused(staff, url, form, {"text_en": TWO_MB}, "a rules text holds at most")
    refused(staff, url, form, {"text_fr": TWO_MB, "fr_status": "unofficial"}, "at most")
    many = "[" + ", ".join(f'"Trample {i}"' for i in range(5000)) + "]"
    refused(staff, url, form, {"aliases": many}, f"At most {MAX_ALIASES} aliases, not 5,000")
    refused(staff, url, form, {"aliases": f'["{"T" * 301}"]'}, "at most 300 characters")
    stored = GlossaryVersion.objects.get(pk=entry.pk)
    assert (stored.text_en, stored.text_fr, stored.aliases) == (
        entry.text_en,
        entry.text_fr,
        entry.aliases,
    )


def test_a_1_mb_example_is_refused(staff: Client) -> None:
    version = version_of("702.19c")
    url = rule_url(version)
    data = form_values(staff.get(url).content.decode(), "ruleversion_form")
    n = int(data["examples-TOTAL_FORMS"])
    for name, value in list(data.items()):
        if name.startswith("examples-__prefix__-"):
            data[name.replace("__prefix__", str(n))] = value
    data[f"examples-{n}-text_en"] = "Example: " + "x" * (1024 * 1024)
    data["examples-TOTAL_FORMS"] = str(n + 1)
    data["examples-0-text_fr"] = "Exemple : " + "x" * (1024 * 1024)  # (3 MB: past Django's 2.5)
    response = staff.post(url, data)
    html = unescape(response.content.decode())
    assert response.status_code == 200
    assert html.count("a rules text holds at most") == 2
    assert Example.objects.filter(version=version).count() == n
    assert not Example.objects.get(version=version, position=0).text_fr
