"""A sustained mixed load against `make run` (gunicorn + RQ workers on an embedded Redis, loopback only):
humans playing bots, all-bot matches, listings and reads, for a bounded time, twice side by side:
    A  the mix alone
    B  the same mix plus one all-bot match of searching bots at a long budget (ismcts, --long-ms per turn)
Every --sample seconds it prints Redis's memory, its key count, the RQ job records, and the RSS of every
process `make run` started. Then: how long a human waited for a bot in A and in B (read from the log's own
times: one long match must not hold every worker), and what a finished match keeps in Redis, key by key
(MEMORY USAGE), with what expires and when.
The rate limits are on (generous: the bench is one address) so their counters are part of the cost.
Usage: python bench/mixed_load.py [--seconds 60] [--players 3] [--bot-every 3] [--long-ms 3000] [--sample 10]
"""
import argparse
import itertools
import os
import random
import signal
import threading
import time
from pathlib import Path

import redis
import requests

from bot_service import start_service, when
from common import embedded_redis, median

BOT_MATCHES = [("mantis", [{"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}]),
               ("blockers", [{"bot": "greedy"}, {"bot": "random"}]),
               ("9stax", [{"bot": "random"}, {"bot": "greedy"}])]
GENEROUS = "1000/second"


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


class Load:
    """The clients: each a thread with its own session, until `stop` is set."""

    def __init__(self, base: str):
        self.base, self.stop = base, threading.Event()
        self.requests, self.refused, self.lock = 0, 0, threading.Lock()
        self.human_matches, self.long_matches = [], []

    def call(self, session, method, path, **kwargs):
        response = session.request(method, self.base + path, timeout=30, **kwargs)
        with self.lock:
            self.requests += 1
            self.refused += response.status_code >= 500 or response.status_code == 429
        return response

    def player(self, seed: int):
        """A human against two greedy bots, match after match: reads the table, asks, moves."""
        session, pick = requests.Session(), random.Random(seed)
        while not self.stop.is_set():
            created = self.call(session, "POST", "/v1/matches", json={
                "game": "mantis", "seats": [{"name": "human"}, {"bot": "greedy"}, {"bot": "greedy"}]}).json()
            match_id, token = created["id"], created["seats"][0]["token"]
            with self.lock:
                self.human_matches.append(match_id)
            while not self.stop.is_set():
                current = self.call(session, "GET", f"/v1/matches/{match_id}", headers=bearer(token)).json()
                if current["status"] == "finished":
                    break
                if 0 not in current["to_act"]:
                    time.sleep(0.02)
                    continue
                legal = self.call(session, "GET", f"/v1/matches/{match_id}/legal-moves", headers=bearer(token)).json()
                self.call(session, "POST", f"/v1/matches/{match_id}/moves", headers=bearer(token),
                          json={"move": pick.choice(legal["moves"]), "expected_version": legal["version"]})

    def bot_matches(self, every: float):
        session = requests.Session()
        for game, seats in itertools.cycle(BOT_MATCHES):
            if self.stop.wait(every):
                return
            self.call(session, "POST", "/v1/matches", json={"game": game, "seats": seats})

    def reader(self, every: float):
        """A lobby: the open tables, the finished matches, the catalog, and a finished match's log."""
        session = requests.Session()
        while not self.stop.wait(every):
            self.call(session, "GET", "/v1/matches?status=waiting&limit=20")
            finished = self.call(session, "GET", "/v1/matches?status=finished&limit=20").json()["matches"]
            self.call(session, "GET", "/v1/games")
            if finished:
                self.call(session, "GET", f"/v1/matches/{finished[0]['id']}/events")

    def long_search(self, budget_ms: int):
        """One all-bot match of searching bots at a long budget, again whenever it ends."""
        session = requests.Session()
        seats = [{"bot": "ismcts", "bot_options": {"budget_ms": budget_ms, "iterations": 100_000}}] * 2
        while not self.stop.is_set():
            match_id = self.call(session, "POST", "/v1/matches", json={"game": "mantis", "seats": seats}).json()["id"]
            self.long_matches.append(match_id)
            while not self.stop.wait(0.5):
                if self.call(session, "GET", f"/v1/matches/{match_id}").json()["status"] == "finished":
                    break


def rss_mb(root: int) -> float:
    """The resident memory of `root` and every process under it."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue  # a process that ended while we looked
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    total = 0
    for pid in tree:
        try:
            total += int(next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                              if line.startswith("VmRSS")).split()[1])
        except (OSError, StopIteration):
            continue
    return total / 1024


def sample(client, root: int, load: Load, started: float) -> str:
    memory = client.info("memory")
    jobs = sum(1 for _ in client.scan_iter("rq:job:*", count=1000))
    limits = sum(1 for _ in client.scan_iter("LIMITS*", count=1000))
    return (f"| {time.monotonic() - started:.0f} | {memory['used_memory'] / 2**20:.1f} | "
            f"{memory['used_memory_rss'] / 2**20:.1f} | {client.dbsize()} | {jobs} | {limits} | {rss_mb(root):.0f} | "
            f"{load.requests} | {load.refused} | {len(load.human_matches)} |")


def moves_of(base: str, match_id: str) -> list[dict]:
    return [e for e in requests.get(f"{base}/v1/matches/{match_id}/events").json()["events"] if e["type"] == "moved"]


def human_waits(base: str, match_ids: list[str]) -> list[float]:
    """Seconds from each human move to the bot move after it, from the stored events' times."""
    waits = []
    for match_id in match_ids:
        log = moves_of(base, match_id)
        waits += [when(b) - when(a) for a, b in zip(log, log[1:]) if a["data"]["seat"] == 0 and b["data"]["seat"]]
    return sorted(waits)


def run_phase(name, base, client, root, args, long_search: bool) -> tuple[list[float], float]:
    """The human waits, and the share of all workers' time the long search held."""
    load = Load(base)
    threads = [threading.Thread(target=load.player, args=(i,)) for i in range(args.players)]
    threads += [threading.Thread(target=load.bot_matches, args=(args.bot_every,)),
                threading.Thread(target=load.reader, args=(0.2,))]
    if long_search:
        threads.append(threading.Thread(target=load.long_search, args=(args.long_ms,)))
    print(f"\n{name}: {args.players} humans against greedy bots, an all-bot match every {args.bot_every} s, a lobby reading 5 "
          f"times a second{f', one ismcts match at {args.long_ms} ms a turn' if long_search else ''}")
    print("| s | Redis used MB | Redis RSS MB | keys | RQ job records | rate-limit counters | service RSS MB "
          "| requests | 429/5xx | human matches |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    started = time.monotonic()
    for thread in threads:
        thread.start()
    while time.monotonic() - started < args.seconds:
        time.sleep(args.sample)
        print(sample(client, root, load, started), flush=True)
    load.stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    searched = sum(len(moves_of(base, m)) for m in load.long_matches) * args.long_ms / 1000
    return human_waits(base, load.human_matches), searched / (elapsed * args.workers)


def retention(client) -> None:
    """What each finished match keeps, key by key, and what expires."""
    finished = [m for m in client.zrange("cr:matches:status:finished", 0, -1)][:200]
    sizes = {suffix: [] for suffix in ("events", "meta", "snaps", "idem")}
    ttls = {suffix: set() for suffix in sizes}
    events = []
    for match_id in finished:
        for suffix in sizes:
            key = f"cr:{{m:{match_id}}}:{suffix}"
            if client.exists(key):
                sizes[suffix].append(client.memory_usage(key, samples=0))
                ttls[suffix].add("expires" if client.ttl(key) > 0 else "kept")
        events.append(client.xlen(f"cr:{{m:{match_id}}}:events"))
    jobs = [key for key in client.scan_iter("rq:job:bot-*", count=1000)]
    job_sizes = [client.memory_usage(key, samples=0) for key in jobs[:500]]
    job_ttls = sorted({client.ttl(key) for key in jobs[:500]})
    families = {}
    for key in client.scan_iter(count=1000):
        family = ("cr:{m:*}" if key.startswith("cr:{m:") else "LIMITS*" if key.startswith("LIMITS")
                  else ":".join(key.split(":")[:2]))
        families[family] = families.get(family, 0) + 1
    print(f"\nRetention: {len(finished)} finished matches measured ({median(events)} events median)")
    print("| key | matches that have it | bytes median | bytes max | fate |")
    print("|---|---|---|---|---|")
    for suffix, found in sizes.items():
        if found:
            print(f"| :{suffix} | {len(found)} | {median(found)} | {max(found)} | {', '.join(sorted(ttls[suffix]))} |")
    if job_sizes:
        print(f"| rq:job:bot-* | {len(jobs)} records now | {median(job_sizes)} | {max(job_sizes)} | "
              f"TTL {job_ttls[0]}..{job_ttls[-1]} s |")
    print(f"| cr:bots:awaited (janitor) | {client.zcard('cr:bots:awaited')} entries | | | released after the bot plays |")
    print("keys by family:", ", ".join(f"{family} {count}" for family, count in sorted(families.items())))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=60, help="length of each phase")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--long-ms", type=int, default=3000)
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--bot-every", type=float, default=3.0, help="seconds between all-bot matches created")
    args = parser.parse_args()
    args.workers = os.cpu_count() or 1
    print(f"{args.workers} cores; make run's defaults (one RQ worker per core, two gunicorn workers per core)")
    with embedded_redis() as url:
        process, base = start_service(url, LIMIT_CREATE=GENEROUS, LIMIT_JOIN=GENEROUS, LIMIT_MOVES=GENEROUS,
                                      LIMIT_READS=GENEROUS)
        client = redis.Redis.from_url(url, decode_responses=True)
        try:
            alone, _ = run_phase("A", base, client, process.pid, args, long_search=False)
            beside, held = run_phase("B", base, client, process.pid, args, long_search=True)
            print(f"\nThe long search held {held:.0%} of the {args.workers} workers' time in B "
                  f"(at most 1/{args.workers}: one match, one worker)")
            print("| human waits for a bot | moves | median ms | p95 ms | max ms |")
            print("|---|---|---|---|---|")
            for name, waits in (("A: the mix", alone), (f"B: + a {args.long_ms} ms search", beside)):
                if waits:
                    print(f"| {name} | {len(waits)} | {median(waits) * 1000:.0f} | "
                          f"{waits[int(len(waits) * 0.95)] * 1000:.0f} | {waits[-1] * 1000:.0f} |")
            retention(client)
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
