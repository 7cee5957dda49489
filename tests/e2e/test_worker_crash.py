"""Workers killed with SIGKILL in the middle of bot turns of all-bot matches: every turn is still played, once."""
import os
import random
import signal
import subprocess
import sys
import time

import pytest
import redis
from rq import Queue, Worker

from eventstore.redis_store import RedisEventStore
from service.audit import verify_log
from service.matches import MatchService
from workers.scheduler import RqBotScheduler

pytestmark = pytest.mark.e2e
MATCHES = [("mantis", [{"bot": "random"}] * 3), ("mantis", [{"bot": "greedy"}, {"bot": "random"}]),
           ("blockers", [{"bot": "greedy"}, {"bot": "random"}]), ("flipout", [{"bot": "greedy"}] * 2),
           ("9stax", [{"bot": "random"}, {"bot": "greedy"}]), ("mantis", [{"bot": "greedy"}] * 4),
           # searching turns last their 100 ms think time: the kills land in the middle of them
           ("mantis", [{"bot": "ismcts", "bot_options": {"iterations": 150, "budget_ms": 100}}] * 2)]


def stuck(service, ids):
    matches = [service.get(i, None) for i in ids]
    return [(m["game"], m["version"], m["to_act"]) for m in matches if m["status"] != "finished"]


def start_worker(env, log):
    return subprocess.Popen([sys.executable, "-m", "bootstrap.worker"], env=env, stdout=log, stderr=subprocess.STDOUT)


def holding_a_turn(workers, queue):
    """The index of a worker process in the middle of a bot turn, or None. (Killed at random, the workers were
    mostly killed while starting, as a start takes longer than the 0.1-0.4 s between kills: no turn was lost.)"""
    busy = {worker.pid for worker in Worker.all(queue=queue) if (worker.get_current_job_id() or "").startswith("bot-")}
    return next((i for i, worker in enumerate(workers) if worker.pid in busy), None)


def test_every_match_finishes_with_a_verified_log_although_workers_are_killed_mid_job(redis_url, tmp_path):
    queue_name = f"bots-crash-{os.getpid()}"
    env = {**os.environ, "REDIS_URL": redis_url, "QUEUE": queue_name, "STALL_AFTER": "2", "JANITOR_EVERY": "0.5"}
    log_path = tmp_path / "workers.log"
    store = RedisEventStore(redis.Redis.from_url(redis_url, decode_responses=True))
    queue = Queue(queue_name, connection=redis.Redis.from_url(redis_url))
    service = MatchService(store, RqBotScheduler(queue))
    with log_path.open("w") as log:
        workers = [start_worker(env, log) for _ in range(2)]
        ids = [service.create(game, {}, seats, seed=f"crash-{i}")["id"] for i, (game, seats) in enumerate(MATCHES)]
        kills, chaos = 0, random.Random(7)
        try:
            deadline = time.monotonic() + 120
            while any(service.get(i, None)["status"] != "finished" for i in ids):
                assert time.monotonic() < deadline, f"a bot turn was lost: {stuck(service, ids)}"
                victim = holding_a_turn(workers, queue) if kills < 12 else None
                if victim is None:
                    time.sleep(0.02)
                    continue
                workers[victim].send_signal(signal.SIGKILL)
                workers[victim].wait()
                workers[victim] = start_worker(env, log)
                kills += 1
                time.sleep(chaos.uniform(0.1, 0.4))
        finally:
            for worker in workers:
                worker.kill()
                worker.wait()
    for match_id in ids:
        verdict = verify_log(store.read(match_id))
        assert verdict.ok and verdict.complete, verdict.summary()
    assert kills == 12
    recovered = log_path.read_text().count("re-enqueued the stalled bot turn")
    print(f"{kills} kills, {recovered} turns recovered by the janitor")
    assert recovered > 0, "no kill left a turn for the janitor to recover"
