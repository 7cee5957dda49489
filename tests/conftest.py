"""Test fixtures: one embedded Redis per test session (never the developer's data), and a local Redis
Cluster for the tests that need one."""
import pytest
import redis

from bootstrap import cluster_client_for
from bootstrap.embedded_redis import EmbeddedRedis
from tests.support.cluster import LocalCluster


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


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory):
    """A 3-master Redis Cluster on local ports, for the tests of the cluster layout."""
    cluster = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield cluster
    cluster.stop()


@pytest.fixture
def cluster_client(redis_cluster):
    client = cluster_client_for(redis_cluster.nodes)
    redis_cluster.flush()
    yield client
    client.close()
