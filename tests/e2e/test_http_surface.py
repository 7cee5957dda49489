"""Over gunicorn (gevent workers): keep-alive, gzip and conditional reads as a real client sees them."""
import http.client
from urllib.parse import urlsplit

import pytest
import requests

pytestmark = pytest.mark.e2e

GAME = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]}


def test_two_requests_reuse_one_http11_connection_that_is_never_told_to_close(server):
    address = urlsplit(server)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    try:
        answers = []
        for path in ("/health", "/v1/games", "/health"):
            connection.request("GET", path)
            answer = connection.getresponse()
            answer.read()
            assert answer.status == 200 and answer.version == 11
            assert (answer.getheader("Connection") or "").lower() != "close", f"{path}: Connection: close"
            answers.append(answer)
            if len(answers) == 1:
                socket, local = connection.sock, connection.sock.getsockname()
        assert connection.sock is socket and socket.getsockname() == local, "the connection was not reused"
    finally:
        connection.close()


def test_the_log_comes_gzipped_and_an_unchanged_log_answers_304(server):
    created = requests.post(f"{server}/v1/matches", json=GAME, timeout=10).json()
    url, ann = f"{server}/v1/matches/{created['id']}", {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    log, gzipped = f"{url}/events", {**ann, "Accept-Encoding": "gzip"}
    with requests.Session() as session:
        first = session.get(log, headers=gzipped, timeout=10)
        assert first.headers["Content-Encoding"] == "gzip" and first.json()["events"][-1]["version"] == 2
        again = session.get(log, headers={**gzipped, "If-None-Match": first.headers["ETag"]}, timeout=10)
        assert again.status_code == 304 and again.content == b""
        session.post(f"{url}/moves", headers=ann, json={"move": {"action": "score"}, "expected_version": 2}, timeout=10)
        moved_on = session.get(log, headers={**ann, "If-None-Match": first.headers["ETag"]}, timeout=10)
        assert moved_on.status_code == 200 and moved_on.json()["events"][-1]["version"] == 4
