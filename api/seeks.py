"""Seeks (matchmaking): put your account in a game's pool, read or cancel your seek (docs/ladder.md, "Seeks")."""
from flask import current_app
from flask.views import MethodView

from api.context import credential, vary_on_authorization
from api.etags import Blueprint
from api.matches import links
from api.schemas.seeks import CreateSeek, Seek, SeekList
from service.seeks import SeekService

seek_routes = Blueprint("seeks", __name__, url_prefix="/v1",
                        description="Seeks: an account asks for a match; the workers pair compatible seeks (oldest "
                                    "first, ratings close), start the match and announce it on each account's feed "
                                    "(match_started).")
ACCOUNT_KEY: list[dict[str, list[str]]] = [{"accountKey": []}]
CREATED = {"seek_id": "$response.body#/id"}
EXAMPLE = {"game": "mantis", "players": 2, "clock": {"move_ms": 30000}, "rated": True, "rating_range": 5,
           "bot_after": 60}

seek_routes.after_request(vary_on_authorization)


def seeks() -> SeekService:
    return current_app.extensions["cardroom.seeks"]


@seek_routes.route("/seeks")
class SeekPool(MethodView):
    @seek_routes.arguments(CreateSeek, example=EXAMPLE)
    @seek_routes.response(201, Seek)
    @seek_routes.doc(security=ACCOUNT_KEY, operationId="createSeek", **links(201, seek=("getSeek", CREATED)))
    def post(self, body):
        """Seek a match: 201 with the seek, open until it is paired, canceled or expires (SEEK_EXPIRY). 422 with the
        game's or the clock's reason for terms that cannot make a match; 409 too_many_seeks past MAX_OPEN_SEEKS,
        409 too_many_open_matches when your open matches and seeks fill MAX_OPEN_MATCHES."""
        return seeks().open(credential(), body)


@seek_routes.route("/seeks/<seek_id>")
class SeekDetail(MethodView):
    @seek_routes.response(200, Seek)
    @seek_routes.doc(operationId="getSeek")
    def get(self, seek_id):
        """The seek: open, paired (with its match and your seat), canceled or expired. A closed seek is forgotten
        10 minutes after it closed (its match stays in your matches and on your feed)."""
        return seeks().get(seek_id)

    @seek_routes.response(200, Seek)
    @seek_routes.doc(security=ACCOUNT_KEY, operationId="cancelSeek")
    def delete(self, seek_id):
        """Cancel your open seek (403 not_your_seek for another's; 409 seek_paired or seek_expired once closed;
        canceling again answers the same)."""
        return seeks().cancel(seek_id, credential())


@seek_routes.route("/accounts/me/seeks")
class MySeeks(MethodView):
    @seek_routes.response(200, SeekList)
    @seek_routes.doc(security=ACCOUNT_KEY, operationId="listMySeeks")
    def get(self):
        """Your open seeks, every game."""
        return seeks().mine(credential())
