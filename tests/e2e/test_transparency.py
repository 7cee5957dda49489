"""The transparency log over the whole service (gunicorn, RQ workers, make run's key): bot matches played to their end
are leaves of the signed tree, and `cardroom verify` proves a saved head the start of the server's later one and a
finished match in it, asking the server for the proofs."""
import json
import subprocess
import sys

import pytest
import requests

from tests.e2e.conftest import NO_RATE_LIMITS, running_service
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e
BOTS = {"game": "blockers", "seats": [{"bot": "greedy"}, {"bot": "random"}]}


def finished_matches(base: str, count: int) -> list[str]:
    created = [requests.post(f"{base}/v1/matches", json=BOTS).json()["id"] for _ in range(count)]
    for match_id in created:
        wait_for(lambda: requests.get(f"{base}/v1/matches/{match_id}").json()["status"] == "finished",
                 f"match {match_id} to finish")
    return created


def verify(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", "verify", *arguments], capture_output=True, text=True,
                          timeout=60)


def test_a_saved_head_and_a_finished_match_are_proven_against_the_server_s_later_head(redis_url, tmp_path):
    (tmp_path / "data").mkdir()
    with running_service(tmp_path / "data", REDIS_URL=redis_url, **NO_RATE_LIMITS) as base:
        assert (tmp_path / "data" / "transparency.pem").exists()
        earlier = finished_matches(base, 2)
        saved = requests.get(f"{base}/v1/transparency/head").json()
        for match_id in earlier:  # each leaf is appended right after the finishing move
            assert requests.get(f"{base}/v1/transparency/proof/inclusion", params={"match": match_id}).ok
        (tmp_path / "head.json").write_text(json.dumps(saved))
        later = finished_matches(base, 3)
        wait_for(lambda: requests.get(f"{base}/v1/transparency/head").json()["tree_size"] >= saved["tree_size"] + 3,
                 "the later matches' leaves")
        consistent = verify(str(tmp_path / "head.json"), "--url", base)
        assert consistent.returncode == 0, consistent.stdout + consistent.stderr
        assert f"OK: the signed tree of {saved['tree_size']} leaves is the start of" in consistent.stdout
        (tmp_path / "export.json").write_text(json.dumps(requests.get(f"{base}/v1/matches/{later[0]}/export").json()))
        included = verify(str(tmp_path / "export.json"), "--url", base, "--public-key", saved["public_key"])
        assert included.returncode == 0, included.stdout + included.stderr
        assert f"OK: match {later[0]} is leaf" in included.stdout
        (tmp_path / "export.json").write_text(json.dumps(requests.get(f"{base}/v1/matches/{earlier[0]}/export").json()))
        in_saved = verify(str(tmp_path / "export.json"), "--head", str(tmp_path / "head.json"), "--url", base)
        assert in_saved.returncode == 0 and f"of the signed tree of {saved['tree_size']}" in in_saved.stdout
