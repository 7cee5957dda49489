"""What one process remembers of the matches it loaded or appended to lately: meta, folded state and head.

It spares work and never decides anything. A load still asks the store, but only for the events after the
remembered version (no snapshot to decode, nothing to fold again), and checks they continue the remembered
head. A move made at the remembered version is appended without a load: the append's own expected-head check
guards it, so a memory gone stale (another process appended since) can only earn the 409 that move deserves
(the log is past the version its client expected). Meta fields change only with an append (the seat tokens
with a join), so the meta remembered at a version is the meta of that version.
"""
import threading
from collections import OrderedDict


class RecentMatches:
    def __init__(self, size: int):
        """`size`: matches remembered; the least recently used is forgotten first."""
        self._size = size
        self._lock = threading.Lock()  # gunicorn's gevent workers patch it; RQ workers are one thread
        self._matches = OrderedDict()

    def get(self, match_id: str):
        with self._lock:
            found = self._matches.get(match_id)
            if found is not None:
                self._matches.move_to_end(match_id)
            return found

    def put(self, match_id: str, current) -> None:
        with self._lock:
            known = self._matches.get(match_id)
            if known is not None and known.head.version > current.head.version:
                return  # a slower request must not put back an older state
            self._matches[match_id] = current
            self._matches.move_to_end(match_id)
            if len(self._matches) > self._size:
                self._matches.popitem(last=False)

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._matches.pop(match_id, None)
