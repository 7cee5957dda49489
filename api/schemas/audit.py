"""A match's export and its audit (GET .../export, POST /v1/audit)."""
from marshmallow import Schema, fields

from api.schemas.common import Reference
from api.schemas.matches import Seat


class Export(Schema):
    format = fields.String(required=True, metadata={"description": "cardroom-export/1"})
    match_id = fields.String(required=True)
    complete = fields.Boolean(required=True,
                              metadata={"description": "true once the match is finished: nothing redacted"})
    exported_at = fields.String(required=True)
    exported_for = fields.Integer(required=True, allow_none=True,
                                  metadata={"description": "whose redaction, before the end"})
    game = fields.String(required=True)
    options = fields.Dict(required=True)
    seats = fields.List(fields.Nested(Seat), required=True)
    commitment = fields.String(required=True)
    seed_source = fields.String(required=True)
    events = fields.List(Reference("Event"), required=True)


class Audit(Schema):
    ok = fields.Boolean(required=True)
    complete = fields.Boolean(required=True)
    events = fields.Integer(required=True)
    first_bad_event = fields.Integer(required=True, allow_none=True)
    problem = fields.String(required=True, allow_none=True)
    checked = fields.List(fields.String(), required=True)
    summary = fields.String(required=True)
