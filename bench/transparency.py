"""What a transparency proof costs as the log grows (docs/fairness.md, "Transparency"): per tree size, the time to
build one inclusion proof (the middle leaf) and one consistency proof (from half the tree), which hash O(n) of the
leaves, the time to check each, and the cold start of a process: reading every leaf hash from Redis (one LRANGE) and
folding its root. Side by side, medians of a few runs each.

    .venv/bin/python bench/transparency.py [--sizes 1000,10000,100000,1000000] [--runs 3]
"""
import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.common import embedded_redis  # noqa: E402
from domain import merkle  # noqa: E402
from eventstore.transparency import LEAVES, RedisTransparencyStore  # noqa: E402


def timed(call, runs: int) -> tuple[float, object]:
    seconds, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("| leaves | inclusion proof ms | check ms | consistency proof ms | check ms | cold start: LRANGE ms | "
          "fold root ms |")
    print("|---|---|---|---|---|---|---|")
    with embedded_redis() as url:
        client = redis.Redis.from_url(url, decode_responses=True)
        store = RedisTransparencyStore(client)
        for size in map(int, args.sizes.split(",")):
            leaves = [merkle.leaf_hash(hashlib.sha256(str(i).encode()).digest()) for i in range(size)]
            client.delete(LEAVES)
            for start in range(0, size, 10_000):
                client.rpush(LEAVES, *(leaf.hex() for leaf in leaves[start:start + 10_000]))
            root, first_root, middle, half = merkle.root(leaves), merkle.root(leaves[:size // 2]), size // 2, size // 2
            proving, path = timed(lambda: merkle.inclusion_proof(leaves, middle), args.runs)
            checking, _ = timed(lambda: merkle.verify_inclusion(leaves[middle], middle, size, path, root), args.runs)
            consisting, proof = timed(lambda: merkle.consistency_proof(leaves, half), args.runs)
            checking_too, _ = timed(lambda: merkle.verify_consistency(half, size, first_root, root, proof), args.runs)
            reading, hexes = timed(lambda: store.leaves(0, size), args.runs)
            folding, _ = timed(lambda: merkle.root([bytes.fromhex(leaf) for leaf in hexes]), args.runs)
            print(f"| {size:,} | {proving:.1f} | {checking:.3f} | {consisting:.1f} | {checking_too:.3f} | "
                  f"{reading:.1f} | {folding:.1f} |")


if __name__ == "__main__":
    main()
