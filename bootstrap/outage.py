"""A Redis outage as each program meets it: one log line when it begins and one when Redis is back
(service/outage.py), one count of `cardroom_redis_errors` by the program, and RQ's own lines about it folded in."""
import logging

import redis

from observability.metrics import redis_error
from service.outage import Outage

UNREACHABLE = (redis.ConnectionError, redis.TimeoutError)


class RedisOutage(Outage):
    def __init__(self, log: logging.Logger, where: str):
        """`where`: the program, as cardroom_redis_errors counts it."""
        super().__init__(log)
        self._where = where

    def _began(self, error: Exception) -> None:
        redis_error(self._where)

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
