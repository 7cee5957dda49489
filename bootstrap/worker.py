"""`python -m bootstrap.worker`: one RQ worker on the bot queue, with the service wired in and a janitor
thread that recovers bot turns lost with a crashed worker (one janitor sweeps at a time, under a lock),
archives the finished matches whose time has come (ARCHIVE_AFTER) and pairs the seek pools.

It runs no RQ scheduler: RQ forks one from the worker, and a SIGKILLed worker would leave it orphaned,
still holding the scheduler lock; `python -m bootstrap.scheduler` is a program of its own instead."""
import logging
import threading
import time

from rq import SimpleWorker

from bootstrap import (Services, build_recovered_queue, build_services, build_timer_queue, logs, settings,
                       wait_for_redis)
from bootstrap.config import Settings
from bootstrap.outage import UNREACHABLE, RedisOutage
from observability.metrics import janitor_passed, redis_error
from service import log_context
from workers import jobs
from workers.janitor import (pair_every_pool, pair_seeks, sweep, sweep_ratings, sweep_tournaments,
                             sweep_transparency)

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


def beat(worker: SimpleWorker, every: float, stop: threading.Event, outage: RedisOutage) -> None:
    """RQ's SimpleWorker beats only between jobs; this beats during a long search too, so the janitor
    can tell a busy worker from a dead one within `stall_after`."""
    while not stop.wait(every):
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

    def execute_job(self, job, queue):
        """The job's lines carry its id, its match (and seat) or tournament, and the id of the request that caused
        it (workers/scheduler.py), as do the jobs it enqueues in turn."""
        with log_context.bound_contextvars(job_id=job.id, **job.meta):
            super().execute_job(job, queue)


def main() -> None:
    config = settings()
    logs.configure("worker", config.log_format)
    outage = RedisOutage(log)
    logging.getLogger("rq.worker").addFilter(outage.quieting())
    built = build_services(config)
    queue = built.bot_queue
    wait_for_redis(queue.connection, outage)
    jobs.configure(built.matches, built.tournaments, lambda game: pair_seeks(built.seeks, queue.connection, game))
    # timers first, then the turns recovered from dead workers (workers/scheduler.py, recovered_queue_name)
    worker = BotWorker([build_timer_queue(queue), build_recovered_queue(queue), queue], connection=queue.connection)
    threading.Thread(target=run_janitor, args=(built, config, outage), daemon=True, name="janitor").start()
    threading.Thread(target=beat, args=(worker, config.stall_after / BEATS_PER_STALL, threading.Event(), outage),
                     daemon=True, name="heartbeat").start()
    # A Redis error outside RQ's reconnecting ends work(); the process exits and its supervisor starts it again.
    worker.work()


if __name__ == "__main__":
    main()
