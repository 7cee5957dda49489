"""Accounts: a name, a kind (human or bot), an API key that acts for the account's seats, and who may invite it.

The key is 256 random bits shown once; only its SHA-256 is stored. A slow hash (bcrypt, argon2) protects
passwords people choose, which can be guessed; nobody can guess 256 random bits, so a fast hash loses no
safety, costs microseconds on every request instead of ~100 ms, and lets the store find the account by
the hash in one lookup.
"""
import hashlib
import json
import re
import secrets
import uuid

from domain.clock import millis
from domain.lifecycle import SeatSpec
from eventstore.accounts import FULL, TOO_MANY_SEEKS, AccountStore
from eventstore.clock import utc_now
from service.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable

KINDS = ("human", "bot")
KEY_PREFIX = "crk_"  # tells an account key from a seat token at a glance (and to secret scanners)
# 2 to 30 letters, digits, '_', '-', '.', starting with a letter or digit: never 32 characters, so a name
# cannot be taken for an id (32 hex digits) where either is accepted
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,29}$")
ID_PATTERN = re.compile(r"^[0-9a-f]{32}$")
# Who may seat the account by naming it (docs/challenges.md): nobody; anyone, the account then accepting or
# declining each invitation; anyone, accepted at once ("auto", as a bot on a ladder wants); or a list of
# accounts, whose invitations the account accepts or declines.
NOBODY, ANYONE, AUTO = "nobody", "anyone", "auto"
DEFAULT_CHALLENGES = ANYONE  # nobody is seated without its consent, and nobody is cut off from invitations
MAX_CHALLENGERS = 100
# How many matches an `auto` account is seated in unasked at once until it sets its own auto_accept_max: past it,
# invitations wait for its answer, so strangers cannot take the room its own matches and seeks need.
DEFAULT_AUTO_ACCEPT_MAX = 10
# A match noted open whose creation never appeared (its process died between the two) stops holding room this
# long after it was noted: a creation takes milliseconds, and no append waits on anything near this.
UNBORN_AFTER_MS = 60_000


def key_required() -> Unauthorized:
    return Unauthorized("key_required", "send your account's API key as 'Authorization: Bearer <key>'")


def key_hash(credential: str) -> str:
    return hashlib.sha256(credential.encode()).hexdigest()


class AccountService:
    def __init__(self, accounts: AccountStore, clock=utc_now, max_open_matches: int = 100, memo=lambda: None):
        """`max_open_matches`: matches not finished an account may hold a seat in, so that one client
        cannot fill the store with matches nobody finishes. `memo()`: a dict that lives as long as the
        caller's request (None outside one), so a request's key is looked up once however many of its steps
        ask (the rate limiter, the ETag, the command: two Redis round trips each)."""
        self._accounts = accounts
        self._clock = clock
        self._memo = memo
        self.max_open_matches = max_open_matches

    def register(self, name: str, kind: str) -> dict:
        if not NAME_PATTERN.match(name):
            raise Unprocessable("invalid_name", "a name is 2 to 30 letters, digits, '_', '-' or '.', starting "
                                                "with a letter or a digit")
        if kind not in KINDS:
            raise Unprocessable("invalid_kind", f"an account's kind is one of {', '.join(KINDS)}")
        key = _new_key()
        account = {"id": uuid.uuid4().hex, "name": name, "kind": kind, "created_at": self._clock(),
                   "key": key_hash(key)}
        if not self._accounts.create(account):
            raise Conflict("name_taken", f"the name {name!r} is taken (names are unique in any case)")
        return {**public(account), "api_key": key}

    def me(self, credential: str | None) -> dict:
        return public(self.authenticate(credential))

    def rotate_key(self, credential: str | None) -> dict:
        """A new key for the account; the one sent stops working at once."""
        account = self.authenticate(credential)
        key = _new_key()
        replaced = self._accounts.replace_key(account["id"], account["key"], key_hash(key))
        (self._memo() or {}).pop(account["key"], None)
        if not replaced:
            raise Unauthorized("key_rejected", "this key was rotated meanwhile")
        return {**public(account), "api_key": key}

    def authenticate(self, credential: str | None) -> dict:
        """The account whose key this is (the stored record, key hash included)."""
        if credential is None:
            raise key_required()
        account = self.by_credential(credential)
        if account is None:
            raise Unauthorized("key_rejected", "this is not the current key of any account")
        return account

    def by_credential(self, credential: str) -> dict | None:
        """The account whose current key this is; None for anything else (a seat token, say). A disabled
        account's key is refused (403 account_disabled)."""
        if not credential.startswith(KEY_PREFIX):
            return None
        hashed, memo = key_hash(credential), self._memo()
        if memo is None:
            account = self._accounts.by_key(hashed)
        else:
            if hashed not in memo:
                memo[hashed] = self._accounts.by_key(hashed)
            account = memo[hashed]
        if account and account.get("disabled"):
            raise Forbidden("account_disabled", "this account is disabled by the operator")
        return account

    def set_disabled(self, reference: str, reason: str | None) -> dict:
        """Disables the account (its key is refused from now on), with the operator's `reason`; None enables it."""
        account = self.resolve(reference)
        self._accounts.set_field(account["id"], "disabled", reason or "")
        return {**public(account), "disabled": reason}

    def disabled(self, account_ids: set[str]) -> set[str]:
        """Those of these accounts the operator disabled (or gone), read afresh."""
        return {account_id for account_id in account_ids
                if (account := self._accounts.get(account_id)) is None or account.get("disabled")}

    def set_auto_accept_max(self, credential: str | None, most) -> dict:
        """Sets how many matches the account is seated in unasked at once when its challenges are `auto`."""
        account = self.authenticate(credential)
        if not isinstance(most, int) or isinstance(most, bool) or not 0 <= most <= self.max_open_matches:
            raise Unprocessable("invalid_auto_accept_max", f"auto_accept_max is a whole number from 0 to "
                                                           f"{self.max_open_matches} (MAX_OPEN_MATCHES)")
        self._accounts.set_field(account["id"], "auto_accept_max", str(most))
        (self._memo() or {}).pop(account["key"], None)
        return public({**account, "auto_accept_max": str(most)})

    def set_challenges(self, credential: str | None, policy) -> dict:
        """Sets who may invite the caller's account: NOBODY, ANYONE, AUTO or a list of accounts (ids or names)."""
        account = self.authenticate(credential)
        if isinstance(policy, list):
            if len(policy) > MAX_CHALLENGERS:
                raise Unprocessable("too_many_challengers", f"list {MAX_CHALLENGERS} accounts at most")
            policy = sorted({self._resolve_challenger(reference) for reference in policy})
        elif policy not in (NOBODY, ANYONE, AUTO):
            raise Unprocessable("invalid_challenges", f"challenges is {NOBODY!r}, {ANYONE!r}, {AUTO!r} or a list "
                                                      "of the accounts that may invite you")
        self._accounts.set_field(account["id"], "challenges", json.dumps(policy))
        (self._memo() or {}).pop(account["key"], None)
        return public({**account, "challenges": json.dumps(policy)})

    def _resolve_challenger(self, reference) -> str:
        if not isinstance(reference, str):
            raise Unprocessable("invalid_challenges", "each account in challenges is an id or a name")
        try:
            return self.resolve(reference)["id"]
        except NotFound as missing:
            raise Unprocessable(missing.reason, missing.message) from None

    def resolve(self, reference: str) -> dict:
        """An account by id or by name (in any case)."""
        account_id = reference if ID_PATTERN.match(reference) else self._accounts.id_by_name(reference)
        account = self._accounts.get(account_id) if account_id else None
        if account is None:
            raise NotFound("account_not_found", f"no account {reference!r}")
        return account

    def note_match(self, account_id: str, match_id: str, how: str, seek: str = "", auto_max: int = 0) -> str:
        """Notes the match for the account, counted in its room as `how` says (eventstore/accounts.py: INVITED,
        SEATED, AUTO with the account's `auto_max`, PAIRED with its `seek`): what it was noted as. 409
        too_many_open_matches when SEATED finds no room."""
        noted = self._accounts.note_match(account_id, match_id, how, self._now(), self.max_open_matches, auto_max,
                                          seek)
        if noted == FULL:
            raise self._no_room()
        return noted

    def hold_seek(self, account_id: str, seek_id: str, lasts_ms: int, most: int) -> None:
        """Holds room for the seek's match for `lasts_ms` at most (released or taken by its match before that):
        409 too_many_seeks past `most` open seeks, too_many_open_matches when there is no room."""
        now = self._now()
        held = self._accounts.hold_seek(account_id, seek_id, now + lasts_ms, now, self.max_open_matches, most)
        if held == TOO_MANY_SEEKS:
            raise Conflict("too_many_seeks", f"an account holds {most} open seeks at most: cancel one, or wait for "
                                             "one to pair or expire")
        if held == FULL:
            raise self._no_room()

    def _no_room(self) -> Conflict:
        return Conflict("too_many_open_matches", f"an account may be seated in {self.max_open_matches} unfinished "
                                                 "matches at most, each open seek holding room for one: finish or "
                                                 "cancel some first")

    def release_seeks(self, account_id: str, seek_ids: list[str]) -> None:
        self._accounts.release_seeks(account_id, seek_ids)

    def unborn(self, account_id: str, match_ids: list[str]) -> list[str]:
        """Those of these open matches (none of which is created yet) noted long enough ago that their creation
        will never come: a creation whose process died after noting it."""
        oldest = self._now() - UNBORN_AFTER_MS
        return [m for m, at in zip(match_ids, self._accounts.opened_at(account_id, match_ids)) if at is None or
                at < oldest]

    def _now(self) -> int:
        return millis(self._clock())

    def invitation_ids(self, account_id: str) -> list[str]:
        """The matches (and "t:<id>" tournaments) inviting the account, noted and not closed since."""
        return self._accounts.invitations(account_id)

    def note_invitation(self, account_id: str, tournament_ref: str) -> None:
        """A tournament inviting the account: listed among its invitations, never among its matches."""
        self._accounts.note_invitation(account_id, tournament_ref)

    def forget_invitation(self, account_id: str, ref: str) -> None:
        self._accounts.close_matches(account_id, [ref])

    def noted(self, account_id: str) -> int:
        """How many matches the account was ever seated in (noted before the seating): the newest's position."""
        return self._accounts.noted(account_id)

    def open_match_ids(self, account_id: str) -> list[str]:
        return self._accounts.open_matches(account_id)

    def close_matches(self, account_id: str, match_ids: list[str]) -> None:
        self._accounts.close_matches(account_id, match_ids)

    def match_ids(self, account_id: str, before: int | None, limit: int) -> list[tuple[int, str]]:
        return self._accounts.matches(account_id, before, limit)


def public(account: dict) -> dict:
    return {"id": account["id"], "name": account["name"], "kind": account["kind"],
            "created_at": account["created_at"], "challenges": challenges(account),
            "auto_accept_max": auto_accept_max(account)}


def auto_accept_max(account: dict) -> int:
    """How many matches the account is seated in unasked at once when its challenges are `auto`."""
    return int(account.get("auto_accept_max") or DEFAULT_AUTO_ACCEPT_MAX)


def challenges(account: dict):
    """The account's policy for invitations (DEFAULT_CHALLENGES until it sets one)."""
    return json.loads(account["challenges"]) if account.get("challenges") else DEFAULT_CHALLENGES


def named_by(account: dict, owner: dict | None) -> SeatSpec:
    """The seat or entry {name, account, invited?} of `account` named in a match or tournament that `owner` (the
    caller's account, None without a key) creates: its own account is seated; another is invited, or seated at
    once, or refused, as that account's policy says; naming one without a key is refused."""
    named: SeatSpec = {"name": account["name"], "account": account["id"]}
    if owner and owner["id"] == account["id"]:
        return named
    if owner is None:
        raise Unauthorized("key_required", "to name another account, send your own account's key: the account is "
                                           "invited (docs/challenges.md)")
    policy = challenges(account)
    if policy == AUTO:
        return named
    if policy == ANYONE or (isinstance(policy, list) and owner["id"] in policy):
        return {**named, "invited": True}
    raise Forbidden("challenge_refused", f"{account['name']} accepts no invitation from you")


def _new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)
