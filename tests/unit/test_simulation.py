"""Every game's simulation (the fast path a search's playouts run on) plays by the engine's rules, move for
move: the same legal moves, the same state and evaluation after each move, the same greedy choice, the same
outcome."""
import copy
import math

import pytest
from hypothesis import given as for_all, settings, strategies as st

from domain.bots.ismcts import FastRng, playout
from domain.games import GAMES
from domain.protocol import win_share
from domain.rng import Rng
from domain.simulation import Simulation

SIZES = [(game_id, players) for game_id, game in GAMES.items()
         for players in range(game.INFO.min_players, game.INFO.max_players + 1)]


def dealt(game, players: int, seed: int, variant: bool) -> dict:
    raw = {"tokens": True} if variant and "tokens" in {o.name for o in game.INFO.options} else {}
    state = None
    for event in game.deal(game.options(raw, players), players, Rng.derive(f"simulation:{seed}", "deal")):
        state = game.evolve(state, event)
    return state


def engine_play(game, state: dict, seat: int, move: dict, rng) -> dict:
    for event in game.decide(state, seat, move, rng):
        state = game.evolve(state, event)
    return state


@pytest.mark.parametrize("game_id,players", SIZES)
@settings(max_examples=6, deadline=None)
@for_all(seed=st.integers(0, 2**32), variant=st.booleans(), greedy_share=st.sampled_from([0.0, 0.5, 1.0]))
def test_a_simulated_match_is_the_engine_s_match_move_for_move(game_id, players, seed, variant, greedy_share):
    game = GAMES[game_id]
    state = dealt(game, players, seed, variant)
    simulation, pick = game.simulation(state), FastRng(seed)
    while True:
        assert simulation.state() == state
        assert [simulation.evaluate(s) for s in range(players)] == [game.evaluate(state, s) for s in range(players)]
        assert simulation.to_act() == game.to_act(state)
        if not game.to_act(state):
            break
        seat = game.to_act(state)[0]
        legal = game.legal_moves(state, seat)
        fresh = game.simulation(state)  # one that has not listed its moves: `move` builds each alone
        assert [fresh.move(seat, index) for index in range(fresh.move_count(seat))] == legal
        assert simulation.legal_moves(seat) == legal and simulation.move_count(seat) == len(legal)
        tie_break = pick.getrandbits(32)
        choice = simulation.greedy(seat, FastRng(tie_break))
        assert choice == game.greedy(game.view(state, seat), seat, legal, FastRng(tie_break))
        if pick.random() >= greedy_share:
            index = pick.below(len(legal))
            choice = simulation.move(seat, index)
            assert choice == legal[index]
        rules_seed = pick.getrandbits(32)
        simulation.play(seat, choice, FastRng(rules_seed))
        state = engine_play(game, state, seat, choice, FastRng(rules_seed))
    assert simulation.outcome() == game.outcome(state)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_simulation_leaves_the_state_it_was_built_from_as_it_was(game_id):
    game = GAMES[game_id]
    state = dealt(game, game.INFO.min_players, 1, False)
    before = copy.deepcopy(state)
    playout(game.simulation(state), 10_000, 1.0, set(), FastRng(1))
    assert state == before


@pytest.mark.parametrize("game_id", GAMES)
def test_a_playout_on_the_game_s_simulation_ends_as_on_the_reference_one(game_id):
    game = GAMES[game_id]
    for seed in range(3):
        state = dealt(game, game.INFO.max_players, seed, False)
        fast = playout(game.simulation(state), 10_000, 0.5, set(), FastRng(seed))
        reference = playout(Simulation(game, state), 10_000, 0.5, set(), FastRng(seed))
        assert fast == reference and fast  # a finished game: someone won


@pytest.mark.parametrize("game_id", GAMES)
def test_a_playout_cut_at_the_cap_is_scored_by_the_game_s_evaluate(game_id):
    game = GAMES[game_id]
    state = dealt(game, game.INFO.min_players, 2, False)
    seats = set(range(game.INFO.min_players))
    rewards = playout(game.simulation(state), 3, 1.0, seats, FastRng(2))
    assert set(rewards) == seats
    assert all(0 < value < 1 for value in rewards.values())
    assert sum(rewards.values()) == pytest.approx(1)


def test_a_seat_ahead_on_points_is_given_the_better_chance_and_the_chances_add_up_to_one():
    points = [10, 6, 6]
    chances = [win_share(points, seat, 4) for seat in range(3)]
    assert chances[0] > chances[1] == chances[2]
    assert chances[0] / chances[1] == pytest.approx(math.e)  # a lead of `scale` points weighs e to 1
    assert sum(chances) == pytest.approx(1)
