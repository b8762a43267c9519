"""No admin change list issues a query per row (issue 12): the number of queries a list page
makes is the same with 20 rows as with 100 (rule versions, glossary versions, vocabulary,
cards, rulings, ruling links). Each list is filtered to the rows the test made, so the demo
archive's own rows do not change the figures."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from kb.models import Lineage, Release, RuleVersion, VocabularyTerm
from rulings.models import Card, Ruling, RulingLink
from tests.kb.archive.test_editing import demo  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

#: A date no real release has: the rows made here are easy to tell apart.
FAR = dt.date(2099, 1, 1)


@pytest.fixture
def staff(demo) -> Client:  # noqa: F811
    client = Client()
    client.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    return client


def _lineages(start: int, n: int, prefix: str) -> list[Lineage]:
    return Lineage.objects.bulk_create(
        Lineage(key=f"{prefix}{i}@{FAR}", kind="rule") for i in range(start, start + n)
    )


def add_rule_versions(start: int, n: int) -> None:
    release = Release.objects.first()
    RuleVersion.objects.bulk_create(
        RuleVersion(
            lineage=lineage,
            valid_from=FAR,
            text_en=f"Rule text {lineage.key}.",
            text_fr=f"Texte {lineage.key}.",
            fr_status="unofficial",
            fr_release=release,
            text_hash="h",
            folded_hash="h",
            masked_hash="h",
            wording_since=FAR,
        )
        for lineage in _lineages(start, n, "qv")
    )


def add_vocabulary(start: int, n: int) -> None:
    lineages = _lineages(start, n, "qw")
    VocabularyTerm.objects.bulk_create(
        VocabularyTerm(
            en=f"qterm {i}", fr=f"terme {i}", kind="keyword", source="cards", lineage=lineage
        )
        for i, lineage in zip(range(start, start + n), lineages, strict=True)
    )


def _cards(start: int, n: int) -> list[Card]:
    return Card.objects.bulk_create(
        Card(key=f"qc{i}", slug=f"qc-{i}", name_en=f"Query Card {i}", name=f"Query Card {i}")
        for i in range(start, start + n)
    )


def add_cards(start: int, n: int) -> None:
    _cards(start, n)


def _rulings(start: int, n: int) -> list[Ruling]:
    cards = _cards(start, n)
    return Ruling.objects.bulk_create(
        Ruling(card=card, date=FAR, text=f"Query ruling {i}.", text_hash=f"q{i}")
        for i, card in zip(range(start, start + n), cards, strict=True)
    )


def add_rulings(start: int, n: int) -> None:
    _rulings(start, n)


def add_links(start: int, n: int) -> None:
    rulings = _rulings(start, n)
    lineages = _lineages(start, n, "ql")
    release = Release.objects.first()
    RulingLink.objects.bulk_create(
        RulingLink(
            ruling=ruling,
            lineage=lineage,
            release=release,
            evidence="query evidence",
            number="702.9",
            current_number="702.9",
            date=FAR,
        )
        for ruling, lineage in zip(rulings, lineages, strict=True)
    )


LISTS: dict[str, tuple[str, str, Callable[[int, int], None]]] = {
    "rule versions": (
        "admin:kb_ruleversion_changelist",
        "valid_from__exact=2099-01-01&release=all",  # rows of no release: read them all
        add_rule_versions,
    ),
    "vocabulary": ("admin:kb_vocabularyterm_changelist", "q=qterm", add_vocabulary),
    "cards": ("admin:rulings_card_changelist", "q=Query Card", add_cards),
    "rulings": ("admin:rulings_ruling_changelist", "q=Query ruling", add_rulings),
    "ruling links": ("admin:rulings_rulinglink_changelist", "q=query evidence", add_links),
}


def queries_and_rows(client: Client, url: str) -> tuple[int, int]:
    client.get(url)  # warm what is cached once per process (content types, session)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured.captured_queries), len(response.context["cl"].result_list)


@pytest.mark.parametrize("name", list(LISTS))
def test_a_change_list_makes_as_many_queries_for_100_rows_as_for_20(
    staff: Client, name: str
) -> None:
    url_name, query, add = LISTS[name]
    url = f"{reverse(url_name)}?{query}"
    add(0, 20)
    few, shown = queries_and_rows(staff, url)
    assert shown == 20
    add(20, 80)
    many, shown = queries_and_rows(staff, url)
    assert shown == min(100, _per_page(staff, url))
    assert many == few, f"{name}: {few} queries for 20 rows, {many} for {shown}"


def _per_page(client: Client, url: str) -> int:
    return client.get(url).context["cl"].list_per_page
