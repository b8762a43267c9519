"""The JSON API fuzzed against its own OpenAPI schema (schemathesis), on the whole archive with
cards and the search index, and on the demo set: generated requests of every operation get no
server error, and every documented answer matches its schema and content type (issue 16)."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import content_type_conformance, not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.kb.test_pages_demo import client  # noqa: F401 - the demo archive and a client

pytestmark = pytest.mark.django_db

#: Generated requests per operation: a few hundred in all, some seconds.
EXAMPLES = 25
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


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
    fuzz(app)


def test_the_same_on_the_demo_set(client, app) -> None:  # noqa: F811 - the demo archive
    """Quick (make test-quick): the demo releases, no cards, no index."""
    fuzz(app)


def fuzz(app) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    failures: dict[str, str] = {}
    for operation in operations:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,  # the same requests on every run: a failure reproduces
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
        )
        @given(case=operation.as_strategy())
        def fuzz(case) -> None:
            case.call_and_validate(checks=CHECKS)

        try:
            fuzz()
        except Exception as exc:
            failures[operation.label] = str(exc)[:1500]
    assert len(operations) >= 11, [o.label for o in operations]
    assert not failures, failures
