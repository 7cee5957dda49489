"""Schemathesis generates requests from the OpenAPI document, valid and invalid: none may get a 5xx,
and every answer must match the documented schema."""
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.support.http import make_client

client = make_client()
app = client.application
MATCH = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
schema = schemathesis.openapi.from_wsgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_server_error_and_answers_match_the_schema(case):
    if "match_id" in (case.path_parameters or {}):
        case.path_parameters["match_id"] = MATCH["id"]
    case.call_and_validate(checks=[not_a_server_error, response_schema_conformance])
