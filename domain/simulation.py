"""A simulation: one game state that a search's playout changes in place, move after move.

Every game module offers `simulation(state) -> Simulation` (domain/protocol.py). This class is the reference:
it plays through the game's own decide and evolve, so it is exactly the rules, at their cost (a copy of the
state and the event dicts every move). A game whose playouts cost most subclasses it with a mutable state
and moves applied without events; tests/unit/test_simulation.py checks every simulation move for move against
the engine (same legal moves, same state after each move, same greedy choice, same outcome).

A simulation trusts its caller: `play` takes a move from `legal_moves` (or `move`, `greedy`) and checks
nothing, as a playout only ever plays those. `play_out` is a search's whole playout; a fast simulation may
run it on a state and moves of its own, drawing from the rng exactly as this one does, so that a playout
ends the same on every simulation of a game.
"""
from collections.abc import Callable
from functools import cache
from importlib import import_module


class Simulation:
    def __init__(self, rules, state: dict):
        self.rules, self._state = rules, state
        self._legal: tuple | None = None  # (seat, its legal moves) until the next move

    def state(self) -> dict:
        """The game state as the engine holds it (a JSON value; the simulation may go on changing its own)."""
        return self._state

    def to_act(self) -> list[int]:
        return self.rules.to_act(self._state)

    def legal_moves(self, seat: int) -> list[dict]:
        if self._legal is None or self._legal[0] != seat:
            self._legal = seat, self.rules.legal_moves(self._state, seat)
        return self._legal[1]

    def move_count(self, seat: int) -> int:
        return len(self.legal_moves(seat))

    def move(self, seat: int, index: int) -> dict:
        """legal_moves(seat)[index], which a fast simulation can build alone."""
        return self.legal_moves(seat)[index]

    def greedy(self, seat: int, rng) -> dict:
        """The game's greedy choice among the seat's legal moves, from the seat's view of this state."""
        return self.rules.greedy(self.rules.view(self._state, seat), seat, self.legal_moves(seat), rng)

    def play(self, seat: int, move: dict, rng) -> None:
        state = self._state
        for event in self.rules.decide(state, seat, move, rng):
            state = self.rules.evolve(state, event)
        self._state, self._legal = state, None

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        """Up to `cap` moves: each the mover's greedy move `greedy_share` of the time (when it has a choice;
        an rng.random() decides, unless the share is 0 or 1, a search's usual shares, where a draw would be
        wasted), else a random legal one; adds each mover to `seats`; returns the moves played."""
        for played in range(cap):
            actors = self.to_act()
            if not actors:
                return played
            actor = actors[0]
            seats.add(actor)
            count = self.move_count(actor)
            if count > 1 and greedy_share and (greedy_share >= 1.0 or rng.random() < greedy_share):
                move = self.greedy(actor, rng)
            else:
                move = self.move(actor, rng.below(count) if count > 1 else 0)
            self.play(actor, move, rng)
        return cap

    def outcome(self) -> dict | None:
        return self.rules.outcome(self._state)

    def evaluate(self, seat: int) -> float:
        """The game's evaluate of the state for the seat: how a search scores a playout cut short."""
        return self.rules.evaluate(self.state(), seat)


@cache
def fast_simulation(module: str) -> Callable[[dict], Simulation]:
    """The FastSimulation of a game's fast simulation module, imported at the first call, not when the game
    module loads (the fast module builds on it), and once: an import statement costs more than a move of a
    fast playout, and a search builds a simulation a playout."""
    return import_module(module).FastSimulation
