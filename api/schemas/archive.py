"""The query of the streams of finished matches' exports (api/archive.py)."""
from marshmallow import Schema, fields, validate

from domain.games import GAMES
from service.matches.exports import MOST_PER_REQUEST

# the operations of the streams of exports, and the rules their query's schema cannot state, by their 422 reasons
EXPORT_OPERATIONS = ("exportFinishedMatches", "exportAccountMatches", "exportTournamentMatches")
UNSTATED_EXPORT_RULES = {"after_not_listed": "an `after` that names no finished match of the stream",
                         "empty_interval": "an `until` that is not after `since`"}


class ExportsQuery(Schema):
    game = fields.String(validate=validate.Length(min=1, max=40), metadata={"enum": list(GAMES)})
    rated = fields.Boolean(metadata={"description": "only the rated matches (true) or only the others (false)"})
    since = fields.AwareDateTime(format="iso", metadata={
        "description": "only the matches finished at this time or later (RFC 3339, with its offset)"})
    until = fields.AwareDateTime(format="iso", metadata={
        "description": "only the matches finished before this time (RFC 3339, with its offset)"})
    after = fields.String(validate=validate.Length(min=1, max=100), metadata={
        "description": "resume: the matches after this one (the `match_id` of the last line received)"})
    limit = fields.Integer(load_default=MOST_PER_REQUEST, validate=validate.Range(min=1, max=MOST_PER_REQUEST),
                           metadata={"description": f"at most this many matches (default and most "
                                                    f"{MOST_PER_REQUEST})"})
