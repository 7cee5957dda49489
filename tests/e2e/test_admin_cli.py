"""`cardroom admin` against the whole service (gunicorn, RQ workers): the operator aborts a match, disables an
account and voids a rating by the CLI, and each action is logged with who asked and why."""
import json
import subprocess
import sys
import uuid

import pytest
import requests

from tests.e2e.conftest import running_service
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e
ADMIN = "e2e-admin-key"


def admin(base: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", "admin", "--url", base, "--key", ADMIN, "--by", "ops-ann",
                           *arguments], capture_output=True, text=True, timeout=60)


def test_the_operator_aborts_a_match_and_disables_an_account_from_the_cli(redis_url, tmp_path):
    with running_service(tmp_path, REDIS_URL=redis_url, ADMIN_KEY=ADMIN) as base:
        name = f"mal-{uuid.uuid4().hex[:8]}"
        key = requests.post(f"{base}/v1/accounts", json={"name": name, "kind": "bot"}).json()["api_key"]
        auth = {"Authorization": f"Bearer {key}"}
        created = requests.post(f"{base}/v1/matches", headers=auth, json={
            "game": "mantis", "seats": [{"account": name}, {"bot": "random"}, {"bot": "greedy"}]}).json()
        other = requests.post(f"{base}/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]})
        aborted = admin(base, "abort", other.json()["id"], "--reason", "a broken table")
        assert aborted.returncode == 0, aborted.stderr
        assert requests.get(f"{base}/v1/matches/{other.json()['id']}").json()["result"]["aborted"] == {
            "by": "operator", "reason": "a broken table"}
        disabled = admin(base, "disable", name, "--reason", "spam")
        assert disabled.returncode == 0, disabled.stderr
        assert created["id"] in disabled.stdout
        assert requests.get(f"{base}/v1/accounts/me", headers=auth).status_code == 403
        assert admin(base, "stuck").returncode == 0
        refused = subprocess.run([sys.executable, "-m", "cli", "admin", "--url", base, "--key", "wrong", "stuck"],
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode == 1 and "not_admin" in refused.stderr
    logged = "".join(path.read_text() for path in (tmp_path / "logs").glob("*.log"))
    assert f"admin ops-ann aborted match {other.json()['id']}: a broken table" in logged
    assert "admin ops-ann disabled account" in logged and ": spam" in logged


def test_the_operator_voids_a_rated_matchs_rating_from_the_cli(redis_url, tmp_path):
    with running_service(tmp_path, REDIS_URL=redis_url, ADMIN_KEY=ADMIN) as base:
        # given a rated match of two house bots, played and rated by the workers
        created = requests.post(f"{base}/v1/matches", json={
            "game": "mantis", "seats": [{"bot": "random"}, {"bot": "greedy"}], "clock": {"move_ms": 60_000},
            "rated": True}).json()

        def rated_in():
            """Whether the greedy bot's rating history on the ladder holds this match (other tests rate bots too)."""
            chart = requests.get(f"{base}/v1/ratings/mantis.classic.2p/players/bot:greedy/chart.svg")
            return chart.status_code == 200 and f'data-match="{created["id"]}"' in chart.text

        wait_for(rated_in, "the bots' rating")
        # when the operator voids it, then the bots' ratings are as if it had never been rated
        voided = admin(base, "void-rating", created["id"], "--reason", "a test table")
        assert voided.returncode == 0, voided.stderr
        assert {"bot:random", "bot:greedy"} <= set(json.loads(voided.stdout)["players"])
        assert not rated_in()
        again = admin(base, "void-rating", created["id"], "--reason", "twice")
        assert again.returncode == 1 and "rating_voided" in again.stderr
    logged = "".join(path.read_text() for path in (tmp_path / "logs").glob("*.log"))
    assert f"admin ops-ann voided the rating of match {created['id']}" in logged and ": a test table" in logged
