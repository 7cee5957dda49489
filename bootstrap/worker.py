"""`python -m bootstrap.worker`: one RQ worker on the bot queue, with the service wired in and a janitor
thread that recovers bot turns lost with a crashed worker (one janitor sweeps at a time, under a lock) and
archives the finished matches whose time has come (ARCHIVE_AFTER).

It runs no RQ scheduler: RQ forks one from the worker, and a SIGKILLed worker would leave it orphaned,
still holding the scheduler lock; `python -m bootstrap.scheduler` is a program of its own instead."""
import logging
import threading
import time

import redis
from rq import SimpleWorker

from bootstrap import (build_accounts, build_bot_scheduler, build_match_service, build_redis, build_timer_queue,
                       build_tournament_scheduler, build_tournament_service, logs, settings, wait_for_redis)
from service import log_context
from workers import jobs
from workers.janitor import sweep, sweep_tournaments

log = logging.getLogger("cardroom.worker")


def run_janitor(service, scheduler, tournaments, tournament_scheduler, config) -> None:
    log_context.bind_contextvars(program="janitor")  # this thread's lines are the janitor's, not the worker's
    while True:
        time.sleep(config.janitor_every)
        try:
            sweep(service, scheduler, config.stall_after, config.bot_turn_expiry)
            service.archive_finished()  # idempotent: every worker's janitor may run it
            sweep_tournaments(tournaments, tournament_scheduler, config.stall_after)
        except (redis.ConnectionError, redis.TimeoutError):
            log.warning("janitor: Redis unreachable; next pass in %.1f s", config.janitor_every)
        except Exception:  # no failure may end the thread; the next pass tries again
            log.exception("janitor pass failed")


def beat(worker: SimpleWorker, every: float, stop: threading.Event) -> None:
    """RQ's SimpleWorker beats only between jobs; this beats during a long search too, so the janitor
    can tell a busy worker from a dead one within `stall_after`."""
    while not stop.wait(every):
        try:
            if worker.connection.exists(worker.key):  # registered, and not yet gone: never recreate it
                worker.heartbeat()
        except Exception:  # as for the janitor: the next beat tries again
            log.exception("worker heartbeat failed")


class BotWorker(SimpleWorker):
    """SimpleWorker runs jobs in this process (no fork per job): a bot turn starts sooner, and a worker
    killed mid-job loses nothing that the janitor does not recover."""

    # RQ doubles its pause between tries to reach Redis up to 60 s; 2 s resumes bot turns soon after an outage.
    max_connection_wait_time = 2.0

    def execute_job(self, job, queue):
        """The job's lines carry its id, its match (and seat) or tournament, and the id of the request that caused
        it (workers/scheduler.py), as do the jobs it enqueues in turn."""
        with log_context.bound_contextvars(job_id=job.id, **job.meta):
            super().execute_job(job, queue)


def main() -> None:
    config = settings()
    logs.configure("worker", config.log_format)
    scheduler = build_bot_scheduler(config)
    queue = scheduler.queue
    wait_for_redis(queue.connection, log)
    client = build_redis(config)
    accounts = build_accounts(config, client)  # a tournament's matches may seat accounts
    service = build_match_service(config, client, accounts)
    tournaments = build_tournament_service(config, service, client, accounts)
    jobs.configure(service, tournaments)
    worker = BotWorker([build_timer_queue(queue), queue], connection=queue.connection)  # timers first
    threading.Thread(target=run_janitor, args=(service, scheduler, tournaments, build_tournament_scheduler(config),
                                               config), daemon=True, name="janitor").start()
    threading.Thread(target=beat, args=(worker, config.stall_after / 3, threading.Event()), daemon=True,
                     name="heartbeat").start()
    # A Redis error outside RQ's reconnecting ends work(); the process exits and its supervisor starts it again.
    worker.work()


if __name__ == "__main__":
    main()
