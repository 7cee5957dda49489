"""The play socket over gunicorn's gevent workers (as `make run` serves it): whole matches played over
sockets, alongside HTTP moves, each answer what POST .../moves answers, and the log passing its audit."""
import threading
from pathlib import Path

import pytest
import requests

from tests.support.sockets import ask, move_message, play_socket_client
from tests.support.viewer import chromium

pytestmark = pytest.mark.e2e
THREE = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]}


def socket_url(server: str) -> str:
    return server.replace("http://", "ws://") + "/v1/play"


def play_to_the_end(server: str, created: dict, socket) -> list[dict]:
    """The seat to act always scores, over `socket`; returns every answer."""
    answers, version, to_act = [], created["version"], created["to_act"]
    while to_act:
        answers.append(ask(socket, move_message(created, to_act[0], version, id=len(answers))))
        assert answers[-1]["status"] == 201, answers[-1]
        version, to_act = answers[-1]["body"]["version"], answers[-1]["body"]["to_act"]
    return answers


def test_matches_played_over_sockets_at_once_end_with_every_answer_in_their_audited_logs(server):
    matches = [requests.post(f"{server}/v1/matches", json=THREE).json() for _ in range(4)]
    played = {}

    def play(created):
        with play_socket_client(socket_url(server)) as socket:
            played[created["id"]] = play_to_the_end(server, created, socket)

    threads = [threading.Thread(target=play, args=(created,)) for created in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for created in matches:
        answers = played[created["id"]]
        assert [a["id"] for a in answers] == list(range(len(answers))) and answers[-1]["body"]["status"] == "finished"
        log = requests.get(f"{server}/v1/matches/{created['id']}/events").json()["events"]
        assert [e["hash"] for a in answers for e in a["body"]["events"]] == [e["hash"] for e in log[2:]]
        assert requests.get(f"{server}/v1/matches/{created['id']}/audit").json()["ok"] is True


def test_a_socket_move_and_an_http_move_at_one_version_let_exactly_one_through(server):
    created = requests.post(f"{server}/v1/matches", json=THREE).json()
    token, statuses, barrier = created["seats"][0]["token"], [], threading.Barrier(2)

    def by_socket():
        with play_socket_client(socket_url(server)) as socket:
            barrier.wait()
            statuses.append(ask(socket, move_message(created, 0, 2))["status"])

    def by_http():
        barrier.wait()
        statuses.append(requests.post(f"{server}/v1/matches/{created['id']}/moves",
                                      headers={"Authorization": f"Bearer {token}"},
                                      json={"move": {"action": "score"}, "expected_version": 2}).status_code)

    threads = [threading.Thread(target=by_socket), threading.Thread(target=by_http)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201, 409]
    assert requests.get(f"{server}/v1/matches/{created['id']}").json()["version"] == 4


def test_a_plain_get_of_the_socket_through_gunicorn_is_a_400_in_the_error_shape(server):
    answer = requests.get(f"{server}/v1/play")
    assert answer.status_code == 400 and answer.json()["reason"] == "websocket_mismatch"


def test_the_browser_client_of_the_docs_plays_a_move_from_a_page_of_the_server(server):
    docs = Path(__file__).resolve().parents[2] / "docs" / "play-socket.md"
    snippet = docs.read_text().split("```js\n")[1].split("```")[0]
    with chromium() as browser:
        page = browser.new_page()
        page.goto(f"{server}/docs")
        answer = page.evaluate("async () => {" + snippet + """
            await new Promise((resolve) => socket.addEventListener('open', resolve));
            const created = await (await fetch('/v1/matches', {method: 'POST', body: JSON.stringify(
                {game: 'mantis', seats: [{name: 'a'}, {name: 'b'}]}), headers: {'Content-Type': 'application/json'}})).json();
            return move(created.id, created.seats[created.to_act[0]].token, {action: 'score'}, created.version);
        }""")
    assert (answer["id"], answer["status"], answer["body"]["version"]) == (1, 201, 4)
