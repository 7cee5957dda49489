"""What every view needs: the service and the caller's seat token."""
from flask import current_app, request

from service.errors import ServiceError, Unauthorized
from service.matches import MatchService

MAX_IDEMPOTENCY_KEY = 200


def service() -> MatchService:
    return current_app.extensions["cardroom.service"]


def seat_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("token_malformed", "use 'Authorization: Bearer <seat token>'")
    return token.strip()


def idempotency_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
        raise ServiceError("invalid_idempotency_key",
                           f"an Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY} characters")
    return key
