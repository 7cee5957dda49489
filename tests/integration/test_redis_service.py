"""The service on a real Redis: races, retries, snapshots, and bot turns run by a real RQ worker."""
import logging
import threading
import time
from datetime import timedelta

import pytest
import redis
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus
from rq.utils import now as rq_now, utcformat

from bootstrap.outage import RedisOutage
from bootstrap.worker import BotWorker, beat

from domain import match
from eventstore.chain import first_break
from eventstore.redis_store import BOTS_AWAITED, RedisEventStore, keys
from service.errors import Conflict
from service.matches import MatchService
from tests.support.service import RecordedBots
from workers import jobs
from workers.janitor import LOCK_KEY, sweep
from workers.scheduler import RqBotScheduler, bot_job_id

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


def test_turns_recovered_from_dead_workers_are_taken_before_the_turns_already_waiting_and_in_their_order(redis_url):
    queue = Queue("bots-recovery", connection=redis.Redis.from_url(redis_url))
    scheduler = RqBotScheduler(queue)
    queue.empty()
    scheduler.recovered.empty()
    for waiting in ("a" * 32, "b" * 32):
        scheduler.schedule(waiting, 0, 2)
    scheduler.recover([("c" * 32, 1, 5)], lost=lambda job: True)
    scheduler.recover([("d" * 32, 0, 7), ("e" * 32, 0, 3)], lost=lambda job: True)
    taken = [job.id for job, _ in iter(lambda: Queue.dequeue_any(worker_queues(scheduler), None,
                                                                 connection=queue.connection), None)]
    assert taken == [bot_job_id("c" * 32, 1, 5), bot_job_id("d" * 32, 0, 7), bot_job_id("e" * 32, 0, 3),
                     bot_job_id("a" * 32, 0, 2), bot_job_id("b" * 32, 0, 2)]


def worker_queues(scheduler):
    """The bot queues in the order a worker takes from them (bootstrap/worker.py, less the timers)."""
    return [scheduler.recovered, scheduler.queue]


@pytest.fixture
def janitor_setup(redis_url, redis_client):
    """A service on Redis with a settable clock, its RQ scheduler, and the one bot turn it awaits."""
    now = [1000.0]
    scheduler = RqBotScheduler(Queue("bots", connection=redis.Redis.from_url(redis_url)))
    service = MatchService(RedisEventStore(redis_client), scheduler, clock=lambda: now[0])
    jobs.configure(service)
    created = service.create("mantis", {}, [{"bot": "random"}, {"name": "ann"}, {"name": "bob"}])
    job = Job.fetch(bot_job_id(created["id"], 0, 2), connection=scheduler.queue.connection)
    return service, scheduler, now, created["id"], job


def sweep_once(service, scheduler):
    return sweep(service, scheduler, stall_after=5, give_up_after=3600)


def started_by(job, worker, queue):
    """As a worker leaves a job it has taken off the queue and started."""
    queue.remove(job)
    job.worker_name = worker.name
    job.save()
    job.set_status(JobStatus.STARTED)


def test_the_janitor_re_enqueues_a_bot_turn_whose_worker_died_and_leaves_queued_turns_alone(janitor_setup):
    service, scheduler, now, match_id, job = janitor_setup
    now[0] += 30
    assert sweep_once(service, scheduler) == []  # still waiting in the queue: a backlog, not a crash
    scheduler.queue.remove(job)  # a worker took it off the queue and died before marking it started
    assert sweep_once(service, scheduler) == [job.id]
    job = Job.fetch(job.id, connection=scheduler.queue.connection)
    dead = SimpleWorker([scheduler.queue], connection=scheduler.queue.connection)
    dead.register_birth()
    dead.connection.hset(dead.key, "last_heartbeat", utcformat(rq_now() - timedelta(seconds=30)))
    started_by(job, dead, scheduler.queue)  # it started the job, then beat no more
    assert sweep_once(service, scheduler) == [job.id]
    SimpleWorker(worker_queues(scheduler), connection=scheduler.queue.connection).work(burst=True)
    assert service.get(match_id, None)["version"] == 4


def test_the_janitor_recovers_a_turn_whose_job_rq_can_no_longer_delete(janitor_setup):
    """A process killed in the middle of RQ's job.delete (several round trips) left the job's list of executions
    naming one whose record was gone; RQ's job.delete then raised on it, at every janitor pass."""
    service, scheduler, now, match_id, job = janitor_setup
    dead = SimpleWorker([scheduler.queue], connection=scheduler.queue.connection)
    dead.register_birth()
    dead.connection.hset(dead.key, "last_heartbeat", utcformat(rq_now() - timedelta(seconds=30)))
    started_by(job, dead, scheduler.queue)
    scheduler.queue.connection.zadd(job.execution_registry.key, {"half-deleted": time.time() + 600})
    now[0] += 30
    assert sweep_once(service, scheduler) == [job.id]
    SimpleWorker(worker_queues(scheduler), connection=scheduler.queue.connection).work(burst=True)
    assert service.get(match_id, None)["version"] == 4


def test_after_a_restart_under_another_queue_name_the_janitor_recovers_the_turns_left_in_the_old_queue(
        janitor_setup, redis_url):
    """Queued in a queue no worker takes from any more is lost, not waiting (tests/e2e/test_tournament_crash.py
    restarts everything under a new QUEUE)."""
    service, scheduler, now, match_id, job = janitor_setup
    renamed = RqBotScheduler(Queue("bots-renamed", connection=redis.Redis.from_url(redis_url)))
    now[0] += 30
    assert sweep_once(service, renamed) == [job.id]
    SimpleWorker(worker_queues(renamed), connection=renamed.queue.connection).work(burst=True)
    assert service.get(match_id, None)["version"] == 4


def test_the_operators_push_leaves_a_queued_turn_alone_and_re_enqueues_a_lost_one(janitor_setup):
    service, scheduler, now, match_id, job = janitor_setup
    scheduler.requeue(match_id, 0, 2)
    assert job.id in scheduler.queue.get_job_ids() and job.id not in scheduler.recovered.get_job_ids()
    scheduler.queue.remove(job)  # a worker took it and died
    scheduler.requeue(match_id, 0, 2)
    assert job.id in scheduler.recovered.get_job_ids()
    SimpleWorker(worker_queues(scheduler), connection=scheduler.queue.connection).work(burst=True)
    assert service.get(match_id, None)["version"] == 4


def test_one_janitor_passes_at_a_time_and_the_next_pass_follows_at_once(janitor_setup):
    service, scheduler, now, _, job = janitor_setup
    job.delete()  # its worker died with it
    with scheduler.queue.connection.lock(LOCK_KEY, timeout=5):
        now[0] += 6
        assert sweep_once(service, scheduler) == []  # another janitor is passing

    assert sweep_once(service, scheduler) == [job.id]  # that one released the lock: no wait for it to expire
    Job.fetch(job.id, connection=scheduler.queue.connection).delete()
    assert sweep_once(service, scheduler) == [job.id]  # and so did this one


def test_the_janitor_leaves_a_long_turn_alone_while_its_worker_beats(janitor_setup, redis_url):
    """RQ's SimpleWorker does not beat during a job: without bootstrap.worker's beat the last one is old."""
    service, scheduler, now, match_id, job = janitor_setup
    busy = BotWorker([scheduler.queue], connection=redis.Redis.from_url(redis_url), listen_seconds=1,
                     redis_timeout=2)
    busy.register_birth()
    started_by(job, busy, scheduler.queue)
    busy.on_job.set()  # its search runs
    busy.connection.hset(busy.key, "last_heartbeat", utcformat(rq_now() - timedelta(seconds=30)))
    stop = threading.Event()
    beating = threading.Thread(target=beat, args=(busy, 0.1, stop, RedisOutage(logging.getLogger(__name__), "worker")))
    beating.start()
    try:
        for _ in range(8):  # 8 janitor passes over 40 s (of the service's clock) of one search
            now[0] += 5
            time.sleep(0.15)
            assert sweep_once(service, scheduler) == []
    finally:
        stop.set()
        beating.join()
    assert Job.fetch(job.id, connection=scheduler.queue.connection).get_status() == JobStatus.STARTED
    busy.register_death()
    busy.connection.hset(busy.key, "last_heartbeat", utcformat(rq_now() - timedelta(seconds=30)))
    assert sweep_once(service, scheduler) == [job.id]  # a worker that stops beating is dead


def test_the_janitor_ignores_recent_turns_and_forgets_finished_matches(redis_url, redis_client):
    now = [1000.0]
    scheduler = RqBotScheduler(Queue("bots", connection=redis.Redis.from_url(redis_url)))
    service = MatchService(RedisEventStore(redis_client), scheduler, clock=lambda: now[0])
    jobs.configure(service)
    created = service.create("mantis", {}, [{"bot": "random"}, {"bot": "random"}])
    assert service.stalled_bot_turns(stall_after=5, give_up_after=3600) == []
    SimpleWorker([scheduler.queue], connection=scheduler.queue.connection).work(burst=True)
    now[0] += 30
    assert sweep_once(service, scheduler) == [] and redis_client.zcard(BOTS_AWAITED) == 0
    assert service.get(created["id"], None)["status"] == "finished"


def test_the_log_read_in_pages_on_redis_is_the_log_read_at_once_and_the_tag_follows_the_head(service):
    created = service.create("mantis", {}, THREE)
    tokens = [seat["token"] for seat in created["seats"]]
    version = created["version"]
    for turn in range(6):
        version = service.move(created["id"], tokens[turn % 3], {"action": "score"}, version)["version"]
    whole = service.events(created["id"], None)
    pages, after = [], 0
    while after is not None:
        page = service.events(created["id"], None, after=after, limit=4)
        pages, after = pages + page["events"], page["next_after"]
    assert pages == whole["events"] and len(pages) == version
    tag = service.tag(created["id"], tokens[1])
    assert tag == {"version": version, "head": whole["events"][-1]["hash"], "seat": 1}
def test_a_finished_match_keeps_its_log_and_meta_and_lets_its_extras_and_job_records_expire(redis_url, redis_client):
    scheduler = RqBotScheduler(Queue("bots", connection=redis.Redis.from_url(redis_url)), result_ttl=60)
    service = MatchService(RedisEventStore(redis_client), scheduler, snapshot_every=5, keep_finished_extras=600)
    jobs.configure(service)
    created = service.create("mantis", {}, [{"bot": "greedy"}, {"bot": "random"}], seed="retention")
    SimpleWorker([scheduler.queue], connection=scheduler.queue.connection).work(burst=True)
    assert service.get(created["id"], None)["status"] == "finished"
    events_key, meta_key, snaps_key, idem_key = keys(created["id"])
    assert redis_client.ttl(events_key) == -1 and redis_client.ttl(meta_key) == -1
    assert 0 < redis_client.ttl(snaps_key) <= 600 and 0 < redis_client.ttl(idem_key) <= 600
    job_keys = list(redis_client.scan_iter("rq:job:bot-*"))
    assert job_keys and all(0 < redis_client.ttl(key) <= 60 for key in job_keys)
