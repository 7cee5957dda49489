"""Who sits where before the deal: join an open seat, leave it, accept or decline an invitation
(docs/challenges.md), and an account taken out of its matches by the operator (docs/admin.md)."""
import json
import logging
import secrets

from domain import match
from domain.errors import InvalidSetup
from eventstore.accounts import SEATED
from eventstore.base import VersionConflict
from service.errors import Conflict, NotFound, Unauthorized
from service.matches.callers import account_seat, token_digest
from service.matches.commands import ATTEMPTS, MatchCommands, timed
from service.matches.documents import document
from service.repository import TOURNAMENT, Current

log = logging.getLogger("service.matches")


class Seating(MatchCommands):
    def join(self, match_id: str, name: str | None, credential: str | None = None) -> dict:
        """Take the first open seat: for the account whose key is `credential` (its key then acts for the
        seat), else anonymously under `name` with a new seat token."""
        account = self._caller_account(credential)
        seated_as = name or (account["name"] if account else None)
        if seated_as is None:
            raise Unauthorized("name_or_key_required", "give a name, or join with your account's key")
        token = None if account else secrets.token_urlsafe(24)

        def take_a_seat(current: Current) -> tuple[int, list[dict], str | None]:
            seat, events = match.join(current.state, seated_as, current.meta["seed"],
                                      account["id"] if account else None)
            if account:  # the match exists and has a seat for the account: count it, before the append
                self._take_seat(account["id"], match_id, SEATED)
            return seat, events, token and token_digest(token)

        seat, state = self._change_seats(match_id, take_a_seat, "joining")
        return {"seat": seat, "match": document(match_id, state, seat), **({"token": token} if token else {})}

    def accept(self, match_id: str, credential: str | None) -> dict:
        """The invited account takes its seat (docs/challenges.md); the deal follows once no seat is awaited.
        Counts against the account's open matches from now. A retry after it accepted answers the same."""
        account = self._require_accounts().authenticate(credential)

        def take_the_seat(current: Current) -> tuple[int, list[dict], None]:
            seat = self._invited_seat(current, account)
            events = match.accept(current.state, seat, current.meta["seed"])
            self._take_seat(account["id"], match_id, SEATED)
            return seat, events, None

        current = self._load(match_id)
        seat = self._invited_seat(current, account)
        if current.state["status"] != match.FINISHED and not current.state["seats"][seat].get("invited"):
            if not self._accepted(match_id, seat):  # the inviter's own seat, or one seated at once
                raise Conflict("not_invited", "your seat in this match was never an invitation: it is yours already")
            return document(match_id, current.state, seat)
        seat, state = self._change_seats(match_id, take_the_seat, "accepting")
        return document(match_id, state, seat)

    def _accepted(self, match_id: str, seat: int) -> bool:
        """The seat was invited and accepted (read from the log: only a retried acceptance asks)."""
        return any(event["type"] == "seat_accepted" and event["data"]["seat"] == seat
                   for event in self._store.read(match_id))

    def decline(self, match_id: str, credential: str | None) -> dict:
        """The invited account refuses its seat: the match is canceled. A retry after it declined answers the same."""
        account = self._require_accounts().authenticate(credential)

        def refuse_the_seat(current: Current) -> tuple[int, list[dict], None]:
            seat = self._invited_seat(current, account)
            return seat, match.decline(current.state, seat, current.meta["seed"], current.meta["salt"]), None

        current = self._load(match_id)
        seat = self._invited_seat(current, account)
        if (current.state["result"] or {}).get("canceled", {}).get("reason") == match.DECLINED \
                and seat in current.state["result"]["canceled"]["seats"]:
            return document(match_id, current.state, seat)
        seat, state = self._change_seats(match_id, refuse_the_seat, "declining")
        self._require_accounts().close_matches(account["id"], [match_id])
        return document(match_id, state, seat)

    def leave(self, match_id: str, credential: str | None) -> dict:
        """Give the caller's seat up before the deal: it opens again (a seat token stops working) and the match
        leaves the account's open matches."""
        def give_up_the_seat(current: Current) -> tuple[int, list[dict], None]:
            seat = self._seat(current.meta, credential, required=True)
            return seat, match.leave(current.state, seat), None

        _, state = self._change_seats(match_id, give_up_the_seat, "leaving")
        return document(match_id, state, None)

    def withdraw(self, account_id: str) -> list[str]:
        """Takes an account out of every match it holds or is invited to (a disabled account): resigns its seats
        in running matches, where the greedy bot plays them on (docs/clocks.md), gives up its seats not dealt
        yet and declines its invitations. The matches it changed."""
        changed = []
        accounts = self._require_accounts()
        for match_id in accounts.open_match_ids(account_id) + accounts.invitation_ids(account_id):
            try:
                if not match_id.startswith(TOURNAMENT) and self._withdraw_from(match_id, account_id):
                    changed.append(match_id)
            except (NotFound, Conflict) as missed:  # gone, or changing under us: the account's key is refused anyway
                log.warning("account %s not withdrawn from match %s: %s", account_id, match_id, missed.message)
        return changed

    def _withdraw_from(self, match_id: str, account_id: str) -> bool:
        current = self._load(match_id)
        seat, state = account_seat(current.meta, account_id), current.state
        if seat is None or state["status"] == match.FINISHED or match.seat_out(state, seat):
            return False
        if state["status"] == match.ACTIVE:
            self._resign(match_id, lambda _: seat)
        elif state["seats"][seat].get("invited"):
            self._change_seats(match_id, lambda now: (seat, match.decline(now.state, seat, now.meta["seed"],
                                                                          now.meta["salt"]), None), "declining")
        else:
            self._change_seats(match_id, lambda now: (seat, match.leave(now.state, seat), None), "leaving")
        return True

    def _change_seats(self, match_id: str, change, doing: str) -> tuple[int, dict]:
        """Appends what `change(current)` decides, (seat, events, the seat's new token hash or None), and
        returns the seat and the new state; looks again when another join or leave got in first."""
        for _ in range(ATTEMPTS):
            current = self._load(match_id)
            try:
                seat, events, token_hash = change(current)
            except InvalidSetup as refused:  # the match's state is in the way, not the request
                raise Conflict(refused.reason, refused.message) from None
            hashes = json.loads(current.meta["tokens"])
            hashes[seat] = token_hash
            now = self._stamp()
            state = match.evolve_all(current.state, timed(events, now))
            try:
                self._append(match_id, current, events, state, now, {"tokens": json.dumps(hashes)})
            except VersionConflict:
                continue
            return seat, state
        raise Conflict("busy", f"the match kept changing while {doing}; try again")
