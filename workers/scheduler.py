"""Bot turns as RQ jobs with deterministic ids: one job per (match, version, seat); turn-clock timers as RQ
jobs scheduled at a deadline (enqueue_at, run by RQ's scheduler: bootstrap/scheduler.py): one per (match,
version). Each job's meta is the context of its log lines (service/log_context.py): what it works on and the id
of the request that caused it; the worker binds it while it runs the job (bootstrap/worker.py)."""
import logging
from collections.abc import Callable, Iterable
from datetime import datetime, timezone

import redis
from redis.exceptions import WatchError
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from service import log_context

JOB_TIMEOUT_SECONDS = 60
WAITING_ELSEWHERE = {JobStatus.SCHEDULED, JobStatus.DEFERRED}
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


def recovered_queue_name(bot_queue: str) -> str:
    """Bot turns recovered from dead workers have a queue of their own, which the workers take from before the bot
    queue (after the timers): such a turn has waited longest already, and behind a backlog of searches its player
    would wait as long again. First in, first out: pushed to the front of the bot queue instead, a turn recovered
    earlier was passed by each turn recovered after it (docs/reliability.md, "A killed worker's bot turn")."""
    return f"{bot_queue}-recovered"


class RqBotScheduler:
    def __init__(self, queue: Queue, result_ttl: int = 10, failure_ttl: int = 86400):
        """`result_ttl`, `failure_ttl`: seconds RQ keeps the record of a job played or failed. A played
        turn's record is only needed while its turn could be scheduled again (the next append follows
        within a moment); a failed one is kept longer, to be looked at."""
        self.queue = queue
        self.recovered = Queue(recovered_queue_name(queue.name), connection=queue.connection)
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
        self.recover([(match_id, seat, version)], lambda job: not queued(job, self.queue))

    def recover(self, turns: Iterable[tuple[str, int, int]], lost: Callable[[Job], bool]) -> list[str]:
        """Enqueues again each of `turns` (match, seat, version) whose job is gone or `lost` (the janitor's, the
        operator's), on the queue of recovered turns, in their order (recovered_queue_name). The ids enqueued
        (replace_lost)."""
        return replace_lost(self.recovered, [self._job(*turn) for turn in turns], lost)

    def _enqueue(self, match_id: str, seat: int, version: int) -> None:
        # The deterministic id lets us skip a turn already queued. Two schedulers racing past this check
        # are still harmless: each job submits at `version`, so the second run finds the turn gone.
        if not Job.exists(bot_job_id(match_id, seat, version), connection=self.queue.connection):
            self.queue.enqueue_job(self._job(match_id, seat, version))

    def _job(self, match_id: str, seat: int, version: int) -> Job:
        return self.queue.create_job("workers.jobs.play_bot_turn", (match_id, seat, version),
                                     job_id=bot_job_id(match_id, seat, version), retry=Retry(max=3, interval=[1, 2, 4]),
                                     timeout=JOB_TIMEOUT_SECONDS, result_ttl=self._result_ttl,
                                     failure_ttl=self._failure_ttl, meta=job_context(match_id=match_id, seat=seat))


def waiting(job: Job, queue: Queue) -> bool:
    """In a queue the workers of `queue` take from, or waiting for RQ's scheduler to enqueue it (a retry) or for the
    job it depends on."""
    return job.get_status(refresh=False) in WAITING_ELSEWHERE or queued(job, queue)


def queued(job: Job, queue: Queue) -> bool:
    """Marked queued and really still in a queue the workers of the bot queue `queue` take from (it, or its queue of
    recovered turns). A worker killed right after taking a job off the queue (RQ moves it to an intermediate list first) leaves
    it marked queued but in no queue; a job queued before a restart under another QUEUE name is in a queue nobody
    takes from any more."""
    served = {queue.name, recovered_queue_name(queue.name)}
    return (job.get_status(refresh=False) == JobStatus.QUEUED  # as fetched a moment ago
            and job.origin in served
            and job.connection.lpos(Queue(job.origin, connection=job.connection).key, job.id) is not None)


def replace_lost(queue: Queue, fresh: list[Job], lost: Callable[[Job], bool]) -> list[str]:
    """Enqueues each of `fresh` on `queue` in place of the job of its id, if there is none or `lost` says so of it
    (it neither waits nor runs), in their order; the ids enqueued. All in one transaction: a process killed on the
    way replaces all of them or none, and leaves no job half deleted (RQ's job.delete takes several round trips;
    cut short, it left a job that RQ then failed to delete, "Execution ... not found", and the janitor's every pass
    failed on it). None either if one of them changed after it was found lost (another janitor replaced it first):
    the next pass looks again.

    A replaced job's leftovers in RQ's registries (the dead worker's execution) expire by themselves; should RQ's
    maintenance find one expired while the new job runs, it takes the job for abandoned and retries it: one run
    more, which finds its turn played."""
    found = _lost_among(queue, fresh, lost)
    if not found:
        return []
    with queue.connection.pipeline() as transaction:
        transaction.watch(*(job.key for job in found))  # from here on, a change to one of them aborts the transaction
        found = _lost_among(queue, found, lost)  # looked at again, watched
        transaction.multi()
        for job in found:
            transaction.delete(job.key)
            queue.enqueue_job(job, pipeline=transaction)
        try:
            transaction.execute()
        except WatchError:
            return []
    return [job.id for job in found]


def _lost_among(queue: Queue, jobs: list[Job], lost: Callable[[Job], bool]) -> list[Job]:
    """Those of `jobs` whose id has no job, or one that `lost` says was lost."""
    found = []
    for job in jobs:
        try:
            previous = Job.fetch(job.id, connection=queue.connection)
        except NoSuchJobError:
            previous = None
        if previous is None or lost(previous):
            found.append(job)
    return found


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
            if not Job.exists(job_id, connection=self.queue.connection):
                self.queue.enqueue_job(self._job(tournament_id, version))
        except (redis.ConnectionError, redis.TimeoutError):
            log.warning("tournament advance %s not enqueued (Redis unreachable); the janitor will", job_id)

    def recover(self, advances: Iterable[tuple[str, int]], lost: Callable[[Job], bool]) -> list[str]:
        """Enqueues again each of `advances` (tournament, version) whose job is gone or `lost` (replace_lost)."""
        return replace_lost(self.queue, [self._job(*advance) for advance in advances], lost)

    def _job(self, tournament_id: str, version: int) -> Job:
        return self.queue.create_job("workers.jobs.advance_tournament", (tournament_id, version),
                                     job_id=tournament_job_id(tournament_id, version),
                                     retry=Retry(max=3, interval=[1, 2, 4]), timeout=JOB_TIMEOUT_SECONDS,
                                     result_ttl=self._result_ttl, failure_ttl=self._failure_ttl,
                                     meta=job_context(tournament_id=tournament_id))

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
