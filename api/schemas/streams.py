"""What the live streams send, frame by frame (docs/streams.md, docs/bot-api.md), and the typed events of a match's log.

A stream's frames are one of several shapes told apart by their `type`: `MatchStreamFrame` (a match's stream: the
match document or one of its events) and `FeedFrame` (an account's turn feed, a union with a discriminator on `type`). An event is one of the match's own (lifecycle) events, typed by its data
(domain/lifecycle.py; `LifecycleEvent`, discriminated by `type`), or one of its game's (`GameEvent`: every other
type, its data as the game's rules page describes it); `Event` is either, as GET .../events and a move's answer
carry them.
"""
from marshmallow import Schema, fields

from api.schemas.accounts import Inviter
from api.schemas.common import MOVE, VIEW
from api.schemas.matches import Match, Result
from domain.lifecycle import MatchCreated
from domain.match import CLIENT_SEED, DECLINED, EXPIRED, MATCH_EVENTS, SERVER_SEED

GAME_EVENT = "GameEvent"


def _kind(kind: str, description: str | None = None) -> fields.Field:
    """The `type` a frame or event of one kind always has: a one-value enum, what discriminators read."""
    return fields.String(required=True, metadata={"enum": [kind], **({"description": description} if description
                                                                      else {})})


def _pascal(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))


class LoggedSeat(Schema):
    name = fields.String(required=True, allow_none=True)
    bot = fields.String(required=True, allow_none=True)
    open = fields.Boolean(required=True)
    bot_options = fields.Dict(keys=fields.String())
    bot_level = fields.Integer(metadata={"description": "the level the bot's options stood for"})
    account = fields.String(metadata={"description": "the id of the account whose seat it is"})
    invited = fields.Boolean(metadata={"description": "the account is asked first (docs/challenges.md)"})
    zombie = fields.Boolean()


class MatchCreatedData(Schema):
    game = fields.String(required=True)
    options = fields.Dict(required=True, keys=fields.String())
    seats = fields.List(fields.Nested(LoggedSeat), required=True)
    commitment = fields.String(required=True, metadata={"description": "SHA-256 of '<salt>:<seed>'"})
    seed_source = fields.String(required=True, metadata={"enum": [SERVER_SEED, CLIENT_SEED]})
    owner = fields.String(metadata={"description": "the account that chose a client seed"})
    clock = fields.Dict(keys=fields.String(), metadata={"description": "the turn clock, every part filled in"})
    invited_by = fields.Nested(Inviter)
    invited_until = fields.Integer(metadata={"description": "ms since the epoch: an invitation expires then"})
    rated = fields.Boolean(metadata={"description": "only when true: the match counts on its ladder"})
    rematch_of = fields.String(metadata={"description": "only when it is one: the finished match it is the rematch of"})
    rules_version = fields.Integer(metadata={
        "description": "the game's rules version it is played by; absent from logs made before it was logged: 1"})
    engine_version = fields.Integer(metadata={
        "description": "the match lifecycle's version; absent from logs made before it was logged: 1"})


class SeatJoinedData(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    account = fields.String()


class SeatData(Schema):
    seat = fields.Integer(required=True)


class MatchCanceledData(Schema):
    reason = fields.String(required=True, metadata={"enum": [DECLINED, EXPIRED]})
    seats = fields.List(fields.Integer(), required=True, metadata={"description": "the seats invited"})


class MovedData(Schema):
    seat = fields.Integer(required=True)
    move = fields.Dict(required=True, keys=fields.String(), metadata=MOVE)


class TurnTimedOutData(Schema):
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={"description": "the version the seat's clock ran out at"})


class MatchAbortedData(Schema):
    seat = fields.Integer(metadata={"description": "the seat whose first decision never came"})
    by = fields.String(metadata={"enum": ["operator"], "description": "the operator stopped the match"})
    reason = fields.String(metadata={"description": "the operator's reason"})


class MatchFinishedData(Schema):
    result = fields.Nested(Result, required=True)
    seed = fields.String(required=True, metadata={"description": "the deal's seed, revealed"})
    salt = fields.String(required=True)


LIFECYCLE_DATA = {"match_created": MatchCreatedData, "seat_joined": SeatJoinedData, "seat_left": SeatData,
                  "seat_accepted": SeatData, "seat_declined": SeatData, "match_canceled": MatchCanceledData,
                  "moved": MovedData, "seat_resigned": SeatData, "turn_timed_out": TurnTimedOutData,
                  "seat_forfeited": SeatData, "match_aborted": MatchAbortedData, "match_finished": MatchFinishedData}
assert set(LIFECYCLE_DATA) == set(MATCH_EVENTS), "every event of the match's own is typed"
assert set(MatchCreatedData._declared_fields) == set(MatchCreated.__annotations__), "match_created's every field"


def _event_fields(kind: fields.Field, data: fields.Field) -> dict[str, fields.Field]:
    return {"version": fields.Integer(required=True), "type": kind, "data": data,
            "time": fields.String(required=True), "prev": fields.String(required=True),
            "hash": fields.String(required=True),
            "nonce": fields.String(metadata={"description": "only once the match is finished"})}


LIFECYCLE_EVENTS = {kind: Schema.from_dict(_event_fields(_kind(kind), fields.Nested(data, required=True)),
                                           name=f"{_pascal(kind)}Event")
                    for kind, data in LIFECYCLE_DATA.items()}
GameEvent = Schema.from_dict(_event_fields(
    fields.String(required=True, metadata={"not": {"enum": list(MATCH_EVENTS)},
                                           "description": "one of the game's events (its rules page lists them)"}),
    fields.Dict(required=True, keys=fields.String(), metadata={
        "description": "as the game's rules page describes it, redacted for the caller while the match goes on"})),
    name=GAME_EVENT)


class MatchFrame(Match):
    type = _kind("match")
    legal_moves = fields.List(fields.Raw(metadata=MOVE), required=True, metadata={
        "description": "your seat's legal moves when it is to act (and the server does not play it), else []"})


class FeedFrameBase(Schema):
    position = fields.Integer(required=True, metadata={
        "description": "the account's matches the feed has caught up with: resume after it (?after=)"})


class MatchStartedFrame(FeedFrameBase):
    type = _kind("match_started", "a match of the account is active (dealt)")
    match = fields.String(required=True)
    game = fields.String(required=True)
    seat = fields.Integer(required=True)


class YourTurnFrame(FeedFrameBase):
    type = _kind("your_turn", "the account's seat is to act at a new version")
    match = fields.String(required=True)
    seat = fields.Integer(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "play at it (expected_version)"})
    view = fields.Raw(metadata={**VIEW, "description": "with ?with=view: the seat's view (the <Game>View of `game`)"})
    legal_moves = fields.List(fields.Raw(metadata=MOVE), metadata={
        "description": "with ?with=view: the seat's legal moves at `version` ([] when the server plays the seat)"})


class SyncedFrame(FeedFrameBase):
    type = _kind("synced", "the end of what a new connection starts with (not sent on a resume)")


class MatchFinishedFrame(FeedFrameBase):
    type = _kind("match_finished", "a match of the account is over")
    match = fields.String(required=True)
    seat = fields.Integer(required=True)
    result = fields.Nested(Result, required=True)


class ChallengeFrame(FeedFrameBase):
    type = _kind("challenge", "the account is invited to a match (docs/challenges.md)")
    match = fields.String(required=True, metadata={"description": "accept at POST /v1/matches/<match>/accept"})
    seat = fields.Integer(required=True)
    game = fields.String(required=True)
    by = fields.Nested(Inviter, required=True)
    expires_at = fields.String(required=True, metadata={"description": "when the match is canceled unless you "
                                                                       "accept (UTC)"})
    created_at = fields.String(required=True)


class ChallengeCanceledFrame(FeedFrameBase):
    type = _kind("challenge_canceled", "a match the account was invited to was declined or expired")
    match = fields.String(required=True)
    seat = fields.Integer(required=True)
    reason = fields.String(required=True, metadata={"enum": [DECLINED, EXPIRED]})


FEED_FRAMES = {"match_started": MatchStartedFrame, "your_turn": YourTurnFrame, "synced": SyncedFrame,
               "match_finished": MatchFinishedFrame, "challenge": ChallengeFrame,
               "challenge_canceled": ChallengeCanceledFrame}


def _reference(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _union(description: str, named: dict[str, str]) -> dict:
    """oneOf the named schemas (type -> component name), discriminated by `type`."""
    return {"description": description, "oneOf": [_reference(name) for name in dict.fromkeys(named.values())],
            "discriminator": {"propertyName": "type",
                              "mapping": {kind: f"#/components/schemas/{name}" for kind, name in named.items()}}}


def components() -> dict[str, type[Schema] | dict]:
    """The schemas api/app.py registers, by component name: each frame and event, and the unions. The game's events
    are open (every type but the match's own), so they stay outside the discriminated unions: a discriminator names
    every value, and generators give an unnamed member its schema's name as its type (openapi-typescript:
    `type: "GameEvent"`)."""
    events = {kind: schema.__name__ for kind, schema in LIFECYCLE_EVENTS.items()}
    frames = {kind: schema.__name__ for kind, schema in FEED_FRAMES.items()}
    return {
        **{name: LIFECYCLE_EVENTS[kind] for kind, name in events.items()}, GAME_EVENT: GameEvent,
        "MatchFrame": MatchFrame, **{name: FEED_FRAMES[kind] for kind, name in frames.items()},
        "LifecycleEvent": _union("one of the match's own events (docs/architecture.md), typed by `type`", events),
        "Event": {"description": "an event of the match's log: one of the match's own or one of its game's",
                  "oneOf": [_reference("LifecycleEvent"), _reference(GAME_EVENT)]},
        "MatchStreamFrame": {"description": "a frame of a match's stream: the match document (`type: match`) or an "
                                            "event", "oneOf": [_reference(name) for name in
                                                               ("MatchFrame", "LifecycleEvent", GAME_EVENT)]},
        "FeedFrame": _union("a frame of an account's turn feed", frames),
    }
