"""An account's room on a real Redis (and a Redis Cluster), raced: given one account near its bounds, when many
creates and seeks of it arrive at once, each in its own process's services, then exactly as many are accepted as
the bounds leave room for, and every other one is refused with its reason."""
import threading
from collections import Counter

import pytest

from eventstore.accounts import RedisAccountStore
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import RedisEventStore
from service.accounts import AccountService
from service.errors import Conflict
from service.matches import MatchService
from service.seeks import SeekService
from tests.support.service import RecordedBots

pytestmark = pytest.mark.integration
ROOM, MOST_SEEKS, RACERS = 10, 5, 16
GAMES = ("mantis", "flipout", "blockers", "9stax")
SOLO = [{"account": "ann"}, {"bot": "random"}]


@pytest.fixture(params=["redis", "cluster"])
def process(request):
    """Builds the services of one more process on the same store, as each gunicorn worker holds its own."""
    cluster = request.param == "cluster"
    client = request.getfixturevalue("cluster_client" if cluster else "redis_client")

    def services() -> tuple[SeekService, MatchService, AccountService]:
        store = ClusterEventStore(client) if cluster else RedisEventStore(client)
        accounts = AccountService(RedisAccountStore(client), max_open_matches=ROOM)
        matches = MatchService(store, RecordedBots(), accounts=accounts)
        return SeekService(store, matches, accounts, max_open=MOST_SEEKS), matches, accounts

    return services


@pytest.fixture
def ann(process):
    *_, accounts = process()
    return accounts.register("ann", "bot")["api_key"]


def race(process, attempts) -> Counter:
    """Runs every attempt(seeks, matches, accounts) at once, each in a thread with its own process's services: how
    many were accepted, and how many refused for each reason."""
    start, counting = threading.Barrier(len(attempts)), threading.Lock()
    outcomes: Counter = Counter()

    def racer(attempt):
        services = process()
        start.wait()
        try:
            attempt(*services)
            outcome = "accepted"
        except Conflict as refused:
            outcome = refused.reason
        with counting:
            outcomes[outcome] += 1

    threads = [threading.Thread(target=racer, args=(attempt,)) for attempt in attempts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def create(ann):
    return lambda seeks, matches, accounts: matches.create("mantis", {}, SOLO, credential=ann)


def seek(ann, game="mantis"):
    return lambda seeks, matches, accounts: seeks.open(ann, {"game": game, "players": 2})


def held(process, ann) -> tuple[int, int]:
    """(open matches, open seeks) of the account, as its matches and its pools show them."""
    seeks, _, accounts = process()
    return len(accounts.open_match_ids(accounts.authenticate(ann)["id"])), len(seeks.mine(ann)["seeks"])


def test_creates_raced_at_the_edge_of_the_room_fill_it_exactly(process, ann):
    for _ in range(ROOM - 3):
        create(ann)(*process())
    outcomes = race(process, [create(ann)] * RACERS)
    assert outcomes == {"accepted": 3, "too_many_open_matches": RACERS - 3}
    assert held(process, ann) == (ROOM, 0)


def test_seeks_raced_over_four_pools_open_exactly_the_most_an_account_may_hold(process, ann):
    outcomes = race(process, [seek(ann, GAMES[i % len(GAMES)]) for i in range(RACERS)])
    assert outcomes == {"accepted": MOST_SEEKS, "too_many_seeks": RACERS - MOST_SEEKS}
    assert held(process, ann) == (0, MOST_SEEKS)


def test_seeks_raced_near_a_full_room_take_only_what_is_left(process, ann):
    for _ in range(ROOM - 2):
        create(ann)(*process())
    outcomes = race(process, [seek(ann, GAMES[i % len(GAMES)]) for i in range(RACERS)])
    assert outcomes == {"accepted": 2, "too_many_open_matches": RACERS - 2}
    assert held(process, ann) == (ROOM - 2, 2)


def test_creates_and_seeks_raced_together_never_hold_more_than_the_room(process, ann):
    for _ in range(ROOM - 4):
        create(ann)(*process())
    outcomes = race(process, [create(ann), seek(ann)] * (RACERS // 2))
    assert outcomes["accepted"] == 4 and outcomes["too_many_open_matches"] == RACERS - 4
    assert sum(held(process, ann)) == ROOM


def test_open_seeks_hold_their_room_against_later_creates(process, ann):
    for _ in range(ROOM - 3):
        create(ann)(*process())
    for game in GAMES[:3]:
        seek(ann, game)(*process())
    outcomes = race(process, [create(ann)] * 3)
    assert outcomes == {"too_many_open_matches": 3}
    assert held(process, ann) == (ROOM - 3, 3)
