"""How to serve on 2 cores: gunicorn worker class and count, and the snapshot cadence (SNAPSHOT_EVERY),
side by side in one run, by the moves/s of random 3-seat Mantis matches.

Every set-up is a gunicorn of its own on one embedded Redis (the project's gunicorn settings, rate limits
off), all started before the first round; rounds alternate between them so noise hits all alike. The two
clients of bench/peer.py's benchmark (bench/cardroom_client.js over Node's http module): the one that learns
each result from the move's answer (one request a move) and the read-then-post one (two). The sync worker is left out: it serves one connection at a time
and closes it after each answer, and the streams (GET .../stream) hold a connection for minutes.
No node: a message and exit 0, as bench/peer.py.
Usage: python bench/serving.py [--matches 20] [--concurrency 8 32] [--rounds 2]
"""
import argparse
import os
import shutil
import sys
from contextlib import ExitStack

from common import NO_RATE_LIMITS, embedded_redis, gunicorn, median
from peer import HERE, PLAYERS, play

CORES = os.cpu_count() or 1
# (label, workers, gunicorn options, settings); the first is the project's default as this bench found it
SETUPS = [
    ("gevent x4, snapshots every 25", 2 * CORES, (), {}),
    ("gevent x1", 1, (), {}),
    ("gevent x2", CORES, (), {}),
    ("gevent x3", CORES + 1, (), {}),
    ("gthread x2, 8 threads", CORES, ("--worker-class", "gthread", "--threads", "8"), {}),
    ("gevent x4, snapshots every 10", 2 * CORES, (), {"SNAPSHOT_EVERY": "10"}),
    ("gevent x4, snapshots every 100", 2 * CORES, (), {"SNAPSHOT_EVERY": "100"}),
    ("gevent x4, snapshots every 1000", 2 * CORES, (), {"SNAPSHOT_EVERY": "1000"}),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=20, help="matches per client run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not shutil.which("node"):
        print("serving.py: skipped, node is needed for the clients (install Node.js 18+)")
        return
    clients = {"move's answer": {"MODE": "answers"}, "read then post": {"MODE": "read-then-post"}}
    rates = {}
    with embedded_redis() as redis_url, ExitStack() as servers:
        ports = {label: servers.enter_context(gunicorn("bootstrap.wsgi:app", redis_url, workers, options,
                                                       settings={**NO_RATE_LIMITS, **settings})).rsplit(":", 1)[1]
                 for label, workers, options, settings in SETUPS}
        for _ in range(args.rounds):
            for concurrency in args.concurrency:
                for label in ports:
                    for client, mode in clients.items():
                        run = ["node", str(HERE / "cardroom_client.js"), str(args.matches), str(concurrency),
                               str(PLAYERS)]
                        rates.setdefault((label, concurrency, client), []).append(
                            play(run, HERE, {"PORT": ports[label], **mode})[0])
    print(f"random {PLAYERS}-seat Mantis, {args.matches} matches a run, {args.rounds} rounds alternating, "
          f"{CORES} cores; load average {os.getloadavg()[0]:.2f}")
    print(f"{'set-up':<32} {'matches':>7} {'client':<15} {'moves/s':>8} {'x first':>8}")
    for concurrency in args.concurrency:
        for client in clients:
            first = median(rates[SETUPS[0][0], concurrency, client])
            for label, *_ in SETUPS:
                rate = median(rates[label, concurrency, client])
                print(f"{label:<32} {concurrency:>7} {client:<15} {rate:>8.0f} {rate / first:>8.2f}")


if __name__ == "__main__":
    sys.exit(main())
