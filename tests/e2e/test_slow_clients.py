"""Slow and idle clients, as an attacker would send them to `make run` with its default settings: one address
holding thousands of requests whose headers or body never end does not take the API down for another client;
start-up prints no gevent MonkeyPatchWarning and leaves no gunicorn control socket in $HOME."""
import http.client
import json
import resource
import selectors
import socket
import time
from contextlib import contextmanager

import pytest

from tests.e2e.conftest import running_service

pytestmark = pytest.mark.e2e

STALLED_BODIES = STALLED_HEADERS = 5000
# Another client, from another loopback address (Linux routes all of 127/8 to lo; the server binds 127.0.0.1)
OTHER_CLIENT = "127.0.0.2"
GENEROUS_SECONDS = 5  # what an answer to the other client may take at most under the attack


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def service(tmp_path_factory, home):
    data_dir = tmp_path_factory.mktemp("service")
    with running_service(data_dir, HOME=str(home), XDG_RUNTIME_DIR="") as base:
        yield base, data_dir


def test_start_up_prints_no_monkey_patch_warning_and_makes_no_control_socket_in_home(service, home):
    _, data_dir = service
    logs = {path.name: path.read_text() for path in (data_dir / "logs").glob("*.log")}
    assert "web.log" in logs and "Booting worker" in logs["web.log"]
    assert not [name for name, text in logs.items() if "MonkeyPatchWarning" in text]
    assert not (home / ".gunicorn").exists()


def test_one_address_holding_thousands_of_stalled_requests_does_not_stop_another_clients_answers(service):
    base, _ = service
    host, port = base.removeprefix("http://").split(":")
    address = (host, int(port))
    with stalled_connections(address) as (bodies, headers):
        print(f"\nheld {len(bodies)} stalled bodies and {len(headers)} stalled header sends from {host}")
        for _ in range(5):
            assert_answers_soon(address)
        answers = answers_when_closed(bodies + headers, seconds=120)
    assert set(answers) <= {b"", b"408", b"429"}, set(answers)  # closed with nothing, 408 or 429: never held
    assert b"408" in answers and b"429" in answers


@contextmanager
def stalled_connections(address):
    """Opens STALLED_BODIES requests that send a few bytes of their body and STALLED_HEADERS that send part of
    their headers, as many as the test process's open-files limit allows; yields both lists of sockets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    room = hard - 200  # the test's own files and the other client's connections
    bodies, headers = [], []
    try:
        for _ in range(min(STALLED_BODIES, room // 2)):
            bodies.append(stalled(address, b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                                           b"\r\nContent-Length: 100\r\n\r\n{\"ga"))
        for _ in range(min(STALLED_HEADERS, room // 2)):
            headers.append(stalled(address, b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Ty"))
        yield [s for s in bodies if s], [s for s in headers if s]
    finally:
        for connection in bodies + headers:
            if connection:
                connection.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def stalled(address, sent: bytes) -> socket.socket | None:
    """A connection that sent `sent` and nothing more; None if the server could not be reached or closed it
    before the bytes went out (a refusal of a connection over the cap may come that fast)."""
    try:
        connection = socket.create_connection(address, timeout=10)
        connection.sendall(sent)
        return connection
    except OSError:
        return None


def assert_answers_soon(address):
    """/health and a new match with its first move answer the other client within GENEROUS_SECONDS each."""
    assert ask(address, "GET", "/health")[0] == 200
    status, created = ask(address, "POST", "/v1/matches", {"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]})
    assert status == 201, created
    status, moved = ask(address, "POST", f"/v1/matches/{created['id']}/moves",
                        {"move": {"action": "score"}, "expected_version": created["version"]},
                        {"Authorization": f"Bearer {created['seats'][created['to_act'][0]]['token']}"})
    assert status == 201, moved


def ask(address, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection(*address, timeout=GENEROUS_SECONDS, source_address=(OTHER_CLIENT, 0))
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body),
                           headers={"Content-Type": "application/json", **(headers or {})})
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def answers_when_closed(connections: list[socket.socket], seconds: float) -> list[bytes]:
    """Waits until the server has closed every connection; returns the status each was answered (b"" for
    none). Fails if one is still open after `seconds`."""
    selector = selectors.DefaultSelector()
    received = {}
    for connection in connections:
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
        received[connection] = b""
    deadline = time.monotonic() + seconds
    statuses = []
    while received:
        assert time.monotonic() < deadline, f"{len(received)} stalled connections still open after {seconds} s"
        for key, _ in selector.select(timeout=1):
            try:
                chunk = key.fileobj.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                received[key.fileobj] += chunk
                continue
            selector.unregister(key.fileobj)
            statuses.append(received.pop(key.fileobj)[9:12])  # "HTTP/1.1 408 ..." -> b"408"
    return statuses
