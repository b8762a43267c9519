"""Search throttling per client (issue 16), on the demo set (no index needed: the throttle
answers before the search runs): the page's translated 429, the API's JSON 429, both with
Retry-After, counted per client, off when the setting is empty."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from tests.kb.helpers import DEMO, clear_archive, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(db) -> Client:
    clear_archive()
    run("import_rules", str(DEMO))
    caches["throttle"].clear()
    yield Client(REMOTE_ADDR="192.0.2.1")
    caches["throttle"].clear()


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


# One search of a client, in a process of its own (a gunicorn worker), with the settings a
# served site has (the base settings: the `throttle` alias is files under KB_VAR_DIR).
_ONE_SEARCH = """
import django
django.setup()
from django.test import RequestFactory
from kb.sitesearch.throttling import retry_after
request = RequestFactory().get("/api/v1/search", {"q": "x"}, REMOTE_ADDR="192.0.2.9")
print("refused" if retry_after(request) else "allowed")
"""


def test_workers_share_a_clients_count(tmp_path) -> None:
    """Each search in another process, as two workers would answer them: the third of a
    client's searches is refused whichever process answers it (a count per process let a
    client through once per worker)."""
    import os
    import subprocess
    import sys

    from django.conf import settings

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "KB_VAR_DIR": str(tmp_path),
        "KB_SEARCH_THROTTLE": "2/min",
        "KB_SEARCH_WARM_UP": "0",
    }
    env.pop("DJANGO_CACHE_BACKEND", None)
    answers = [
        subprocess.run(
            [sys.executable, "-c", _ONE_SEARCH],
            cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, check=True,
        ).stdout.strip()
        for _ in range(3)
    ]  # fmt: skip
    assert answers == ["allowed", "allowed", "refused"]
    assert (tmp_path / "throttle").is_dir()
