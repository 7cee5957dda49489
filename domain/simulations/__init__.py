"""The games' fast simulations: each game's rules once more, written for a search's playouts (a mutable state,
moves applied without events, greedy scored incrementally). A game module's `simulation(state)` builds its
game's; domain/simulation.py is the reference they are checked against move for move
(tests/unit/test_simulation.py)."""
