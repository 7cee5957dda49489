"""`python -m bootstrap.scheduler`: RQ's scheduler for the bot queue and the queue of recovered bot turns (it
enqueues the retries of failed bot turns when their time comes) and the turn-clock timers (workers/scheduler.py)
when their deadline comes, as a program of its own under the supervisor rather than forked by a worker, whose
SIGKILL would leave it orphaned and holding the scheduler lock.

Its name is fixed per host and queue: RQ's scheduler lock belongs to a name, so a restarted scheduler
takes its own lock back at once instead of waiting for the dead one's lock to expire. Redis going away
ends it with an error; its supervisor starts it again and it waits for Redis."""
import logging
import socket
import time

from rq.scheduler import RQScheduler

from bootstrap import build_queue, build_recovered_queue, build_timer_queue, logs, settings, wait_for_redis
from bootstrap.outage import UNREACHABLE, RedisOutage
from observability.metrics import scheduler_passed

log = logging.getLogger("cardroom.scheduler")
POLL_SECONDS = 0.2  # how often it looks for due jobs: a timeout fires at most about this late


class PollingScheduler(RQScheduler):
    """RQ's scheduler, looking for due jobs every POLL_SECONDS rather than every `interval`: RQ sleeps whole
    `interval` seconds (it also gives its locks interval + 60 s, and Redis wants whole seconds there), which
    would let a turn-clock timer fire up to a second late. The loop is RQ's own (rq/scheduler.py, work)."""

    def __init__(self, *args, outage: RedisOutage, **kwargs):
        super().__init__(*args, **kwargs)
        self.outage = outage

    def work(self):
        self._install_signal_handlers()
        self.register_birth()
        while not self._stop_requested:
            try:
                if self.should_reacquire_locks:
                    self.acquire_locks()
                self.heartbeat()
                self.enqueue_scheduled_jobs()
                scheduler_passed(time.time())
                self.outage.back()
            except UNREACHABLE as error:  # rides the outage out rather than dying with a traceback
                self.outage.lost(error)
            time.sleep(POLL_SECONDS)
        self.stop()


def main() -> None:
    config = settings()
    logs.configure("scheduler", config.log_format)
    outage = RedisOutage(log, "scheduler")
    logging.getLogger("rq.scheduler").addFilter(outage.quieting())
    queue = build_queue(config)
    wait_for_redis(queue.connection, outage)
    PollingScheduler([queue, build_timer_queue(queue), build_recovered_queue(queue)], connection=queue.connection,
                     name=f"cardroom-{socket.gethostname()}-{config.queue}", outage=outage).work()


if __name__ == "__main__":
    main()
