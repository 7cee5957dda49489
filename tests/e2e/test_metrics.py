"""GET /metrics of the whole service (gunicorn's workers, the RQ workers and their janitors, the RQ scheduler, as
`make run` starts them): a match against a bot leaves figures from every kind of process in one scrape."""
import shutil
import subprocess

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.test_http_play import bearer, wait_for_turn
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e
MOVES_ROUTE = "/v1/matches/<match_id>/moves"
PROMTOOL = shutil.which("promtool")


def scrape(server) -> dict[tuple, float]:
    answer = requests.get(f"{server}/metrics", timeout=10)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.text) for sample in family.samples}


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def play_against_a_bot(server) -> list[dict]:
    """ann plays a random bot to the end; the match's log."""
    created = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"name": "ann"}, {"bot": "random"}]}).json()
    match_id, token = created["id"], created["seats"][0]["token"]
    current = wait_for_turn(server, match_id, token, 0)
    while current["status"] == "active":
        legal = requests.get(f"{server}/v1/matches/{match_id}/legal-moves", headers=bearer(token)).json()
        moved = requests.post(f"{server}/v1/matches/{match_id}/moves", headers=bearer(token),
                              json={"move": legal["moves"][0], "expected_version": legal["version"]})
        assert moved.status_code == 201, moved.json()
        current = wait_for_turn(server, match_id, token, 0)
    return requests.get(f"{server}/v1/matches/{match_id}/events").json()["events"]


def test_a_match_against_a_bot_shows_the_figures_of_the_web_workers_the_rq_worker_and_the_scheduler(server):
    log = play_against_a_bot(server)
    bot_moves = sum(1 for event in log if event["type"] == "move_played" and event.get("seat") == 1)
    samples = scrape(server)
    # from gunicorn's workers: the moves' requests, under their route's template
    assert value(samples, "cardroom_http_requests_total", route=MOVES_ROUTE, method="POST", status="201") >= 1
    # from the RQ worker, which alone plays bot turns; the moves of both counted wherever they were appended
    assert value(samples, "cardroom_bot_turns_total", kind="random", outcome="played") >= max(1, bot_moves)
    assert value(samples, "cardroom_bot_turn_delay_seconds_count", kind="random") >= 1
    assert value(samples, "cardroom_moves_total", game="mantis") >= 2
    # from the RQ scheduler, and a worker's janitor; the queues read at the scrape
    assert value(samples, "cardroom_scheduler_last_pass_timestamp_seconds") > 0
    queues = {dict(labels)["queue"] for name, labels in samples if name == "cardroom_queue_oldest_job_age_seconds"}
    # bot turns, turn clocks, bot turns recovered from dead workers
    assert len(queues) == 3 and {"clocks", "recovered"} <= {queue.rsplit("-", 1)[-1] for queue in queues}
    # a janitor passes every JANITOR_EVERY (1 s)
    wait_for(lambda: value(scrape(server), "cardroom_janitor_last_pass_timestamp_seconds") > 0, "a janitor pass")


@pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed: make promtool")
def test_promtool_accepts_what_metrics_answers(server):
    play_against_a_bot(server)
    text = requests.get(f"{server}/metrics", timeout=10).text
    checked = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
