"""Tournaments: create one, list them, follow one (progress, standings, live stream), export it for
`cardroom verify`, and its ratings chart (docs/tournaments.md)."""
from flask import Response, current_app
from flask.views import MethodView

from api.chart import ratings_svg
from api.context import credential
from api.etags import Blueprint
from api.matches import links
from api.schemas.common import StreamQuery
from api.schemas.new_match import unstated
from api.schemas.tournaments import (UNSTATED_TOURNAMENT_RULES, CreateTournament, Standings, Tournament,
                                     TournamentExport, TournamentPage, TournamentQuery)
from api.streams import NDJSON, SSE, resume_point, sse_body, stream_response
from service.live.streams import TournamentStreams
from service.tournaments import TournamentService

tournaments = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments",
                        description="Tournaments of built-in bots and accounts: round robin, Swiss and duplicate "
                                    "deals, run by the workers, with standings, ratings and an offline audit.")
CREATED = {"tournament_id": "$response.body#/id"}
EXAMPLE = {"game": "mantis", "format": "duplicate", "deals": 30, "table_size": 2,
           "entrants": [{"bot": "random"}, {"bot": "greedy"}]}


def tournament_service() -> TournamentService:
    return current_app.extensions["cardroom.tournaments"]


def streams() -> TournamentStreams:
    return current_app.extensions["cardroom.tournament_streams"]


@tournaments.route("")
class TournamentList(MethodView):
    @tournaments.arguments(TournamentQuery, location="query")
    @tournaments.response(200, TournamentPage)
    @tournaments.doc(operationId="listTournaments")
    def get(self, query):
        """Tournaments, newest first; pass next_cursor to get the next page."""
        return tournament_service().list_tournaments(query.get("game"), query.get("cursor"), query["limit"])

    @tournaments.arguments(CreateTournament, example=EXAMPLE)
    @tournaments.response(201, Tournament)
    @tournaments.doc(operationId="createTournament", description=unstated(UNSTATED_TOURNAMENT_RULES),
                     **links(201, tournament=("getTournament", CREATED), standings=("getStandings", CREATED)))
    def post(self, body):
        """Create a tournament: it runs by itself in the workers. 422 with a reason for a spec that cannot run
        (unknown game or bot, table_size outside the game's players, too many matches, ...). Entering another
        account than your key's invites it: the tournament waits for its acceptance (docs/challenges.md)."""
        return tournament_service().create(body, credential())


@tournaments.route("/<tournament_id>")
class TournamentDetail(MethodView):
    @tournaments.response(200, Tournament)
    @tournaments.doc(operationId="getTournament")
    def get(self, tournament_id):
        """The tournament: progress (matches done / total), ETA, every round's pairings and results."""
        return tournament_service().get(tournament_id)


@tournaments.route("/<tournament_id>/accept")
class TournamentAccept(MethodView):
    @tournaments.response(200, Tournament)
    @tournaments.doc(security=[{"accountKey": []}], operationId="acceptTournamentEntry")
    def post(self, tournament_id):
        """Accept your account's entry; the tournament starts once no entry is pending (409 not_invited if none is)."""
        return tournament_service().accept(tournament_id, credential(required=True))


@tournaments.route("/<tournament_id>/decline")
class TournamentDecline(MethodView):
    @tournaments.response(200, Tournament)
    @tournaments.doc(security=[{"accountKey": []}], operationId="declineTournamentEntry")
    def post(self, tournament_id):
        """Decline your account's entry: the tournament is canceled before any match."""
        return tournament_service().decline(tournament_id, credential(required=True))


@tournaments.route("/<tournament_id>/standings")
class TournamentStandings(MethodView):
    @tournaments.response(200, Standings)
    @tournaments.doc(operationId="getStandings")
    def get(self, tournament_id):
        """Per entrant: points, win share with its 95% interval, openskill rating; and head-to-head."""
        return tournament_service().standings(tournament_id)


@tournaments.route("/<tournament_id>/export")
class TournamentExportRoute(MethodView):
    @tournaments.response(200, TournamentExport)
    @tournaments.doc(operationId="exportTournament")
    def get(self, tournament_id):
        """The tournament's log and every match's export: `cardroom verify FILE` checks all of it offline."""
        return tournament_service().export(tournament_id)


@tournaments.route("/<tournament_id>/chart.svg")
class TournamentChart(MethodView):
    @tournaments.doc(operationId="getRatingsChart", responses={"200": {
        "description": "the ratings with their 95% intervals", "content": {"image/svg+xml": {"schema": {
            "type": "string"}}}}})
    def get(self, tournament_id):
        """The entrants' ratings with their 95% intervals, as an SVG picture."""
        document = tournament_service().get(tournament_id)
        rows = tournament_service().standings(tournament_id)["entrants"]
        rows.sort(key=lambda row: -row["rating"]["mu"])
        return Response(ratings_svg(document["name"], rows), mimetype="image/svg+xml")


@tournaments.route("/<tournament_id>/stream")
class TournamentStream(MethodView):
    @tournaments.arguments(StreamQuery, location="query")
    @tournaments.doc(operationId="streamTournament", responses={"200": {
        "description": "Every event of the tournament's log after the version resumed from, each run followed by "
                       "the tournament document (type `tournament`); without a resume point the document comes "
                       "first. It ends after tournament_finished.",
        "content": {NDJSON: {"schema": {"type": "object"}},
                    SSE: sse_body("frame (the tournament document or an event)", "the version")}}})
    def get(self, query, tournament_id):
        """The tournament live: Server-Sent Events, or NDJSON with 'Accept: application/x-ndjson'."""
        return stream_response(streams().open(tournament_id, resume_point(query)), "stream")
