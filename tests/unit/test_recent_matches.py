"""The per-process memory of recent matches (service/repository.py) spares loads and never changes an answer:
two services on one store stand for two gunicorn workers."""
import pytest

from eventstore.memory import InMemoryEventStore
from service.errors import Conflict
from tests.support.service import make_service

THREE = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


class CountingStore(InMemoryEventStore):
    def __init__(self):
        super().__init__()
        self.loads, self.releases = [], 0

    def load(self, match_id, upto=None, since=0):
        self.loads.append(since)
        return super().load(match_id, upto, since)

    def release_bot(self, match_id, noted_by):
        self.releases += 1
        return super().release_bot(match_id, noted_by)


def score(service, created, current):
    seat = current["to_act"][0]
    return service.move(created["id"], created["seats"][seat]["token"], {"action": "score"}, current["version"])


def test_a_move_at_the_version_this_process_appended_is_appended_without_a_load():
    store = CountingStore()
    service = make_service(store=store)
    created = service.create("mantis", {}, THREE)
    moved = score(service, created, created)
    score(service, created, moved)
    assert store.loads == []


def test_a_move_on_a_stale_memory_gets_the_409_it_deserves_and_the_next_read_catches_up():
    store = CountingStore()
    one, other = make_service(store=store), make_service(store=store)
    created = one.create("mantis", {}, THREE)
    moved_elsewhere = score(other, created, created)
    with pytest.raises(Conflict) as refused:
        score(one, created, created)  # `one` still remembers the version the client wrongly expects
    assert refused.value.details["current_version"] == moved_elsewhere["version"]
    assert one.get(created["id"], None) == other.get(created["id"], None)


def test_a_load_folds_only_the_events_after_the_remembered_version_onto_the_remembered_state():
    store = CountingStore()
    one, other = make_service(store=store, snapshot_every=2), make_service(store=store, snapshot_every=2)
    created = one.create("mantis", {}, THREE)
    current = one.get(created["id"], None)
    for _ in range(5):
        current = score(other, created, current)
    store.loads.clear()
    seen = one.get(created["id"], None)
    assert store.loads == [created["version"]]
    assert seen == make_service(store=store).get(created["id"], None)  # a process that remembers nothing
    assert seen["version"] == current["version"]


def test_a_move_between_human_seats_does_not_touch_the_awaited_bots_index():
    store = CountingStore()
    service = make_service(store=store)
    created = service.create("mantis", {}, THREE)
    score(service, created, score(service, created, created))
    assert store.releases == 0
