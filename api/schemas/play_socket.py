"""The play socket's messages and answers (GET /v1/play, docs/play-socket.md)."""
from marshmallow import Schema, ValidationError, fields, validate

from api.context import IDEMPOTENCY_KEY_PATTERN
from api.schemas.common import LARGEST
from api.schemas.matches import MoveRequest

MAX_REQUEST_ID = 100


class RequestId(fields.Field):
    """A string of up to 100 characters or an integer, echoed with the answer (the play socket's `id`)."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = isinstance(value, str) and len(value) <= MAX_REQUEST_ID
        number = isinstance(value, int) and not isinstance(value, bool) and abs(value) <= LARGEST
        if not (text or number):
            raise ValidationError(f"a string of up to {MAX_REQUEST_ID} characters or an integer")
        return value


REQUEST_ID = {"oneOf": [{"type": "string", "maxLength": MAX_REQUEST_ID}, {"type": "integer"}]}


class PlayMessage(MoveRequest):
    """A message to the play socket (GET /v1/play, docs/play-socket.md): POST .../moves in one JSON object."""
    id = RequestId(metadata={**REQUEST_ID, "description": "yours: the answer to this message carries it back"})
    match_id = fields.String(required=True, validate=validate.Length(min=1, max=100))
    token = fields.String(required=True, validate=validate.Length(min=1, max=500), metadata={
        "description": "the seat token or account key (as in the Authorization header of POST .../moves)"})
    idempotency_key = fields.String(validate=validate.Regexp(IDEMPOTENCY_KEY_PATTERN), metadata={
        "description": "as the Idempotency-Key header: a retried message with the same key returns the first "
                       "answer and appends nothing"})


class PlayAnswer(Schema):
    """The play socket's answer to a message: what POST .../moves would answer, with its status."""
    id = RequestId(allow_none=True, metadata={**REQUEST_ID, "description": "the message's id (null if it had "
                                                                        "none, or could not be read)"})
    status = fields.Integer(required=True, metadata={"description": "201, or the error's HTTP status code"})
    body = fields.Dict(required=True, metadata={
        "oneOf": [{"$ref": "#/components/schemas/Moved"}, {"$ref": "#/components/schemas/Error"}],
        "description": "Moved with 201, else Error"})
