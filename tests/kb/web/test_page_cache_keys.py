"""The page cache holds pages, not query strings (issue 31), on the real archive: parameters a
page does not read make no new entries, a session cookie alone does not skip the cache (only a
signed-in user's session does), and the store is bounded in bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from kb.web import page_cache

pytestmark = [pytest.mark.slow, pytest.mark.django_db]
HEADER = page_cache.HEADER


@pytest.fixture
def client(archive) -> Client:
    return Client()


def _states(client: Client, urls: list[str]) -> list[str]:
    out = []
    for url in urls:
        answer = client.get(url)
        assert answer.status_code == 200, url
        out.append(answer.get(HEADER, ""))
    return out


def test_parameters_a_page_does_not_read_make_no_entries(client: Client) -> None:
    """300 variants of one address made 300 entries: now one, whatever the order."""
    variants = ["/en/rules/702.19/?utm_source=a"]
    variants += [f"/en/rules/702.19/?fbclid={n}&utm_source=x{n}" for n in range(12)]
    variants.append("/en/rules/702.19/")
    assert _states(client, variants) == ["miss"] + ["hit"] * 13
    page = client.get("/en/rules/702.19/?zorglub=quixotrate").content.decode()
    assert "Trample" in page and "quixotrate" not in page


def test_what_a_page_reads_still_makes_its_own_entry(client: Client) -> None:
    filtered = "/en/current/glossary/?q=trample"
    assert _states(
        client,
        [
            filtered + "&utm=1",
            "/en/current/glossary/?utm=2&q=trample",
            filtered,
            "/en/current/glossary/?q=haste",
            "/en/current/glossary/",
        ],
    ) == ["miss", "hit", "hit", "miss", "miss"]
    haste = client.get("/en/current/glossary/?q=haste&x=1").content.decode()
    assert "Haste" in haste
    diff = "/en/diff/2025-04-04..2025-06-06/"
    assert _states(
        client, [diff + "?section=7&ref=feed", diff + "?ref=mail&section=7", diff + "?section=7"]
    ) == ["miss", "hit", "hit"]
    assert _states(client, [diff + "?section=7&typography=all"]) == ["miss"]


def test_the_api_keeps_the_parameters_its_schema_declares(client: Client) -> None:
    states = _states(
        client,
        [
            "/api/v1/rules/702.19a?lang=fr&callback=x",
            "/api/v1/rules/702.19a?v=2&lang=fr",
            "/api/v1/rules/702.19a?lang=en",
            "/api/v1/rules/702.19a?release=2016-01-16&lang=en",
            "/api/v1/rules/702.19a?lang=en&release=2016-01-16&nocache=1",
        ],
    )
    assert states == ["miss", "hit", "miss", "miss", "hit"]
    answer = client.get("/api/v1/rules/702.19a?release=2016-01-16&utm=1").json()
    assert answer["release"]["effective_date"] == "2016-01-16"


def test_a_session_cookie_alone_does_not_skip_the_cache(client: Client) -> None:
    address = "/en/rules/702.19a/"
    assert _states(client, [address]) == ["miss"]
    forged = Client()
    forged.cookies[django_settings.SESSION_COOKIE_NAME] = "f" * 32  # no such session
    assert _states(forged, [address, address]) == ["hit", "hit"]
    anonymous = SessionStore()
    anonymous["django_language"] = "en"  # a session of no user (a visit to a login page)
    anonymous.create()
    visitor = Client()
    visitor.cookies[django_settings.SESSION_COOKIE_NAME] = anonymous.session_key
    assert _states(visitor, [address]) == ["hit"]
    staff = Client()
    staff.force_login(User.objects.create_superuser("maintainer31", "m@example.org", "x"))
    answer = staff.get(address)
    assert answer.status_code == 200 and HEADER not in answer
    assert "private" in answer["Cache-Control"]


def test_the_cache_is_bounded_in_bytes(client: Client, settings, tmp_path: Path) -> None:
    """Chapter pages stored one after another in a file store bounded to 150 KB: the folder
    never holds more, though over twice that was written, and the newest page is still
    answered from it."""
    folder = tmp_path / "pages"
    settings.CACHES = {
        **settings.CACHES,
        "pages": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(folder),
            "OPTIONS": {"MAX_ENTRIES": 50_000},
        },
    }
    bound = settings.KB_PAGE_CACHE_MAX_BYTES = 150_000
    chapters = [*range(100, 124), 701, 702, *range(500, 515), *range(601, 617)]
    written, held = 0, []
    for number in chapters:
        before = {f.name for f in folder.iterdir()} if folder.exists() else set()
        assert _states(client, [f"/en/rules/{number}/"]) == ["miss"]
        files = list(folder.iterdir())
        written += sum(f.stat().st_size for f in files if f.name not in before)
        held.append(sum(f.stat().st_size for f in files))
    assert written > 2 * bound, written  # what an unbounded store would hold
    assert max(held) <= bound, held
    assert _states(client, [f"/en/rules/{chapters[-1]}/"]) == ["hit"]
