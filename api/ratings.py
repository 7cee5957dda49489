"""Ladders: the leaderboard of each game (docs/ladder.md)."""
from flask import Response, current_app
from flask.views import MethodView

from api.chart import history_svg
from api.etags import Blueprint
from api.schemas.new_match import unstated
from api.schemas.ratings import GAME, UNSTATED_LADDER_RULES, Leaderboard, MatchRating, RatingsQuery
from service.ladders import LadderService

rating_routes = Blueprint("ratings", __name__, url_prefix="/v1/ratings",
                          description="Leaderboards of rated play: one ladder per game, edition and player count, "
                                      "accounts and house bots rated by openskill from their rated matches.")


def ladders() -> LadderService:
    return current_app.extensions["cardroom.ladders"]


@rating_routes.route("/<game>", parameters=[GAME])
class Ratings(MethodView):
    @rating_routes.arguments(RatingsQuery, location="query")
    @rating_routes.response(200, Leaderboard)
    @rating_routes.doc(operationId="getLeaderboard",
                       description=unstated(UNSTATED_LADDER_RULES))
    def get(self, query, game):
        """The game's ladder at `players` players (and `edition`), best first by ordinal (mu - 3 sigma), with each
        player's games, last match and 95% interval; 404 game_not_found for an unknown game, 422 for an edition or
        player count the game does not have. Page with `offset` (next_offset) and `limit`. The provisional players
        (too few rated matches or opponents) are listed apart: `provisional=true` pages them."""
        return ladders().leaderboard(game, query.get("edition"), query["players"], query["offset"], query["limit"],
                                     query["provisional"])


@rating_routes.route("/matches/<match_id>")
class RatingOfMatch(MethodView):
    @rating_routes.response(200, MatchRating)
    @rating_routes.doc(operationId="getMatchRating")
    def get(self, match_id):
        """What its ladder made of a finished rated match: rated, or not rated and why (docs/ladder.md: a seat that
        never moved, a repeat pairing), or voided by the operator. 404 match_not_found; 404 rating_not_found when no
        ladder has decided it (not rated, unfinished, aborted or canceled, or its rating still due)."""
        return ladders().decision(match_id)


@rating_routes.route("/<ladder>/players/<player>/chart.svg")
class RatingChart(MethodView):
    @rating_routes.doc(operationId="getRatingHistoryChart", responses={"200": {
        "description": "the player's rating after each of its last 50 rated matches on the ladder, with its 95% "
                       "interval", "content": {"image/svg+xml": {"schema": {"type": "string"}}}}})
    def get(self, ladder, player):
        """A player's rating history on a ladder (e.g. mantis.classic.2p) as an SVG picture; 404 rating_not_found
        when it has played no rated match there."""
        points = ladders().history(ladder, player)
        return Response(history_svg(f"{points[-1]['name']} on {ladder}", points), mimetype="image/svg+xml")
