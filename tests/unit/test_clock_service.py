"""Resigning and turn clocks through the service and over HTTP, on the in-memory store and a fake clock:
timers are recorded, and fired by hand at the time they were scheduled for (or earlier, later, twice)."""
import pytest

from domain import match
from eventstore.chain import event_hash
from eventstore.clock import utc_at
from eventstore.memory import InMemoryEventStore
from service.audit import verify_log
from service.errors import Conflict, Unprocessable
from service.matches import MatchService
from tests.support.http import assert_error, bearer, make_client
from tests.support.service import InlineBots, RecordedBots

START = 1_700_000_000.0
TWO = [{"name": "ann"}, {"name": "bob"}]


class Now:
    def __init__(self):
        self.seconds = START

    def __call__(self):
        return self.seconds

    def later(self, seconds, call):
        """A deferred call: the time passes, then it runs."""
        self.seconds += seconds
        call()


class RecordedTimers:
    def __init__(self):
        self.scheduled: list[tuple[str, int, float]] = []

    def schedule(self, match_id, version, at):
        self.scheduled.append((match_id, version, at))


def clocked(seats=TWO, bots=None, **spec):
    now, timers, store = Now(), RecordedTimers(), InMemoryEventStore()
    bots = bots or RecordedBots()
    service = MatchService(store, bots, clock=now, sleep=lambda _: None, timers=timers, defer=now.later)
    if isinstance(bots, InlineBots):
        bots.service = service
    created = service.create("mantis", {}, seats, clock_spec=spec)
    return service, store, now, timers, created


def play(service, created, seat, now, after):
    """The seat makes its first legal move `after` seconds from now."""
    now.seconds += after
    token = created["seats"][seat]["token"]
    legal = service.legal_moves(created["id"], token)
    return service.move(created["id"], token, legal["moves"][0], legal["version"])


def test_the_document_shows_each_seats_deadline_as_an_absolute_time():
    service, _, _, timers, created = clocked(move_ms=5000, first_move_ms=20_000)
    assert created["deadline"] == "2023-11-14T22:13:40.000Z"  # START + 20 s
    assert created["clock"]["seats"] == [{"bank_ms": None, "deadline": created["deadline"], "timeouts": 0},
                                         {"bank_ms": None, "deadline": None, "timeouts": 0}]
    assert timers.scheduled == [(created["id"], created["version"], START + 20)]


def test_a_timer_fired_after_the_deadline_times_the_seat_out_once():
    service, store, now, timers, created = clocked(move_ms=1000)
    play(service, created, 0, now, 1)
    play(service, created, 1, now, 1)
    match_id, version, at = timers.scheduled[-1]
    now.seconds = at + 0.3
    assert service.time_out(match_id, version) == "timed_out"
    assert service.time_out(match_id, version) == "stale"  # RQ's scheduler fired it twice
    logged = [e["type"] for e in store.read(match_id)]
    assert logged.count("turn_timed_out") == 1 and logged[logged.index("turn_timed_out") + 1] == "moved"


def test_a_timer_that_fires_less_than_a_second_early_is_deferred_to_the_deadline():
    service, store, now, timers, created = clocked(first_move_ms=3000)
    match_id, version, at = timers.scheduled[-1]
    now.seconds = at - 0.5  # RQ's scheduler keeps whole seconds
    assert service.time_out(match_id, version) == "early"
    timed_out = store.read(match_id, after=version)[0]
    assert timed_out["type"] == "turn_timed_out" and timed_out["time"] == utc_at(at)


def test_a_timer_that_fires_long_before_the_deadline_only_schedules_itself_again():
    service, store, now, timers, created = clocked(first_move_ms=30_000)
    match_id, version, at = timers.scheduled[-1]
    now.seconds = at - 20
    assert service.time_out(match_id, version) == "early"
    assert timers.scheduled[-1] == (match_id, version, at) and len(store.read(match_id)) == version


def test_a_timer_of_a_version_the_match_moved_past_does_nothing():
    service, store, now, timers, created = clocked(first_move_ms=3000)
    match_id, version, at = timers.scheduled[-1]
    play(service, created, 0, now, 1)
    now.seconds = at + 60
    assert service.time_out(match_id, version) == "stale"
    assert "turn_timed_out" not in [e["type"] for e in store.read(match_id)]


def test_a_missed_first_move_aborts_the_match_and_the_log_verifies():
    service, store, now, timers, created = clocked(first_move_ms=2000)
    match_id, version, at = timers.scheduled[-1]
    now.seconds = at
    service.time_out(match_id, version)
    document = service.get(match_id, None)
    assert document["status"] == match.FINISHED and document["result"]["aborted"]["seat"] == 0
    assert verify_log(store.read(match_id)).ok


def test_a_match_where_one_seat_never_moves_finishes_with_one_timeout_per_missed_turn():
    """Seat 1 makes its first move, then never again; seat 0 always answers at once; the timers fire."""
    service, store, now, timers, created = clocked(move_ms=1000, zombie_after=0)
    play(service, created, 0, now, 0.1)
    play(service, created, 1, now, 0.1)
    missed = 0
    while (document := service.get(created["id"], None))["status"] != match.FINISHED:
        if document["to_act"] == [0]:
            play(service, created, 0, now, 0.1)
            continue
        match_id, version, at = timers.scheduled[-1]
        assert version == document["version"]
        now.seconds = at + 0.05
        assert service.time_out(match_id, version) == "timed_out"
        missed += 1
    log = store.read(created["id"])
    assert [e["type"] for e in log].count("turn_timed_out") == missed > 0
    assert verify_log(log).ok


def test_after_zombie_after_timeouts_the_workers_play_the_seat_and_its_token_cannot():
    bots = InlineBots()
    service, store, now, timers, created = clocked(move_ms=1000, zombie_after=1, bots=bots)
    play(service, created, 0, now, 0.1)
    play(service, created, 1, now, 0.1)
    match_id, version, at = timers.scheduled[-1]
    now.seconds = at
    service.time_out(match_id, version)  # seat 0 timed out once: the greedy bot plays it from now on
    assert service.get(match_id, None)["seats"][0] | {"name": None} == {
        "seat": 0, "name": None, "bot": None, "open": False, "account": None, "invited": False, "zombie": True,
        "out": None}
    played = play(service, created, 1, now, 0.1)  # seat 0's turn next: the workers play it at once
    document = service.get(match_id, None)
    after = store.read(match_id, after=played["version"])
    assert {"seat": 0} in [{"seat": e["data"]["seat"]} for e in after if e["type"] == "moved"]
    with pytest.raises(Unprocessable) as refused:
        service.move(match_id, created["seats"][0]["token"], {"action": "score"}, document["version"])
    assert refused.value.reason == "seat_played_by_server"


def test_the_janitor_finds_a_clock_whose_timer_was_lost():
    service, store, now, timers, created = clocked(first_move_ms=2000)
    now.seconds += 2 + 5.5  # the timer never fired
    assert service.overdue_clocks(grace=5) == [(created["id"], created["version"])]
    assert service.time_out(created["id"], created["version"]) == "timed_out"
    assert service.overdue_clocks(grace=5) == []  # the match is over: its deadline is forgotten


def test_resigning_ends_a_two_seat_match_and_a_retry_answers_the_same():
    service, store, _, _, created = clocked()
    token = created["seats"][1]["token"]
    first = service.resign(created["id"], token)
    assert first["result"] == {"winners": [0], "scores": {}, "out": {"1": "resigned"}}
    assert service.resign(created["id"], token) == first
    with pytest.raises(Conflict) as refused:
        service.resign(created["id"], created["seats"][0]["token"])
    assert refused.value.reason == "match_finished"
    assert verify_log(store.read(created["id"])).ok


def test_a_resigned_seat_of_three_is_played_by_the_greedy_bot_and_the_others_play_on():
    bots = InlineBots()
    service = MatchService(InMemoryEventStore(), bots, sleep=lambda _: None)
    bots.service = service
    created = service.create("mantis", {}, [{"name": "a"}, {"name": "b"}, {"name": "c"}])
    resigned = service.resign(created["id"], created["seats"][0]["token"])  # seat 0 was to act
    assert resigned["status"] == match.ACTIVE and resigned["seats"][0]["out"] == "resigned"
    assert service.get(created["id"], None)["to_act"] != [0]  # the greedy bot moved for it


# --- over HTTP -----------------------------------------------------------------------------------
def test_post_resign_answers_the_match_and_409_once_it_is_over():
    client = make_client()
    created = client.post("/v1/matches", json={"game": "mantis", "seats": TWO}).get_json()
    token = created["seats"][0]["token"]
    answer = client.post(f"/v1/matches/{created['id']}/resign", headers=bearer(token))
    assert answer.status_code == 200 and answer.get_json()["result"]["winners"] == [1]
    assert client.post(f"/v1/matches/{created['id']}/resign", headers=bearer(token)).status_code == 200
    assert_error(client.post(f"/v1/matches/{created['id']}/resign", headers=bearer(created["seats"][1]["token"])),
                 409, "match_finished")
    assert_error(client.post(f"/v1/matches/{created['id']}/resign"), 401, "token_required")


@pytest.mark.parametrize("bad", [{"move_ms": 0}, {"on_timeout": "pass"}, {"tick_ms": 5}, {"bank_ms": "5"},
                                 {"zombie_after": -1}])
def test_a_bad_clock_is_refused_with_422(bad):
    answer = make_client().post("/v1/matches", json={"game": "mantis", "seats": TWO, "clock": bad})
    assert answer.status_code == 422, answer.get_json()


def test_a_clock_given_at_creation_is_in_the_match_document():
    client = make_client()
    created = client.post("/v1/matches", json={"game": "mantis", "seats": TWO,
                                               "clock": {"bank_ms": 30_000, "increment_ms": 2000}}).get_json()
    shown = client.get(f"/v1/matches/{created['id']}").get_json()
    assert shown["clock"]["bank_ms"] == 30_000 and shown["clock"]["move_ms"] == 60_000
    assert shown["clock"]["seats"][0]["bank_ms"] == 30_000 and shown["deadline"].endswith("Z")


def test_the_verifier_refuses_a_timeout_logged_before_its_deadline():
    service, store, now, timers, created = clocked(first_move_ms=2000)
    match_id, version, at = timers.scheduled[-1]
    now.seconds = at
    service.time_out(match_id, version)
    log = [dict(event) for event in store.read(match_id)]
    assert verify_log(log).ok
    for event in log[version:]:  # the timeout and what followed it, 1 ms before the deadline, chained again
        event["time"] = utc_at(at - 0.001)
    for previous, event in zip(log[version - 1:], log[version:]):
        event["prev"] = previous["hash"]
        event["hash"] = event_hash(event)
    verdict = verify_log(log)
    assert not verdict.ok and verdict.first_bad_event == version + 1 and "not_timed_out" in verdict.problem
