"""Who calls: the seat a credential (a seat token or an account key) holds, and the accounts a match may seat
(the creator's own, a tournament's entrants, or others by their consent: docs/challenges.md)."""
import hashlib
import hmac
import json
from collections.abc import Sequence
from typing import Literal, overload

from domain import clock, match
from domain.lifecycle import Invitation, SeatSpec
from eventstore.clock import utc_at
from service import log_context
from service.accounts import AccountService, named_by
from service.errors import Conflict, Forbidden, RateLimited, Unauthorized, Unprocessable
from service.matches.base import MatchBase
from service.repository import Current


class Callers(MatchBase):
    @overload
    def _seat(self, meta: dict, credential: str | None, required: Literal[True]) -> int: ...

    @overload
    def _seat(self, meta: dict, credential: str | None, required: bool) -> int | None: ...

    def _seat(self, meta: dict, credential: str | None, required: bool) -> int | None:
        """The caller's seat: the one its seat token opens, or the one its account holds. It goes on the request's
        log lines (only the API knows the match id before the service knows the seat)."""
        if credential is None:
            if required:
                raise token_required()
            return None
        seat = self._seat_of_credential(meta, credential)
        if seat is None:
            raise Forbidden("token_rejected", "this token belongs to no seat of this match")
        log_context.bind_contextvars(seat=seat)
        return seat

    def _seat_of_credential(self, meta: dict, token: str) -> int | None:
        digest = token_digest(token)
        for seat, stored in enumerate(json.loads(meta["tokens"])):
            if stored and hmac.compare_digest(stored, digest):
                return seat
        account = self._accounts.by_credential(token) if self._accounts else None
        return account_seat(meta, account["id"]) if account else None

    def check_room(self, account_id: str, reserved: int = 0) -> None:
        """Refuses one more match to an account that holds `max_open_matches` unfinished ones, counting `reserved`
        matches it may be given without being asked again (its open seeks: service/seeks.py). The open set
        is cleaned here of the matches found finished (or left): it costs one read per open match."""
        accounts = self._require_accounts()
        open_ids = accounts.open_match_ids(account_id)
        metas = self._store.metas(open_ids)
        done = [m for m, meta in zip(open_ids, metas) if meta and "status" in meta
                and (meta["status"] == match.FINISHED or account_seat(meta, account_id) is None)]
        accounts.close_matches(account_id, done)
        if len(open_ids) - len(done) + reserved >= accounts.max_open_matches:
            raise Conflict("too_many_open_matches", f"an account may be seated in {accounts.max_open_matches} "
                                                    "unfinished matches at most: finish some first")

    def _caller_account(self, credential: str | None) -> dict | None:
        return None if credential is None else self._require_accounts().authenticate(credential)

    def _seat_of_account(self, spec: SeatSpec, owner: dict | None, consented: bool) -> SeatSpec:
        """The seat of the account `spec` names: the creator's own, or one that asked for this match (a tournament
        entrant who accepted its entry, a seek paired), is seated; another account is invited or seated as its
        policy says, or refuses."""
        account = self._require_accounts().resolve(spec["account"])
        if consented:
            return {"name": account["name"], "account": account["id"]}
        return named_by(account, owner)

    def invitation(self, owner: dict | None, seats: Sequence[SeatSpec]) -> Invitation | None:
        """Who invites, until when, for a match (or a tournament) seating other accounts than the owner's; takes
        one of the owner's quota of such invitations (auto-accepted seats count too: they are seated unasked)."""
        others = [s for s in seats if s.get("account") and s["account"] != (owner or {}).get("id")]
        if not others or owner is None:  # without an owner, naming another account was refused (named_by)
            return None
        retry_after = self._invitations.take(owner["id"])
        if retry_after is not None:
            raise RateLimited("rate_limited", f"your account sent too many invitations; retry in "
                                              f"{retry_after:.0f} s", retry_after=max(1, round(retry_after)))
        return {"by": {"account": owner["id"], "name": owner["name"]},
                "until": clock.millis(utc_at(self._clock() + self._challenge_expiry))}

    def _invited_seat(self, current: Current, account: dict) -> int:
        seat = account_seat(current.meta, account["id"])
        if seat is None:
            raise Forbidden("not_invited", "your account holds no seat of this match")
        return seat

    def _require_accounts(self) -> AccountService:
        if self._accounts is None:
            raise Unprocessable("accounts_unavailable", "this server keeps no accounts")
        return self._accounts



def token_required() -> Unauthorized:
    return Unauthorized("token_required", "send your seat token as 'Authorization: Bearer <token>'")


def account_seat(meta: dict, account_id: str) -> int | None:
    return next((i for i, s in enumerate(json.loads(meta["seats"])) if s.get("account") == account_id), None)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
