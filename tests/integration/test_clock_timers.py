"""Turn-clock timers on a real Redis and RQ: scheduled at the deadline with the version they guard, run by
a worker once RQ's scheduler has enqueued them, and harmless when stale or run twice."""
import pytest
import redis
from rq import Queue, SimpleWorker
from rq.registry import ScheduledJobRegistry

from eventstore.redis_store import RedisEventStore
from service.matches import MatchService
from tests.support.service import RecordedBots
from workers import jobs
from workers.scheduler import RqTurnTimers, timer_job_id

pytestmark = pytest.mark.integration
TWO = [{"name": "ann"}, {"name": "bob"}]


def test_a_clocked_match_schedules_a_timer_that_a_worker_runs_to_a_timeout(redis_url, redis_client):
    queue = Queue("timers-test", connection=redis.Redis.from_url(redis_url))
    now = [1_700_000_000.0]
    service = MatchService(RedisEventStore(redis_client), RecordedBots(), clock=lambda: now[0],
                           timers=RqTurnTimers(queue))
    jobs.configure(service)
    created = service.create("mantis", {}, TWO, clock_spec={"first_move_ms": 1500})
    job_id = timer_job_id(created["id"], created["version"], now[0] + 1.5)
    assert ScheduledJobRegistry(queue=queue).get_job_ids() == [job_id]
    RqTurnTimers(queue).schedule(created["id"], created["version"], now[0] + 1.5)  # the same timer again
    assert ScheduledJobRegistry(queue=queue).get_job_ids() == [job_id]
    now[0] += 2  # past the deadline: what RQ's scheduler does then, moving the job to the queue
    queue.enqueue_job(queue.fetch_job(job_id))
    queue.enqueue_job(queue.fetch_job(job_id))  # and again: RQ's scheduler may fire a job twice
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    log = RedisEventStore(redis_client).read(created["id"])
    assert [e["type"] for e in log].count("turn_timed_out") == 1 and log[-1]["type"] == "match_finished"
