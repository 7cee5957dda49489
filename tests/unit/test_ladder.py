"""The rules of rated play (domain/ladder.py): which matches may be rated, which ladder they count on, the ranks a
finished match gives, and the ladder's log folded."""
from datetime import datetime, timedelta

import pytest

from domain import ladder, match
from domain.bots.ismcts import LEVELS
from domain.errors import InvalidSetup

CLOCK = {"move_ms": 10_000}


def created(seats, clock=CLOCK, seed_source=match.SERVER_SEED, game="mantis", options=None):
    return match.create(game, options or {}, seats, "c" * 64, seed_source, clock_spec=clock, rated=True)


def finished(result, seats=3, rated=True):
    return {"rated": rated, "status": match.FINISHED, "seats": [{"name": f"s{i}"} for i in range(seats)],
            "result": result}


ACCOUNTS = [{"name": "ann", "account": "a" * 32}, {"name": "bob", "account": "b" * 32}]


def test_a_rated_match_records_rated_and_an_unrated_one_says_nothing():
    assert created(ACCOUNTS)[0]["data"]["rated"] is True
    unrated = match.create("mantis", {}, ACCOUNTS, "c" * 64, match.SERVER_SEED, clock_spec=CLOCK)
    assert "rated" not in unrated[0]["data"]


@pytest.mark.parametrize("seats, clock, seed_source, reason", [
    ([ACCOUNTS[0], {"open": True}], CLOCK, match.SERVER_SEED, "rated_open_seat"),
    ([ACCOUNTS[0], {"name": "guest"}], CLOCK, match.SERVER_SEED, "rated_anonymous_seat"),
    (ACCOUNTS, None, match.SERVER_SEED, "rated_without_clock"),
    ([{**ACCOUNTS[0]}, {"bot": "greedy"}], CLOCK, match.CLIENT_SEED, "rated_with_seed"),
    ([{"bot": "greedy"}, {"bot": "greedy"}], CLOCK, match.SERVER_SEED, "rated_player_twice"),
    ([ACCOUNTS[0], {"bot": "ismcts", "bot_options": {"iterations": 7}}], CLOCK, match.SERVER_SEED,
     "rated_bot_options"),
])
def test_a_rated_match_without_a_rated_player_in_every_seat_a_clock_and_the_servers_seed_is_refused(
        seats, clock, seed_source, reason):
    with pytest.raises(InvalidSetup) as refused:
        match.create("mantis", {}, seats, "c" * 64, seed_source, owner="a" * 32, clock_spec=clock, rated=True)
    assert refused.value.reason == reason


def test_house_bots_are_rated_under_their_kind_and_level():
    seats = created([{"bot": "greedy"}, {"bot": "ismcts", "bot_options": {"level": 3}}, {"bot": "ismcts"},
                     ACCOUNTS[0]])[0]["data"]["seats"]
    assert [ladder.player(seat) for seat in seats] == [
        {"player": "bot:greedy", "name": "greedy bot", "kind": ladder.HOUSE},
        {"player": "bot:ismcts:3", "name": "ismcts bot (level 3)", "kind": ladder.HOUSE},
        {"player": "bot:ismcts:4", "name": "ismcts bot (level 4)", "kind": ladder.HOUSE},  # the defaults: level 4
        {"player": "a" * 32, "name": "ann", "kind": "account"}]


def test_a_house_bot_stays_rated_under_the_level_it_was_seated_at_when_that_level_is_tuned_again(monkeypatch):
    # given a match that seated the search bot at level 3
    seats = created([{"bot": "ismcts", "bot_options": {"level": 3}}, ACCOUNTS[0]])[0]["data"]["seats"]
    # when level 3 is given other options afterwards (a new version of the bot)
    monkeypatch.setitem(LEVELS, 3, {"iterations": 777, "budget_ms": 400})
    # then that seat is still level 3's on the ladder, as its match's log says
    assert seats[0]["bot_level"] == 3
    assert ladder.player(seats[0])["player"] == "bot:ismcts:3"


def test_a_ladder_is_per_game_edition_where_there_is_one_and_player_count():
    assert ladder.ladder_id("mantis", {"edition": "compact"}, 3) == "mantis.compact.3p"
    assert ladder.ladder_id("blockers", {}, 2) == "blockers.2p"


def test_the_winners_rank_first_and_the_others_by_score_more_being_better_where_the_winners_scored_more():
    assert ladder.ranks(finished({"winners": [1], "scores": {"0": 3, "1": 9, "2": 5}})) == [3, 1, 2]


def test_fewer_is_better_where_the_winners_scored_fewer():
    assert ladder.ranks(finished({"winners": [0], "scores": {"0": 0, "1": 4, "2": 2}})) == [1, 3, 2]


def test_scores_that_do_not_tell_a_direction_leave_the_others_tied():
    assert ladder.ranks(finished({"winners": [0], "scores": {"0": 5, "1": 5, "2": 2}})) == [1, 2, 2]
    assert ladder.ranks(finished({"winners": [0, 1], "scores": {}})) == [1, 1, 2]


def test_a_seat_that_resigned_or_forfeited_ranks_last_whatever_its_score():
    result = {"winners": [1], "scores": {"0": 20, "1": 9, "2": 5}, "out": {"0": match.RESIGNED}}
    assert ladder.ranks(finished(result)) == [3, 1, 2]


def test_a_zombie_seat_ranks_where_the_result_places_it():
    result = {"winners": [2], "scores": {"0": 3, "1": 9, "2": 10}, "zombies": [1]}
    assert ladder.ranks(finished(result)) == [3, 2, 1]


@pytest.mark.parametrize("result", [
    {"winners": [], "scores": {}, "aborted": {"seat": 0, "reason": "first_move_timeout"}},
    {"winners": [], "scores": {}, "canceled": {"reason": "declined", "seats": [1]}},
])
def test_an_aborted_or_canceled_match_counts_for_nobody(result):
    assert ladder.ranks(finished(result)) is None


def test_an_unrated_or_unfinished_match_counts_for_nobody():
    assert ladder.ranks(finished({"winners": [0], "scores": {}}, rated=False)) is None
    assert ladder.ranks({**finished(None), "status": match.ACTIVE}) is None


ANN, BOB = "a" * 32, "b" * 32
GREEDY = {"player": "bot:greedy", "name": "greedy bot", "kind": ladder.HOUSE}
T0 = "2026-11-25T05:00:00.000Z"


def at(hours: float) -> str:
    """A time `hours` after T0, as the store writes it."""
    return (datetime.fromisoformat(T0.replace("Z", "+00:00")) + timedelta(hours=hours)).isoformat()


def entrants(*players):
    return [{"player": p, "name": p[:3], "kind": "account" if not p.startswith("bot:") else ladder.HOUSE,
             "rank": rank} for rank, p in enumerate(players, start=1)]


def rated_event(match_id, when, *players):
    seated = entrants(*players)
    return ladder.rated(LADDER, match_id, when, seated, [{"mu": 25, "sigma": 8}] * len(seated),
                        [{"mu": 25 + len(seated) - s["rank"], "sigma": 7} for s in seated])


def moved_by(*moved):
    """A finished rated match whose seats have moved (or not) as said."""
    return {**finished({"winners": [0], "scores": {}}, seats=len(moved)), "clock": {"moved": list(moved)}}


LADDER = "mantis.classic.2p"


def test_the_ladder_folds_each_players_rating_games_and_last_match():
    seats = [{**GREEDY, "rank": 1}, {"player": ANN, "name": "ann", "kind": "account", "rank": 2}]
    first = ladder.rated(LADDER, "m1", at(0), seats, [{"mu": 25, "sigma": 8}] * 2,
                         [{"mu": 27, "sigma": 7}, {"mu": 23, "sigma": 7}])
    second = ladder.rated(LADDER, "m2", at(1), seats[1:], [{"mu": 23, "sigma": 7}], [{"mu": 24, "sigma": 6}])
    state = ladder.evolve_all(None, [first, second])
    assert state["version"] == 2
    assert state["players"]["bot:greedy"] == {"name": "greedy bot", "kind": ladder.HOUSE, "mu": 27, "sigma": 7,
                                              "games": 1, "opponents": [ANN], "last_played": at(0), "version": 1}
    assert state["players"][ANN] == {"name": "ann", "kind": "account", "mu": 24, "sigma": 6, "games": 2,
                                     "opponents": ["bot:greedy"], "last_played": at(1), "version": 2}
    assert ladder.standing(state, ANN) == {"mu": 24, "sigma": 6}
    assert ladder.standing(state, "bot:random") is None


# --- ratings worth trusting ------------------------------------------------------------------------------
def test_a_match_that_ended_before_a_seat_ever_moved_is_not_rated():
    assert ladder.unrated_reason(None, moved_by(True, False), entrants(ANN, BOB), at(0)) == \
        ladder.FIRST_MOVES_MISSING
    assert ladder.unrated_reason(None, moved_by(True, True), entrants(ANN, BOB), at(0)) is None


def test_the_same_two_accounts_have_only_their_first_results_of_a_day_rated():
    # given ann and bob rated against each other REPEATS_PER_DAY times within a few hours
    state = ladder.evolve_all(None, [rated_event(f"m{i}", at(i), ANN, BOB) for i in range(ladder.REPEATS_PER_DAY)])
    # when they finish one more match that day, then it is not rated
    assert ladder.unrated_reason(state, moved_by(True, True), entrants(BOB, ANN), at(5)) == ladder.REPEAT_PAIRING
    # and when a day has passed since the first of them, a result counts again
    assert ladder.unrated_reason(state, moved_by(True, True), entrants(BOB, ANN), at(24.5)) is None


def test_a_repeat_pairing_is_of_accounts_only_house_bots_are_played_as_often_as_anyone_likes():
    state = ladder.evolve_all(None, [rated_event(f"m{i}", at(i / 10), ANN, "bot:greedy") for i in range(8)])
    assert ladder.unrated_reason(state, moved_by(True, True), entrants(ANN, "bot:greedy"), at(1)) is None
    assert state["pairs"] == {}


def test_a_table_of_three_is_not_rated_when_two_of_its_accounts_are_a_repeat_pairing():
    carl = "c" * 32
    state = ladder.evolve_all(None, [rated_event(f"m{i}", at(i), ANN, BOB) for i in range(ladder.REPEATS_PER_DAY)])
    assert ladder.unrated_reason(state, moved_by(True, True, True), entrants(carl, ANN, BOB), at(4)) == \
        ladder.REPEAT_PAIRING
    assert ladder.unrated_reason(state, moved_by(True, True, True), entrants(carl, ANN, "bot:greedy"), at(4)) is None


@pytest.mark.parametrize("games, opponents, provisional", [
    (ladder.PROVISIONAL_GAMES - 1, ["x", "y", "z"], True),
    (ladder.PROVISIONAL_GAMES, ["x", "y"], True),
    (ladder.PROVISIONAL_GAMES, ["x", "y", "z"], False),
])
def test_a_player_is_provisional_until_it_has_played_enough_rated_matches_against_enough_opponents(
        games, opponents, provisional):
    assert ladder.provisional({"games": games, "opponents": opponents}) is provisional


def test_a_players_opponents_are_kept_up_to_what_the_provisional_rule_needs():
    players = [ANN, BOB, "bot:greedy", "bot:random", "bot:ismcts:1"]
    state = ladder.evolve_all(None, [rated_event(f"m{i}", at(i), ANN, other) for i, other in enumerate(players[1:])])
    assert state["players"][ANN]["opponents"] == players[1:1 + ladder.PROVISIONAL_OPPONENTS]


def test_a_match_not_rated_moves_nobody_and_a_void_restates_the_players_it_changed():
    # given ann rated against bob, then carl against the greedy bot, then a match not rated
    carl = "c" * 32
    state = ladder.evolve_all(None, [rated_event("m1", at(0), ANN, BOB), rated_event("m2", at(1), carl, "bot:greedy"),
                                     ladder.not_rated(LADDER, "m3", at(2), entrants(ANN, BOB), ladder.REPEAT_PAIRING)])
    assert state["version"] == 3 and state["players"][ANN]["games"] == 1
    # when m1 is voided (the ladder replayed without it: carl's and the bot's match alone)
    replayed = ladder.evolve_all(None, [rated_event("m2", at(1), carl, "bot:greedy")])
    void = ladder.voided(LADDER, "m1", at(3), "ops", "farmed", state, replayed)
    # then the event names ann and bob, who have no rated match left, and nobody else
    assert void["data"]["players"] == {ANN: None, BOB: None}
    after = ladder.evolve(state, void)
    assert set(after["players"]) == {carl, "bot:greedy"} and after["version"] == 4
    assert after["players"][carl] == state["players"][carl]
