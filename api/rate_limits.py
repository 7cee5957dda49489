"""Rate limits and quotas per account or client address, by the `limits` library: fixed windows whose counters
live in Redis (the same one as the log, unless configured otherwise), so every gunicorn worker and every machine
counts together. A caller that sends an account's key is counted as that account wherever it connects from (so
a bot farm behind one address, or one bot behind many, gets each account's own limit); every other caller by
its address.

`limits` is the library Flask-Limiter is built on, by the same maintainer. Flask-Limiter itself evaluates every
request twice (its before_request hook, registered whatever the configuration, and the route's decorator) and
resolves limits and exemptions each time, a large share of a move's CPU before any counter is touched
(docs/performance.md). What this server needs of it, a fixed window per endpoint and caller, is one `hit` per
limit part, here."""
import math
import time
from dataclasses import dataclass, field

from flask import Flask, current_app, request
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from api.errors import error_body, json_error

MOVES = "matches.MatchMoves"  # the endpoint the play socket shares its limit with
# endpoints counted in another's windows: a rematch is a match created, the same counter as POST /v1/matches
SHARED_COUNTERS = {"matches.MatchRematch": "matches.MatchList"}


@dataclass(frozen=True)
class RateLimits:
    """Each limit in `limits` notation ("20/second;1000/hour": every part applies); "" = none."""
    storage_uri: str  # e.g. redis://127.0.0.1:6379/0, or memory:// for one process
    create: str
    join: str
    moves: str
    accounts: str = ""  # account creations, always per address (a new account has no key yet)
    # the storage's client options (its timeouts and retries: a frozen Redis must not hold a request longer
    # here than in the event store)
    storage_options: dict = field(default_factory=dict)


def limit_by_caller(app: Flask, limits: RateLimits) -> None:
    """Limits POST on match creation (a rematch counted with it; a tournament's and a seek's apart), join, moves and
    account creation; reads are not limited. No limit: no check at all. The play socket counts its moves with the same `refusal` (app.extensions["cardroom.limits"])."""
    limited = {endpoint: parse_many(limit)
               for endpoint, limit in (("matches.MatchList", limits.create), ("matches.MatchJoin", limits.join),
                                       (MOVES, limits.moves), ("accounts.Accounts", limits.accounts),
                                       ("matches.MatchRematch", limits.create),
                                       ("tournaments.TournamentList", limits.create),  # counted apart from matches
                                       ("seeks.SeekPool", limits.create))  # a seek is a match asked for
               if limit and endpoint in app.view_functions}
    if not limited:
        return
    windows = FixedWindowRateLimiter(storage_from_string(limits.storage_uri, **limits.storage_options))

    def refusal(endpoint: str, whom: str) -> tuple[dict, list[tuple[str, str]]] | None:
        """The 429 (body, headers) past any part of the endpoint's limit (a refused request counts no further)."""
        counter = SHARED_COUNTERS.get(endpoint, endpoint)
        for limit in limited.get(endpoint, ()):
            if not windows.hit(limit, counter, whom):
                return rate_limited(limit, windows.get_window_stats(limit, counter, whom).reset_time, whom)
        return None

    def check():
        """before_request: a 429 past any part of the endpoint's limit."""
        if request.method != "POST" or request.endpoint not in limited:
            return None
        refused = refusal(request.endpoint, caller(request.headers.get("Authorization", "")))
        return json_error(*refused) if refused else None

    app.before_request(check)
    app.extensions["cardroom.limits"] = refusal


def caller(authorization: str) -> str:
    """Whom a request counts against: "account:<id>" for a current account key (in an Authorization header's
    form, "Bearer <key>"), else the request's address."""
    scheme, _, credential = authorization.partition(" ")
    accounts = current_app.extensions.get("cardroom.accounts")
    account = accounts.by_credential(credential.strip()) if accounts and scheme.lower() == "bearer" else None
    return f"account:{account['id']}" if account else request.remote_addr or "127.0.0.1"


def rate_limited(limit: RateLimitItem, reset_at: float, whom: str) -> tuple[dict, list[tuple[str, str]]]:
    retry_after = max(1, math.ceil(reset_at - time.time()))
    kind = "account" if whom.startswith("account:") else "address"
    return (error_body(429, "rate_limited", f"more than {limit} from your {kind}; retry in {retry_after} s",
                       retry_after=retry_after), [("Retry-After", str(retry_after))])
