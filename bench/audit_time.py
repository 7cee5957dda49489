"""How long exporting and verifying a finished match of about 1000 events takes (and a short one beside it).

Export: the service reads the whole log from Redis and builds the document. Verify: `cardroom verify` on the
document as a client would run it (json.load + hash chain + re-deciding every command), timed in-process.
Usage: python bench/audit_time.py [--repeats 5]
"""
import argparse
import json
import time

import redis

from common import embedded_redis, long_match, median, play_random
from eventstore.redis_store import RedisEventStore
from service.audit import verify_export
from service.matches import MatchService
from service.ports import NoBots


def timed(action, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return result, median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with embedded_redis() as url:
        service = MatchService(RedisEventStore(redis.Redis.from_url(url, decode_responses=True)), NoBots())
        long, (game, players, _, options) = long_match(service, 1000, finished=True)
        short = play_random(service, "mantis", players, "short-audit")
        print(f"{'match':>22} {'events':>7} {'export ms':>10} {'bytes':>9} {'verify ms':>10} verdict")
        for name, played in ((f"{game}, {players} seats", long), (f"mantis, {players} seats", short)):
            document, export_time = timed(lambda: service.export(played["id"], None), args.repeats)
            text = json.dumps(document)
            verdict, verify_time = timed(lambda: verify_export(json.loads(text)), args.repeats)
            print(f"{name:>22} {len(document['events']):>7} {export_time * 1000:>10.1f} {len(text):>9} "
                  f"{verify_time * 1000:>10.1f} {'OK' if verdict.ok else verdict.summary()}")


if __name__ == "__main__":
    main()
