"""Request and response schemas. Moves are checked against each game's vocabulary by the domain;
the vocabularies are also published as OpenAPI components (see api/app.py)."""
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.match import ACTIVE, FINISHED, WAITING

NAME = validate.Length(min=1, max=40)


class SeatSpec(Schema):
    name = fields.String(validate=NAME, metadata={"description": "a human seat's name (or a bot's label)"})
    bot = fields.String(validate=validate.Length(min=1, max=40),
                        metadata={"description": "a bot kind from GET /v1/bots"})
    open = fields.Boolean(metadata={"description": "true: an open seat, filled by POST .../join"})
    bot_options = fields.Dict(keys=fields.String(), metadata={"description": "the bot's options (GET /v1/bots)"})

    @validates_schema
    def one_kind(self, data, **kwargs):
        kinds = [k for k in ("bot", "open") if data.get(k)]
        if len(kinds) > 1 or (not kinds and not data.get("name")):
            raise ValidationError("a seat is {name}, {bot} or {open: true}")
        if "bot_options" in data and not data.get("bot"):
            raise ValidationError("bot_options go with a bot")


class CreateMatch(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=40))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seats = fields.List(fields.Nested(SeatSpec), required=True, validate=validate.Length(min=1, max=8))
    seed = fields.String(validate=validate.Length(min=1, max=200),
                         metadata={"description": "makes the deal reproducible; recorded as client-seeded"})


class JoinMatch(Schema):
    name = fields.String(required=True, validate=NAME)


class MoveRequest(Schema):
    move = fields.Dict(keys=fields.String(), required=True,
                       metadata={"description": "{action, ...}: see the game's move schema (components "
                                                "<game>Move) and GET /v1/games/<game>"})
    expected_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))


class MatchQuery(Schema):
    game = fields.String(validate=validate.Length(min=1, max=40))
    status = fields.String(validate=validate.OneOf([WAITING, ACTIVE, FINISHED]))
    cursor = fields.Integer(validate=validate.Range(min=1), metadata={"description": "next_cursor of the last page"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class EventsQuery(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0))


class StateQuery(Schema):
    version = fields.Integer(required=True, validate=validate.Range(min=1))
    seat = fields.Integer(validate=validate.Range(min=0),
                          metadata={"description": "a finished match: this seat's view instead of yours"})
    full = fields.Boolean(load_default=False, metadata={"description": "a finished match: add the full state"})


class Seat(Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    open = fields.Boolean()
    token = fields.String(metadata={"description": "only in the answer to POST /v1/matches, for human seats"})


class Result(Schema):
    winners = fields.List(fields.Integer())
    scores = fields.Dict(keys=fields.String(), values=fields.Raw())


class Match(Schema):
    id = fields.String()
    game = fields.String()
    options = fields.Dict()
    status = fields.String(metadata={"enum": [WAITING, ACTIVE, FINISHED]})
    version = fields.Integer()
    seats = fields.List(fields.Nested(Seat))
    to_act = fields.List(fields.Integer())
    result = fields.Nested(Result, allow_none=True)
    you = fields.Integer(allow_none=True, metadata={"description": "your seat (from your token), or null"})
    commitment = fields.String(metadata={"description": "SHA-256 of '<salt>:<seed>', revealed at the end"})
    seed_source = fields.String(metadata={"enum": ["server", "client"]})
    view = fields.Raw(allow_none=True, metadata={"description": "what you may see: the game's <Game>View schema"})
    full_state = fields.Raw(metadata={"description": "GET .../state?full=true of a finished match: everything"})


class MatchSummary(Schema):
    id = fields.String()
    game = fields.String()
    status = fields.String()
    version = fields.Integer()
    seats = fields.List(fields.Nested(Seat))
    to_act = fields.List(fields.Integer())
    result = fields.Nested(Result, allow_none=True)
    created_at = fields.String()


class MatchPage(Schema):
    matches = fields.List(fields.Nested(MatchSummary))
    next_cursor = fields.Integer(allow_none=True)


class Joined(Schema):
    seat = fields.Integer()
    token = fields.String()
    match = fields.Nested(Match)


class Event(Schema):
    version = fields.Integer()
    type = fields.String()
    data = fields.Raw()
    time = fields.String()
    prev = fields.String()
    hash = fields.String()
    nonce = fields.String(metadata={"description": "only once the match is finished"})


class Events(Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(Event))


class Moved(Schema):
    version = fields.Integer(metadata={"description": "the match's version after your move"})
    status = fields.String(metadata={"enum": [WAITING, ACTIVE, FINISHED]})
    to_act = fields.List(fields.Integer(), metadata={"description": "the seats awaited after your move"})
    events = fields.List(fields.Nested(Event), metadata={"description": "your move's events, as you may see them"})


class LegalMoves(Schema):
    version = fields.Integer()
    seat = fields.Integer()
    moves = fields.List(fields.Dict())


class Option(Schema):
    name = fields.String()
    type = fields.String()
    default = fields.Raw()
    description = fields.String()
    choices = fields.List(fields.Raw())
    minimum = fields.Integer()
    maximum = fields.Integer()


class Game(Schema):
    id = fields.String()
    name = fields.String()
    summary = fields.String()
    players = fields.Dict(keys=fields.String(), values=fields.Integer())
    options = fields.List(fields.Nested(Option))
    actions = fields.Dict(metadata={"description": "action -> {description, fields}"})


class Games(Schema):
    games = fields.List(fields.Nested(Game))


class Bot(Schema):
    id = fields.String()
    description = fields.String()
    options = fields.List(fields.Nested(Option))


class Bots(Schema):
    bots = fields.List(fields.Nested(Bot))


class Health(Schema):
    status = fields.String()
    redis = fields.String()


class Error(Schema):
    code = fields.Integer(required=True, metadata={"description": "the HTTP status code"})
    status = fields.String(required=True, metadata={"description": "the HTTP status text"})
    reason = fields.String(required=True, metadata={"description": "a stable snake_case word for programs"})
    message = fields.String(required=True, metadata={"description": "for people"})
    errors = fields.Dict(metadata={"description": "field errors, by location and field"})
    current_version = fields.Integer(metadata={"description": "with 409 version_conflict"})


class Step(Schema):
    version = fields.Integer(metadata={"description": "the version of the move's 'moved' event"})
    seat = fields.Integer()
    move = fields.Dict()


class Steps(Schema):
    version = fields.Integer()
    moves = fields.List(fields.Nested(Step))


class Export(Schema):
    format = fields.String(metadata={"description": "cardroom-export/1"})
    match_id = fields.String()
    complete = fields.Boolean(metadata={"description": "true once the match is finished: nothing redacted"})
    exported_at = fields.String()
    exported_for = fields.Integer(allow_none=True, metadata={"description": "whose redaction, before the end"})
    game = fields.String()
    options = fields.Dict()
    seats = fields.List(fields.Nested(Seat))
    commitment = fields.String()
    seed_source = fields.String()
    events = fields.List(fields.Nested(Event))


class Audit(Schema):
    ok = fields.Boolean()
    complete = fields.Boolean()
    events = fields.Integer()
    first_bad_event = fields.Integer(allow_none=True)
    problem = fields.String(allow_none=True)
    checked = fields.List(fields.String())
    summary = fields.String()
