"""A quota per caller as fixed windows whose counters live in Redis (the `limits` library, as the API's rate
limits: api/rate_limits.py says why that library), for the limits the service applies itself: it alone knows
that a request invites another account."""
import time

from limits import parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter


class WindowQuota:
    def __init__(self, storage_uri: str, limit: str, name: str):
        """`limit` in `limits` notation ("10/minute;100/day": every part applies); `name` keeps its counters
        apart from other quotas'."""
        self._limits = parse_many(limit) if limit else []
        self._windows = FixedWindowRateLimiter(storage_from_string(storage_uri)) if self._limits else None
        self._name = name

    def take(self, who: str) -> float | None:
        if self._windows is None:
            return None
        for limit in self._limits:
            if not self._windows.hit(limit, self._name, who):
                return max(0.0, self._windows.get_window_stats(limit, self._name, who).reset_time - time.time())
        return None
