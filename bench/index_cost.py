"""What a janitor pass and a `?status=` listing cost at many matches: the indexes against the scans they
replaced, side by side on one embedded Redis.

The store is filled with N matches (default 50,000) as an abandoned crowd leaves it: most await a human who
left, a few hundred are finished, a few hundred await a bot (a tenth of those stalled). Each match's meta is
a real one (copied from matches the service created), so every HGETALL costs what it costs in production.
    scan pass     what the janitor did before: every match on the active set, its meta read, filtered
    index pass    MatchService.stalled_bot_turns: only the matches noted as awaiting a bot for long
    scan listing  the catalog walked newest first, one meta at a time, until `limit` finished ones
    index listing MatchService.list_matches(status="finished"): the status index, metas checked in one go
Usage: python bench/index_cost.py [--matches 50000] [--repeat 5]
"""
import argparse
import json
import statistics
import time

import redis

from common import embedded_redis
from eventstore.redis_store import BOTS_AWAITED, RedisEventStore, keys
from service.matches import MatchService
from service.ports import NoBots

FINISHED, AWAITING_BOT, STALL_AFTER, LIMIT = 300, 300, 5.0, 20  # about as many (count // 300 apart)


def fill(client, service, count: int) -> None:
    """`count` matches in the catalog, the indexes and the set the scan read."""
    templates = {
        "active": service.create("mantis", {}, [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}])["id"],
        "bot": service.create("mantis", {}, [{"bot": "greedy"}, {"name": "ann"}, {"name": "bob"}])["id"],
    }
    metas = {kind: client.hgetall(keys(match_id)[1]) for kind, match_id in templates.items()}
    metas["finished"] = {**metas["active"], "status": "finished", "to_act": "[]"}
    client.flushdb()
    now, bots = time.time(), 0
    pipe = client.pipeline(transaction=False)
    for position in range(1, count + 1):
        kind = ("finished" if position % (count // FINISHED) == 0 else
                "bot" if position % (count // AWAITING_BOT) == 1 else "active")
        # a tenth of the bot turns stalled a minute ago, the others never stale while the bench runs
        stalled = kind == "bot" and bots % 10 == 0
        since = now - 60 if stalled else now + 3600 if kind == "bot" else now - 3600
        bots += kind == "bot"
        match_id = f"bench{position:07d}"
        pipe.hset(keys(match_id)[1], mapping={**metas[kind], "updated_at": repr(since)})
        pipe.zadd("cr:matches", {match_id: position})
        pipe.zadd("cr:matches:game:mantis", {match_id: position})
        pipe.zadd(f"cr:matches:status:{metas[kind]['status']}", {match_id: position})
        pipe.sadd("cr:matches:active", match_id)  # the set the scan pass read (it never emptied: the issue)
        if kind == "bot":
            pipe.zadd(BOTS_AWAITED, {match_id: since})
        if position % 2000 == 0:
            pipe.execute()
    pipe.execute()
    client.set("cr:matches:seq", count)


def scan_pass(client) -> int:
    ids = sorted(client.smembers("cr:matches:active"))
    pipe = client.pipeline(transaction=False)
    for match_id in ids:
        pipe.hgetall(keys(match_id)[1])
    now, stalled = time.time(), 0
    for meta in pipe.execute():
        if meta and meta["status"] != "finished" and now - float(meta["updated_at"]) >= STALL_AFTER:
            seats = json.loads(meta["seats"])
            stalled += any(seats[seat]["bot"] for seat in json.loads(meta["to_act"]))
    return stalled


def scan_listing(client) -> int:
    found, before = 0, "+inf"
    while found < LIMIT:
        batch = client.zrevrangebyscore("cr:matches", before, "-inf", start=0, num=2 * LIMIT, withscores=True)
        for match_id, position in batch:
            before = f"({position}"
            if client.hget(keys(match_id)[1], "status") == "finished":
                found += 1
        if len(batch) < 2 * LIMIT:
            break
    return found


def timed(action, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with embedded_redis() as url:
        client = redis.Redis.from_url(url, decode_responses=True)
        service = MatchService(RedisEventStore(client), NoBots())
        fill(client, service, args.matches)
        rows = [("janitor pass", lambda: scan_pass(client),
                 lambda: len(service.stalled_bot_turns(STALL_AFTER, give_up_after=86400))),
                (f"list {LIMIT} finished", lambda: scan_listing(client),
                 lambda: len(service.list_matches(None, "finished", None, LIMIT)["matches"]))]
        print(f"{args.matches} matches ({FINISHED} finished, {AWAITING_BOT} awaiting a bot, a tenth of those "
              f"stalled); median of {args.repeat}")
        print("| what | scan ms | index ms | scan / index | found (scan, index) |")
        print("|---|---|---|---|---|")
        for name, scan, index in rows:
            scan_time, scan_found = timed(scan, args.repeat)
            index_time, index_found = timed(index, args.repeat)
            print(f"| {name} | {scan_time * 1000:.1f} | {index_time * 1000:.2f} | {scan_time / index_time:.0f} "
                  f"| {scan_found}, {index_found} |")


if __name__ == "__main__":
    main()
