"""How fast the game engines play: playouts per second in-process, per game, side by side in one run.

The loops, each playing from a fresh deal to the end:
- match: random moves through domain.match, as the server folds a match (decide with the seed's per-move
  Rng, the `moved` and `match_finished` events, the match-level evolve);
- engine: random moves through the game module alone (deal, legal_moves, decide, evolve, outcome);
- simulation: random moves on the game's simulation (game.simulation), what a search's playouts run on;
- greedy engine: a search's playout (Simulation.play_out), every move the game's greedy for the
  mover's view, on the reference simulation (domain.simulation.Simulation: the game's own decide/evolve);
- greedy simulation: the same playout on the game's simulation;
- "x engine" compares each simulation row with the engine row of its kind (random, greedy); "x before" with
  what a search's playouts ran on when issue #27 was filed: random moves through domain.match, greedy ones
  on the reference simulation (the issue's goal is 10x in both); that simulation plays today's rules, whose
  greedy has drawn one number a tie instead of one a legal move since (a 9STAX greedy playout at 2 players:
  5.8% fewer instructions), so a ratio against the filed greedy would read higher;
- reference (Mantis only): the fastest reasonable pure-Python loop of the same rules, written here: no events,
  colours as small integers, tanks as counts per colour, random.shuffle for the deal.
Rates are per second of this process's CPU time (time.process_time), not of the wall clock: on a shared
machine the other jobs' load then changes them much less (it still slows caches and turbo), and a game's
loops take turns in slices, so that what load remains falls on each alike (the "x engine" ratios).
Usage: python bench/engines.py [--seconds 1.5] [--players 3] [--games mantis flipout]
"""
import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain import match  # noqa: E402
from domain.games import GAMES, get_game  # noqa: E402
from domain.bots.ismcts import MAX_ITERATIONS, FastRng, search  # noqa: E402
from domain.simulation import Simulation  # noqa: E402
from domain.games.mantis import EDITIONS, TANK_SIZE, target_score  # noqa: E402
from domain.rng import Rng  # noqa: E402

SEED, SALT = "engines-bench", "salt"


def dealt(game, players: int, number: int) -> dict:
    state = None
    for event in game.deal(game.options({}, players), players, Rng.derive(SEED, f"deal:{number}")):
        state = game.evolve(state, event)
    return state


def opened_match(game_id: str, players: int, number: int) -> tuple[dict, str]:
    """A match dealt and opened through domain.match, as the service folds it, and its seed."""
    seed = f"{SEED}:{number}"
    events = match.create(game_id, {}, [{"name": f"p{i}"} for i in range(players)], match.commitment(seed, SALT),
                          match.SERVER_SEED)
    state = match.evolve_all(None, events)
    return match.evolve_all(state, match.open_events(state, seed)), seed


def match_playout(opened: tuple[dict, str], pick: random.Random) -> int:
    """Random moves through domain.match to the end; returns the moves played."""
    (state, seed), moves = opened, 0
    while state["status"] == match.ACTIVE:
        seat = match.to_act(state)[0]
        move = pick.choice(match.legal_moves(state, seat))
        state = match.evolve_all(state, match.decide(state, seat, move, seed, SALT))
        moves += 1
    return moves


def engine_playout(game, state: dict, pick: random.Random) -> int:
    """Random moves through the game module alone (legal_moves, decide, evolve, outcome) to the end."""
    rng, moves = Rng.derive(SEED, f"moves:{pick.getrandbits(32)}"), 0
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        for event in game.decide(state, seat, pick.choice(game.legal_moves(state, seat)), rng):
            state = game.evolve(state, event)
        moves += 1
    return moves


def simulated_playout(simulation, state: dict, pick: FastRng, greedy_share: float) -> int:
    """A search's playout from the state on a simulation of it (built inside, as a search builds one a
    playout): random moves (greedy_share 0) or the movers' greedy moves (1) to the end."""
    simulation = simulation(state)
    moves = simulation.play_out(100_000, greedy_share, set(), pick)
    simulation.outcome()
    return moves


def reference_mantis_playout(players: int, pick: random.Random) -> int:
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


def rates(loops: list[tuple], seconds: float, slices: int = 6) -> list[tuple[float, float]]:
    """(playouts/s, moves/s) of each loop, a pair (deal, play): deal(number) -> a start, dealt outside the timed
    part (a search plays out from samples it deals cheaply, not from the match's HMAC-seeded deal); play(start,
    pick) -> the moves played, pick a FastRng seeded outside the timed part too (a search seeds one for all
    its playouts; seeding a Mersenne Twister costs about 4 us, a tenth of a fast Mantis playout), timed over
    about `seconds` of this process's CPU time, the loops taking turns in `slices` slices each, so that a change
    in the machine's load falls on all of them alike. Each loop plays the same deals in the same order."""
    counts = [[0, 0, 0.0] for _ in loops]  # games, moves, CPU seconds
    for _ in range(slices):
        for (deal, play), count in zip(loops, counts):
            spent = 0.0
            while spent < seconds / slices:
                start, pick = deal(count[0]), FastRng(count[0])
                started = time.process_time()
                count[1] += play(start, pick)
                spent += time.process_time() - started
                count[0] += 1
            count[2] += spent
    return [(games / elapsed, moves / elapsed) for games, moves, elapsed in counts]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=1.5, help="per loop and game")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    args = parser.parse_args()
    print(f"random and greedy playouts in-process, {args.players} players, {args.seconds}s of CPU a loop")
    print(f"{'game':<9} {'loop':<18} {'playouts/s':>10} {'moves/s':>9} {'x engine':>8} {'x before':>8} {'x reference':>11}")
    reference = rates([(lambda n: None, lambda _, pick: reference_mantis_playout(args.players, pick))], args.seconds)[0]
    for game_id in args.games:
        game = get_game(game_id)
        def deal(n, game=game):
            return dealt(game, args.players, n)

        def reference_simulation(state, game=game):
            return Simulation(game, state)

        loops = {"match": (lambda n: opened_match(game_id, args.players, n), match_playout),
                 "engine": (deal, lambda state, pick: engine_playout(game, state, pick)),
                 "simulation": (deal, lambda state, pick: simulated_playout(game.simulation, state, pick, 0.0)),
                 "greedy engine": (deal, lambda state, pick: simulated_playout(reference_simulation, state, pick, 1.0)),
                 "greedy simulation": (deal, lambda state, pick: simulated_playout(game.simulation, state, pick, 1.0))}
        rows = list(zip(loops, rates(list(loops.values()), args.seconds)))
        if game_id == "mantis":
            rows.append(("reference", reference))
        # each simulation row against the engine row of its kind (random, greedy)
        baseline = {"simulation": rows[1][1][0], "greedy simulation": rows[3][1][0]}
        before = {"simulation": rows[0][1][0], "greedy simulation": rows[3][1][0]}
        for loop, (playouts, moves) in rows:
            faster = f"{playouts / baseline[loop]:>8.1f}" if loop in baseline else f"{'':>8}"
            faster += f" {playouts / before[loop]:>8.1f}" if loop in before else f" {'':>8}"
            versus = f"{playouts / reference[0]:>11.3f}" if game_id == "mantis" else f"{'':>11}"
            print(f"{game_id:<9} {loop:<18} {playouts:>10.0f} {moves:>9.0f} {faster} {versus}")
    print(f"\nismcts search from the first turn, {args.seconds}s a game (wall clock: the bot's budget)")
    print(f"{'game':<9} {'iterations/s':>12}")
    for game_id in args.games:
        game = get_game(game_id)
        print(f"{game_id:<9} {ismcts_rate(game, args.players, args.seconds):>12.0f}")


if __name__ == "__main__":
    main()
