"""What the per-process memory of folded states (service/repository.py) saves on a move, on Redis, side by side.

Random 3-seat Mantis moves through MatchService.move (no HTTP), in three set-ups on one embedded Redis:
- memory off: every move loads the match (one Lua call, latest snapshot + tail, folded);
- one process: every move is made at the version this process appended, so it appends without a load;
- two processes: moves alternate between two services (as between two gunicorn workers), so each move
  loads only the events after the version its process remembers.
Then GET of a match as the API reads it (MatchService, no HTTP), before and after it took its ETag from its
load: the tag from a meta read, then the load (two Redis calls), against `tagged_get` (one), on a match of 30
moves (62 events), by a process that remembers it and by one that remembers nothing.
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


def reads_per_second(read, reads: int) -> float:
    started = time.perf_counter()
    for _ in range(reads):
        read()
    return reads / (time.perf_counter() - started)


def compare_reads(services: dict, rounds: int, reads: int) -> None:
    """services: name -> a MatchService; each reads a match of 30 moves, both ways."""
    played = next(iter(services.values())).create("mantis", {}, SEATS)
    match_id, tokens, version = played["id"], [seat["token"] for seat in played["seats"]], played["version"]
    for _ in range(10):
        for seat in range(len(SEATS)):
            version = services["remembered"].move(match_id, tokens[seat], {"action": "steal", "target": (seat + 1) % 3},
                                                  version)["version"]
    ways = {"meta, then load": lambda service: (service.tag(match_id, tokens[0]), service.get(match_id, tokens[0])),
            "one load": lambda service: service.tagged_get(match_id, tokens[0])[1]()}
    rates = {(who, way): [] for who in services for way in ways}
    for _ in range(rounds):
        for (who, way) in rates:
            rates[who, way].append(reads_per_second(lambda: ways[way](services[who]), reads))
    print(f"\nGET of a match (version {version}) on Redis, {rounds} rounds of {reads} reads")
    print(f"{'process':<12} {'read':<16} {'reads/s':>8} {'x two calls':>11}")
    for who, way in rates:
        print(f"{who:<12} {way:<16} {median(rates[who, way]):>8.0f} "
              f"{median(rates[who, way]) / median(rates[who, 'meta, then load']):>11.2f}")


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
    with embedded_redis() as url:
        client = redis.Redis.from_url(url, decode_responses=True)
        compare_reads({"remembered": MatchService(RedisEventStore(client), NoBots()),
                       "cold": MatchService(RedisEventStore(client), NoBots(), recent_matches=0)},
                      args.rounds, args.moves)


if __name__ == "__main__":
    main()
