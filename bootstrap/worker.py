"""`python -m bootstrap.worker`: one RQ worker on the bot queue, with the service wired in and a janitor
thread that recovers bot turns lost with a crashed worker (one janitor sweeps at a time, under a lock),
archives the finished matches whose time has come (ARCHIVE_AFTER) and pairs the seek pools.

It runs no RQ scheduler: RQ forks one from the worker, and a SIGKILLed worker would leave it orphaned,
still holding the scheduler lock; `python -m bootstrap.scheduler` is a program of its own instead."""
import logging
import threading
import time

from rq import SimpleWorker

from bootstrap import Services, build_rq_client, build_services, logs, settings, wait_for_redis
from bootstrap.config import Settings
from bootstrap.outage import UNREACHABLE, RedisOutage
from observability.metrics import janitor_passed, redis_error
from service import log_context
from workers import jobs
from workers.janitor import (pair_every_pool, pair_seeks, sweep, sweep_ratings, sweep_tournaments,
                             sweep_transparency)
from workers.scheduler import recovered_queue_name, timer_queue_name

log = logging.getLogger("cardroom.worker")
# a worker is taken as dead after STALL_AFTER without a beat: 4 beats missed, not one late beat under load
BEATS_PER_STALL = 4


def run_janitor(built: Services, config: Settings, outage: RedisOutage) -> None:
    log_context.bind_contextvars(program="janitor")  # this thread's lines are the janitor's, not the worker's
    while True:  # a pass at once: a worker started in place of a killed one finds the turn it held
        try:
            turns = sweep(built.matches, built.bot_scheduler, config.stall_after, config.bot_turn_expiry)
            built.matches.archive_finished()  # idempotent: every worker's janitor may run it
            advances = sweep_tournaments(built.tournaments, built.tournament_scheduler, config.stall_after)
            sweep_ratings(built.ladders, config.stall_after)  # idempotent too: a match is rated once on its ladder
            sweep_transparency(built.transparency, config.stall_after)  # and its leaf is appended once
            pair_every_pool(built.seeks, built.bot_queue.connection)
            janitor_passed(len(turns), len(advances), time.time())
            outage.back()
        except UNREACHABLE as error:
            redis_error("janitor")
            outage.lost(error)
        except Exception:  # no failure may end the thread; the next pass tries again
            log.exception("janitor pass failed")
        time.sleep(config.janitor_every)


def beat(worker: "BotWorker", every: float, stop: threading.Event, outage: RedisOutage) -> None:
    """RQ's SimpleWorker beats only between jobs; this beats during a long search too, so the janitor
    can tell a busy worker from a dead one within `stall_after`. Between jobs it is silent: the worker's own loop
    beats before each wait for a job, so a loop that takes no job (its wait hung on a dead connection) goes
    silent too, and /health/ready says so."""
    while not stop.wait(every):
        if not worker.on_job.is_set():
            continue
        try:
            if worker.connection.exists(worker.key):  # registered, and not yet gone: never recreate it
                worker.heartbeat()
            outage.back()
        except UNREACHABLE as error:
            outage.lost(error)
        except Exception:  # as for the janitor: the next beat tries again
            log.exception("worker heartbeat failed")


class BotWorker(SimpleWorker):
    """SimpleWorker runs jobs in this process (no fork per job): a bot turn starts sooner, and a worker
    killed mid-job loses nothing that the janitor does not recover."""

    # RQ doubles its pause between tries to reach Redis up to 60 s; 2 s resumes bot turns soon after an outage.
    max_connection_wait_time = 2.0

    def __init__(self, queues, *, listen_seconds: float, redis_timeout: float, **options):
        """`listen_seconds`: how long one wait for a job (BLPOP) lasts; `redis_timeout`: REDIS_TIMEOUT."""
        self._listen_seconds = listen_seconds
        self._redis_timeout = redis_timeout
        self.on_job = threading.Event()  # set while a job runs, for the beat thread
        super().__init__(queues, **options)

    @property
    def dequeue_timeout(self) -> float:  # type: ignore[override]
        """A wait on a connection that died silently hangs this long, and Redis keeps such a dead wait as long,
        handing it the next job pushed (which the janitor then recovers): a short wait bounds both, where RQ's own
        is worker_ttl - 15 (405 s). The loop beats before each wait."""
        return self._listen_seconds

    @property
    def connection_timeout(self) -> float:  # type: ignore[override]
        """The socket timeout RQ gives the pool of the worker's client (it raises the pool's to this): one wait for
        a job and one REDIS_TIMEOUT more. The client is the worker's alone (build_worker), so every other read of
        the process (the janitor's, the beat's, the jobs') still gives up after REDIS_TIMEOUT."""
        return self._listen_seconds + self._redis_timeout

    def execute_job(self, job, queue):
        """The job's lines carry its id, its match (and seat) or tournament, and the id of the request that caused
        it (workers/scheduler.py), as do the jobs it enqueues in turn."""
        self.on_job.set()
        try:
            with log_context.bound_contextvars(job_id=job.id, **job.meta):
                super().execute_job(job, queue)
        finally:
            self.on_job.clear()


def build_worker(config: Settings) -> BotWorker:
    """The worker on RQ's Redis through a client of its own (BotWorker.connection_timeout), taking the timers
    first, then the turns recovered from dead workers, then the bot queue (workers/scheduler.py)."""
    return BotWorker([timer_queue_name(config.queue), recovered_queue_name(config.queue), config.queue],
                     connection=build_rq_client(config), listen_seconds=config.stall_after / BEATS_PER_STALL,
                     redis_timeout=config.redis_timeout)


def main() -> None:
    config = settings()
    logs.configure("worker", config.log_format)
    outage = RedisOutage(log, "worker")
    logging.getLogger("rq.worker").addFilter(outage.quieting())
    built = build_services(config)
    queue = built.bot_queue
    wait_for_redis(queue.connection, outage)
    jobs.configure(built.matches, built.tournaments, lambda game: pair_seeks(built.seeks, queue.connection, game))
    worker = build_worker(config)
    threading.Thread(target=run_janitor, args=(built, config, outage), daemon=True, name="janitor").start()
    threading.Thread(target=beat, args=(worker, config.stall_after / BEATS_PER_STALL, threading.Event(), outage),
                     daemon=True, name="heartbeat").start()
    # A Redis error outside RQ's reconnecting ends work(); the process exits and its supervisor starts it again.
    worker.work()


if __name__ == "__main__":
    main()
