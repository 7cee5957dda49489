"""Moves per second over HTTP against the same gunicorn serving a bare endpoint, side by side.

Rounds alternate (bare, moves, bare, moves, ...) so a noisy neighbour hits both alike; the result is the
median of the rounds' own ratios, each taken from a bare run and the moves run right after it, since the
machine's speed drifts between rounds (the ratio of the medians, which compares different moments, is printed
too). Each client thread plays its own two-seat Mantis match (a new one when it ends;
creating matches is not counted). Aim: moves/s >= 0.7 x bare requests/s. The same moves sent
with the seats' accounts' keys instead of seat tokens are measured in the same rounds (a key is
looked up once per request), and the same moves over the play socket (docs/play-socket.md: one WebSocket a
client thread, each move a message), whose ratio to the bare requests is printed apart: it compares a move
without its HTTP to an HTTP request.
The bare requests and the moves also print what each cost in CPU: this process (the clients) and the server
(gunicorn's workers and Redis). The clients are Python threads in one process, which cannot use more than one
core: where they use about a whole one, the rate measures the client rather than the server.
Usage: python bench/http_moves.py [--seconds 4] [--rounds 3] [--clients 8] [--workers 4]
"""
import argparse
import threading
import time

import psutil
import redis
import requests

from common import (NO_RATE_LIMITS, embedded_redis, gunicorn, measure, measure_cpu, median, play_two_seat_matches,
                    serving)


def bare_client(base, stop, counter):
    session = requests.Session()
    while not stop.is_set():
        session.get(f"{base}/bench/bare").raise_for_status()
        counter.append(1)


def key_move_client(base, stop, counter):
    play_two_seat_matches(base, stop, counter, by_account=True)


def socket_move_client(base, stop, counter):
    play_two_seat_matches(base, stop, counter, socket=True)


def redis_calls_per_move(redis_url, client, base, moves=200) -> float:
    """Redis commands per move (INFO commandstats), one client alone: an outcome the machine's load cannot move."""
    server = redis.Redis.from_url(redis_url)

    def calls():
        return sum(stats["calls"] for stats in server.info("commandstats").values())

    stop, counter = threading.Event(), []
    worker = threading.Thread(target=client, args=(base, stop, counter))
    before = calls()
    worker.start()
    while len(counter) < moves:
        time.sleep(0.01)
    stop.set()
    worker.join()
    # creating matches and accounts is counted too: both clients create one two-seat Mantis match per ~30 moves
    return (calls() - before - 1) / len(counter)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    # the moves' limiter runs, as in production (it is where a key is first looked up), at a limit never reached
    settings = {**NO_RATE_LIMITS, "LIMIT_MOVES": "1000000/second"}
    with embedded_redis() as redis_url, gunicorn("bench.bare_app:app", redis_url, args.workers,
                                                 settings=settings) as base:
        server = serving(psutil.Process(), ("bench.bare_app", "redis-server"))
        watched = {"client": [psutil.Process()], "server": server}
        bare, moves, keyed, socket, bare_cpu, move_cpu = [], [], [], [], [], []
        for _ in range(args.rounds):
            rate, cpu = measure_cpu(bare_client, base, args.clients, args.seconds, watched)
            bare.append(rate)
            bare_cpu.append(cpu)
            rate, cpu = measure_cpu(play_two_seat_matches, base, args.clients, args.seconds, watched)
            moves.append(rate)
            move_cpu.append(cpu)
            keyed.append(measure(key_move_client, base, args.clients, args.seconds))
            socket.append(measure(socket_move_client, base, args.clients, args.seconds))
        token_calls = redis_calls_per_move(redis_url, play_two_seat_matches, base)
        key_calls = redis_calls_per_move(redis_url, key_move_client, base)
    print(f"gunicorn workers={args.workers}, clients={args.clients}, {args.rounds} rounds of {args.seconds}s")
    print(f"{'round':>5} {'bare req/s':>11} {'moves/s':>9} {'ratio':>6} {'key moves/s':>12} {'token/key':>10} "
          f"{'socket moves/s':>15} {'socket/bare':>12}")
    for i, (b, m, k, s) in enumerate(zip(bare, moves, keyed, socket), start=1):
        print(f"{i:>5} {b:>11.0f} {m:>9.0f} {m / b:>6.2f} {k:>12.0f} {m / k:>10.2f} {s:>15.0f} {s / b:>12.2f}")
    print(f"median: bare {median(bare):.0f} req/s, moves {median(moves):.0f}/s, ratio "
          f"{median([m / b for b, m in zip(bare, moves)]):.2f} (aim >= 0.70; the rounds' ratios' median; the medians' "
          f"ratio {median(moves) / median(bare):.2f}); moves with account keys "
          f"{median(keyed):.0f}/s: a move with a key costs {median(moves) / median(keyed):.2f}x one with a token; "
          f"over the play socket {median(socket):.0f} moves/s, {median(socket) / median(bare):.2f}x the bare requests")
    print(f"Redis commands per move (matches created included): {token_calls:.2f} with seat tokens, "
          f"{key_calls:.2f} with account keys")
    print_cpu("bare request", bare, bare_cpu)
    print_cpu("move", moves, move_cpu)


def print_cpu(what: str, rates: list[float], costs: list[dict[str, float]]):
    """The medians of a kind of request's CPU, and how much of a core the clients' one process used for it."""
    client, server = (median([cost[group] for cost in costs]) for group in ("client", "server"))
    print(f"CPU a {what} (µs, medians): client {client:.0f}, server {server:.0f} (gunicorn workers and Redis); "
          f"the clients' process used {median(rates) * client / 1e6:.2f} of a core")


if __name__ == "__main__":
    main()
