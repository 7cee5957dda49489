"""Bot turns as RQ jobs with deterministic ids: one job per (match, version, seat); turn-clock timers as RQ
jobs scheduled at a deadline (enqueue_at, run by RQ's scheduler: bootstrap/scheduler.py): one per (match,
version). Each job's meta is the context of its log lines (service/log_context.py): what it works on and the id
of the request that caused it; the worker binds it while it runs the job (bootstrap/worker.py)."""
import logging
from datetime import datetime, timezone

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from service import log_context

JOB_TIMEOUT_SECONDS = 60
log = logging.getLogger(__name__)


def bot_job_id(match_id: str, seat: int, version: int) -> str:
    return f"bot-{match_id}-{version}-{seat}"


def timer_job_id(match_id: str, version: int, at: float) -> str:
    return f"clock-{match_id}-{version}-{round(at * 1000)}"


def job_context(**subject) -> dict:
    """A job's meta: its subject and the id of the request (or of the job) at hand, if any (the janitor's
    re-enqueues have none)."""
    request_id = log_context.request_id()
    return {**subject, log_context.REQUEST_ID: request_id} if request_id else subject


def timer_queue_name(bot_queue: str) -> str:
    """Timers have a queue of their own, which the workers take from first: a deadline is not kept
    waiting behind long bot searches."""
    return f"{bot_queue}-clocks"


class RqBotScheduler:
    def __init__(self, queue: Queue, result_ttl: int = 10, failure_ttl: int = 86400):
        """`result_ttl`, `failure_ttl`: seconds RQ keeps the record of a job played or failed. A played
        turn's record is only needed while its turn could be scheduled again (the next append follows
        within a moment); a failed one is kept longer, to be looked at."""
        self.queue = queue
        self._result_ttl = result_ttl
        self._failure_ttl = failure_ttl

    def schedule(self, match_id: str, seat: int, version: int) -> None:
        """Called after the move that awaits the bot is stored: if RQ's Redis cannot be reached, the move
        still stands and is acknowledged, and the janitor enqueues the turn (it is noted as awaited)."""
        try:
            self._enqueue(match_id, seat, version)
        except (redis.ConnectionError, redis.TimeoutError):
            log.warning("bot turn %s not enqueued (Redis unreachable); the janitor will",
                        bot_job_id(match_id, seat, version))

    def requeue(self, match_id: str, seat: int, version: int) -> None:
        """Enqueues the turn again unless its job is waiting in the queue: the operator's push for a turn whose
        job was lost or failed (a second run submits at the same version, so the turn is still played once)."""
        job_id = bot_job_id(match_id, seat, version)
        try:
            job = Job.fetch(job_id, connection=self.queue.connection)
        except NoSuchJobError:
            job = None
        if job is not None and job.get_status() == JobStatus.QUEUED and job_id in self.queue.get_job_ids():
            return
        if job is not None:
            job.delete()
        self.recover(match_id, seat, version)

    def recover(self, match_id: str, seat: int, version: int) -> None:
        """Enqueues a turn a dead worker lost (the janitor's, or the operator's), at the front of the queue: it has
        waited longest already, and behind a backlog of searches its player would wait again as long."""
        self._enqueue(match_id, seat, version, at_front=True)

    def _enqueue(self, match_id: str, seat: int, version: int, at_front: bool = False) -> None:
        # The deterministic id lets us skip a turn already queued. Two schedulers racing past this check
        # are still harmless: each job submits at `version`, so the second run finds the turn gone.
        job_id = bot_job_id(match_id, seat, version)
        if Job.exists(job_id, connection=self.queue.connection):
            return
        self.queue.enqueue("workers.jobs.play_bot_turn", match_id, seat, version,
                            job_id=job_id, retry=Retry(max=3, interval=[1, 2, 4]),
                            job_timeout=JOB_TIMEOUT_SECONDS, result_ttl=self._result_ttl,
                            failure_ttl=self._failure_ttl, meta=job_context(match_id=match_id, seat=seat),
                            at_front=at_front)


class RqTurnTimers:
    def __init__(self, queue: Queue, failure_ttl: int = 86400):
        """Every move of a clocked match schedules a timer, and most find their version gone: each is kept to
        the least (no existence check before, no result after; a failed one is kept `failure_ttl`)."""
        self.queue = queue
        self._failure_ttl = failure_ttl

    def schedule(self, match_id: str, version: int, at: float) -> None:
        """Schedules the timer guarding `version` at `at` (seconds since the epoch). A timer that fires late,
        twice (RQ's scheduler may) or after the match moved on finds the version gone and does nothing; one
        lost with Redis is found by the janitor (MatchService.overdue_clocks)."""
        job_id = timer_job_id(match_id, version, at)  # the same timer scheduled twice is one job
        try:
            self.queue.enqueue_at(datetime.fromtimestamp(at, timezone.utc), "workers.jobs.time_out", match_id,
                                  version, job_id=job_id, job_timeout=JOB_TIMEOUT_SECONDS, result_ttl=0,
                                  failure_ttl=self._failure_ttl, meta=job_context(match_id=match_id))
        except (redis.ConnectionError, redis.TimeoutError):
            log.warning("timer %s not scheduled (Redis unreachable); the janitor will see its deadline pass", job_id)


def tournament_job_id(tournament_id: str, version: int) -> str:
    return f"tournament-{tournament_id}-{version}"


class RqTournamentScheduler:
    """A tournament's advance as an RQ job on the bots' queue, one job per (tournament, version)."""

    def __init__(self, queue: Queue, result_ttl: int = 10, failure_ttl: int = 86400):
        self.queue = queue
        self._result_ttl = result_ttl
        self._failure_ttl = failure_ttl

    def schedule(self, tournament_id: str, version: int) -> None:
        """As for a bot turn: if RQ's Redis cannot be reached, the janitor schedules it (`stalled`)."""
        job_id = tournament_job_id(tournament_id, version)
        try:
            if Job.exists(job_id, connection=self.queue.connection):
                return
            self.queue.enqueue("workers.jobs.advance_tournament", tournament_id, version, job_id=job_id,
                               retry=Retry(max=3, interval=[1, 2, 4]), job_timeout=JOB_TIMEOUT_SECONDS,
                               result_ttl=self._result_ttl, failure_ttl=self._failure_ttl,
                               meta=job_context(tournament_id=tournament_id))
        except (redis.ConnectionError, redis.TimeoutError):
            log.warning("tournament advance %s not enqueued (Redis unreachable); the janitor will", job_id)


def seek_pass_job_id(game: str, version: int) -> str:
    return f"seeks-{game}-{version}"


class RqSeekPasses:
    """A pairing pass over a game's seek pool as an RQ job on the timers' queue (taken first: a pass is short and
    a player waits on it), one per (game, pool version): each seek that arrives nudges one. The workers' janitor
    passes every JANITOR_EVERY anyway, so a nudge lost with RQ's Redis delays a pairing by that at most."""

    def __init__(self, bot_queue: Queue, failure_ttl: int = 86400):
        self.queue = Queue(timer_queue_name(bot_queue.name), connection=bot_queue.connection)
        self._failure_ttl = failure_ttl

    def schedule(self, game: str, version: int) -> None:
        job_id = seek_pass_job_id(game, version)
        try:
            self.queue.enqueue("workers.jobs.pair_seeks", game, job_id=job_id, job_timeout=JOB_TIMEOUT_SECONDS,
                               result_ttl=0, failure_ttl=self._failure_ttl, meta=job_context(game=game))
        except (redis.ConnectionError, redis.TimeoutError):
            log.warning("seek pass %s not enqueued (Redis unreachable); the janitor's next pass pairs", job_id)
