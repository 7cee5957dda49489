"""What a ladder's rules cost its fold (docs/ladder.md): a process folds a ladder's whole log once, on its first
rating there. Folds EVENTS synthetic match_rated events (2-seat matches between accounts drawn from PLAYERS, every
one feeding the pairs and opponents the rules keep) with this tree's domain/ladder.py and, side by side in turns,
with the one of another git revision (--against), and prints the best and median of each and their ratio.
"""
import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from domain import ladder  # noqa: E402


def events(players: int, count: int) -> list[dict]:
    rng = random.Random(7)
    pool = [uuid.uuid4().hex for _ in range(players)]
    made = []
    for i in range(count):
        seats = [{"player": p, "name": p[:8], "kind": "account", "rank": rank}
                 for rank, p in enumerate(rng.sample(pool, 2), start=1)]
        at = f"2026-01-{1 + i // 5000:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        made.append(ladder.rated("bench.2p", f"m{i}", at, seats, [{"mu": 25.0, "sigma": 8.3}] * 2,
                                 [{"mu": 26.0, "sigma": 8.0}, {"mu": 24.0, "sigma": 8.0}]))
    return made


def module_at(revision: str):
    """domain/ladder.py as it was at `revision`, loaded beside this tree's."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:domain/ladder.py"], capture_output=True,
                            text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "ladder_then.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ladder_then", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--against", default="HEAD", help="the git revision to compare with (default HEAD)")
    args = parser.parse_args()
    log = events(args.players, args.events)
    folds = {"this tree": ladder, args.against: module_at(args.against)}
    seconds: dict[str, list[float]] = {name: [] for name in folds}
    for _ in range(args.rounds):
        for name, module in folds.items():
            started = time.perf_counter()
            module.evolve_all(None, log)
            seconds[name].append(time.perf_counter() - started)
    for name, taken in seconds.items():
        print(f"{name}: {args.events} events folded, best {min(taken):.3f} s, median {statistics.median(taken):.3f} s")
    mine, theirs = seconds["this tree"], seconds[args.against]
    print(f"ratio this tree / {args.against}: best {min(mine) / min(theirs):.2f}, "
          f"median {statistics.median(mine) / statistics.median(theirs):.2f}")


if __name__ == "__main__":
    main()
