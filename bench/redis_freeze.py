"""How long a request waits for its 503 while Redis hangs (SIGSTOP: its port accepts connections, nothing is
answered), before (a commit, default main) and after (the working tree), served by gunicorn as `make run`
serves it, with the default rate limits on (a create first counts itself in Redis).

Measured with Redis frozen: one read alone, one create alone, /health/ready and /metrics (each alone), then
`--concurrent` reads at once through a pool of `--connections` (more requests than connections: they wait for
one). A request with no answer after `--give-up` seconds is counted as that.
Run it from outside the repository's root, or both runs serve the working tree (bench/trees.py).
Usage: python bench/redis_freeze.py [BEFORE=main] [--timeout 2] [--connections 4] [--concurrent 40]
"""
import argparse
import signal
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from common import gunicorn, median
from bootstrap.embedded_redis import EmbeddedRedis
from trees import source_tree

TWO_HUMANS = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]}


def timed(call, give_up: float) -> tuple[float, str]:
    """Seconds to the answer, and its status and reason ("none" when there was no answer in time)."""
    started = time.monotonic()
    try:
        response = call(timeout=give_up)
        reason = response.json().get("reason", "") if response.headers["Content-Type"].startswith(
            "application/json") else ""
        outcome = f"{response.status_code} {reason}".strip()
    except requests.Timeout:
        outcome = "none"
    return time.monotonic() - started, outcome


def measure(tree: Path, args) -> dict[str, list[tuple[float, str]]]:
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="cardroom-freeze-")), persist=False).start()
    settings = {"PYTHONPATH": str(tree), "REDIS_TIMEOUT": str(args.timeout),
                "REDIS_CONNECTIONS": str(args.connections)}
    try:
        with gunicorn("bootstrap.wsgi:app", server.url, 1, settings=settings) as base:
            match = requests.post(f"{base}/v1/matches", json=TWO_HUMANS, timeout=10).json()
            read = f"{base}/v1/matches/{match['id']}"
            server.process.send_signal(signal.SIGSTOP)
            try:
                alone = timed(lambda timeout: requests.get(read, timeout=timeout), args.give_up)
                create = timed(lambda timeout: requests.post(f"{base}/v1/matches", json=TWO_HUMANS,
                                                             timeout=timeout), args.give_up)
                ready = timed(lambda timeout: requests.get(f"{base}/health/ready", timeout=timeout), args.give_up)
                metrics = timed(lambda timeout: requests.get(f"{base}/metrics", timeout=timeout), args.give_up)
                with ThreadPoolExecutor(args.concurrent) as pool:
                    crowd = list(pool.map(lambda _: timed(lambda timeout: requests.get(read, timeout=timeout),
                                                          args.give_up), range(args.concurrent)))
            finally:
                server.process.send_signal(signal.SIGCONT)
    finally:
        server.stop()
    return {"a read alone": [alone], "a create alone": [create], "/health/ready alone": [ready],
            "/metrics alone": [metrics], f"{args.concurrent} reads at once": crowd}


def summary(answers: list[tuple[float, str]]) -> str:
    seconds = [s for s, _ in answers]
    outcomes = sorted({outcome for _, outcome in answers})
    spread = f"{seconds[0]:.2f} s" if len(seconds) == 1 else \
        f"median {median(seconds):.2f} s, max {max(seconds):.2f} s"
    return f"{spread} ({', '.join(outcomes)})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before", nargs="?", default="main")
    parser.add_argument("--timeout", type=float, default=2, help="REDIS_TIMEOUT")
    parser.add_argument("--connections", type=int, default=4, help="REDIS_CONNECTIONS")
    parser.add_argument("--concurrent", type=int, default=40)
    parser.add_argument("--give-up", type=float, default=30)
    args = parser.parse_args()
    figures = {}
    for label, revision in (("before", args.before), ("after", ".")):
        with source_tree(revision) as tree:
            figures[label] = measure(tree, args)
    print(f"time to the answer with Redis frozen (REDIS_TIMEOUT={args.timeout:g} s, "
          f"REDIS_CONNECTIONS={args.connections}, 1 gunicorn worker; before = {args.before})")
    for what in figures["after"]:
        print(f"  {what}: before {summary(figures['before'][what])} -> after {summary(figures['after'][what])}")


if __name__ == "__main__":
    main()
