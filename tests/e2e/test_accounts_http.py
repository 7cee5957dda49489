"""Over HTTP against gunicorn on Redis: two bot accounts are seated by name and play a match to its end with
their keys alone (no seat token); each finds the match among its own."""
import uuid

import pytest
import requests

pytestmark = pytest.mark.e2e


def bearer(key):
    return {"Authorization": f"Bearer {key}"}


def test_two_accounts_play_a_match_with_their_keys_and_find_it_among_their_matches(server):
    names = [f"bot-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    keys = {}
    for name in names:
        created = requests.post(f"{server}/v1/accounts", json={"name": name, "kind": "bot"})
        assert created.status_code == 201, created.json()
        keys[created.json()["id"]] = created.json()["api_key"]
    first, second = keys.values()
    assert requests.patch(f"{server}/v1/accounts/me", json={"challenges": "auto"}, headers=bearer(second)).ok
    match = requests.post(f"{server}/v1/matches", json={"game": "mantis", "seats": [{"account": n} for n in names]},
                          headers=bearer(first))
    assert match.status_code == 201, match.json()
    match_id, seats = match.json()["id"], match.json()["seats"]
    key_of = {seat["seat"]: keys[seat["account"]] for seat in seats}
    current = match.json()
    for _ in range(500):  # a two-seat Mantis ends well within this many moves
        if current["status"] == "finished":
            break
        key = key_of[current["to_act"][0]]
        legal = requests.get(f"{server}/v1/matches/{match_id}/legal-moves", headers=bearer(key)).json()
        moved = requests.post(f"{server}/v1/matches/{match_id}/moves", headers=bearer(key),
                              json={"move": legal["moves"][0], "expected_version": legal["version"]})
        assert moved.status_code == 201, moved.json()
        current = requests.get(f"{server}/v1/matches/{match_id}").json()
    assert current["status"] == "finished" and current["result"]["winners"]
    for seat, key in key_of.items():
        mine = requests.get(f"{server}/v1/accounts/me/matches?status=finished", headers=bearer(key)).json()
        assert [(m["id"], m["seat"]) for m in mine["matches"]] == [(match_id, seat)]
    assert requests.get(f"{server}/v1/matches/{match_id}/audit").json()["ok"]
