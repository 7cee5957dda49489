"""The turn clock's rules (domain/clock.py and its use in domain/match.py), on a fake clock: every event is
given the time it would be stored at, in milliseconds from T."""
import pytest
from hypothesis import given, settings, strategies as st

from domain import clock, match
from domain.errors import IllegalMove, InvalidSetup
from eventstore.clock import utc_at

T = 1_700_000_000_000
SEED, SALT = "seed", "salt"
TWO = [{"name": "ann"}, {"name": "bob"}]


def stored(events: list[dict], at: int) -> list[dict]:
    return [{**event, "time": utc_at(at / 1000)} for event in events]


def started(game="mantis", seats=TWO, at=T, **spec) -> dict:
    created = match.create(game, {}, seats, match.commitment(SEED, SALT), match.SERVER_SEED, clock_spec=spec)
    state = match.evolve_all(None, stored(created, at))
    return match.evolve_all(state, stored(match.open_events(state, SEED), at))


def move(state: dict, seat: int, at: int) -> dict:
    events = match.decide(state, seat, match.legal_moves(state, seat)[0], SEED, SALT)
    return match.evolve_all(state, stored(events, at))


def time_out(state: dict, seat: int, at: int) -> tuple[dict, list[str]]:
    events = match.time_out(state, seat, at, SEED, SALT)
    return match.evolve_all(state, stored(events, at)), [event["type"] for event in events]


def past_first_moves(**spec) -> dict:
    """A two-seat Mantis match where both seats made their first move at T + 1000 and T + 2000."""
    return move(move(started(**spec), 0, T + 1000), 1, T + 2000)


# --- the spec --------------------------------------------------------------------------------------
def test_an_empty_spec_gets_the_documented_defaults():
    assert clock.spec({}) == {"move_ms": 60_000, "bank_ms": 0, "increment_ms": 0, "first_move_ms": 60_000,
                              "reaction_ms": 30_000, "on_timeout": "substitute", "zombie_after": 3}


@pytest.mark.parametrize("raw", [{"move_ms": 0}, {"move_ms": 0, "bank_ms": 0}, {"moves_ms": 5},
                                 {"on_timeout": "resign"}, {"bank_ms": -1}, {"move_ms": True},
                                 {"first_move_ms": 50}, {"zombie_after": "3"}])
def test_a_spec_without_a_limit_or_with_a_bad_part_is_refused(raw):
    with pytest.raises(InvalidSetup) as refused:
        clock.spec(raw)
    assert refused.value.reason == "invalid_clock"


def test_a_match_without_a_clock_has_no_deadline():
    created = match.create("mantis", {}, TWO, match.commitment(SEED, SALT), match.SERVER_SEED)
    state = match.evolve_all(None, stored(created, T))
    state = match.evolve_all(state, stored(match.open_events(state, SEED), T))
    assert "clock" not in created[0]["data"] and match.deadlines(state) == {}


# --- deadlines ------------------------------------------------------------------------------------
def test_a_first_turn_has_the_first_move_limit_and_the_next_turns_the_move_limit():
    state = started(move_ms=5000, first_move_ms=20_000)
    assert match.deadlines(state) == {0: T + 20_000}
    state = move(state, 0, T + 1000)
    assert match.deadlines(state) == {1: T + 21_000}
    state = move(state, 1, T + 2000)
    assert match.deadlines(state) == {0: T + 7000}


def test_a_bank_is_charged_with_each_turn_and_gets_the_increment_after_each_move():
    state = past_first_moves(move_ms=0, bank_ms=10_000, increment_ms=1000)  # seat 0 to act since T + 2000
    assert match.deadlines(state) == {0: T + 12_000}
    state = move(state, 0, T + 5000)  # took 3 s
    assert state["clock"]["bank"][0] == 10_000 - 3000 + 1000
    state = move(state, 1, T + 6000)
    assert match.deadlines(state) == {0: T + 6000 + 8000}


def test_a_per_move_limit_caps_a_large_bank_and_a_small_bank_caps_the_limit():
    assert match.deadlines(past_first_moves(move_ms=4000, bank_ms=60_000)) == {0: T + 2000 + 4000}
    assert match.deadlines(past_first_moves(move_ms=4000, bank_ms=1500)) == {0: T + 2000 + 1500}


def test_a_decision_several_seats_owe_at_once_has_the_reaction_limit_and_costs_no_bank():
    timer = clock.start(clock.spec({"bank_ms": 9000, "reaction_ms": 700}), 3)
    timer = clock.awaiting({**timer, "moved": [True] * 3}, [1, 2], True, T)
    assert [clock.deadline(timer, seat) for seat in range(3)] == [None, T + 700, T + 700]
    assert clock.moved(timer, 1, T + 500)["bank"] == [9000, 9000, 9000]


def test_a_window_that_closes_without_a_seats_answer_stops_its_clock():
    timer = clock.awaiting({**clock.start(clock.spec({}), 3), "moved": [True] * 3}, [1, 2], True, T)
    timer = clock.awaiting(timer, [0], False, T + 100)
    assert [clock.deadline(timer, seat) for seat in range(3)] == [T + 100 + 60_000, None, None]


def test_seats_the_server_plays_are_not_on_the_clock():
    state = started(seats=[{"bot": "random"}, {"name": "bob"}])
    assert match.deadlines(state) == {}  # seat 0, a bot, is to act


def test_the_clock_folded_from_the_stored_events_is_the_same_on_a_replay():
    state = past_first_moves(bank_ms=10_000, increment_ms=500)
    assert match.evolve_all(None, _log_of(state))["clock"] == state["clock"]


def _log_of(state):
    """A replayable log of the match `past_first_moves` built: the same commands at the same times."""
    created = match.create("mantis", {}, TWO, match.commitment(SEED, SALT), match.SERVER_SEED,
                           clock_spec=state["clock"]["spec"])
    log = stored(created, T)
    log += stored(match.open_events(match.evolve_all(None, log), SEED), T)
    for seat, at in ((0, T + 1000), (1, T + 2000)):
        now = match.evolve_all(None, log)
        log += stored(match.decide(now, seat, match.legal_moves(now, seat)[0], SEED, SALT), at)
    return log


# --- timeouts -------------------------------------------------------------------------------------
def test_a_timeout_before_the_deadline_is_refused():
    state = past_first_moves(move_ms=4000)
    with pytest.raises(IllegalMove) as refused:
        match.time_out(state, 0, T + 5999, SEED, SALT)
    assert refused.value.reason == "not_timed_out"


def test_a_missed_first_move_aborts_the_match_with_a_result_that_counts_for_nobody():
    state, types = time_out(started(first_move_ms=1000), 0, T + 1000)
    assert types == ["turn_timed_out", "match_aborted", "match_finished"]
    assert state["status"] == match.FINISHED
    assert state["result"] == {"winners": [], "scores": {},
                               "aborted": {"seat": 0, "reason": "first_move_timeout"}}


def test_a_substitute_timeout_is_the_greedy_bots_move_for_the_seat_and_leaves_it_only_the_increment():
    state = past_first_moves(move_ms=0, bank_ms=3000, increment_ms=1000)
    after, types = time_out(state, 0, T + 5000)
    assert types[:2] == ["turn_timed_out", "moved"]
    assert after["clock"]["bank"][0] == 1000 and after["clock"]["timeouts"] == [1, 0]
    substitute = match.substitute_move(match.evolve_all(state, [{"type": "turn_timed_out",
                                                                 "data": {"seat": 0, "version": state["version"]}}]),
                                       0, SEED)
    assert match.time_out(state, 0, T + 5000, SEED, SALT)[1]["data"] == {"seat": 0, "move": substitute}


def test_after_zombie_after_timeouts_the_seat_is_played_by_the_server_but_stays_in():
    state = past_first_moves(move_ms=1000, zombie_after=2)
    at = T + 2000
    for _ in range(2):
        at += 1000
        state, _ = time_out(state, 0, at)
        at += 10
        state = move(state, 1, at)
    assert match.played_by_server(state, 0) and match.seats_in(state) == [0, 1]
    assert match.deadlines(state) == {}  # its turn is the workers', not the clock's


def test_a_forfeit_with_two_seats_ends_the_match_and_the_other_seat_wins():
    state, types = time_out(past_first_moves(move_ms=1000, on_timeout="forfeit"), 0, T + 3000)
    assert types == ["turn_timed_out", "seat_forfeited", "match_finished"]
    assert state["result"] == {"winners": [1], "scores": {}, "out": {"0": "forfeited"}}


def test_a_forfeit_with_three_seats_lets_the_others_play_on_with_the_seat_played_by_the_server():
    state = started(seats=[{"name": "a"}, {"name": "b"}, {"name": "c"}], move_ms=1000, on_timeout="forfeit")
    state = move(move(move(state, 0, T + 10), 1, T + 20), 2, T + 30)
    state, types = time_out(state, 0, T + 1030)
    assert types == ["turn_timed_out", "seat_forfeited"]
    assert match.seat_out(state, 0) == "forfeited" and match.played_by_server(state, 0)


# --- resigning ------------------------------------------------------------------------------------
def test_resigning_with_two_seats_ends_the_match_and_the_other_seat_wins():
    state = started()
    state = match.evolve_all(state, stored(match.resign(state, 1, SEED, SALT), T + 10))
    assert state["status"] == match.FINISHED
    assert state["result"] == {"winners": [0], "scores": {}, "out": {"1": "resigned"}}


def test_a_resigned_seat_cannot_win_when_the_game_ends():
    state = match.evolve_all(started(seats=[{"name": "a"}, {"name": "b"}, {"name": "c"}]),
                             stored([{"type": "seat_resigned", "data": {"seat": 0}}], T))
    result = match._with_out_seats(state, {"winners": [0, 2], "scores": {"0": 9, "1": 1, "2": 9}})
    assert result == {"winners": [2], "scores": {"0": 9, "1": 1, "2": 9}, "out": {"0": "resigned"}}


def test_resigning_twice_or_after_the_end_is_refused():
    state = started(seats=[{"name": "a"}, {"name": "b"}, {"name": "c"}])
    state = match.evolve_all(state, stored(match.resign(state, 0, SEED, SALT), T))
    with pytest.raises(IllegalMove, match="out of the match already"):
        match.resign(state, 0, SEED, SALT)
    state = match.evolve_all(state, stored(match.resign(state, 1, SEED, SALT), T))
    with pytest.raises(IllegalMove) as refused:
        match.resign(state, 2, SEED, SALT)
    assert refused.value.reason == "match_finished" and state["result"]["winners"] == [2]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3000), min_size=1, max_size=30))
def test_a_bank_never_goes_below_zero_and_grows_only_by_increments(think_times):
    """Whatever the seats take, each bank stays within [0, bank + moves * increment]."""
    state, at = past_first_moves(move_ms=0, bank_ms=5000, increment_ms=200, zombie_after=0), T + 2000
    for moves, took in enumerate(think_times, start=1):
        seat = match.to_act(state)[0]
        if at + took >= match.deadlines(state)[seat]:
            state, _ = time_out(state, seat, at + took)
        else:
            state = move(state, seat, at + took)
        at += took
        if state["status"] == match.FINISHED:
            break
        assert all(0 <= bank <= 5000 + moves * 200 for bank in state["clock"]["bank"])
