"""The operator's actions, with the ADMIN_KEY as 'Authorization: Bearer <key>' (docs/operations.md): off (404
admin_disabled) when the server has no ADMIN_KEY."""
from flask import current_app
from flask.views import MethodView

from api.context import credential
from api.etags import Blueprint
from api.schemas.admin import AdminAccount, AdminAction, BotTurns
from api.schemas.matches import Match
from api.schemas.ratings import RatingsRebuilt, RatingVoided
from service.admin import AdminService

admin = Blueprint("admin", __name__, url_prefix="/v1/admin",
                  description="The operator's actions, with the ADMIN_KEY. Each names its `reason` (and who asks, "
                              "`by`): both are logged, and an abort is in the match's log.")
ADMIN_KEY: list[dict[str, list[str]]] = [{"adminKey": []}]


def admin_service() -> AdminService:
    return current_app.extensions["cardroom.admin"]


@admin.route("/matches/<match_id>/abort")
class AbortMatch(MethodView):
    @admin.arguments(AdminAction)
    @admin.response(200, Match)
    @admin.doc(security=ADMIN_KEY, operationId="abortMatch")
    def post(self, body, match_id):
        """End a match that has not ended, with no result: `match_aborted {by: operator, reason}` in its log,
        replayed by the audit. 409 match_finished if it is over."""
        return admin_service().abort_match(credential(), match_id, body["reason"], body["by"])


@admin.route("/accounts/<account>/disable")
class DisableAccount(MethodView):
    @admin.arguments(AdminAction)
    @admin.response(200, AdminAccount)
    @admin.doc(security=ADMIN_KEY, operationId="disableAccount")
    def post(self, body, account):
        """Refuse the account's key (403 account_disabled) and take it out of its matches: its seats in running
        matches resign (the greedy bot plays them on), its seats not dealt yet are left, its invitations declined."""
        return admin_service().disable_account(credential(), account, body["reason"], body["by"])


@admin.route("/accounts/<account>/enable")
class EnableAccount(MethodView):
    @admin.arguments(AdminAction)
    @admin.response(200, AdminAccount)
    @admin.doc(security=ADMIN_KEY, operationId="enableAccount")
    def post(self, body, account):
        """Accept the account's key again (the matches it was taken out of stay as they are)."""
        return admin_service().enable_account(credential(), account, body["reason"], body["by"])


@admin.route("/bot-turns")
class StuckBotTurns(MethodView):
    @admin.response(200, BotTurns)
    @admin.doc(security=ADMIN_KEY, operationId="listStuckBotTurns")
    def get(self):
        """The bot turns awaited longer than STALL_AFTER (the janitor re-enqueues those whose job is gone)."""
        return admin_service().stuck_bot_turns(credential())


@admin.route("/bot-turns/requeue")
class RequeueBotTurns(MethodView):
    @admin.arguments(AdminAction)
    @admin.response(200, BotTurns)
    @admin.doc(security=ADMIN_KEY, operationId="requeueStuckBotTurns")
    def post(self, body):
        """Enqueue every stuck bot turn again; each is still played once (its job submits at its version)."""
        return admin_service().requeue_bot_turns(credential(), body["reason"], body["by"])


@admin.route("/ratings/rebuild")
class RebuildRatings(MethodView):
    @admin.arguments(AdminAction)
    @admin.response(200, RatingsRebuilt)
    @admin.doc(security=ADMIN_KEY, operationId="rebuildRatings")
    def post(self, body):
        """Recompute every rating from the logs of the rated matches, in each ladder's order, and replace the
        leaderboards with them (`cardroom ratings rebuild`, docs/ladder.md): repairs a damaged projection."""
        return admin_service().rebuild_ratings(credential(), body["reason"], body["by"])


@admin.route("/ratings/<match_id>/void")
class VoidRating(MethodView):
    @admin.arguments(AdminAction)
    @admin.response(200, RatingVoided)
    @admin.doc(security=ADMIN_KEY, operationId="voidRating")
    def post(self, body, match_id):
        """Take a rated match's rating back (`cardroom admin void-rating`, docs/ladder.md): `rating_voided` in its
        ladder's log, its players' and later players' ratings recomputed as if it had never been rated, the
        leaderboard rebuilt. 404 match_not_found; 409 match_not_rated (it moved no rating), rating_voided (done)."""
        return admin_service().void_rating(credential(), match_id, body["reason"], body["by"])
