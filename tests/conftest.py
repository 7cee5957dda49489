"""Test fixtures: one embedded Redis per test session (never the developer's data)."""
import pytest
import redis

from bootstrap.embedded_redis import EmbeddedRedis


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), persist=False).start()
    yield server.url
    server.stop()


@pytest.fixture
def redis_client(redis_url):
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.flushdb()
    yield client
    client.close()
