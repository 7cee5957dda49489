"""`python -m bootstrap.worker`: one RQ worker on the bot queue, with the service wired in and a janitor
thread that recovers bot turns lost with a crashed worker (one janitor sweeps at a time, under a lock)."""
import logging
import threading
import time

from rq import SimpleWorker

from bootstrap import build_match_service, build_queue, settings
from workers import jobs
from workers.janitor import sweep

log = logging.getLogger("cardroom.janitor")


def run_janitor(service, queue, stall_after: float, every: float) -> None:
    while True:
        time.sleep(every)
        try:
            sweep(service, queue, stall_after)
        except Exception:  # a Redis hiccup must not end the thread; the next pass tries again
            log.exception("janitor pass failed")


def main() -> None:
    config = settings()
    queue = build_queue(config)
    service = build_match_service(config)
    jobs.configure(service)
    threading.Thread(target=run_janitor, args=(service, queue, config.stall_after, config.janitor_every),
                     daemon=True, name="janitor").start()
    # SimpleWorker runs jobs in this process (no fork per job): a bot turn starts sooner, and a worker
    # killed mid-job loses nothing that the janitor does not recover.
    SimpleWorker([queue], connection=queue.connection).work(with_scheduler=True)


if __name__ == "__main__":
    main()
