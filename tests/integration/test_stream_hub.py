"""The stream hub on a real Redis: many followers share one blocking XREAD; a follower that leaves is dropped."""
import threading
import time

import pytest
import redis

from eventstore.base import Head
from eventstore.redis_store import RedisEventStore
from service.live.hub import Hub

pytestmark = pytest.mark.integration


@pytest.fixture
def store(redis_client):
    return RedisEventStore(redis_client)


@pytest.fixture
def hub(store):
    hub = Hub(store, block_seconds=2)
    yield hub
    hub.close()


def blocked_readers(redis_client) -> int:
    return sum(1 for c in redis_client.client_list() if c["cmd"] == "xread" and "b" in c["flags"])


def eventually(condition, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.02)


def append(store, match_id, *types):
    log = store.read(match_id)
    head = Head(len(log), log[-1]["hash"]) if log else Head()
    return store.append(match_id, head, [{"type": t, "data": {}} for t in types])


def test_many_followers_of_many_matches_wait_on_one_connection_and_all_get_their_events(store, hub, redis_client):
    matches = [f"m{i}" for i in range(10)]
    for match_id in matches:
        append(store, match_id, "created")
    others = blocked_readers(redis_client)
    received, ready = {}, threading.Barrier(51)

    def follow(match_id, n):
        with hub.follow(match_id, 1) as follower:
            ready.wait()
            got = []
            while len(got) < 2:
                got += follower.next(timeout=5)
            received[(match_id, n)] = [e["version"] for e in got]

    threads = [threading.Thread(target=follow, args=(m, n)) for m in matches for n in range(5)]
    for t in threads:
        t.start()
    ready.wait()
    eventually(lambda: blocked_readers(redis_client) == others + 1)
    for match_id in matches:
        append(store, match_id, "moved", "moved")
    for t in threads:
        t.join(timeout=10)
    assert received == {(m, n): [2, 3] for m in matches for n in range(5)}
    assert blocked_readers(redis_client) <= others + 1


def test_a_follower_that_leaves_is_dropped_and_the_others_are_still_served(store, hub):
    append(store, "m1", "created")
    append(store, "m2", "created")
    with hub.follow("m1", 1) as staying:
        with hub.follow("m2", 1):
            assert hub.following() == {"m1": 1, "m2": 1}
        assert hub.following() == {"m1": 1}
        append(store, "m1", "moved")
        assert [e["version"] for e in staying.next(timeout=5)] == [2]
    assert hub.following() == {}


def test_a_new_follower_wakes_the_reader_so_its_first_event_is_not_held_back_by_the_block(store, redis_client):
    hub = Hub(store, block_seconds=30)
    try:
        append(store, "m1", "created")
        append(store, "m2", "created")
        with hub.follow("m1", 1):
            eventually(lambda: blocked_readers(redis_client) >= 1)
            with hub.follow("m2", 1) as late:
                time.sleep(0.1)
                append(store, "m2", "moved")
                # the reader blocks for 30 s: an event seen within 10 s was not held back by the block
                assert [e["version"] for e in late.next(timeout=10)] == [2]
    finally:
        hub.close()


def test_a_follower_behind_what_the_hub_keeps_reads_the_rest_from_the_log(store, hub):
    append(store, "m1", "created")
    with hub.follow("m1", 1) as ahead:
        for _ in range(100):
            append(store, "m1", "moved")
        got = []
        while len(got) < 100:
            got += ahead.next(timeout=5)
        with hub.follow("m1", 0) as behind:
            assert [e["version"] for e in behind.next(timeout=5)] == list(range(1, 102))


def test_a_redis_tail_blocks_less_than_the_clients_socket_timeout_so_a_quiet_log_is_no_error(redis_url, redis_client):
    client = redis.Redis.from_url(redis_url, decode_responses=True, socket_timeout=0.5)  # redis_client: a clean db
    try:
        # an uncapped 5 s block would outlive the 0.5 s socket timeout and raise
        assert RedisEventStore(client).tail({"m1": 0}, timeout=5) == {}
    finally:
        client.close()
