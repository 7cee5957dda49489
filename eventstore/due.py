"""Matches noted as due for a piece of work done after their finishing append (a rating, a transparency leaf): noted
before the append, forgotten once done, and read by the janitor to make up what a crash left undone. One sorted set
per kind of work in Redis (match -> since when it is due); a dict under the store's lock in memory."""
import threading
from abc import ABC, abstractmethod


class DueMatches(ABC):
    @abstractmethod
    def note_due(self, match_id: str, since: float) -> None:
        """The match's work is due since `since` (seconds since the epoch); noting it again keeps the first time."""

    @abstractmethod
    def due(self, before: float, limit: int) -> list[str]:
        """The matches whose work has been due since before `before`, oldest first."""

    @abstractmethod
    def done(self, match_id: str) -> None: ...


class RedisDueMatches(DueMatches):
    """Needs `self._redis` and the sorted set's key in `due_key`."""

    due_key: str

    def note_due(self, match_id, since):
        self._redis.zadd(self.due_key, {match_id: since}, nx=True)  # type: ignore[attr-defined]

    def due(self, before, limit):
        return self._redis.zrangebyscore(self.due_key, "-inf", f"({before}", start=0,  # type: ignore[attr-defined]
                                         num=limit)

    def done(self, match_id):
        self._redis.zrem(self.due_key, match_id)  # type: ignore[attr-defined]


class InMemoryDueMatches(DueMatches):
    """Needs `self._lock` and `self._due`, a dict: match -> since."""

    _lock: threading.Lock
    _due: dict[str, float]

    def note_due(self, match_id, since):
        with self._lock:
            self._due.setdefault(match_id, since)

    def due(self, before, limit):
        with self._lock:
            return sorted((m for m, since in self._due.items() if since < before), key=self._due.__getitem__)[:limit]

    def done(self, match_id):
        with self._lock:
            self._due.pop(match_id, None)
