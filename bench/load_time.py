"""How long loading a match takes: a 10-event match against a 1000-event one, on Redis, side by side.

Loading is what every command and read does first: one Lua call (meta + latest snapshot + tail) and a fold
of the tail. Both matches are of the same game; the long one is also measured with snapshots off, to show
what the snapshots save. Loads alternate between the matches so noise hits all alike.
Aim: the long match within 1.5x of the short one.
Usage: python bench/load_time.py [--loads 300] [--snapshot-every 25]
"""
import argparse
import time

import redis

from common import embedded_redis, long_match, median, play_random
from eventstore.redis_store import RedisEventStore
from service.matches import MatchService
from service.ports import NoBots


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loads", type=int, default=300)
    parser.add_argument("--snapshot-every", type=int, default=25)
    args = parser.parse_args()
    with embedded_redis() as url:
        client = redis.Redis.from_url(url, decode_responses=True)
        service = MatchService(RedisEventStore(client), NoBots(), snapshot_every=args.snapshot_every)
        no_snapshots = MatchService(RedisEventStore(client), NoBots(), snapshot_every=10**9)
        # the worst case for snapshots: the longest tail, just before the next snapshot
        worst = 1000 + args.snapshot_every - 1 - 1000 % args.snapshot_every
        long, (game, players, seed, options) = long_match(service, worst, finished=False)
        long_bare = play_random(no_snapshots, game, players, seed, stop_at=long["version"], options=options)
        short = play_random(service, game, players, "short", stop_at=10, options=options)
        subjects = {"short": (service, short), "long": (service, long), "long, no snapshots": (no_snapshots, long_bare)}
        times = {name: [] for name in subjects}
        for _ in range(args.loads):
            for name, (svc, played) in subjects.items():
                start = time.perf_counter()
                svc.get(played["id"], None)
                times[name].append(time.perf_counter() - start)
    print(f"game {game}, snapshot every {args.snapshot_every} events, {args.loads} loads each (GET of the match "
          "through the service: load + fold + view)")
    print(f"{'match':>20} {'events':>7} {'median ms':>10} {'p95 ms':>8} {'vs short':>9}")
    base = median(times["short"])
    for name, (_, played) in subjects.items():
        ordered = sorted(times[name])
        print(f"{name:>20} {played['version']:>7} {median(ordered) * 1000:>10.2f} "
              f"{ordered[int(len(ordered) * 0.95)] * 1000:>8.2f} {median(ordered) / base:>8.2f}x")


if __name__ == "__main__":
    main()
