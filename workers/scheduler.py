"""Bot turns as RQ jobs with deterministic ids: one job per (match, version, seat)."""
from rq import Queue, Retry

JOB_TIMEOUT_SECONDS = 60


def bot_job_id(match_id: str, seat: int, version: int) -> str:
    return f"bot-{match_id}-{version}-{seat}"


class RqBotScheduler:
    def __init__(self, queue: Queue):
        self._queue = queue

    def schedule(self, match_id: str, seat: int, version: int) -> None:
        # A turn scheduled twice is harmless: the job submits at `version`, so the second run finds the
        # turn gone ("stale"); the deterministic id keeps the queue from holding two copies.
        self._queue.enqueue("workers.jobs.play_bot_turn", match_id, seat, version,
                            job_id=bot_job_id(match_id, seat, version), retry=Retry(max=3, interval=[1, 2, 4]),
                            job_timeout=JOB_TIMEOUT_SECONDS, result_ttl=600, failure_ttl=86400)
