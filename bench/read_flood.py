"""Another client's create + move while one address floods the server with reads, before (a commit, default main)
and after (the working tree), side by side in one run, each served by gunicorn as `make run` serves it (gevent,
`--workers` processes) on its own embedded Redis, with the default read limit and no write limits (the measured
client creates a match and moves 10 times a second, past LIMIT_CREATE's minute; the bench measures the reads').

  quiet   the client (from 127.0.0.2) alone
  flood   the same while 127.0.0.1 loops `--flood` on `--connections` keep-alive connections: the issue's
          GET /v1/matches?limit=100 (`listing`, 100 matches listed), or GET /openapi.json (`openapi`)

For each: the client's create + move in ms (p50, p99, max), what the flood got a second (by status), and the CPU
the server (its gunicorn workers and Redis) used a second, which depends far less on what else runs on the machine
than the latencies do.
Usage: python bench/read_flood.py [BEFORE=main] [--flood listing|openapi] [--seconds 60] [--quiet 10] [--rounds 1]
                                  [--connections 50] [--workers 4]
"""
import argparse
import http.client
import json
import multiprocessing
import os
import statistics
import tempfile
import threading
import time
from collections import Counter
from contextlib import ExitStack

import psutil

from common import NO_RATE_LIMITS, embedded_redis, gunicorn, processes_cpu, serving
from trees import source_tree

FLOODS = {"listing": "/v1/matches?limit=100", "openapi": "/openapi.json"}
TWO_HUMANS = json.dumps({"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]})
CLIENT_ADDRESS = "127.0.0.2"  # the measured client's: the flood's 127.0.0.1 is limited, not it
PAIRS_A_SECOND = 10


def call(connection: http.client.HTTPConnection, method: str, path: str, body: str | None = None,
         token: str | None = None, **headers: str) -> tuple[int, bytes]:
    headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    return answer.status, answer.read()


def create_and_move(connection: http.client.HTTPConnection) -> None:
    status, body = call(connection, "POST", "/v1/matches", TWO_HUMANS)
    created = json.loads(body)
    assert status == 201, created
    status, body = call(connection, "POST", f"/v1/matches/{created['id']}/moves",
                        json.dumps({"move": {"action": "score"}, "expected_version": created["version"]}),
                        created["seats"][created["to_act"][0]]["token"])
    assert status == 201, body


def client_pairs(port: int, seconds: float) -> list[float]:
    """Milliseconds of each create + move, one started every 1/PAIRS_A_SECOND s (at once when the last was late)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(CLIENT_ADDRESS, 0))
    timings, start = [], time.monotonic()
    while (now := time.monotonic()) < start + seconds:
        create_and_move(connection)
        timings.append(1000 * (time.monotonic() - now))
        time.sleep(max(0.0, now + 1 / PAIRS_A_SECOND - time.monotonic()))
    connection.close()
    return timings


def flood(port: int, path: str, connections: int, stop, answers) -> None:
    """A process of `connections` threads, each looping `path` on its own keep-alive connection; puts the answers
    by status on `answers` once `stop` is set."""
    counted: Counter = Counter()
    lock = threading.Lock()

    def loop():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine: Counter = Counter()
        while not stop.is_set():
            try:
                mine[call(connection, "GET", path, **{"Accept-Encoding": "gzip"})[0]] += 1
            except (OSError, http.client.HTTPException):
                mine["error"] += 1
                connection.close()
        with lock:
            counted.update(mine)

    threads = [threading.Thread(target=loop) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answers.put(dict(counted))


def phase(port: int, server: list[psutil.Process], seconds: float, path: str | None,
          connections: int) -> tuple[list[float], dict]:
    """The client's timings over `seconds`, with the flood of `path` alongside (None: quiet), and a second: the
    flood's answers by status and the `server` processes' CPU seconds ("cpu")."""
    used = processes_cpu(server)
    if path is None:
        timings = client_pairs(port, seconds)
        return timings, {"cpu": (processes_cpu(server) - used) / seconds}
    stop, answers = multiprocessing.Event(), multiprocessing.Queue()
    flooder = multiprocessing.Process(target=flood, args=(port, path, connections, stop, answers))
    flooder.start()
    try:
        time.sleep(1)  # the flood's connections open
        timings = client_pairs(port, seconds)
    finally:
        stop.set()
    used = processes_cpu(server) - used
    counted = answers.get(timeout=120)
    flooder.join()
    return timings, {"cpu": used / (seconds + 1),
                     **{status: count / (seconds + 1) for status, count in counted.items()}}


def figures(timings: list[float]) -> str:
    cuts = statistics.quantiles(timings, n=100, method="inclusive")
    return f"p50 {cuts[49]:7.0f} ms  p99 {cuts[98]:7.0f} ms  max {max(timings):7.0f} ms  ({len(timings)} pairs)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before", nargs="?", default="main")
    parser.add_argument("--flood", choices=FLOODS, default="listing")
    parser.add_argument("--seconds", type=float, default=60, help="of each flood phase")
    parser.add_argument("--quiet", type=float, default=10, help="seconds of each quiet phase")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1))
    args = parser.parse_args()
    # started from a folder of its own, a gunicorn imports the tree on its PYTHONPATH, not the repository's (trees.py)
    os.chdir(tempfile.mkdtemp(prefix="cardroom-read-flood-"))
    settings = {**NO_RATE_LIMITS}
    del settings["LIMIT_READS"]  # the default read limit, where there is one
    results: dict[tuple[str, str], list[float]] = {}
    rates: dict[tuple[str, str], list[dict]] = {}
    with ExitStack() as stack:
        ports, servers = {}, {}
        for label, revision in (("before", args.before), ("after", ".")):
            tree = stack.enter_context(source_tree(revision))
            redis_url = stack.enter_context(embedded_redis())
            base = stack.enter_context(gunicorn("bootstrap.wsgi:app", redis_url, args.workers,
                                                settings={**settings, "PYTHONPATH": str(tree)}))
            ports[label] = int(base.rsplit(":", 1)[1])
            servers[label] = serving(psutil.Process(), (base.removeprefix("http://"),
                                                        redis_url.removeprefix("redis://").split("/")[0]))
            setup = http.client.HTTPConnection("127.0.0.1", ports[label], timeout=60)
            for _ in range(100):  # a full page to list
                call(setup, "POST", "/v1/matches", TWO_HUMANS)
        for _ in range(args.rounds):  # the two sides alternate, so a noisy neighbour hits both alike
            for label, port in ports.items():
                for what, seconds, path in (("quiet", args.quiet, None), ("flood", args.seconds, FLOODS[args.flood])):
                    timings, per_second = phase(port, servers[label], seconds, path, args.connections)
                    results.setdefault((label, what), []).extend(timings)
                    rates.setdefault((label, what), []).append(per_second)
    print(f"gunicorn workers={args.workers}, {os.cpu_count()} cores; flood: {FLOODS[args.flood]} from one address on "
          f"{args.connections} connections, {args.rounds} round(s) of {args.seconds:g} s (quiet: {args.quiet:g} s); "
          f"another address's create + move, {PAIRS_A_SECOND} a second; before = {args.before}")
    for label in ports:
        for what in ("quiet", "flood"):
            print(f"{label:>6} {what}: {figures(results[label, what])}")
            for per_second in rates[label, what]:
                answers = sorted(per_second.items(), key=str)
                print(f"{'':>6}        the server's CPU {per_second.pop('cpu'):.2f} s a second"
                      + "".join(f", {status} answers {rate:.0f}/s" for status, rate in answers if status != "cpu"))
    for what in ("quiet", "flood"):
        before, after = (statistics.quantiles(results[label, what], n=100, method="inclusive")[98]
                         for label in ("before", "after"))
        print(f"p99 {what}: before / after = {before / after:.1f}")


if __name__ == "__main__":
    main()
