"""Rate limits and quotas per account or client address, by the `limits` library: fixed windows whose counters
live in Redis (the same one as the log, unless configured otherwise), so every gunicorn worker and every machine
counts together. A caller that sends an account's key is counted as that account wherever it connects from (so
a bot farm behind one address, or one bot behind many, gets each account's own limit); every other caller by
its address.

`limits` is the library Flask-Limiter is built on, by the same maintainer. Flask-Limiter itself evaluates every
request twice (its before_request hook, registered whatever the configuration, and the route's decorator) and
resolves limits and exemptions each time, a large share of a move's CPU before any counter is touched
(docs/performance.md). What this server needs of it, a fixed window per endpoint and caller, is one `hit` per
limit part, here.

Reads (every GET but the health checks' and the metrics') share one budget per caller, `reads`: the viewer,
streams and bots read far more often than they write, so it is generous; what it stops is one caller looping on
reads (docs/reliability.md#reads).

A caller once refused is refused from memory until the window it hit resets, without asking the counters: in a
fixed window it stays refused until then anyway. Its 429 is also held back (`hold`, a second, which no Retry-After
is shorter than): a refusal costs about what a 404 does, and connections looping on refusals took the CPU from
everyone else; held, each connection costs one refusal a second, and the gevent worker a sleeping greenlet.
"""
import math
import time
from dataclasses import dataclass, field

import redis
from flask import Flask, current_app, request
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from api.errors import error_body, json_error

MOVES = "matches.MatchMoves"  # the endpoint the play socket shares its limit with
# endpoints counted in another's windows: a rematch is a match created, the same counter as POST /v1/matches
SHARED_COUNTERS = {"matches.MatchRematch": "matches.MatchList"}
READS = "reads"  # the one counter every read counts against
# Not reads: what a load balancer, an orchestrator or Prometheus asks from one address, which must not be refused
UNCOUNTED = ("/health", "/metrics")
# A read asking for a page of `limit` items counts as one read per LIST_PAGE items asked (the listings' default page
# size): a listing of 100 matches cost 9.9 ms of CPU, a match 2.3 ms (docs/reliability.md).
LIST_PAGE = 20
# Seconds a refused request's answer waits: the shortest Retry-After, so a client that honours it loses nothing.
HOLD_REFUSALS = 1.0
# Callers remembered as refused, per process; past it all are forgotten, which only costs the next refusals a Redis
# round trip each (the counters still refuse them).
REMEMBERED_REFUSALS = 10_000


@dataclass(frozen=True)
class RateLimits:
    """Each limit in `limits` notation ("20/second;1000/hour": every part applies); "" = none."""
    storage_uri: str  # e.g. redis://127.0.0.1:6379/0, or memory:// for one process
    create: str
    join: str
    moves: str
    accounts: str = ""  # account creations, always per address (a new account has no key yet)
    reads: str = ""  # every GET but UNCOUNTED's, per account or address
    hold: float = 0.0  # seconds an HTTP 429 waits before it is sent (HOLD_REFUSALS)
    # the storage's client options (its timeouts and retries: a frozen Redis must not hold a request longer
    # here than in the event store)
    storage_options: dict = field(default_factory=dict)


def limit_by_caller(app: Flask, limits: RateLimits) -> None:
    """Limits POST on match creation (a rematch counted with it; a tournament's and a seek's apart), join, moves and
    account creation, and reads. No limit: no check at all. The play socket counts its moves with the same `refusal`
    (app.extensions["cardroom.limits"])."""
    limited = {endpoint: parse_many(limit)
               for endpoint, limit in (("matches.MatchList", limits.create), ("matches.MatchJoin", limits.join),
                                       (MOVES, limits.moves), ("accounts.Accounts", limits.accounts),
                                       ("matches.MatchRematch", limits.create),
                                       ("tournaments.TournamentList", limits.create),  # counted apart from matches
                                       ("seeks.SeekPool", limits.create),  # a seek is a match asked for
                                       (READS, limits.reads))
               if limit and (endpoint in app.view_functions or endpoint == READS)}
    if not limited:
        return
    windows = FixedWindowRateLimiter(storage_from_string(limits.storage_uri, **limits.storage_options))
    refused_until: dict[tuple[str, str], tuple[RateLimitItem, float]] = {}

    def refusal(key: str, whom: str, cost: int = 1) -> tuple[dict, list[tuple[str, str]]] | None:
        """The 429 (body, headers) past any part of the key's limit (a refused request counts no further)."""
        counter = SHARED_COUNTERS.get(key, key)
        remembered = refused_until.get((counter, whom))
        if remembered and remembered[1] > time.time():
            return rate_limited(*remembered, whom)
        for limit in limited.get(key, ()):
            if not windows.hit(limit, counter, whom, cost=cost):
                remember(refused_until, (counter, whom), limit, windows.get_window_stats(limit, counter, whom).reset_time)
                return rate_limited(*refused_until[counter, whom], whom)
        return None

    def check():
        """before_request: a 429 past any part of the endpoint's limit, or of the reads'."""
        if request.method == "POST" and request.endpoint in limited:
            key, cost = request.endpoint, 1
        elif READS in limited and request.method in ("GET", "HEAD") and not request.path.startswith(UNCOUNTED):
            key, cost = READS, read_cost(request.args.get("limit", ""))
        else:
            return None
        try:
            refused = refusal(key, caller(request.headers.get("Authorization", "")), cost)
        except redis.ConnectionError:
            if key != READS:
                raise  # a write needs Redis anyway: 503 redis_unreachable
            # Redis refused at once: a read goes on, so what needs no Redis (the catalog, the docs) still answers. A
            # Redis that hangs (TimeoutError) answers 503 here: a read let on would wait out a second timeout.
            return None
        if not refused:
            return None
        time.sleep(limits.hold)  # a greenlet's sleep under gevent (monkey-patched)
        return json_error(*refused)

    app.before_request(check)
    app.extensions["cardroom.limits"] = refusal


def remember(refused_until: dict, key: tuple[str, str], limit: RateLimitItem, reset_at: float) -> None:
    if len(refused_until) >= REMEMBERED_REFUSALS:
        refused_until.clear()
    refused_until[key] = (limit, reset_at)


def read_cost(limit: str) -> int:
    """The reads a request asking for `limit` items counts as (one with no or a malformed limit: the view refuses
    the malformed)."""
    return max(1, math.ceil(int(limit) / LIST_PAGE)) if limit.isdigit() and len(limit) <= 4 else 1


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
