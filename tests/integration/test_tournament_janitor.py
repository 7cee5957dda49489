"""The tournament's advance as an RQ job on a real Redis, and the janitor that re-finds a tournament whose job
was lost with a worker."""
import uuid

import pytest
import redis
from rq import Queue, SimpleWorker
from rq.job import Job

from eventstore.redis_store import RedisEventStore
from service.matches import MatchService
from service.tournaments import TournamentService
from tests.support.service import RecordedBots
from workers import jobs
from workers.janitor import sweep_tournaments
from workers.scheduler import RqTournamentScheduler, tournament_job_id

pytestmark = pytest.mark.integration
DUPLICATE = {"game": "mantis", "options": {}, "format": "duplicate", "deals": 2, "table_size": 2, "max_parallel": 2,
             "entrants": [{"bot": "random"}, {"bot": "greedy"}]}


def sweep(tournaments, scheduler):
    return sweep_tournaments(tournaments, scheduler, stall_after=5)


def test_a_tournament_whose_advance_was_lost_is_re_enqueued_once_it_stalls_and_then_advances(redis_url,
                                                                                            redis_client):
    now = [1000.0]
    scheduler = RqTournamentScheduler(Queue(f"tournaments-{uuid.uuid4().hex}",
                                            connection=redis.Redis.from_url(redis_url)))
    store = RedisEventStore(redis_client)
    matches = MatchService(store, RecordedBots(), tournaments=scheduler)
    tournaments = TournamentService(store, matches, scheduler, max_matches=100, clock=lambda: now[0])
    jobs.configure(matches, tournaments)
    created = tournaments.create(DUPLICATE)
    job = Job.fetch(tournament_job_id(created["id"], created["version"]), connection=scheduler.queue.connection)
    now[0] += 30
    assert created["id"] not in {i.split("-")[1] for i in sweep(tournaments, scheduler)}  # waiting: a backlog
    scheduler.queue.remove(job)  # a worker took it and died
    assert job.id in sweep(tournaments, scheduler)
    SimpleWorker([scheduler.queue], connection=scheduler.queue.connection).work(burst=True)
    document = tournaments.get(created["id"])
    assert sum(1 for t in document["pairings"][0]["tables"] if t["match"]) == 2
    assert job.id not in sweep(tournaments, scheduler)  # it moved: nothing to re-find
