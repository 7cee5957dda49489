"""Wiring: the one place that builds Redis and RQ clients and puts the layers together. `build_services` is a
process's composition root: the API (build_app) and each worker take their connections, store and use cases from it,
each built once.

The API's modules (flask, flask-smorest, marshmallow, the schemas) are imported by the functions that build the
app, not here: the workers and the scheduler import this module too, and those imports were 40% of a worker's
(0.29 of 0.73 s of CPU), time during which no worker is at work after a crash (docs/reliability.md)."""
import logging
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry
from rq import Queue

from bootstrap.config import Settings
from bootstrap.outage import UNREACHABLE, RedisOutage
from eventstore.accounts import InMemoryAccountStore, RedisAccountStore
from eventstore.leaderboards import InMemoryLeaderboardStore, RedisLeaderboardStore
from eventstore.memory import InMemoryEventStore
from eventstore.quota import WindowQuota
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import RedisEventStore
from eventstore.transparency import InMemoryTransparencyStore, RedisTransparencyStore
from observability.exposition import Exposition
from observability.metrics import PrometheusMetrics
from service.accounts import AccountService
from service.admin import AdminService
from service.ladders import LadderService
from service.live.feed import AccountFeeds
from service.live.hub import Hub
from service.live.streams import MatchStreams, TournamentStreams
from service.matches import MatchService
from service.ports import NoBots, NoSeekPasses, NoTournaments
from service.seeks import SeekService
from service.signing import Signer
from service.tournaments import TournamentService
from service.transparency import TransparencyService
from workers import readiness
from workers.scheduler import (RqBotScheduler, RqSeekPasses, RqTournamentScheduler, RqTurnTimers,
                               recovered_queue_name, timer_queue_name)

if TYPE_CHECKING:
    from api.rate_limits import RateLimits


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()


def require_redis_url(config: Settings) -> str:
    if not config.redis_url:
        raise RuntimeError("REDIS_URL is not set: start the service with `make run` (which starts an embedded "
                           "Redis) or set REDIS_URL=redis://host:port/0")
    return config.redis_url


def require_rq_redis_url(config: Settings) -> str:
    if not config.rq_redis_url:
        raise RuntimeError("RQ_REDIS_URL is not set: RQ cannot run on Redis Cluster, so with REDIS_CLUSTER_NODES "
                           "give it a plain Redis, RQ_REDIS_URL=redis://host:port/0")
    return config.rq_redis_url


def redis_options(config: Settings) -> dict:
    """One round trip to Redis gives up after REDIS_TIMEOUT: a Redis that hangs (frozen, or a dead host)
    is not retried, as each try would wait the whole timeout again (4 tries made 8.5-9.4 s of a 2 s setting).
    A refused or reset connection fails at once, so it is retried, with pauses of at most 0.4 s (about 1 s
    in all), and a Redis that restarts in between is ridden out."""
    return dict(socket_connect_timeout=config.redis_timeout, socket_timeout=config.redis_timeout,
                retry=Retry(ExponentialWithJitterBackoff(base=0.1, cap=0.4), 3,
                            supported_errors=(redis.ConnectionError,)))


def build_rq_client(config: Settings) -> redis.Redis:
    """A client of RQ's Redis with a connection pool of its own. RQ stores pickled bytes, so it must not decode
    responses."""
    return redis.Redis.from_url(require_rq_redis_url(config), **redis_options(config))


def build_queue(config: Settings) -> Queue:
    return Queue(config.queue, connection=build_rq_client(config))


def build_redis(config: Settings) -> redis.Redis | RedisCluster:
    """The client of the event log and accounts: the cluster at REDIS_CLUSTER_NODES if set, else REDIS_URL's Redis."""
    if config.redis_cluster_nodes:
        return cluster_client_for(",".join(config.redis_cluster_nodes), max_connections=config.redis_connections,
                                  **redis_options(config))
    # redis-py fails at once when its pool's connections are all in use; a gevent worker can have far more
    # requests in flight (a burst of 1,000 streams opening), so they wait their turn for a connection. A
    # healthy Redis frees one within milliseconds; none in REDIS_TIMEOUT means every holder waits on a Redis
    # that does not answer, and the request gets its 503 rather than queueing behind them.
    pool = redis.BlockingConnectionPool.from_url(require_redis_url(config), decode_responses=True,
                                                 max_connections=config.redis_connections,
                                                 timeout=config.redis_timeout, **redis_options(config))
    return redis.Redis(connection_pool=pool)


def cluster_client_for(nodes: str, **options) -> RedisCluster:
    """A RedisCluster client from "host:port,host:port" (any reachable nodes: it learns the others from them).
    Its per-node pools wait for a free connection as build_redis's pool does."""
    startup = [ClusterNode(host, int(port)) for host, port in (node.rsplit(":", 1) for node in nodes.split(","))]
    return RedisCluster(startup_nodes=startup, decode_responses=True, connection_pool_class=redis.BlockingConnectionPool,
                        **options)


def build_event_store(config: Settings, client: redis.Redis | RedisCluster) -> RedisEventStore:
    store = ClusterEventStore if isinstance(client, RedisCluster) else RedisEventStore
    return store(client, wait_replicas=config.redis_wait_replicas, wait_timeout=config.redis_wait_timeout)


def wait_for_redis(client: redis.Redis, outage: RedisOutage, longest_pause: float = 2.0) -> None:
    """Returns once Redis answers, so a worker started (or restarted) during an outage waits instead of
    crashing in a loop that its supervisor would give up on."""
    pause = 0.1
    while True:
        try:
            client.ping()
            outage.back()
            return
        except UNREACHABLE as error:
            outage.lost(error)
            time.sleep(pause)
            pause = min(2 * pause, longest_pause)


def build_timer_queue(bot_queue: Queue) -> Queue:
    return Queue(timer_queue_name(bot_queue.name), connection=bot_queue.connection)


def build_recovered_queue(bot_queue: Queue) -> Queue:
    return Queue(recovered_queue_name(bot_queue.name), connection=bot_queue.connection)


def build_bot_scheduler(config: Settings, bot_queue: Queue | None = None) -> RqBotScheduler:
    return RqBotScheduler(bot_queue or build_queue(config), config.job_result_ttl, config.job_failure_ttl)


def build_invitation_quota(config: Settings) -> WindowQuota:
    return WindowQuota(config.rate_limit_storage or require_rq_redis_url(config), config.limit_challenges,
                       "challenges")


@dataclass(frozen=True)
class Services:
    """The composition root of a process (the API's or a worker's): each connection and store built once, and every
    use case over them."""
    client: redis.Redis | RedisCluster  # the event log's and the accounts' Redis
    bot_queue: Queue                    # RQ's, on its own plain Redis (the timers' and recovered turns' queues beside)
    store: RedisEventStore
    bot_scheduler: RqBotScheduler
    tournament_scheduler: RqTournamentScheduler
    accounts: AccountService
    ladders: LadderService
    matches: MatchService
    tournaments: TournamentService
    seeks: SeekService
    transparency: TransparencyService


def build_services(config: Settings, memo=None) -> Services:
    """`memo`: where a request keeps the account its key found (the API's), so it is looked up once."""
    client = build_redis(config)
    bot_queue = build_queue(config)
    store = build_event_store(config, client)
    bots = build_bot_scheduler(config, bot_queue)
    tournament_scheduler = RqTournamentScheduler(bot_queue, config.job_result_ttl, config.job_failure_ttl)
    accounts = AccountService(RedisAccountStore(client), max_open_matches=config.max_open_matches, memo=memo)
    ladders = LadderService(store, RedisLeaderboardStore(client))
    signer = Signer.from_file(config.transparency_key) if config.transparency_key else None
    transparency = TransparencyService(RedisTransparencyStore(client), store, signer)
    matches = MatchService(store, bots, snapshot_every=config.snapshot_every,
                           keep_finished_extras=config.keep_finished_extras, accounts=accounts,
                           recent_matches=config.recent_matches, archive_after=config.archive_after,
                           timers=RqTurnTimers(build_timer_queue(bot_queue), config.job_failure_ttl),
                           tournaments=tournament_scheduler, challenge_expiry=config.challenge_expiry,
                           invitations=build_invitation_quota(config), metrics=PrometheusMetrics(), ladders=ladders,
                           transparency=transparency)
    tournaments = TournamentService(store, matches, tournament_scheduler, config.max_tournament_matches, accounts)
    # the seek pools pair by the accounts' ratings on the ladders of the seeks' terms
    seeks = SeekService(store, matches, accounts, RqSeekPasses(bot_queue, config.job_failure_ttl),
                        expiry=config.seek_expiry, max_open=config.max_open_seeks,
                        widen_per_second=config.seek_widen, ratings=ladders.rating_of)
    return Services(client, bot_queue, store, bots, tournament_scheduler, accounts, ladders, matches, tournaments,
                    seeks, transparency)


def build_rate_limits(config: Settings) -> "RateLimits":
    from api.rate_limits import HOLD_REFUSALS, RateLimits

    # the counters default to the RQ Redis, a plain one even when the event log is on a cluster
    return RateLimits(config.rate_limit_storage or require_rq_redis_url(config), config.limit_create,
                      config.limit_join, config.limit_moves, config.limit_accounts, config.limit_reads,
                      hold=HOLD_REFUSALS, storage_options=redis_options(config))


def build_app(config: Settings):
    from api.app import create_app
    from api.context import request_memo

    built = build_services(config, memo=request_memo)
    # one hub per process: its reader takes one connection of the pool for its XREAD BLOCK
    hub = Hub(built.store, outage=RedisOutage(logging.getLogger("cardroom.hub"), "stream_hub"))
    streams = MatchStreams(built.matches, hub, config.keep_alive)
    feeds = AccountFeeds(built.accounts, built.matches, built.store, hub, config.keep_alive, config.feed_poll)
    admin = AdminService(built.matches, built.accounts, built.bot_scheduler, config.admin_key, config.stall_after,
                         config.bot_turn_expiry, built.ladders, built.seeks)
    bot_queue = built.bot_queue
    exposition = Exposition(config.metrics_dir,
                            [bot_queue, build_timer_queue(bot_queue), build_recovered_queue(bot_queue)])
    return create_app(built.matches, built.client.ping, config.max_body_bytes, cors_origins=config.cors_origins,
                      rules_dir=config.rules_dir, rate_limits=build_rate_limits(config), streams=streams,
                      accounts=built.accounts, feeds=feeds, tournaments=built.tournaments,
                      tournament_streams=TournamentStreams(built.tournaments, hub, config.keep_alive), admin=admin,
                      exposition=exposition, metrics_token=config.metrics_token,
                      readiness=build_readiness(config, built.client, bot_queue), ladders=built.ladders,
                      seeks=built.seeks, transparency=built.transparency)


def build_readiness(config: Settings, client: redis.Redis | RedisCluster, queue: Queue) -> dict:
    """GET /health/ready's checks. A worker or the scheduler silent for STALL_AFTER seconds is taken for gone, as
    the janitor takes a worker (workers/readiness.py)."""
    return {"redis": client.ping, "bot_workers": readiness.bot_workers(queue, config.stall_after),
            "scheduler": readiness.scheduler(queue, config.stall_after)}


def build_docs_app():
    """The app without any Redis, for `flask openapi write` (it only reads the routes and schemas)."""
    from api.app import create_app

    store = InMemoryEventStore()
    accounts = AccountService(InMemoryAccountStore())
    ladders = LadderService(store, InMemoryLeaderboardStore())
    service = MatchService(store, NoBots(), accounts=accounts, ladders=ladders)
    tournaments = TournamentService(store, service, NoTournaments(), max_matches=0, accounts=accounts)
    hub = Hub(store)
    seeks = SeekService(store, service, accounts, NoSeekPasses(), ratings=ladders.rating_of)
    transparency = TransparencyService(InMemoryTransparencyStore(), store, None)
    return create_app(service, lambda: True, streams=MatchStreams(service, hub, keep_alive_seconds=10),
                      accounts=accounts, feeds=AccountFeeds(accounts, service, store, hub, keep_alive_seconds=10),
                      tournaments=tournaments,
                      tournament_streams=TournamentStreams(tournaments, hub, keep_alive_seconds=10),
                      admin=AdminService(service, accounts, NoBots(), None, stall_after=5, give_up_after=3600,
                                         ladders=ladders, seeks=seeks), ladders=ladders, seeks=seeks,
                      transparency=transparency)
