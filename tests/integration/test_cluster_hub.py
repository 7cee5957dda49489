"""The stream hub on a Redis Cluster: one blocking XREAD per process (on the change feed) still serves
followers of matches on every node, and an event whose feed entry was lost reaches its follower at the
next rescan."""
import pytest
import redis

from eventstore.base import Head
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import RedisEventStore, keys
from service.live.hub import Hub

pytestmark = pytest.mark.integration


def blocked_readers(cluster) -> int:
    clients = (redis.Redis(host="127.0.0.1", port=port, decode_responses=True) for port in cluster.live_ports())
    return sum(1 for client in clients for c in client.client_list() if c["cmd"] == "xread" and "b" in c["flags"])


def test_one_blocking_reader_serves_the_followers_of_matches_on_every_node(redis_cluster, cluster_client):
    store = ClusterEventStore(cluster_client)
    match_ids = [f"h{i}" for i in range(12)]
    assert len({redis_cluster.master_of(keys(m)[0]) for m in match_ids}) == 3
    heads = {m: store.append(m, Head(), [{"type": "created", "data": {}}]).head for m in match_ids}
    hub = Hub(store, block_seconds=2)
    try:
        with_followers = [hub.follow(m, 1) for m in match_ids]
        followers = [follow.__enter__() for follow in with_followers]
        for match_id in match_ids:
            store.append(match_id, heads[match_id], [{"type": "moved", "data": {"in": match_id}}])
        for match_id, follower in zip(match_ids, followers):
            assert [e["data"]["in"] for e in follower.next(timeout=5)] == [match_id]
        # between two reads the reader is not blocked: sample until it is, and never more than one
        seen = [blocked_readers(redis_cluster) for _ in range(50)]
        assert max(seen) == 1, seen
        for follow in with_followers:
            follow.__exit__(None, None, None)
    finally:
        hub.close()


def test_an_event_whose_feed_entry_was_lost_reaches_its_follower_at_the_next_rescan(cluster_client):
    store = ClusterEventStore(cluster_client, rescan_seconds=0.5)
    head = store.append("lost", Head(), [{"type": "created", "data": {}}]).head
    hub = Hub(store, block_seconds=0.3)
    try:
        with hub.follow("lost", 1) as follower:
            assert follower.next(timeout=0.5) == []
            # appended as by a process that died before writing the feed entry
            RedisEventStore(cluster_client).append("lost", head, [{"type": "moved", "data": {}}])
            assert [e["version"] for e in follower.next(timeout=5)] == [2]
    finally:
        hub.close()
