"""GET /v1/accounts/me/stream: the account's turn feed as Server-Sent Events or NDJSON (docs/bot-api.md)."""
from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from api.context import credential, vary_on_authorization
from api.etags import Blueprint
from api.schemas.common import LARGEST
from api.streams import NDJSON, SSE, SSE_EVENT, VERSION_DIGITS, resume_point, stream_response
from service.live.feed import AccountFeeds

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
        return stream_response(account_feeds().open(credential(), resume_point(query)), "feed")


def account_feeds() -> AccountFeeds:
    return current_app.extensions["cardroom.feeds"]
