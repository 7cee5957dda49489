"""How fast the game engines play: random playouts per second in-process, per game, side by side in one run.

Three loops, each playing random legal moves from a fresh deal to the end:
- match: through domain.match, as the server folds a match (decide with the seed's per-move Rng, the
  `moved` and `match_finished` events, the match-level evolve);
- engine: the game module alone (deal, legal_moves, decide, evolve, outcome): what a searching bot's
  playouts run on;
- greedy: the game module alone, every move the game's greedy for the mover's view: a search's playout
  (domain.bots.ismcts.playout), which pays for a view and a greedy choice at every move;
- reference (Mantis only): the fastest reasonable pure-Python loop of the same rules, written here: no events,
  colours as small integers, tanks as counts per colour, random.shuffle for the deal.
Rates are per second of this process's CPU time (time.process_time), not of the wall clock: on a shared
machine the other jobs' load then changes them much less (it still slows caches and turbo).
Usage: python bench/engines.py [--seconds 1.5] [--players 3]
"""
import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain import match  # noqa: E402
from domain.games import GAMES, get_game  # noqa: E402
from domain.bots.ismcts import MAX_ITERATIONS, FastRng, playout, search  # noqa: E402
from domain.games.mantis import EDITIONS, TANK_SIZE, target_score  # noqa: E402
from domain.rng import Rng  # noqa: E402

SEED, SALT = "engines-bench", "salt"


def engine_playout(game, players: int, pick: random.Random, number: int) -> int:
    """One random game through the game module alone; returns the moves played."""
    options = game.options({}, players)
    state = None
    for event in game.deal(options, players, Rng.derive(SEED, f"deal:{number}")):
        state = game.evolve(state, event)
    rng, moves = Rng.derive(SEED, f"moves:{number}"), 0
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        for event in game.decide(state, seat, pick.choice(game.legal_moves(state, seat)), rng):
            state = game.evolve(state, event)
        moves += 1
    return moves


def greedy_playout(game, players: int, pick: random.Random, number: int) -> int:
    """One game of greedy moves from a fresh deal, as the ismcts bot plays it out; returns the moves played."""
    state = None
    for event in game.deal(game.options({}, players), players, Rng.derive(SEED, f"deal:{number}")):
        state = game.evolve(state, event)
    moves = []
    playout(_Counting(game, moves), state, 100_000, 1.0, set(), FastRng(pick.getrandbits(64)))
    return len(moves)


class _Counting:
    """A game module that counts the moves decided through it."""

    def __init__(self, game, moves: list):
        self._game, self._moves = game, moves

    def __getattr__(self, name):
        return getattr(self._game, name)

    def decide(self, state, seat, move, rng):
        self._moves.append(move)
        return self._game.decide(state, seat, move, rng)


def match_playout(game_id: str, players: int, pick: random.Random, number: int) -> int:
    """One random game through domain.match, as the service folds it; returns the moves played."""
    seed = f"{SEED}:{number}"
    events = match.create(game_id, {}, [{"name": f"p{i}"} for i in range(players)], match.commitment(seed, SALT),
                          match.SERVER_SEED)
    state = match.evolve_all(None, events)
    state, moves = match.evolve_all(state, match.open_events(state, seed)), 0
    while state["status"] == match.ACTIVE:
        seat = match.to_act(state)[0]
        move = pick.choice(match.legal_moves(state, seat))
        state = match.evolve_all(state, match.decide(state, seat, move, seed, SALT))
        moves += 1
    return moves


def reference_mantis_playout(players: int, pick: random.Random, number: int) -> int:
    """Mantis by the same rules (domain/games/mantis.py), as plainly as Python allows. A card's back never
    changes a random move, so only fronts are kept (the 105 classic cards: 15 of each of 7 colours); the
    result's ranking is left out (once a game)."""
    colours = EDITIONS["classic"]["colours"]
    pile = [front for front in range(colours) for _ in range((colours - 1) * (colours - 2) // 2)]
    pick.shuffle(pile)
    tanks = [[0] * colours for _ in range(players)]
    for i in range(TANK_SIZE * players):
        tanks[i % players][pile[i]] += 1
    del pile[:TANK_SIZE * players]
    scores, target, turn, moves = [0] * players, target_score(players), 0, 0
    for front in pile:
        owner = pick.randrange(players)  # the seat itself: score; another: steal
        matched = tanks[owner][front]
        moves += 1
        if not matched:
            tanks[owner][front] = 1
        else:
            tanks[owner][front] = 0
            if owner == turn:
                scores[turn] += matched + 1
                if scores[turn] >= target:
                    break
            else:
                tanks[turn][front] += matched + 1
                if players == 2:
                    continue  # a successful steal between two plays again
        turn = (turn + 1) % players
    return moves


def ismcts_rate(game, players: int, seconds: float) -> float:
    """Iterations per second of one ismcts search from the first turn of a dealt game."""
    options = game.options({}, players)
    state = None
    for event in game.deal(options, players, Rng.derive(SEED, "deal:ismcts")):
        state = game.evolve(state, event)
    seat = game.to_act(state)[0]
    started = time.process_time()
    _, stats = search(game, game.view(state, seat), seat, game.legal_moves(state, seat), random.Random(1),
                      iterations=MAX_ITERATIONS, budget_ms=int(seconds * 1000))
    return stats["iterations"] / (time.process_time() - started)


def rate(playout, seconds: float) -> tuple[float, float]:
    """(playouts/s, moves/s) over about `seconds` of this process's CPU time."""
    pick, number, moves = random.Random(1), 0, 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        moves += playout(pick, number)
        number += 1
    elapsed = time.process_time() - started
    return number / elapsed, moves / elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=1.5, help="per loop and game")
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    print(f"random (match, engine) and greedy playouts in-process, {args.players} players, {args.seconds}s of CPU a loop")
    print(f"{'game':<9} {'loop':<10} {'playouts/s':>10} {'moves/s':>9} {'x reference':>11}")
    reference = rate(lambda pick, n: reference_mantis_playout(args.players, pick, n), args.seconds)
    for game_id in GAMES:
        game = get_game(game_id)
        rows = [("match", rate(lambda pick, n: match_playout(game_id, args.players, pick, n), args.seconds)),
                ("engine", rate(lambda pick, n: engine_playout(game, args.players, pick, n), args.seconds)),
                ("greedy", rate(lambda pick, n: greedy_playout(game, args.players, pick, n), args.seconds))]
        if game_id == "mantis":
            rows.append(("reference", reference))
        for loop, (playouts, moves) in rows:
            versus = f"{playouts / reference[0]:>11.3f}" if game_id == "mantis" else f"{'':>11}"
            print(f"{game_id:<9} {loop:<10} {playouts:>10.0f} {moves:>9.0f} {versus}")
    print(f"\nismcts search from the first turn, {args.seconds}s a game (wall clock: the bot's budget)")
    print(f"{'game':<9} {'iterations/s':>12}")
    for game_id, game in GAMES.items():
        print(f"{game_id:<9} {ismcts_rate(game, args.players, args.seconds):>12.0f}")


if __name__ == "__main__":
    main()
