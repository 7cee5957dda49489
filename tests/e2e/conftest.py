"""Starts the whole service as `make run` does (supervisord running gunicorn, RQ workers and the RQ
scheduler); its supervisord.conf and logs go to a temporary DATA_DIR."""
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from bootstrap.embedded_redis import free_port


def wait_until_healthy(base: str, process: subprocess.Popen, seconds: float = 60) -> None:
    """Returns once `base`/health answers 200; fails if `process` exits or `seconds` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if requests.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or still booting its workers
            pass
        assert process.poll() is None and time.monotonic() < deadline, f"{base} did not start"
        time.sleep(0.2)


@contextlib.contextmanager
def running_service(data_dir: Path, **settings: str):
    """`python -m bootstrap.run` with these settings (environment variables); yields its base URL once
    /health answers 200, and on leaving checks that SIGINT stops it with exit code 0."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update({"PORT": str(port), "WORKERS": "2", "WEB_CONCURRENCY": "2", "QUEUE": f"bots-e2e-{port}",
                "DATA_DIR": str(data_dir), **settings})
    with (data_dir / "run.log").open("w") as log:
        process = subprocess.Popen([sys.executable, "-m", "bootstrap.run"], env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:  # stopped even when it never became healthy: a failed start leaves no service running
            wait_until_healthy(base, process)
            yield base
        finally:
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=30) == 0


# Every e2e test drives the service from one address: the rate limits per address would measure themselves (they
# are tested in tests/unit/test_bounded_cost.py and tests/integration/test_rate_limits.py).
NO_RATE_LIMITS = {"LIMIT_CREATE": "", "LIMIT_JOIN": "", "LIMIT_MOVES": "", "LIMIT_ACCOUNTS": "", "LIMIT_CHALLENGES": "",
                  "LIMIT_READS": ""}


@pytest.fixture(scope="module")
def server(redis_url, tmp_path_factory):
    """The service on the test session's Redis, without rate limits."""
    with running_service(tmp_path_factory.mktemp("server"), REDIS_URL=redis_url, **NO_RATE_LIMITS) as base:
        yield base
