"""What every view needs: the services and the caller's bearer credential (a seat token or an account key)."""
import re

from flask import current_app, g, has_app_context, request

from service.accounts import AccountService
from service.errors import ServiceError, Unauthorized
from service.matches import MatchService, token_required

MEMO = "cardroom_memo"  # in flask.g
MAX_IDEMPOTENCY_KEY = 200
# visible ASCII only: HTTP trims spaces around a header value and may not carry other characters as sent
IDEMPOTENCY_KEY_PATTERN = re.compile(f"^[!-~]{{1,{MAX_IDEMPOTENCY_KEY}}}$")


def service() -> MatchService:
    return current_app.extensions["cardroom.service"]


def accounts() -> AccountService:
    return current_app.extensions["cardroom.accounts"]


def request_memo() -> dict | None:
    """What the services may remember for the length of the current request (None outside one)."""
    return g.setdefault(MEMO, {}) if has_app_context() else None


def forget_request_memo() -> None:
    """For a request that lasts (the play socket): what it remembered serving one message is not the next's."""
    g.pop(MEMO, None)


def credential(required: bool = False) -> str | None:
    """The bearer credential: a seat token or an account key (the service tells them apart); `required`
    refuses its absence at once (before other headers are looked at)."""
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise token_required()
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("token_malformed", "use 'Authorization: Bearer <seat token or account key>'")
    return token.strip()


def idempotency_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not IDEMPOTENCY_KEY_PATTERN.match(key):
        raise ServiceError("invalid_idempotency_key",
                           f"an Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY} visible ASCII characters")
    return key


def vary_on_authorization(response):
    """What a read shows depends on the caller's credential (a seat token or an account key): a cache must not
    hand one caller's answer to another. Registered after the requests of every blueprint that reads by caller."""
    response.vary.add("Authorization")
    return response
