"""One contract, three event stores: whatever the in-memory store does in unit tests, Redis and Redis Cluster
do in production."""
import threading
import time

import pytest

from eventstore.base import Appended, Duplicate, Head, Snapshot, VersionConflict
from eventstore.chain import GENESIS, first_break
from eventstore.memory import InMemoryEventStore
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import RedisEventStore


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration),
                        pytest.param("cluster", marks=pytest.mark.integration)])
def store(request):
    if request.param == "memory":
        return InMemoryEventStore()
    if request.param == "cluster":
        return ClusterEventStore(request.getfixturevalue("cluster_client"))
    return RedisEventStore(request.getfixturevalue("redis_client"))


def events(*types):
    return [{"type": t, "data": {"n": i}} for i, t in enumerate(types)]


def append_one_by_one(store, types: str, snapshots_at: tuple[int, ...]) -> list[dict]:
    """Appends an event per letter, each of those at `snapshots_at` with a snapshot {"at": version}; the log."""
    head = Head()
    for version, kind in enumerate(types, start=1):
        head = store.append("m1", head, events(kind), meta={"game": "g"},
                            snapshot={"at": version} if version in snapshots_at else None).head
    return store.read("m1")


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
    log = append_one_by_one(store, "abcde", snapshots_at=(3,))
    loaded = store.load("m1")
    assert loaded.snapshot == Snapshot(3, log[2]["hash"], {"at": 3})
    assert [e["version"] for e in loaded.events] == [4, 5] and loaded.head == Head(5, log[-1]["hash"])
    assert loaded.meta["game"] == "g"


def test_a_snapshot_is_kept_only_with_its_append_and_never_with_a_refused_one(store):
    head = store.append("m1", Head(), events("a"), idempotency=("k1", "answer")).head
    with pytest.raises(VersionConflict):
        store.append("m1", Head(), events("b"), snapshot={"at": 1})
    assert store.append("m1", head, events("b"), idempotency=("k1", "again"), snapshot={"at": 2}) == Duplicate("answer")
    assert store.load("m1").snapshot is None
    store.append("m1", head, events("b"), snapshot={"at": 2})
    assert store.load("m1").snapshot == Snapshot(2, store.read("m1")[-1]["hash"], {"at": 2})


def test_loading_up_to_an_earlier_version_ignores_later_snapshots_and_events(store):
    log = append_one_by_one(store, "abcdef", snapshots_at=(2, 5))
    loaded = store.load("m1", upto=4)
    assert loaded.snapshot.version == 2 and [e["version"] for e in loaded.events] == [3, 4]
    assert loaded.head == Head(4, log[3]["hash"])
    at_snapshot = store.load("m1", upto=5)
    assert at_snapshot.snapshot.version == 5 and at_snapshot.events == [] and at_snapshot.head.version == 5


def test_loading_since_a_version_the_caller_holds_skips_the_snapshots_up_to_it(store):
    append_one_by_one(store, "abcdef", snapshots_at=(2, 5))
    after_latest = store.load("m1", since=5)
    assert after_latest.snapshot is None and [e["version"] for e in after_latest.events] == [6]
    between = store.load("m1", since=3)
    assert between.snapshot.version == 5 and [e["version"] for e in between.events] == [6]
    up_to_date = store.load("m1", since=6)
    assert up_to_date.snapshot is None and up_to_date.events == []
    earlier = store.load("m1", upto=4, since=3)
    assert earlier.snapshot is None and [e["version"] for e in earlier.events] == [4]


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


def test_metas_come_in_one_call_with_none_for_unknown_matches(store):
    store.append("m1", Head(), events("a"), meta={"game": "g1"})
    store.append("m2", Head(), events("a"), meta={"game": "g2"})
    assert [m and m["game"] for m in store.metas(["m1", "nope", "m2"])] == ["g1", None, "g2"]


def test_the_status_index_lists_matches_under_each_status_newest_first_until_unlisted(store):
    for i, game in enumerate(["mantis", "blockers", "mantis", "mantis"]):
        store.index(f"m{i}", game)
        store.list_status(f"m{i}", game, "active")
    store.list_status("m0", "mantis", "finished")
    store.unlist_status("m0", "mantis", "active")
    store.list_status("m2", "mantis", "finished")
    assert [mid for _, mid in store.matches(None, None, 10, status="finished")] == ["m2", "m0"]
    page = store.matches("mantis", None, 1, status="active")
    assert [mid for _, mid in page] == ["m3"]
    assert [mid for _, mid in store.matches("mantis", page[-1][0], 10, status="active")] == ["m2"]
    assert [mid for _, mid in store.matches("blockers", None, 10, status="finished")] == []


def test_a_match_outside_the_catalog_is_listed_under_no_status(store):
    store.list_status("stray", "mantis", "active")
    assert store.matches(None, None, 10, status="active") == []


def test_finished_matches_are_listed_oldest_first_by_when_they_finished_and_by_id_within_a_millisecond(store):
    for match_id, at in [("m3", 300), ("m1", 100), ("m2b", 200), ("m2a", 200)]:
        store.list_finished(match_id, at, ["all", "game:mantis", "account:ann", "tournament:t1"])
    for listing in ["all", "game:mantis", "account:ann", "tournament:t1"]:
        assert store.finished(listing, 0, None, 10) == [(100, "m1"), (200, "m2a"), (200, "m2b"), (300, "m3")]
    assert store.finished("game:blockers", 0, None, 10) == []


def test_a_listing_of_finished_matches_pages_from_a_time_or_after_a_listed_match(store):
    for i in range(6):
        store.list_finished(f"m{i}", 1000 + 10 * (i // 2), ["all"])  # two matches a millisecond
    assert [m for _, m in store.finished("all", 1010, None, 3)] == ["m2", "m3", "m4"]
    assert [m for _, m in store.finished("all", 0, "m2", 2)] == ["m3", "m4"]
    assert [m for _, m in store.finished("all", 1020, "m1", 10)] == ["m4", "m5"]  # `since` beyond `after` wins
    assert store.finished("all", 0, "m5", 10) == []
    assert store.finished("all", 0, "stranger", 10) is None


def test_listing_a_finished_match_again_moves_it_to_its_new_time(store):
    store.list_finished("early", 100, ["all"])
    store.list_finished("other", 200, ["all"])
    store.list_finished("early", 300, ["all"])
    assert store.finished("all", 0, None, 10) == [(200, "other"), (300, "early")]


def test_awaited_bots_are_read_oldest_first_and_only_when_older_than_asked(store):
    store.await_bot("m1", 100.0)
    store.await_bot("m2", 50.0)
    store.await_bot("m3", 200.0)
    assert store.bots_awaited(150.0, 10) == [("m2", 50.0), ("m1", 100.0)]
    assert store.bots_awaited(150.0, 1) == [("m2", 50.0)]
    store.await_bot("m2", 160.0)  # a new bot turn moves the match to when it began
    assert store.bots_awaited(150.0, 10) == [("m1", 100.0)]


def test_a_release_forgets_a_match_unless_it_was_noted_again_after_the_release_began(store):
    store.await_bot("m1", 100.0)
    store.await_bot("m2", 100.0)
    store.release_bot("m1", 100.0)
    store.await_bot("m2", 120.0)  # a later command owes a bot turn again
    store.release_bot("m2", 110.0)
    store.release_bot("nope", 110.0)
    assert store.bots_awaited(1000.0, 10) == [("m2", 120.0)]


def test_noted_deadlines_are_read_earliest_first_once_passed_and_forgotten_with_none(store):
    store.note_deadline("m1", 100.5)
    store.note_deadline("m2", 50.25)
    store.note_deadline("m3", 200.0)
    assert store.deadlines_passed(150.0, 10) == [("m2", 50.25), ("m1", 100.5)]
    store.note_deadline("m2", 160.0)  # the next turn's deadline replaces the last
    store.note_deadline("m1", None)  # the match ended
    assert store.deadlines_passed(170.0, 10) == [("m2", 160.0)]


def test_an_append_given_a_time_stores_its_events_at_that_time(store):
    appended = store.append("m1", Head(), events("a", "b"), time="2026-01-02T03:04:05.678Z")
    assert [e["time"] for e in appended.events] == ["2026-01-02T03:04:05.678Z"] * 2
    assert [e["time"] for e in store.read("m1")] == ["2026-01-02T03:04:05.678Z"] * 2


def append_later(store, match_id, head, *types, delay=0.2):
    timer = threading.Timer(delay, store.append, args=(match_id, head, events(*types)))
    timer.start()
    return timer


def test_a_tail_returns_at_once_the_events_already_past_the_versions_asked(store):
    store.append("m1", Head(), events("a", "b", "c"))
    store.append("m2", Head(), events("a"))
    found = store.tail({"m1": 1, "m2": 1, "m3": 0}, timeout=5)
    assert {m: [e["version"] for e in log] for m, log in found.items()} == {"m1": [2, 3]}


def test_a_tail_waits_for_the_next_append_to_any_of_its_logs(store):
    head = store.append("m1", Head(), events("a")).head
    append_later(store, "m2", Head(), "x", "y")
    started = time.monotonic()
    found = store.tail({"m1": head.version, "m2": 0}, timeout=5)
    assert 0.1 < time.monotonic() - started < 4
    assert {m: [e["type"] for e in log] for m, log in found.items()} == {"m2": ["x", "y"]}
    assert found["m2"] == store.read("m2")


def test_a_tail_with_nothing_new_returns_nothing_after_its_timeout(store):
    store.append("m1", Head(), events("a"))
    started = time.monotonic()
    assert store.tail({"m1": 1}, timeout=0.3) == {}
    assert 0.25 < time.monotonic() - started < 3


def test_a_wake_ends_a_waiting_tail_early_and_one_before_the_tail_counts_too(store):
    timer = threading.Timer(0.2, store.wake)
    timer.start()
    started = time.monotonic()
    assert store.tail({"m1": 0}, timeout=10) == {}
    assert time.monotonic() - started < 5
    store.wake()
    started = time.monotonic()
    assert store.tail({"m1": 0}, timeout=10) == {} and time.monotonic() - started < 5
    started = time.monotonic()
    assert store.tail({"m1": 0}, timeout=0.3) == {}
    assert time.monotonic() - started > 0.25  # the wake-up was used up: this one waited its whole timeout


def test_an_archived_match_loads_and_reads_as_before_from_any_version(store):
    head = store.append("m1", Head(), events(*"abc"), snapshot={"at": 3}).head
    store.append("m1", head, events(*"def"), meta={"game": "mantis", "status": "finished"},
                 idempotency=("k1", "answer"))
    log = store.read("m1")
    assert store.archive("m1")
    assert store.read("m1") == log and store.read("m1", after=2, upto=5) == log[2:5]
    loaded = store.load("m1")
    assert loaded.snapshot is None and loaded.events == log and loaded.head == Head(6, log[-1]["hash"])
    assert store.load("m1", upto=4, since=1).events == log[1:4] and store.load("m1", since=6).events == []
    assert store.meta("m1")["game"] == "mantis" and store.meta("m1")["archived"] == "1"
    assert store.metas(["m1"])[0]["version"] == "6"


def test_archives_come_due_longest_due_first_and_each_match_is_archived_once(store):
    for match_id in ("m1", "m2", "m3"):
        store.append(match_id, Head(), events("a"))
    store.archive_when("m1", 100.0)
    store.archive_when("m2", 50.0)
    store.archive_when("m3", 200.0)
    assert store.archives_due(150.0, 10) == ["m2", "m1"] and store.archives_due(150.0, 1) == ["m2"]
    assert store.archive("m2") and not store.archive("m2") and not store.archive("nope")
    assert store.archives_due(1000.0, 10) == ["m1", "m3"]
