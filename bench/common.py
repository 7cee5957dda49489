"""What the benchmarks share: an embedded Redis and a gunicorn started for the run."""
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bootstrap.embedded_redis import EmbeddedRedis, free_port  # noqa: E402


@contextmanager
def embedded_redis():
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="cardroom-bench-")), persist=False).start()
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def gunicorn(app: str, redis_url: str, workers: int):
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "--workers", str(workers), "--bind",
                                f"127.0.0.1:{port}", "--log-level", "warning", app], env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            requests.get(f"{base}/health", timeout=2)
            break
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not start")
            time.sleep(0.2)
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
