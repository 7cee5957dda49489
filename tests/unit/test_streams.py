"""Live streams over the in-memory store: the frames a seat and a spectator get are what GET .../events
gives them, resuming gives exactly the events after N, and the stream ends after match_finished."""
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore.memory import InMemoryEventStore
from service.errors import Forbidden, NotFound
from service.live.hub import Hub
from service.live.streams import MatchStreams
from tests.support.http import assert_error, finished_match, make_client
from tests.support.service import make_service

TWO = [{"name": "ann"}, {"name": "bob"}]
KEEP_ALIVE = 0.2


@pytest.fixture
def store():
    return InMemoryEventStore()


@pytest.fixture
def service(store):
    return make_service(store=store)


@pytest.fixture
def hub(store):
    return Hub(store)


@pytest.fixture
def streams(service, hub):
    return MatchStreams(service, hub, KEEP_ALIVE)


def tokens_of(created):
    return [seat.get("token") for seat in created["seats"]]


def play(service, created, moves: int | None = None, seed: str = "s") -> int:
    """Random legal moves through the service (all of them to the end if `moves` is None); the version after."""
    pick, tokens = random.Random(seed), tokens_of(created)
    current = service.get(created["id"], None)
    while current["status"] == "active" and (moves is None or moves > 0):
        seat = pick.choice(current["to_act"])
        legal = service.legal_moves(created["id"], tokens[seat])
        service.move(created["id"], tokens[seat], pick.choice(legal["moves"]), legal["version"])
        current = service.get(created["id"], None)
        moves = None if moves is None else moves - 1
    return current["version"]


def take(frames, upto_version: int) -> list:
    """Frames (skipping keep-alives) up to the match document at `upto_version`."""
    taken = []
    for frame in frames:
        if frame is not None:
            taken.append(frame)
            if frame.version == upto_version and frame.type == "match":
                return taken
    raise AssertionError(f"the stream ended before version {upto_version}: {taken}")


def events_in(frames) -> list:
    return [f for f in frames if f.type != "match"]


def document(service, match_id, token) -> dict:
    """What a match frame carries: the match as GET shows it, and the caller's legal moves if it is to act."""
    shown = service.get(match_id, token)
    legal = service.legal_moves(match_id, token)["moves"] if shown["you"] in shown["to_act"] else []
    return {"type": "match", **shown, "legal_moves": legal}


@pytest.mark.parametrize("seat", [0, 1, None])
def test_a_stream_starts_with_the_match_document_then_gives_the_events_as_events_gives_them(service, streams, seat):
    created = service.create("flipout", {}, TWO, seed="seen")
    token = None if seat is None else tokens_of(created)[seat]
    frames = streams.open(created["id"], token)
    first = next(frames)
    assert first.type == "match" and first.data == document(service, created["id"], token)
    assert first.version == created["version"]
    version = play(service, created, moves=12)
    assert service.get(created["id"], None)["status"] == "active"
    got = take(frames, version)
    events = events_in(got)
    assert [f.data for f in events] == service.events(created["id"], token, after=created["version"])["events"]
    assert [f.version for f in events] == list(range(created["version"] + 1, version + 1))
    assert all(f.type == f.data["type"] and "nonce" not in f.data for f in events)
    assert got[-1].data == document(service, created["id"], token)
    frames.close()


def test_a_seat_to_act_finds_its_legal_moves_in_the_match_frame_after_each_move(service, streams):
    created = service.create("mantis", {}, TWO)
    frames = streams.open(created["id"], tokens_of(created)[1])
    assert next(frames).data["legal_moves"] == []  # seat 0 begins
    service.move(created["id"], tokens_of(created)[0], {"action": "score"}, created["version"])
    after_move = take(frames, created["version"] + 2)[-1]
    assert after_move.data["to_act"] == [1] and after_move.data["legal_moves"]
    assert after_move.data["legal_moves"] == service.legal_moves(created["id"], tokens_of(created)[1])["moves"]
    frames.close()


def test_seats_and_spectators_get_differently_redacted_frames_of_one_match(service, streams):
    created = service.create("flipout", {}, TWO, seed="seen")
    seen = [streams.open(created["id"], token, after=0) for token in [*tokens_of(created), None]]
    frames = [[f.data for f in events_in(take(stream, created["version"]))] for stream in seen]
    assert frames[0] != frames[1] and frames[0] != frames[2]  # the deal shows each seat only its own cards
    assert [[e["hash"] for e in f] for f in frames] == [[e["hash"] for e in frames[0]]] * 3


def test_resuming_after_a_version_gives_exactly_the_events_after_it(service, streams):
    created = service.create("mantis", {}, TWO)
    version = play(service, created, moves=6)
    frames = streams.open(created["id"], tokens_of(created)[0], after=3)
    got = take(frames, version)
    assert [f.version for f in events_in(got)] == list(range(4, version + 1))
    assert [f.data for f in events_in(got)] == service.events(created["id"], tokens_of(created)[0], after=3)["events"]
    assert [f.type for f in got].count("match") == 1


def test_a_stream_ends_after_match_finished_and_the_ending_batch_is_public(service, streams):
    created = service.create("mantis", {}, TWO)
    frames = streams.open(created["id"], None)
    next(frames)
    end = play(service, created)
    got = events_in(take(frames, end))
    assert got[-1].type == "match_finished" and next(frames, "ended") == "ended"
    public = service.events(created["id"], None)["events"]
    ending = [f.data for f in got if f.data.get("nonce")]
    assert ending and ending == public[-len(ending):]  # the last move and match_finished, with their nonces
    assert all("nonce" not in f.data for f in got[:-len(ending)])


def test_a_finished_match_streams_its_final_document_after_its_public_log_if_asked_and_ends(service, streams):
    created = service.create("mantis", {}, TWO)
    end = play(service, created)
    final = document(service, created["id"], None)
    assert [f.data for f in streams.open(created["id"], None)] == [final]
    replayed = list(streams.open(created["id"], None, after=0))
    assert [f.data for f in replayed] == [*service.events(created["id"], None)["events"], final]
    assert [f.data for f in streams.open(created["id"], None, after=end)] == [final]


def test_a_quiet_stream_sends_keep_alives(service, streams):
    created = service.create("mantis", {}, TWO)
    frames = streams.open(created["id"], None)
    next(frames)
    assert [next(frames), next(frames)] == [None, None]
    frames.close()


def test_opening_a_stream_checks_the_match_the_token_and_the_version_before_any_frame(service, streams):
    created = service.create("mantis", {}, TWO)
    with pytest.raises(NotFound) as missing:
        streams.open("nope", None)
    assert missing.value.reason == "match_not_found"
    with pytest.raises(Forbidden):
        streams.open(created["id"], "forged")
    with pytest.raises(NotFound) as ahead:
        streams.open(created["id"], None, after=created["version"] + 1)
    assert ahead.value.reason == "version_not_found"


def test_a_stream_that_is_closed_stops_following_the_log(service, streams, hub):
    created = service.create("mantis", {}, TWO)
    one, two = streams.open(created["id"], None), streams.open(created["id"], None)
    next(one), next(two), next(one), next(two)  # the document, then a keep-alive: both follow now
    assert hub.following() == {created["id"]: 2}
    one.close()
    assert hub.following() == {created["id"]: 1}
    two.close()
    assert hub.following() == {}


# --- over HTTP --------------------------------------------------------------------------------------

def sse_frames(body: str) -> list[dict]:
    frames = []
    for block in body.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if not line.startswith(":"))
        frames.append(fields)
    return frames


def test_over_http_a_stream_is_server_sent_events_with_ids_types_and_no_caching():
    client = make_client()
    created = finished_match(client)
    response = client.get(f"/v1/matches/{created['id']}/stream?after=0")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache, no-store" and response.headers["X-Accel-Buffering"] == "no"
    retry, *frames, last = sse_frames(response.get_data(as_text=True))
    events = client.get(f"/v1/matches/{created['id']}/events").get_json()["events"]
    assert retry == {"retry": "2000"}
    assert [json.loads(f["data"]) for f in frames] == events
    assert [(int(f["id"]), f["event"]) for f in frames] == [(e["version"], e["type"]) for e in events]
    assert (int(last["id"]), last["event"]) == (events[-1]["version"], "match")


def test_over_http_ndjson_carries_the_same_objects_one_a_line_and_last_event_id_resumes():
    client = make_client()
    created = finished_match(client)
    url = f"/v1/matches/{created['id']}/stream"
    document = client.get(url, headers={"Accept": "application/x-ndjson"})
    assert document.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in document.get_data(as_text=True).splitlines()]
    final = {"type": "match", **client.get(f"/v1/matches/{created['id']}").get_json(), "legal_moves": []}
    assert lines == [final]
    resumed = client.get(url + "?after=0", headers={"Accept": "application/x-ndjson", "Last-Event-ID": "5"})
    lines = [json.loads(line) for line in resumed.get_data(as_text=True).splitlines()]
    assert lines == [*client.get(f"/v1/matches/{created['id']}/events?after=5").get_json()["events"], final]


@pytest.mark.parametrize("query,headers,status,reason", [
    ("", {"Last-Event-ID": "seven"}, 400, "invalid_last_event_id"),
    ("", {"Last-Event-ID": "²"}, 400, "invalid_last_event_id"),
    ("", {"Last-Event-ID": "9007199254740992"}, 400, "invalid_last_event_id"),  # 2**53: past the largest version
    ("", {"Last-Event-ID": "1000000000000000"}, 400, "invalid_last_event_id"),  # 16 digits: more than the document's
    ("", {"Last-Event-ID": "999999999999999"}, 404, "version_not_found"),  # 15: a version the match has not reached
    ("?after=-1", {}, 422, None),
    ("?after=" + "9" * 400, {}, 422, None),
    ("?after=999", {}, 404, "version_not_found"),
    ("", {"Authorization": "Bearer forged"}, 403, "token_rejected"),
])
def test_over_http_bad_stream_requests_get_a_4xx_with_a_reason(query, headers, status, reason):
    client = make_client()
    created = client.post("/v1/matches", json={"game": "mantis", "seats": TWO}).get_json()
    assert_error(client.get(f"/v1/matches/{created['id']}/stream{query}", headers=headers), status, reason)


def test_over_http_an_unknown_match_has_no_stream():
    assert_error(make_client().get("/v1/matches/nope/stream"), 404, "match_not_found")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.text(min_size=1, max_size=8), resume=st.floats(min_value=0, max_value=1), seat=st.sampled_from([0, 1, None]))
def test_any_resume_point_gives_exactly_the_events_after_it_then_the_final_document(service, streams, seed, resume,
                                                                                  seat):
    created = service.create("flipout", {}, TWO, seed=seed)
    end = play(service, created, seed=seed)
    after = round(resume * end)
    token = None if seat is None else tokens_of(created)[seat]
    frames = [f.data for f in streams.open(created["id"], token, after=after)]
    assert frames == [*service.events(created["id"], token, after=after)["events"],
                      document(service, created["id"], token)]
