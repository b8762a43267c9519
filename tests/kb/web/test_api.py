"""The JSON API on the full archive."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def client(archive) -> Client:
    return Client()


def test_releases(client: Client) -> None:
    data = client.get("/api/v1/releases").json()
    assert len(data) == 133
    assert data[0]["effective_date"] == "1999-04-23" and data[0]["set_name"] == "Sixth Edition"
    assert data[32]["effective_date"] == "2009-07-11" and data[32]["set_name"] == "Magic 2010"
    assert data[-1]["counts"]["rules"] == 1173


def test_a_rule_as_of_a_release(client: Client) -> None:
    data = client.get("/api/v1/rules/602.2a", {"release": "2024-06-07"}).json()
    assert data["release"]["effective_date"] == "2024-06-07"
    assert data["text"].startswith("The player announces that they are activating the ability.")
    (ref,) = data["references"]
    assert ref["text"] == "701.16a"
    assert ref["resolved"] == [
        {
            "number": "701.16a",
            "exists": True,
            "url": "http://testserver/en/2024-06-07/rules/701.16a/",
        }
    ]
    assert data["lineage"] == "602.2a@2009-07-11"
    assert data["last_changed"] == {
        "version_since": "2024-06-07",
        "wording_since": "2024-06-07",
        "change": "wording",
    }
    assert data["parent"] == "602.2"


def test_current_by_default_and_any_date(client: Client) -> None:
    today = client.get("/api/v1/rules/602.2a").json()
    assert today["release"]["effective_date"] == "2026-08-07"
    assert today["last_changed"]["change"] == "reference"
    old = client.get("/api/v1/rules/602.2a", {"release": "2016-05-20"}).json()
    assert old["release"]["effective_date"] == "2016-04-08"


def test_children_and_examples(client: Client) -> None:
    data = client.get("/api/v1/rules/602.2").json()
    assert [c["number"] for c in data["children"]] == ["602.2a", "602.2b"]
    chapter = client.get("/api/v1/rules/602").json()
    assert [c["number"] for c in chapter["children"]][:3] == ["602.1", "602.2", "602.3"]
    example = client.get("/api/v1/rules/101.2").json()
    assert example["examples"][0].startswith("If one effect reads “You may play an additional land")


def test_french_asked_for_and_english_given_is_said(client: Client) -> None:
    data = client.get("/api/v1/rules/602.2a", {"lang": "fr"}).json()
    assert data["lang"] == "fr" and data["text_lang"] == "en"
    assert data["french_text_loaded"] is False
    # No French in the archive: `french` is null, `text_en` is the English given.
    assert data["french"] is None and data["text_en"] == data["text"]


def test_the_glossary_of_a_release(client: Client) -> None:
    data = client.get("/api/v1/glossary", {"release": "2010-01-01"}).json()
    assert len(data) == 424  # the release in force: 2009-10-01
    trample = next(t for t in data if t["headword"] == "Trample")
    assert trample["references"][0]["target"].startswith("702.")


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/api/v1/rules/999.9", 404, "no rule 999.9"),
        ("/api/v1/rules/banana", 404, "not a rule number"),
        ("/api/v1/rules/602.2a?release=2016-13-01", 400, "not a valid date"),
        ("/api/v1/rules/602.2a?release=yesterday", 400, "is not a date"),
        ("/api/v1/rules/602.2a?release=1999-01-01", 404, "no release in force"),
        ("/api/v1/rules/602.2a?lang=de", 400, "unknown language"),
        ("/api/v1/glossary?release=13", 400, "is not a date"),
    ],
)
def test_errors_are_json_with_the_right_status(
    client: Client, url: str, status: int, message: str
) -> None:
    response = client.get(url)
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    assert message in response.json()["detail"]


def test_openapi_docs(client: Client) -> None:
    assert client.get("/api/docs").status_code == 200
    paths = client.get("/api/openapi.json").json()["paths"]
    assert {"/api/v1/releases", "/api/v1/rules/{number}", "/api/v1/glossary"} <= set(paths)
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    assert {"text_en", "french"} <= set(schemas["RuleOut"]["properties"])
    assert set(schemas["FrenchOut"]["properties"]) == {
        "text", "status", "translates", "stale", "english_changed_in", "diff", "example_diffs"
    }  # fmt: skip
