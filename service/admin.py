"""What the operator may do through the API with the ADMIN_KEY (docs/operations.md): abort a match, disable or
enable an account, see and re-enqueue the bot turns the workers have not played, void a match's rating and rebuild
the ratings from the logs (docs/ladder.md). Each action is logged with
who asked and why; an abort is also in the match's own log, where the audit replays it."""
import hmac
import logging

from domain import seeks
from service.accounts import AccountService
from service.errors import Forbidden, NotFound, Unauthorized
from service.ladders import LadderService
from service.matches import MatchService
from service.ports import BotScheduler
from service.seeks import SeekService

log = logging.getLogger("cardroom.admin")


class AdminService:
    def __init__(self, matches: MatchService, accounts: AccountService, bots: BotScheduler, admin_key: str | None,
                 stall_after: float, give_up_after: float, ladders: LadderService | None = None,
                 seeks: SeekService | None = None):
        """`admin_key`: None turns every admin action off (404 admin_disabled); `stall_after`, `give_up_after`:
        the janitor's bounds on an awaited bot turn (STALL_AFTER, BOT_TURN_EXPIRY); `ladders`: rated play's;
        `seeks`: the seek pools, whose seeks of a disabled account are canceled."""
        self._matches = matches
        self._accounts = accounts
        self._bots = bots
        self._key = admin_key
        self._stall_after = stall_after
        self._give_up_after = give_up_after
        self._ladders = ladders
        self._seeks = seeks

    def authorize(self, credential: str | None) -> None:
        if not self._key:
            raise NotFound("admin_disabled", "this server has no ADMIN_KEY: the admin endpoints are off")
        if credential is None:
            raise Unauthorized("key_required", "send the ADMIN_KEY as 'Authorization: Bearer <key>'")
        if not hmac.compare_digest(credential.encode(), self._key.encode()):
            raise Forbidden("not_admin", "this is not the ADMIN_KEY")

    def abort_match(self, credential: str | None, match_id: str, reason: str, by: str) -> dict:
        self.authorize(credential)
        aborted = self._matches.abort(match_id, reason)
        log.warning("admin %s aborted match %s: %s", by, match_id, reason)
        return aborted

    def disable_account(self, credential: str | None, reference: str, reason: str, by: str) -> dict:
        """The account's key is refused from now on, its open seeks are canceled, and it leaves every match it holds
        or is invited to. Disabled first, then its matches read: a pairing pass that seats it meanwhile reads the
        account after noting its match, so one of the two takes it out (service/seeks.py)."""
        self.authorize(credential)
        account = self._accounts.set_disabled(reference, reason)
        canceled = self._seeks.withdraw(account["id"], seeks.DISABLED) if self._seeks else []
        withdrawn = self._matches.withdraw(account["id"])
        log.warning("admin %s disabled account %s (%s), withdrawn from %d matches, %d seeks canceled: %s", by,
                    account["id"], account["name"], len(withdrawn), len(canceled), reason)
        return {**account, "withdrawn_from": withdrawn, "seeks_canceled": canceled}

    def enable_account(self, credential: str | None, reference: str, reason: str, by: str) -> dict:
        self.authorize(credential)
        account = self._accounts.set_disabled(reference, None)
        log.warning("admin %s enabled account %s (%s): %s", by, account["id"], account["name"], reason)
        return {**account, "withdrawn_from": [], "seeks_canceled": []}

    def stuck_bot_turns(self, credential: str | None) -> dict:
        """The bot turns awaited longer than STALL_AFTER: the janitor re-enqueues those whose job is gone."""
        self.authorize(credential)
        return {"bot_turns": [{"match": m, "seat": seat, "version": version} for m, seat, version in
                              self._matches.stalled_bot_turns(self._stall_after, self._give_up_after)]}

    def requeue_bot_turns(self, credential: str | None, reason: str, by: str) -> dict:
        """Enqueues every stuck bot turn again (a job that ran already submits at its version, so the turn is
        played once however often it is enqueued)."""
        stuck = self.stuck_bot_turns(credential)
        for turn in stuck["bot_turns"]:
            self._bots.requeue(turn["match"], turn["seat"], turn["version"])
        log.warning("admin %s re-enqueued %d bot turns: %s", by, len(stuck["bot_turns"]), reason)
        return stuck

    def rebuild_ratings(self, credential: str | None, reason: str, by: str) -> dict:
        """Every rating recomputed from the matches' logs, and the leaderboards replaced with them."""
        rebuilt = self._ladders_of(credential).rebuild()
        log.warning("admin %s rebuilt the ratings (%d ladders, %d matches, %d differences): %s", by,
                    rebuilt["ladders"], rebuilt["matches"], len(rebuilt["differences"]), reason)
        return rebuilt

    def void_rating(self, credential: str | None, match_id: str, reason: str, by: str) -> dict:
        """A rated match's rating taken back, in its ladder's log, and the ladder's standings recomputed without it."""
        voided = self._ladders_of(credential).void(match_id, by, reason)
        log.warning("admin %s voided the rating of match %s on %s (%d players restated): %s", by, match_id,
                    voided["ladder"], len(voided["players"]), reason)
        return voided

    def _ladders_of(self, credential: str | None) -> LadderService:
        self.authorize(credential)
        if self._ladders is None:
            raise NotFound("ladders_disabled", "this server keeps no ladders")
        return self._ladders
