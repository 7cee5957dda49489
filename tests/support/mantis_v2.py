"""Mantis as a version 2 of its rules would be, for the tests of rules versions: three cards in each tank at the
deal instead of four; every other rule is version 1's (domain/games/mantis.py). `registered` makes it the current
Mantis, version 1 still kept callable, as a real rules change would be registered (domain/games/__init__.py)."""
import dataclasses
import sys
from contextlib import contextmanager

from domain import games
from domain.games import mantis
from domain.games.mantis import (GREEDY_ROLLOUTS, PLAYOUT_CAP, build_deck, decide, determinize, evaluate,  # noqa: F401
                                 evolve, greedy, legal_moves, options, outcome, recall, redact, simulation, to_act,
                                 view)

INFO = dataclasses.replace(mantis.INFO, rules_version=2)
TANK_SIZE = 3


def deal(chosen: dict, player_count: int, rng) -> list[dict]:
    deck = rng.shuffled(build_deck(chosen["edition"]))
    dealt = TANK_SIZE * player_count
    tanks = [[deck[i] for i in range(seat, dealt, player_count)] for seat in range(player_count)]
    return [{"type": "dealt", "data": {"edition": chosen["edition"], "tanks": tanks, "draw_pile": deck[dealt:]}}]


@contextmanager
def registered():
    this = sys.modules[__name__]
    games.RULES["mantis"][2], games.GAMES["mantis"] = this, this
    try:
        yield this
    finally:
        del games.RULES["mantis"][2]
        games.GAMES["mantis"] = mantis
