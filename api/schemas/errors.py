"""Every error's body (api/errors.py)."""
from copy import deepcopy

from apispec import BasePlugin
from marshmallow import Schema, fields

from api.rate_limits import POLICIES, READS, SHARED_COUNTERS, UNCOUNTED
from api.schemas.catalog import READINESS_CHECKS


class Error(Schema):
    code = fields.Integer(required=True, metadata={"description": "the HTTP status code"})
    status = fields.String(required=True, metadata={"description": "the HTTP status text"})
    reason = fields.String(required=True, metadata={"description": "a stable snake_case word for programs"})
    message = fields.String(required=True, metadata={"description": "for people"})
    request_id = fields.String(required=True, metadata={
        "description": "the request's id, as in the X-Request-ID header: the client's if it sent a usable one (1 to "
                       "128 visible ASCII characters), else the server's; every log line of the request has it"})
    errors = fields.Dict(metadata={"description": "field errors, by location and field"})
    current_version = fields.Integer(metadata={"description": "with 409 version_conflict"})
    checks = fields.Dict(keys=fields.String(), values=fields.String(),
                         metadata={"description": f"with 503 not_ready: {READINESS_CHECKS}"})
    retry_after = fields.Integer(metadata={"description": "with 429 rate_limited: seconds until the limit that "
                                                          "was hit resets; with 503: seconds to wait before a "
                                                          "retry (also the Retry-After header)"})
    limit = fields.String(metadata={"description": "with 429 rate_limited: the limit that was hit, e.g. "
                                                   "'1800 per 1 minute'"})
    policy = fields.String(metadata={"description": "with 429 rate_limited: that limit's policy in the RateLimit "
                                                    "headers, e.g. 'moves-minute'"})


RETRY_AFTER = {"description": "seconds to wait before a retry", "schema": {"type": "integer", "minimum": 1}}
# On every answer of an operation that counts against a rate limit, when that limit is set (api/rate_limits.py)
RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": {"description": "the windows of the rate limit this request counted against "
                                        "(draft-ietf-httpapi-ratelimit-headers-10): each window's policy name, quota q "
                                        "and length w in seconds, e.g. '\"moves-second\";q=50;w=1, "
                                        "\"moves-minute\";q=1800;w=60'. Sent when the operation's limit is set (LIMIT_READS, "
                                        "LIMIT_MOVES, ...: docs/reliability.md)", "schema": {"type": "string"}},
    "RateLimit": {"description": "the caller's window closest to running out (the fewest requests left): its policy "
                                 "name, the requests remaining r and the seconds t until it resets, e.g. "
                                 "'\"moves-second\";r=38;t=1'", "schema": {"type": "string"}}}
RATE_LIMIT_REFERENCES = {name: {"$ref": f"#/components/headers/{name}"} for name in RATE_LIMIT_HEADERS}
LIMITED_WRITES = {*POLICIES, *SHARED_COUNTERS} - {READS}  # the POSTs' endpoints
ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
WAITS = (429, 503)  # the refusals that carry Retry-After
# What every operation may be answered besides its own, and why (api/errors.py, bootstrap/gunicorn_worker.py)
TOO_MANY = "too_many_connections: this address holds MAX_CONNECTIONS_PER_ADDRESS connections in the worker"
REDIS_UNREACHABLE = "redis_unreachable: the event store cannot be reached; retry after Retry-After"
# the paths whose operations read or write the store (the catalog of games and bots does not)
STORE_PATHS = ("/v1/matches", "/v1/accounts", "/v1/tournaments", "/v1/seeks", "/v1/ratings", "/v1/admin")


def refusal(status: int, *reasons: str) -> dict:
    """An error response of the operation: the Error schema, the `reason`s it may carry (each 'reason: why'),
    and Retry-After when the client should wait."""
    return deepcopy({"description": "; ".join(reasons), "content": ERROR_CONTENT,
                     **({"headers": {"Retry-After": RETRY_AFTER}} if status in WAITS else {})})  # no YAML aliases


def refusals(answers: dict[int, list[str]]) -> dict:
    """flask-smorest `doc` of the error responses an operation may give: status -> its reasons."""
    return {"responses": {str(status): refusal(status, *reasons) for status, reasons in answers.items()}}


def rate_limited(method: str, path: str | None, rule) -> bool:
    """Whether the operation counts against a rate limit: every read but UNCOUNTED's, and the limited writes."""
    if method == "get":
        return not (path or "").startswith(UNCOUNTED)
    return method == "post" and rule is not None and rule.endpoint in LIMITED_WRITES


class Refusals(BasePlugin):
    """apispec plugin: every operation may be refused 429 (too many connections from the caller's address), and every
    one on the store 503 while Redis is out of reach; each operation states its own refusals beside these. Every
    answer of a rate-limited operation but a 503 (its counter out of reach) carries the RateLimit headers."""

    def init_spec(self, spec) -> None:
        super().init_spec(spec)
        for name, header in RATE_LIMIT_HEADERS.items():
            spec.components.header(name, header)

    def operation_helper(self, path=None, operations=None, rule=None, **kwargs) -> None:
        for method, operation in (operations or {}).items():
            answers = operation.setdefault("responses", {})
            if "429" in answers:
                answers["429"]["description"] += f"; {TOO_MANY}"
            else:
                answers["429"] = refusal(429, TOO_MANY)
            if path and path.startswith(STORE_PATHS) and "503" not in answers:
                answers["503"] = refusal(503, REDIS_UNREACHABLE)
            if rate_limited(method, path, rule):
                for status, answer in answers.items():
                    # a name is a shared response's reference (flask-smorest's DEFAULT_ERROR), which takes no headers
                    if status != "503" and isinstance(answer, dict):
                        answer.setdefault("headers", {}).update(deepcopy(RATE_LIMIT_REFERENCES))
