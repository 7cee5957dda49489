"""The schemas of /v1/matches: creating, joining and moving, the queries, a match, its listings (an account's too),
its events and its moves."""
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.schemas.common import JsonBoolean, LARGEST, MAX_SEATS, MOVE, NAME, RATED, Reference, SEED, VIEW
from domain import clock
from domain.games import GAMES
from domain.match import ACTIVE, CLIENT_SEED, FINISHED, SERVER_SEED, WAITING

EVENTS_PAGE, EVENTS_PAGE_MAX = 500, 1000  # GET .../events: the default and the largest `limit`


class SeatSpec(Schema):
    name = fields.String(validate=NAME, metadata={"description": "a human seat's name (or a bot's label)"})
    bot = fields.String(validate=validate.Length(min=1, max=40),
                        metadata={"description": "a bot kind from GET /v1/bots"})
    open = JsonBoolean(metadata={"description": "true: an open seat, filled by POST .../join"})
    bot_options = fields.Dict(keys=fields.String(), metadata={"description": "the bot's options (GET /v1/bots)"})
    account = fields.String(validate=validate.Length(min=1, max=40), metadata={
        "description": "an account's id or name: the seat is the account's, and its API key acts for it"})

    @validates_schema
    def one_kind(self, data, **kwargs):
        kinds = [k for k in ("bot", "open", "account") if data.get(k)]
        if len(kinds) > 1 or (not kinds and not data.get("name")):
            raise ValidationError("a seat is {name}, {bot}, {account} or {open: true}")
        if data.get("account") and data.get("name"):
            raise ValidationError("an account's seat takes the account's name")
        if "bot_options" in data and not data.get("bot"):
            raise ValidationError("bot_options go with a bot")


def _clock_part(option) -> fields.Field:
    """A part of the clock spec as domain/clock.py defines it (which checks it again)."""
    if option.choices:
        return fields.String(validate=validate.OneOf(option.choices), metadata={"description": option.description})
    return fields.Integer(strict=True, validate=validate.Range(*option.bounds),
                          metadata={"description": option.description})


ClockSpec = Schema.from_dict({option.name: _clock_part(option) for option in clock.SPEC}, name="ClockSpec")



class CreateMatch(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=40))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seats = fields.List(fields.Nested(SeatSpec), required=True, validate=validate.Length(min=1, max=MAX_SEATS))
    seed = fields.String(validate=SEED,
                         metadata={"description": "makes the deal reproducible; recorded as client-seeded. Refused "
                                                  "(422 client_seed_with_open_seats) when a seat is open: a seed "
                                                  "may only decide cards hidden from its owner (docs/fairness.md)"})
    clock = fields.Nested(ClockSpec, metadata={"description": "a turn clock (docs/clocks.md); none: no clock"})
    rated = JsonBoolean(load_default=False, metadata={"description": RATED})


class JoinMatch(Schema):
    name = fields.String(validate=NAME, metadata={"description": "required unless you join with an account key "
                                                                 "(the seat then takes the account's name)"})


class MoveRequest(Schema):
    move = fields.Dict(keys=fields.String(), required=True, metadata=MOVE)
    expected_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=LARGEST))


class AccountMatchQuery(Schema):
    status = fields.String(validate=validate.OneOf([WAITING, ACTIVE, FINISHED]))
    cursor = fields.Integer(validate=validate.Range(min=1, max=LARGEST),
                            metadata={"description": "next_cursor of the last page"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class MatchQuery(AccountMatchQuery):
    game = fields.String(validate=validate.Length(min=1, max=40), metadata={"enum": list(GAMES)})


class EventsQuery(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=LARGEST),
                           metadata={"description": "the events after this version; next_after of the last page"})
    limit = fields.Integer(load_default=EVENTS_PAGE, validate=validate.Range(min=1, max=EVENTS_PAGE_MAX),
                           metadata={"description": f"at most this many events (default {EVENTS_PAGE}, "
                                                    f"at most {EVENTS_PAGE_MAX})"})


class StateQuery(Schema):
    version = fields.Integer(required=True, validate=validate.Range(min=1, max=LARGEST))
    seat = fields.Integer(validate=validate.Range(min=0, max=MAX_SEATS - 1),
                          metadata={"description": "a finished match: this seat's view instead of yours"})
    full = fields.Boolean(load_default=False, metadata={"description": "a finished match: add the full state"})


class Seat(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True)
    bot = fields.String(required=True, allow_none=True)
    open = fields.Boolean(required=True)
    account = fields.String(required=True, allow_none=True, metadata={"description": "the id of the account "
                                                                                     "whose seat it is, or null"})
    token = fields.String(metadata={"description": "only in the answer to POST /v1/matches, for human seats "
                                                   "that are no account's"})
    invited = fields.Boolean(required=True, metadata={
        "description": "the account was invited and has not accepted yet: the match waits (docs/challenges.md)"})
    zombie = fields.Boolean(required=True, metadata={
        "description": "the greedy bot plays this seat to the end: it is out, or timed out too often"})
    out = fields.String(allow_none=True, metadata={"enum": ["resigned", "forfeited", None],
                                                   "description": "why the seat is out of the match, or null"})


class Result(Schema):
    winners = fields.List(fields.Integer(), required=True)
    scores = fields.Dict(required=True, keys=fields.String(), values=fields.Raw())
    out = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "the seats that resigned or forfeited (seat -> why): none of them wins"})
    zombies = fields.List(fields.Integer(), metadata={
        "description": "the seats played by the greedy bot after timing out too often (they stay in)"})
    aborted = fields.Dict(metadata={"description": "{seat, reason}: the match was aborted (a first move never "
                                                   "came); its result counts for nobody"})
    canceled = fields.Dict(metadata={"description": "{reason: declined | expired, seats}: an invitation was declined "
                                                    "or expired before the deal; the result counts for nobody"})


class ClockSeat(Schema):
    bank_ms = fields.Integer(required=True, allow_none=True,
                             metadata={"description": "the seat's bank as its pending decision began (null: no bank)"})
    deadline = fields.String(required=True, allow_none=True,
                             metadata={"description": "when its pending decision times out (UTC), or null"})
    timeouts = fields.Integer(required=True)


def _clock_value(option) -> fields.Field:
    """A part of a match's clock as its document shows it: every part, defaults filled in."""
    kind = fields.String if option.choices else fields.Integer
    return kind(required=True, metadata={"description": option.description})


# the parts come from domain/clock.py, as ClockSpec's do: one list to keep
Clock = Schema.from_dict({**{option.name: _clock_value(option) for option in clock.SPEC},
                          "seats": fields.List(fields.Nested(ClockSeat), required=True)}, name="Clock")


class Match(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    options = fields.Dict(required=True)
    status = fields.String(required=True, metadata={"enum": [WAITING, ACTIVE, FINISHED]})
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(Seat), required=True)
    to_act = fields.List(fields.Integer(), required=True)
    result = fields.Nested(Result, required=True, allow_none=True)
    you = fields.Integer(required=True, allow_none=True,
                         metadata={"description": "your seat (from your token), or null"})
    commitment = fields.String(required=True,
                               metadata={"description": "SHA-256 of '<salt>:<seed>', revealed at the end"})
    seed_source = fields.String(required=True, metadata={"enum": [SERVER_SEED, CLIENT_SEED]})
    rated = fields.Boolean(required=True, metadata={"description": "whether it counts on its ladder (docs/ladder.md)"})
    rematch_of = fields.String(required=True, allow_none=True, metadata={
        "description": "the finished match this one is the rematch of (POST .../rematch), or null"})
    rematch = fields.String(required=True, allow_none=True, metadata={
        "description": "this finished match's rematch once a seat asked for it (POST .../rematch), or null"})
    view = fields.Raw(required=True, allow_none=True, metadata={
        **VIEW,
        "description": "what you may see: the <Game>View of the match's `game`; null before the deal"})
    full_state = fields.Raw(metadata={"description": "GET .../state?full=true of a finished match: everything"})
    clock = fields.Nested(Clock, metadata={"description": "the turn clock, if the match has one (docs/clocks.md)"})
    deadline = fields.String(allow_none=True, metadata={
        "description": "with a clock: when the first decision awaited times out (UTC), null when none is"})


class MatchSummary(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(Seat), required=True)
    to_act = fields.List(fields.Integer(), required=True)
    result = fields.Nested(Result, required=True, allow_none=True)
    created_at = fields.String(required=True)
    seed_source = fields.String(required=True, allow_none=True, metadata={
        "enum": [SERVER_SEED, CLIENT_SEED],
        "description": "who chose the seed (a client-seeded match never has an open seat); null for a match "
                       "stored before the listing showed it"})


class MatchPage(Schema):
    matches = fields.List(fields.Nested(MatchSummary), required=True)
    next_cursor = fields.Integer(required=True, allow_none=True)


class AccountMatch(MatchSummary):
    seat = fields.Integer(required=True, metadata={"description": "the account's seat in this match"})


class AccountMatchPage(Schema):
    matches = fields.List(fields.Nested(AccountMatch), required=True)
    next_cursor = fields.Integer(required=True, allow_none=True)


class Invite(Schema):
    url = fields.String(required=True, metadata={
        "description": "the viewer's page of the match with a 'Take a seat' button (docs/viewer.md): share it"})
    match = fields.String(required=True)
    open_seats = fields.List(fields.Integer(), required=True, metadata={"description": "the seats anyone may take"})
    expires_at = fields.String(metadata={
        "description": "when the match is canceled if its invited accounts have not all accepted (UTC); absent "
                       "when no account is invited: open seats wait for as long as it takes"})


class Joined(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(metadata={"description": "the seat's token, unless you joined with an account key"})
    match = fields.Nested(Match, required=True)


class Events(Schema):
    version = fields.Integer(required=True, metadata={"description": "the match's version now"})
    next_after = fields.Integer(required=True, allow_none=True, metadata={
        "description": "more events follow: pass this as `after` for the next page; null at the end of the log"})
    events = fields.List(Reference("Event"), required=True)


class Moved(Schema):
    version = fields.Integer(required=True, metadata={"description": "the match's version after your move"})
    status = fields.String(required=True, metadata={"enum": [WAITING, ACTIVE, FINISHED]})
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "the seats awaited after your move"})
    events = fields.List(Reference("Event"), required=True,
                         metadata={"description": "your move's events, as you may see them"})


class LegalMoves(Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    moves = fields.List(fields.Raw(metadata=MOVE), required=True)


class Step(Schema):
    at = fields.Integer(required=True, metadata={
        "description": "the version the move was made at (its expected_version): GET .../state?version=<at> is the "
                       "table before the move"})
    version = fields.Integer(required=True, metadata={
        "description": "the version after the move's last event: GET .../state?version=<version> shows its effect"})
    seat = fields.Integer(required=True)
    move = fields.Raw(required=True, metadata=MOVE)


class Steps(Schema):
    version = fields.Integer(required=True, metadata={"description": "the match's version now"})
    start = fields.Integer(required=True, allow_none=True, metadata={
        "description": "the version of the table as dealt, before the first move; null while seats are open"})
    moves = fields.List(fields.Nested(Step), required=True, metadata={"description": "every move so far, in order"})
