"""The documented body of POST /v1/matches, game by game: how many seats each game takes, its options, the
seat kinds and each bot's options. The marshmallow schema CreateMatch reads the body and the domain checks
it; this document states the same limits so that a body it allows is one the server accepts (the fuzz test
holds it to that).

A game's player range may depend on a choice (Mantis compact seats 2 to 4, classic 2 to 6). Rather than
copy such rules here, the range of each combination of choices is asked from the game's own `options`;
combinations that differ get an alternative each.

Every alternative is a component of its own (`components`): generators name an inline alternative by its place
(`NewSeat_type_3`) and openapi-python-client then made two models of one name and dropped both, and with them
`create_match`.
"""
from itertools import product

from api.schemas.common import MAX_SEATS, NAME as NAME_LENGTH, RATED as RATED_DOC, SEED as SEED_LENGTH
from api.schemas.games import schema_name
from domain import clock
from domain.bots import BOTS
from domain.errors import InvalidSetup
from domain.games import GAMES

NAME = {"type": "string", "minLength": NAME_LENGTH.min, "maxLength": NAME_LENGTH.max}
RATED = {"type": "boolean", "default": False, "description": RATED_DOC}
SEED = {"type": "string", "minLength": SEED_LENGTH.min, "maxLength": SEED_LENGTH.max,
        "description": "makes the deal reproducible; recorded as client-seeded"}
NEW_SEAT, NEW_MATCH, NEW_CLOCK = "NewSeat", "NewMatch", "NewClock"
# docs/fairness.md: a client's seed may only decide cards hidden from its owner, so never with an open seat
SEED_OWNER_PLAYS_EVERY_SEAT = {
    "description": "a seed, and no open seat",
    "properties": {"seats": {"items": {"not": {"required": ["open"], "properties": {"open": {"enum": [True]}}}}}}}
# domain/clock.py: a clock needs a per-move limit or a bank (each part's default applies when it is left out)
NO_LIMIT = {"allOf": [{"required": ["move_ms"], "properties": {"move_ms": {"enum": [0]}}},
                      {"anyOf": [{"not": {"required": ["bank_ms"]}}, {"properties": {"bank_ms": {"enum": [0]}}}]}]}
# what every clock is not, a match's (NewClock) and a tournament's (ClockSpec, which reads both)
NOT_A_CLOCK = {**NO_LIMIT, "description": "neither a per-move limit nor a bank"}
REQUEST_BODY = {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{NEW_MATCH}"}}}}


def components() -> dict[str, dict]:
    """The body of POST /v1/matches as named schemas: NewMatch, NewSeat, NewClock and their alternatives."""
    seats, matches = seat_alternatives(), match_alternatives()
    return {**seats, NEW_SEAT: {"description": "a seat of a new match", "oneOf": [_ref(name) for name in seats]},
            NEW_CLOCK: clock_schema(), **matches, NEW_MATCH: new_match_schema(list(matches))}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def seat_alternatives() -> dict[str, dict]:
    """A seat: a human {name}, an account's {account}, an open seat {open: true} filled by joining, or a bot
    {bot, bot_options}."""
    no = {"type": "boolean", "enum": [False]}
    human = _object("a human seat", {"name": NAME, "open": no}, ["name"])
    vacant = _object("an open seat, filled by POST .../join", {"open": {"type": "boolean", "enum": [True]},
                                                               "name": NAME}, ["open"])
    owned = _object("the seat of an account (by id or name; 404 account_not_found if there is none): its API "
                    "key acts for the seat", {"account": {"type": "string", "minLength": 1, "maxLength": 40},
                                              "open": no}, ["account"])
    bots = [_object(f"a {kind} bot", {"bot": {"type": "string", "enum": [kind]}, "name": NAME, "open": no,
                                      "bot_options": _options_schema(bot.published_options, {})}, ["bot"])
            for kind, bot in BOTS.items()]
    return {"NewHumanSeat": human, "NewAccountSeat": owned, "NewOpenSeat": vacant,
            **{f"New{schema_name(kind)}BotSeat": seat for kind, seat in zip(BOTS, bots)}}


def new_match_schema(alternatives: list[str]) -> dict:
    return {"description": "a new match: one alternative per game (and per choice that changes its seats)",
            "oneOf": [_ref(name) for name in alternatives],
            "anyOf": [{"description": "no seed", "not": {"required": ["seed"]}}, SEED_OWNER_PLAYS_EVERY_SEAT]}


def match_alternatives() -> dict[str, dict]:
    """NewMatch<Game>, or NewMatch<Game><Choice> for each choice that changes the game's seats."""
    return {name: schema for game in GAMES.values() for name, schema in _alternatives(game).items()}


def _alternatives(game) -> dict[str, dict]:
    info = game.INFO
    chosen = [option for option in info.options if option.choices]
    combinations = [dict(zip((o.name for o in chosen), values)) for values in product(*(o.choices for o in chosen))]
    ranges = {tuple(_player_range(game, choice)) for choice in combinations}
    name = f"NewMatch{schema_name(info.id)}"
    if len(ranges) == 1:
        return {name: _alternative(info, {}, *ranges.pop())}
    return {name + "".join(schema_name(str(value)) for value in choice.values()):
            _alternative(info, choice, *_player_range(game, choice)) for choice in combinations}


def _alternative(info, choice: dict, fewest: int, most: int) -> dict:
    seats = {"type": "array", "items": {"$ref": f"#/components/schemas/{NEW_SEAT}"}, "minItems": fewest,
             "maxItems": most}
    options = _options_schema(info.options, choice)
    described = ", ".join(f"{name} {value}" for name, value in choice.items())
    return _object(f"{info.name}{' ' + described if described else ''}: {fewest} to {most} seats",
                   {"game": {"type": "string", "enum": [info.id]}, "options": options, "seats": seats, "seed": SEED,
                    "clock": {"$ref": f"#/components/schemas/{NEW_CLOCK}"}, "rated": RATED},
                   ["game", "seats"] + (["options"] if options.get("required") else []))


def clock_schema() -> dict:
    return {**_options_schema(clock.SPEC, {}), "description": "a turn clock (docs/clocks.md); none: no clock",
            "not": NOT_A_CLOCK}


def _options_schema(options, choice: dict) -> dict:
    """Options as an object; `choice` pins some of them to one value (required unless it is the default)."""
    properties = {option.name: _option_schema(option, choice.get(option.name)) for option in options}
    required = [name for name, value in choice.items() if value != next(o for o in options if o.name == name).default]
    return _object("", properties, required)


def _option_schema(option, pinned) -> dict:
    schema = {"type": option.type, "description": option.description}
    if pinned is None or pinned == option.default:
        schema["default"] = option.default
    if option.choices:
        schema["enum"] = [pinned] if pinned is not None else list(option.choices)
    if option.bounds:
        schema["minimum"], schema["maximum"] = option.bounds
    return schema


def _player_range(game, choice: dict) -> list[int]:
    accepted = [count for count in range(1, MAX_SEATS + 1) if _accepts(game, choice, count)]
    return [min(accepted), max(accepted)]


def _accepts(game, choice: dict, count: int) -> bool:
    try:
        game.options(choice, count)
    except InvalidSetup:
        return False
    return True


def _object(description: str, properties: dict, required: list[str]) -> dict:
    return {"type": "object", **({"description": description} if description else {}), "properties": properties,
            **({"required": required} if required else {}), "additionalProperties": False}
