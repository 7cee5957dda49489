"""The shapes that cross the layers around a match, as TypedDicts: what the service is asked to create a match from
(the seats and the turn clock: the API's parsed bodies) and the data of the match's own events (domain/match.py's
docstring lists them). A TypedDict is a plain dict at run time, so the log, its hashes and the wire stay as they
were; mypy (make lint) checks that each event is built with its fields.
"""
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, overload


# --- what a match is created from ------------------------------------------------------------------
class SeatSpec(TypedDict, total=False):
    """A seat as its creator asks for it (POST /v1/matches `seats`): a name, a bot, an account, or open."""
    name: str | None
    bot: str | None
    bot_options: dict[str, Any]
    open: bool
    account: str  # an account's id (the API resolves a name or an id; service/accounts.py named_by)
    invited: bool  # the account is asked first (docs/challenges.md)


class ClockSpec(TypedDict, total=False):
    """A turn clock as asked for (docs/clocks.md; domain/clock.py fills in what is missing)."""
    move_ms: int
    bank_ms: int
    increment_ms: int
    first_move_ms: int
    reaction_ms: int
    on_timeout: Literal["substitute", "forfeit"]
    zombie_after: int


class Inviter(TypedDict):
    account: str
    name: str


class Invitation(TypedDict):
    """Who invites the other accounts of a match (or a tournament), and until when (ms since the epoch)."""
    by: Inviter
    until: int


# --- the match's own events' data ------------------------------------------------------------------
SeedSource = Literal["server", "client"]  # who chose the seed
CancelReason = Literal["declined", "expired"]


class Seat(TypedDict):
    """A seat as match_created logs it (and the state keeps it, `zombie` added when the server plays it)."""
    name: str | None
    bot: str | None
    open: bool
    bot_options: NotRequired[dict[str, Any]]
    bot_level: NotRequired[int]  # the level the options stood for when the match was created
    account: NotRequired[str]
    invited: NotRequired[bool]
    zombie: NotRequired[bool]


class MatchCreated(TypedDict):
    game: str
    options: dict[str, Any]
    seats: list[Seat]
    commitment: str
    seed_source: SeedSource
    owner: NotRequired[str]  # a client seed's owner
    clock: NotRequired[dict[str, Any]]  # the clock spec, filled in
    invited_by: NotRequired[Inviter]
    invited_until: NotRequired[int]
    rated: NotRequired[bool]  # only when true (docs/ladder.md)
    rematch_of: NotRequired[str]  # the finished match this one replays (docs/challenges.md); only when it does
    rules_version: NotRequired[int]  # the game's INFO.rules_version; absent from logs made before it was logged: 1
    engine_version: NotRequired[int]  # domain.match.ENGINE_VERSION; absent likewise: 1


class SeatJoined(TypedDict):
    seat: int
    name: str
    account: NotRequired[str]


class SeatEvent(TypedDict):
    """seat_left, seat_accepted, seat_declined, seat_resigned, seat_forfeited; match_aborted by a first timeout."""
    seat: int


class MatchCanceled(TypedDict):
    reason: CancelReason
    seats: list[int]


class Moved(TypedDict):
    seat: int
    move: dict[str, Any]


class TurnTimedOut(TypedDict):
    seat: int
    version: int


class OperatorAborted(TypedDict):
    """match_aborted by the operator (POST /v1/admin/matches/<id>/abort)."""
    by: Literal["operator"]
    reason: str


class MatchFinished(TypedDict):
    result: dict[str, Any]
    seed: str
    salt: str


SeatEventKind = Literal["seat_left", "seat_accepted", "seat_declined", "seat_resigned", "seat_forfeited",
                        "match_aborted"]


@overload
def event(kind: Literal["match_created"], data: MatchCreated) -> dict: ...
@overload
def event(kind: Literal["seat_joined"], data: SeatJoined) -> dict: ...
@overload
def event(kind: SeatEventKind, data: SeatEvent) -> dict: ...
@overload
def event(kind: Literal["match_canceled"], data: MatchCanceled) -> dict: ...
@overload
def event(kind: Literal["moved"], data: Moved) -> dict: ...
@overload
def event(kind: Literal["turn_timed_out"], data: TurnTimedOut) -> dict: ...
@overload
def event(kind: Literal["match_aborted"], data: OperatorAborted) -> dict: ...
@overload
def event(kind: Literal["match_finished"], data: MatchFinished) -> dict: ...


def event(kind: str, data: Mapping[str, Any]) -> dict:
    """One of the match's own events, as the log stores it: mypy checks that the data has the kind's fields."""
    return {"type": kind, "data": data}
