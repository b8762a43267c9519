"""The JSON API fuzzed against its own OpenAPI schema (schemathesis), on the whole archive with
cards and the search index, and on the demo set: requests generated from the schema (valid
ones, and invalid ones: a `lang` outside the enum, a page that is no number) get every one of
schemathesis's default checks: no server error, a status code the schema documents for the
operation, answers matching their schema, content type and headers, invalid data refused
with a 4xx and valid data accepted (issue 16)."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

from tests.kb.web.test_pages_demo import client  # noqa: F401 - the demo archive and a client

pytestmark = pytest.mark.django_db

#: Generated requests per operation and mode: several hundred in all on the demo set, some
#: seconds. The whole archive gets fewer (its pages cost more to build; the same generator has
#: covered the shapes of requests on the demo set).
EXAMPLES = 25
EXAMPLES_WHOLE_ARCHIVE = 10


@pytest.fixture
def app():
    """The site's WSGI application, minus what Django's test client also leaves out: closing
    the database connection around each request, which inside the test's transaction would
    break every later query."""
    signals = (request_started, request_finished)
    for signal in signals:
        signal.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        for signal in signals:
            signal.connect(close_old_connections)


@pytest.mark.slow
def test_every_operation_answers_generated_requests_by_its_schema(search_index, app) -> None:
    fuzz(app, EXAMPLES_WHOLE_ARCHIVE)


def test_the_same_on_the_demo_set(client, app) -> None:  # noqa: F811 - the demo archive
    """Quick (make test-quick): the demo releases, no cards, no index."""
    fuzz(app)


def fuzz(app, examples: int = EXAMPLES) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    failures: dict[str, str] = {}
    # Invalid requests of operations that take parameters (there is no invalid request of one
    # that takes none).
    cases = [(o, GenerationMode.POSITIVE) for o in operations] + [
        (o, GenerationMode.NEGATIVE) for o in operations if any(o.iter_parameters())
    ]
    for operation, mode in cases:

        @settings(
            max_examples=examples,
            deadline=None,
            derandomize=True,  # the same requests on every run: a failure reproduces
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def fuzz(case) -> None:
            case.call_and_validate()  # every default check

        try:
            fuzz()
        except Unsatisfiable:
            # No invalid request exists: the only parameter is a path segment (any text).
            assert mode is GenerationMode.NEGATIVE, operation.label
        except (Exception, BaseExceptionGroup) as exc:  # schemathesis's FailureGroup
            failures[f"{operation.label} ({mode.value})"] = str(exc)[:1500]
    assert len(operations) >= 11, [o.label for o in operations]
    assert not failures, "\n\n".join(f"{label}: {text}" for label, text in failures.items())


def test_the_schema_states_languages_releases_and_error_answers(client) -> None:  # noqa: F811
    """What the fuzzing relies on: `lang` is an enum of the site's languages, `release` a
    pattern of `current` or a date, and every operation taking parameters documents its 400
    (and those naming a rule, release or card their 404) with the error's JSON shape."""
    from config import languages

    schema = client.get("/api/openapi.json").json()
    operations = {
        path: op["get"] for path, op in schema["paths"].items() if path.startswith("/api/v1/")
    }
    rule = {p["name"]: p["schema"] for p in operations["/api/v1/rules/{number}"]["parameters"]}
    assert rule["lang"]["allOf"][0]["enum"] == list(languages.CODES)
    assert rule["lang"]["default"] == languages.SOURCE
    assert rule["release"]["pattern"].startswith("^(current|")
    shapes = schema["components"]["schemas"]
    for path, op in operations.items():
        answers = op["responses"]
        if op.get("parameters"):
            assert "400" in answers, path
            ref = answers["400"]["content"]["application/json"]["schema"]["$ref"]
            assert shapes[ref.rsplit("/", 1)[1]]["properties"] == {
                "detail": {"title": "Detail", "type": "string"}
            }, path
        if "{" in path or "release" in {p["name"] for p in op.get("parameters", [])}:
            assert "404" in answers or path == "/api/v1/search", path
    assert client.get("/api/v1/rules/100.1", {"lang": "de"}).status_code == 400
    # The search's language filter too (none: every language).
    search = {p["name"]: p["schema"] for p in operations["/api/v1/search"]["parameters"]}
    named = [s["$ref"].rsplit("/", 1)[1] for s in search["lang"]["anyOf"] if "$ref" in s]
    assert [shapes[n]["enum"] for n in named] == [list(languages.CODES)]
    refused = client.get("/api/v1/search", {"q": "trample", "lang": "de"})
    assert refused.status_code == 400 and "de" in refused.json()["detail"]
