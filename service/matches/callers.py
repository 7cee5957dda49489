"""Who calls: the seat a credential (a seat token or an account key) holds, and the accounts a match may seat
(the creator's own, a tournament's entrants, or others by their consent: docs/challenges.md)."""
import hashlib
import hmac
import json
from collections.abc import Sequence
from typing import Literal, overload

from domain import clock, match
from domain.lifecycle import Invitation, SeatSpec
from eventstore.accounts import AUTO, INVITED, PAIRED, SEATED
from eventstore.clock import utc_at
from service import log_context
from service.accounts import AccountService, auto_accept_max, named_by
from service.errors import Forbidden, RateLimited, Unauthorized, Unprocessable
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

    def tidy_room(self, account_id: str) -> None:
        """Frees the room of the account's open matches found finished (or left), and of those whose creation never
        appeared (accounts.unborn), before its room is counted: one read per open match."""
        accounts = self._require_accounts()
        open_ids = accounts.open_match_ids(account_id)
        metas = self._store.metas(open_ids)
        done = [m for m, meta in zip(open_ids, metas) if meta and "status" in meta
                and (meta["status"] == match.FINISHED or account_seat(meta, account_id) is None)]
        unborn = [m for m, meta in zip(open_ids, metas) if not meta or "status" not in meta]
        accounts.close_matches(account_id, done + (accounts.unborn(account_id, unborn) if unborn else []))

    def _take_seat(self, account_id: str, match_id: str, how: str, seek: str = "", auto_max: int = 0) -> str:
        """Notes the match for the account (before the append, as the catalog: a crash leaves it noted, never lost),
        counted in its room as `how` says (AccountService.note_match), its room tidied first."""
        if how != INVITED:
            self.tidy_room(account_id)
        return self._require_accounts().note_match(account_id, match_id, how, seek, auto_max)

    def _take_seats(self, match_id: str, seats: list[SeatSpec], owner: dict | None, consented: bool,
                    paired_seeks: dict[str, str] | None) -> list[SeatSpec]:
        """Notes the match for every account it seats, counted in each one's room: the creator's own seat and a
        consented one (a tournament's, a seek's) only with room; an `auto` account's beyond its auto_accept_max
        (or its room) is an invitation instead. What the seats are then; a refusal frees the room taken (the match is
        still listed among the accounts' matches, never created: listings skip those)."""
        claimed: list[SeatSpec] = []
        try:
            for spec in seats:
                if not spec.get("account"):
                    claimed.append(spec)
                    continue
                how = (INVITED if spec.get("invited") else PAIRED if paired_seeks is not None
                       else SEATED if consented or spec["account"] == (owner or {}).get("id") else AUTO)
                auto_max = auto_accept_max(self._require_accounts().resolve(spec["account"])) if how == AUTO else 0
                noted = self._take_seat(spec["account"], match_id, how, (paired_seeks or {}).get(spec["account"], ""),
                                        auto_max)
                claimed.append({**spec, "invited": True} if noted == INVITED else spec)
        except Exception:
            for spec in claimed:
                if spec.get("account"):
                    self._require_accounts().close_matches(spec["account"], [match_id])
            raise
        return claimed

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
