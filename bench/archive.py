"""The archive as a data set (docs/archive.md): matches a second streamed (plain and gzipped, alternately, `--runs`
times), dumped by `cardroom dump` from a gunicorn served as `make run` serves it, and verified by `cardroom verify DIR`
on one process and on every core, side by side, each with the CPU it took a match (the server's gunicorn and Redis
for a stream, this process for the dump's client, the pool's processes for verifying), which a busy machine does
not change as it changes the rates; and the heap a stream holds against what it sends (tracemalloc, in process).

    .venv/bin/python bench/archive.py [--matches 2000] [--days 4] [--workers 2]

The matches are two random bots' Mantis matches (67 events, about 30 KB of JSON each), seeded straight into an
embedded Redis (tests/support/archive.py), spread evenly over the days."""
import argparse
import gzip
import json
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import psutil
import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.common import NO_RATE_LIMITS, embedded_redis, gunicorn, processes_cpu, serving  # noqa: E402
from cli import archive  # noqa: E402
from cli.bot import Client  # noqa: E402
from eventstore.redis_store import RedisEventStore  # noqa: E402
from tests.support.archive import seed_finished  # noqa: E402
from tests.support.http import make_client  # noqa: E402

FIRST_DAY = date(2001, 2, 3)
DAY_MS = 86_400_000


def timed(call, processes=()):
    """(what `call` returned, its seconds, the CPU seconds `processes` took meanwhile)."""
    cpu, started = processes_cpu(list(processes)), time.perf_counter()
    outcome = call()
    return outcome, time.perf_counter() - started, processes_cpu(list(processes)) - cpu


def own_cpu() -> float:
    return sum(resource.getrusage(resource.RUSAGE_SELF)[:2])


def children_cpu() -> float:
    return sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])


def streamed(base: str, zipped: bool) -> tuple[int, int]:
    """(lines, bytes on the wire) of one stream of every finished match."""
    headers = {"Accept-Encoding": "gzip" if zipped else "identity"}
    with requests.get(f"{base}/v1/matches/export", headers=headers, stream=True, timeout=600) as answer:
        wire = b"".join(answer.raw.stream(1 << 16, decode_content=False))
    body = gzip.decompress(wire) if zipped else wire
    return body.count(b"\n"), len(wire)


def heap_held(store) -> tuple[int, int]:
    """(the heap's peak growth, the bytes sent) while the app streams every finished match, in this process."""
    client = make_client(store=store)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    sent = sum(len(chunk) for chunk in client.get("/v1/matches/export", buffered=False).response)
    grown = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return grown, sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--days", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--runs", type=int, default=2, help="streams of each kind, alternately")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average (1 min): {os.getloadavg()[0]:.1f}")
    with embedded_redis() as redis_url:
        store = RedisEventStore(redis.Redis.from_url(redis_url, decode_responses=True))
        first_ms = round(datetime(FIRST_DAY.year, FIRST_DAY.month, FIRST_DAY.day, tzinfo=timezone.utc).timestamp() * 1000)
        seed_finished(store, args.matches, first_ms + 1000, args.days * DAY_MS // args.matches)
        with gunicorn("bootstrap.wsgi:app", redis_url, args.workers, settings=NO_RATE_LIMITS) as base:
            server = serving(psutil.Process(), ("bootstrap.wsgi", "redis-server"))
            for run in range(args.runs):
                for zipped in (False, True):
                    (lines, wire), seconds, cpu = timed(lambda: streamed(base, zipped), server)
                    print(f"stream {'gzip' if zipped else 'plain'}, run {run + 1}: {lines / seconds:.0f} matches/s "
                          f"({seconds:.2f} s), server CPU {cpu / lines * 1000:.2f} ms a match, "
                          f"{wire / lines / 1024:.1f} KiB a match on the wire")
            directory = Path(tempfile.mkdtemp(prefix="cardroom-dump-"))
            client_cpu = own_cpu()
            written, seconds, cpu = timed(lambda: archive.dump(directory, Client(base), FIRST_DAY,
                                                               FIRST_DAY + timedelta(days=args.days + 1), None, base),
                                          server)
            client_cpu = own_cpu() - client_cpu
        manifest = json.loads((directory / archive.MANIFEST).read_text())
        count = manifest["matches"]
        files = [directory / e["file"] for e in manifest["days"] if e["file"]]
        size = sum(path.stat().st_size for path in files)
        print(f"dump: {count} matches, {len(written)} days: {count / seconds:.0f} matches/s ({seconds:.2f} s), "
              f"server CPU {cpu / count * 1000:.2f} ms and client CPU {client_cpu / count * 1000:.2f} ms a match, "
              f"{size / count / 1024:.1f} KiB a match in the files")
        for workers in (1, os.cpu_count() or 1):
            pool_cpu = children_cpu()
            faults, seconds, _ = timed(lambda: archive.verify_matches(files, count, workers))
            assert not faults, faults
            print(f"verify, {workers} process(es): {count / seconds:.0f} matches/s ({seconds:.2f} s), "
                  f"CPU {(children_cpu() - pool_cpu) / count * 1000:.2f} ms a match")
        _, seconds, _ = timed(lambda: archive.check_manifest(directory, manifest))
        print(f"verify, the manifest (hashes, counts, first and last): {count / seconds:.0f} matches/s")
        grown, sent = heap_held(store)
        print(f"heap held streaming in process: {grown / 2**20:.1f} MiB peak growth to send {sent / 2**20:.0f} MiB "
              f"({sent / grown:.0f}x)")


if __name__ == "__main__":
    main()
