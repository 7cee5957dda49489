"""Starts the whole service as `make run` does (gunicorn + RQ workers) against the test Redis."""
import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from bootstrap.embedded_redis import free_port


@pytest.fixture(scope="module")
def server(redis_url, tmp_path_factory):
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PORT": str(port), "WORKERS": "2", "WEB_CONCURRENCY": "2",
           "QUEUE": f"bots-e2e-{port}"}
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "bootstrap.run"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(f"{base}/health", timeout=2).status_code == 200:
                break
        except requests.RequestException:  # not listening yet, or still booting its workers
            pass
        assert process.poll() is None and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.2)
    yield base
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0
