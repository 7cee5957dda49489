"""How much room for skill greedy leaves: what a search over greedy's own playouts can gain over greedy's move.

At positions from greedy-vs-greedy matches (the seat to act has a choice), greedy's move and up to 11 others
(the moves the ismcts bot searches) are played in the same samples of the hidden cards (game.determinize of
the seat's view), each continued by greedy for every seat to the end (the playouts of the ismcts bot). The
samples are split in two halves: the first picks the move with the best win share, the second measures,
without the first half's selection bias, how much more that move wins than greedy's move. The table gives,
per game and player count, the mean gain per decision with a 95% interval, how often the pick differs from
greedy's move, and the decisions a seat makes per match: a gain per decision near zero means greedy already
plays the move its continuation rates best, and a searching bot has little to find.

    .venv/bin/python bench/room.py                                 # every game, 2 and most players
    .venv/bin/python bench/room.py --games mantis --positions 60 --samples 400
"""
import argparse
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain.bots.ismcts import DEFAULT_ROOT_MOVES as ROOT_MOVES, FastRng, apply_move, move_key, playout  # noqa: E402
from domain.games import GAMES  # noqa: E402
from bots import positions  # noqa: E402  (bench/bots.py: this script's folder is on the path)



def gain(job: tuple) -> tuple[float, bool]:
    """At one position: the held-out gain of the best-looking move over greedy's, and whether they differ.
    Like the bot, it looks at greedy's move and at most ROOT_MOVES - 1 others chosen at random."""
    game_id, index, (view, seat, moves), samples = job
    game, pick = GAMES[game_id], random.Random(index)
    favourite = game.greedy(view, seat, moves, pick)
    others = [m for m in moves if move_key(m) != move_key(favourite)]
    moves = [favourite] + pick.sample(others, min(len(others), ROOT_MOVES - 1))  # greedy's move is moves[0]
    halves = ([0.0] * len(moves), [0.0] * len(moves))
    for sample_no in range(samples):
        seed = FastRng(f"{index}:{sample_no}").getrandbits(64)
        sample = game.determinize(view, seat, FastRng(seed))
        for i, move in enumerate(moves):
            sim = FastRng(seed + 1)  # the same continuation randomness for every move of this sample
            rewards = playout(game, game.simulation(apply_move(game, sample, seat, move, sim)), 100_000, 1.0, {seat}, sim)
            halves[sample_no % 2][i] += rewards.get(seat, 0.0)
    first, second = halves
    best = max(range(len(moves)), key=lambda i: (first[i], i == 0))
    return (second[best] - second[0]) / (samples // 2), best != 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--players", default="both", choices=("2", "max", "both"))
    parser.add_argument("--positions", type=int, default=30, help="positions per game and player count")
    parser.add_argument("--samples", type=int, default=200, help="samples per position (half pick, half measure)")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    print(f"{args.positions} positions per row, {args.samples} samples each (greedy playouts; greedy's move "
          f"and up to {ROOT_MOVES - 1} others, all in the same samples)\n")
    print("| game | players | decisions per seat and match | pick differs from greedy | gain per decision [95% CI] "
          "| seconds |")
    print("|---|---|---|---|---|---|")
    with multiprocessing.Pool(args.processes) as pool:
        for game_id in args.games.split(","):
            game = GAMES[game_id]
            counts = {"2": [2], "max": [game.INFO.max_players], "both": sorted({2, game.INFO.max_players})}
            for players in counts[args.players]:
                started = time.perf_counter()
                found, decisions = positions(game_id, players, args.positions, f"room:{game_id}:{players}",
                                             random.Random(game_id), bot="greedy")
                results = pool.map(gain, [(game_id, i, p, args.samples) for i, p in enumerate(found)], chunksize=1)
                gains = [g for g, _ in results]
                mean, half = statistics.mean(gains), 1.96 * statistics.stdev(gains) / len(gains) ** 0.5
                print(f"| {game_id} | {players} | {decisions:.0f} | {sum(d for _, d in results)} of {len(results)} "
                      f"| {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}] "
                      f"| {time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
