"""Streams over gunicorn (two API processes) and RQ workers: a stream dropped mid-match and resumed with
Last-Event-ID gives the log exactly; a stream-driven client plays with one request per move; slow
clients hold no worker."""
import json
import os
import socket
import subprocess
import sys
import time

import pytest
import requests

from bootstrap.embedded_redis import free_port
from bootstrap.run import GUNICORN_CONF
from tests.e2e.conftest import wait_until_healthy

pytestmark = pytest.mark.e2e


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def sse(response):
    """The frames of an SSE response as (id, event, data) as they arrive; keep-alives and retry skipped."""
    fields = {}
    for line in response.iter_lines(chunk_size=None, decode_unicode=True):
        if line:
            name, _, value = line.partition(": ")
            fields[name] = value
        elif "data" in fields:
            yield int(fields["id"]), fields["event"], json.loads(fields["data"])
            fields = {}
        else:
            fields = {}


@pytest.fixture(scope="module")
def other_api_node(server, redis_url, tmp_path_factory):
    """A second API node (gunicorn alone, its own processes and hub) on the same Redis and bot queue as
    `server`: what a load balancer would spread a client's reconnections over."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WEB_CONCURRENCY": "1",
           "QUEUE": f"bots-e2e-{server.rsplit(':', 1)[1]}"}
    with (tmp_path_factory.mktemp("node") / "gunicorn.log").open("w") as log:
        process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF),
                                    "bootstrap.wsgi:app"], env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(base, process)
        yield base
        process.terminate()
        process.wait(timeout=30)


def play_through_dropped_streams(nodes: list[str], game: str = "flipout", options: dict | None = None,
                                 bots: tuple[str, ...] = ("random", "greedy")) -> tuple[list[dict], list[dict], int]:
    """Plays a seat (FlipOut against two bots unless told) from its stream, dropping the stream every 8 frames
    and resuming with Last-Event-ID on the next node in turn; returns the events seen, the log as
    GET .../events gives it after the end, and how many connections it took."""
    created = requests.post(f"{nodes[0]}/v1/matches", json={
        "game": game, "options": options or {}, "seats": [{"name": "ann"}, *({"bot": bot} for bot in bots)]}).json()
    match_id, token = created["id"], created["seats"][0]["token"]
    # from the version created: a bot seated first may move before the first stream opens
    seen, last, connections, finished = [], created["version"], 0, False
    while not finished:
        node = nodes[connections % len(nodes)]
        headers = bearer(token) | ({} if last is None else {"Last-Event-ID": str(last)})
        connections += 1
        with requests.get(f"{node}/v1/matches/{match_id}/stream", headers=headers, stream=True,
                          timeout=30) as response:
            assert response.status_code == 200 and response.headers["X-Accel-Buffering"] == "no"
            for count, (version, kind, data) in enumerate(sse(response)):
                last = version
                if kind == "match":
                    finished = data["status"] == "finished"
                    if data["legal_moves"]:
                        requests.post(f"{node}/v1/matches/{match_id}/moves", headers=bearer(token), json={
                            "move": data["legal_moves"][0], "expected_version": version}).raise_for_status()
                else:
                    seen.append(data)
                if count == 7:
                    break  # drop the connection, mid-match
        assert connections < 500, "the match did not end"
    return seen, whole_log(nodes[0], match_id)[created["version"]:], connections


def whole_log(server: str, match_id: str) -> list[dict]:
    """The match's log as GET .../events gives it, every page."""
    log, after = [], 0
    while after is not None:
        page = requests.get(f"{server}/v1/matches/{match_id}/events", params={"after": after}).json()
        log, after = log + page["events"], page["next_after"]
    return log


def test_a_stream_dropped_mid_match_and_resumed_with_last_event_id_gives_the_log_exactly(server):
    seen, log, connections = play_through_dropped_streams([server])
    assert [(e["version"], e["type"], e["hash"]) for e in seen] == [(e["version"], e["type"], e["hash"]) for e in log]
    assert connections > 3 and seen[-1]["type"] == "match_finished"


def test_a_stream_resumed_on_another_api_node_each_time_gives_the_log_exactly(server, other_api_node):
    seen, log, connections = play_through_dropped_streams([server, other_api_node])
    assert [(e["version"], e["type"], e["hash"]) for e in seen] == [(e["version"], e["type"], e["hash"]) for e in log]
    assert connections > 3 and seen[-1]["type"] == "match_finished"


def test_ndjson_streams_of_a_seat_and_a_spectator_carry_what_events_shows_each(server):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "flipout", "seats": [{"name": "ann"}, {"name": "bob"}]}).json()
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    ndjson = {"Accept": "application/x-ndjson"}
    seat = requests.get(f"{server}/v1/matches/{match_id}/stream?after=0", headers=ndjson | bearer(tokens[0]),
                        stream=True, timeout=30)
    spectator = requests.get(f"{server}/v1/matches/{match_id}/stream?after=0", headers=ndjson, stream=True, timeout=30)
    for response, token in ((seat, tokens[0]), (spectator, None)):
        assert response.headers["Content-Type"].startswith("application/x-ndjson")
        lines = response.iter_lines(chunk_size=None)
        frames = []
        while not frames or frames[-1]["type"] != "match":
            line = next(lines)
            if line:
                frames.append(json.loads(line))
        response.close()
        shown = requests.get(f"{server}/v1/matches/{match_id}/events",
                             headers=bearer(token) if token else {}).json()["events"]
        assert frames[:-1] == shown and frames[-1]["version"] == shown[-1]["version"]


def half_sent_request(server) -> socket.socket:
    host, port = server.removeprefix("http://").split(":")
    stalled = socket.create_connection((host, int(port)))
    stalled.sendall(b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: appl")
    return stalled


def new_match(server) -> dict:
    created = requests.post(f"{server}/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]},
                            timeout=5)
    assert created.status_code == 201
    return created.json()


def test_slow_clients_and_idle_streams_hold_no_worker_and_a_stalled_request_is_cut(server):
    stalled = [half_sent_request(server) for _ in range(8)]
    streams = [requests.get(f"{server}/v1/matches/{new_match(server)['id']}/stream", stream=True, timeout=30)
               for _ in range(20)]
    try:
        started = time.monotonic()
        for _ in range(10):
            created = new_match(server)
            moved = requests.post(f"{server}/v1/matches/{created['id']}/moves",
                                  headers=bearer(created["seats"][0]["token"]),
                                  json={"move": {"action": "score"}, "expected_version": 2}, timeout=5)
            assert moved.status_code == 201
        assert time.monotonic() - started < 5
        for connection in stalled:  # the server gives up on headers that do not arrive (HEADER_TIMEOUT: 10 s)
            connection.settimeout(60)
            assert connection.recv(1024) == b""
    finally:
        for connection in stalled:
            connection.close()
        for stream in streams:
            stream.close()
