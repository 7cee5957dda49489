"""Every error's body (api/errors.py)."""
from marshmallow import Schema, fields

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
