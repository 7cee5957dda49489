"""The in-memory event store, for unit tests: the same behaviour as Redis, in dicts under one lock."""
import threading
import time
from collections import defaultdict

from eventstore import codec
from eventstore.base import Appended, Duplicate, EventStore, Head, Loaded, Snapshot, VersionConflict
from eventstore.chain import GENESIS, seal
from eventstore.clock import utc_now


class InMemoryEventStore(EventStore):
    def __init__(self, clock=utc_now):
        self._clock = clock
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # notified on every append and wake
        self._woken = False
        self._events: dict[str, list[dict]] = defaultdict(list)
        self._meta: dict[str, dict[str, str]] = {}
        self._snapshots: dict[str, list[Snapshot]] = defaultdict(list)
        self._idempotency: dict[str, dict[str, str]] = defaultdict(dict)
        self._listed: dict[str, tuple[int, str]] = {}  # match -> (position, game)
        self._catalogs: dict[str, dict[str, tuple[int, str]]] = defaultdict(dict)  # other catalogs, alike
        self._statuses: dict[str, set[str]] = defaultdict(set)  # match -> the statuses it is listed under
        self._awaiting_bot: dict[str, float] = {}
        self._deadlines: dict[str, float] = {}
        self.expiring: dict[str, int] = {}  # match -> seconds its extras were given (Redis expires them)
        self._archive_due: dict[str, float] = {}
        self._finished: dict[str, dict[str, int]] = defaultdict(dict)  # listing -> match -> when it finished

    def append(self, stream, expected, events, *, meta=None, idempotency=None, time=None, snapshot=None):
        with self._lock:
            if idempotency and idempotency[0] in self._idempotency[stream]:
                return Duplicate(self._idempotency[stream][idempotency[0]])
            log = self._events[stream]
            current = Head(len(log), log[-1]["hash"] if log else GENESIS)
            if current != expected:
                raise VersionConflict(current.version)
            stored = seal(events, expected.version, expected.hash, time or self._clock())
            log.extend(stored)
            head = Head(len(log), log[-1]["hash"])
            self._meta.setdefault(stream, {}).update({**(meta or {}), "version": str(head.version),
                                                        "head": head.hash})
            if idempotency:
                self._idempotency[stream][idempotency[0]] = idempotency[1]
            if snapshot is not None:
                # stored as JSON, as Redis does, so a state that does not survive JSON fails here too
                kept = codec.loads(codec.dumps(snapshot))
                self._snapshots[stream].append(Snapshot(head.version, head.hash, kept))
            self._changed.notify_all()
            return Appended(stored, head)

    def load(self, stream, upto=None, since=0):
        with self._lock:
            if stream not in self._meta:
                return None
            log = self._events[stream]
            upto = len(log) if upto is None else upto
            snapshot = max((s for s in self._snapshots[stream] if s.version <= upto),
                           key=lambda s: s.version, default=None)
            if snapshot is None or snapshot.version <= since:
                snapshot = None
            start = snapshot.version if snapshot else since
            return Loaded(dict(self._meta[stream]), snapshot, list(log[start:upto]))

    def read(self, stream, after=0, upto=None):
        with self._lock:
            return list(self._events[stream][after:upto])

    def tail(self, after, timeout):
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = {m: list(self._events[m][v:]) for m, v in after.items() if len(self._events[m]) > v}
                remaining = deadline - time.monotonic()
                if found or self._woken or remaining <= 0:
                    self._woken = False
                    return found
                self._changed.wait(remaining)

    def wake(self):
        with self._lock:
            self._woken = True
            self._changed.notify_all()

    def meta(self, stream):
        with self._lock:
            return dict(self._meta[stream]) if stream in self._meta else None

    def recall(self, stream, key):
        with self._lock:
            return self._idempotency[stream].get(key)

    def annotate(self, stream, fields):
        with self._lock:
            self._meta[stream].update(fields)

    def index(self, aggregate_id, game, catalog="matches"):
        with self._lock:
            listed = self._listed if catalog == "matches" else self._catalogs[catalog]
            listed[aggregate_id] = (len(listed) + 1, game)

    def list_status(self, match_id, game, status):
        with self._lock:
            if match_id in self._listed:
                self._statuses[match_id].add(status)

    def unlist_status(self, match_id, game, status):
        with self._lock:
            self._statuses[match_id].discard(status)

    def metas(self, streams):
        with self._lock:
            return [dict(self._meta[m]) if m in self._meta else None for m in streams]

    def matches(self, game, before, limit, status=None, catalog="matches"):
        with self._lock:
            catalogued = self._listed if catalog == "matches" else self._catalogs[catalog]
            listed = sorted(((pos, mid) for mid, (pos, g) in catalogued.items()
                             if (game is None or g == game) and (before is None or pos < before)
                             and (status is None or status in self._statuses[mid])), reverse=True)
            return listed[:limit]

    def list_finished(self, match_id, at, listings):
        with self._lock:
            for listing in listings:
                self._finished[listing][match_id] = at

    def finished(self, listing, since, after, limit):
        with self._lock:
            listed = sorted((at, match_id) for match_id, at in self._finished[listing].items())
            if after is not None and after not in self._finished[listing]:
                return None
            start = (since, "")
            if after is not None and self._finished[listing][after] >= since:
                start = (self._finished[listing][after], after)
            return [entry for entry in listed if entry > start][:limit]

    def await_bot(self, match_id, since):
        with self._lock:
            self._awaiting_bot[match_id] = since

    def bots_awaited(self, since_before, limit):
        with self._lock:
            return sorted(((m, t) for m, t in self._awaiting_bot.items() if t < since_before),
                          key=lambda noted: noted[1])[:limit]

    def release_bot(self, match_id, noted_by):
        with self._lock:
            if self._awaiting_bot.get(match_id, noted_by + 1) <= noted_by:
                del self._awaiting_bot[match_id]

    def note_deadline(self, match_id, deadline):
        with self._lock:
            if deadline is None:
                self._deadlines.pop(match_id, None)
            else:
                self._deadlines[match_id] = deadline

    def deadlines_passed(self, before, limit):
        with self._lock:
            return sorted(((m, d) for m, d in self._deadlines.items() if d < before), key=lambda noted: noted[1])[:limit]

    def expire_extras(self, match_id, seconds):
        with self._lock:
            self.expiring[match_id] = seconds

    def archive_when(self, match_id, due):
        with self._lock:
            self._archive_due[match_id] = due

    def archives_due(self, before, limit):
        with self._lock:
            return sorted((m for m, due in self._archive_due.items() if due < before),
                          key=self._archive_due.__getitem__)[:limit]

    def archive(self, match_id):
        with self._lock:
            self._archive_due.pop(match_id, None)
            meta = self._meta.get(match_id)
            if meta is None or meta.get("archived"):
                return False
            meta["archived"] = "1"
            self._snapshots.pop(match_id, None)
            self._idempotency.pop(match_id, None)
            return True
