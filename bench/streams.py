"""Live streams, measured side by side for gunicorn's gevent and gthread worker classes in one run:

Both gunicorns run at once and every round measures one, then the other.
1. latency from sending a move to its first frame arriving on every open stream of that match
   (p50, p99) with 1, 100 and 1,000 open streams;
2. moves/s with 1,000 idle streams open (on other matches) against none (aim >= 0.8);
3. the memory of the API processes with 1,000 idle streams open;
4. a FlipOut match between two stream-driven clients: HTTP requests per own move (aim: 1, the POST).

The stream clients are greenlets on raw sockets (HTTP/1.0, NDJSON), all in this process, which shares
the machine's cores with gunicorn and Redis: the latencies include this client's own scheduling.
Usage: python bench/streams.py [--streams 1,100,1000] [--moves 20] [--rounds 3] [--seconds 4]
                               [--workers 2] [--classes gevent,gthread]
"""
from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import socket  # noqa: E402
import time  # noqa: E402
from contextlib import ExitStack  # noqa: E402

import gevent  # noqa: E402
import psutil  # noqa: E402
import requests  # noqa: E402
from gevent.pool import Pool  # noqa: E402

from common import embedded_redis, gunicorn, median  # noqa: E402
from common import play_two_seat_matches  # noqa: E402
from http_moves import measure  # noqa: E402

WORKER_CLASSES = {
    "gevent": ("--worker-class", "gevent", "--worker-connections", "5000"),
    "gthread": ("--worker-class", "gthread", "--threads", "1000", "--worker-connections", "2000"),
}
VERSION = re.compile(rb'"version": (\d+)')
TWO_SEATS = [{"name": "a"}, {"name": "b"}]


class Stream:
    """One NDJSON stream on a raw socket (HTTP/1.0: the body is just the lines); notes when each version
    was first seen."""

    def __init__(self, address, match_id):
        self.seen: dict[int, float] = {}
        self._socket = socket.create_connection(address)
        self._socket.sendall(f"GET /v1/matches/{match_id}/stream HTTP/1.0\r\nHost: bench\r\n"
                             f"Accept: application/x-ndjson\r\n\r\n".encode())
        self._reader = gevent.spawn(self._read)

    def _read(self):
        pending = b""
        while data := self._socket.recv(1 << 18):
            now = time.perf_counter()
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                found = VERSION.search(line)
                if found:
                    self.seen.setdefault(int(found.group(1)), now)

    def close(self):
        self._reader.kill()
        self._socket.close()


def create(base, game="mantis", seats=TWO_SEATS, options=None):
    answer = requests.post(f"{base}/v1/matches", json={"game": game, "seats": seats, "options": options or {}})
    answer.raise_for_status()
    return answer.json()


def open_streams(address, match_id, count, version):
    streams = Pool(50).map(lambda _: Stream(address, match_id), range(count))
    wait_until(lambda: all(version in s.seen for s in streams), f"{count} streams did not start")
    return streams


def wait_until(condition, failure, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(failure)
        gevent.sleep(0.001)


def latencies(base, address, count, moves) -> list[float]:
    """Seconds from sending a move to its first frame on each of `count` streams of its match."""
    samples = []
    while len(samples) < moves * count:
        created = create(base)
        streams = open_streams(address, created["id"], count, created["version"])
        tokens, version, turn = [s["token"] for s in created["seats"]], created["version"], created["to_act"]
        while turn and len(samples) < moves * count:
            sent = time.perf_counter()
            answer = requests.post(f"{base}/v1/matches/{created['id']}/moves", headers=bearer(tokens[turn[0]]),
                                   json={"move": {"action": "score"}, "expected_version": version}).json()
            wait_until(lambda: all(version + 1 in s.seen for s in streams), "a frame did not arrive")
            samples += [s.seen[version + 1] - sent for s in streams]
            version, turn = answer["version"], answer["to_act"]
        for stream in streams:
            stream.close()
    return samples


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def idle_streams(base, address, count):
    matches = Pool(8).map(lambda _: create(base), range(count))
    streams = Pool(50).map(lambda m: Stream(address, m["id"]), matches)
    wait_until(lambda: all(s.seen for s in streams), f"{count} idle streams did not start")
    return streams


def api_memory_mb(base) -> float:
    """Resident memory of the gunicorn processes listening on `base`'s port."""
    port = int(base.rsplit(":", 1)[1])
    pids = {c.pid for c in psutil.net_connections("tcp") if c.laddr and c.laddr.port == port and c.pid
            and c.status == psutil.CONN_LISTEN}
    return sum(psutil.Process(pid).memory_info().rss for pid in pids) / 2 ** 20


def with_idle_streams(base, address, count, seconds, clients):
    """moves/s while `count` idle streams (one per idle match) are open, and the API's memory then."""
    streams = idle_streams(base, address, count)
    memory = api_memory_mb(base)
    moves = measure(play_two_seat_matches, base, clients, seconds)
    for stream in streams:
        stream.close()
    return moves, memory


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def stream_driven_flipout(base, matches) -> tuple[int, int]:
    """(requests, own moves) of two stream-driven clients playing FlipOut matches to the end."""
    counts = {"requests": 0, "moves": 0}

    def seat(match_id, token, pick):
        counts["requests"] += 1
        with requests.get(f"{base}/v1/matches/{match_id}/stream", headers={"Accept": "application/x-ndjson",
                          **bearer(token)}, stream=True, timeout=60) as response:
            for line in response.iter_lines(chunk_size=None):
                frame = json.loads(line) if line else {}
                if frame.get("type") == "match" and frame["legal_moves"]:
                    counts["requests"] += 1
                    moved = requests.post(f"{base}/v1/matches/{match_id}/moves", headers=bearer(token),
                                          json={"move": pick.choice(frame["legal_moves"]),
                                                "expected_version": frame["version"]})
                    counts["moves"] += moved.status_code == 201
                if frame.get("type") == "match" and frame["status"] == "finished":
                    return

    for number in range(matches):
        created = create(base, "flipout", TWO_SEATS)
        gevent.joinall([gevent.spawn(seat, created["id"], s["token"], random.Random(f"{number}-{i}"))
                        for i, s in enumerate(created["seats"])], raise_error=True)
    return counts["requests"], counts["moves"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", default="1,100,1000")
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--classes", default="gevent,gthread")
    parser.add_argument("--flipout-matches", type=int, default=3)
    args = parser.parse_args()
    counts, classes = [int(n) for n in args.streams.split(",")], args.classes.split(",")
    idle = max(counts)
    latency = {(c, n): [] for c in classes for n in counts}
    moves = {(c, state): [] for c in classes for state in ("none", "idle")}
    memory = {}
    load = os.getloadavg()
    with embedded_redis() as redis_url, ExitStack() as servers:
        bases = {c: servers.enter_context(gunicorn("bootstrap.wsgi:app", redis_url, args.workers,
                                                   WORKER_CLASSES[c])) for c in classes}
        # every round measures each worker class in turn, so a noisy neighbour hits them alike
        for _ in range(args.rounds):
            for worker_class, base in bases.items():
                address = ("127.0.0.1", int(base.rsplit(":", 1)[1]))
                for n in counts:
                    latency[worker_class, n] += latencies(base, address, n, max(1, args.moves // args.rounds))
                memory[worker_class, "none"] = api_memory_mb(base)
                moves[worker_class, "none"].append(measure(play_two_seat_matches, base, args.clients, args.seconds))
                with_idle, memory[worker_class, "idle"] = with_idle_streams(base, address, idle, args.seconds,
                                                                            args.clients)
                moves[worker_class, "idle"].append(with_idle)
        driven = {c: stream_driven_flipout(bases[c], args.flipout_matches) for c in classes}
    print(f"gunicorn workers={args.workers}, {args.rounds} rounds alternating {', '.join(classes)}; "
          f"load average before the run {load[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'class':>8} {'streams':>8} {'p50 ms':>8} {'p99 ms':>8}   (move sent -> its first frame on every stream)")
    for (worker_class, n), samples in latency.items():
        print(f"{worker_class:>8} {n:>8} {1000 * percentile(samples, 0.5):>8.1f} "
              f"{1000 * percentile(samples, 0.99):>8.1f}")
    for worker_class in classes:
        none, with_idle = median(moves[worker_class, "none"]), median(moves[worker_class, "idle"])
        asked, moved = driven[worker_class]
        print(f"[{worker_class}] moves/s: {none:.0f} with no stream open, {with_idle:.0f} with {idle} idle streams: "
              f"ratio {with_idle / none:.2f} (aim >= 0.80); API memory {memory[worker_class, 'none']:.0f} MB, "
              f"{memory[worker_class, 'idle']:.0f} MB with {idle} idle streams; stream-driven FlipOut: {asked} "
              f"requests for {moved} own moves = {asked / moved:.3f} per move (aim: 1, the POST)")
    first, second = classes[0], classes[-1]
    print(f"{first}/{second} moves/s with no stream: "
          f"{median(moves[first, 'none']) / median(moves[second, 'none']):.2f}")


if __name__ == "__main__":
    main()
