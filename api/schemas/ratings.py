"""The ladders' schemas: a leaderboard page, a player's entry, an account's public page (docs/ladder.md)."""
from marshmallow import Schema, fields, validate

from api.schemas.accounts import Account
from api.schemas.matches import AccountMatch
from api.schemas.new_match import player_counts, seat_ranges
from domain.games import GAMES
from domain.ladder import HOUSE

PAGE_MAX = 100
# every game's editions (domain/ladder.py: an edition is the option that names a ladder) and player counts
EDITIONS = sorted({edition for game in GAMES.values() for option in game.INFO.options if option.name == "edition"
                   for edition in option.choices})
FEWEST, MOST = min(fewest for *_, fewest, _ in seat_ranges()), max(most for *_, most in seat_ranges())
# the path's game decides which editions and player counts it has: OpenAPI cannot make a query parameter's schema
# depend on the path, so these are the rules the query's schema cannot state, by the 422 reason they give
UNSTATED_LADDER_RULES = {"unknown_option": "an edition for a game without editions",
                         "invalid_player_count": f"a player count the game does not have ({player_counts()})"}
GAME = {"in": "path", "name": "game", "required": True, "schema": {"type": "string", "enum": list(GAMES)},
        "description": "a game's id (GET /v1/games); another is 404 game_not_found"}


class RatingsQuery(Schema):
    edition = fields.String(validate=validate.OneOf(EDITIONS), metadata={
        "description": "the game's edition, where it has editions (Mantis: classic, the default, or compact)"})
    players = fields.Integer(load_default=2, validate=validate.Range(min=FEWEST, max=MOST),
                             metadata={"description": "the player count of the ladder (default 2)"})
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000),
                            metadata={"description": "entries to skip: next_offset of the last page"})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=PAGE_MAX))
    provisional = fields.Boolean(load_default=False, metadata={
        "description": "list the provisional players (too few rated matches or opponents to be read: listed apart) "
                       "instead of the established ones"})


class Rating(Schema):
    player = fields.String(required=True, metadata={"description": "an account's id, or a house bot's identity "
                                                                   "(bot:greedy, bot:ismcts:3)"})
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ["account", HOUSE]})
    mu = fields.Float(required=True, metadata={"description": "openskill's estimate of the strength"})
    sigma = fields.Float(required=True, metadata={"description": "its uncertainty"})
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma: what the table is sorted by"})
    low = fields.Float(required=True, metadata={"description": "mu - 1.96 sigma: the 95% interval's low end"})
    high = fields.Float(required=True, metadata={"description": "mu + 1.96 sigma"})
    games = fields.Integer(required=True, metadata={"description": "rated matches played on this ladder"})
    last_played = fields.String(required=True, metadata={"description": "when its last rated match ended (UTC)"})
    provisional = fields.Boolean(required=True, metadata={
        "description": "fewer than 10 rated matches, or fewer than 3 different opponents, on this ladder: listed "
                       "apart from the established players"})


class RankedRating(Rating):
    rank = fields.Integer(required=True)


class LadderTotals(Schema):
    established = fields.Integer(required=True, metadata={"description": "players ranked on the ladder"})
    provisional = fields.Integer(required=True, metadata={"description": "players listed apart, not ranked yet"})


class Leaderboard(Schema):
    ladder = fields.String(required=True, metadata={"description": "<game>[.<edition>].<players>p"})
    game = fields.String(required=True)
    options = fields.Dict(required=True, metadata={"description": "the game's options that name the ladder"})
    players = fields.Integer(required=True)
    provisional = fields.Boolean(required=True, metadata={"description": "whether this page lists the provisional "
                                                                         "players or the established ones"})
    total = fields.Integer(required=True, metadata={"description": "players in this listing"})
    totals = fields.Nested(LadderTotals, required=True)
    offset = fields.Integer(required=True)
    next_offset = fields.Integer(required=True, allow_none=True, metadata={"description": "null on the last page"})
    entries = fields.List(fields.Nested(RankedRating), required=True)


class RatingPoint(Schema):
    match = fields.String(required=True)
    at = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "the player's name in that match"})
    rank = fields.Integer(required=True, metadata={"description": "its rank in that match (1 best)"})
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)


class LadderRating(Rating):
    ladder = fields.String(required=True)
    game = fields.String(required=True)
    history = fields.List(fields.Nested(RatingPoint), required=True,
                          metadata={"description": "its rating after each of its last 50 rated matches, oldest first"})


class AccountPage(Account):
    ratings = fields.List(fields.Nested(LadderRating), required=True,
                          metadata={"description": "one per ladder it played, the most played first"})
    recent_matches = fields.List(fields.Nested(AccountMatch), required=True,
                                 metadata={"description": "its last matches, newest first"})


class RatedSeat(Schema):
    player = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ["account", HOUSE]})
    rank = fields.Integer(required=True, metadata={"description": "its rank in the match (1 best)"})
    before = fields.Dict(metadata={"description": "{mu, sigma} before the match (when it was rated)"})
    after = fields.Dict(metadata={"description": "{mu, sigma} after it (when it was rated)"})


class RatingVoid(Schema):
    at = fields.String(required=True)
    by = fields.String(required=True)
    reason = fields.String(required=True)


class MatchRating(Schema):
    match = fields.String(required=True)
    ladder = fields.String(required=True)
    at = fields.String(required=True, metadata={"description": "when the match ended (UTC)"})
    rated = fields.Boolean(required=True, metadata={"description": "whether its result moves ratings now"})
    reason = fields.String(required=True, allow_none=True, metadata={
        "description": "why it was not rated: first_moves_missing (a seat never moved) or repeat_pairing (two of its "
                       "accounts had 3 results rated together that day); null when it was rated"})
    seats = fields.List(fields.Nested(RatedSeat), required=True)
    voided = fields.Nested(RatingVoid, required=True, allow_none=True, metadata={
        "description": "the operator's void of its rating, when it was voided"})


class RatingVoided(Schema):
    match = fields.String(required=True)
    ladder = fields.String(required=True)
    players = fields.List(fields.String(), required=True, metadata={
        "description": "the players whose standing the void changed (recomputed as if the match had never been "
                       "rated)"})


class RatingsRebuilt(Schema):
    ladders = fields.Integer(required=True, metadata={"description": "ladders rebuilt"})
    matches = fields.Integer(required=True, metadata={"description": "rated matches recomputed"})
    differences = fields.List(fields.String(), required=True, metadata={
        "description": "the matches whose recomputed rating differs from the one their ladder recorded (none unless "
                       "the rules of rating changed)"})
