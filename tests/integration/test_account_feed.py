"""The account feed on a real Redis and on a Redis Cluster: turns come through the hub's one XREAD, a new match
through the account's count (woken by the account's index, followed like a log), a rejoined match is watched again, and a reconnection is told every turn owed."""
import threading
import uuid

import pytest
from redis.cluster import RedisCluster

from eventstore.accounts import RedisAccountStore
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import RedisEventStore
from service.accounts import AccountService
from service.live.feed import AccountFeeds
from service.live.hub import Hub
from tests.support.service import make_service

pytestmark = pytest.mark.integration
SCORE = {"action": "score"}


@pytest.fixture(params=["redis", "cluster"])
def client(request):
    return request.getfixturevalue("cluster_client" if request.param == "cluster" else "redis_client")


@pytest.fixture
def store(client):
    return ClusterEventStore(client) if isinstance(client, RedisCluster) else RedisEventStore(client)


@pytest.fixture
def accounts(client):
    return AccountService(RedisAccountStore(client))


@pytest.fixture
def service(store, accounts):
    return make_service(store=store, accounts=accounts)


@pytest.fixture
def feeds(accounts, store, service):
    hub = Hub(store, block_seconds=2)
    yield AccountFeeds(accounts, service, store, hub, keep_alive_seconds=1, poll_seconds=0.05)
    hub.close()


def register(accounts) -> tuple[str, str]:
    created = accounts.register(f"p{uuid.uuid4().hex[:12]}", "bot")
    return created["name"], created["api_key"]


def next_frames(frames, kind: str, keep_alives: int = 5) -> list:
    taken = []
    for frame in frames:
        if frame is None:
            keep_alives -= 1
            assert keep_alives >= 0, f"no {kind} came; got {taken}"
            continue
        taken.append((frame.type, frame.data))
        if frame.type == kind:
            return taken
    raise AssertionError("the feed ended")


def test_each_of_many_feeds_is_told_its_turn_as_the_other_seat_moves(service, accounts, feeds):
    duels = []
    for _ in range(10):
        (first, first_key), (second, second_key) = register(accounts), register(accounts)
        accounts.set_challenges(second_key, "auto")
        created = service.create("mantis", {}, [{"account": first}, {"account": second}], credential=first_key)
        feed = feeds.open(second_key)
        assert [kind for kind, _ in next_frames(feed, "synced")] == ["match_started", "synced"]
        duels.append((created, first_key, feed))
    told = {}

    def listen(index, feed):
        told[index] = next_frames(feed, "your_turn")

    listeners = [threading.Thread(target=listen, args=(i, feed)) for i, (_, _, feed) in enumerate(duels)]
    for listener in listeners:
        listener.start()
    versions = [service.move(created["id"], key, SCORE, created["version"])["version"] for created, key, _ in duels]
    for listener in listeners:
        listener.join(timeout=10)
    assert [told[i][-1][1] for i in range(len(duels))] == [
        {"type": "your_turn", "match": created["id"], "seat": 1, "game": "mantis", "version": version, "position": 1}
        for (created, _, _), version in zip(duels, versions)]


def test_a_new_match_is_announced_and_an_owed_turn_is_told_again_on_reconnecting(service, accounts, feeds):
    (ann, ann_key), (bob, bob_key) = register(accounts), register(accounts)
    feed = feeds.open(ann_key)
    assert next_frames(feed, "synced") == [("synced", {"type": "synced", "position": 0})]
    accounts.set_challenges(bob_key, "auto")
    created = service.create("mantis", {}, [{"account": ann}, {"account": bob}], credential=ann_key)
    assert [kind for kind, _ in next_frames(feed, "your_turn")] == ["match_started", "your_turn"]
    feed.close()  # the bot goes away without playing
    again = next_frames(feeds.open(ann_key, after=1), "your_turn")  # resumed: no match_started again, no synced
    assert again == [("your_turn", {"type": "your_turn", "match": created["id"], "seat": 0, "game": "mantis",
                                    "version": created["version"], "position": 1})]


def test_a_new_match_is_announced_by_the_wake_up_of_the_accounts_index_not_by_the_poll(service, accounts, store):
    hub = Hub(store, block_seconds=2)
    feeds = AccountFeeds(accounts, service, store, hub, keep_alive_seconds=0.5, poll_seconds=3600)  # the poll never comes
    (seated, seated_key), (creator, creator_key) = register(accounts), register(accounts)
    accounts.set_challenges(seated_key, "auto")
    feed = feeds.open(seated_key)
    assert next_frames(feed, "synced") == [("synced", {"type": "synced", "position": 0})]
    created = service.create("mantis", {}, [{"account": creator}, {"account": seated}], credential=creator_key)
    assert next_frames(feed, "match_started", keep_alives=20)[-1][1]["match"] == created["id"]
    hub.close()


def test_a_seat_left_and_taken_again_is_announced_when_the_match_is_dealt(service, accounts, feeds):
    (_, ann_key), (_, bob_key) = register(accounts), register(accounts)
    created = service.create("mantis", {}, [{"open": True}, {"open": True}])
    service.join(created["id"], None, ann_key)
    service.leave(created["id"], ann_key)
    service.join(created["id"], None, bob_key)  # bob takes a seat: the check of his room closes nothing of ann's
    service.join(created["id"], None, ann_key)  # ann again: the match is open for her again, and dealt
    assert accounts.open_match_ids(accounts.authenticate(ann_key)["id"]) == [created["id"]]
    frames = next_frames(feeds.open(ann_key), "synced")
    assert [(kind, data.get("match")) for kind, data in frames][0] == ("match_started", created["id"])
