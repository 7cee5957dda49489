"""9STAX's fast simulation (domain/simulations/ninestax.py) where its representation has edge cases: a draw
pile kept top last and rebuilt from the discard pile, the turn limit, stacks emptied and renumbered, windows
answered seat by seat, and greedy's Swap chosen per pair of owners. Each case is played on the simulation
and on the engine side by side: the same state, moves and greedy choice."""
import pytest
from hypothesis import given as for_all, settings, strategies as st

from domain.bots.ismcts import FastRng
from domain.games import ninestax
from domain.games.ninestax import card
from domain.rng import Rng
from domain.simulation import Simulation
from tests.support.games import given

FD, CS = card(None, "free_discard"), card(None, "color_shift")


def red(face):
    return card("red", str(face))


def blue(face):
    return card("blue", str(face))


def table(*seats, draw, discard=(), lead=None, **fields):
    state = given(ninestax, {"type": "dealt", "data": {"stacks": [list(s) for s in seats], "draw_pile": list(draw),
                                                       "max_turns": 600}})
    return {**state, "discard_pile": list(discard), "lead": lead, **fields}


def engine_play(state, seat, move, seed):
    for event in ninestax.decide(state, seat, move, FastRng(seed)):
        state = ninestax.evolve(state, event)
    return state


def side_by_side(state, moves, seed=1):
    """Plays the moves (each a dict, or an index into the legal moves) on the simulation and on the engine,
    checking each step; returns the state reached."""
    simulation = ninestax.simulation(state)
    for move in moves:
        seat = ninestax.to_act(state)[0]
        assert simulation.legal_moves(seat) == ninestax.legal_moves(state, seat)
        assert simulation.greedy(seat, FastRng(seed)) == ninestax.greedy(
            ninestax.view(state, seat), seat, ninestax.legal_moves(state, seat), FastRng(seed))
        move = simulation.move(seat, move) if isinstance(move, int) else move
        simulation.play(seat, move, FastRng(seed))
        state = engine_play(state, seat, move, seed)
        assert simulation.state() == state
        assert simulation.to_act() == ninestax.to_act(state)
    assert simulation.outcome() == ninestax.outcome(state)
    return state


def test_a_draw_from_an_empty_pile_reshuffles_the_discard_pile_but_its_top_as_the_engine_does():
    state = table([[red(1), red(2)]], [[blue(3)]], draw=[], discard=[red(4), blue(5), CS, red(6)], lead=red(6))
    after = side_by_side(state, [{"action": "draw"}, {"action": "keep"}], seed=7)
    assert after["discard_pile"] == [red(6)] and len(after["draw_pile"]) == 2


def test_an_attack_with_nothing_to_draw_passes_the_turn_after_its_target():
    state = table([[card("red", "attack"), red(2)]], [[blue(3)]], [[blue(4)]], draw=[], lead=red(5),
                  immunity=[True, False, True])
    after = side_by_side(state, [{"action": "play", "card": 0}, {"action": "attack", "target": 1}])
    assert after["turn"] == 2 and after["pending"] is None


def test_the_turn_limit_ends_a_simulated_match_with_the_fewest_cards_winning():
    state = {**table([[red(1), red(2)]], [[blue(3)]], draw=[red(7)] * 5), "max_turns": 2}
    after = side_by_side(state, [{"action": "draw"}, {"action": "keep"}, {"action": "draw"}, {"action": "keep"}])
    assert after["winners"] == [1]


def test_playing_the_last_card_of_the_held_stack_renumbers_the_stacks_and_a_discard_then_takes_stack_one():
    state = table([[card("red", "discard")], [red(2), red(3)], [blue(4)]], [[blue(5)]], draw=[red(7)] * 5,
                  lead=red(9), held=[0, 0])
    after = side_by_side(state, [{"action": "play", "card": 0}])
    assert after["stacks"][0] == [[blue(4)]] and after["discard_pile"][-3:] == [red(2), red(3), card("red", "discard")]


def test_a_reveal_that_one_seat_answers_with_its_tile_goes_on_for_the_others():
    state = table([[card("red", "reveal"), red(2)]], [[blue(3)]], [[blue(4)]], draw=[red(7)] * 5, lead=red(9))
    after = side_by_side(state, [{"action": "play", "card": 0}, {"action": "reveal", "stack": 0},
                                 {"action": "immunity"}, {"action": "accept"}])
    assert after["reveal"] == {"stack": 0, "revealer": 0, "immune": [1]}


def test_a_peek_then_an_exchange_swaps_one_card_of_each_stack():
    state = table([[card("red", "peek"), red(2)]], [[blue(3), blue(4)]], draw=[red(7)] * 5, lead=red(9),
                  immunity=[True, False])
    after = side_by_side(state, [{"action": "play", "card": 0}, {"action": "peek", "target": 1, "stack": 0},
                                 {"action": "exchange", "card": 1, "own_card": 0}])
    assert after["stacks"] == [[[blue(4)]], [[blue(3), red(2)]]]


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_greedy_s_swap_is_the_engine_s_when_every_pair_ties(seat):
    """Once the Swap is played every stack holds one card: every pair is worth 0, and the draws decide."""
    stacks = [[[red(n)] for n in range(1, 4)] for _ in range(3)]
    stacks[seat][0] = [card("red", "swap"), red(5)]
    state = table(*stacks, draw=[red(7)] * 5, lead=red(9), turn=seat)
    for seed in range(20):
        side_by_side(state, [{"action": "play", "card": 0}, 0], seed=seed)


@settings(max_examples=30, deadline=None)
@for_all(sizes=st.lists(st.lists(st.integers(1, 4), min_size=1, max_size=5), min_size=2, max_size=4),
         tiles=st.lists(st.booleans(), min_size=4, max_size=4), seat=st.integers(0, 3), seed=st.integers(0, 99))
def test_greedy_s_swap_is_the_engine_s_whatever_the_stack_sizes(sizes, tiles, seat, seed):
    seat %= len(sizes)
    stacks = [[[blue(1 + n % 9)] * size for n, size in enumerate(own)] for own in sizes]
    stacks[seat] = [[card("red", "swap")]] + stacks[seat]
    state = table(*stacks, draw=[red(7)] * 5, lead=red(9), turn=seat, immunity=tiles[:len(sizes)])
    state = engine_play(state, seat, {"action": "play", "card": 0}, seed)
    side_by_side(state, [0], seed=seed)


@settings(max_examples=25, deadline=None)
@for_all(seed=st.integers(0, 2**32), players=st.integers(2, 4), greedy_share=st.sampled_from([0.0, 0.5, 1.0]),
         cap=st.sampled_from([1, 40, 10_000]), max_turns=st.sampled_from([3, 60, 600]))
def test_a_playout_ends_as_on_the_reference_simulation_having_drawn_the_same(seed, players, greedy_share, cap,
                                                                             max_turns):
    state = None
    for event in ninestax.deal({"max_turns": max_turns}, players, Rng.derive(f"playout:{seed}", "deal")):
        state = ninestax.evolve(state, event)
    fast, reference = ninestax.simulation(state), Simulation(ninestax, state)
    fast_rng, reference_rng, fast_seats, reference_seats = FastRng(seed), FastRng(seed), set(), set()
    played = fast.play_out(cap, greedy_share, fast_seats, fast_rng)
    assert played == reference.play_out(cap, greedy_share, reference_seats, reference_rng)
    assert fast.state() == reference.state() and fast_seats == reference_seats
    assert fast_rng.random() == reference_rng.random()
