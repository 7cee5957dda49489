"""Accounts: a name, a kind (human or bot) and an API key that acts for the account's seats.

The key is 256 random bits shown once; only its SHA-256 is stored. A slow hash (bcrypt, argon2) protects
passwords people choose, which can be guessed; nobody can guess 256 random bits, so a fast hash loses no
safety, costs microseconds on every request instead of ~100 ms, and lets the store find the account by
the hash in one lookup.
"""
import hashlib
import re
import secrets
import uuid

from eventstore.accounts import AccountStore
from eventstore.clock import utc_now
from service.errors import Conflict, NotFound, Unauthorized, Unprocessable

KINDS = ("human", "bot")
KEY_PREFIX = "crk_"  # tells an account key from a seat token at a glance (and to secret scanners)
# 2 to 30 letters, digits, '_', '-', '.', starting with a letter or digit: never 32 characters, so a name
# cannot be taken for an id (32 hex digits) where either is accepted
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,29}$")
ID_PATTERN = re.compile(r"^[0-9a-f]{32}$")


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
        """The account whose current key this is; None for anything else (a seat token, say)."""
        if not credential.startswith(KEY_PREFIX):
            return None
        hashed, memo = key_hash(credential), self._memo()
        if memo is None:
            return self._accounts.by_key(hashed)
        if hashed not in memo:
            memo[hashed] = self._accounts.by_key(hashed)
        return memo[hashed]

    def resolve(self, reference: str) -> dict:
        """An account by id or by name (in any case)."""
        account_id = reference if ID_PATTERN.match(reference) else self._accounts.id_by_name(reference)
        account = self._accounts.get(account_id) if account_id else None
        if account is None:
            raise NotFound("account_not_found", f"no account {reference!r}")
        return account

    def note_match(self, account_id: str, match_id: str) -> None:
        self._accounts.note_match(account_id, match_id)

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
            "created_at": account["created_at"]}


def _new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)
