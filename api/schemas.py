"""Request and response schemas. Moves are checked against each game's vocabulary by the domain;
the vocabularies are also published as OpenAPI components (see api/app.py)."""
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.context import IDEMPOTENCY_KEY_PATTERN
from api.game_schemas import each_game
from domain import clock
from domain.games import GAMES
from domain.match import ACTIVE, CLIENT_SEED, FINISHED, SERVER_SEED, WAITING
from service.accounts import ANYONE, AUTO, KINDS, MAX_CHALLENGERS, NAME_PATTERN, NOBODY

NAME = validate.Length(min=1, max=40)
SEED = validate.Length(min=1, max=200)
EVENTS_PAGE, EVENTS_PAGE_MAX = 500, 1000  # GET .../events: the default and the largest `limit`
MOVE = {"anyOf": each_game("Move"), "description": "{action, ...}: a move of the match's game (its <Game>Move "
                                                   "schema; GET /v1/games/<game> lists the actions)"}
# Versions and list positions are stored as Redis stream ids, sorted-set scores and Lua numbers; the last two
# are doubles, exact up to 2**53 - 1, which is also the largest integer a JavaScript client reads exactly.
LARGEST = 2**53 - 1
MAX_SEATS = 8


class JsonBoolean(fields.Boolean):
    """JSON true or false only: marshmallow's Boolean also takes 0, 1, "yes" and the like."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


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


RATED = ("the match counts on its ladder when it finishes (docs/ladder.md): every seat an account or a house bot, "
         "a clock, no seed, else 422 with a reason (rated_open_seat, rated_anonymous_seat, rated_without_clock, "
         "rated_with_seed, rated_player_twice, rated_bot_options)")


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


class StreamQuery(Schema):
    after = fields.Integer(validate=validate.Range(min=0, max=LARGEST), metadata={
        "description": "resume: only the events after this version (the Last-Event-ID header wins over it)"})


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
    view = fields.Raw(required=True, allow_none=True, metadata={
        "oneOf": each_game("View"),
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


class Joined(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(metadata={"description": "the seat's token, unless you joined with an account key"})
    match = fields.Nested(Match, required=True)


class CreateAccount(Schema):
    name = fields.String(required=True, validate=validate.Regexp(NAME_PATTERN), metadata={
        "description": "2 to 30 letters, digits, '_', '-' or '.', starting with a letter or digit; unique in any case"})
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))


class ChallengePolicy(fields.Field):
    """One of NOBODY, ANYONE, AUTO, or a list of the accounts (ids or names) that may invite."""
    CHOICES = (NOBODY, ANYONE, AUTO)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and value in self.CHOICES:
            return value
        if isinstance(value, list) and len(value) <= MAX_CHALLENGERS and all(
                isinstance(v, str) and 1 <= len(v) <= 40 for v in value):
            return value
        raise ValidationError(f"one of {', '.join(self.CHOICES)}, or a list of at most {MAX_CHALLENGERS} account "
                              "ids or names")


CHALLENGES_DOC = {"oneOf": [{"type": "string", "enum": list(ChallengePolicy.CHOICES)},
                            {"type": "array", "maxItems": MAX_CHALLENGERS,
                             "items": {"type": "string", "minLength": 1, "maxLength": 40}}],
                  "description": "who may seat you by naming your account: nobody; anyone (you accept or decline "
                                 "each invitation); auto (anyone, accepted at once); or a list of accounts (whose "
                                 "invitations you accept or decline). Default: anyone (docs/challenges.md)"}


class Account(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": list(KINDS)})
    created_at = fields.String(required=True)
    challenges = fields.Raw(required=True, metadata=CHALLENGES_DOC)


class AdminAction(Schema):
    reason = fields.String(required=True, validate=validate.Length(min=1, max=500),
                           metadata={"description": "why: logged with the action (and in the log of a match aborted)"})
    by = fields.String(load_default="admin", validate=validate.Length(min=1, max=100),
                       metadata={"description": "who asks, for the log"})


class AdminAccount(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True)
    created_at = fields.String(required=True)
    challenges = fields.Raw(required=True)
    disabled = fields.String(allow_none=True, required=True, metadata={"description": "the reason, or null"})
    withdrawn_from = fields.List(fields.String(), required=True, metadata={
        "description": "the matches the account was taken out of (resigned, left or declined)"})


class BotTurn(Schema):
    match = fields.String(required=True)
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)


class BotTurns(Schema):
    bot_turns = fields.List(fields.Nested(BotTurn), required=True)


class UpdateAccount(Schema):
    challenges = ChallengePolicy(required=True, metadata=CHALLENGES_DOC)


class Inviter(Schema):
    account = fields.String(required=True)
    name = fields.String(required=True)


class Challenge(Schema):
    match = fields.String(metadata={"description": "the match you are invited to (accept at POST "
                                                   "/v1/matches/<match>/accept)"})
    seat = fields.Integer(metadata={"description": "your seat in that match"})
    tournament = fields.String(metadata={"description": "or the tournament you are invited to enter (accept at "
                                                        "POST /v1/tournaments/<tournament>/accept)"})
    game = fields.String(required=True)
    by = fields.Nested(Inviter, required=True, metadata={"description": "the account that invites you"})
    expires_at = fields.String(required=True, metadata={"description": "when the match is canceled unless you "
                                                                       "accept (UTC)"})
    created_at = fields.String(required=True)


class Challenges(Schema):
    challenges = fields.List(fields.Nested(Challenge), required=True)


class AccountWithKey(Account):
    api_key = fields.String(required=True, metadata={
        "description": "send it as 'Authorization: Bearer <api_key>'; shown only in this answer"})


class Event(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    data = fields.Raw(required=True)
    time = fields.String(required=True)
    prev = fields.String(required=True)
    hash = fields.String(required=True)
    nonce = fields.String(metadata={"description": "only once the match is finished"})


class Events(Schema):
    version = fields.Integer(required=True, metadata={"description": "the match's version now"})
    next_after = fields.Integer(required=True, allow_none=True, metadata={
        "description": "more events follow: pass this as `after` for the next page; null at the end of the log"})
    events = fields.List(fields.Nested(Event), required=True)


class Moved(Schema):
    version = fields.Integer(required=True, metadata={"description": "the match's version after your move"})
    status = fields.String(required=True, metadata={"enum": [WAITING, ACTIVE, FINISHED]})
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "the seats awaited after your move"})
    events = fields.List(fields.Nested(Event), required=True,
                         metadata={"description": "your move's events, as you may see them"})


class LegalMoves(Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    moves = fields.List(fields.Raw(metadata=MOVE), required=True)


class Option(Schema):
    name = fields.String()
    type = fields.String()
    default = fields.Raw()
    description = fields.String()
    choices = fields.List(fields.Raw())
    minimum = fields.Integer()
    maximum = fields.Integer()


class Game(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    summary = fields.String(required=True)
    players = fields.Dict(required=True, keys=fields.String(), values=fields.Integer())
    options = fields.List(fields.Nested(Option), required=True)
    actions = fields.Dict(required=True, metadata={"description": "action -> {description, fields}"})
    rules = fields.String(required=True, metadata={"description": "the rules page, as the engine plays them"})


class Games(Schema):
    games = fields.List(fields.Nested(Game), required=True)


class Bot(Schema):
    id = fields.String(required=True)
    description = fields.String(required=True)
    options = fields.List(fields.Nested(Option), required=True)


class Bots(Schema):
    bots = fields.List(fields.Nested(Bot), required=True)


class Health(Schema):
    status = fields.String(required=True)
    redis = fields.String(required=True)


class Live(Schema):
    status = fields.String(required=True, metadata={"description": "live"})


READINESS_CHECKS = "each check by name (redis, bot_workers, scheduler): ok, or what fails"


class Ready(Schema):
    status = fields.String(required=True, metadata={"description": "ready"})
    checks = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                         metadata={"description": READINESS_CHECKS})


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
    events = fields.List(fields.Nested(Event), required=True)


class Audit(Schema):
    ok = fields.Boolean(required=True)
    complete = fields.Boolean(required=True)
    events = fields.Integer(required=True)
    first_bad_event = fields.Integer(required=True, allow_none=True)
    problem = fields.String(required=True, allow_none=True)
    checked = fields.List(fields.String(), required=True)
    summary = fields.String(required=True)
