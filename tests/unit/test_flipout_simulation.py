"""FlipOut's fast simulation (domain/simulations/flipout.py) where its own representation has edge cases:
holders as codes that shrink at the end, the deck and piles kept apart, moves as indices, greedy weighed
from tables and its tie-break drawn without every draw's value. Each is played against the engine."""
import pytest
from hypothesis import given as for_all, settings, strategies as st

from domain.bots.ismcts import FastRng
from domain.games import flipout
from domain.rng import Rng
from domain.simulation import Simulation
from tests.support.games import given
from tests.unit.test_flipout import NO_RUN, dealt


def engine_play(state: dict, seat: int, move: dict, rng) -> dict:
    for event in flipout.decide(state, seat, move, rng):
        state = flipout.evolve(state, event)
    return state


def plays_like_the_engine(state: dict, pick: FastRng, greedy_share: float, moves: int = 100_000) -> dict:
    """Plays up to `moves` moves on the simulation and the engine side by side, each the greedy choice
    `greedy_share` of the time, else a random one; checks every step alike; returns the last state."""
    simulation = flipout.simulation(state)
    for _ in range(moves):
        assert simulation.state() == state and simulation.to_act() == flipout.to_act(state)
        if not flipout.to_act(state):
            break
        seat = flipout.to_act(state)[0]
        legal = flipout.legal_moves(state, seat)
        assert simulation.legal_moves(seat) == legal
        tie_break = pick.getrandbits(32)
        ours, theirs = FastRng(tie_break), FastRng(tie_break)
        choice = simulation.greedy(seat, ours)
        assert choice == flipout.greedy(flipout.view(state, seat), seat, legal, theirs)
        assert ours.random() == theirs.random()  # as many draws
        if pick.random() >= greedy_share:
            choice = legal[pick.below(len(legal))]
        simulation.play(seat, choice, FastRng(0))
        state = engine_play(state, seat, choice, FastRng(0))
    assert simulation.state() == state and simulation.outcome() == flipout.outcome(state)
    return state


def dealt_state(players: int, seed: int, tokens: bool, stall_rounds: int) -> dict:
    options = flipout.options({"tokens": tokens, "stall_rounds": stall_rounds}, players)
    return given(flipout, *flipout.deal(options, players, Rng.derive(f"fast-flipout:{seed}", "deal")))


@settings(max_examples=12, deadline=None)
@for_all(seed=st.integers(0, 2**32), players=st.integers(2, 5), tokens=st.booleans(),
         stall_rounds=st.sampled_from([1, 2, 30]), greedy_share=st.sampled_from([0.0, 0.5, 1.0]))
def test_a_match_of_any_options_plays_on_the_simulation_as_on_the_engine(seed, players, tokens, stall_rounds,
                                                                          greedy_share):
    plays_like_the_engine(dealt_state(players, seed, tokens, stall_rounds), FastRng(seed), greedy_share)


@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.parametrize("cap", [1, 9, 10_000])
def test_a_playout_leaves_the_same_state_seats_and_rng_as_the_reference_simulation(players, cap):
    for seed in range(2):
        state = dealt_state(players, seed, seed == 1, 30)
        fast, reference = flipout.simulation(state), Simulation(flipout, state)
        fast_seats, reference_seats = set(), set()
        fast_rng, reference_rng = FastRng(seed), FastRng(seed)
        played = fast.play_out(cap, 0.7, fast_seats, fast_rng)
        assert played == reference.play_out(cap, 0.7, reference_seats, reference_rng)
        assert fast.state() == reference.state() and fast_seats == reference_seats
        assert fast_rng.random() == reference_rng.random()


def test_a_score_the_deck_cannot_refill_ends_the_game_and_every_seat_collects_the_run_facing_it():
    # given seat 0 with a run of 4 to score, seat 1 with a run of 5 facing it, and 2 cards in the deck
    state = given(flipout, dealt(["r/y r/g r/b r/p g/y b/p", "y/r g/g g/r g/b g/p g/y"], deck_spec="b/g p/y"))
    # when seat 0 scores, then the game ends as the engine's does, holders shorter than 6 and all
    end = plays_like_the_engine(state, FastRng(1), 1.0, moves=1)
    assert end["end"] == {"reason": "deck_exhausted", "seat": 0}
    assert [len(cards) for cards in end["holders"]] == [4, 1]


def test_a_swipe_feeds_its_victim_the_leftmost_card_and_refills_the_victim_from_the_deck():
    # given seat 1 showing seat 0 a run of 4 on its outer faces, and nothing for seat 0 to score
    state = given(flipout, dealt([NO_RUN, "y/p g/p b/p r/p y/g b/r"]))
    # when seat 0 swipes it, then both piles and the refilled holder are the engine's
    after = plays_like_the_engine(state, FastRng(2), 1.0, moves=2)
    assert [len(pile) for pile in after["score_piles"]] == [3, 1]


def test_a_stall_of_one_round_ends_the_game_after_every_seat_took_a_turn_without_a_set():
    state = given(flipout, dealt([NO_RUN, NO_RUN, NO_RUN], stall_rounds=1))
    end = plays_like_the_engine(state, FastRng(3), 0.0)
    assert end["end"] == {"reason": "stalled", "seat": None} and end["turns"] == 3


def test_a_draw_puts_the_replaced_card_under_the_deck_as_if_just_drawn():
    state = given(flipout, dealt([NO_RUN, NO_RUN]))
    simulation = flipout.simulation(state)
    simulation.play(0, {"action": "draw", "place": 5}, FastRng(0))
    assert simulation.state() == engine_play(state, 0, {"action": "draw", "place": 5}, FastRng(0))


def test_a_spent_token_gives_a_third_action_and_greedy_spends_one_at_once():
    # given tokens, when greedy chooses, then it spends a token as the engine's greedy does (its token_deck)
    state = given(flipout, dealt([NO_RUN, NO_RUN], tokens=True))
    assert flipout.simulation(state).greedy(0, FastRng(5)) == {"action": "spend_token"}
    after = plays_like_the_engine(state, FastRng(5), 1.0, moves=1)
    assert after["actions_left"] == 3 and after["tokens"] == [2, 3]


def test_swap2s_between_holders_full_of_pairs_are_listed_and_weighed_as_the_engine_does():
    # given every holder made of same-colour pairs on both sides, and no run
    state = given(flipout, dealt(["r/r r/r r/r y/y y/y y/y", "g/g g/g g/g b/b b/b b/b",
                                  "p/p p/p p/p y/y y/y y/y"]))
    swap2s = [move for move in flipout.simulation(state).legal_moves(0) if move["action"] == "swap2"]
    assert len(swap2s) == 4 * 4 * 2
    plays_like_the_engine(state, FastRng(6), 0.5, moves=12)
