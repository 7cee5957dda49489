"""Retention: a finished match is archived ARCHIVE_AFTER seconds after it ended, out of the hot keys into
one compressed record, and everything read from it (GET, events, export, audit) is as before."""
import pytest

from eventstore.memory import InMemoryEventStore
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import RedisEventStore, archive_key, keys
from service.matches import MatchService, Selection
from tests.support.service import InlineBots

GAMES = [("mantis", {"edition": "classic"}), ("mantis", {"edition": "compact"}), ("9stax", {}), ("blockers", {}),
         ("flipout", {})]


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration),
                        pytest.param("cluster", marks=pytest.mark.integration)])
def backend(request):
    """(store, raw client or None)."""
    if request.param == "memory":
        return InMemoryEventStore(), None
    if request.param == "cluster":
        client = request.getfixturevalue("cluster_client")
        return ClusterEventStore(client), client
    client = request.getfixturevalue("redis_client")
    return RedisEventStore(client), client


def bots_play(service, game, options):
    """A match of two random bots, played to the end at once; its id."""
    return service.create(game, options, [{"bot": "random"}, {"bot": "random"}], seed=f"archive-{game}")["id"]


def everything_read(service, match_id):
    exported = {k: v for k, v in service.export(match_id, None).items() if k != "exported_at"}  # the time asked
    return service.get(match_id, None), service.events(match_id, None, 0, 1000), exported, service.audit(match_id)


@pytest.mark.parametrize("game, options", GAMES)
def test_a_finished_match_is_archived_when_due_and_reads_exactly_as_before(backend, game, options):
    store, client = backend
    clock, bots = Clock(), InlineBots()
    service = bots.service = MatchService(store, bots, clock=clock, archive_after=3600, recent_matches=0)
    match_id = bots_play(service, game, options)
    before = everything_read(service, match_id)
    assert before[0]["status"] == "finished"
    clock.now += 3599
    assert service.archive_finished() == []
    clock.now += 2
    assert service.archive_finished() == [match_id] and service.archive_finished() == []
    assert everything_read(service, match_id) == before
    if client is not None:
        events_key, _, snaps_key, idem_key = keys(match_id)
        assert client.exists(events_key, snaps_key, idem_key) == 0 and client.exists(archive_key(match_id)) == 1


def test_matches_are_not_archived_when_the_policy_says_never(backend):
    store, _ = backend
    clock, bots = Clock(), InlineBots()
    service = bots.service = MatchService(store, bots, clock=clock, archive_after=0)
    match_id = bots_play(service, "mantis", {"edition": "classic"})
    clock.now += 10 ** 9
    assert service.archive_finished() == [] and "archived" not in store.meta(match_id)


def test_an_archived_match_streams_among_the_finished_matches_as_before_archiving(backend):
    store, _ = backend
    clock, bots = Clock(), InlineBots()
    service = bots.service = MatchService(store, bots, clock=clock, archive_after=3600, recent_matches=0)
    match_id = bots_play(service, "mantis", {})
    clock.now += 60

    def streamed():
        return [{k: v for k, v in d.items() if k != "exported_at"} for d in service.finished_exports(Selection())]

    before = streamed()
    clock.now += 3600
    assert service.archive_finished() == [match_id]
    assert streamed() == before and [d["match_id"] for d in before] == [match_id]
