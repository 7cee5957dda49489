"""Rate limits and quotas per account or client address, by Flask-Limiter: its counters live in Redis (the
same one as the log, unless configured otherwise), so every gunicorn worker and every machine counts
together. A caller that sends an account's key is counted as that account wherever it connects from (so a
bot farm behind one address, or one bot behind many, gets each account's own limit); every other caller
by its address."""
import math
import time
from dataclasses import dataclass

from flask import Flask, current_app, request
from flask_limiter import Limiter, RequestLimit
from flask_limiter.util import get_remote_address

from api.errors import error_response


@dataclass(frozen=True)
class RateLimits:
    """Each limit in `limits` notation ("20/second;1000/hour": every part applies); "" = none."""
    storage_uri: str  # e.g. redis://127.0.0.1:6379/0, or memory:// for one process
    create: str
    join: str
    moves: str
    accounts: str = ""  # account creations, always per address (a new account has no key yet)


def limit_by_caller(app: Flask, limits: RateLimits) -> None:
    """Limits POST on match creation, join, moves and account creation; reads are not limited. No limit: no
    limiter (its check before every request took 3% of a move)."""
    if not (limits.create or limits.join or limits.moves or limits.accounts):
        return
    limiter = Limiter(caller, app=app, storage_uri=limits.storage_uri, on_breach=rate_limited)
    for endpoint, limit in (("matches.MatchList", limits.create), ("matches.MatchJoin", limits.join),
                            ("matches.MatchMoves", limits.moves), ("accounts.Accounts", limits.accounts),
                            ("tournaments.TournamentList", limits.create)):  # counted apart from matches
        if limit and endpoint in app.view_functions:
            app.view_functions[endpoint] = limiter.limit(limit, methods=["POST"])(app.view_functions[endpoint])


def caller() -> str:
    """Whom a request counts against: "account:<id>" for a current account key, else its address."""
    scheme, _, credential = request.headers.get("Authorization", "").partition(" ")
    accounts = current_app.extensions.get("cardroom.accounts")
    account = accounts.by_credential(credential.strip()) if accounts and scheme.lower() == "bearer" else None
    return f"account:{account['id']}" if account else get_remote_address()


def rate_limited(breached: RequestLimit):
    retry_after = max(1, math.ceil(breached.reset_at - time.time()))
    response = error_response(429, "rate_limited", f"more than {breached.limit} from your {_whom()}; "
                                                   f"retry in {retry_after} s", retry_after=retry_after)
    response.headers["Retry-After"] = str(retry_after)
    return response


def _whom() -> str:
    return "account" if caller().startswith("account:") else "address"
