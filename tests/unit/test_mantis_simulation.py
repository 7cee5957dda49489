"""Mantis's fast simulation (domain/simulations/mantis.py) where its representation has edges of its own: the
compact edition, states met mid-match (score piles that only their owner saw), the ends of a game, and the
engine's state folded from its journal. tests/unit/test_simulation.py plays classic matches side by side."""
import pytest
from hypothesis import given as for_all, settings, strategies as st

from domain.bots.ismcts import FastRng
from domain.games import mantis
from domain.rng import Rng
from domain.simulation import Simulation
from domain.simulations.mantis import FastSimulation
from tests.support.games import given

TABLES = [("classic", players) for players in range(2, 7)] + [("compact", players) for players in range(2, 5)]


def dealt(edition: str, players: int, seed: int) -> dict:
    return given(mantis, *mantis.deal({"edition": edition}, players, Rng.derive(f"mantis-simulation:{seed}", "deal")))


def engine_play(state: dict, seat: int, move: dict) -> dict:
    for event in mantis.decide(state, seat, move, None):
        state = mantis.evolve(state, event)
    return state


def held(simulation: FastSimulation) -> dict:
    """What a simulation keeps of its state (its own representation, the draw pile from its top on), to compare
    two simulations by."""
    kept = {name: value for name, value in vars(simulation).items() if name not in ("_state", "_folded")}
    kept["_pile"] = kept["_pile"][len(kept.pop("_journal")):]
    return kept


def card(front: str, back: list[str]) -> dict:
    """A card of the deck: its back's colours in the deck's order."""
    return {"back": sorted(back, key=mantis.COLOURS.index), "front": front}


@pytest.mark.parametrize("edition,players", TABLES)
@settings(max_examples=8, deadline=None)
@for_all(seed=st.integers(0, 2**32), greedy_share=st.sampled_from([0.0, 0.5, 1.0]))
def test_a_simulated_match_of_either_edition_is_the_engine_s_and_holds_what_a_fresh_simulation_would(
        edition, players, seed, greedy_share):
    state = dealt(edition, players, seed)
    simulation, pick = FastSimulation(state), FastRng(seed)
    while not state["finished"]:
        seat = state["turn"]
        fresh = FastSimulation(state)  # built from the engine's state mid-match: score piles and all
        assert held(simulation) == held(fresh)
        legal = mantis.legal_moves(state, seat)
        assert simulation.legal_moves(seat) == legal
        tie_break = pick.getrandbits(32)
        choice = mantis.greedy(mantis.view(state, seat), seat, legal, FastRng(tie_break))
        assert simulation.greedy(seat, FastRng(tie_break)) == fresh.greedy(seat, FastRng(tie_break)) == choice
        if pick.random() >= greedy_share:
            choice = legal[pick.below(len(legal))]
        simulation.play(seat, choice, None)
        state = engine_play(state, seat, choice)
        assert simulation.to_act() == mantis.to_act(state)
    assert simulation.state() == state
    assert simulation.outcome() == mantis.outcome(state)


@pytest.mark.parametrize("edition,players", TABLES)
@pytest.mark.parametrize("cap", [1, 7, 40])
def test_a_playout_cut_at_the_cap_leaves_the_state_the_reference_simulation_reaches(edition, players, cap):
    for seed in range(3):
        state = dealt(edition, players, seed)
        fast, reference = FastSimulation(state), Simulation(mantis, state)
        moves = fast.play_out(cap, 0.5, set(), FastRng(seed))
        assert moves == reference.play_out(cap, 0.5, set(), FastRng(seed))
        assert fast.state() == reference.state()
        assert fast.outcome() == reference.outcome()


def test_greedy_counts_the_fronts_only_the_mover_has_scored_as_seen():
    # Given: the top card's back is red/blue/green, its red card is in seat 1's score pile and its blue one in
    # seat 0's; seat 0 holds blues, seat 1 holds reds
    back = ["red", "green", "blue"]
    state = {"edition": "classic", "turn": 0, "target": 15, "finished": False,
             "draw_pile": [card("green", back), card("pink", ["red", "blue", "pink"])],
             "tanks": [[card("blue", ["blue", "green", "yellow"])], [card("red", ["red", "green", "yellow"])]],
             "score_piles": [[card("blue", back)], [card("red", back)]]}
    for seat in (0, 1):
        state = {**state, "turn": seat}
        legal = mantis.legal_moves(state, seat)
        for tie_break in range(20):
            # When: each seat chooses greedily, then: as the engine's greedy does from its own view
            expected = mantis.greedy(mantis.view(state, seat), seat, legal, FastRng(tie_break))
            assert FastSimulation(state).greedy(seat, FastRng(tie_break)) == expected


def test_a_successful_steal_between_two_plays_again_and_among_three_passes_the_turn():
    back = ["red", "green", "blue"]
    for players, next_turn in ((2, 0), (3, 1)):
        # Given: seat 1 holds a red and the top card is red
        tanks = [[], [card("red", ["red", "green", "yellow"])]] + [[]] * (players - 2)
        state = given(mantis, {"type": "dealt", "data": {"edition": "classic", "tanks": tanks,
                                                         "draw_pile": [card("red", back), card("blue", back)]}})
        simulation = FastSimulation(state)
        # When: seat 0 steals from seat 1
        simulation.play(0, {"action": "steal", "target": 1}, None)
        # Then: both reds are in seat 0's tank and the turn is as the engine says
        assert simulation.to_act() == [next_turn]
        assert [c["front"] for c in simulation.state()["tanks"][0]] == ["red", "red"]


def test_the_game_ends_at_the_target_with_cards_left_and_when_the_pile_runs_out():
    back = ["red", "green", "blue"]
    oranges = [c for c in mantis.build_deck("classic") if c["front"] == "orange"][:13]
    # Given: seat 0's score pile is two short of the target at two players, and it holds a red
    scoring = given(mantis, {"type": "dealt", "data": {"edition": "classic",
                                                       "tanks": [[card("red", ["red", "green", "yellow"])], []],
                                                       "draw_pile": [card("red", back), card("blue", back)]}})
    scoring = {**scoring, "score_piles": [oranges, []]}
    # When: seat 0 scores the red
    simulation = FastSimulation(scoring)
    simulation.play(0, {"action": "score"}, None)
    # Then: the game is over with a card left, seat 0 the winner
    assert simulation.to_act() == [] and simulation.outcome() == {"winners": [0], "scores": {"0": 15, "1": 0}}
    # Given: one card left and level score piles; When: it misses seat 1's tank
    last = given(mantis, {"type": "dealt", "data": {"edition": "classic", "tanks": [[], []],
                                                    "draw_pile": [card("red", back)]}})
    simulation = FastSimulation(last)
    simulation.play(0, {"action": "steal", "target": 1}, None)
    # Then: the game is over, and the bigger tank wins the tie
    assert simulation.to_act() == [] and simulation.outcome() == {"winners": [1], "scores": {"0": 0, "1": 0}}
    assert simulation.state() == engine_play(last, 0, {"action": "steal", "target": 1})
