"""Bots as a service: the time from a human's move to the next bot move being appended, and all-bot matches
finished per minute, with `make run`'s default worker pool (one RQ worker per core) against one gunicorn.

Latency is read from the log itself (each stored event's server time), so polling does not blur it.
Usage: python bench/bot_service.py [--humans 6] [--matches 20] [--bots random,greedy,ismcts]
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import requests

from common import embedded_redis, free_port, median

GAMES = {"mantis": 3, "blockers": 2, "9stax": 2, "flipout": 2}


def start_service(redis_url, **settings):
    """`make run` on the given Redis; a bench drives it from one address, so no rate limits unless given."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "QUEUE": f"bench-{port}",
           "LIMIT_CREATE": "", "LIMIT_JOIN": "", "LIMIT_MOVES": "", "LIMIT_CHALLENGES": "", "LIMIT_READS": "",
           **settings}
    process = subprocess.Popen([sys.executable, "-m", "bootstrap.run"], env=env, cwd=Path(__file__).parents[1],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            requests.get(f"{base}/health", timeout=2)
            return process, base
        except requests.RequestException:
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.2)


def when(event):
    return datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp()


def human_against_bot(base, game, bot, seed):
    """One human (seat 0) against bots; returns the human->bot delays seen in the log."""
    seats = [{"name": "human"}] + [{"bot": bot}] * (GAMES[game] - 1)
    created = requests.post(f"{base}/v1/matches", json={"game": game, "seats": seats, "seed": seed}).json()
    token, match_id = created["seats"][0]["token"], created["id"]
    moves, deadline = 0, time.monotonic() + 60
    while moves < 15 and time.monotonic() < deadline:
        legal = requests.get(f"{base}/v1/matches/{match_id}/legal-moves",
                             headers={"Authorization": f"Bearer {token}"}).json()
        if legal["moves"]:
            requests.post(f"{base}/v1/matches/{match_id}/moves", headers={"Authorization": f"Bearer {token}"},
                          json={"move": legal["moves"][0], "expected_version": legal["version"]})
            moves += 1
        elif requests.get(f"{base}/v1/matches/{match_id}").json()["status"] == "finished":
            break
        else:
            time.sleep(0.01)
    time.sleep(1)
    log = [e for e in requests.get(f"{base}/v1/matches/{match_id}/events").json()["events"] if e["type"] == "moved"]
    return [when(b) - when(a) for a, b in zip(log, log[1:]) if a["data"]["seat"] == 0 and b["data"]["seat"] != 0]


def bots_only(base, game, bot, count):
    """`count` all-bot matches created at once: matches finished per minute."""
    start = time.monotonic()
    ids = [requests.post(f"{base}/v1/matches", json={"game": game, "seats": [{"bot": bot}] * GAMES[game],
                                                     "seed": f"bots-{i}"}).json()["id"] for i in range(count)]
    pending = set(ids)
    while pending and time.monotonic() - start < 600:
        pending = {i for i in pending if requests.get(f"{base}/v1/matches/{i}").json()["status"] != "finished"}
        time.sleep(0.2)
    return (count - len(pending)) / ((time.monotonic() - start) / 60)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--humans", type=int, default=6, help="human-vs-bot matches per game and bot")
    parser.add_argument("--matches", type=int, default=20, help="all-bot matches per game and bot")
    parser.add_argument("--bots", default="random,greedy,ismcts")
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args()
    print(f"workers: {os.cpu_count()} (one per core, the default); seats: {GAMES}")
    print("| game | bot | human->bot median ms | p95 ms | moves measured | all-bot matches/min |")
    print("|---|---|---|---|---|---|")
    with embedded_redis() as redis_url:
        process, base = start_service(redis_url)
        try:
            for game in args.games.split(","):
                for bot in args.bots.split(","):
                    delays = []
                    threads = [threading.Thread(target=lambda i=i: delays.extend(
                        human_against_bot(base, game, bot, f"latency-{i}"))) for i in range(args.humans)]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                    delays.sort()
                    rate = bots_only(base, game, bot, args.matches)
                    p95 = delays[int(len(delays) * 0.95)] if delays else float("nan")
                    print(f"| {game} | {bot} | {median(delays) * 1000:.0f} | {p95 * 1000:.0f} | {len(delays)} "
                          f"| {rate:.1f} |", flush=True)
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
