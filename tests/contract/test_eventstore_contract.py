"""One contract, two event stores: whatever the in-memory store does in unit tests, Redis does in production."""
import threading

import pytest

from eventstore.base import Appended, Duplicate, Head, Snapshot, VersionConflict
from eventstore.chain import GENESIS, first_break
from eventstore.memory import InMemoryEventStore
from eventstore.redis_store import RedisEventStore


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration)])
def store(request):
    if request.param == "memory":
        return InMemoryEventStore()
    return RedisEventStore(request.getfixturevalue("redis_client"))


def events(*types):
    return [{"type": t, "data": {"n": i}} for i, t in enumerate(types)]


def test_appended_events_are_numbered_chained_and_read_back_in_order(store):
    first = store.append("m1", Head(), events("a", "b"), meta={"game": "mantis"})
    second = store.append("m1", first.head, events("c"))
    log = store.read("m1")
    assert [e["version"] for e in log] == [1, 2, 3] and [e["type"] for e in log] == ["a", "b", "c"]
    assert log[0]["prev"] == GENESIS and log[1]["prev"] == log[0]["hash"] and first_break(log) is None
    assert second.head == Head(3, log[-1]["hash"])
    assert store.meta("m1")["game"] == "mantis" and store.meta("m1")["version"] == "3"


def test_reading_after_a_version_returns_only_the_later_events(store):
    head = store.append("m1", Head(), events("a", "b", "c")).head
    assert [e["version"] for e in store.read("m1", after=1)] == [2, 3]
    assert [e["version"] for e in store.read("m1", after=1, upto=2)] == [2]
    assert store.read("m1", after=head.version) == []


def test_an_append_at_a_stale_version_is_refused_and_appends_nothing(store):
    store.append("m1", Head(), events("a"))
    with pytest.raises(VersionConflict) as conflict:
        store.append("m1", Head(), events("b", "c"))
    assert conflict.value.current == 1 and len(store.read("m1")) == 1


def test_an_append_with_the_right_version_but_another_head_is_refused(store):
    store.append("m1", Head(), events("a"))
    with pytest.raises(VersionConflict):
        store.append("m1", Head(1, "f" * 64), events("b"))


def test_a_repeated_idempotency_key_returns_the_first_record_and_appends_nothing(store):
    first = store.append("m1", Head(), events("a"), idempotency=("k1", "first answer"))
    assert isinstance(first, Appended) and store.recall("m1", "k1") == "first answer"
    again = store.append("m1", Head(), events("a"), idempotency=("k1", "second answer"))
    assert again == Duplicate("first answer") and len(store.read("m1")) == 1


def test_loading_starts_from_the_latest_snapshot_and_reads_only_the_tail(store):
    head = store.append("m1", Head(), events(*"abcde"), meta={"game": "g"}).head
    log = store.read("m1")
    store.save_snapshot("m1", Snapshot(3, log[2]["hash"], {"at": 3}))
    loaded = store.load("m1")
    assert loaded.snapshot == Snapshot(3, log[2]["hash"], {"at": 3})
    assert [e["version"] for e in loaded.events] == [4, 5] and loaded.head == head
    assert loaded.meta["game"] == "g"


def test_loading_up_to_an_earlier_version_ignores_later_snapshots_and_events(store):
    store.append("m1", Head(), events(*"abcdef"))
    log = store.read("m1")
    store.save_snapshot("m1", Snapshot(2, log[1]["hash"], {"at": 2}))
    store.save_snapshot("m1", Snapshot(5, log[4]["hash"], {"at": 5}))
    loaded = store.load("m1", upto=4)
    assert loaded.snapshot.version == 2 and [e["version"] for e in loaded.events] == [3, 4]
    assert loaded.head == Head(4, log[3]["hash"])
    at_snapshot = store.load("m1", upto=5)
    assert at_snapshot.snapshot.version == 5 and at_snapshot.events == [] and at_snapshot.head.version == 5


def test_an_unknown_match_loads_as_none(store):
    assert store.load("nope") is None and store.meta("nope") is None and store.read("nope") == []


def test_concurrent_appends_at_the_same_version_let_exactly_one_through(store):
    store.append("m1", Head(), events("a"))
    head = Head(1, store.read("m1")[0]["hash"])
    outcomes = []

    def racer(i):
        try:
            store.append("m1", head, events(f"move{i}"))
            outcomes.append("ok")
        except VersionConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]
    assert [e["version"] for e in store.read("m1")] == [1, 2] and first_break(store.read("m1")) is None


def test_the_catalog_lists_matches_newest_first_with_a_cursor_and_a_game_filter(store):
    for i, game in enumerate(["mantis", "blockers", "mantis", "mantis"]):
        store.index(f"m{i}", game)
    page = store.matches("mantis", None, 2)
    assert [mid for _, mid in page] == ["m3", "m2"]
    assert [mid for _, mid in store.matches("mantis", page[-1][0], 2)] == ["m0"]
    assert [mid for _, mid in store.matches(None, None, 10)] == ["m3", "m2", "m1", "m0"]


def test_indexed_matches_are_active_until_retired_and_metas_come_in_one_call(store):
    store.append("m1", Head(), events("a"), meta={"game": "g1"})
    store.append("m2", Head(), events("a"), meta={"game": "g2"})
    store.index("m1", "g1")
    store.index("m2", "g2")
    store.retire("m1")
    assert store.active() == ["m2"]
    assert [m and m["game"] for m in store.metas(["m1", "nope", "m2"])] == ["g1", None, "g2"]
