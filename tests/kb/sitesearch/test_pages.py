"""The search page, its help, the OpenSearch description and suggestions, the JSON API; and
that no input breaks any of them (property-based)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.sitesearch.service import search

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

NASTY = [
    "",
    '"unbalanced',
    "((trample",
    "OR",
    "-",
    "*",
    "x" * 10_000,
    "\x00\x01\x1b[0m",
    "🐉 dragon 🔥",
    "'; DROP TABLE kb_release; --",
    "<script>alert(1)</script>",
    "kind: release: lang:",
    "release:9999-99-99 trample",
    "release:1990-01-01 trample",
    "602.2a OR",
    "“”«»",
]


@pytest.fixture
def client(search_index) -> Client:
    return Client()


def test_the_results_page(client: Client) -> None:
    html = client.get("/en/search/", {"q": "trample"}).content.decode()
    assert 'href="/en/rules/702.19/"' in html and 'href="/en/current/glossary/trample/"' in html
    assert "<mark>" in html and "702. Keyword Abilities" in html
    assert re.search(r"Rulings <span class=\"count\">\(\d+\)</span>", html)
    french = client.get("/fr/search/", {"q": "piétinement"}).content.decode()
    assert 'href="/fr/rules/702.19/"' in french and '→ <span lang="en">Trample</span>' in french
    dated = client.get("/en/search/", {"q": "companion", "release": "2020-06-01"})
    assert 'href="/en/2020-06-01/rules/' in dated.content.decode()


def test_numbers_jump_and_corrections_show(client: Client) -> None:
    assert client.get("/en/search/", {"q": "CR 702.19c"}).url == "/en/rules/702.19c/"
    assert client.get("/fr/search/", {"q": "602.2a", "release": "2019-01-25"}).url == (
        "/fr/2019-01-25/rules/602.2a/"
    )
    before = client.get("/fr/search/", {"q": "release:1990-01-01 trample"}).content.decode()
    assert "Aucune version n’était en vigueur le 1990-01-01" in before
    missing = client.get("/en/search/", {"q": "999.9"}).content.decode()
    assert "There is no rule 999.9" in missing
    typo = client.get("/en/search/", {"q": "deathtuch"}).content.decode()
    assert "Showing results for" in typo and "deathtouch" in typo


def test_pages_of_results_link_to_each_other(client: Client) -> None:
    html = client.get("/en/search/", {"q": "flying", "kind": "ruling", "page": 2}).content.decode()
    assert 'rel="prev"' in html and 'rel="next"' in html and 'aria-current="page">2<' in html


def test_help_opensearch_and_suggestions(client: Client) -> None:
    assert "release:2019-01-25" in client.get("/en/search/help/").content.decode()
    xml = client.get("/en/search/opensearch.xml")
    assert xml["Content-Type"].startswith("application/opensearchdescription+xml")
    assert 'template="http://testserver/en/search/?q={searchTerms}"' in xml.content.decode()
    home = client.get("/en/").content.decode()
    assert 'rel="search" type="application/opensearchdescription+xml"' in home
    query, titles, _, urls = client.get("/en/search/suggest/", {"q": "lightning b"}).json()
    assert query == "lightning b" and "Lightning Bolt" in titles
    assert urls[titles.index("Lightning Bolt")] == "http://testserver/en/cards/lightning-bolt/"


def test_the_api(client: Client) -> None:
    data = client.get("/api/v1/search", {"q": "trample", "kind": "rule,glossary"}).json()
    assert data["hits"][0]["number"] == "702.19" and data["hits"][0]["url"] == "/en/rules/702.19/"
    assert data["total"] == data["counts"]["rule"] + data["counts"]["glossary"]
    dated = client.get("/api/v1/search", {"q": "602.2a", "release": "2019-01-25"}).json()
    assert dated["jump"] == "/en/2019-01-25/rules/602.2a/"
    assert dated["hits"][0]["valid_to"] == "2019-06-14"
    french = client.get("/api/v1/search", {"q": "vol", "lang": "fr", "kind": "card"}).json()
    assert french["hits"] and all(h["matched"] == ["fr"] for h in french["hits"])
    assert french["hits"][0]["url"].startswith("/fr/cards/")
    suggest = client.get("/api/v1/search/suggest", {"q": "tramp"}).json()
    assert suggest[0]["title"] == "Trample" and suggest[0]["url"] == "/en/rules/702.19/"


def test_nasty_inputs_answer_normally(client: Client) -> None:
    for q in NASTY:
        page = client.get("/en/search/", {"q": q, "page": "x", "kind": "nonsense"})
        assert page.status_code in (200, 302), q
        assert "<script>alert(1)" not in page.content.decode()
        api = client.get("/api/v1/search", {"q": q})
        assert api.status_code == 200, q
    assert client.get("/api/v1/search", {"q": "a", "page": "x"}).status_code == 400


@settings(
    deadline=None,
    max_examples=60,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",)),
        max_size=200,
    )
    | st.sampled_from(NASTY)
    | st.lists(
        st.sampled_from(['"', "(", ")", "-", "OR", "*", "kind:", "trample", "é", "602.2a"])
    ).map(" ".join)
)
def test_any_query_gives_a_normal_answer(client: Client, text: str) -> None:
    found = search(text)
    assert found.results.total >= len(found.results.hits)
    page = client.get("/en/search/", {"q": text})
    assert page.status_code in (200, 302)
    if page.status_code == 200:
        assert "<script>" not in page.content.decode().split("<main", 1)[1]
    assert client.get("/api/v1/search", {"q": text}).status_code == 200
