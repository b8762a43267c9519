"""The JSON API fuzzed against its own OpenAPI schema (schemathesis), on the whole archive with
cards and the search index: generated requests of every operation get no server error, and
every documented answer matches its schema and content type (issue 16)."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import content_type_conformance, not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

#: Generated requests per operation: a few hundred in all, some seconds.
EXAMPLES = 25
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def test_every_operation_answers_generated_requests_by_its_schema(search_index) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())
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
