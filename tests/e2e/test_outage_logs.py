"""Redis lost and back, again and again, under a running worker and scheduler: each process logs one line when
it loses Redis and one when Redis is back, and no traceback."""
import os
import subprocess
import sys
import time

import pytest

from bootstrap.embedded_redis import EmbeddedRedis
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e
OUTAGES = 3
READY = {"bootstrap.worker": "Listening on", "bootstrap.scheduler": "Acquired scheduler lock"}


def start(module: str, env: dict, log):
    return subprocess.Popen([sys.executable, "-m", module], env=env, stdout=log, stderr=subprocess.STDOUT)


def test_each_outage_is_one_lost_line_and_one_back_line_per_process_and_no_traceback(tmp_path):
    redis_server = EmbeddedRedis(tmp_path / "redis").start()
    env = {**os.environ, "REDIS_URL": redis_server.url, "QUEUE": "bots-outage", "JANITOR_EVERY": "0.2"}
    logs = {module: tmp_path / f"{module}.log" for module in ("bootstrap.worker", "bootstrap.scheduler")}
    processes = [start(module, env, path.open("w")) for module, path in logs.items()]
    try:
        wait_for(lambda: all(READY[module] in path.read_text() for module, path in logs.items()),
                 "the worker and the scheduler to start")
        for _ in range(OUTAGES):
            redis_server.stop()
            time.sleep(3)  # long enough for every beat, janitor pass and poll to notice
            redis_server.start()
            time.sleep(3)
        still_running = [process.poll() is None for process in processes]
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=15)
        redis_server.stop()

    assert still_running == [True, True]  # they rode the outages out
    for module, path in logs.items():
        text = path.read_text()
        assert "Traceback" not in text, f"{module}:\n{text}"
        lost, back = text.count("Redis lost"), text.count("Redis back")
        # a pair of lines an outage, not a line a failing call; on a loaded machine a Redis read slower than
        # REDIS_TIMEOUT is an outage of its own, so a few more pairs than the outages made may come
        assert lost == back and OUTAGES <= lost < 2 * OUTAGES, f"{module}:\n{text}"
