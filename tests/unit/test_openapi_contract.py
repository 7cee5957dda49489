"""The published contract is what the server does: given the committed openapi.yaml, when clients play matches, follow
them live and follow their accounts' feeds over the app, then every answer has a status its operation declares (not
just `default`) and a body its schema accepts, and every NDJSON line and SSE event of a stream is one of the frames
the stream's schema names."""
import json
from pathlib import Path

import pytest
import redis
import yaml

from api.rate_limits import RateLimits
from tests.support.http import bearer, make_client
from tests.support.openapi import validator

DOCUMENT = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
NDJSON, SSE = "application/x-ndjson", "text/event-stream"
SCORE = {"action": "score"}


def operation(template: str, method: str) -> dict:
    return DOCUMENT["paths"][template][method]


def declared(template: str, method: str, status: int) -> dict:
    """The response the operation declares for `status` (a $ref resolved); fails when only `default` covers it."""
    responses = operation(template, method)["responses"]
    assert str(status) in responses, f"{method.upper()} {template} answered {status}, which it does not declare"
    response = responses[str(status)]
    if "$ref" in response:
        response = DOCUMENT["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    return response


def check(response, template: str, method: str = "get"):
    """The answer's status is declared by the operation and its JSON body fits that status's schema."""
    described = declared(template, method, response.status_code)
    if "content" in described:
        schema = described["content"][response.mimetype]["schema"]
        failures = [str(error) for error in validator(DOCUMENT, schema).iter_errors(response.get_json())]
        assert not failures, (method, template, response.status_code, failures[:3])
    return response


class Frames:
    """A stream's frames as a client reads them, each checked against the stream's published frame schema."""

    def __init__(self, response, template: str):
        content = declared(template, "get", 200)["content"]
        assert response.status_code == 200 and response.mimetype in content
        self.schema = validator(DOCUMENT, content[NDJSON]["schema"])
        self.response, self.kind, self.seen = response, response.mimetype, []
        self._chunks = iter(response.response)

    def next(self) -> dict | None:
        """The next frame, or None at a keep-alive."""
        if self.kind == NDJSON:
            line = next(self._chunks)
            frame = json.loads(line) if line.strip() else None
        else:
            frame = self._event()
        if frame is not None:
            failures = [str(error) for error in self.schema.iter_errors(frame)]
            assert not failures, (frame.get("type"), failures[:3])
            self.seen.append(frame["type"])
        return frame

    def _event(self) -> dict | None:
        chunk = next(self._chunks).decode()
        if chunk.startswith("retry:"):
            chunk = next(self._chunks).decode()
        if chunk.startswith(":"):
            return None
        fields = dict(line.split(": ", 1) for line in chunk.strip().split("\n"))
        frame = json.loads(fields["data"])
        assert fields["event"] == frame["type"] and int(fields["id"]) == frame.get("position", frame.get("version"))
        return frame

    def until(self, kind: str, keep_alives: int = 10) -> dict:
        quiet = 0
        while quiet <= keep_alives:
            frame = self.next()
            if frame is None:
                quiet += 1
            elif frame["type"] == kind:
                return frame
        raise AssertionError(f"no {kind} came; saw {self.seen}")

    def close(self):
        self.response.close()


@pytest.fixture
def client():
    return make_client()


def account(client, name: str) -> str:
    created = check(client.post("/v1/accounts", json={"name": name, "kind": "bot"}), "/v1/accounts", "post")
    return created.get_json()["api_key"]


def feed(client, key: str, kind: str = NDJSON, query: str = "?with=view") -> Frames:
    return Frames(client.get(f"/v1/accounts/me/stream{query}", headers={**bearer(key), "Accept": kind},
                             buffered=False), "/v1/accounts/me/stream")


def stream(client, match_id: str, credential: str | None = None, kind: str = NDJSON, query: str = "") -> Frames:
    headers = {"Accept": kind, **(bearer(credential) if credential else {})}
    return Frames(client.get(f"/v1/matches/{match_id}/stream{query}", headers=headers, buffered=False),
                  "/v1/matches/{match_id}/stream")


def move(client, match_id: str, key: str, version: int, idempotency: str | None = None):
    headers = {**bearer(key), **({"Idempotency-Key": idempotency} if idempotency else {})}
    return check(client.post(f"/v1/matches/{match_id}/moves", headers=headers,
                             json={"move": SCORE, "expected_version": version}),
                 "/v1/matches/{match_id}/moves", "post")


@pytest.mark.parametrize("kind", [NDJSON, SSE])
def test_a_feed_with_views_and_a_match_stream_carry_only_published_frames_to_the_end(client, kind):
    ann, bob = account(client, "ann"), account(client, "bob")
    bobs = feed(client, bob, kind)
    assert bobs.next()["type"] == "synced"
    declined = check(client.post("/v1/matches", headers=bearer(ann), json={
        "game": "mantis", "seats": [{"account": "ann"}, {"account": "bob"}]}), "/v1/matches", "post").get_json()
    assert bobs.until("challenge")["match"] == declined["id"]
    check(client.post(f"/v1/matches/{declined['id']}/decline", headers=bearer(bob)),
          "/v1/matches/{match_id}/decline", "post")
    assert bobs.until("challenge_canceled")["reason"] == "declined"

    created = client.post("/v1/matches", headers=bearer(ann), json={
        "game": "mantis", "seats": [{"account": "ann"}, {"account": "bob"}]}).get_json()
    bobs.until("challenge")
    check(client.post(f"/v1/matches/{created['id']}/accept", headers=bearer(bob)), "/v1/matches/{match_id}/accept",
          "post")
    assert bobs.until("match_started")["game"] == "mantis"
    live = stream(client, created["id"], bob, kind)
    document = live.until("match")
    assert document["you"] == 1 and document["legal_moves"] == []
    version, keys = document["version"], (ann, bob)
    while True:
        seat = client.get(f"/v1/matches/{created['id']}", headers=bearer(ann)).get_json()["to_act"][0]
        if seat == 1:
            turn = bobs.until("your_turn")
            assert turn["version"] == version and turn["legal_moves"] and turn["view"]["turn"] == 1
        moved = move(client, created["id"], keys[seat], version).get_json()
        version = moved["version"]
        document = live.until("match")
        assert document["version"] == version
        if moved["status"] == "finished":
            break
    assert document["status"] == "finished" and document["result"]["winners"]
    assert bobs.until("match_finished")["result"] == document["result"]
    assert {"moved", "match_finished"} <= set(live.seen)
    live.close(), bobs.close()

    replay = stream(client, created["id"], kind=kind, query="?after=0")  # the whole public log, then the end
    while replay.until("match")["status"] != "finished":
        pass
    assert {"match_created", "seat_accepted", "moved", "match_finished"} <= set(replay.seen)
    with pytest.raises(StopIteration):
        replay.next()


def test_the_answers_of_a_match_and_its_refusals_are_the_published_ones(client):
    ann = account(client, "ann")
    created = client.post("/v1/matches", headers=bearer(ann), json={
        "game": "mantis", "seats": [{"account": "ann"}, {"open": True}]}).get_json()
    match_id = created["id"]
    joined = check(client.post(f"/v1/matches/{match_id}/join", json={"name": "cy"}),
                   "/v1/matches/{match_id}/join", "post").get_json()
    check(client.post(f"/v1/matches/{match_id}/join", json={"name": "dee"}), "/v1/matches/{match_id}/join", "post")
    version = check(client.get(f"/v1/matches/{match_id}", headers=bearer(ann)),
                    "/v1/matches/{match_id}").get_json()["version"]
    check(client.get(f"/v1/matches/{match_id}/legal-moves", headers=bearer(ann)), "/v1/matches/{match_id}/legal-moves")
    assert move(client, match_id, ann, version, "turn-1").status_code == 201
    assert move(client, match_id, ann, version, "turn-1").status_code == 201  # the first answer again
    assert move(client, match_id, ann, version).get_json()["reason"] == "version_conflict"
    assert move(client, match_id, "crk_" + "x" * 43, version).status_code == 403
    assert move(client, "f" * 32, ann, version).status_code == 404
    for path in ("", "/events", "/moves", "/state?version=2", "/export", "/audit"):
        template = "/v1/matches/{match_id}" + path.partition("?")[0]
        check(client.get(f"/v1/matches/{match_id}{path}", headers=bearer(joined["token"])), template)
    check(client.get("/v1/matches/" + "f" * 32), "/v1/matches/{match_id}")
    check(client.post(f"/v1/matches/{match_id}/resign", headers=bearer(joined["token"])),
          "/v1/matches/{match_id}/resign", "post")
    check(client.post(f"/v1/matches/{match_id}/resign", headers=bearer(ann)), "/v1/matches/{match_id}/resign", "post")
    events = client.get(f"/v1/matches/{match_id}/events").get_json()["events"]
    assert {"seat_joined", "seat_resigned", "match_finished"} <= {event["type"] for event in events}
    check(client.post(f"/v1/matches/{match_id}/leave", headers=bearer(ann)), "/v1/matches/{match_id}/leave", "post")


def test_the_streams_refusals_are_the_published_ones(client):
    ann = account(client, "ann")
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    template = "/v1/matches/{match_id}/stream"
    check(client.get(f"/v1/matches/{created['id']}/stream?after=99"), template)
    check(client.get(f"/v1/matches/{created['id']}/stream", headers={"Last-Event-ID": "x"}), template)
    check(client.get(f"/v1/matches/{created['id']}/stream?after=-1"), template)
    check(client.get("/v1/matches/" + "f" * 32 + "/stream"), template)
    check(client.get("/v1/accounts/me/stream"), "/v1/accounts/me/stream")
    check(client.get("/v1/accounts/me/stream?after=5", headers=bearer(ann)), "/v1/accounts/me/stream")
    check(client.get("/v1/accounts/me/stream?with=everything", headers=bearer(ann)), "/v1/accounts/me/stream")


def test_a_move_past_the_rate_limit_is_a_published_429_with_retry_after_and_the_rate_limit_headers():
    client = make_client(rate_limits=RateLimits("memory://", create="", join="", moves="1/minute"))
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    token = created["seats"][0]["token"]
    moved = move(client, created["id"], token, created["version"])
    refused = move(client, created["id"], token, created["version"] + 1)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert "Retry-After" in declared("/v1/matches/{match_id}/moves", "post", 429)["headers"]
    rate_limit_headers = {"RateLimit-Policy", "RateLimit"}
    for answer in (moved, refused):
        assert rate_limit_headers <= set(declared("/v1/matches/{match_id}/moves", "post", answer.status_code)["headers"])
        assert rate_limit_headers <= set(answer.headers.keys())
    assert rate_limit_headers <= set(DOCUMENT["components"]["headers"])


def test_a_move_while_redis_is_out_of_reach_is_a_published_503(monkeypatch):
    client = make_client()
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    store = client.application.extensions["cardroom.service"]._store

    def unreachable(*args, **kwargs):
        raise redis.ConnectionError("refused")

    monkeypatch.setattr(store, "append", unreachable)
    refused = move(client, created["id"], created["seats"][0]["token"], created["version"])
    assert refused.status_code == 503 and refused.get_json()["reason"] == "redis_unreachable"
