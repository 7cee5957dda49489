"""Over HTTP against gunicorn and RQ workers: a human plays bots to the end; races and retries."""
import threading
import time

import pytest
import requests

pytestmark = pytest.mark.e2e


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def wait_for_turn(server, match_id, token, seat, timeout=15.0):
    """Polls until `seat` is to act or the match is over; returns the match. How soon bots answer is
    measured by bench/bot_service.py, not asserted here: a loaded CI machine is no clock."""
    start = time.monotonic()
    while True:
        current = requests.get(f"{server}/v1/matches/{match_id}", headers=bearer(token)).json()
        if seat in current["to_act"] or current["status"] == "finished":
            return current
        assert time.monotonic() - start < timeout, f"the bots did not move within {timeout}s: {current}"
        time.sleep(0.02)


def test_a_human_plays_two_bots_to_the_end_and_the_bots_answer_every_move(server):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"name": "ann"}, {"bot": "random"}, {"bot": "greedy"}]}).json()
    match_id, token = created["id"], created["seats"][0]["token"]
    current = created
    while current["status"] == "active":
        legal = requests.get(f"{server}/v1/matches/{match_id}/legal-moves", headers=bearer(token)).json()
        moved = requests.post(f"{server}/v1/matches/{match_id}/moves", headers=bearer(token),
                              json={"move": legal["moves"][0], "expected_version": legal["version"]})
        assert moved.status_code == 201, moved.json()
        current = wait_for_turn(server, match_id, token, 0)
    assert current["result"]["winners"]
    log = requests.get(f"{server}/v1/matches/{match_id}/events").json()["events"]
    assert [e["version"] for e in log] == list(range(1, len(log) + 1)) and log[-1]["type"] == "match_finished"


def test_concurrent_http_moves_at_one_version_let_exactly_one_through(server):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]}).json()
    match_id, token = created["id"], created["seats"][0]["token"]
    statuses, barrier = [], threading.Barrier(8)

    def mover():
        barrier.wait()
        statuses.append(requests.post(f"{server}/v1/matches/{match_id}/moves", headers=bearer(token),
                                      json={"move": {"action": "score"}, "expected_version": 2}).status_code)

    threads = [threading.Thread(target=mover) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [201] + [409] * 7
    log = requests.get(f"{server}/v1/matches/{match_id}/events").json()["events"]
    assert [e["version"] for e in log] == [1, 2, 3, 4]


def test_a_retried_move_with_an_idempotency_key_gets_the_first_answer(server):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]}).json()
    url = f"{server}/v1/matches/{created['id']}/moves"
    request = dict(headers={**bearer(created["seats"][0]["token"]), "Idempotency-Key": "retry-1"},
                   json={"move": {"action": "score"}, "expected_version": 2})
    first, second = requests.post(url, **request), requests.post(url, **request)
    assert first.status_code == second.status_code == 201 and first.json() == second.json()


def test_a_match_of_bots_plays_itself_to_the_end_in_the_workers(server):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}]}).json()
    deadline = time.monotonic() + 30
    while requests.get(f"{server}/v1/matches/{created['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_errors_from_the_real_server_have_the_one_shape(server):
    for response in (requests.get(f"{server}/v1/nothing"), requests.post(f"{server}/v1/matches", data="{",
                                                                         headers={"Content-Type": "application/json"}),
                     requests.post(f"{server}/v1/matches", json={"game": "mantis", "seats": [{"name": "x" * 10**5}]})):
        assert 400 <= response.status_code < 500
        assert {"code", "status", "reason", "message"} <= set(response.json())
