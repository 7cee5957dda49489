"""One contract, two leaderboard stores: what the in-memory store does in unit tests, Redis does in production."""
import pytest

from eventstore.leaderboards import InMemoryLeaderboardStore, RedisLeaderboardStore

LADDER = "mantis.classic.2p"


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration),
                        pytest.param("cluster", marks=pytest.mark.integration)])
def boards(request):
    if request.param == "memory":
        return InMemoryLeaderboardStore()
    return RedisLeaderboardStore(request.getfixturevalue("cluster_client" if request.param == "cluster" else "redis_client"))


def row(player, ordinal, version):
    return {"player": player, "name": player, "kind": "account", "mu": ordinal + 20, "sigma": 6.0, "ordinal": ordinal,
            "games": version, "last_played": f"T{version}", "version": version}


def test_a_page_is_by_ordinal_best_first_ties_by_player_descending_with_the_total(boards):
    boards.put(LADDER, [row("a", 1.0, 1), row("b", 3.0, 1)], [(1, {"m": 1}), (1, {"m": 1})])
    boards.put(LADDER, [row("c", 1.0, 2), row("d", -2.0, 2)], [(2, {"m": 2}), (2, {"m": 2})])
    assert boards.page(LADDER, 0, 10) == ([row("b", 3.0, 1), row("c", 1.0, 2), row("a", 1.0, 1), row("d", -2.0, 2)], 4)
    assert boards.page(LADDER, 1, 2) == ([row("c", 1.0, 2), row("a", 1.0, 1)], 4)
    assert boards.page(LADDER, 4, 2) == ([], 4) and boards.page("blockers.2p", 0, 2) == ([], 0)


def test_a_row_is_written_only_over_an_older_one_and_every_history_point_is_kept_once(boards):
    boards.put(LADDER, [row("a", 5.0, 3)], [(3, {"m": 3})])
    boards.put(LADDER, [row("a", 1.0, 2)], [(2, {"m": 2})])
    boards.put(LADDER, [row("a", 5.0, 3)], [(3, {"m": 3})])
    assert boards.rows(LADDER, ["a", "z"]) == [row("a", 5.0, 3), None]
    assert boards.history(LADDER, "a", 10) == [{"m": 2}, {"m": 3}]
    assert boards.history(LADDER, "a", 1) == [{"m": 3}]


def test_a_replace_leaves_only_what_it_is_given(boards):
    boards.put(LADDER, [row("a", 5.0, 3), row("b", 1.0, 3)], [(3, {"m": 3}), (3, {"m": 3})])
    boards.replace(LADDER, [row("b", 2.0, 1)], {"b": [(1, {"m": 1})]})
    assert boards.page(LADDER, 0, 10) == ([row("b", 2.0, 1)], 1)
    assert boards.history(LADDER, "a", 10) == [] and boards.history(LADDER, "b", 10) == [{"m": 1}]


def test_due_ratings_are_listed_oldest_first_from_their_first_note_until_done(boards):
    boards.note_due("m2", 20.0)
    boards.note_due("m1", 10.0)
    boards.note_due("m2", 30.0)  # noted again by a retried append: still due since the first
    assert boards.due(25.0, 10) == ["m1", "m2"] and boards.due(15.0, 10) == ["m1"]
    boards.done("m1")
    assert boards.due(100.0, 10) == ["m2"]
