"""Rated play on an embedded Redis (docs/ladder.md), in this process (no HTTP):

  rate      one rating appended and projected (what a rated match's finishing move adds), p50/p99, while one
            ladder grows to PLAYERS players by RATINGS 2-seat matches between random players; then the first
            rating of a process that has to fold the whole ladder first;
  read      a leaderboard page of 50 at the top and near the bottom of that ladder, and a player's ratings (the
            account page's), p50/p99;
  rebuild   `cardroom ratings rebuild`'s work for REAL matches played to their end (greedy against random, inline);
  void      an operator's void: the replay of the grown ladder it computes, voiding its first match (the worst case:
            every later match a voided player's rating reaches is recomputed) and a recent one; and one void of the
            first of the REAL matches, end to end (the replay, the event appended, the leaderboard replaced).
"""
import argparse
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import embedded_redis  # noqa: E402
from eventstore.leaderboards import RedisLeaderboardStore  # noqa: E402
from eventstore.redis_store import RedisEventStore  # noqa: E402
from service.ladders import LadderService, _counted, _replayed, ladder_key  # noqa: E402
from tests.support.service import InlineBots, make_service  # noqa: E402


def percentiles(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    return f"p50 {statistics.median(ms):.2f} ms, p99 {ms[int(len(ms) * 0.99) - 1]:.2f} ms"


def finished(players: list[str], winner: int) -> dict:
    """A finished rated 2-seat Mantis match between two accounts, as the reaction is given it."""
    return {"rated": True, "status": "finished", "game": "mantis", "options": {"edition": "classic"},
            "seats": [{"name": p[:8], "bot": None, "open": False, "account": p} for p in players],
            "clock": {"moved": [True, True]},
            "result": {"winners": [winner], "scores": {"0": 10 if winner == 0 else 5, "1": 10 if winner == 1 else 5}}}


def rate_and_read(url: str, players: int, ratings: int) -> None:
    client = redis.Redis.from_url(url, decode_responses=True)
    ladders = LadderService(RedisEventStore(client), RedisLeaderboardStore(client))
    pool = [uuid.uuid4().hex for _ in range(players)]
    rng = random.Random(7)
    timings = []
    for _ in range(ratings):
        pair = rng.sample(pool, 2)
        started = time.perf_counter()
        ladders.rate(uuid.uuid4().hex, finished(pair, rng.randrange(2)), "2026-01-01T00:00:00.000Z")
        timings.append(time.perf_counter() - started)
    board = ladders.leaderboard("mantis", None, 2, 0, 1, provisional=True)
    total = sum(board["totals"].values())
    print(f"rate: {ratings} ratings into a ladder of {total} players ({board['totals']}): {percentiles(timings)}; "
          f"last 1000: {percentiles(timings[-1000:])}")
    started = time.perf_counter()
    LadderService(RedisEventStore(client), RedisLeaderboardStore(client)).rate(
        uuid.uuid4().hex, finished(rng.sample(pool, 2), 0), "2026-01-01T00:00:00.000Z")
    print(f"rate: the first rating of a process that has not folded the ladder yet (its {ratings} events): "
          f"{time.perf_counter() - started:.2f} s; Redis holds {client.info('memory')['used_memory_human']}")
    for offset in (0, max(0, board["total"] - 100)):
        reads = []
        for _ in range(200):
            started = time.perf_counter()
            ladders.leaderboard("mantis", None, 2, offset, 50, provisional=True)
            reads.append(time.perf_counter() - started)
        print(f"read: a page of 50 at offset {offset}: {percentiles(reads)}")
    reads = []
    for player in rng.sample(pool, 200):
        started = time.perf_counter()
        ladders.ratings_of(player)
        reads.append(time.perf_counter() - started)
    print(f"read: one player's ratings with their history: {percentiles(reads)}")
    counted = _counted(RedisEventStore(client).read(ladder_key("mantis.classic.2p")))
    for which, index in (("the first", 0), ("the 100th from the end", len(counted) - 100)):
        started = time.perf_counter()
        _replayed("mantis.classic.2p", counted[:index] + counted[index + 1:])
        print(f"void: the replay a void of {which} of {len(counted)} rated matches computes: "
              f"{time.perf_counter() - started:.2f} s")
    client.flushdb()


def rebuild(url: str, matches: int) -> None:
    client = redis.Redis.from_url(url, decode_responses=True)
    store = RedisEventStore(client)
    ladders = LadderService(store, RedisLeaderboardStore(client))
    service = make_service(InlineBots(), store=store, ladders=ladders)
    seats = [[{"bot": "greedy"}, {"bot": "random"}], [{"bot": "random"}, {"bot": "greedy"}]]
    for i in range(matches):
        service.create("mantis", {}, seats[i % 2], clock_spec={"move_ms": 60_000}, rated=True)
    live = ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True)
    started = time.perf_counter()
    rebuilt = ladders.rebuild()
    elapsed = time.perf_counter() - started
    same = ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True) == live
    print(f"rebuild: {rebuilt['matches']} rated matches in {elapsed:.2f} s "
          f"({elapsed / rebuilt['matches'] * 1000:.2f} ms a match), the same table as live: {same}, "
          f"differences: {len(rebuilt['differences'])}")
    first = store.read(ladder_key("mantis.classic.2p"), upto=1)[0]["data"]["match"]
    started = time.perf_counter()
    ladders.void(first, "bench", "the first match")
    elapsed = time.perf_counter() - started
    voided = ladders.leaderboard("mantis", None, 2, 0, 10, provisional=True)
    again = ladders.rebuild()
    print(f"void: the first of {rebuilt['matches']} real matches voided in {elapsed:.2f} s; a rebuild after it: "
          f"differences {len(again['differences'])}, the same table: "
          f"{ladders.leaderboard('mantis', None, 2, 0, 10, provisional=True) == voided}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--ratings", type=int, default=5000)
    parser.add_argument("--real", type=int, default=200)
    args = parser.parse_args()
    with embedded_redis() as url:
        rate_and_read(url, args.players, args.ratings)
        rebuild(url, args.real)


if __name__ == "__main__":
    main()
