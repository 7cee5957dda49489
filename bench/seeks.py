"""Seeks under load: `--bots` bot accounts (200) seeking two-seat matches of one game against the whole service
(`python -m bootstrap.run` as `make run` starts it: gunicorn, 2 RQ workers with their janitors, RQ's scheduler, on an
embedded Redis) for `--seconds`. Each bot holds its feed open, seeks, waits for `match_started` on its feed, resigns
at once (the pairing is measured, not the play) and seeks again. At the end each bot cancels its open seek, and
every seek opened is read back.

Prints: the time from POST /v1/seeks to the feed's match_started (p50, p99, max) and, from the seeks' own times,
from opening to pairing; matches formed per second; the seeks by how they ended (paired, canceled, expired: none
may be left open or lost). The feed is woken by the account's index of matches (FEED_POLL, 1 s, only a fallback).
Usage: python bench/seeks.py [--bots 200] [--seconds 60] [--game flipout]
"""
import argparse
import threading
import time
import uuid
from collections import Counter
from datetime import datetime

import requests

from clocks import whole_service
from common import embedded_redis, median
from cli.bot import Client, HttpError

DRAIN_SECONDS = 15  # after the run: time for the last pairings' feeds to tell, and the cancellations to land


class SeekingBot:
    def __init__(self, base: str, key: str, game: str):
        self.client = Client(base, key)
        self.game = game
        self.seeks: list[str] = []
        self.waits: list[float] = []
        self.matches: set[str] = set()
        self.stopping = threading.Event()
        self.position: int | None = None
        self.feed_ends = 0
        self.last_started = 0.0
        self.frames = self.client.feed(None)

    def run(self, deadline: float) -> None:
        try:
            self._seek_until(deadline)
        except (HttpError, OSError):
            if time.monotonic() < deadline + DRAIN_SECONDS:
                raise  # a failure during the run; after it, the service is being stopped under a bot left waiting

    def _seek_until(self, deadline: float) -> None:
        self._until("synced")
        while time.monotonic() < deadline:
            started = time.monotonic()
            self.seeks.append(self.client.call("POST", "/v1/seeks", {"game": self.game, "players": 2})["id"])
            frame = self._until("match_started")
            self.waits.append(time.monotonic() - started)
            self.last_started = time.monotonic()
            self.matches.add(frame["match"])
            try:
                self.client.call("POST", f"/v1/matches/{frame['match']}/resign")
            except HttpError as error:
                if error.status != 409:  # 409: the other seat resigned first, the match is over
                    raise
        self.stopping.set()

    def _until(self, kind: str) -> dict:
        """The next frame of `kind`; a feed that ends (a web worker restarted) is resumed after its last position."""
        while True:
            for frame in self.frames:
                self.position = frame["position"]
                if frame["type"] == kind:
                    return frame
            self.feed_ends += 1
            self.frames = self.client.feed(self.position)

    def cancel_open(self) -> None:
        """Cancels its last seek if it is still open (paired meanwhile: 409, and it stays paired)."""
        if self.seeks:
            try:
                self.client.call("DELETE", f"/v1/seeks/{self.seeks[-1]}")
            except HttpError as error:
                if error.status != 409:
                    raise


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--game", default="flipout")
    args = parser.parse_args()
    # every bot connects from 127.0.0.1, and holds its feed open: no cap on one address's connections
    with embedded_redis() as redis_url, whole_service(redis_url, MAX_CONNECTIONS_PER_ADDRESS="0") as base:
        keys = [requests.post(f"{base}/v1/accounts", json={"name": f"s{uuid.uuid4().hex[:12]}", "kind": "bot"}).json()[
            "api_key"] for _ in range(args.bots)]
        bots = [SeekingBot(base, key, args.game) for key in keys]
        began = time.monotonic()
        threads = [threading.Thread(target=bot.run, args=(began + args.seconds,), daemon=True) for bot in bots]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=args.seconds + DRAIN_SECONDS + began - time.monotonic())
        elapsed = time.monotonic() - began
        for bot in bots:
            bot.cancel_open()
        time.sleep(2)
        read = [requests.get(f"{base}/v1/seeks/{seek_id}").json() for bot in bots for seek_id in bot.seeks]
        created = {seek["match"]: seconds(requests.get(f"{base}/v1/matches/{seek['match']}/events?limit=1").json()[
            "events"][0]["time"]) for seek in read if seek.get("status") == "paired"}
    ended = Counter(seek.get("status", "lost") for seek in read)
    was_paired = [seek for seek in read if seek.get("status") == "paired"]
    paired = [seconds(seek["closed_at"]) - seconds(seek["opened_at"]) for seek in was_paired]
    to_created = [created[seek["match"]] - seconds(seek["closed_at"]) for seek in was_paired]
    waits = [wait for bot in bots for wait in bot.waits]
    matches = set().union(*(bot.matches for bot in bots))
    forming = max(bot.last_started for bot in bots) - began  # the drain of the odd bot out at the end not counted
    still = sum(not bot.stopping.is_set() for bot in bots)
    print(f"{args.bots} bots seeking {args.game} for {args.seconds:.0f} s ({elapsed:.0f} s with the last pairings)")
    print(f"seeks opened {sum(ended.values())}, ended: {dict(ended)}; bots still waiting at the end: {still}; "
          f"feeds resumed: {sum(bot.feed_ends for bot in bots)}")
    print(f"seek -> match_started: p50 {median(waits):.2f} s, p99 {percentile(waits, 0.99):.2f} s, "
          f"max {max(waits):.2f} s over {len(waits)} pairings seen")
    print(f"seek opened -> paired in the pool (the server's clocks): p50 {median(paired):.2f} s, "
          f"p99 {percentile(paired, 0.99):.2f} s, max {max(paired):.2f} s")
    print(f"paired -> match created (its first event's time): p50 {median(to_created):.2f} s, "
          f"p99 {percentile(to_created, 0.99):.2f} s, max {max(to_created):.2f} s")
    print(f"matches formed: {len(matches)} in {forming:.0f} s, {len(matches) / forming:.1f} per second")


if __name__ == "__main__":
    main()
