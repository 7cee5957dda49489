"""What a transparency proof costs as the log grows (docs/fairness.md, "Transparency"): per tree size, a process's
first proof (its Tree learns the roots of the large complete subtrees: O(n) hashing), the proofs after it (an
inclusion proof of a random leaf, a consistency proof from a random size: O(log n) with those roots known), checking
each, and a process's cold start: reading every leaf hash from Redis (one LRANGE) and folding the root. Side by side,
medians of --runs runs each.

    .venv/bin/python bench/transparency.py [--sizes 1000,10000,100000,1000000] [--runs 5]
"""
import argparse
import hashlib
import random
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
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pick = random.Random(47)
    print("| leaves | first proof ms | inclusion proof ms | its check ms | consistency proof ms | its check ms | "
          "cold start: LRANGE ms | folding the root ms |")
    print("|---|---|---|---|---|---|---|---|")
    with embedded_redis() as url:
        client = redis.Redis.from_url(url, decode_responses=True)
        store = RedisTransparencyStore(client)
        for size in map(int, args.sizes.split(",")):
            leaves = [merkle.leaf_hash(hashlib.sha256(str(i).encode()).digest()) for i in range(size)]
            client.delete(LEAVES)
            for start in range(0, size, 10_000):
                client.rpush(LEAVES, *(leaf.hex() for leaf in leaves[start:start + 10_000]))
            root, index, first = merkle.root(leaves), pick.randrange(size), pick.randrange(1, size)
            first_root = merkle.root(leaves[:first])
            cold, _ = timed(lambda: merkle.Tree(leaves).inclusion_proof(size // 2, size), args.runs)
            tree = merkle.Tree(leaves)
            tree.inclusion_proof(size // 2, size)
            proving, path = timed(lambda: tree.inclusion_proof(index, size), args.runs)
            checking, _ = timed(lambda: merkle.verify_inclusion(leaves[index], index, size, path, root), args.runs)
            consisting, proof = timed(lambda: tree.consistency_proof(first, size), args.runs)
            checking_too, _ = timed(lambda: merkle.verify_consistency(first, size, first_root, root, proof), args.runs)
            reading, hexes = timed(lambda: store.leaves(0, size), args.runs)
            folding, _ = timed(lambda: merkle.root([bytes.fromhex(leaf) for leaf in hexes]), args.runs)
            print(f"| {size:,} | {cold:.1f} | {proving:.2f} | {checking:.3f} | {consisting:.2f} | {checking_too:.3f} | "
                  f"{reading:.1f} | {folding:.1f} |")


if __name__ == "__main__":
    main()
