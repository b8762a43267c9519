"""Reading pages on the demo set: quick, and independent of the shared data."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.kb.helpers import DEMO, clear_archive, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(db) -> Client:
    clear_archive()
    run("import_rules", str(DEMO))
    return Client()


def test_demo_pages(client: Client) -> None:
    html = client.get("/en/").content.decode()
    assert "June 6, 2025" in html
    page = client.get("/en/2014-03-01/rules/602.2a/")
    assert page.url == "/en/2014-02-01/rules/602.2a/?on=2014-03-01"
    html = client.get(page.url).content.decode()
    assert "he or she is activating the ability" in html
    assert 'class="ref-missing"' not in html or "701" not in html
    assert client.get("/fr/rules/602/").status_code == 200
    assert (
        client.get("/api/v1/rules/602.2a?release=2019-05-03").json()["release"]["set_name"]
        == "War of the Spark"
    )


def test_no_release_loaded_is_a_clear_404(db) -> None:
    clear_archive()
    c = Client()
    assert c.get("/en/").status_code == 200
    assert c.get("/en/rules/602/").status_code == 404
    assert c.get("/api/v1/releases").json() == []
