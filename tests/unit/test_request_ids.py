"""Request ids: the client's X-Request-ID when usable, else a new one; echoed on every answer, in every error
body, and on the play socket's upgrade answer."""
import base64
import os
import re
import socket
from urllib.parse import urlsplit

import pytest

from api.request_ids import HEADER
from tests.support.http import bearer
from tests.support.sockets import served

NEW_ID = re.compile(r"^[0-9a-f]{32}$")


def test_a_usable_request_id_is_echoed_on_the_answer(client):
    answer = client.get("/v1/games", headers={HEADER: "trace-42/a:b"})
    assert answer.status_code == 200 and answer.headers[HEADER] == "trace-42/a:b"


def test_without_a_request_id_the_answer_carries_a_new_one(client):
    assert NEW_ID.match(client.get("/v1/games").headers[HEADER])


@pytest.mark.parametrize("sent", ["", "x" * 129, "has spaces", "tab\there", "caf\u00e9"])
def test_an_unusable_request_id_is_replaced_and_never_refused(client, sent):
    answer = client.get("/v1/games", headers={HEADER: sent.encode("utf-8").decode("latin-1")})
    assert answer.status_code == 200 and NEW_ID.match(answer.headers[HEADER])


def test_the_longest_usable_request_id_is_kept(client):
    assert client.get("/v1/games", headers={HEADER: "y" * 128}).headers[HEADER] == "y" * 128


@pytest.mark.parametrize("send", [
    lambda client: client.get("/v1/matches/nope"),                                      # a service's 404
    lambda client: client.post("/v1/matches", json={"game": "chess"}),                  # a schema's 422
    lambda client: client.post("/v1/matches", data="{", content_type="application/json"),  # bad JSON
    lambda client: client.put("/v1/games"),                                             # werkzeug's 405
    lambda client: client.get("/v1/play"),                                              # not a WebSocket
])
def test_every_error_body_carries_the_request_id_of_its_answer(client, send):
    answer = send(client)
    assert answer.status_code >= 400
    assert answer.get_json()["request_id"] == answer.headers[HEADER]


def test_a_refused_request_carries_the_id_the_client_sent(client, created):
    answer = client.post(f"/v1/matches/{created['id']}/moves", headers={**bearer("wrong"), HEADER: "mine-1"},
                         json={"move": {"action": "score"}, "expected_version": created["version"]})
    assert answer.status_code == 403 and answer.get_json()["request_id"] == "mine-1"


def test_the_play_socket_upgrade_answer_carries_the_request_id(client):
    with served(client.application) as url:
        head = upgrade_answer(urlsplit(url).port, {HEADER: "socket-7"})
    assert head.startswith("HTTP/1.1 101") and f"\r\n{HEADER.lower()}: socket-7\r\n" in head.lower()


def upgrade_answer(port: int, headers: dict) -> str:
    """The head of the answer to a WebSocket upgrade of GET /v1/play (the WebSocket clients keep no headers)."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = ["GET /v1/play HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket", "Connection: Upgrade",
               f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", *(f"{k}: {v}" for k, v in headers.items())]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(("\r\n".join(request) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += connection.recv(4096) or b"\r\n\r\n"  # closed: what came is all there is
    return head.decode("latin-1").split("\r\n\r\n")[0] + "\r\n"
