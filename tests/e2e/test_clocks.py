"""Over HTTP against gunicorn, RQ workers and RQ's scheduler: turn clocks with short limits. A seat that
stops moving does not hang its match: its timers (RQ scheduled jobs) play for it until the match ends."""
import time

import pytest
import requests

pytestmark = pytest.mark.e2e
LIMITS = {"move_ms": 300, "first_move_ms": 1000, "zombie_after": 0}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def wait_until_finished(server, match_id, timeout):
    deadline = time.monotonic() + timeout
    while (current := requests.get(f"{server}/v1/matches/{match_id}").json())["status"] != "finished":
        assert time.monotonic() < deadline, f"the match did not finish within {timeout}s: {current}"
        time.sleep(0.1)
    return current


def test_a_seat_that_stops_after_its_first_move_is_played_on_timeout_to_the_end(server):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"name": "ann"}, {"bot": "greedy"}], "clock": LIMITS}).json()
    match_id, token = created["id"], created["seats"][0]["token"]
    legal = requests.get(f"{server}/v1/matches/{match_id}/legal-moves", headers=bearer(token)).json()
    assert requests.post(f"{server}/v1/matches/{match_id}/moves", headers=bearer(token), json={
        "move": legal["moves"][0], "expected_version": legal["version"]}).status_code == 201
    finished = wait_until_finished(server, match_id, timeout=120)
    assert finished["result"]["winners"] and "aborted" not in finished["result"]
    log = requests.get(f"{server}/v1/matches/{match_id}/events?limit=1000").json()["events"]
    ann_moves = [i for i, e in enumerate(log) if e["type"] == "moved" and e["data"]["seat"] == 0]
    timeouts = [i for i, e in enumerate(log) if e["type"] == "turn_timed_out"]
    # every turn of ann's after her first was missed: exactly one timeout each, right before its substitute move
    assert len(ann_moves) > 1 and timeouts == [i - 1 for i in ann_moves[1:]]
    assert all(log[i]["data"] == {"seat": 0, "version": log[i]["version"] - 1} for i in timeouts)
    assert requests.get(f"{server}/v1/matches/{match_id}/audit").json()["ok"]


def test_a_first_move_that_never_comes_aborts_the_match(server):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "flipout", "seats": [{"name": "ann"}, {"name": "bob"}], "clock": LIMITS}).json()
    finished = wait_until_finished(server, created["id"], timeout=30)
    assert finished["result"] == {"winners": [], "scores": {}, "aborted": {"seat": 0, "reason": "first_move_timeout"}}
    log = requests.get(f"{server}/v1/matches/{created['id']}/events").json()["events"]
    assert [e["type"] for e in log][-3:] == ["turn_timed_out", "match_aborted", "match_finished"]
