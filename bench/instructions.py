"""bench/engines.py's playouts counted in machine instructions (valgrind), not timed: a count that the machine's
load does not move, so a change of a few percent shows on a shared machine, where timings of the same code
vary by a third from run to run.

Each loop of bench/engines.py (match, simulation, greedy engine, greedy simulation) plays `--playouts`
playouts from the same deals in a child process run under `valgrind --tool=cachegrind`, and again with
the deals made but nothing played; the difference over the playouts is a playout's instructions (the deal
excluded, as engines.py excludes it from its timing). "x before" is the ratio engines.py gives: random
playouts on the simulation against random ones through domain.match, greedy ones on the simulation against
greedy ones on the reference simulation (what a search's playouts ran on when issue #27 was filed).
Instructions are not time (a dict lookup and an int add differ in cycles): a ratio of them follows the ratio
of times of the same kind of code only roughly (docs/bots.md: greedy rows read up to 14% lower by the clock),
so bench/engines.py stays the clock's figure.
Needs valgrind (Debian: apt-get install valgrind); PYTHONHASHSEED is fixed, so a count repeats within 0.1%.

    .venv/bin/python bench/instructions.py --games mantis 9stax --players 2 --playouts 100
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain.bots.ismcts import FastRng  # noqa: E402
from domain.games import GAMES, get_game  # noqa: E402
from domain.simulation import Simulation  # noqa: E402
from engines import dealt, match_playout, opened_match, simulated_playout  # noqa: E402

LOOPS = ("match", "simulation", "greedy engine", "greedy simulation")
BEFORE = {"simulation": "match", "greedy simulation": "greedy engine"}  # each simulation loop's "x before"


def play(loop: str, game_id: str, players: int, playouts: int, deal_only: bool) -> None:
    """The child's work: the loop's starts for `playouts` deals, then (unless deal_only) a playout from each."""
    game = get_game(game_id)
    if loop == "match":
        starts = [opened_match(game_id, players, number) for number in range(playouts)]
        playout = match_playout
    else:
        starts = [dealt(game, players, number) for number in range(playouts)]
        simulation = game.simulation if loop.endswith("simulation") else (lambda state: Simulation(game, state))
        share = 1.0 if loop.startswith("greedy") else 0.0

        def playout(state, pick):
            return simulated_playout(simulation, state, pick, share)
        simulation(starts[0])  # the game's simulation module imports on its first use: not a playout's cost
    picks = [FastRng(number) for number in range(playouts)]  # seeded outside the count, as engines.py times
    if not deal_only:
        for start, pick in zip(starts, picks):
            playout(start, pick)


def instructions(loop: str, game_id: str, players: int, playouts: int, deal_only: bool) -> int:
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               sys.executable, __file__, "--child", loop, "--games", game_id, "--players", str(players),
               "--playouts", str(playouts)] + (["--deal-only"] if deal_only else [])
    run = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"},
                         check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if not found:
        sys.exit(f"valgrind gave no instruction count:\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--playouts", type=int, default=100, help="per loop (the fast loops' counts are small)")
    parser.add_argument("--child", choices=LOOPS, help=argparse.SUPPRESS)
    parser.add_argument("--deal-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return play(args.child, args.games[0], args.players, args.playouts, args.deal_only)
    if not shutil.which("valgrind"):
        sys.exit("bench/instructions.py needs valgrind (Debian: apt-get install valgrind)")
    print(f"instructions a playout (valgrind), {args.players} players, {args.playouts} playouts a loop")
    print(f"{'game':<9} {'loop':<18} {'instructions':>12} {'x before':>8}")
    for game_id in args.games:
        counts = {loop: (instructions(loop, game_id, args.players, args.playouts, False)
                         - instructions(loop, game_id, args.players, args.playouts, True)) // args.playouts
                  for loop in LOOPS}
        for loop, count in counts.items():
            before = f"{counts[BEFORE[loop]] / count:>8.1f}" if loop in BEFORE else ""
            print(f"{game_id:<9} {loop:<18} {count:>12,} {before}", flush=True)


if __name__ == "__main__":
    main()
