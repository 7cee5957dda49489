"""Recovers bot turns lost with a crashed worker, in seconds rather than RQ's minutes, and turn-clock timers
lost with a worker or with Redis (it runs their timeout itself: `time_out` does nothing if it was done).

RQ notices an abandoned job only after its heartbeat TTL (at least 60 s) and a maintenance pass (every
10 minutes by default). The janitor instead asks the service which bot turns have been awaited longer
than `stall_after` and re-enqueues each one whose job is gone: not waiting in the queue, and not being
computed by a worker that still beats (bootstrap/worker.py beats every stall_after / 4 seconds, also
during a job). A job run twice is harmless, it submits at its version, but it costs a worker: a long
search re-enqueued while it runs would soon hold them all.

One janitor passes at a time (the workers each run one), under a lock released at the end of the pass, so a
pass comes every `janitor_every` seconds whoever makes it: a killed worker's turn is re-enqueued about
`stall_after` after its last beat (a lock held for `stall_after` after each pass would add as much again). The
lock expires after PASS_LOCK_SECONDS if its holder dies during the pass; it expired after `stall_after`, and with
kills back to back a janitor killed while passing kept the others from passing 2 s at a time.

A pass first finds which turns were lost, then replaces all their jobs in one transaction (replace_lost in
workers/scheduler.py), on the queue of recovered turns: a janitor killed during its pass (it lives in a worker)
recovers all of them or none, and the next pass does the rest; re-enqueued one by one, the first was taken at
once by the janitor's own worker, so a kill of that worker ended the pass there and left the lock held for
`stall_after`, pass after pass.

The janitor also runs the seek pools' pairing passes (service/seeks.py), one pass per pool at a time under the pool's
lock, which the jobs nudged by new seeks take too. The lock only saves work: two passes at once cannot pair a seek
twice (each appends its decision at the head it read) nor make two matches of a pairing (one id per pairing).
"""
import logging
from contextlib import contextmanager

from redis.exceptions import LockError
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus
from rq.utils import now

from domain.games import GAMES
from observability.metrics import seek_pass
from service.ladders import LadderService
from service.matches import MatchService
from service.seeks import SeekService
from service.tournaments import TournamentService
from service.transparency import TransparencyService
from workers.scheduler import RqBotScheduler, RqTournamentScheduler, waiting

log = logging.getLogger(__name__)
LOCK_KEY = "cr:janitor:lock"
TOURNAMENT_LOCK_KEY = "cr:janitor:tournaments:lock"
# How long a janitor killed during its pass holds the others back. A pass that lasts longer (0.1-0.4 s was seen
# on a loaded machine) may meet the next one: harmless, as its replacements are watched (replace_lost).
PASS_LOCK_SECONDS = 1.0
SEEK_LOCK_KEY = "cr:seeks:{game}:lock"
LONGEST_SEEK_PASS = 30.0  # seconds a pool's lock outlives a dead pass (a live one creating 100 matches takes ~1 s)


def sweep(service: MatchService, scheduler: RqBotScheduler, stall_after: float, give_up_after: float) -> list[str]:
    """One pass (by one janitor at a time): the ids of the jobs it re-enqueued."""
    with _one_pass_at_a_time(scheduler.queue.connection, LOCK_KEY, PASS_LOCK_SECONDS) as mine:
        return _sweep_bot_turns(service, scheduler, stall_after, give_up_after) if mine else []


def _sweep_bot_turns(service: MatchService, scheduler: RqBotScheduler, stall_after: float,
                     give_up_after: float) -> list[str]:
    requeued = scheduler.recover(service.stalled_bot_turns(stall_after, give_up_after),
                                 lambda job: _lost(scheduler.queue, job, stall_after))
    for job_id in requeued:
        log.warning("janitor: re-enqueued the stalled bot turn %s", job_id)
    for match_id, version in service.overdue_clocks(stall_after):
        log.warning("janitor: the clock of match %s at version %s was overdue: %s", match_id, version,
                    service.time_out(match_id, version))
    return requeued


def sweep_tournaments(tournaments: TournamentService, scheduler: RqTournamentScheduler,
                      stall_after: float) -> list[str]:
    """Re-enqueues the advance of each tournament that has work and has not moved for `stall_after` seconds,
    unless its job is waiting or being run: a worker killed mid-advance, a match's hook that found its
    job taken, RQ unreachable when it was due. One janitor at a time, as for bot turns."""
    with _one_pass_at_a_time(scheduler.queue.connection, TOURNAMENT_LOCK_KEY, PASS_LOCK_SECONDS) as mine:
        return _sweep_tournaments(tournaments, scheduler, stall_after) if mine else []


def _sweep_tournaments(tournaments: TournamentService, scheduler: RqTournamentScheduler,
                       stall_after: float) -> list[str]:
    requeued = scheduler.recover(tournaments.stalled(stall_after),
                                 lambda job: _lost(scheduler.queue, job, stall_after))
    for job_id in requeued:
        log.warning("janitor: re-enqueued the stalled tournament advance %s", job_id)
    return requeued


def sweep_ratings(ladders: LadderService, stall_after: float) -> list[tuple[str, str]]:
    """Rates the rated matches that finished `stall_after` seconds ago or more and are still due: their process
    died between the finishing append and the rating (service/matches/reactions/rated.py)."""
    done = ladders.rate_due(stall_after)
    for match_id, outcome in done:
        log.warning("janitor: the rating of match %s was due: %s", match_id, outcome)
    return done


def sweep_transparency(transparency: TransparencyService, stall_after: float) -> list[tuple[str, str]]:
    """Appends the leaves of the matches that finished `stall_after` seconds ago or more and are still due: their
    process died between the finishing append and the leaf's (service/matches/reactions/transparency.py)."""
    done = transparency.record_due(stall_after)
    for match_id, outcome in done:
        log.warning("janitor: the transparency leaf of match %s was due: %s", match_id, outcome)
    return done


def pair_seeks(seeks: SeekService, connection, game: str) -> dict | None:
    """One pairing pass over the game's pool: its counts, or None while another pass holds the pool."""
    with _one_pass_at_a_time(connection, SEEK_LOCK_KEY.format(game=game), LONGEST_SEEK_PASS) as mine:
        if not mine:
            return None
        done = seeks.pair(game)
    seek_pass(game, done)
    return done


def pair_every_pool(seeks: SeekService, connection) -> dict[str, dict]:
    """A pass over each game's pool that no other pass holds: their counts, by game."""
    passes = {game: pair_seeks(seeks, connection, game) for game in GAMES}
    return {game: done for game, done in passes.items() if done is not None}


@contextmanager
def _one_pass_at_a_time(connection, key: str, longest_pass: float):
    """True while this janitor holds the lock (released at the end; it expires after `longest_pass` if its
    holder dies), False when another janitor is passing."""
    lock = connection.lock(key, timeout=longest_pass, blocking=False)
    if not lock.acquire():
        yield False
        return
    try:
        yield True
    finally:
        try:
            lock.release()
        except LockError:  # the pass outlived the lock: another janitor may hold it by now
            pass


def _lost(queue: Queue, job: Job, stall_after: float) -> bool:
    """Neither waiting nor run: a backlog or a long search is not a crash."""
    return not waiting(job, queue) and not _computing(queue, job, stall_after)


def _computing(queue: Queue, job: Job, stall_after: float) -> bool:
    """Started by a worker that has beaten within `stall_after` seconds: still at work on it."""
    if job.get_status(refresh=False) != JobStatus.STARTED or not job.worker_name:
        return False
    worker = SimpleWorker.find_by_key(SimpleWorker.redis_worker_namespace_prefix + job.worker_name,
                                      connection=queue.connection)
    return (worker is not None and worker.last_heartbeat is not None
            and (now() - worker.last_heartbeat).total_seconds() < stall_after)
