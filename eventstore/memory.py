"""The in-memory event store, for unit tests: the same behaviour as Redis, in dicts under one lock."""
import json
import threading
from collections import defaultdict

from eventstore.base import Appended, Duplicate, EventStore, Head, Loaded, Snapshot, VersionConflict
from eventstore.chain import GENESIS, seal
from eventstore.clock import utc_now


class InMemoryEventStore(EventStore):
    def __init__(self, clock=utc_now):
        self._clock = clock
        self._lock = threading.Lock()
        self._events: dict[str, list[dict]] = defaultdict(list)
        self._meta: dict[str, dict[str, str]] = {}
        self._snapshots: dict[str, list[Snapshot]] = defaultdict(list)
        self._idempotency: dict[str, dict[str, str]] = defaultdict(dict)
        self._listed: list[tuple[int, str, str]] = []
        self._active: set[str] = set()

    def append(self, match_id, expected, events, *, meta=None, idempotency=None):
        with self._lock:
            if idempotency and idempotency[0] in self._idempotency[match_id]:
                return Duplicate(self._idempotency[match_id][idempotency[0]])
            log = self._events[match_id]
            current = Head(len(log), log[-1]["hash"] if log else GENESIS)
            if current != expected:
                raise VersionConflict(current.version)
            stored = seal(events, expected.version, expected.hash, self._clock())
            log.extend(stored)
            head = Head(len(log), log[-1]["hash"])
            self._meta.setdefault(match_id, {}).update({**(meta or {}), "version": str(head.version),
                                                        "head": head.hash})
            if idempotency:
                self._idempotency[match_id][idempotency[0]] = idempotency[1]
            return Appended(stored, head)

    def load(self, match_id, upto=None):
        with self._lock:
            if match_id not in self._meta:
                return None
            log = self._events[match_id]
            upto = len(log) if upto is None else upto
            snapshot = max((s for s in self._snapshots[match_id] if s.version <= upto),
                           key=lambda s: s.version, default=None)
            start = snapshot.version if snapshot else 0
            return Loaded(dict(self._meta[match_id]), snapshot, list(log[start:upto]))

    def read(self, match_id, after=0, upto=None):
        with self._lock:
            return list(self._events[match_id][after:upto])

    def meta(self, match_id):
        with self._lock:
            return dict(self._meta[match_id]) if match_id in self._meta else None

    def recall(self, match_id, key):
        with self._lock:
            return self._idempotency[match_id].get(key)

    def save_snapshot(self, match_id, snapshot):
        with self._lock:
            # stored as JSON, as Redis does, so a state that does not survive JSON fails here too
            self._snapshots[match_id].append(Snapshot(snapshot.version, snapshot.hash,
                                                      json.loads(json.dumps(snapshot.state))))

    def index(self, match_id, game):
        with self._lock:
            self._listed.append((len(self._listed) + 1, match_id, game))
            self._active.add(match_id)

    def retire(self, match_id):
        with self._lock:
            self._active.discard(match_id)

    def active(self):
        with self._lock:
            return sorted(self._active)

    def metas(self, match_ids):
        with self._lock:
            return [dict(self._meta[m]) if m in self._meta else None for m in match_ids]

    def matches(self, game, before, limit):
        with self._lock:
            listed = [(pos, mid) for pos, mid, g in reversed(self._listed)
                      if (game is None or g == game) and (before is None or pos < before)]
            return listed[:limit]
