"""GET /v1/accounts/me/stream: the account's turn feed as Server-Sent Events or NDJSON (docs/bot-api.md)."""
from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from api.context import credential, vary_on_authorization
from api.etags import Blueprint
from api.schemas.common import LARGEST
from api.schemas.errors import refusals
from api.streams import last_event_id_header, resume_point, stream_content, stream_response
from service.live.feed import AccountFeeds

feed = Blueprint("feed", __name__, url_prefix="/v1/accounts",
                 description="The account's turn feed: its matches as they start and end and every turn it owes "
                             "(docs/bot-api.md).")


VIEW = "view"


class FeedQuery(Schema):
    after = fields.Integer(validate=validate.Range(min=0, max=LARGEST), metadata={
        "description": "resume: the `position` of the last frame you got (the Last-Event-ID header wins over it)"})
    with_ = fields.String(data_key="with", validate=validate.OneOf([VIEW]), metadata={
        "description": "`view`: each your_turn also carries the seat's `view` and `legal_moves`, so a bot needs no "
                       "read a turn"})


feed.after_request(vary_on_authorization)


@feed.route("/me/stream", parameters=[last_event_id_header("position")])
class AccountFeed(MethodView):
    @feed.arguments(FeedQuery, location="query")
    @feed.doc(**refusals({
        400: ["invalid_last_event_id: Last-Event-ID is not a position"],
        401: ["key_required: no account key", "key_rejected: not a current account key (a seat token is none)"],
        403: ["account_disabled"],
        404: ["position_not_found: the feed has not reached the position resumed after"]}))
    @feed.doc(security=[{"accountKey": []}], operationId="streamMyTurns", responses={
        "200": {"description": "First `match_started` for every active match of the account and `your_turn` for "
                               "every turn it owes now, then `synced`. Resumed after a position: every turn it owes "
                               "now and the matches seated in since (with `match_finished` if over), without "
                               "repeating `match_started` of the matches before nor `synced`. Then each "
                               "`match_started`, `your_turn`, `match_finished`, `challenge` and "
                               "`challenge_canceled` as it happens. Every frame carries `position`: resume after "
                               "it. A keep-alive whenever nothing happened for a while.",
                "content": stream_content("FeedFrame", "the position: resume after it")}})
    def get(self, query):
        """Your turns live: Server-Sent Events, or NDJSON with 'Accept: application/x-ndjson'."""
        feeds = account_feeds().open(credential(), resume_point(query), views=query.get("with_") == VIEW)
        return stream_response(feeds, "feed")


def account_feeds() -> AccountFeeds:
    return current_app.extensions["cardroom.feeds"]
