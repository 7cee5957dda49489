"""Request and response schemas of /v1/tournaments. The domain checks the spec's rules (domain/tournament.py:
formats, table sizes against the game's player range, bots, the match cap); these check its shape, and the
document states the rules too (tournament_rules)."""
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.schemas.common import LARGEST, MAX_SEATS, NAME
from api.schemas.matches import ClockSpec
from api.schemas.new_match import equals, game_terms, when
from domain.games import GAMES
from domain.tournament import DUPLICATE, FINISHED, FORMATS, RUNNING, SWISS, WAITING

MAX_ENTRANTS = 1000
TABLE_SIZE = 2
# the rules a spec's schema cannot state (they compare items, ask another resource or a setting), by their 422 reason
UNSTATED_TOURNAMENT_RULES = {
    "entrant_twice": "one account entered twice (by its id and by its name alike)",
    "account_not_found": "an account entrant that is no account",
    "duplicate_with_accounts": "a duplicate tournament's account entrant other than your own (the key's)",
    "too_many_matches": "more matches than MAX_TOURNAMENT_MATCHES"}


class EntrantSpec(Schema):
    bot = fields.String(validate=validate.Length(min=1, max=40),
                        metadata={"description": "a bot kind from GET /v1/bots"})
    bot_options = fields.Dict(keys=fields.String(), metadata={"description": "the bot's options (GET /v1/bots)"})
    name = fields.String(validate=NAME, metadata={"description": "a bot entrant's label (default: '<bot> #<n>')"})
    account = fields.String(validate=validate.Length(min=1, max=40), metadata={
        "description": "an account's id or name: it owns a seat in each of its matches (its feed shows its turns)"})

    @validates_schema
    def one_kind(self, data, **kwargs):
        if bool(data.get("bot")) == bool(data.get("account")):
            raise ValidationError("an entrant is {bot, bot_options?, name?} or {account}")
        if data.get("account") and ("name" in data or "bot_options" in data):
            raise ValidationError("an account entrant takes the account's name and has no bot_options")


class CreateTournament(Schema):
    name = fields.String(validate=validate.Length(min=1, max=80))
    game = fields.String(required=True, validate=validate.Length(min=1, max=40), metadata={"enum": list(GAMES)})
    options = fields.Dict(keys=fields.String(), load_default=dict, metadata={"description": "the game's options"})
    format = fields.String(required=True, validate=validate.OneOf(FORMATS), metadata={
        "description": "round_robin: every entrant meets every other, seats rotated; swiss: `rounds` rounds of "
                       "similar scores, no pair twice while avoidable, fair byes; duplicate: `deals` deals, "
                       "each played once per seat rotation of all the entrants with the same cards"})
    entrants = fields.List(fields.Nested(EntrantSpec), required=True,
                           validate=validate.Length(min=2, max=MAX_ENTRANTS))
    table_size = fields.Integer(load_default=TABLE_SIZE, strict=True, validate=validate.Range(min=1, max=MAX_SEATS),
                                metadata={"description": "seats per match (the game's player range applies); "
                                                         "duplicate: the number of entrants"})
    rounds = fields.Integer(strict=True, validate=validate.Range(min=1, max=1000), metadata={"description": "swiss"})
    deals = fields.Integer(strict=True, validate=validate.Range(min=1, max=100000),
                           metadata={"description": "duplicate"})
    max_parallel = fields.Integer(load_default=8, strict=True, validate=validate.Range(min=1, max=1000),
                                  metadata={"description": "matches in play at once"})
    clock = fields.Nested(ClockSpec, allow_none=True, metadata={
        "description": "the turn clock of every match (docs/clocks.md): a deadline per move for account entrants; "
                       "built-in bots are never on the clock"})


def tournament_rules() -> dict:
    """What CreateTournament's fields cannot say alone: each game's options and table sizes, a swiss tournament's
    rounds, a duplicate one's deals, and tables no larger than the entrants (in duplicate, exactly all of them)."""
    return {"allOf": [game_terms("table_size"),  # in allOf: a top-level oneOf reads as a union to a generator
                      when(equals("format", SWISS), {"description": "swiss: rounds", "required": ["rounds"]}),
                      when(equals("format", DUPLICATE), {"description": "duplicate: deals", "required": ["deals"]}),
                      {"description": "at least as many entrants as a table's seats; in duplicate, as many",
                       "anyOf": [_tables(size) for size in range(1, MAX_SEATS + 1)]}]}


def _tables(size: int) -> dict:
    """Tables of `size` (left out: of TABLE_SIZE): at least `size` entrants, exactly `size` in duplicate."""
    return {**({} if size == TABLE_SIZE else {"required": ["table_size"]}),
            "properties": {"table_size": {"enum": [size]}, "entrants": {"minItems": size}},
            **when(equals("format", DUPLICATE), {"properties": {"entrants": {"maxItems": size}}})}


class TournamentQuery(Schema):
    game = fields.String(validate=validate.OneOf(list(GAMES)))
    cursor = fields.Integer(validate=validate.Range(min=1, max=LARGEST),
                            metadata={"description": "next_cursor of the last page"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class Progress(Schema):
    done = fields.Integer(required=True)
    total = fields.Integer(required=True)


class TournamentSummary(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True)
    format = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": [WAITING, RUNNING, FINISHED], "description":
                           "waiting: an invited account has not accepted its entry yet (docs/challenges.md)"})
    created_at = fields.String(required=True)
    progress = fields.Nested(Progress, required=True)


class TournamentPage(Schema):
    tournaments = fields.List(fields.Nested(TournamentSummary), required=True)
    next_cursor = fields.Integer(allow_none=True, required=True)


class Tournament(TournamentSummary):
    options = fields.Dict(required=True)
    version = fields.Integer(required=True)
    entrants = fields.List(fields.Dict(), required=True, metadata={
        "description": "{name, bot, bot_options?, account?, invited?}: invited, an account that has not accepted yet"})
    canceled = fields.Dict(allow_none=True, required=True, metadata={
        "description": "{reason: declined | expired, entrants}: canceled before any match, or null"})
    invited_until = fields.String(allow_none=True, required=True, metadata={
        "description": "when the pending entries expire and the tournament is canceled (UTC), or null"})
    table_size = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    deals = fields.Integer(required=True)
    max_parallel = fields.Integer(required=True)
    clock = fields.Dict(allow_none=True)
    eta_seconds = fields.Float(allow_none=True, required=True,
                               metadata={"description": "time left at the pace so far; null before a result"})
    commitment = fields.String(required=True, metadata={"description": "SHA-256 of '<salt>:<seed>'"})
    deal_commitments = fields.List(fields.String(), required=True,
                                   metadata={"description": "duplicate: SHA-256 of '<salt>:<deal seed>' per deal"})
    seed = fields.String(allow_none=True, required=True, metadata={"description": "revealed at the end"})
    salt = fields.String(allow_none=True, required=True, metadata={"description": "revealed at the end"})
    pairings = fields.List(fields.Dict(), required=True, metadata={
        "description": "each round: {round, byes, tables: [{table, entrants (per seat), deal, match, result}]}"})


class Rating(Schema):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma"})
    low = fields.Float(required=True, metadata={"description": "mu - 1.96 sigma"})
    high = fields.Float(required=True, metadata={"description": "mu + 1.96 sigma"})


class StandingRow(Schema):
    entrant = fields.Integer(required=True)
    name = fields.String(required=True)
    bot = fields.String(allow_none=True, required=True)
    account = fields.String(allow_none=True, required=True)
    matches = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    points = fields.Float(required=True)
    share = fields.Float(allow_none=True, required=True)
    share_low = fields.Float(required=True, metadata={"description": "95% interval of the win share"})
    share_high = fields.Float(required=True)
    rating = fields.Nested(Rating, required=True)


class HeadToHead(Schema):
    a = fields.Integer(required=True)
    b = fields.Integer(required=True)
    a_above = fields.Integer(required=True)
    b_above = fields.Integer(required=True)
    level = fields.Integer(required=True)


class Standings(Schema):
    entrants = fields.List(fields.Nested(StandingRow), required=True)
    head_to_head = fields.List(fields.Nested(HeadToHead), required=True)


class TournamentExport(Schema):
    format = fields.String(required=True)
    tournament_id = fields.String(required=True)
    complete = fields.Boolean(required=True)
    exported_at = fields.String(required=True)
    events = fields.List(fields.Dict(), required=True)
    matches = fields.List(fields.Dict(), required=True)
