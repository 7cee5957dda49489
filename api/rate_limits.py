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

Every answer counted carries the caller's standing in the IETF httpapi draft's fields
(draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy` lists the windows of the limit the request counted
against, `RateLimit` the one closest to running out (the fewest requests left; of equals, the longer window). The
counts come from the increments themselves; only that window's reset may cost one more round trip (docs/reliability.md).

A caller once refused is refused from memory until the window it hit resets, without asking the counters: in a
fixed window it stays refused until then anyway. Its 429 is also held back (`hold`, a second, which no Retry-After
is shorter than): a refusal costs about what a 404 does, and connections looping on refusals took the CPU from
everyone else; held, each connection costs one refusal a second, and the gevent worker a sleeping greenlet.
"""
import math
import time
from dataclasses import dataclass, field
from typing import cast

import redis
from flask import Flask, current_app, g, request
from limits import RateLimitItem, parse_many
from limits.storage import Storage, storage_from_string

from api.errors import error_body, json_error

MOVES = "matches.MatchMoves"  # the endpoint the play socket shares its limit with
# endpoints counted in another's windows: a rematch is a match created, the same counter as POST /v1/matches
SHARED_COUNTERS = {"matches.MatchRematch": "matches.MatchList"}
READS = "reads"  # the one counter every read counts against
RATE_LIMIT_HEADERS = ("RateLimit-Policy", "RateLimit")
# Each counter's name in the RateLimit headers and a 429's `policy`, a window's name appended ("moves-minute"); every
# endpoint named here but READS is a POST counted in its own windows (a rematch in the creations')
POLICIES = {"matches.MatchList": "matches", "matches.MatchJoin": "joins", MOVES: "moves",
            "accounts.Accounts": "accounts", "tournaments.TournamentList": "tournaments", "seeks.SeekPool": "seeks",
            READS: "reads"}
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


@dataclass(frozen=True)
class Window:
    """One part of a limit, a fixed window of its counter, and its name in the headers and a 429."""
    policy: str  # e.g. "moves-minute"
    item: RateLimitItem


@dataclass(frozen=True)
class Standing:
    """A caller's counter after a request: the window closest to running out, what is left of it, when it resets."""
    window: Window
    remaining: int
    reset_at: float  # epoch seconds
    refused: bool


def limit_by_caller(app: Flask, limits: RateLimits) -> None:
    """Limits POST on match creation (a rematch counted with it; a tournament's and a seek's apart), join, moves and
    account creation, and reads. No limit: no check at all. The play socket counts its moves in the same windows
    (app.extensions["cardroom.count_move"], when moves are limited)."""
    limited = {endpoint: windows(POLICIES[SHARED_COUNTERS.get(endpoint, endpoint)], parse_many(limit))
               for endpoint, limit in (("matches.MatchList", limits.create), ("matches.MatchJoin", limits.join),
                                       (MOVES, limits.moves), ("accounts.Accounts", limits.accounts),
                                       ("matches.MatchRematch", limits.create),
                                       ("tournaments.TournamentList", limits.create),  # counted apart from matches
                                       ("seeks.SeekPool", limits.create),  # a seek is a match asked for
                                       (READS, limits.reads))
               if limit and (endpoint in app.view_functions or endpoint == READS)}
    if not limited:
        return
    policies = {endpoint: policy_header(parts) for endpoint, parts in limited.items()}
    # a synchronous storage: the URIs this server is given have no "async+" scheme
    storage = cast(Storage, storage_from_string(limits.storage_uri, **limits.storage_options))
    refused_until: dict[tuple[str, str], Standing] = {}

    def count(key: str, whom: str, cost: int = 1) -> Standing:
        """Counts the request against every part of the key's limit (a refused request counts no further)."""
        counter = SHARED_COUNTERS.get(key, key)
        remembered = refused_until.get((counter, whom))
        if remembered and remembered.reset_at > time.time():
            return remembered
        standing = stand(storage, limited[key], counter, whom, cost)
        if standing.refused:
            remember(refused_until, (counter, whom), standing)
        return standing

    def check():
        """before_request: a 429 past any part of the endpoint's limit, or of the reads'; the standing for the
        answer's headers either way."""
        if request.method == "POST" and request.endpoint in limited:
            key, cost = request.endpoint, 1
        elif READS in limited and request.method in ("GET", "HEAD") and not request.path.startswith(UNCOUNTED):
            key, cost = READS, read_cost(request.args.get("limit", ""))
        else:
            return None
        try:
            whom = caller(request.headers.get("Authorization", ""))
            standing = count(key, whom, cost)
        except redis.ConnectionError:
            if key != READS:
                raise  # a write needs Redis anyway: 503 redis_unreachable
            # Redis refused at once: a read goes on, so what needs no Redis (the catalog, the docs) still answers. A
            # Redis that hangs (TimeoutError) answers 503 here: a read let on would wait out a second timeout.
            return None
        g.rate_limit = (policies[key], standing)
        if not standing.refused:
            return None
        time.sleep(limits.hold)  # a greenlet's sleep under gevent (monkey-patched)
        return json_error(*rate_limited(standing, whom))

    def add_headers(response):
        """after_request: every answer counted (whatever its status, a 429 too) says where its caller stands, the
        seconds to the reset counted when it is sent (after a refusal's hold, as its Retry-After)."""
        if "rate_limit" in g:
            policy, standing = g.rate_limit
            response.headers.extend(zip(RATE_LIMIT_HEADERS, (policy, standing_header(standing))))
        return response

    app.before_request(check)
    app.after_request(add_headers)
    if MOVES in limited:
        app.extensions["cardroom.count_move"] = lambda whom: count(MOVES, whom)


def windows(name: str, items: list[RateLimitItem]) -> tuple[Window, ...]:
    """The limit's parts, each named after its counter and its window: "moves-second", "moves-10-seconds"."""
    def span(item: RateLimitItem) -> str:
        unit = item.GRANULARITY.name
        return unit if item.multiples == 1 else f"{item.multiples}-{unit}s"
    return tuple(Window(f"{name}-{span(item)}", item) for item in items)


def stand(storage: Storage, parts: tuple[Window, ...], counter: str, whom: str, cost: int) -> Standing:
    """Counts a request in each window and tells where the caller stands. One round trip a window, as `limits`'
    FixedWindowRateLimiter.hit, whose `incr` this is: hit keeps only whether the count is within the limit, and the
    count is what the headers need. The reset of the window closest to running out is one round trip more, unless
    this request opened that window."""
    counted = []
    for window in parts:
        used = storage.incr(window.item.key_for(counter, whom), window.item.get_expiry(), amount=cost)
        counted.append((window, used))
        if used > window.item.amount:
            break  # refused: the later windows are not counted
    window, used = min(counted, key=lambda part: (part[0].item.amount - part[1], -part[0].item.get_expiry()))
    opened = used == cost  # the window started with this request: it resets a whole window from now
    reset_at = (time.time() + window.item.get_expiry() if opened
                else storage.get_expiry(window.item.key_for(counter, whom)))
    return Standing(window, max(0, window.item.amount - used), reset_at, refused=used > window.item.amount)


def policy_header(parts: tuple[Window, ...]) -> str:
    """RateLimit-Policy: each window's quota (q) and length in seconds (w)."""
    return ", ".join(f'"{window.policy}";q={window.item.amount};w={window.item.get_expiry()}' for window in parts)


def standing_header(standing: Standing) -> str:
    """RateLimit: the window closest to running out, its remaining requests (r) and seconds until it resets (t)."""
    return f'"{standing.window.policy}";r={standing.remaining};t={seconds_until(standing.reset_at)}'


def seconds_until(reset_at: float) -> int:
    return max(1, math.ceil(reset_at - time.time()))


def remember(refused_until: dict, key: tuple[str, str], standing: Standing) -> None:
    if len(refused_until) >= REMEMBERED_REFUSALS:
        refused_until.clear()
    refused_until[key] = standing


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


def rate_limited(standing: Standing, whom: str) -> tuple[dict, list[tuple[str, str]]]:
    """The 429 (body, headers): the limit hit, by its words and its policy's name, and when to retry."""
    retry_after = seconds_until(standing.reset_at)
    kind = "account" if whom.startswith("account:") else "address"
    limit, policy = standing.window.item, standing.window.policy
    return (error_body(429, "rate_limited", f"more than {limit} ({policy}) from your {kind}; retry in {retry_after} s",
                       retry_after=retry_after, limit=str(limit), policy=policy),
            [("Retry-After", str(retry_after))])
