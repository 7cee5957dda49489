"""One log line when a process loses Redis and one when Redis is back, however many of its threads notice
and however often they retry: a traceback per try told nothing more (60 of them for 15 outages)."""
import logging
import threading
import time

import redis

UNREACHABLE = (redis.ConnectionError, redis.TimeoutError)


class RedisOutage:
    def __init__(self, log: logging.Logger):
        self._log = log
        self._since: float | None = None
        self._lock = threading.Lock()

    def lost(self, error: Exception) -> None:
        with self._lock:
            if self._since is None:
                self._since = time.monotonic()
                self._log.warning("Redis lost (%s: %s); retrying until it is back", type(error).__name__, error)

    def back(self) -> None:
        with self._lock:
            if self._since is not None:
                self._log.warning("Redis back after %.1f s", time.monotonic() - self._since)
                self._since = None

    def quieting(self) -> logging.Filter:
        """A filter for RQ's own logger: its records about an unreachable Redis (a line per retry, or a
        traceback when the worker quits on one) become this outage's one line."""
        outage = self

        class Quiet(logging.Filter):
            def filter(self, record: logging.LogRecord) -> bool:
                error = record.exc_info[1] if record.exc_info else next(
                    (arg for arg in record.args or () if isinstance(arg, UNREACHABLE)), None)
                if isinstance(error, UNREACHABLE):
                    outage.lost(error)
                    return False
                return True

        return Quiet()
