"""What the resources' schemas share: the bounds of names, seeds, versions and seats, a move's description, a strict
JSON boolean, and the streams' query (a match's and a tournament's)."""
from marshmallow import Schema, fields, validate

from api.schemas.games import each_game

NAME = validate.Length(min=1, max=40)
SEED = validate.Length(min=1, max=200)
MOVE = {"anyOf": each_game("Move"), "description": "{action, ...}: a move of the match's game (its <Game>Move "
                                                   "schema; GET /v1/games/<game> lists the actions)"}
VIEW = {"oneOf": each_game("View")}
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


class StreamQuery(Schema):
    after = fields.Integer(validate=validate.Range(min=0, max=LARGEST), metadata={
        "description": "resume: only the events after this version (the Last-Event-ID header wins over it)"})


class Reference(fields.Raw):
    """A value a named component describes (a union such as Event), passed through as it is."""

    def __init__(self, component: str, **kwargs):
        super().__init__(**kwargs)
        self.component = component


def referenced(converter, field, ret, **kwargs) -> dict:
    """apispec attribute function: a Reference is its component; a nullable Nested is `allOf` its schema and
    `nullable`, which generators read as 'that schema or null' (apispec's own form, anyOf an empty nullable object
    and the schema, admits any object, and reads as `Record<string, never> | Result | null` in TypeScript)."""
    if isinstance(field, Reference):
        return {"$ref": f"#/components/schemas/{field.component}"}
    if isinstance(field, fields.Nested) and field.allow_none and "anyOf" in ret:
        schema = [alternative for alternative in ret.pop("anyOf") if "$ref" in alternative]
        return {"allOf": schema, "nullable": True}
    return {}


RATED = ("the match counts on its ladder when it finishes (docs/ladder.md): every seat an account or a house bot, "
         "a clock, no seed, else 422 with a reason (rated_open_seat, rated_anonymous_seat, rated_without_clock, "
         "rated_with_seed, rated_player_twice, rated_bot_options)")
