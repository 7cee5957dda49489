"""Matches: create, join, read, move, and the log."""
from flask.views import MethodView
from flask_smorest import Blueprint

from api.context import idempotency_key, seat_token, service
from api.schemas import (Audit, CreateMatch, Events, Export, EventsQuery, JoinMatch, Joined, LegalMoves, Match, MatchPage,
                         MatchQuery, Moved, MoveRequest, StateQuery, Steps)

matches = Blueprint("matches", __name__, url_prefix="/v1/matches",
                    description="Matches: seats, moves and the event log. Send a seat token as "
                                "'Authorization: Bearer <token>' to act and to see what that seat sees.")
SEAT_TOKEN = [{"seatToken": []}, {}]


@matches.route("")
class MatchList(MethodView):
    @matches.arguments(MatchQuery, location="query")
    @matches.response(200, MatchPage)
    def get(self, query):
        """Matches, newest first, filtered by game and status; pass next_cursor to get the next page."""
        return service().list_matches(query.get("game"), query.get("status"), query.get("cursor"), query["limit"])

    @matches.arguments(CreateMatch)
    @matches.response(201, Match)
    def post(self, body):
        """Create a match. The answer carries one secret token per human seat: it is shown only once."""
        return service().create(body["game"], body["options"], body["seats"], body.get("seed"))


@matches.route("/<match_id>")
class MatchDetail(MethodView):
    @matches.response(200, Match)
    @matches.doc(security=SEAT_TOKEN)
    def get(self, match_id):
        """The match as the caller may see it: a seat's view with its token, the spectator view without."""
        return service().get(match_id, seat_token())


@matches.route("/<match_id>/join")
class MatchJoin(MethodView):
    @matches.arguments(JoinMatch)
    @matches.response(201, Joined)
    def post(self, body, match_id):
        """Take the first open seat; the deal happens when the last one is filled."""
        return service().join(match_id, body["name"])


@matches.route("/<match_id>/legal-moves")
class MatchLegalMoves(MethodView):
    @matches.response(200, LegalMoves)
    @matches.doc(security=[{"seatToken": []}])
    def get(self, match_id):
        """The moves the caller's seat may make now (empty when it is not to act)."""
        return service().legal_moves(match_id, seat_token())


@matches.route("/<match_id>/moves")
class MatchMoves(MethodView):
    @matches.arguments(MoveRequest)
    @matches.response(201, Moved)
    @matches.doc(security=[{"seatToken": []}], parameters=[{
        "in": "header", "name": "Idempotency-Key", "required": False, "schema": {"type": "string"},
        "description": "a retried request with the same key returns the first answer and appends nothing"}])
    def post(self, body, match_id):
        """Make a move at the version you last saw: 409 if the match has moved on, 422 if the rules refuse it."""
        return service().move(match_id, seat_token(), body["move"], body["expected_version"], idempotency_key())

    @matches.response(200, Steps)
    def get(self, match_id):
        """Every move so far, in order: the steps to replay a match by (with GET .../state?version=)."""
        return service().moves(match_id)


@matches.route("/<match_id>/events")
class MatchEvents(MethodView):
    @matches.arguments(EventsQuery, location="query")
    @matches.response(200, Events)
    @matches.doc(security=SEAT_TOKEN)
    def get(self, query, match_id):
        """The log after version `after`, redacted for the caller while the match goes on; all of it at the end."""
        return service().events(match_id, seat_token(), query["after"])


@matches.route("/<match_id>/state")
class MatchState(MethodView):
    @matches.arguments(StateQuery, location="query")
    @matches.response(200, Match)
    @matches.doc(security=SEAT_TOKEN)
    def get(self, query, match_id):
        """The caller's view of the match as it was at `version` (time travel). Once the match is finished,
        `seat` gives any seat's view and `full=true` adds the full state."""
        return service().state_at(match_id, seat_token(), query["version"], query.get("seat"), query["full"])


@matches.route("/<match_id>/export")
class MatchExport(MethodView):
    @matches.response(200, Export)
    @matches.doc(security=SEAT_TOKEN)
    def get(self, match_id):
        """Everything `cardroom verify` needs, in one document: complete after the end, your redaction before."""
        return service().export(match_id, seat_token())


@matches.route("/<match_id>/audit")
class MatchAudit(MethodView):
    @matches.response(200, Audit)
    def get(self, match_id):
        """The server runs the offline verifier on the stored log (before the end with its secret seed)."""
        return service().audit(match_id)
