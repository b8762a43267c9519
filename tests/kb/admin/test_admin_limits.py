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
from tests.kb.html_forms import form_values, post_refused

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

TWO_MB = "Trample " * (2 * 1024 * 1024 // 8)


@pytest.fixture
def staff(archive) -> Client:
    return superuser_client()


def rule_url(version: RuleVersion) -> str:
    return reverse("admin:kb_ruleversion_change", args=[version.pk])


def trample() -> GlossaryVersion:
    return GlossaryVersion.objects.as_of(current()).get(headword="Trample")


#: The rows the refusals are tried on: 702.19a (Trample's rule) and Trample's glossary entry.
ROWS = {"rule": lambda: version_of("702.19a"), "glossary": trample}

A_RULES_TEXT_PAST_THE_LIMIT = f"a rules text holds at most {MAX_TEXT_CHARS:,}"


@pytest.mark.parametrize(
    ("row", "changes", "message"),
    [
        pytest.param("rule", {"text_en": TWO_MB}, A_RULES_TEXT_PAST_THE_LIMIT, id="rule-2mb-en"),
        pytest.param(
            "rule",
            {"text_fr": TWO_MB, "fr_status": "unofficial"},
            A_RULES_TEXT_PAST_THE_LIMIT,
            id="rule-2mb-fr",
        ),
        pytest.param(
            "rule",
            {"text_en": lambda row: row.text_en + "\x1b[31m"},
            "This text holds a control character (U+001B)",
            id="rule-control-character",
        ),
        pytest.param(
            "glossary", {"text_en": TWO_MB}, A_RULES_TEXT_PAST_THE_LIMIT, id="glossary-2mb-en"
        ),
        pytest.param(
            "glossary",
            {"text_fr": TWO_MB, "fr_status": "unofficial"},
            A_RULES_TEXT_PAST_THE_LIMIT,
            id="glossary-2mb-fr",
        ),
        pytest.param(
            "glossary",
            {"aliases": "[" + ", ".join(f'"Trample {i}"' for i in range(5000)) + "]"},
            f"At most {MAX_ALIASES} aliases, not 5,000",
            id="glossary-5000-aliases",
        ),
        pytest.param(
            "glossary",
            {"aliases": f'["{"T" * 301}"]'},
            "at most 300 characters",
            id="glossary-long-alias",
        ),
    ],
)
def test_a_value_past_the_imports_limits_is_refused_and_nothing_saved(
    staff: Client, row: str, changes: dict, message: str
) -> None:
    """Each is an error on its field of the rule's or glossary entry's page, the row as it was
    (a change given as a function is made from the row's own value)."""
    entry = ROWS[row]()
    model = type(entry)
    url = reverse(f"admin:kb_{model._meta.model_name}_change", args=[entry.pk])
    changes = {k: v(entry) if callable(v) else v for k, v in changes.items()}
    before = model.objects.filter(pk=entry.pk).values().get()
    post_refused(staff, url, f"{model._meta.model_name}_form", changes, message)
    assert model.objects.filter(pk=entry.pk).values().get() == before


def test_a_text_at_the_limit_is_saved_one_past_it_is_not(staff: Client) -> None:
    version = version_of("702.19a")
    post_refused(
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
