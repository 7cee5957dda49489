"""Turn clocks under load, on the whole service (`python -m bootstrap.run`: gunicorn, RQ workers, RQ's scheduler).

1. Lateness: `--matches` two-seat Mantis matches on a clock of `--move-ms` whose seats stop moving after their
   first moves, so every turn of every match times out, while `--clients` threads play unclocked matches over
   HTTP (the move load). A timeout's lateness is its turn_timed_out's time minus its deadline (the turn began
   with the event before it). Aim: p99 under 1 s.
2. The move path: moves/s of clients playing clocked matches (limits never reached: every move schedules a
   timer) against unclocked ones, in alternating rounds on the same server; the ratio is the cost.
Usage: python bench/clocks.py [--matches 200] [--move-ms 1000] [--seconds 20] [--clients 4] [--rounds 3]
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import requests

from common import NO_RATE_LIMITS, embedded_redis, measure, median, percentile, play_two_seat_matches
from bootstrap.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[1]
GENEROUS = {"move_ms": 600_000, "first_move_ms": 600_000}


@contextmanager
def whole_service(redis_url: str, **settings: str):
    """`settings`: more environment for bootstrap/config.py."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="cardroom-bench-clocks-")
    env = {**os.environ, **NO_RATE_LIMITS, "REDIS_URL": redis_url, "PORT": str(port), "DATA_DIR": data,
           "WORKERS": "2", "WEB_CONCURRENCY": "2", "PYTHONPATH": str(ROOT), **settings}
    process = subprocess.Popen([sys.executable, "-m", "bootstrap.run"], env=env, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(f"{base}/health", timeout=2).status_code == 200:
                break
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.2)
    try:
        yield base
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def first_moves(session, base, created):
    """Both seats make their first move; from then on neither moves again."""
    tokens = [seat["token"] for seat in created["seats"]]
    version, turn = created["version"], created["to_act"]
    for _ in range(2):
        answer = session.post(f"{base}/v1/matches/{created['id']}/moves",
                              headers={"Authorization": f"Bearer {tokens[turn[0]]}"},
                              json={"move": {"action": "score"}, "expected_version": version}).json()
        version, turn = answer["version"], answer["to_act"]


def idle_match(base, move_ms):
    session = requests.Session()
    created = session.post(f"{base}/v1/matches", json={
        "game": "mantis", "seats": [{"name": "a"}, {"name": "b"}],
        "clock": {"move_ms": move_ms, "first_move_ms": 600_000, "zombie_after": 0}}).json()
    first_moves(session, base, created)
    return created["id"], created["seats"][0]["token"]


def lateness(base, match_id, move_ms):
    events = requests.get(f"{base}/v1/matches/{match_id}/events?limit=1000").json()["events"]
    return [seconds(e["time"]) - (seconds(events[i - 1]["time"]) + move_ms / 1000)
            for i, e in enumerate(events) if e["type"] == "turn_timed_out"]


def load(base, clients, seconds_, clock=None):
    return measure(lambda base_, stop, counter: play_two_seat_matches(base_, stop, counter, clock), base, clients,
                   seconds_)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--move-ms", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--round-seconds", type=float, default=4)
    args = parser.parse_args()
    with embedded_redis() as redis_url, whole_service(redis_url) as base:
        with ThreadPoolExecutor(16) as pool:
            idle = list(pool.map(lambda _: idle_match(base, args.move_ms), range(args.matches)))
        moves = load(base, args.clients, args.seconds)  # the timers fire meanwhile
        with ThreadPoolExecutor(16) as pool:  # resigning ends them, so that their timers leave part 2 alone
            late = [value for found in pool.map(lambda m: lateness(base, m[0], args.move_ms), idle) for value in found]
            list(pool.map(lambda m: requests.post(f"{base}/v1/matches/{m[0]}/resign",
                                                  headers={"Authorization": f"Bearer {m[1]}"}), idle))
        plain, clocked = [], []
        for _ in range(args.rounds):
            plain.append(load(base, args.clients, args.round_seconds))
            clocked.append(load(base, args.clients, args.round_seconds, GENEROUS))
    print(f"1. {args.matches} matches timing out every {args.move_ms} ms for {args.seconds:.0f} s under "
          f"{moves:.0f} moves/s from {args.clients} clients: {len(late)} timeouts")
    print(f"   lateness after the deadline: p50 {percentile(late, 0.5) * 1000:.0f} ms, "
          f"p99 {percentile(late, 0.99) * 1000:.0f} ms, max {max(late) * 1000:.0f} ms (aim p99 < 1000 ms)")
    print(f"2. moves/s over HTTP, {args.clients} clients, {args.rounds} alternating rounds of {args.round_seconds}s")
    print(f"{'round':>5} {'no clock':>9} {'clock':>7} {'ratio':>6}")
    for i, (p, c) in enumerate(zip(plain, clocked), start=1):
        print(f"{i:>5} {p:>9.0f} {c:>7.0f} {c / p:>6.2f}")
    print(f"median: no clock {median(plain):.0f}/s, clock {median(clocked):.0f}/s, "
          f"ratio {median(clocked) / median(plain):.2f}")


if __name__ == "__main__":
    main()
