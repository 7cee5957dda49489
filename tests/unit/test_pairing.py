"""Pairing invariants (domain/pairing.py), with hypothesis where the claim is about every case."""
from collections import Counter
from itertools import combinations, permutations

from hypothesis import given, settings, strategies as st

from domain import pairing
from domain.rng import Rng


def repeat_free_matching_exists(players: list[int], seen: set) -> bool:
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(frozenset((first, other)) not in seen and
               repeat_free_matching_exists([p for p in rest if p != other], seen) for other in rest)


def test_a_round_robin_seats_every_pair_in_both_orders():
    tables = pairing.round_robin(4, 2)
    assert sorted(map(tuple, tables)) == sorted(permutations(range(4), 2))


def test_a_round_robin_of_three_seats_gives_each_entrant_each_seat_of_each_table():
    tables = pairing.round_robin(5, 3)
    assert len(tables) == 10 * 3
    for trio in combinations(range(5), 3):
        at_trio = [t for t in tables if set(t) == set(trio)]
        assert all(sorted(t[seat] for t in at_trio) == list(trio) for seat in range(3))


def test_duplicate_plays_every_deal_once_per_seat_rotation_of_all_entrants():
    tables = pairing.duplicate(3, deals=2)
    assert tables == [(0, [0, 1, 2]), (0, [1, 2, 0]), (0, [2, 0, 1]), (1, [0, 1, 2]), (1, [1, 2, 0]), (1, [2, 0, 1])]


@settings(max_examples=150, deadline=None)
@given(entrants=st.integers(2, 9), data=st.data())
def test_swiss_pairs_no_one_twice_while_that_can_be_avoided(entrants, data):
    scores = data.draw(st.lists(st.integers(0, 4), min_size=entrants, max_size=entrants))
    pairs = list(combinations(range(entrants), 2))
    history = [list(p) for p in data.draw(st.lists(st.sampled_from(pairs), max_size=len(pairs)))]
    tables, byes = pairing.swiss(scores, history, [0] * entrants, [0] * entrants, 2, Rng.derive("s", "round"))
    assert sorted([e for t in tables for e in t] + byes) == list(range(entrants))
    assert all(len(t) == 2 for t in tables) and len(byes) == entrants % 2
    playing = [e for e in range(entrants) if e not in byes]
    if repeat_free_matching_exists(playing, pairing.met(history)):
        assert not pairing.met(tables) & pairing.met(history)


@settings(max_examples=60, deadline=None)
@given(entrants=st.integers(3, 12), table_size=st.integers(2, 4), seed=st.text(min_size=1, max_size=8))
def test_a_whole_swiss_gives_byes_to_the_entrants_with_the_fewest(entrants, table_size, seed):
    if table_size > entrants:
        return
    scores, history, byes, firsts = [0.0] * entrants, [], [0] * entrants, [0] * entrants
    for number in range(1, entrants + 1):
        tables, resting = pairing.swiss(scores, history, byes, firsts, table_size, Rng.derive(seed, str(number)))
        assert all(len(t) == table_size for t in tables)
        assert sorted([e for t in tables for e in t] + resting) == list(range(entrants))
        others = [byes[e] for e in range(entrants) if e not in resting]
        assert not resting or not others or max(byes[e] for e in resting) <= min(others), \
            "a bye to an entrant who had more byes than someone playing"
        for e in resting:
            byes[e] += 1
        for t in tables:
            firsts[t[0]] += 1
            scores[t[0]] += 1  # seat 0 "wins": scores spread out as in a real event
        history += tables


def test_swiss_meets_similar_scores_first():
    scores = [0, 3, 1, 2, 3, 0, 2, 1]
    tables, _ = pairing.swiss(scores, [], [0] * 8, [0] * 8, 2, Rng.derive("s", "1"))
    assert sorted(sorted(scores[e] for e in t) for t in tables) == [[0, 0], [1, 1], [2, 2], [3, 3]]


def test_swiss_gives_seat_zero_to_whoever_had_it_least():
    tables, _ = pairing.swiss([1, 1], [], [0, 0], [3, 1], 2, Rng.derive("s", "1"))
    assert tables == [[1, 0]]


def test_a_round_needing_repeats_takes_the_fewest():
    history = [[0, 1], [2, 3], [0, 2], [1, 3], [0, 3]]  # 0 met everyone
    tables, _ = pairing.swiss([0, 0, 0, 0], history, [0] * 4, [0] * 4, 2, Rng.derive("s", "1"))
    assert len(pairing.met(tables) & pairing.met(history)) == 1  # [1, 2] is new, 0 must meet someone again
    assert Counter(e for t in tables for e in t) == Counter(range(4))
