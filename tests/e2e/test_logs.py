"""The logs of a whole service (LOG_FORMAT=json) after accounts, matches with bots, moves with seat tokens, account
keys and the play socket, and a finished match: every line of our programs is a JSON object, the request ids the
client sent are on its requests' access lines and on the bot turns they caused, and no secret the client saw
(seat tokens, account keys, the seed of an unfinished match) is in any log file."""
import json
import uuid

import pytest
import requests
from simple_websocket import Client

from tests.e2e.conftest import running_service

pytestmark = pytest.mark.e2e
OUR_PROGRAMS = ("web", "worker", "scheduler")  # the others' logs (supervisord's, Redis's) are only searched


def bearer(secret: str, request_id: str) -> dict:
    return {"Authorization": f"Bearer {secret}", "X-Request-ID": request_id}


def play_to_the_end(base: str, match_id: str, key: str, sent: list) -> None:
    """Moves the account's seat (the first legal move) until the bot and it have finished the match."""
    for turn in range(500):
        request_id = f"key-move-{turn}"
        legal = requests.get(f"{base}/v1/matches/{match_id}/legal-moves", headers=bearer(key, request_id))
        if legal.status_code == 200 and legal.json()["moves"]:
            moved = requests.post(f"{base}/v1/matches/{match_id}/moves", headers=bearer(key, request_id),
                                  json={"move": legal.json()["moves"][0], "expected_version": legal.json()["version"]})
            sent.append((request_id, "/v1/matches/<match_id>/moves", moved.status_code))
        if requests.get(f"{base}/v1/matches/{match_id}").json()["status"] == "finished":
            return
    raise AssertionError("the match did not finish")


def test_json_logs_carry_the_request_ids_sent_and_no_secret(tmp_path):
    secrets, sent = [], []  # sent: (request id, route, status) of each request whose id the test chose
    with running_service(tmp_path, LOG_FORMAT="json", LIMIT_CREATE="", LIMIT_JOIN="", LIMIT_MOVES="",
                         LIMIT_ACCOUNTS="", LIMIT_CHALLENGES="", LIMIT_READS="") as base:
        name = f"ann-{uuid.uuid4().hex[:8]}"
        account = requests.post(f"{base}/v1/accounts", json={"name": name, "kind": "bot"},
                                headers={"X-Request-ID": "create-account"})
        sent.append(("create-account", "/v1/accounts", account.status_code))
        key = account.json()["api_key"]
        secrets.append(key)
        played = requests.post(f"{base}/v1/matches", headers=bearer(key, "create-keyed"),
                               json={"game": "mantis", "seats": [{"account": name}, {"bot": "random"}]}).json()
        play_to_the_end(base, played["id"], key, sent)

        seed = f"seed-{uuid.uuid4().hex}"  # never revealed: this match is left unfinished
        unfinished = requests.post(f"{base}/v1/matches", headers={"X-Request-ID": "create-seeded"},
                                   json={"game": "mantis", "seed": seed,
                                         "seats": [{"name": "bo"}, {"bot": "greedy"}, {"name": "cy"}]}).json()
        secrets += [seed, *(seat["token"] for seat in unfinished["seats"] if "token" in seat)]
        token = unfinished["seats"][0]["token"]
        first = requests.post(f"{base}/v1/matches/{unfinished['id']}/moves", headers=bearer(token, "token-move"),
                              json={"move": {"action": "score"}, "expected_version": unfinished["version"]})
        sent.append(("token-move", "/v1/matches/<match_id>/moves", first.status_code))
        socket = Client.connect(base.replace("http", "ws") + "/v1/play", headers={"X-Request-ID": "play-socket"})
        socket.send(json.dumps({"match_id": unfinished["id"], "token": unfinished["seats"][2]["token"],
                                "move": {"action": "score"}, "expected_version": 0}))
        assert json.loads(socket.receive(timeout=10))["status"] == 409  # a stale version: the answer is enough
        socket.close()
        refused = requests.get(f"{base}/v1/matches/{unfinished['id']}", headers=bearer("crk_not-a-key", "refused"))
        sent.append(("refused", "/v1/matches/<match_id>", refused.status_code))
        assert requests.get(f"{base}/health/ready").status_code == 200
    assert first.status_code == 201 and refused.status_code == 403

    files = sorted((tmp_path / "logs").glob("*.log"))
    text = {path.name: path.read_text() for path in files}
    leaked = {path: [secret for secret in secrets if secret in content] for path, content in text.items()}
    assert all(not found for found in leaked.values()), leaked
    lines = [json.loads(line) for path, content in text.items() if path.startswith(OUR_PROGRAMS)
             for line in content.splitlines() if line.strip()]
    access = {line["request_id"]: line for line in lines if line.get("logger") == "cardroom.access"}
    for request_id, route, status in sent:
        assert (access[request_id]["route"], access[request_id]["status"]) == (route, status)
    assert access["token-move"]["seat"] == 0 and access["token-move"]["match_id"] == unfinished["id"]
    assert access["play-socket"]["route"] == "/v1/play"
    bot_turns = [line for line in lines if line["program"] == "worker" and line.get("request_id") == "token-move"]
    assert bot_turns and all(line["match_id"] == unfinished["id"] for line in bot_turns)
