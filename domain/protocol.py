"""The game protocol: what every game module provides, in this order (see docs/architecture.md).

    INFO                              -> GameInfo: id, name, player range, options, move vocabulary, typed view,
                                         the rules version
    options(raw, player_count)        -> validated options with defaults filled in (raises InvalidSetup)
    deal(options, player_count, rng)  -> the opening events (every shuffled card is IN the event)
    evolve(state, event)              -> the new state (pure: no validation, no randomness, no mutation)
    decide(state, seat, move, rng)    -> the events of a move (raises IllegalMove(reason, message))
    legal_moves(state, seat)          -> every move that seat may make now
    to_act(state)                     -> the seats whose decision is awaited
    view(state, seat | None)          -> what that seat (or a spectator, None) may see
    redact(event, seat | None)        -> the event as that seat (or a spectator) may see it
    outcome(state)                    -> None while the game goes on, else {"winners": [...], "scores": {...}}
    recall(seen, seat)                -> what the seat has learned that its view no longer shows (None: nothing),
                                         from `seen`: per change of the game (the deal, then each move), its
                                         events as redacted for the seat and the seat's view after them
    determinize(view, seat, rng, memory=None)
                                      -> a full state consistent with a seat's view and with `memory` (what
                                         recall returned), for searching bots
    greedy(view, seat, moves, rng)    -> a one-move-ahead heuristic choice (the `greedy` bot)
    evaluate(state, seat)             -> the seat's chance to win, guessed in [0, 1] from the public part of
                                         a game in progress (for a search's playouts cut short, after
                                         PLAYOUT_CAP moves unless the bot's options say otherwise)
    simulation(state)                 -> a Simulation of the state (domain/simulation.py): what a search's
                                         playouts play on, the same rules at less cost

States, events and moves are JSON values (dicts, lists, str, int, bool, None), so a state can be stored
as a snapshot and an event appended to the log as it is. An event is {"type": str, "data": dict}.
In redacted events and views a card that the seat may not see is `None`.

`Game` below states the same as a typing.Protocol: domain/games/__init__.py registers each module as a `Game`,
so mypy (make lint) checks every module's names and signatures against it.
"""
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from domain.errors import IllegalMove, InvalidSetup
from domain.simulation import Simulation

Move = dict[str, Any]
# what a seat was shown of its game (domain.match.seen), which recall reads: per change (the deal, then each
# move), the game's events as redacted for the seat and the seat's view after them
Seen = Sequence[tuple[list[dict], dict]]
T = TypeVar("T")

_JSON_TYPES = {"integer": int, "string": str, "boolean": bool}


@dataclass(frozen=True)
class Option:
    name: str
    type: str  # "string" | "integer" | "boolean"
    default: Any
    description: str
    choices: tuple = ()
    bounds: tuple = ()  # (lowest, highest) for an integer


@dataclass(frozen=True)
class Field:
    type: str  # "integer" | "string" | "boolean"
    description: str
    required: bool = True
    choices: tuple = ()


@dataclass(frozen=True)
class ViewField:
    """One field of a game's view: the shape of its value (built with the helpers below) and what it means."""
    shape: dict
    description: str


@dataclass(frozen=True)
class GameInfo:
    id: str
    name: str
    min_players: int
    max_players: int
    summary: str
    options: tuple[Option, ...] = ()
    actions: dict[str, tuple[str, dict[str, Field]]] = field(default_factory=dict)  # action -> (doc, fields)
    view: dict[str, ViewField] = field(default_factory=dict)  # every field of view(): its shape and meaning
    # logged in match_created: a change of what a move may do or does is a new version, the old one kept callable
    # (domain/games/__init__.py; docs/fairness.md says what a bump means)
    rules_version: int = 1

    def catalog_entry(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "summary": self.summary,
            "players": {"min": self.min_players, "max": self.max_players},
            "rules_version": self.rules_version,
            "options": [describe_option(o) for o in self.options],
            "actions": {
                action: {"description": doc,
                         "fields": {name: {"type": f.type, "description": f.description, "required": f.required,
                                           **({"choices": list(f.choices)} if f.choices else {})}
                                    for name, f in fields.items()}}
                for action, (doc, fields) in self.actions.items()
            },
        }


# --- shapes: the JSON values a view holds, so that the API can publish each game's view as a typed schema.
# A shape is an OpenAPI 3.0 schema object (JSON Schema with `nullable`) made of plain dicts; only the API
# reads them, the rules never do.
INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}
STRING = {"type": "string"}


class Draws(Protocol):
    """The draws a deal and a move may make: domain.rng.Rng in a match (so a verifier can replay them), a faster
    generator in a search's playouts (domain.bots.ismcts.FastRng)."""

    def below(self, n: int) -> int: ...

    def shuffled(self, items: Sequence[T]) -> list[T]: ...

    def choice(self, items: Sequence[T]) -> T: ...


class Game(Protocol):
    """A game module (the module docstring above says what each name does)."""
    INFO: GameInfo
    PLAYOUT_CAP: int  # moves of a search's playout before evaluate scores it (tuned per game: docs/bots.md)
    GREEDY_ROLLOUTS: int  # percent of a search's playout moves chosen by greedy, the rest at random (tuned per game)
    __name__: str  # the module's: its rules page (docs/games/<module>.md, api/docs.py) is named after it

    def options(self, raw: dict, player_count: int) -> dict: ...

    def deal(self, options: dict, player_count: int, rng: Draws) -> list[dict]: ...

    def evolve(self, state: dict | None, event: dict) -> dict: ...

    def decide(self, state: dict, seat: int, move: dict, rng: Draws) -> list[dict]: ...

    def legal_moves(self, state: dict, seat: int) -> list[dict]: ...

    def to_act(self, state: dict) -> list[int]: ...

    def view(self, state: dict, seat: int | None) -> dict: ...

    def redact(self, event: dict, seat: int | None) -> dict: ...

    def outcome(self, state: dict) -> dict | None: ...

    def recall(self, seen: Seen, seat: int) -> dict | None: ...

    def determinize(self, view: dict, seat: int, rng: random.Random, memory: dict | None = None) -> dict: ...

    def greedy(self, view: dict, seat: int, moves: list[dict], rng: random.Random) -> dict: ...

    def evaluate(self, state: dict, seat: int) -> float: ...

    def simulation(self, state: dict) -> Simulation: ...


def one_of(*choices) -> dict:
    """A value that is one of `choices` (all strings, all integers or all booleans)."""
    kind = {bool: "boolean", int: "integer", str: "string"}[type(choices[0])]
    return {"type": kind, "enum": list(choices)}


def list_of(items: dict) -> dict:
    return {"type": "array", "items": items}


def record(properties: dict[str, dict], optional: tuple[str, ...] = ()) -> dict:
    """An object with exactly these fields; every field is always present unless named in `optional`."""
    return {"type": "object", "properties": properties, "additionalProperties": False,
            "required": [name for name in properties if name not in optional]}


def keyed(values: dict) -> dict:
    """An object whose keys are data (a place, a seat) and whose values all have one shape."""
    return {"type": "object", "additionalProperties": values}


def named(title: str, shape: dict) -> dict:
    """A shape used in several places, e.g. a card: the API publishes it once, as <Game><title>."""
    return {**shape, "title": title}


def nullable(shape: dict) -> dict:
    """The shape, or null (a hidden card, a step not yet taken)."""
    return {**shape, "nullable": True}


def describe_option(option: Option) -> dict:
    return {"name": option.name, "type": option.type, "default": option.default, "description": option.description,
            **({"choices": list(option.choices)} if option.choices else {}),
            **({"minimum": option.bounds[0], "maximum": option.bounds[1]} if option.bounds else {})}


def validate_options(info: GameInfo, raw: dict, player_count: int) -> dict:
    """Fill defaults, reject unknown or mistyped options and player counts outside the game's range."""
    result = fill_options(info.name, info.options, raw)
    check_player_count(info.name, player_count, info.min_players, info.max_players)
    return result


def fill_options(owner: str, specs: tuple[Option, ...], raw: dict) -> dict:
    """The options with defaults filled in; unknown, mistyped or out-of-range ones are refused."""
    known = {o.name: o for o in specs}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise InvalidSetup("unknown_option", f"{owner} has no option {', '.join(unknown)}")
    result = {}
    for option in specs:
        value = raw.get(option.name, option.default)
        if not _is_type(value, option.type):
            raise InvalidSetup("invalid_option", f"option {option.name} must be a {option.type}")
        if option.choices and value not in option.choices:
            raise InvalidSetup("invalid_option",
                               f"option {option.name} must be one of {', '.join(map(str, option.choices))}")
        if option.bounds and not option.bounds[0] <= value <= option.bounds[1]:
            raise InvalidSetup("invalid_option",
                               f"option {option.name} must be from {option.bounds[0]} to {option.bounds[1]}")
        result[option.name] = value
    return result


def check_player_count(name: str, player_count: int, low: int, high: int) -> None:
    if not low <= player_count <= high:
        raise InvalidSetup("invalid_player_count", f"{name} is for {low} to {high} players, not {player_count}")


def parse_move(info: GameInfo, move: Any) -> Move:
    """Check a move's shape against the game's vocabulary; the rules are checked by the game after this."""
    if not isinstance(move, dict) or not isinstance(move.get("action"), str):
        raise IllegalMove("malformed_move", "a move is an object with a string field 'action'")
    if move["action"] not in info.actions:
        raise IllegalMove("unknown_action",
                          f"{info.name} has no action {move['action']!r}; actions: {', '.join(info.actions)}")
    _, fields = info.actions[move["action"]]
    extra = sorted(set(move) - set(fields) - {"action"})
    if extra:
        raise IllegalMove("malformed_move", f"{move['action']} takes no field {', '.join(extra)}")
    for name, spec in fields.items():
        if name not in move:
            if spec.required:
                raise IllegalMove("malformed_move", f"{move['action']} needs the field {name!r}")
            continue
        if not _is_type(move[name], spec.type):
            raise IllegalMove("malformed_move", f"field {name!r} must be a {spec.type}")
        if spec.choices and move[name] not in spec.choices:
            raise IllegalMove("malformed_move", f"field {name!r} must be one of {', '.join(map(str, spec.choices))}")
    return move


def _is_type(value: Any, type_name: str) -> bool:
    expected = _JSON_TYPES[type_name]
    return isinstance(value, expected) and not (expected is int and isinstance(value, bool))


def started(state: dict | None, event: dict) -> dict:
    """The state that an event other than a log's first one evolves: a log always opens with its first event."""
    if state is None:
        raise ValueError(f"a log cannot open with {event['type']!r}")
    return state


def require(condition: bool, reason: str, message: str) -> None:
    if not condition:
        raise IllegalMove(reason, message)


def required(value: T | None, reason: str, message: str) -> T:
    """The value, which the move needs: None is an illegal move."""
    if value is None:
        raise IllegalMove(reason, message)
    return value


def next_seat(seat: int, player_count: int, step: int = 1) -> int:
    return (seat + step) % player_count


def win_share(points: Sequence[float], seat: int, scale: float) -> float:
    """A seat's chance to win guessed from each seat's points (more is better) in a game in progress: a
    softmax, so the seats' chances add up to 1 and a lead of `scale` points weighs e (about 2.7) to 1."""
    weights = [math.exp((p - max(points)) / scale) for p in points]
    return weights[seat] / sum(weights)


def highest(values: Sequence[float], rng) -> int:
    """The index of the highest value, for a greedy: a tie goes to one of the tied, as tie_break draws it."""
    best, ties = values[0], [0]
    for index in range(1, len(values)):
        value = values[index]
        if value > best:
            best, ties = value, [index]
        elif value == best:
            ties.append(index)
    return tie_break(ties, rng)


def tie_break(ties: Sequence[T], rng) -> T:
    """One of the tied moves (indices in increasing order, or the moves in their order): the only one, else one
    drawn uniformly by a single rng.random(). A choice without a tie draws nothing, so a greedy that values
    hundreds of moves (a 9STAX Swap) costs no draw a move, and a fast simulation that finds the ties from its
    tables draws as the rules do."""
    return ties[0] if len(ties) == 1 else ties[int(rng.random() * len(ties))]
