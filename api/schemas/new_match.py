"""The documented bodies of POST /v1/matches, /v1/seeks and /v1/tournaments, game by game: how many seats each
game takes, its options, the seat and entrant kinds, each bot's options, and the rules between fields (a rated
match's seats, a seek's clock, a tournament's rounds and tables). The marshmallow schemas read the bodies and the
domain checks them; this document states the same limits so that a body it allows is one the server accepts (the
fuzz test holds it to that). What JSON Schema cannot state (a rule on another resource, a setting, the caller's
key, two items naming one player) the operation's description lists, with the 422 reason it gets (`unstated`).

A game's player range may depend on a choice (Mantis compact seats 2 to 4, classic 2 to 6). Rather than
copy such rules here, the range of each combination of choices is asked from the game's own `options`;
combinations that differ get an alternative each.

Every alternative of a new match's body is a component of its own (`components`): generators name an inline
alternative by its place (`NewSeat_type_3`) and openapi-python-client then made two models of one name and dropped
both, and with them `create_match`.
"""
from itertools import product

from api.schemas.common import MAX_SEATS, NAME as NAME_LENGTH, RATED as RATED_DOC, SEED as SEED_LENGTH
from domain import clock
from api.schemas.games import schema_name
from domain.bots import BOTS
from domain.errors import InvalidSetup
from domain.games import GAMES

NAME = {"type": "string", "minLength": NAME_LENGTH.min, "maxLength": NAME_LENGTH.max}
RATED = {"type": "boolean", "default": False, "description": RATED_DOC}
ACCOUNT = {"type": "string", "minLength": 1, "maxLength": 40}
SEED = {"type": "string", "minLength": SEED_LENGTH.min, "maxLength": SEED_LENGTH.max,
        "description": "makes the deal reproducible; recorded as client-seeded"}
NEW_SEAT, NEW_MATCH, NEW_CLOCK = "NewSeat", "NewMatch", "NewClock"
# docs/fairness.md: a client's seed may only decide cards hidden from its owner, so never with an open seat
SEED_OWNER_PLAYS_EVERY_SEAT = {
    "description": "a seed, and no open seat",
    "properties": {"seats": {"items": {"not": {"required": ["open"], "properties": {"open": {"enum": [True]}}}}}}}
# domain/ladder.py: a rated match's seats are its players, each rated again later, at the same strength
LEVEL_ONLY = {"properties": {"level": {}}, "additionalProperties": False}
RATED_TERMS = {
    "description": "rated: a clock, no seed, every seat an account or a house bot (a bot's options only its level)",
    "required": ["clock"], "not": {"required": ["seed"]},
    "properties": {"seats": {"uniqueItems": True, "items": {"anyOf": [
        {"required": ["account"]}, {"required": ["bot"], "properties": {"bot_options": LEVEL_ONLY}}]}}}}
# the rules a body's schema cannot state (they compare items, or ask another resource), by the 422 reason they give
UNSTATED_MATCH_RULES = {"account_seated_twice": "two seats of one account (by its id and by its name alike)",
                        "rated_player_twice": "a rated match with two seats of one house bot kind and level"}
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
                    "key acts for the seat", {"account": ACCOUNT, "open": no}, ["account"])
    return {"NewHumanSeat": human, "NewAccountSeat": owned, "NewOpenSeat": vacant,
            **{f"New{schema_name(kind)}BotSeat": seat for kind, seat in zip(BOTS, bot_kinds({"open": no}))}}


def entrant_alternatives() -> dict[str, dict]:
    """An entrant of a tournament: a bot {bot, bot_options?, name?} or an account {account}, each a component (as
    a seat's alternatives are: the generators' names for inline ones collide)."""
    account = _object("an account (by id or name; 404 account_not_found if there is none): it owns a seat in each "
                      "of its matches", {"account": ACCOUNT}, ["account"])
    return {**{f"Entrant{schema_name(kind)}Bot": bot for kind, bot in zip(BOTS, bot_kinds({}))},
            "EntrantAccount": account}


def entrant_schema() -> dict:
    return {"description": "an entrant of a tournament", "oneOf": [_ref(name) for name in entrant_alternatives()]}


def bot_kinds(properties: dict) -> list[dict]:
    """One alternative per bot kind, with its own options, and `properties` besides."""
    return [_object(f"a {kind} bot", {"bot": {"type": "string", "enum": [kind]}, "name": NAME, **properties,
                                      "bot_options": _options_schema(bot.published_options, {})}, ["bot"])
            for kind, bot in BOTS.items()]


def new_match_schema(alternatives: list[str]) -> dict:
    return {"description": "a new match: one alternative per game (and per choice that changes its seats)",
            "oneOf": [_ref(name) for name in alternatives],
            "allOf": [when({"required": ["seed"]}, SEED_OWNER_PLAYS_EVERY_SEAT), when(equals("rated", True), RATED_TERMS)]}


def match_alternatives() -> dict[str, dict]:
    """NewMatch<Game>, or NewMatch<Game><Choice> for each choice that changes the game's seats."""
    return {f"NewMatch{schema_name(game.INFO.id)}" + "".join(schema_name(str(value)) for value in choice.values()):
            _alternative(game.INFO, choice, fewest, most) for game, choice, fewest, most in seat_ranges()}


def game_terms(seats: str) -> dict:
    """A body naming its game, the game's options and its number of seats in the property `seats`: one alternative
    per game (and per choice that changes its seats), as new_match_schema's."""
    alternatives = []
    for game, choice, fewest, most in seat_ranges():
        options = _options_schema(game.INFO.options, choice)
        alternatives.append({"description": _described(game.INFO, choice, fewest, most), "properties": {
            "game": {"enum": [game.INFO.id]}, "options": options, seats: {"minimum": fewest, "maximum": most}},
            **({"required": ["options"]} if options.get("required") else {})})
    return {"oneOf": alternatives}


def unstated(rules: dict[str, str]) -> str:
    """An operation's description of the rules its schemas cannot state."""
    return "Refused all the same: " + "; ".join(f"{rule} (422 {reason})" for reason, rule in rules.items())


def when(condition: dict, then: dict) -> dict:
    """`then` holds wherever `condition` does: OpenAPI 3.0 has no if/then."""
    return {"anyOf": [{"not": condition}, then]}


def equals(name: str, value) -> dict:
    return {"required": [name], "properties": {name: {"enum": [value]}}}


def seat_ranges():
    """(game, choice, fewest, most) for each game and each choice of its options that changes its seats."""
    for game in GAMES.values():
        chosen = [option for option in game.INFO.options if option.choices]
        combinations = [dict(zip((o.name for o in chosen), values)) for values in product(*(o.choices for o in chosen))]
        ranges = {tuple(_player_range(game, choice)) for choice in combinations}
        if len(ranges) == 1:
            yield game, {}, *ranges.pop()
        else:
            yield from ((game, choice, *_player_range(game, choice)) for choice in combinations)


def player_counts() -> str:
    """Each game's player range, per choice that changes it: "Mantis edition classic: 2 to 6 seats, ..."."""
    return ", ".join(_described(game.INFO, choice, fewest, most) for game, choice, fewest, most in seat_ranges())


def _described(info, choice: dict, fewest: int, most: int) -> str:
    described = ", ".join(f"{name} {value}" for name, value in choice.items())
    return f"{info.name}{' ' + described if described else ''}: {fewest} to {most} seats"


def _alternative(info, choice: dict, fewest: int, most: int) -> dict:
    seats = {"type": "array", "items": {"$ref": f"#/components/schemas/{NEW_SEAT}"}, "minItems": fewest,
             "maxItems": most}
    options = _options_schema(info.options, choice)
    return _object(_described(info, choice, fewest, most),
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
