"""/api/docs offline (issue 16): Swagger UI from django-ninja's own static files (ninja is an
installed app), no CDN address in the page; and the site's favicon."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db


def test_api_docs_load_swagger_ui_from_the_sites_static_files() -> None:
    page = Client().get("/api/docs")
    html = page.content.decode()
    assert page.status_code == 200
    assert not re.search(r"(src|href)=\"(https?:)?//", html), "no CDN (nor any other site)"
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    assert {"/static/ninja/swagger-ui-bundle.js", "/static/ninja/swagger-ui.css"} <= set(assets)
    for asset in assets:  # each one is a file the site serves (collectstatic copies it)
        found = finders.find(asset.removeprefix("/static/"))
        assert found and Path(found).stat().st_size > 1000, asset
    config = json.loads(re.search(r'id="swagger-settings">(.*?)</script>', html, re.S).group(1))
    schema = Client().get(config["url"])
    assert config["url"] == "/api/openapi.json" and schema.status_code == 200
    assert "/api/v1/search" in schema.json()["paths"]
    # No key twice in one object: Python's reader keeps the last, Swagger UI's YAML parser
    # refuses the whole schema ("duplicated mapping key": no operation shown).
    json.loads(schema.content, object_pairs_hook=_no_duplicate_keys)


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    assert len(keys) == len(set(keys)), f"duplicate keys: {sorted(keys)}"
    return dict(pairs)


def test_the_favicon_is_linked_and_answers() -> None:
    client = Client()
    html = client.get("/en/search/help/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
    redirect = client.get("/favicon.ico")
    assert redirect.status_code == 302 and redirect.url == "/static/favicon.svg"
    svg = Path(finders.find("favicon.svg")).read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "<title>Rules KB</title>" in svg
