"""The account's turn feed over the in-memory store: given the account's matches, when a client connects
(or resumes after a position), then it is told every active match and every turn owed, then each change."""
import itertools
import json

import pytest

from eventstore.accounts import SEATED, InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.errors import NotFound, Unauthorized
from service.live.feed import AccountFeeds
from service.live.hub import Hub
from tests.support.http import assert_error, bearer, make_client
from tests.support.service import make_service

KEEP_ALIVE, POLL = 0.3, 0.02
SCORE = {"action": "score"}


@pytest.fixture
def store():
    return InMemoryEventStore()


@pytest.fixture
def accounts():
    return AccountService(InMemoryAccountStore())


@pytest.fixture
def service(store, accounts):
    return make_service(store=store, accounts=accounts)


@pytest.fixture
def feeds(accounts, store, service):
    return AccountFeeds(accounts, service, store, Hub(store), KEEP_ALIVE, POLL)


@pytest.fixture
def ann(accounts):
    return accounts.register("ann", "bot")["api_key"]


@pytest.fixture
def bob(accounts):
    """A bot account that accepts every challenge at once, so ann's matches seat it."""
    key = accounts.register("bob", "bot")["api_key"]
    accounts.set_challenges(key, "auto")
    return key


def duel(service, ann, first="ann", second="bob", game="mantis") -> dict:
    """A match ann creates with her key `ann`, seating `first` and `second`."""
    return service.create(game, {}, [{"account": first}, {"account": second}], credential=ann)


def play_out(service, created, keys) -> None:
    """Both seats score until the match is over (keys: by seat)."""
    moved = created
    while moved["status"] != "finished":
        moved = service.move(created["id"], keys[moved["to_act"][0]], SCORE, moved["version"])


def upto(frames, kind: str, keep_alives: int = 3) -> list[tuple]:
    """(type, match, data) of the frames up to the first of `kind`; fails after `keep_alives` keep-alives."""
    taken, quiet = [], 0
    for frame in frames:
        if frame is None:
            quiet += 1
            assert quiet <= keep_alives, f"no {kind} came; got {taken}"
            continue
        taken.append((frame.type, frame.data.get("match"), frame.data))
        if frame.type == kind:
            return taken
    raise AssertionError(f"the feed ended before {kind}")


def until_quiet(frames) -> list[tuple]:
    """(type, match, data) of the frames up to the first keep-alive: what a connection had to say at once."""
    taken = []
    for frame in frames:
        if frame is None:
            return taken
        taken.append((frame.type, frame.data.get("match"), frame.data))
    raise AssertionError("the feed ended")


def kinds(taken) -> list[tuple]:
    return [(kind, match_id) for kind, match_id, _ in taken]


def test_on_connect_every_active_match_and_every_owed_turn_then_synced(service, feeds, ann, bob):
    owed = duel(service, ann)                      # ann is seat 0: she moves first
    waiting = duel(service, ann, "bob", "ann")     # bob moves first
    frames = upto(feeds.open(ann), "synced")
    assert sorted(kinds(frames)[:-1]) == sorted([("match_started", owed["id"]), ("your_turn", owed["id"]),
                                                 ("match_started", waiting["id"])])
    turn = next(data for kind, _, data in frames if kind == "your_turn")
    assert turn == {"type": "your_turn", "match": owed["id"], "seat": 0, "game": "mantis", "version": owed["version"],
                    "position": 2}
    started = next(data for kind, m, data in frames if kind == "match_started" and m == waiting["id"])
    assert started == {"type": "match_started", "match": waiting["id"], "game": "mantis", "seat": 1, "position": 2}


def test_while_connected_each_new_turn_and_the_end_are_told_once(service, feeds, ann, bob):
    created = duel(service, ann)
    frames = feeds.open(bob)
    assert kinds(upto(frames, "synced")) == [("match_started", created["id"]), ("synced", None)]
    moved, keys = created, (ann, bob)
    while moved["status"] != "finished":
        moved = service.move(created["id"], keys[moved["to_act"][0]], SCORE, moved["version"])
        if moved["to_act"] == [1]:
            assert [(kind, data["version"]) for kind, _, data in upto(frames, "your_turn")] == \
                   [("your_turn", moved["version"])]
    taken = upto(frames, "match_finished")
    assert kinds(taken)[-1] == ("match_finished", created["id"])
    assert taken[-1][2]["result"] == service.get(created["id"], None)["result"]


def test_a_match_created_while_connected_is_announced_with_its_first_turn(service, feeds, ann, bob):
    frames = feeds.open(ann)
    assert kinds(upto(frames, "synced")) == [("synced", None)]
    created = duel(service, ann)
    taken = upto(frames, "your_turn")
    assert kinds(taken) == [("match_started", created["id"]), ("your_turn", created["id"])]
    assert taken[-1][2]["position"] == 1


def test_a_match_joined_is_announced_when_it_is_dealt(service, feeds, ann, bob):
    created = service.create("mantis", {}, [{"account": "ann"}, {"open": True}], credential=ann)
    frames = feeds.open(ann)
    assert kinds(upto(frames, "synced")) == [("synced", None)]
    service.join(created["id"], None, bob)
    assert kinds(upto(frames, "your_turn")) == [("match_started", created["id"]), ("your_turn", created["id"])]


def test_resuming_after_a_position_tells_the_turns_owed_and_the_matches_begun_and_ended_since(service, feeds, ann,
                                                                                             bob):
    before = duel(service, ann)
    position = upto(feeds.open(ann), "synced")[-1][2]["position"]
    played = duel(service, ann, "bob", "ann")
    play_out(service, played, (bob, ann))
    resumed = kinds(until_quiet(feeds.open(ann, after=position)))
    assert resumed == [("your_turn", before["id"]), ("match_started", played["id"]), ("match_finished", played["id"])]
    assert kinds(upto(feeds.open(ann), "synced")) == [("match_started", before["id"]), ("your_turn", before["id"]),
                                                      ("synced", None)]  # no resume: what is on


def test_a_resumed_feed_still_announces_a_match_it_knew_waiting_once_it_is_dealt(service, feeds, ann, bob):
    created = service.create("mantis", {}, [{"account": "ann"}, {"open": True}], credential=ann)
    position = upto(feeds.open(ann), "synced")[-1][2]["position"]
    resumed = feeds.open(ann, after=position)
    assert until_quiet(resumed) == []
    service.join(created["id"], None, bob)
    assert kinds(upto(resumed, "your_turn")) == [("match_started", created["id"]), ("your_turn", created["id"])]


def test_with_views_each_turn_carries_the_seats_view_and_legal_moves(service, feeds, ann, bob):
    created = duel(service, ann)
    frames = feeds.open(ann, views=True)
    turn = upto(frames, "your_turn")[-1][2]
    assert turn["version"] == created["version"]
    assert turn["view"] == service.get(created["id"], ann)["view"]
    assert turn["legal_moves"] == service.legal_moves(created["id"], ann)["moves"] != []
    moved = service.move(created["id"], ann, SCORE, created["version"])
    moved = service.move(created["id"], bob, SCORE, moved["version"])
    turn = upto(frames, "your_turn")[-1][2]
    assert (turn["version"], turn["view"]) == (moved["version"], service.get(created["id"], ann)["view"])


def test_a_turn_owed_while_nobody_listened_is_told_on_reconnecting(service, feeds, ann, bob):
    created = duel(service, ann, "bob", "ann")
    upto(feeds.open(ann), "synced")  # that connection is gone; then bob moves
    version = service.move(created["id"], bob, SCORE, created["version"])["version"]
    taken = until_quiet(feeds.open(ann, after=1))
    assert taken == [("your_turn", created["id"], {"type": "your_turn", "match": created["id"], "seat": 1,
                                                   "game": "mantis", "version": version, "position": 1})]


def test_a_match_noted_but_never_appended_is_not_told(service, feeds, accounts, ann):
    accounts.note_match(accounts.authenticate(ann)["id"], "f" * 32, SEATED)  # as a crash before the append leaves it
    assert until_quiet(feeds.open(ann, after=0)) == []


def test_a_feed_that_is_closed_stops_watching_its_matches(service, accounts, store, ann, bob):
    hub = Hub(store)
    feeds = AccountFeeds(accounts, service, store, hub, KEEP_ALIVE, POLL)
    created = duel(service, ann)
    frames = feeds.open(ann)
    upto(frames, "synced")
    assert hub.following() == {created["id"]: 1}
    frames.close()
    assert hub.following() == {}


def test_the_key_and_the_position_are_checked_before_any_frame(feeds, ann):
    with pytest.raises(Unauthorized):
        feeds.open(None)
    with pytest.raises(NotFound) as refused:
        feeds.open(ann, after=1)
    assert refused.value.reason == "position_not_found"


def test_over_http_sse_and_ndjson_carry_the_frames_and_a_seat_token_is_refused():
    client = make_client()
    key = client.post("/v1/accounts", json={"name": "ann", "kind": "bot"}).get_json()["api_key"]
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "ann"}, {"name": "x"}]},
                          headers=bearer(key))
    ndjson = client.get("/v1/accounts/me/stream", headers={**bearer(key), "Accept": "application/x-ndjson"},
                        buffered=False)
    assert ndjson.mimetype == "application/x-ndjson" and "Authorization" in ndjson.headers["Vary"]
    lines = itertools.islice(ndjson.response, 3)
    assert [json.loads(line)["type"] for line in lines] == ["match_started", "your_turn", "synced"]
    ndjson.close()
    sse = client.get("/v1/accounts/me/stream?after=0", headers=bearer(key), buffered=False)
    assert next(sse.response) == b"retry: 2000\n\n"
    assert next(sse.response).startswith(b"id: 1\nevent: match_started\ndata: {")
    sse.close()
    assert_error(client.get("/v1/accounts/me/stream"), 401, "key_required")
    token = created.get_json()["seats"][1]["token"]
    assert_error(client.get("/v1/accounts/me/stream", headers=bearer(token)), 401, "key_rejected")
    assert_error(client.get("/v1/accounts/me/stream?after=2", headers=bearer(key)), 404, "position_not_found")


@pytest.mark.parametrize("query, headers, status, reason", [
    ("?after=" + "9" * 400, {}, 422, "invalid_request"),
    ("?after=9007199254740992", {}, 422, "invalid_request"),  # 2**53: past the largest position
    ("", {"Last-Event-ID": "9007199254740992"}, 400, "invalid_last_event_id"),
])
def test_a_resume_position_past_the_largest_is_refused_with_a_reason_and_not_echoed(query, headers, status, reason):
    client = make_client()
    key = client.post("/v1/accounts", json={"name": "ann", "kind": "bot"}).get_json()["api_key"]

    answer = client.get(f"/v1/accounts/me/stream{query}", headers={**bearer(key), **headers})

    assert_error(answer, status, reason)
    assert "9" * 16 not in answer.get_data(as_text=True)
