"""Wiring: the one place that builds Redis and RQ clients and puts the layers together."""
from functools import lru_cache

import redis
from rq import Queue

from api.app import create_app
from bootstrap.config import Settings
from eventstore.memory import InMemoryEventStore
from eventstore.redis_store import RedisEventStore
from service.matches import MatchService
from service.ports import NoBots
from workers.scheduler import RqBotScheduler


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()


def require_redis_url(config: Settings) -> str:
    if not config.redis_url:
        raise RuntimeError("REDIS_URL is not set: start the service with `make run` (which starts an embedded "
                           "Redis) or set REDIS_URL=redis://host:port/0")
    return config.redis_url


def build_queue(config: Settings) -> Queue:
    # RQ stores pickled bytes, so its connection must not decode responses.
    return Queue(config.queue, connection=redis.Redis.from_url(require_redis_url(config)))


def build_redis(config: Settings) -> redis.Redis:
    return redis.Redis.from_url(require_redis_url(config), decode_responses=True)


def build_match_service(config: Settings, client: redis.Redis | None = None) -> MatchService:
    return MatchService(RedisEventStore(client or build_redis(config)), RqBotScheduler(build_queue(config)),
                        snapshot_every=config.snapshot_every)


def build_app(config: Settings):
    client = build_redis(config)
    return create_app(build_match_service(config, client), client.ping, config.max_body_bytes)


def build_docs_app():
    """The app without any Redis, for `flask openapi write` (it only reads the routes and schemas)."""
    return create_app(MatchService(InMemoryEventStore(), NoBots()), lambda: True)
