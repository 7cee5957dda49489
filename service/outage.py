"""One log line when a process loses a store it needs and one when the store is back, however many of its threads
notice and however often they retry: a traceback per try told nothing more (docs/reliability.md)."""
import logging
import threading
import time


class Outage:
    def __init__(self, log: logging.Logger, what: str = "Redis"):
        """`what`: the store's name in the lines."""
        self._log = log
        self._what = what
        self._since: float | None = None
        self._lock = threading.Lock()

    def lost(self, error: Exception) -> None:
        with self._lock:
            if self._since is None:
                self._since = time.monotonic()
                self._began(error)
                self._log.warning("%s lost (%s: %s); retrying until it is back", self._what, type(error).__name__,
                                  error)

    def back(self) -> None:
        with self._lock:
            if self._since is not None:
                self._log.warning("%s back after %.1f s", self._what, time.monotonic() - self._since)
                self._since = None

    def _began(self, error: Exception) -> None:
        """What else the start of an outage is worth (bootstrap/outage.py counts it)."""
