"""GET /v1/accounts/me/stream: the account's turn feed as Server-Sent Events or NDJSON (docs/bot-api.md)."""
from flask import Response, current_app, request
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from api.context import credential, vary_on_authorization
from api.etags import Blueprint
from api.schemas import LARGEST
from api.streams import HEADERS, NDJSON, RETRY_MS, SSE, SSE_EVENT, VERSION_DIGITS, last_event_id, ndjson, sse, written
from service.feed import AccountFeeds

feed = Blueprint("feed", __name__, url_prefix="/v1/accounts",
                 description="The account's turn feed: its matches as they start and end and every turn it owes "
                             "(docs/bot-api.md).")


class FeedQuery(Schema):
    after = fields.Integer(validate=validate.Range(min=0, max=LARGEST), metadata={
        "description": "resume: the `position` of the last frame you got (the Last-Event-ID header wins over it)"})


feed.after_request(vary_on_authorization)


@feed.route("/me/stream")
class AccountFeed(MethodView):
    @feed.arguments(FeedQuery, location="query")
    @feed.doc(security=[{"accountKey": []}], operationId="streamMyTurns", parameters=[{
        "in": "header", "name": "Last-Event-ID", "required": False,
        "schema": {"type": "string", "pattern": "^[0-9]*$", "maxLength": VERSION_DIGITS},
        "description": "resume after this position (an SSE client sends it when it reconnects)"}], responses={
        "200": {"description": "First `match_started {match, game, seat}` for every active match of the account and "
                               "`your_turn {match, seat, version}` for every turn it owes now (resumed: also the "
                               "matches seated in since, with `match_finished {match, seat, result}` if over), then "
                               "`synced`; then each `match_started`, `your_turn` and `match_finished` as it "
                               "happens. Every frame carries `position`: resume after it. A keep-alive whenever "
                               "nothing happened for a while.",
                "content": {SSE: {"schema": SSE_EVENT}, NDJSON: {"schema": {"type": "object"}}}}})
    def get(self, query):
        """Your turns live: Server-Sent Events, or NDJSON with 'Accept: application/x-ndjson'."""
        after = last_event_id()
        frames = account_feeds().open(credential(), query.get("after") if after is None else after)
        kind = request.accept_mimetypes.best_match([SSE, NDJSON], default=SSE)
        body = written(frames, sse, "feed", b"retry: %d\n\n" % RETRY_MS) if kind == SSE \
            else written(frames, ndjson, "feed")
        return Response(body, mimetype=kind, headers=HEADERS, direct_passthrough=True)


def account_feeds() -> AccountFeeds:
    return current_app.extensions["cardroom.feeds"]
