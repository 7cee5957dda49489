"""The ismcts bot as it was when issue #27 was filed (domain/bots/ismcts.py at 66f5840), for bench/bots.py to
measure today's bot against ("beats today's ismcts"): only its root decision and its playouts, on today's games.

What it did, and what this keeps: every round one sample of the hidden cards from the seat's view alone (no
memory of what the seat saw before), greedy's move and up to 11 others at random played out in it with the same
seed, to the end, through the game's own decide and evolve (the reference simulation: the fast simulations came
later; see below); it stopped before a round that would overrun 0.8 s, or at 2000 iterations, or after the first playout if
4 rounds could not fit. It played the move with the best mean among those that beat greedy's move in the same
samples by more than one standard error of the paired difference, after at least 4 rounds; else greedy's.
Its depth-0 defaults are the only options it takes (the tree was off by default then as now).

Its playouts run here on the games' fast simulations, which play move for move and draw for draw as the engine
(tests/unit/test_simulation.py): on an iteration budget (bench/bots.py's filed[iterations=N;budget_ms=...]) it
makes exactly the moves it made on the engine, at a fraction of the cost. The issue measured its rounds a
decision (Mantis 1000, the iteration cap; Blockers 306; 9STAX 364; FlipOut 6): those are the budgets to give it.
"""
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain.bots import BotKind  # noqa: E402
from domain.bots.ismcts import FastRng, move_key  # noqa: E402
from domain.errors import IllegalMove  # noqa: E402
from domain.protocol import Option  # noqa: E402

ITERATIONS, BUDGET_MS, ROOT_MOVES, MARGIN = 2000, 800, 12, 1.0
MIN_ROUNDS_TO_OVERRIDE = 4
# the iterations of the rounds the issue measured a decision: Mantis 1000 rounds (its cap), Blockers 306 rounds
# of about 4 moves, 9STAX 364 of about 5.5, FlipOut 6 of 12
ISSUE_ITERATIONS = {"mantis": 2000, "blockers": 1200, "9stax": 2000, "flipout": 72}


def filed_policy(game, view: dict, seat: int, moves: list[dict], rng, iterations: int = ITERATIONS,
                 budget_ms: int = BUDGET_MS) -> dict:
    """Its move; `iterations` and `budget_ms` other than its own let a run on a shared machine give it the
    iterations it had at the issue's filing whatever the load."""
    if len(moves) == 1:
        return moves[0]
    started = time.perf_counter()
    deadline = started + budget_ms / 1000
    sim = FastRng(rng.getrandbits(64))
    favourite = game.greedy(view, seat, moves, sim)
    others = [m for m in moves if move_key(m) != move_key(favourite)]
    if len(others) >= ROOT_MOVES:
        others = sim.sample(others, ROOT_MOVES - 1)
    candidates = [favourite] + others
    rounds: list[list[float]] = []
    done = failed = 0
    while (len(rounds) + failed + 1) * len(candidates) <= iterations:
        now = time.perf_counter()
        if rounds and now + (now - started) / (len(rounds) + failed) > deadline:
            break
        sample, seed, rewards = game.determinize(view, seat, sim), sim.getrandbits(64), []
        try:
            for move in candidates:
                rewards.append(_played_out(game, sample, seat, move, FastRng(seed)))
                done += 1
                per_round = (time.perf_counter() - started) / done * len(candidates)
                if not rounds and started + per_round * MIN_ROUNDS_TO_OVERRIDE > deadline:
                    return favourite  # the budget cannot hold the rounds needed to leave greedy's move
        except IllegalMove:
            failed += 1
            continue
        rounds.append(rewards)
    return _choose(candidates, rounds)


def _played_out(game, sample: dict, seat: int, move: dict, sim: FastRng) -> float:
    simulation = game.simulation(sample)
    simulation.play(seat, move, sim)
    simulation.play_out(1000, 1.0, {seat}, sim)
    result = simulation.outcome()
    if result is None:
        return simulation.evaluate(seat)
    return 1 / len(result["winners"]) if seat in result["winners"] else 0.0


def _choose(candidates: list[dict], rounds: list[list[float]]) -> dict:
    best, best_mean, n = candidates[0], 0.0, len(rounds)
    if n < MIN_ROUNDS_TO_OVERRIDE:
        return best
    for i in range(1, len(candidates)):
        differences = [r[i] - r[0] for r in rounds]
        mean = sum(differences) / n
        spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n)
        if mean > MARGIN * spread and mean > best_mean:
            best, best_mean = candidates[i], mean
    return best


def as_the_issue_measured(game, view: dict, seat: int, moves: list[dict], rng, iterations: int,
                          budget_ms: int) -> dict:
    """filed_policy on the iterations the issue measured in the game (`iterations` 0), whatever the load."""
    return filed_policy(game, view, seat, moves, rng, iterations or ISSUE_ITERATIONS[game.INFO.id], budget_ms)


# the same bot for a client playing an account over HTTP (cli/bot.py's Bot; bench/bot_strength.py --against-account)
FILED_KIND = BotKind("filed", "the ismcts bot as issue #27 found it (bench/filed_ismcts.py)", as_the_issue_measured,
                     options=(Option("iterations", "integer", 0, "playouts a decision at most; 0: the issue's",
                                     bounds=(0, 1_000_000)),
                              Option("budget_ms", "integer", 100_000, "the time a decision may take",
                                     bounds=(1, 10_000_000))))
