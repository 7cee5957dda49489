"""The service on a real Redis: races, retries, snapshots, and bot turns run by a real RQ worker."""
import threading

import pytest
import redis
from rq import Queue, SimpleWorker

from domain import match
from eventstore.chain import first_break
from eventstore.redis_store import RedisEventStore
from service.errors import Conflict
from service.matches import MatchService
from tests.support.service import RecordedBots
from workers import jobs
from workers.scheduler import RqBotScheduler

pytestmark = pytest.mark.integration
THREE = [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]


def race(count, action):
    """Runs action(i) in `count` threads at once; returns what each returned or raised."""
    results, barrier = [None] * count, threading.Barrier(count)

    def run(i):
        barrier.wait()
        try:
            results[i] = action(i)
        except Exception as error:  # the race's losers are what we look at
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.fixture
def service(redis_client):
    return MatchService(RedisEventStore(redis_client), RecordedBots(), snapshot_every=5)


def test_concurrent_moves_at_the_same_version_let_exactly_one_through(service):
    created = service.create("mantis", {}, THREE)
    token = created["seats"][0]["token"]
    results = race(10, lambda i: service.move(created["id"], token, {"action": "score"}, 2))
    assert sum(isinstance(r, dict) for r in results) == 1
    assert all(isinstance(r, Conflict) for r in results if not isinstance(r, dict))
    log = service.events(created["id"], None)["events"]
    assert [e["version"] for e in log] == [1, 2, 3, 4]


def test_concurrent_retries_with_one_idempotency_key_append_once_and_agree(service):
    created = service.create("mantis", {}, THREE)
    token = created["seats"][0]["token"]
    results = race(8, lambda i: service.move(created["id"], token, {"action": "score"}, 2, idempotency_key="same"))
    answers = [r for r in results if isinstance(r, dict)]
    assert answers and all(a == answers[0] for a in answers)
    assert all(isinstance(r, (dict, Conflict)) for r in results)
    assert service.get(created["id"], None)["version"] == 4


def test_a_long_match_loads_from_its_snapshot_to_the_same_state_as_a_full_replay(service, redis_client):
    created = service.create("mantis", {}, THREE, seed="long")
    while service.get(created["id"], None)["status"] == "active":
        seat = service.get(created["id"], None)["to_act"][0]
        version = service.get(created["id"], None)["version"]
        service.move(created["id"], created["seats"][seat]["token"], {"action": "score"}, version)
    log = RedisEventStore(redis_client).read(created["id"])
    assert first_break(log) is None and len(log) > 20
    loaded = RedisEventStore(redis_client).load(created["id"])
    assert loaded.snapshot is not None and len(loaded.events) < 5
    assert service._load(created["id"]).state == match.evolve_all(None, log)


def test_bot_turns_are_queued_as_rq_jobs_and_a_worker_plays_them_to_the_end(redis_url, redis_client):
    queue = Queue("bots", connection=redis.Redis.from_url(redis_url))
    service = MatchService(RedisEventStore(redis_client), RqBotScheduler(queue))
    jobs.configure(service)
    created = service.create("mantis", {}, [{"bot": "random"}, {"bot": "greedy"}], seed="bots")
    assert queue.count == 1
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    finished = service.get(created["id"], None)
    assert finished["status"] == "finished"
    log = RedisEventStore(redis_client).read(created["id"])
    assert first_break(log) is None and log[-1]["type"] == "match_finished"


def test_a_bot_turn_scheduled_twice_is_played_once(redis_url, redis_client):
    queue = Queue("bots", connection=redis.Redis.from_url(redis_url))
    service = MatchService(RedisEventStore(redis_client), RqBotScheduler(queue))
    jobs.configure(service)
    # three seats: no extra turn after a steal, so one bot turn is exactly one event
    created = service.create("mantis", {}, [{"bot": "random"}, {"name": "ann"}, {"name": "bob"}])
    RqBotScheduler(queue).schedule(created["id"], 0, 2)
    assert queue.count == 1  # the deterministic job id keeps one copy
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    assert service.get(created["id"], None)["version"] == 4
    assert jobs.play_bot_turn(created["id"], 0, 2) == "stale"


def test_the_janitor_re_enqueues_a_bot_turn_whose_worker_died_and_leaves_queued_turns_alone(redis_url, redis_client):
    from rq.job import Job, JobStatus

    from workers.janitor import sweep
    from workers.scheduler import bot_job_id
    now = [1000.0]
    queue = Queue("bots", connection=redis.Redis.from_url(redis_url))
    service = MatchService(RedisEventStore(redis_client), RqBotScheduler(queue), clock=lambda: now[0])
    jobs.configure(service)
    created = service.create("mantis", {}, [{"bot": "random"}, {"name": "ann"}, {"name": "bob"}])
    job = Job.fetch(bot_job_id(created["id"], 0, 2), connection=queue.connection)
    now[0] += 30
    assert sweep(service, queue, stall_after=5) == []  # still waiting in the queue: a backlog, not a crash
    queue.remove(job)  # a worker took it off the queue and died before marking it started
    queue.connection.delete("cr:janitor:lock")
    assert sweep(service, queue, stall_after=5) == [job.id]
    job = Job.fetch(job.id, connection=queue.connection)
    queue.remove(job)
    job.set_status(JobStatus.STARTED)  # a worker took it, started it, and died
    queue.connection.delete("cr:janitor:lock")
    assert sweep(service, queue, stall_after=5) == [job.id]
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    assert service.get(created["id"], None)["version"] == 4


def test_the_janitor_ignores_recent_turns_and_retires_finished_matches(redis_url, redis_client):
    from workers.janitor import sweep
    now = [1000.0]
    queue = Queue("bots", connection=redis.Redis.from_url(redis_url))
    service = MatchService(RedisEventStore(redis_client), RqBotScheduler(queue), clock=lambda: now[0])
    jobs.configure(service)
    created = service.create("mantis", {}, [{"bot": "random"}, {"bot": "random"}])
    assert service.stalled_bot_turns(stall_after=5) == []
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    now[0] += 30
    assert sweep(service, queue, stall_after=5) == [] and RedisEventStore(redis_client).active() == []
    assert service.get(created["id"], None)["status"] == "finished"
