"""The seek pools' pairing on a real Redis: a new seek nudges a pass as an RQ job, which a worker runs; one pass per
pool at a time under the pool's lock; a pass killed between its decision and the match is completed by the next."""
import uuid

import pytest
import redis
from prometheus_client import REGISTRY
from rq import Queue, SimpleWorker

from eventstore.accounts import RedisAccountStore
from eventstore.redis_store import RedisEventStore
from service.accounts import AccountService
from service.matches import MatchService
from service.seeks import SeekService
from tests.support.service import RecordedBots
from workers import jobs
from workers.janitor import SEEK_LOCK_KEY, pair_every_pool, pair_seeks
from workers.scheduler import RqSeekPasses

pytestmark = pytest.mark.integration
DUEL = {"game": "flipout", "players": 2}


def process(redis_client, passes=None) -> tuple[SeekService, MatchService]:
    """The services as one worker process builds them (each remembers its own folded states)."""
    store = RedisEventStore(redis_client)
    accounts = AccountService(RedisAccountStore(redis_client))
    matches = MatchService(store, RecordedBots(), accounts=accounts)
    return SeekService(store, matches, accounts, *([passes] if passes else [])), matches


@pytest.fixture
def wired(redis_url, redis_client):
    connection = redis.Redis.from_url(redis_url)
    passes = RqSeekPasses(Queue(f"bots-{uuid.uuid4().hex}", connection=connection))
    seeks, matches = process(redis_client, passes)
    accounts = AccountService(RedisAccountStore(redis_client))
    jobs.configure(matches, pair_seeks=lambda game: pair_seeks(seeks, connection, game))
    keys = [accounts.register(name, "bot")["api_key"] for name in ("ann", "bob")]
    return seeks, passes, connection, keys, matches


def test_a_new_seek_nudges_a_pass_that_a_worker_runs_and_the_pair_is_seated(wired):
    seeks, passes, connection, (ann, bob), matches = wired
    first, second = seeks.open(ann, DUEL), seeks.open(bob, DUEL)
    assert passes.queue.count == 2
    SimpleWorker([passes.queue], connection=connection).work(burst=True)
    first, second = seeks.get(first["id"]), seeks.get(second["id"])
    assert first["status"] == second["status"] == "paired" and first["match"] == second["match"]
    assert matches.get(first["match"], None)["status"] == "active"


def test_a_pool_another_pass_holds_is_left_to_it(wired):
    seeks, _, connection, (ann, bob), _ = wired
    first, _ = seeks.open(ann, DUEL), seeks.open(bob, DUEL)
    held = connection.lock(SEEK_LOCK_KEY.format(game="flipout"), timeout=30)
    assert held.acquire(blocking=False)
    assert pair_seeks(seeks, connection, "flipout") is None and "flipout" not in pair_every_pool(seeks, connection)
    assert seeks.get(first["id"])["status"] == "open"
    held.release()
    started = REGISTRY.get_sample_value("cardroom_seek_pairings_total", {"game": "flipout", "what": "started"}) or 0
    assert pair_every_pool(seeks, connection)["flipout"]["started"] == 1
    assert REGISTRY.get_sample_value("cardroom_seek_pairings_total", {"game": "flipout", "what": "started"}) == \
        started + 1  # counted for GET /metrics


def test_a_pass_killed_after_its_decision_is_completed_by_the_next_with_one_match(wired, redis_client, monkeypatch):
    seeks, _, connection, (ann, bob), matches = wired
    first, _ = seeks.open(ann, DUEL), seeks.open(bob, DUEL)

    def killed(*args, **kwargs):
        raise SystemExit("SIGKILL")

    with monkeypatch.context() as crash:
        crash.setattr(matches, "create", killed)
        with pytest.raises(SystemExit):
            pair_seeks(seeks, connection, "flipout")
    assert seeks.get(first["id"])["status"] == "paired"
    restarted, matches = process(redis_client)  # another worker; the lock was released as the pass died
    assert pair_seeks(restarted, connection, "flipout")["started"] == 1
    assert matches.get(seeks.get(first["id"])["match"], None)["status"] == "active"
    assert [m for _, m in RedisEventStore(redis_client).matches(None, None, 10)] == [seeks.get(first["id"])["match"]]
