"""Rated play on a real Redis (the leaderboard store's own contract: tests/contract/test_leaderboard_store_contract.py):
a match rated once however many processes race to rate it, a rebuild that repairs a projection whose keys were
damaged, a void, and the same on a Redis Cluster."""
import threading

import pytest

from eventstore.leaderboards import RedisLeaderboardStore
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import RedisEventStore
from service.ladders import LadderService, ladder_key
from tests.support.service import InlineBots, make_service

pytestmark = pytest.mark.integration
CLOCK = {"move_ms": 60_000}
LADDER = "mantis.classic.2p"


@pytest.fixture
def rig(redis_client):
    store, boards = RedisEventStore(redis_client), RedisLeaderboardStore(redis_client)
    ladders = LadderService(store, boards)
    return store, boards, ladders, make_service(InlineBots(), store=store, ladders=ladders)


def bots_match(service, seats=({"bot": "greedy"}, {"bot": "random"})):
    """A rated match of house bots, played to its end by the inline bots as it is created."""
    return service.create("mantis", {}, list(seats), clock_spec=CLOCK, rated=True)["id"]


def test_processes_racing_to_rate_one_match_rate_it_once(rig, redis_client):
    store, boards, _, service = rig
    match_id = bots_match(service)
    outcomes, barrier = [], threading.Barrier(4)

    def rate():
        barrier.wait()
        outcomes.append(LadderService(RedisEventStore(redis_client), boards).rate_stored(match_id))

    threads = [threading.Thread(target=rate) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == ["already"] * 4  # the reaction rated it when it finished
    assert [event["data"]["match"] for event in store.read(ladder_key(LADDER))] == [match_id]


def test_a_rebuild_repairs_a_projection_whose_keys_were_damaged(rig, redis_client):
    _, boards, ladders, service = rig
    for seats in [({"bot": "greedy"}, {"bot": "random"}), ({"bot": "random"}, {"bot": "greedy"}),
                  ({"bot": "ismcts", "bot_options": {"level": 1}}, {"bot": "random"})]:
        bots_match(service, seats)
    live = ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True)  # three newcomers: all provisional
    history = ladders.ratings_of("bot:random")
    redis_client.zadd(f"cr:{{lb:{LADDER}}}:provisional", {"bot:random": 99.0})
    redis_client.hdel(f"cr:{{lb:{LADDER}}}:rows", "bot:greedy")
    redis_client.delete(f"cr:{{lb:{LADDER}}}:history:bot:random")
    assert ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True) != live
    assert ladders.rebuild() == {"ladders": 1, "matches": 3, "differences": []}
    assert ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True) == live
    assert ladders.ratings_of("bot:random") == history and len(history[0]["history"]) == 3


def test_on_a_redis_cluster_a_rated_match_is_rated_and_a_rebuild_gives_the_same_table(cluster_client):
    store, boards = ClusterEventStore(cluster_client), RedisLeaderboardStore(cluster_client)
    ladders = LadderService(store, boards)
    service = make_service(InlineBots(), store=store, ladders=ladders)
    bots_match(service)
    bots_match(service, ({"bot": "random"}, {"bot": "greedy"}))
    live = ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True)
    assert live["total"] == 2
    assert ladders.rebuild() == {"ladders": 1, "matches": 2, "differences": []}
    assert ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True) == live


def test_a_void_on_redis_replaces_the_ladders_projection_with_the_one_a_rebuild_gives(rig):
    # given three rated matches of house bots, the first greedy against random
    store, _, ladders, service = rig
    first, *_ = [bots_match(service, seats) for seats in [
        ({"bot": "greedy"}, {"bot": "random"}), ({"bot": "random"}, {"bot": "greedy"}),
        ({"bot": "ismcts", "bot_options": {"level": 1}}, {"bot": "random"})]]
    # when the operator voids the first
    ladders.void(first, "ops", "a test")
    # then the ladder's last event is the void, the bots have one rated match fewer, and a rebuild changes nothing
    assert store.read(ladder_key(LADDER))[-1]["type"] == "rating_voided"
    after = ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True)
    assert {entry["player"]: entry["games"] for entry in after["entries"]} == {
        "bot:random": 2, "bot:greedy": 1, "bot:ismcts:1": 1}
    assert ladders.rebuild() == {"ladders": 1, "matches": 3, "differences": []}
    assert ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True) == after


def test_processes_racing_to_rate_different_matches_of_one_ladder_chain_their_ratings(redis_client):
    store, boards = RedisEventStore(redis_client), RedisLeaderboardStore(redis_client)
    unrated = make_service(InlineBots(), store=store)  # no ladders: every rating is left for the janitors
    matches = [bots_match(unrated) for _ in range(4)]
    for match_id in matches:
        boards.note_due(match_id, 0.0)
    barrier = threading.Barrier(4)
    outcomes = []

    def janitor():
        barrier.wait()
        outcomes.extend(LadderService(RedisEventStore(redis_client), boards).rate_due(due_for=0))

    threads = [threading.Thread(target=janitor) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {outcome for _, outcome in outcomes} <= {"rated", "already", "busy"}
    LadderService(store, boards).rate_due(due_for=0)  # the next pass: what lost every race (busy) was left due
    log = [event["data"] for event in store.read(ladder_key(LADDER))]
    assert sorted(rated["match"] for rated in log) == sorted(matches)  # each once, whoever rated it
    latest = {}
    for rated in log:  # each rating starts from the one before it in the ladder's order
        for seat in rated["seats"]:
            assert seat["before"] == latest.get(seat["player"], {"mu": 25.0, "sigma": 25 / 3})
            latest[seat["player"]] = seat["after"]
    assert boards.due(float("inf"), 10) == []
