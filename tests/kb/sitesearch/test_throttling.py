"""Search throttling per client (issue 16), on the demo set (no index needed: the throttle
answers before the search runs): the page's translated 429, the API's JSON 429, both with
Retry-After, counted per client, off when the setting is empty."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from tests.kb.helpers import DEMO, clear_archive, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(db) -> Client:
    clear_archive()
    run("import_rules", str(DEMO))
    cache.clear()
    yield Client(REMOTE_ADDR="192.0.2.1")
    cache.clear()


@override_settings(KB_SEARCH_THROTTLE="3/min")
def test_the_search_page_answers_429_in_the_readers_language(client: Client) -> None:
    statuses = [client.get("/en/search/", {"q": f"mana {i}"}).status_code for i in range(3)]
    assert statuses == [200, 200, 200]
    en = client.get("/en/search/", {"q": "trample"})
    fr = client.get("/fr/search/", {"q": "piétinement"})
    assert (en.status_code, fr.status_code) == (429, 429)
    assert 1 <= int(en["Retry-After"]) <= 60
    assert "Too many searches" in en.content.decode()
    assert "Please try again in" in en.content.decode()
    html = fr.content.decode()
    assert "Trop de recherches" in html and "Veuillez réessayer dans" in html
    assert 'class="site-header"' in html  # the site's own layout
    # Another client is not held back; the rest of the site is not throttled.
    assert Client(REMOTE_ADDR="192.0.2.2").get("/en/search/", {"q": "x"}).status_code == 200
    assert client.get("/en/rules/602.2a/").status_code == 200
    assert client.get("/en/search/").status_code == 200  # the empty form is not a search


@override_settings(KB_SEARCH_THROTTLE="2/min")
def test_the_search_api_answers_429_json_and_shares_the_count(client: Client) -> None:
    assert client.get("/api/v1/search", {"q": "mana"}).status_code == 200
    assert client.get("/en/search/", {"q": "mana"}).status_code == 200  # same client, same log
    refused = client.get("/api/v1/search", {"q": "mana"})
    assert refused.status_code == 429
    assert refused.json() == {"detail": "Too many requests."}
    assert int(refused["Retry-After"]) >= 1
    assert "public" not in refused.get("Cache-Control", "")


@override_settings(KB_SEARCH_THROTTLE="2/min", NINJA_NUM_PROXIES=0)
def test_a_forged_forwarded_for_does_not_escape_the_limit(client: Client) -> None:
    codes = [
        client.get("/api/v1/search", {"q": "x"}, HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").status_code
        for i in range(3)
    ]
    assert codes == [200, 200, 429]


def test_throttling_is_off_when_the_setting_is_empty(client: Client) -> None:
    with override_settings(KB_SEARCH_THROTTLE=None):
        codes = {client.get("/api/v1/search", {"q": "x"}).status_code for _ in range(30)}
    assert codes == {200}
