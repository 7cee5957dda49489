"""What the per-process memory of folded states (service/recent.py) saves on a move, on Redis, side by side.

Random 3-seat Mantis moves through MatchService.move (no HTTP), in three set-ups on one embedded Redis:
- memory off: every move loads the match (one Lua call, latest snapshot + tail, folded);
- one process: every move is made at the version this process appended, so it appends without a load;
- two processes: moves alternate between two services (as between two gunicorn workers), so each move
  loads only the events after the version its process remembers.
Rounds alternate between the set-ups so noise hits all alike; the medians' ratios are the result.
Usage: python bench/move_path.py [--moves 600] [--rounds 3]
"""
import argparse
import random
import time

import redis

from common import embedded_redis, median
from eventstore.redis_store import RedisEventStore
from service.matches import MatchService
from service.ports import NoBots

SEATS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


def moves_per_second(services: list[MatchService], moves: int, pick: random.Random) -> float:
    played, started = 0, time.perf_counter()
    while played < moves:
        current = services[0].create("mantis", {}, SEATS)
        match_id, tokens = current["id"], [seat["token"] for seat in current["seats"]]
        while current["status"] == "active" and played < moves:
            seat = current["to_act"][0]
            target = pick.randrange(len(SEATS))
            move = {"action": "score"} if target == seat else {"action": "steal", "target": target}
            current = services[played % len(services)].move(match_id, tokens[seat], move, current["version"])
            played += 1
    return played / (time.perf_counter() - started)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with embedded_redis() as url:
        client = redis.Redis.from_url(url, decode_responses=True)

        def service(remember: int) -> MatchService:
            return MatchService(RedisEventStore(client), NoBots(), recent_matches=remember)

        setups = {"memory off": [service(0)], "one process": [service(500)],
                  "two processes": [service(500), service(500)]}
        rates = {name: [] for name in setups}
        pick = random.Random(17)
        for _ in range(args.rounds):
            for name, services in setups.items():
                rates[name].append(moves_per_second(services, args.moves, pick))
    off = median(rates["memory off"])
    print(f"MatchService.move on Redis, random 3-seat Mantis, {args.rounds} rounds of {args.moves} moves")
    print(f"{'set-up':<14} {'moves/s':>8} {'x memory off':>12}")
    for name in setups:
        print(f"{name:<14} {median(rates[name]):>8.0f} {median(rates[name]) / off:>12.2f}")


if __name__ == "__main__":
    main()
