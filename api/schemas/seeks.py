"""Request and response schemas of /v1/seeks. The domain checks a seek's rules (domain/seeks.py: the game's options
and player count, the clock, a house bot); these check its shape, and the document states the rules too
(seek_rules)."""
from marshmallow import Schema, fields, validate

from api.schemas.common import MAX_SEATS, JsonBoolean
from api.schemas.matches import ClockSpec
from api.schemas.new_match import equals, game_terms, when
from domain.bots import BOTS
from domain.games import GAMES
from domain.seeks import CANCELED, EXPIRED, OPEN, PAIRED

LONGEST_BOT_AFTER = 86_400
WIDEST_RANGE = 1000.0


class JsonNumber(fields.Float):
    """A JSON number only: marshmallow's Float also takes "5" and true."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


class CreateSeek(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=40), metadata={"enum": list(GAMES)})
    options = fields.Dict(keys=fields.String(), load_default=dict, metadata={"description": "the game's options"})
    players = fields.Integer(load_default=2, strict=True, validate=validate.Range(min=1, max=MAX_SEATS),
                             metadata={"description": "the match's seats (the game's player range applies)"})
    clock = fields.Nested(ClockSpec, allow_none=True, metadata={
        "description": "the match's turn clock (docs/clocks.md); required when rated"})
    rated = JsonBoolean(load_default=False, metadata={"description": "a rated match (needs a clock)"})
    rating_range = JsonNumber(allow_none=True, validate=validate.Range(min=0, max=WIDEST_RANGE), metadata={
        "description": "the most another's rating may differ from yours (openskill mu points: an account starts at "
                       "25 +- 8.3); it widens the longer you wait (SEEK_WIDEN per second). None: any rating"})
    bot_after = fields.Integer(allow_none=True, strict=True, validate=validate.Range(min=0, max=LONGEST_BOT_AFTER),
                               metadata={"description": "seconds after which house bots fill the seats nobody came "
                                                        "for (none: never)"})
    bot = fields.String(validate=validate.OneOf(list(BOTS)), metadata={
        "description": "the house bot that fills them (default greedy); only with bot_after"})


def seek_rules() -> dict:
    """What CreateSeek's fields cannot say alone: each game's options and player counts, a rated seek's clock, and
    a house bot named only with bot_after."""
    return {"allOf": [
        game_terms("players"),  # in allOf, not beside it: openapi-python-client takes a top-level oneOf for a union
        when(equals("rated", True), {"description": "rated: a clock", "required": ["clock"],
                                     "properties": {"clock": {"type": "object"}}}),
        when({"required": ["bot"]}, {"description": "a house bot named: bot_after", "required": ["bot_after"],
                                     "properties": {"bot_after": {"type": "integer"}}})]}


class SeekAccount(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class SeekRating(Schema):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)


class Seek(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": [OPEN, PAIRED, CANCELED, EXPIRED]})
    game = fields.String(required=True)
    options = fields.Dict(required=True)
    players = fields.Integer(required=True)
    clock = fields.Dict(allow_none=True, required=True)
    rated = fields.Boolean(required=True)
    rating_range = fields.Float(allow_none=True, required=True)
    rating = fields.Nested(SeekRating, required=True, metadata={"description": "the rating the pool pairs you by"})
    bot_after = fields.Integer(allow_none=True, required=True)
    bot = fields.String(required=True)
    account = fields.Nested(SeekAccount, required=True)
    opened_at = fields.String(required=True)
    expires_at = fields.String(required=True)
    closed_at = fields.String(allow_none=True, required=True)
    match = fields.String(allow_none=True, required=True,
                          metadata={"description": "paired: the match you are seated in"})
    seat = fields.Integer(allow_none=True, required=True, metadata={"description": "paired: your seat in it"})
    reason = fields.String(allow_none=True, required=True,
                           metadata={"description": "canceled because the match could not be created: why"})


class SeekList(Schema):
    seeks = fields.List(fields.Nested(Seek), required=True)
