"""A tournament over gunicorn and the RQ workers runs by itself, and survives its workers being SIGKILLed and a
restart of everything mid-tournament: it finishes with every match recorded once and an export that verifies."""
import contextlib
import os
import signal
import time

import pytest
import requests

from service.tournament_audit import verify_tournament
from tests.e2e.conftest import running_service
from tests.e2e.test_self_healing import Service
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e
SPECS = [{"game": "mantis", "format": "duplicate", "deals": 6, "table_size": 2, "max_parallel": 3,
          "entrants": [{"bot": "random"}, {"bot": "greedy"}]},
         {"game": "flipout", "format": "swiss", "rounds": 3, "table_size": 2, "max_parallel": 2,
          "entrants": [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}]}]
SETTINGS = {"STALL_AFTER": "2", "JANITOR_EVERY": "0.5", "LIMIT_CREATE": "", "LIMIT_JOIN": "", "LIMIT_MOVES": "",
            "LIMIT_ACCOUNTS": "", "LIMIT_CHALLENGES": "", "LIMIT_READS": ""}


def progress(base, ids):
    return [requests.get(f"{base}/v1/tournaments/{t}", timeout=10).json()["progress"] for t in ids]


def test_a_tournament_finishes_counting_each_match_once_through_worker_kills_and_a_restart(redis_url, tmp_path):
    settings = {"REDIS_URL": redis_url, **SETTINGS}
    for run in ("first", "second"):
        (tmp_path / run).mkdir()
    with running_service(tmp_path / "first", **settings) as base:
        ids = [requests.post(f"{base}/v1/tournaments", json=spec, timeout=10).json()["id"] for spec in SPECS]
        service = Service(base, tmp_path / "first")
        wait_for(lambda: sum(p["done"] for p in progress(base, ids)) >= 2, "a match recorded", seconds=120)
        for _ in range(3):  # workers killed mid-job, several times
            for name in ("worker-0", "worker-1"):
                pid = service.pid(name)
                if pid:  # supervisord may still report a worker RUNNING that has just died: gone is what a kill wants
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            time.sleep(0.7)
        midway = progress(base, ids)
        assert any(p["done"] < p["total"] for p in midway), "the tournaments ended before the restart"
    # everything stopped mid-tournament (API, workers, scheduler); started again on the same Redis
    with running_service(tmp_path / "second", **settings) as base:
        wait_for(lambda: all(p["done"] == p["total"] for p in progress(base, ids)), "every tournament finished",
                 seconds=240)
        for tournament_id in ids:
            export = requests.get(f"{base}/v1/tournaments/{tournament_id}/export", timeout=30).json()
            recorded = [e["data"]["match"] for e in export["events"] if e["type"] == "match_recorded"]
            assert len(recorded) == len(set(recorded))
            verdict = verify_tournament(export)
            assert verdict.ok and verdict.complete, verdict.summary()
            document = requests.get(f"{base}/v1/tournaments/{tournament_id}", timeout=10).json()
            assert document["status"] == "finished" and document["progress"]["done"] == len(recorded)
