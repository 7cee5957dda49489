"""Bot turns as RQ jobs with deterministic ids: one job per (match, version, seat)."""
from rq import Queue, Retry
from rq.job import Job

JOB_TIMEOUT_SECONDS = 60


def bot_job_id(match_id: str, seat: int, version: int) -> str:
    return f"bot-{match_id}-{version}-{seat}"


class RqBotScheduler:
    def __init__(self, queue: Queue):
        self._queue = queue

    def schedule(self, match_id: str, seat: int, version: int) -> None:
        # The deterministic id lets us skip a turn already queued. Two schedulers racing past this check
        # are still harmless: each job submits at `version`, so the second run finds the turn gone.
        job_id = bot_job_id(match_id, seat, version)
        if Job.exists(job_id, connection=self._queue.connection):
            return
        self._queue.enqueue("workers.jobs.play_bot_turn", match_id, seat, version,
                            job_id=job_id, retry=Retry(max=3, interval=[1, 2, 4]),
                            job_timeout=JOB_TIMEOUT_SECONDS, result_ttl=600, failure_ttl=86400)
