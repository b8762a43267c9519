"""HTTP caching of pages and API answers (issue 16), on the demo set: release-pinned answers are
kept long, `current` ones revalidated; a second request with the ETag gets 304 until an
import or an admin edit changes the page."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from kb.archive import editing
from kb.models import RuleNumber, RuleVersion
from tests.kb.helpers import DEMO, clear_archive, run

pytestmark = pytest.mark.django_db
CURRENT = dt.date(2025, 6, 6)
DAY = "max-age=86400"


@pytest.fixture
def client(db) -> Client:
    clear_archive()
    run("import_rules", str(DEMO))
    return Client()


def _cache_control(response) -> set[str]:
    return {part.strip() for part in response["Cache-Control"].split(",")}


@pytest.mark.parametrize(
    "address",
    [
        "/en/2019-05-03/rules/602.2a/",
        "/fr/2019-05-03/rules/602/",
        "/en/2019-05-03/rules/",
        "/en/2019-05-03/glossary/",
        "/en/diff/2019-05-03..2025-06-06/",
        "/api/v1/rules/602.2a?release=2019-05-03",
        "/api/v1/diff?from=2019-05-03&to=2025-06-06",
    ],
)
def test_release_pinned_answers_are_kept_long(client: Client, address: str) -> None:
    first = client.get(address)
    assert first.status_code == 200
    assert _cache_control(first) == {"public", DAY}
    assert first["ETag"] and "Cookie" in first["Vary"]
    again = client.get(address, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize(
    "address",
    [
        "/en/",
        "/en/rules/602.2a/",
        "/en/current/rules/602.2a/",
        "/en/releases/",
        "/en/2019-05-03/rules/602.2a/history/",  # lists later releases' versions too
        "/api/v1/rules/602.2a",
        "/api/v1/rules/602.2a?release=current",
        "/api/v1/rules/602.2a?release=2030-01-01",  # the release in force then: may change
        "/api/v1/rules/602.2a/history?release=2019-05-03",
        "/api/v1/releases",
    ],
)
def test_current_answers_are_revalidated_on_every_use(client: Client, address: str) -> None:
    first = client.get(address)
    assert first.status_code == 200
    assert _cache_control(first) == {"public", "no-cache"}
    assert client.get(address, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_an_admin_edit_changes_the_current_pages_etag(client: Client) -> None:
    page = client.get("/fr/rules/602.2a/")
    api = client.get("/api/v1/rules/602.2a?lang=fr")
    lineage = RuleNumber.objects.as_of(CURRENT).get(number="602.2a").lineage_id
    version = RuleVersion.objects.as_of(CURRENT).get(lineage_id=lineage)
    editing.edit_rule_version(
        version=version, user="ann", text_fr="Le joueur annonce qu'il active la capacité."
    )
    after = client.get("/fr/rules/602.2a/", HTTP_IF_NONE_MATCH=page["ETag"])
    assert after.status_code == 200 and after["ETag"] != page["ETag"]
    assert "Le joueur annonce qu&#x27;il active la capacité." in after.content.decode()
    api_after = client.get("/api/v1/rules/602.2a?lang=fr", HTTP_IF_NONE_MATCH=api["ETag"])
    assert api_after.status_code == 200 and api_after["ETag"] != api["ETag"]
    # An unrelated page is unchanged: still 304.
    glossary = client.get("/en/2019-05-03/glossary/")
    assert (
        client.get(glossary.request["PATH_INFO"], HTTP_IF_NONE_MATCH=glossary["ETag"]).status_code
        == 304
    )


def test_an_import_changes_the_current_pages_etag(client: Client) -> None:
    clear_archive()
    for name in sorted(p.name for p in DEMO.glob("*.txt"))[:-1]:
        run("import_rules", str(DEMO / name))
    before = client.get("/en/rules/602.2a/")
    run("import_rules", str(DEMO))  # the last release: 2025-06-06
    after = client.get("/en/rules/602.2a/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert "June 6, 2025" in after.content.decode()


def test_signed_in_pages_are_private_and_errors_are_not_cached(client: Client) -> None:
    client.force_login(User.objects.create_user("reader", password="x", is_staff=True))
    page = client.get("/en/2019-05-03/rules/602.2a/")
    assert _cache_control(page) == {"private", "no-cache"}
    client.logout()
    missing = client.get("/en/2019-05-03/rules/999.9z/")
    assert missing.status_code == 404 and "public" not in missing.get("Cache-Control", "")
    assert "no-cache" in client.get("/admin/login/")["Cache-Control"]  # the admin's own


@override_settings(KB_PINNED_MAX_AGE=3600)
def test_the_pinned_max_age_is_a_setting(client: Client) -> None:
    assert "max-age=3600" in client.get("/en/2019-05-03/rules/")["Cache-Control"]
