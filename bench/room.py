"""How much room for skill greedy leaves, and which playout cap finds it: what a search over greedy's own playouts
gains over greedy's move when it picks by the win share at the end, or by the game's evaluate after a few moves.

At positions from greedy-vs-greedy matches (the seat to act has a choice), greedy's move and up to 11 others (a
random choice) are played in the same samples of the hidden cards (game.determinize of the seat's view and what
it saw before), each continued by greedy for every seat (the ismcts bot's playouts). One playout per move and
sample gives every score at once: the game's evaluate when the playout has made `cap` moves, for each cap, and
the win share at its end. On the first S samples each score picks the move it rates best; the last half of the
samples (never used to pick) measures by win share how much more the pick wins than greedy's move. A cap that
picks better moves than the end's win share with as few samples is one whose score carries less luck.

The table gives, per game, player count and S, the mean gain per decision with a 95% interval for each score,
and the decisions a seat makes per match: a gain per decision adds up over a seat's decisions in a match. A
last row per game and player count gives each score's noise: the standard deviation of the paired difference
between greedy's move and another move in one sample (the fewer samples a score needs to tell moves apart).

    .venv/bin/python bench/room.py                                       # every game at 2 players
    .venv/bin/python bench/room.py --games 9stax --positions 200 --samples 600 --caps 3,6,12,24,48
"""
import argparse
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain.bots.ismcts import FastRng, move_key  # noqa: E402
from domain.games import GAMES  # noqa: E402
from bots import positions, seat_share  # noqa: E402  (bench/bots.py: this script's folder is on the path)

MOVES = 12  # greedy's and up to 11 others, as the ismcts bot searched by default before it searched them all
FINISHED = 10**9  # a cap no playout reaches: the win share at the end


def scores(game, simulation, seat: int, caps: list[int], rng) -> list[float]:
    """One playout to the end: evaluate for the seat after each cap's moves (its win share if the game ended
    first), then the win share at the end."""
    values, played = [], 0
    for cap in caps + [FINISHED]:
        played += simulation.play_out(cap - played, 1.0, {seat}, rng)
        result = simulation.outcome()
        if result is not None:
            return values + [seat_share(result, seat)] * (len(caps) + 1 - len(values))
        values.append(simulation.evaluate(seat))
    raise AssertionError("a playout ended without an outcome")


def table(job: tuple) -> list[list[list[float]]]:
    """At one position: per sample, per move (greedy's first), the scores of its playout."""
    game_id, index, (view, seat, moves, seen), samples, caps = job
    game, pick = GAMES[game_id], random.Random(index)
    favourite = game.greedy(view, seat, moves, pick)
    others = [m for m in moves if move_key(m) != move_key(favourite)]
    moves = [favourite] + pick.sample(others, min(len(others), MOVES - 1))
    memory = game.recall(seen, seat) if seen else None
    sim, rows = FastRng(index), []
    for _ in range(samples):
        sample, seed = game.determinize(view, seat, sim, memory), sim.getrandbits(64)
        row = []
        for move in moves:
            simulation, rng = game.simulation(sample), FastRng(seed)  # the same continuation for every move
            simulation.play(seat, move, rng)
            row.append(scores(game, simulation, seat, caps, rng))
        rows.append(row)
    return rows


def gain(rows: list, score: int, select: int) -> float:
    """The pick's win share over greedy's move in the held-out last half of the samples; the pick is the move with
    the best mean `score` over the first `select` samples (greedy's move on a tie)."""
    moves = range(len(rows[0]))
    means = [statistics.fmean(row[move][score] for row in rows[:select]) for move in moves]
    best = max(moves, key=lambda move: (means[move], move == 0))
    return statistics.fmean(row[best][-1] - row[0][-1] for row in rows[len(rows) // 2:])


def spread(rows: list, score: int) -> float:
    """The standard deviation, over the samples, of the `score` difference between the second move and greedy's."""
    return statistics.stdev(row[1][score] - row[0][score] for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--players", default="2", choices=("2", "max", "both"))
    parser.add_argument("--positions", type=int, default=60, help="positions per game and player count")
    parser.add_argument("--samples", type=int, default=300, help="samples per position (the last half measure)")
    parser.add_argument("--select", default="20,80", help="samples each score picks on (at most half of --samples)")
    parser.add_argument("--caps", default="", help="playout caps to score at (default: 1/4, 1/2, 1, 2 and 4 times "
                                                   "the game's own PLAYOUT_CAP)")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    selects = [int(s) for s in args.select.split(",")]
    if max(selects) > args.samples // 2:
        parser.error("--select must leave the last half of the samples to measure on")
    print(f"{args.positions} positions per row, {args.samples} samples each; greedy's move and up to {MOVES - 1} "
          f"others in the same samples, greedy playouts; gain per decision [95% CI] of the move each score picks\n")
    with multiprocessing.Pool(args.processes) as pool:
        for game_id in args.games.split(","):
            game = GAMES[game_id]
            caps = ([int(c) for c in args.caps.split(",")] if args.caps else
                    sorted({max(1, game.PLAYOUT_CAP * k // 4) for k in (1, 2, 4, 8, 16)}))
            print("| game | players | decisions per seat and match | picked on | "
                  + " | ".join(f"cap {cap}" for cap in caps) + " | to the end | seconds |")
            print("|---|---|---|---|" + "---|" * (len(caps) + 2))
            counts = {"2": [2], "max": [game.INFO.max_players], "both": sorted({2, game.INFO.max_players})}
            for players in counts[args.players]:
                started = time.perf_counter()
                found, decisions = positions(game_id, players, args.positions, f"room:{game_id}:{players}",
                                             random.Random(game_id), bot="greedy")
                tables = pool.map(table, [(game_id, i, p, args.samples, caps) for i, p in enumerate(found)], chunksize=1)
                for select in selects:
                    cells = []
                    for score in range(len(caps) + 1):
                        gains = [gain(rows, score, select) for rows in tables]
                        mean, half = statistics.fmean(gains), 1.96 * statistics.stdev(gains) / len(gains) ** 0.5
                        cells.append(f"{mean:+.4f} [{mean - half:+.4f}, {mean + half:+.4f}]")
                    print(f"| {game_id} | {players} | {decisions:.0f} | {select} samples | " + " | ".join(cells)
                          + f" | {time.perf_counter() - started:.0f} |", flush=True)
                noise = [statistics.fmean(spread(rows, score) for rows in tables if len(rows[0]) > 1)
                         for score in range(len(caps) + 1)]
                print(f"| {game_id} | {players} | | noise (SD of a paired difference) | "
                      + " | ".join(f"{sd:.3f}" for sd in noise) + " | |", flush=True)


if __name__ == "__main__":
    main()
