"""One contract, two leaderboard stores: what the in-memory store does in unit tests, Redis does in production."""
import pytest

from eventstore.leaderboards import ESTABLISHED, PROVISIONAL, InMemoryLeaderboardStore, RedisLeaderboardStore

LADDER = "mantis.classic.2p"


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration),
                        pytest.param("cluster", marks=pytest.mark.integration)])
def boards(request):
    if request.param == "memory":
        return InMemoryLeaderboardStore()
    return RedisLeaderboardStore(request.getfixturevalue("cluster_client" if request.param == "cluster" else "redis_client"))


def row(player, ordinal, version, provisional=False):
    return {"player": player, "name": player, "kind": "account", "mu": ordinal + 20, "sigma": 6.0, "ordinal": ordinal,
            "games": version, "last_played": f"T{version}", "version": version, "provisional": provisional}


def totals(established, provisional):
    return {ESTABLISHED: established, PROVISIONAL: provisional}


def test_a_page_is_by_ordinal_best_first_ties_by_player_descending_with_the_total(boards):
    boards.put(LADDER, [row("a", 1.0, 1), row("b", 3.0, 1)], [(1, {"m": 1}), (1, {"m": 1})])
    boards.put(LADDER, [row("c", 1.0, 2), row("d", -2.0, 2)], [(2, {"m": 2}), (2, {"m": 2})])
    assert boards.page(LADDER, 0, 10, False) == (
        [row("b", 3.0, 1), row("c", 1.0, 2), row("a", 1.0, 1), row("d", -2.0, 2)], totals(4, 0))
    assert boards.page(LADDER, 1, 2, False) == ([row("c", 1.0, 2), row("a", 1.0, 1)], totals(4, 0))
    assert boards.page(LADDER, 4, 2, False) == ([], totals(4, 0))
    assert boards.page("blockers.2p", 0, 2, False) == ([], totals(0, 0))


def test_provisional_players_are_listed_apart_and_move_to_the_ladder_once_established(boards):
    # given a provisional player beside an established one
    boards.put(LADDER, [row("a", 1.0, 1), row("n", 9.0, 1, provisional=True)], [(1, {"m": 1}), (1, {"m": 1})])
    assert boards.page(LADDER, 0, 10, False) == ([row("a", 1.0, 1)], totals(1, 1))
    assert boards.page(LADDER, 0, 10, True) == ([row("n", 9.0, 1, provisional=True)], totals(1, 1))
    # when the provisional one is established by a later match, then it is ranked, and no longer apart
    boards.put(LADDER, [row("n", 8.0, 2)], [(2, {"m": 2})])
    assert boards.page(LADDER, 0, 10, False) == ([row("n", 8.0, 2), row("a", 1.0, 1)], totals(2, 0))
    assert boards.page(LADDER, 0, 10, True) == ([], totals(2, 0))


def test_a_row_is_written_only_over_an_older_one_and_every_history_point_is_kept_once(boards):
    boards.put(LADDER, [row("a", 5.0, 3)], [(3, {"m": 3})])
    boards.put(LADDER, [row("a", 1.0, 2)], [(2, {"m": 2})])
    boards.put(LADDER, [row("a", 5.0, 3)], [(3, {"m": 3})])
    assert boards.rows(LADDER, ["a", "z"]) == [row("a", 5.0, 3), None]
    assert boards.history(LADDER, "a", 10) == [{"m": 2}, {"m": 3}]
    assert boards.history(LADDER, "a", 1) == [{"m": 3}]


def test_a_replace_leaves_only_what_it_is_given(boards):
    boards.put(LADDER, [row("a", 5.0, 3), row("b", 1.0, 3)], [(3, {"m": 3}), (3, {"m": 3})])
    boards.replace(LADDER, [row("b", 2.0, 1), row("c", 0.5, 1, provisional=True)], {"b": [(1, {"m": 1})]})
    assert boards.page(LADDER, 0, 10, False) == ([row("b", 2.0, 1)], totals(1, 1))
    assert boards.page(LADDER, 0, 10, True) == ([row("c", 0.5, 1, provisional=True)], totals(1, 1))
    assert boards.history(LADDER, "a", 10) == [] and boards.history(LADDER, "b", 10) == [{"m": 1}]


def test_due_ratings_are_listed_oldest_first_from_their_first_note_until_done(boards):
    boards.note_due("m2", 20.0)
    boards.note_due("m1", 10.0)
    boards.note_due("m2", 30.0)  # noted again by a retried append: still due since the first
    assert boards.due(25.0, 10) == ["m1", "m2"] and boards.due(15.0, 10) == ["m1"]
    boards.done("m1")
    assert boards.due(100.0, 10) == ["m2"]
