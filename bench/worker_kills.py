"""How soon a bot turn resumes after its worker is SIGKILLed, with kills back to back, before (a commit,
default main) and after (the working tree), each with its own default STALL_AFTER and JANITOR_EVERY.

`--workers` RQ workers (`python -m bootstrap.worker` of the tree) play all-bot Mantis matches of searching
bots (`--budget-ms` a turn, so a kill lands mid-job); a killed worker is started again at once, as
supervisord does. Each kill picks a worker that holds a bot turn, `--apart` seconds after the previous kill
(0.1-0.4 s: back to back, so both workers are often starting again at once); a turn resumes when another worker
starts it again (or its match has moved past the version it was at); a turn killed again is a new kill. Printed:
the seconds from each kill to its turn's resumption, median, p90 and max, and the machine's load average (1 min)
before and after each run, as other work on the machine slows the workers' start.
Usage: python bench/worker_kills.py [BEFORE=main] [--kills 12] [--workers 2] [--matches 4] [--apart 0.1 0.4]
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
from rq import Queue, Worker
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job, JobStatus

from common import embedded_redis, median, percentile
from eventstore.redis_store import RedisEventStore
from service.matches import MatchService
from trees import source_tree
from workers.scheduler import RqBotScheduler

QUEUE = "bots"
NEVER = 120  # seconds after which a turn counts as lost


class Workers:
    """The worker processes, each started again at once when killed, beside RQ's scheduler as `make run` runs
    it (a job a killed worker left is retried through RQ's scheduled jobs, which only the scheduler enqueues)."""

    def __init__(self, tree: Path, redis_url: str, count: int):
        self.env = {**os.environ, "PYTHONPATH": str(tree), "REDIS_URL": redis_url, "QUEUE": QUEUE}
        self.processes = [self.start() for _ in range(count)]
        self.scheduler = self.start("bootstrap.scheduler")

    def start(self, program: str = "bootstrap.worker") -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", program], cwd="/", env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill_one_holding_a_turn(self, queue: Queue, chance: random.Random) -> tuple[str, str] | None:
        """Kills a worker in the middle of a bot turn and starts another: (the worker's name, the turn's job
        id), or None when no worker holds one."""
        holding = {worker.pid: (worker.name, worker.get_current_job_id()) for worker in Worker.all(queue=queue)}
        busy = [i for i, process in enumerate(self.processes)
                if (holding.get(process.pid, (None, None))[1] or "").startswith("bot-")]
        if not busy:
            return None
        victim = chance.choice(busy)
        held = holding[self.processes[victim].pid]
        self.processes[victim].send_signal(signal.SIGKILL)
        self.processes[victim].wait()
        self.processes[victim] = self.start()
        return held

    def stop(self):
        for process in [*self.processes, self.scheduler]:
            process.kill()
            process.wait()


def match_and_version(job_id: str) -> tuple[str, int]:
    """From a bot turn's job id, bot-<match>-<version>-<seat> (workers/scheduler.py)."""
    match_id, version, _ = job_id.removeprefix("bot-").rsplit("-", 2)
    return match_id, int(version)


def resumed_elsewhere(service: MatchService, queue: Queue, killed: str, job_id: str) -> bool:
    """The turn is played, or another worker than the one killed has started it again."""
    match_id, version = match_and_version(job_id)
    match = service.get(match_id, None)
    if match["version"] > version or match["status"] == "finished":
        return True
    try:
        job = Job.fetch(job_id, connection=queue.connection)
        return job.get_status() == JobStatus.STARTED and job.worker_name not in (None, killed)
    except (NoSuchJobError, InvalidJobOperation):  # none yet, or the janitor is replacing it this moment
        return False


def resume_times(tree: Path, args) -> list[float]:
    chance = random.Random(7)
    with embedded_redis() as redis_url:
        queue = Queue(QUEUE, connection=redis.Redis.from_url(redis_url))
        service = MatchService(RedisEventStore(redis.Redis.from_url(redis_url, decode_responses=True)),
                               RqBotScheduler(queue))
        bots = [{"bot": "ismcts", "bot_options": {"iterations": 100000, "budget_ms": args.budget_ms}}] * 2
        created = iter(range(1_000_000))

        def new_match() -> str:
            return service.create("mantis", {}, bots, seed=f"kills-{next(created)}")["id"]

        matches = [new_match() for _ in range(args.matches)]
        workers = Workers(tree, redis_url, args.workers)
        pending, resumed = {}, []  # (match, version) -> when its worker was killed
        try:
            time.sleep(3)  # the workers start
            next_kill = time.monotonic()
            while len(resumed) + len(pending) < args.kills or pending:
                now = time.monotonic()
                for (killed, job_id), killed_at in list(pending.items()):
                    if resumed_elsewhere(service, queue, killed, job_id):
                        resumed.append(now - killed_at)
                        print(f"  {tree.name}: resumed {resumed[-1]:.1f} s after its kill", flush=True)
                        del pending[(killed, job_id)]
                    elif now - killed_at > NEVER:
                        resumed.append(float("inf"))
                        del pending[(killed, job_id)]
                if len(resumed) + len(pending) < args.kills and now >= next_kill:
                    held = workers.kill_one_holding_a_turn(queue, chance)
                    if held:
                        pending[held] = now
                        next_kill = now + chance.uniform(*args.apart)
                matches = [m if service.get(m, None)["status"] != "finished" else new_match() for m in matches]
                time.sleep(0.02)
        finally:
            workers.stop()
    return resumed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before", nargs="?", default="main")
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--budget-ms", type=int, default=300)
    parser.add_argument("--apart", type=float, nargs=2, default=(0.1, 0.4), metavar=("LOW", "HIGH"),
                        help="seconds from one kill to the next, drawn between LOW and HIGH")
    args = parser.parse_args()
    figures, loads = {}, {}
    for label, revision in (("before", args.before), ("after", ".")):
        with source_tree(revision) as tree:
            load_before = os.getloadavg()[0]
            figures[label] = resume_times(tree, args)
            loads[label] = (load_before, os.getloadavg()[0])
    print(f"seconds from a worker's SIGKILL to its bot turn played, {args.kills} kills {args.apart[0]}-{args.apart[1]} "
          f"s apart, {args.workers} workers (before = {args.before})")
    for label, seconds in figures.items():
        print(f"  {label}: median {median(seconds):.1f}, p90 {percentile(seconds, 0.9):.1f}, max {max(seconds):.1f}, "
              f"load {loads[label][0]:.1f} -> {loads[label][1]:.1f} "
              f"({', '.join(f'{s:.1f}' for s in sorted(seconds))})")


if __name__ == "__main__":
    main()
