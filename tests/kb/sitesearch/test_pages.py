"""The search page, its help, the OpenSearch description and suggestions, the JSON API; and
that no input breaks any of them (property-based)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

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
    assert re.search(r"Rulings <span class=\"count\">\d+</span>", html)
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
    # Absolute, as the API's other links are.
    assert data["hits"][0]["number"] == "702.19"
    assert data["hits"][0]["url"] == "http://testserver/en/rules/702.19/"
    assert data["unavailable"] is False
    assert data["total"] == data["counts"]["rule"] + data["counts"]["glossary"]
    dated = client.get("/api/v1/search", {"q": "602.2a", "release": "2019-01-25"}).json()
    assert dated["jump"] == "http://testserver/en/2019-01-25/rules/602.2a/"
    assert dated["hits"][0]["valid_to"] == "2019-06-14"
    french = client.get("/api/v1/search", {"q": "vol", "lang": "fr", "kind": "card"}).json()
    assert french["hits"] and all(h["matched"] == ["fr"] for h in french["hits"])
    assert french["hits"][0]["url"].startswith("http://testserver/fr/cards/")
    suggest = client.get("/api/v1/search/suggest", {"q": "tramp"}).json()
    assert suggest[0]["title"] == "Trample"
    assert suggest[0]["url"] == "http://testserver/en/rules/702.19/"


def test_while_the_index_is_built_the_api_says_so_with_a_503(client: Client, monkeypatch) -> None:
    from search.backend import SearchUnavailable, get_backend

    backend = get_backend()

    def building(*args, **kwargs):
        raise SearchUnavailable("the first index is being built", building=True)

    monkeypatch.setattr(type(backend), "search", building)
    response = client.get("/api/v1/search", {"q": "trample"})
    assert response.status_code == 503 and response["Retry-After"] == "30"
    data = response.json()
    assert data["unavailable"] is True and data["hits"] == [] and data["query"] == "trample"

    def missing(*args, **kwargs):
        raise SearchUnavailable("no index at all")  # an operator's problem, not a build

    monkeypatch.setattr(type(backend), "search", missing)
    response = client.get("/api/v1/search", {"q": "trample"})
    assert response.status_code == 200 and response.json()["unavailable"] is True


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


# -- the results page: tabs, groups, more cards, and the API in the same order ----------------

HIT_LINK = re.compile(r'<p class="hit-title">\s*<a href="([^"]+)"')
GROUP = re.compile(r'<section class="result-group group-(\w+)"')
TAB = re.compile(
    r'<li><a href="([^"]+)"( aria-current="page")?[^>]*>([^<]+?) <span class="count">(\d+)</span>'
)


KINDS = {"All": None, "Rules": ["rule"], "Glossary": ["glossary"], "Rulings": ["ruling"]}
KINDS["Cards"] = ["card"]


def _page(client: Client, path: str = "/en/search/", **params: str) -> str:
    response = client.get(path, params)
    assert response.status_code == 200
    return response.content.decode()


def _tabs(html: str) -> list[tuple[str, bool, str, int]]:
    nav = html.split('<nav class="tabs"', 1)[1].split("</nav>", 1)[0]
    return [(unescape(u), bool(cur), label, int(n)) for u, cur, label, n in TAB.findall(nav)]


def _hit_urls(html: str) -> list[str]:
    return [unescape(u) for u in HIT_LINK.findall(html)]


def test_tabs_count_every_kind_and_keep_the_query_and_filters(client: Client) -> None:
    api = client.get("/api/v1/search", {"q": "trample", "release": "2024-02-09"}).json()
    html = _page(client, q="trample", release="2024-02-09", lang="en")
    tabs = _tabs(html)
    assert [label for _, _, label, _ in tabs] == ["All", "Rules", "Glossary", "Rulings", "Cards"]
    counts = {label: n for _, _, label, n in tabs}
    assert counts["All"] == sum(api["counts"].values()) > counts["Cards"] > counts["Rules"] > 0
    assert counts["Rulings"] == api["counts"]["ruling"] and counts["Glossary"] == 2
    assert [current for _, current, _, _ in tabs] == [True, False, False, False, False]
    for url, _, label, _ in tabs:
        query = parse_qs(urlsplit(url).query)
        assert query["q"] == ["trample"] and query["release"] == ["2024-02-09"], url
        assert query["lang"] == ["en"] and "page" not in query, url
        assert query.get("kind") == KINDS[label], url
    # Following a tab: only that kind, the tab marked current, every count unchanged.
    cards = _page(client, q="trample", release="2024-02-09", lang="en", kind="card")
    assert [(label, cur, n) for _, cur, label, n in _tabs(cards)] == [
        (label, label == "Cards", n) for _, _, label, n in tabs
    ]
    assert set(GROUP.findall(cards)) == {"cards"} and "<h2 id=" not in cards.split("<main")[1]
    assert _hit_urls(cards) and all("/cards/" in u for u in _hit_urls(cards))


def test_the_all_tab_groups_rules_then_rulings_then_cards_with_more_cards(client: Client) -> None:
    html = _page(client, q="trample")
    assert GROUP.findall(html) == ["rules", "rulings", "cards"]
    urls = _hit_urls(html)
    assert urls[0] == "/en/rules/702.19/" and "/en/current/glossary/trample/" in urls[:3]
    kinds = ["rules" if "/rules/" in u or "/glossary/" in u else "x" for u in urls]
    first_other = kinds.index("x")
    assert set(kinds[first_other:]) == {"x"}, "rules and glossary all come first"
    cards = html.split('group-cards"', 1)[1].split("</section>", 1)[0]
    shown = cards.count('<li class="hit hit-card">')
    total = client.get("/api/v1/search", {"q": "trample"}).json()["counts"]["card"]
    assert total > 900 and shown < total
    # Cards under the rules and rulings when some made the page, or the link alone when the
    # page's twenty are all rules and rulings (trample's twentieth hit is a card or a ruling by
    # a hair, as the index's statistics move: with the legacy releases, a ruling).
    more = re.search(
        r'<p class="more"><a href="([^"]+)">'
        r"(?:More cards \((\d+) in all\)|See the cards \((\d+)\))",
        cards,
    )
    assert more and int(more.group(2) or more.group(3)) == total
    assert ("More cards" in more.group(0)) == (shown > 0)
    assert parse_qs(urlsplit(unescape(more.group(1))).query) == {"q": ["trample"], "kind": ["card"]}
    # The link leads to the cards, the best-ranked first.
    listed = _page(client, q="trample", kind="card")
    assert _hit_urls(listed)[0] in _hit_urls(html) or shown == 0
    french = _page(client, "/fr/search/", q="piétinement")
    assert "Règles et glossaire" in french
    assert "Plus de cartes (" in french or "Voir les cartes (" in french


def test_a_card_name_puts_the_cards_group_first(client: Client) -> None:
    html = _page(client, q="lightning bolt")
    groups = GROUP.findall(html)
    assert groups[0] == "cards" and set(groups) == {"cards", "rulings", "rules"}
    assert _hit_urls(html)[0] == "/en/cards/lightning-bolt/"


def test_a_keyword_rule_shows_its_defining_subrule(client: Client) -> None:
    html = _page(client, q="trample")
    first = html.split('<li class="hit hit-rule">', 1)[1].split("</li>", 1)[0]
    assert 'href="/en/rules/702.19/#702.19b">702.19b</a>' in first
    assert "The controller of an attacking creature with <mark>trample</mark> first" in first
    deathtouch = _page(client, q="deathtouch")
    assert 'href="/en/rules/702.2/#702.2b">702.2b</a> A creature with toughness' in deathtouch


def test_matched_in_is_said_once(client: Client) -> None:
    """The languages most hits matched in are said once, in the summary; a hit says it only
    where it differs."""
    for path, query, usual in [
        ("/en/search/", "trample", "English"),
        ("/fr/search/", "piétinement", "anglais et français"),
    ]:
        html = _page(client, path, q=query)
        summary = re.findall(r'<span class="matched"> · (?:matched in|trouvé en) ([^<]+)<', html)
        notes = re.findall(r'<p class="matched">(?:matched in|trouvé en) ([^<]+)</p>', html)
        assert summary == [usual]
        assert usual not in notes and len(notes) < len(_hit_urls(html)) / 2, notes


@pytest.mark.parametrize(
    "params",
    [
        {"q": "trample"},
        {"q": "lightning bolt"},
        {"q": "counter target spell"},
        {"q": "what happens when a creature with deathtouch deals damage"},
        {"q": "flying", "kind": "ruling", "page": "2"},
        {"q": "companion", "release": "2020-06-01"},
        {"q": "vol", "lang": "fr"},
    ],
)
def test_the_api_lists_the_hits_of_the_page_in_its_order(client: Client, params) -> None:
    html = _page(client, f"/{params.get('lang', 'en')}/search/", **params)
    api = client.get("/api/v1/search", params).json()
    assert _hit_urls(html) == [h["url"].removeprefix("http://testserver") for h in api["hits"]]
    assert api["hits"]
    assert [g["name"] for g in api["groups"]] == GROUP.findall(html)
    ranks = [h["rank"] for h in api["hits"]]
    start = (int(params.get("page", 1)) - 1) * 20
    assert sorted(ranks) == list(range(start + 1, start + len(ranks) + 1))


def test_a_ruling_on_many_cards_names_the_others(client: Client) -> None:
    query = {"q": "cycling is an activated ability stifle", "kind": "ruling"}
    page = client.get("/en/search/", query).content.decode()
    also = re.search(r'<p class="also">(.*?)</p>', page, re.S)
    assert also, "no 'also on' line"
    links = re.findall(r'href="(/en/cards/[^"#]+/#ruling-\d+)"', also.group(1))
    assert len(links) == 5 and re.search(r"and \d+ other cards", also.group(1))
    assert all(client.get(link.split("#")[0]).status_code == 200 for link in links[:2])
    french = client.get("/fr/search/", query).content.decode()
    assert "Aussi sur" in french and re.search(r"et \d+ autres cartes", french)
    api = client.get("/api/v1/search", query).json()["hits"][0]
    names = {api["card"], *(a["title"] for a in api["also"])}
    assert {"Hundroog", "Angelsong"} <= names and len(api["also"]) >= 10
