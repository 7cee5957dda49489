"""The archive as a data set (docs/archive.md): matches a second streamed (plain and gzipped), dumped by `cardroom dump`
from a gunicorn served as `make run` serves it, and verified by `cardroom verify DIR` on one process and on every
core, side by side; and the heap a stream of the matches holds against what it sends (tracemalloc, in process).

    .venv/bin/python bench/archive.py [--matches 2000] [--days 4] [--workers 2]

The matches are two random bots' Mantis matches (67 events, about 30 KB of JSON each), seeded straight into an
embedded Redis (tests/support/archive.py), spread evenly over the days."""
import argparse
import gzip
import json
import os
import sys
import tempfile
import time
import tracemalloc
from datetime import date, timedelta
from pathlib import Path

import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.common import NO_RATE_LIMITS, embedded_redis, gunicorn  # noqa: E402
from cli import archive  # noqa: E402
from cli.bot import Client  # noqa: E402
from eventstore.redis_store import RedisEventStore  # noqa: E402
from tests.support.archive import seed_finished  # noqa: E402
from tests.support.http import make_client  # noqa: E402

FIRST_DAY = date(2001, 2, 3)
DAY_MS = 86_400_000


def timed(call):
    started = time.perf_counter()
    outcome = call()
    return outcome, time.perf_counter() - started


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
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    with embedded_redis() as redis_url:
        store = RedisEventStore(redis.Redis.from_url(redis_url, decode_responses=True))
        seed_finished(store, args.matches, int(time.mktime(FIRST_DAY.timetuple())) * 1000 + 1000,
                      args.days * DAY_MS // args.matches)
        with gunicorn("bootstrap.wsgi:app", redis_url, args.workers, settings=NO_RATE_LIMITS) as base:
            for zipped in (False, True):
                (lines, wire), seconds = timed(lambda: streamed(base, zipped))
                print(f"stream {'gzip' if zipped else 'plain'}: {lines} matches in {seconds:.2f} s, "
                      f"{lines / seconds:.0f} matches/s, {wire / lines / 1024:.1f} KiB a match on the wire")
            directory = Path(tempfile.mkdtemp(prefix="cardroom-dump-"))
            written, seconds = timed(lambda: archive.dump(directory, Client(base), FIRST_DAY,
                                                          FIRST_DAY + timedelta(days=args.days + 1), None, base))
        manifest = json.loads((directory / archive.MANIFEST).read_text())
        files = [directory / e["file"] for e in manifest["days"] if e["file"]]
        size = sum(path.stat().st_size for path in files)
        print(f"dump: {manifest['matches']} matches, {len(written)} days in {seconds:.2f} s, "
              f"{manifest['matches'] / seconds:.0f} matches/s, {size / manifest['matches'] / 1024:.1f} KiB a match")
        for workers in (1, os.cpu_count() or 1):
            faults, seconds = timed(lambda: archive.verify_matches(files, manifest["matches"], workers))
            assert not faults, faults
            print(f"verify, {workers} process(es): {manifest['matches'] / seconds:.0f} matches/s ({seconds:.2f} s)")
        _, seconds = timed(lambda: archive.check_manifest(directory, manifest))
        print(f"verify, the manifest (hashes, counts, first and last): {manifest['matches'] / seconds:.0f} matches/s")
        grown, sent = heap_held(store)
        print(f"heap held streaming in process: {grown / 2**20:.1f} MiB peak growth to send {sent / 2**20:.0f} MiB "
              f"({sent / grown:.0f}x)")


if __name__ == "__main__":
    main()
