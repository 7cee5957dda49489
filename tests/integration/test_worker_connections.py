"""The bot worker's connections to Redis on a real Redis: RQ's long socket timeout stays in the worker's own pool,
every wait for a job is short, and between jobs only the worker's own loop beats (bootstrap/worker.py)."""
import logging
import threading
import time
from datetime import timedelta

import pytest
from rq import SimpleWorker
from rq.utils import now as rq_now, utcformat

from bootstrap import build_services
from bootstrap.config import Settings
from bootstrap.outage import RedisOutage
from bootstrap.worker import BEATS_PER_STALL, beat, build_worker

pytestmark = pytest.mark.integration
REDIS_TIMEOUT = 0.5
STALL_AFTER = 2.0


@pytest.fixture
def config(redis_url):
    return Settings.from_env({"REDIS_URL": redis_url, "QUEUE": "bots-connections",
                              "REDIS_TIMEOUT": str(REDIS_TIMEOUT), "STALL_AFTER": str(STALL_AFTER)})


def socket_timeout(client) -> float:
    return client.connection_pool.connection_kwargs["socket_timeout"]


def test_rqs_socket_timeout_stays_in_the_workers_own_pool_and_covers_one_short_wait(config):
    built = build_services(config)
    worker = build_worker(config)
    assert worker.dequeue_timeout == STALL_AFTER / BEATS_PER_STALL
    assert socket_timeout(worker.connection) == worker.dequeue_timeout + REDIS_TIMEOUT
    # the janitor, the beat and the service's reads give up after REDIS_TIMEOUT, as before the worker was built
    assert socket_timeout(built.bot_queue.connection) == REDIS_TIMEOUT
    assert socket_timeout(built.client) == REDIS_TIMEOUT


def stale(worker: SimpleWorker) -> None:
    worker.register_birth()
    worker.connection.hset(worker.key, "last_heartbeat", utcformat(rq_now() - timedelta(seconds=30)))


def last_heartbeat(worker: SimpleWorker):
    return SimpleWorker.find_by_key(worker.key, connection=worker.connection).last_heartbeat


def beats_while(worker, running_a_job: bool):
    """Runs the beat thread over `worker` for a few of its periods; the worker's last heartbeat after."""
    if running_a_job:
        worker.on_job.set()
    stop = threading.Event()
    beating = threading.Thread(target=beat, args=(worker, 0.05, stop, RedisOutage(logging.getLogger(__name__), "worker")))
    beating.start()
    time.sleep(0.5)  # ten periods of the beat
    stop.set()
    beating.join()
    return last_heartbeat(worker)


def test_between_jobs_the_beat_thread_is_silent(config):
    """An idle worker beats from its own loop, before each wait for a job: a loop stuck on a dead connection goes
    silent, and /health/ready and the janitor see it gone."""
    idle = build_worker(config)
    stale(idle)
    assert beats_while(idle, running_a_job=False) < rq_now() - timedelta(seconds=20)


def test_during_a_job_the_beat_thread_beats(config):
    busy = build_worker(config)
    stale(busy)
    assert beats_while(busy, running_a_job=True) > rq_now() - timedelta(seconds=20)
