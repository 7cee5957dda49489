"""One contract, three places for the Merkle log of finished matches: in memory (unit tests), Redis and Redis Cluster."""
import threading

import pytest

from eventstore.transparency import InMemoryTransparencyStore, RedisTransparencyStore


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration),
                        pytest.param("cluster", marks=pytest.mark.integration)])
def log(request):
    if request.param == "memory":
        return InMemoryTransparencyStore()
    client = request.getfixturevalue("cluster_client" if request.param == "cluster" else "redis_client")
    return RedisTransparencyStore(client)


def test_leaves_are_kept_in_the_order_appended_with_each_match_s_index(log):
    assert (log.size(), log.leaves(0, 5), log.index_of("m1")) == (0, [], None)
    assert [log.append("m1", "aa"), log.append("m2", "bb"), log.append("m3", "cc")] == [0, 1, 2]
    assert log.size() == 3 and log.leaves(0, 3) == ["aa", "bb", "cc"] and log.leaves(1, 2) == ["bb"]
    assert log.leaves(2, 2) == [] and log.index_of("m2") == 1


def test_a_match_appended_again_keeps_its_first_leaf_and_index(log):
    log.append("m1", "aa")
    assert log.append("m1", "ff") == 0 and log.append("m2", "bb") == 1 and log.append("m1", "aa") == 0
    assert log.leaves(0, 10) == ["aa", "bb"]


def test_matches_appended_at_once_by_many_writers_get_one_leaf_each(log):
    def write(writer):
        for match_id in range(20):
            log.append(f"m{match_id}", f"leaf-{match_id}")

    writers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert log.size() == 20 and sorted(log.leaves(0, 20)) == sorted(f"leaf-{m}" for m in range(20))
    assert sorted(log.index_of(f"m{m}") for m in range(20)) == list(range(20))


def test_due_leaves_are_listed_oldest_first_from_their_first_note_until_done(log):
    log.note_due("m2", 20.0)
    log.note_due("m1", 10.0)
    log.note_due("m2", 30.0)
    assert log.due(25.0, 10) == ["m1", "m2"] and log.due(15.0, 10) == ["m1"]
    log.done("m1")
    assert log.due(100.0, 10) == ["m2"]
