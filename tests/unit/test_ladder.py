"""The rules of rated play (domain/ladder.py): which matches may be rated, which ladder they count on, the ranks a
finished match gives, and the ladder's log folded."""
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


def test_the_ladder_folds_each_players_rating_games_and_last_match():
    seats = [{"player": "bot:greedy", "name": "greedy bot", "kind": ladder.HOUSE, "rank": 1},
             {"player": "a" * 32, "name": "ann", "kind": "account", "rank": 2}]
    first = ladder.rated("mantis.classic.2p", "m1", "T1", seats, [{"mu": 25, "sigma": 8}] * 2,
                         [{"mu": 27, "sigma": 7}, {"mu": 23, "sigma": 7}])
    second = ladder.rated("mantis.classic.2p", "m2", "T2", seats[1:], [{"mu": 23, "sigma": 7}],
                          [{"mu": 24, "sigma": 6}])
    state = ladder.evolve_all(None, [first, second])
    assert state["version"] == 2
    assert state["players"]["bot:greedy"] == {"name": "greedy bot", "kind": ladder.HOUSE, "mu": 27, "sigma": 7,
                                              "games": 1, "last_played": "T1", "version": 1}
    assert state["players"]["a" * 32] == {"name": "ann", "kind": "account", "mu": 24, "sigma": 6, "games": 2,
                                          "last_played": "T2", "version": 2}
    assert ladder.standing(state, "a" * 32) == {"mu": 24, "sigma": 6}
    assert ladder.standing(state, "bot:random") is None
