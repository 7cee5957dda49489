"""Blockers' fast simulation (domain/simulations/blockers.py) where its own representation has edges: a state read
in mid-match, the hand deck's reshuffle, the end of a cycle (a refill, or the end of a game and the next deal),
the kicker, greedy's draws when there is no choice, and a whole playout against the reference simulation."""
import random

from hypothesis import given as for_all, settings, strategies as st

from domain.bots.ismcts import FastRng
from domain.games import blockers
from domain.rng import Rng
from domain.simulation import Simulation

TABLES = st.integers(blockers.INFO.min_players, blockers.INFO.max_players)


def engine_states(players: int, seed: int):
    """Every (state, seat to act) of an engine match of random and greedy moves, in order."""
    pick, state = random.Random(seed), None
    for event in blockers.deal({}, players, Rng.derive(f"blockers-simulation:{seed}", "deal")):
        state = blockers.evolve(state, event)
    while actors := blockers.to_act(state):
        yield state, actors[0]
        legal = blockers.legal_moves(state, actors[0])
        move = (blockers.greedy(blockers.view(state, actors[0]), actors[0], legal, FastRng(pick.getrandbits(32)))
                if pick.random() < 0.5 else pick.choice(legal))
        state = engine_play(state, actors[0], move, pick.getrandbits(32))
    yield state, None


def engine_play(state: dict, seat: int, move: dict, seed: int) -> dict:
    for event in blockers.decide(state, seat, move, FastRng(seed)):
        state = blockers.evolve(state, event)
    return state


def played_alike(state: dict, seat: int, move: dict, seed: int) -> bool:
    """The simulation built from the state and the engine reach the same state by the move."""
    simulation = blockers.simulation(state)
    simulation.play(seat, move, FastRng(seed))
    return simulation.state() == engine_play(state, seat, move, seed)


@settings(max_examples=10, deadline=None)
@for_all(players=TABLES, seed=st.integers(0, 2**32))
def test_a_state_read_in_anywhere_in_a_match_is_given_back_unchanged(players, seed):
    for state, _ in engine_states(players, seed):
        assert blockers.simulation(state).state() == state


def test_drawing_the_last_hand_card_reshuffles_the_played_ones_as_the_engine_does():
    drawn_last = [(state, seat) for state, seat in engine_states(2, 1)
                  if seat is not None and len(state["hand_decks"][seat]) == 1
                  and blockers.legal_moves(state, seat)[0]["action"] == "take"]
    assert drawn_last
    for state, seat in drawn_last:
        assert played_alike(state, seat, blockers.legal_moves(state, seat)[-1], 7)


def test_the_last_pass_of_a_cycle_refills_the_grid_or_ends_the_game_and_deals_the_next_as_the_engine_does():
    last_passes = [(state, seat) for players in (2, 3, 4) for state, seat in engine_states(players, players)
                   if seat is not None and state["passes"] == players - 1
                   and blockers.legal_moves(state, seat)[0]["action"] == "pass"]
    endings = set()
    for state, seat in last_passes:
        after = engine_play(state, seat, {"action": "pass"}, 3)
        endings.add("refilled" if after["game"] == state["game"] else "dealt")
        assert played_alike(state, seat, {"action": "pass"}, 3)
    assert endings == {"refilled", "dealt"}


def test_greedy_plays_the_kicker_only_when_it_would_open_a_take_as_the_engine_s_greedy():
    stuck = [(state, seat) for players in (2, 3, 4) for state, seat in engine_states(players, 10 + players)
             if seat is not None and {"action": "kicker"} in blockers.legal_moves(state, seat)]
    choices = set()
    for state, seat in stuck:
        choice = blockers.simulation(state).greedy(seat, FastRng(0))
        choices.add(choice["action"])
        assert choice == blockers.greedy(blockers.view(state, seat), seat, blockers.legal_moves(state, seat),
                                         FastRng(0))
    assert choices == {"kicker", "pass"}


@settings(max_examples=20, deadline=None)
@for_all(players=TABLES, seed=st.integers(0, 2**32), into=st.integers(0, 150),
         greedy_share=st.sampled_from([0.0, 0.5, 1.0]), cap=st.sampled_from([5, 40, 10_000]))
def test_a_playout_from_anywhere_in_a_match_ends_as_on_the_reference_simulation(players, seed, into, greedy_share,
                                                                               cap):
    states = list(engine_states(players, seed))
    state = states[min(into, len(states) - 1)][0]
    fast, reference = blockers.simulation(state), Simulation(blockers, state)
    fast_seats, reference_seats = set(), set()
    assert (fast.play_out(cap, greedy_share, fast_seats, FastRng(seed))
            == reference.play_out(cap, greedy_share, reference_seats, FastRng(seed)))
    assert fast.state() == reference.state() and fast_seats == reference_seats
    assert fast.outcome() == reference.outcome()


def test_greedy_draws_from_the_rng_as_the_engine_s_greedy_a_lone_take_too():
    """The simulation's greedy asks its loop of moves only when there is a choice; a lone take is weighed all the
    same by the engine's greedy, which draws its tie-break, and a lone pass draws nothing."""
    lone_moves = set()
    for players in (2, 3, 4):
        for state, seat in engine_states(players, 20 + players):
            if seat is None:
                continue
            legal = blockers.legal_moves(state, seat)
            ours, theirs = FastRng(players), FastRng(players)
            assert blockers.simulation(state).greedy(seat, ours) == blockers.greedy(
                blockers.view(state, seat), seat, legal, theirs)
            assert ours.random() == theirs.random()
            if len(legal) == 1:
                lone_moves.add(legal[0]["action"])
    assert lone_moves == {"take", "pass"}
