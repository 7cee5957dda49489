"""The bots' policies: pure functions of a seat's view, its legal moves and an rng (never the full state,
so a bot cannot cheat by construction). A policy is policy(game, view, seat, moves, rng) -> move."""
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class BotKind:
    id: str
    description: str
    policy: Callable


def random_policy(game, view, seat, moves, rng):
    return rng.choice(moves)


def greedy_policy(game, view, seat, moves, rng):
    return game.greedy(view, seat, moves, rng)


BOTS = {kind.id: kind for kind in (
    BotKind("random", "uniform over the legal moves", random_policy),
    BotKind("greedy", "one move ahead: the move with the best expected immediate gain, by a heuristic "
                      "written for each game from its rules", greedy_policy),
)}
