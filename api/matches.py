"""Matches: create, join, read, move, and the log."""
from flask import url_for
from flask.views import MethodView

from api import examples
from api.context import IDEMPOTENCY_KEY_PATTERN, idempotency_key, credential, service, vary_on_authorization
from api.etags import Blueprint
from api.schemas import new_match
from api.schemas.audit import Audit, Export
from api.schemas.errors import refusals
from api.schemas.matches import (CreateMatch, Events, EventsQuery, Invite, JoinMatch, Joined, LegalMoves, Match,
                                 MatchPage, MatchQuery, MoveRequest, Moved, StateQuery, Steps)

matches = Blueprint("matches", __name__, url_prefix="/v1/matches",
                    description="Matches: seats, moves and the event log. Send a seat's token in the header "
                                "'Authorization: Bearer TOKEN' to act and to see what that seat sees.")
SEAT_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}, {}]
THIS_MATCH = {"match_id": "$request.path.match_id"}
CREATED_MATCH = {"match_id": "$response.body#/id"}
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": False,
                   "schema": {"type": "string", "pattern": IDEMPOTENCY_KEY_PATTERN.pattern},
                   "description": "a retried request with the same key returns the first answer and appends nothing"}


NOT_FOUND = "match_not_found"
TOKEN_REJECTED = "token_rejected: the token or key is no seat's of this match"
RATE_LIMITED = "rate_limited: past LIMIT_{} for your account or address"
IN_THE_WAY = "busy: the match kept changing; try again"
READ = {403: [TOKEN_REJECTED], 404: [NOT_FOUND]}  # a read for the caller's seat
SEAT = {401: ["token_required: send the seat's token or the account's key"], 403: [TOKEN_REJECTED],
        404: [NOT_FOUND]}  # an action of the caller's seat
INVITED = {401: ["key_required", "key_rejected"], 403: ["not_invited: the account has no invitation pending here"],
           404: [NOT_FOUND]}


def links(status: int, **found: tuple[str, dict]) -> dict:
    """OpenAPI links of a response: name -> (the operationId it leads to, that operation's parameters)."""
    return {"responses": {status: {"links": {name: {"operationId": operation, "parameters": parameters}
                                             for name, (operation, parameters) in found.items()}}}}


matches.after_request(vary_on_authorization)


def tag_read(match_id: str, by_seat: bool = True, seat_required: bool = False) -> None:
    """The ETag of this read: the match's version, head and (for seat-dependent reads) the caller's seat."""
    matches.set_etag(service().tag(match_id, credential() if by_seat else None, seat_required))


@matches.route("")
class MatchList(MethodView):
    @matches.arguments(MatchQuery, location="query")
    @matches.response(200, MatchPage)
    @matches.doc(operationId="listMatches")
    def get(self, query):
        """Matches, newest first, filtered by game and status; pass next_cursor to get the next page."""
        return service().list_matches(query.get("game"), query.get("status"), query.get("cursor"), query["limit"])

    @matches.arguments(CreateMatch, example=examples.CREATE_MATCH)
    @matches.response(201, Match, example=examples.CREATED)
    @matches.doc(**refusals({
        401: ["key_rejected: not a current account key"],
        403: ["account_disabled", "challenge_refused: an account seated does not take challenges from you"],
        404: ["account_not_found"],
        409: ["too_many_open_matches: an account seated holds MAX_OPEN_MATCHES unfinished matches"],
        429: [RATE_LIMITED.format("CREATE"), "rate_limited: past LIMIT_CHALLENGES, inviting other accounts"]}))
    @matches.doc(security=SEAT_TOKEN, operationId="createMatch", requestBody=new_match.REQUEST_BODY,
                 description=new_match.unstated(new_match.UNSTATED_MATCH_RULES), **links(
        201, match=("getMatch", CREATED_MATCH), join=("joinMatch", CREATED_MATCH),
        legal_moves=("getLegalMoves", CREATED_MATCH)))
    def post(self, body):
        """Create a match. The answer carries one secret token per human seat: it is shown only once."""
        return service().create(body["game"], body["options"], body["seats"], body.get("seed"), credential(),
                                body.get("clock"), rated=body["rated"])


@matches.route("/<match_id>")
class MatchDetail(MethodView):
    @matches.etag
    @matches.response(200, Match, example=examples.MATCH, dump=False)
    @matches.doc(**refusals(READ))
    @matches.doc(security=SEAT_TOKEN, operationId="getMatch")
    def get(self, match_id):
        """The match as the caller may see it: a seat's view with its token, the spectator view without.
        Send the ETag back as If-None-Match to get 304 while nothing has happened."""
        tag, answer = service().tagged_get(match_id, credential())
        matches.set_etag(tag)
        return answer()


@matches.route("/<match_id>/join")
class MatchJoin(MethodView):
    @matches.arguments(JoinMatch)
    @matches.response(201, Joined)
    @matches.doc(**refusals({
        401: ["name_or_key_required: send a name, or join with an account key"],
        404: [NOT_FOUND],
        409: ["match_not_waiting: no seat is open", "account_already_seated",
              "too_many_open_matches: the account holds MAX_OPEN_MATCHES unfinished matches", IN_THE_WAY],
        429: [RATE_LIMITED.format("JOIN")]}))
    @matches.doc(security=SEAT_TOKEN, operationId="joinMatch", **links(201, match=("getMatch", THIS_MATCH),
                                                   legal_moves=("getLegalMoves", THIS_MATCH)))
    def post(self, body, match_id):
        """Take the first open seat (409 when none is left); the deal happens when the last one is filled.
        With an account key the seat is the account's (no seat token: the key acts for it)."""
        return service().join(match_id, body.get("name"), credential())


@matches.route("/<match_id>/accept")
class MatchAccept(MethodView):
    @matches.response(200, Match)
    @matches.doc(**refusals(INVITED))
    @matches.doc(security=[{"accountKey": []}], operationId="acceptChallenge",
                 **links(200, legal_moves=("getLegalMoves", THIS_MATCH)))
    def post(self, match_id):
        """Accept the invitation of your account to this match (docs/challenges.md): the seat is yours and counts
        among your open matches; the deal follows once no seat is awaited. 409 not_invited if it was not pending."""
        return service().accept(match_id, credential(required=True))


@matches.route("/<match_id>/decline")
class MatchDecline(MethodView):
    @matches.response(200, Match)
    @matches.doc(**refusals(INVITED))
    @matches.doc(security=[{"accountKey": []}], operationId="declineChallenge")
    def post(self, match_id):
        """Decline the invitation of your account to this match: the match is canceled (no cards were dealt)."""
        return service().decline(match_id, credential(required=True))


@matches.route("/<match_id>/rematch")
class MatchRematch(MethodView):
    @matches.response(201, Match)
    @matches.alt_response(200, schema=Match, description="the rematch asked for before (by any seat), as it is; your "
                                                         "seat, if it was still invited, accepted it")
    @matches.doc(security=[{"accountKey": []}], operationId="rematchMatch",
                 **links(201, match=("getMatch", CREATED_MATCH), invite=("getInvite", CREATED_MATCH)))
    def post(self, match_id):
        """Ask for this finished match's rematch with your account's key (docs/challenges.md): 201 with the new match,
        the same game, options, clock and rated flag, every seat one on, your seat taken, the other accounts invited
        (`rematch_of` names this match, whose `rematch` names it). One rematch per match: asking again, or another
        seat asking, answers it (200). 409 match_not_finished, match_not_played, tournament_match; 403 not_a_seat,
        account_required (a seat token's seat has no account)."""
        rematch, created = service().rematch(match_id, credential())
        return rematch, 201 if created else 200


@matches.route("/<match_id>/invite")
class MatchInvite(MethodView):
    @matches.response(200, Invite)
    @matches.doc(operationId="getInvite", **links(200, join=("joinMatch", THIS_MATCH)))
    def get(self, match_id):
        """A link to share that invites anyone to the match's open seats: the viewer's page of the match, which
        offers to take a seat (anonymously, or with an account key). 409 no_open_seats when none is open."""
        invite = service().invite(match_id)
        return {"url": url_for("viewer.match_page", match_id=match_id, join=1, _external=True), **invite}


@matches.route("/<match_id>/leave")
class MatchLeave(MethodView):
    @matches.response(200, Match)
    @matches.doc(**refusals({**SEAT, 409: ["match_started: the deal is done (resign instead)", IN_THE_WAY]}))
    @matches.doc(security=[{"seatToken": []}], operationId="leaveMatch")
    def post(self, match_id):
        """Give your seat up before the match starts (409 match_started after the deal): it is open again and
        your seat token stops working. Answers the match as a spectator sees it."""
        return service().leave(match_id, credential(required=True))


@matches.route("/<match_id>/resign")
class MatchResign(MethodView):
    @matches.response(200, Match)
    @matches.doc(**refusals({**SEAT, 409: ["match_finished", "match_not_started: leave instead", IN_THE_WAY]}))
    @matches.doc(security=[{"seatToken": []}], operationId="resignMatch")
    def post(self, match_id):
        """Resign: your seat is out and cannot win; with one seat left in it wins, else the others play on
        and the greedy bot plays your seat (docs/clocks.md). A retry answers the same; 409 match_finished
        when the match is over, match_not_started before the deal (leave instead)."""
        return service().resign(match_id, credential(required=True))


@matches.route("/<match_id>/legal-moves")
class MatchLegalMoves(MethodView):
    @matches.etag
    @matches.response(200, LegalMoves, example=examples.LEGAL_MOVES)
    @matches.doc(**refusals(SEAT))
    @matches.doc(security=[{"seatToken": []}], operationId="getLegalMoves",
                 **links(200, move=("makeMove", THIS_MATCH)))
    def get(self, match_id):
        """The moves the caller's seat may make now (empty when it is not to act)."""
        tag_read(match_id, seat_required=True)
        return service().legal_moves(match_id, credential())


@matches.route("/<match_id>/moves")
class MatchMoves(MethodView):
    @matches.arguments(MoveRequest, example=examples.MOVE)
    @matches.response(201, Moved, example=examples.MOVED, dump=False)
    @matches.doc(**refusals({**SEAT,
        409: ["version_conflict: the match is not at expected_version (current_version says where it is); with "
              "an Idempotency-Key already used for this move, the first answer comes instead"],
        429: [RATE_LIMITED.format("MOVES")]}))
    @matches.doc(security=[{"seatToken": []}], operationId="makeMove", parameters=[IDEMPOTENCY_KEY], **links(
        201, match=("getMatch", THIS_MATCH),
        events=("getEvents", {**THIS_MATCH, "after": "$request.body#/expected_version"})))
    def post(self, body, match_id):
        """Make a move at the version you last saw: 409 if the match has moved on, 422 if the rules refuse it."""
        return service().move(match_id, credential(required=True), body["move"], body["expected_version"],
                              idempotency_key())

    @matches.etag
    @matches.response(200, Steps)
    @matches.doc(**refusals({404: [NOT_FOUND]}))
    @matches.doc(operationId="listMoves")
    def get(self, match_id):
        """Every move so far, in order: the steps to replay a match by. Each step names the version it was
        made `at` and the `version` after it: GET .../state?version=<version> shows the move's effect."""
        tag_read(match_id, by_seat=False)
        return service().moves(match_id)


@matches.route("/<match_id>/events")
class MatchEvents(MethodView):
    @matches.etag
    @matches.arguments(EventsQuery, location="query")
    @matches.response(200, Events)
    @matches.doc(**refusals(READ))
    @matches.doc(security=SEAT_TOKEN, operationId="getEvents",
                 **links(200, next_page=("getEvents", {**THIS_MATCH, "after": "$response.body#/next_after"})))
    def get(self, query, match_id):
        """The log after version `after`, at most `limit` events (`next_after` pages on), redacted for the
        caller while the match goes on; all of it at the end."""
        tag_read(match_id)
        return service().events(match_id, credential(), query["after"], query["limit"])


@matches.route("/<match_id>/state")
class MatchState(MethodView):
    @matches.etag
    @matches.arguments(StateQuery, location="query")
    @matches.response(200, Match)
    @matches.doc(**refusals({**READ, 404: [NOT_FOUND, "version_not_found"]}))
    @matches.doc(security=SEAT_TOKEN, operationId="getState")
    def get(self, query, match_id):
        """The caller's view of the match as it was at `version` (time travel). Once the match is finished,
        `seat` gives any seat's view and `full=true` adds the full state."""
        tag_read(match_id)
        return service().state_at(match_id, credential(), query["version"], query.get("seat"), query["full"])


@matches.route("/<match_id>/export")
class MatchExport(MethodView):
    @matches.response(200, Export)
    @matches.doc(**refusals(READ))
    @matches.doc(security=SEAT_TOKEN, operationId="exportMatch")
    def get(self, match_id):
        """Everything `cardroom verify` needs, in one document: complete after the end, your redaction before."""
        return service().export(match_id, credential())


@matches.route("/<match_id>/audit")
class MatchAudit(MethodView):
    @matches.etag
    @matches.response(200, Audit)
    @matches.doc(**refusals({404: [NOT_FOUND]}))
    @matches.doc(operationId="auditMatch")
    def get(self, match_id):
        """The server runs the offline verifier on the stored log (before the end with its secret seed)."""
        tag_read(match_id, by_seat=False)
        return service().audit(match_id)
