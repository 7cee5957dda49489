"""Readiness on a real Redis: /health/ready fails naming the bot workers and the scheduler while none runs,
passes once `python -m bootstrap.worker` and `python -m bootstrap.scheduler` run, and fails again soon after
the worker is killed (its registration outlives it; its heartbeat does not). A job enqueued during a request
carries the request's id."""
import os
import signal
import subprocess
import sys
import uuid

import pytest
from rq.job import Job

from bootstrap import build_app, build_bot_scheduler
from bootstrap.config import Settings
from service import log_context
from tests.support.waiting import wait_for

pytestmark = pytest.mark.integration
STALL_AFTER = "1"  # seconds of silence after which a worker or the scheduler counts as gone


@pytest.fixture
def environment(redis_url):
    return {"REDIS_URL": redis_url, "QUEUE": f"bots-ready-{uuid.uuid4().hex[:8]}", "STALL_AFTER": STALL_AFTER}


def readiness(client) -> tuple[int, dict]:
    answer = client.get("/health/ready")
    return answer.status_code, answer.get_json()["checks"]


def start(module: str, environment: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", module], env={**os.environ, **environment},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_ready_only_while_a_worker_and_the_scheduler_beat(environment):
    client = build_app(Settings.from_env(environment)).test_client()
    status, checks = readiness(client)
    assert status == 503 and checks["redis"] == "ok"
    assert checks["bot_workers"] != "ok" and checks["scheduler"] != "ok"
    worker, scheduler = start("bootstrap.worker", environment), start("bootstrap.scheduler", environment)
    try:
        wait_for(lambda: readiness(client)[0] == 200, "ready once a worker and the scheduler run")
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        status, checks = wait_for(lambda: (answer := readiness(client))[0] == 503 and answer,
                                  "not ready once the worker is gone")
        assert checks["bot_workers"] != "ok" and checks["scheduler"] == "ok"
    finally:
        for process in (worker, scheduler):
            process.kill()
            process.wait(timeout=10)


def test_a_bot_turn_enqueued_during_a_request_carries_its_id_match_and_seat(environment):
    scheduler = build_bot_scheduler(Settings.from_env(environment))
    with log_context.bound_contextvars(request_id="move-req-1"):
        scheduler.schedule("m-1", 1, 7)
    job = Job.fetch("bot-m-1-7-1", connection=scheduler.queue.connection)
    assert job.meta == {"match_id": "m-1", "seat": 1, "request_id": "move-req-1"}
