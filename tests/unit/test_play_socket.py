"""The play socket (GET /v1/play): each message is POST .../moves in one JSON object and gets what that POST
answers, status included; one socket moves any seat of any match; nothing but the transport differs."""
import json
import socket as raw_socket

import pytest
import redis
from hypothesis import HealthCheck, given, settings, strategies as st
from simple_websocket import ConnectionClosed

from api import play_socket
from api.rate_limits import RateLimits
from eventstore.memory import InMemoryEventStore
from tests.support.http import THREE, assert_error, bearer, make_client
from tests.support.sockets import ask, move_message, play_socket_client, served

SEEDED = {**THREE, "seed": "play-socket"}
# random or of the moment, so they differ between two matches dealt alike: when, the nonces and the chain they
# make, and the salt of the seed's commitment
UNSTORED = ("time", "nonce", "prev", "hash")


@pytest.fixture
def client():
    return make_client()


@pytest.fixture
def url(client):
    with served(client.application) as url:
        yield url


@pytest.fixture
def socket(url):
    with play_socket_client(url) as socket:
        yield socket


def comparable(answer: dict) -> dict:
    def event(e):
        return {**{k: v for k, v in e.items() if k not in UNSTORED},
                "data": {k: v for k, v in e["data"].items() if k != "salt"}}
    return {**answer, "events": [event(e) for e in answer["events"]]}


def play_by_score(created: dict, move) -> list[dict]:
    """Plays the match to its end, the seat to act always scoring; `move(seat, version)` makes one move and
    returns the answer's body; returns every answer."""
    answers, version, to_act = [], created["version"], created["to_act"]
    while to_act:
        answers.append(move(to_act[0], version))
        version, to_act = answers[-1]["version"], answers[-1]["to_act"]
    return answers


def test_a_match_played_over_the_socket_gets_the_answers_http_gives_the_same_match(client, socket):
    over_http, over_socket = (client.post("/v1/matches", json=SEEDED).get_json() for _ in range(2))

    def http_move(seat, version):
        return client.post(f"/v1/matches/{over_http['id']}/moves", headers=bearer(over_http["seats"][seat]["token"]),
                           json={"move": {"action": "score"}, "expected_version": version}).get_json()

    def socket_move(seat, version):
        answer = ask(socket, move_message(over_socket, seat, version))
        assert answer["status"] == 201, answer
        return answer["body"]

    by_http, by_socket = play_by_score(over_http, http_move), play_by_score(over_socket, socket_move)
    assert [comparable(a) for a in by_socket] == [comparable(a) for a in by_http]
    assert by_socket[-1]["status"] == "finished"
    log = client.get(f"/v1/matches/{over_socket['id']}/events").get_json()["events"]
    chained = [(e["version"], e["type"], e["hash"]) for e in log]
    assert [(e["version"], e["type"], e["hash"]) for a in by_socket for e in a["events"]] == chained[2:]
    assert client.get(f"/v1/matches/{over_socket['id']}/audit").get_json()["ok"] is True


def test_one_socket_moves_seats_of_several_matches_and_each_answer_carries_its_message_id(client, socket):
    first, second = (client.post("/v1/matches", json=THREE).get_json() for _ in range(2))
    answers = [ask(socket, move_message(first, 0, 2, id="first")),
               ask(socket, move_message(second, 0, 2, id=7)),
               ask(socket, move_message(first, 1, 4, id="again"))]
    assert [(a["id"], a["status"], a["body"]["version"]) for a in answers] == [("first", 201, 4), (7, 201, 4),
                                                                                ("again", 201, 6)]


def test_messages_sent_together_are_answered_in_their_order(client, socket):
    created = client.post("/v1/matches", json=THREE).get_json()
    for version, id_ in ((2, 1), (2, 2), (2, 3)):  # the same move three times at once: only the first is current
        socket.send(json.dumps(move_message(created, 0, version, id=id_)))
    answers = [json.loads(socket.receive(timeout=10)) for _ in range(3)]
    assert [(a["id"], a["status"]) for a in answers] == [(1, 201), (2, 409), (3, 409)]


@pytest.mark.parametrize("message, status, reason", [
    ("{not json", 400, "invalid_json"),
    ('{"expected_version": NaN}', 400, "invalid_json"),
    ("[1, 2]", 422, "invalid_request"),
    ({"match_id": "m"}, 422, "invalid_request"),
    ({"match_id": "nope", "token": "t", "move": {"action": "score"}, "expected_version": 2}, 404, "match_not_found"),
])
def test_a_bad_message_gets_the_error_http_would_give_and_the_socket_stays_open(client, socket, message, status,
                                                                              reason):
    answer = ask(socket, message)
    assert (answer["status"], answer["body"]["code"], answer["body"]["reason"]) == (status, status, reason), answer
    assert set(answer["body"]) >= {"code", "status", "reason", "message"} and answer["id"] is None
    created = client.post("/v1/matches", json=THREE).get_json()
    assert ask(socket, move_message(created, 0, 2))["status"] == 201


def test_a_message_missing_fields_names_each_in_errors():
    with served(make_client().application) as url, play_socket_client(url) as socket:
        answer = ask(socket, {"id": "x", "match_id": "m", "expected_version": "2", "extra": 1})
    assert answer["id"] == "x" and answer["status"] == 422
    assert set(answer["body"]["errors"]["json"]) == {"token", "move", "expected_version", "extra"}


@pytest.mark.parametrize("request_id", [[1], {"a": 1}, "x" * 101, True, 2**60])
def test_an_id_that_is_neither_a_short_string_nor_an_integer_is_refused_and_not_echoed(socket, request_id):
    answer = ask(socket, {"id": request_id, "match_id": "m", "token": "t", "move": {}, "expected_version": 2})
    assert answer["id"] is None and answer["status"] == 422 and "id" in answer["body"]["errors"]["json"]


def test_the_rules_and_the_seats_refuse_over_the_socket_as_over_http(client, socket):
    created = client.post("/v1/matches", json=THREE).get_json()
    not_your_turn = ask(socket, move_message(created, 1, 2))
    stale = ask(socket, move_message(created, 0, 1))
    unknown_token = ask(socket, {**move_message(created, 0, 2), "token": "not-a-token"})
    illegal = ask(socket, move_message(created, 0, 2, move={"action": "fly"}))
    assert [(a["status"], a["body"]["reason"]) for a in (not_your_turn, stale, unknown_token, illegal)] == [
        (422, "not_your_turn"), (409, "version_conflict"), (403, "token_rejected"), (422, "unknown_action")]
    assert stale["body"]["current_version"] == 2
    http = client.post(f"/v1/matches/{created['id']}/moves", headers=bearer("not-a-token"),
                       json={"move": {"action": "score"}, "expected_version": 2})
    assert_error(http, unknown_token["status"], unknown_token["body"]["reason"])


def test_a_message_retried_with_its_idempotency_key_gets_the_first_answer_and_appends_nothing(client, socket):
    created = client.post("/v1/matches", json=THREE).get_json()
    message = move_message(created, 0, 2, idempotency_key="move-1")
    first, retried = ask(socket, message), ask(socket, message)
    assert first["status"] == retried["status"] == 201 and retried["body"] == first["body"]
    assert client.get(f"/v1/matches/{created['id']}").get_json()["version"] == first["body"]["version"]
    reused = ask(socket, {**message, "expected_version": first["body"]["version"]})
    assert (reused["status"], reused["body"]["reason"]) == (422, "idempotency_key_reused")


def test_moves_over_the_socket_and_over_http_count_against_one_rate_limit():
    client = make_client(rate_limits=RateLimits("memory://", create="", join="", moves="2/minute"))
    created = client.post("/v1/matches", json=THREE).get_json()
    assert client.post(f"/v1/matches/{created['id']}/moves", headers=bearer(created["seats"][0]["token"]),
                       json={"move": {"action": "score"}, "expected_version": 2}).status_code == 201
    with served(client.application) as url, play_socket_client(url) as socket:
        second, third = ask(socket, move_message(created, 1, 4)), ask(socket, move_message(created, 2, 6))
    assert second["status"] == 201
    assert (third["status"], third["body"]["reason"]) == (429, "rate_limited") and third["body"]["retry_after"] >= 1
    assert (third["body"]["limit"], third["body"]["policy"]) == ("2 per 1 minute", "moves-minute")


def test_a_client_that_runs_too_far_ahead_of_its_answers_is_closed_as_a_policy_violation(client, url, monkeypatch):
    monkeypatch.setattr(play_socket, "MAX_WAITING", 4)
    created = client.post("/v1/matches", json=THREE).get_json()
    stale = json.dumps(move_message(created, 0, 1))  # each answered 409 after a read of the match
    with play_socket_client(url) as socket:
        try:  # the server closes the socket while they come, or before all are answered
            for _ in range(200):
                socket.send(stale)
            for _ in range(200):
                socket.receive(timeout=10)
        except (ConnectionClosed, OSError):  # OSError: a send racing the client's own closing of its socket
            pass
    assert socket.close_reason == 1008 and "waiting for their answers" in socket.close_message


def test_a_message_over_the_body_limit_closes_the_socket_as_too_big(socket):
    socket.send("x" * 5000)  # the test app takes bodies up to 4096 bytes
    with pytest.raises(ConnectionClosed) as closed:
        socket.receive(timeout=10)
    assert closed.value.reason == 1009


def test_a_frame_whose_header_declares_2_to_the_62_bytes_closes_the_socket_as_too_big_without_its_payload(url):
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    with raw_socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(b"GET /v1/play HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        handshake = received_until(connection, lambda data: b"\r\n\r\n" in data)
        assert handshake.startswith(b"HTTP/1.1 101")
        # a masked text frame: FIN + text, mask bit + 127 (a 64-bit length follows), 2^62, the masking key
        connection.sendall(bytes([0x81, 0x80 | 127]) + (2**62).to_bytes(8, "big") + b"mask")
        frame = received_until(connection, lambda data: len(data) >= 4, handshake.split(b"\r\n\r\n", 1)[1])
    assert frame[0] == 0x88 and int.from_bytes(frame[2:4], "big") == 1009  # a close frame: message too big


def received_until(connection, enough, received: bytes = b"") -> bytes:
    while not enough(received):
        chunk = connection.recv(4096)
        assert chunk, f"closed after {received!r}"
        received += chunk
    return received


def test_a_plain_http_get_of_the_socket_is_a_400_saying_it_is_a_websocket(client):
    assert "WebSocket" in assert_error(client.get("/v1/play"), 400, "websocket_mismatch")["message"]


def test_an_account_key_moves_its_seat_and_a_key_rotated_between_two_messages_no_longer_does(client, socket):
    alice, bob = (client.post("/v1/accounts", json={"name": name, "kind": "bot"}).get_json() for name in ("alice", "bob"))
    client.patch("/v1/accounts/me", json={"challenges": "auto"}, headers=bearer(bob["api_key"]))
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "alice"}, {"account": "bob"}]},
                          headers=bearer(alice["api_key"])).get_json()
    message = {"match_id": created["id"], "token": alice["api_key"], "move": {"action": "score"},
               "expected_version": created["version"]}
    assert ask(socket, message)["status"] == 201
    bob_moved = ask(socket, {**message, "token": bob["api_key"], "expected_version": 4})
    rotated = client.post("/v1/accounts/me/keys", headers=bearer(alice["api_key"])).get_json()["api_key"]
    old_key = ask(socket, {**message, "expected_version": bob_moved["body"]["version"]})
    new_key = ask(socket, {**message, "token": rotated, "expected_version": bob_moved["body"]["version"]})
    assert (old_key["status"], old_key["body"]["reason"], new_key["status"]) == (403, "token_rejected", 201)


def test_an_unexpected_failure_answers_500_in_the_one_error_shape_and_a_lost_redis_503_with_a_retry():
    class FailingStore(InMemoryEventStore):
        failure = None

        def append(self, *args, **kwargs):
            if self.failure:
                raise self.failure
            return super().append(*args, **kwargs)

    store = FailingStore()
    client = make_client(store=store)
    created = client.post("/v1/matches", json=THREE).get_json()
    store.failure = RuntimeError("disk on fire")
    with served(client.application) as url, play_socket_client(url) as socket:
        failed = ask(socket, move_message(created, 0, 2))
        store.failure = redis.ConnectionError("Connection refused")
        unreachable = ask(socket, move_message(created, 0, 2))
    assert (failed["status"], failed["body"]["reason"]) == (500, "internal_error")
    assert "disk" not in failed["body"]["message"]
    assert (unreachable["status"], unreachable["body"]["reason"]) == (503, "redis_unreachable")
    assert unreachable["body"]["retry_after"] >= 1


# A request: which seat's credential, how far `expected_version` is from the match's version, and the move:
# mostly legal ones, some refused (a stale version, another seat's turn, a seat that is no target, no action).
REQUESTS = st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0, 0, 0, -1, 1]),
                              st.sampled_from([{"action": "score"}, {"action": "steal", "target": 0},
                                               {"action": "steal", "target": 1}, {"action": "steal", "target": 2},
                                               {"action": "fly"}, {}])), min_size=1, max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(requests=REQUESTS)
def test_any_requests_get_the_same_statuses_and_answers_over_the_socket_as_over_http(requests):
    """Twin matches (one seed), the same requests over each transport: the same status, reason and answer."""
    client = make_client()
    over_http, over_socket = (client.post("/v1/matches", json=SEEDED).get_json() for _ in range(2))
    version = over_http["version"]
    with served(client.application) as url, play_socket_client(url) as socket:
        for seat, offset, move in requests:
            body = {"move": move, "expected_version": max(0, version + offset)}
            http = client.post(f"/v1/matches/{over_http['id']}/moves",
                               headers=bearer(over_http["seats"][seat]["token"]), json=body)
            answer = ask(socket, move_message(over_socket, seat, body["expected_version"], move=move))
            assert answer["status"] == http.status_code, (answer, http.get_json())
            if http.status_code == 201:
                assert comparable(answer["body"]) == comparable(http.get_json())
                version = http.get_json()["version"]
            else:  # each request has its own id
                assert {**answer["body"], "request_id": None} == {**http.get_json(), "request_id": None}
