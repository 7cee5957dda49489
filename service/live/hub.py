"""One blocking reader per process, fanning the logs' new events out to the streams it serves.

Every open stream follows one log (a match's, by id) from a version. The hub's reader thread (a greenlet
under gevent) waits with one `store.tail` over all the logs followed (in Redis: one XREAD BLOCK on one
connection), keeps the latest events of each log and wakes that log's followers. A follower that asks
for events the hub no longer keeps (it fell behind, or it started behind the hub) reads them from the
store itself, so none is lost or repeated. A log nobody follows any more leaves the read set at the
reader's next turn; a newly followed log wakes the reader (`store.wake`) so it joins the read set at once.
A Watch follows many logs at once (an account's feed: every match of the account) and is told which moved.
"""
import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from eventstore.base import FollowedLog
from service.outage import Outage

log = logging.getLogger("cardroom.hub")

BLOCK_SECONDS = 5.0  # the longest one tail waits: only bounds how long an abandoned log stays in the read set
KEEP = 64            # events kept per log for followers that are a little behind
RETRY_SECONDS = 1.0  # pause after a failed tail (the store is down) before the next


@dataclass
class _Log:
    version: int                 # the hub has seen this log up to here
    changed: threading.Condition
    recent: list[dict] = field(default_factory=list)
    followers: int = 0
    watches: set = field(default_factory=set)  # the Conditions of the Watches that follow this log


class Hub:
    def __init__(self, store: FollowedLog, block_seconds: float = BLOCK_SECONDS, outage: Outage | None = None):
        """`outage`: told of each failed read and of the first that works again (one line an outage)."""
        self._store = store
        self._block = block_seconds
        self._outage = outage or Outage(log)
        self._lock = threading.Lock()
        self._logs: dict[str, _Log] = {}
        self._reader: threading.Thread | None = None
        self._closed = False

    @contextmanager
    def follow(self, log_id: str, version: int):
        """A Follower of the log from `version` (the last one the caller has), for the `with` block."""
        followed = self._join({log_id: version})[log_id]
        try:
            yield Follower(self, log_id, followed, version)
        finally:
            self._leave(log_id, followed)

    @contextmanager
    def watch(self):
        """A Watch of several logs at once, for the `with` block; it follows none until told to."""
        watch = Watch(self)
        try:
            yield watch
        finally:
            watch.drop(*list(watch.seen))

    def _join(self, versions: dict[str, int], watch: threading.Condition | None = None) -> dict[str, "_Log"]:
        """Follow each log from its version (one wake-up for all the logs new to the hub)."""
        joined, new = {}, False
        with self._lock:
            for log_id, version in versions.items():
                followed = self._logs.get(log_id)
                if followed is None:
                    followed = self._logs[log_id] = _Log(version, threading.Condition(self._lock))
                    new = True
                followed.followers += 1
                if watch is not None:
                    followed.watches.add(watch)
                joined[log_id] = followed
            self._start_reader()
        if new:
            self._store.wake()
        return joined

    def _leave(self, log_id: str, followed: _Log, watch: threading.Condition | None = None) -> None:
        with self._lock:
            followed.followers -= 1
            followed.watches.discard(watch)
            if followed.followers == 0 and self._logs.get(log_id) is followed:
                del self._logs[log_id]

    def following(self) -> dict[str, int]:
        """How many streams follow each log, now."""
        with self._lock:
            return {log_id: followed.followers for log_id, followed in self._logs.items()}

    def close(self) -> None:
        """Stop the reader (followers then get only keep-alives): for tests and tools that end."""
        with self._lock:
            self._closed = True
        self._store.wake()

    def _start_reader(self):
        # started on first use, in the process that serves (after gunicorn forks and gevent patches)
        if not self._closed and (self._reader is None or not self._reader.is_alive()):
            self._reader = threading.Thread(target=self._read_forever, daemon=True, name="stream-hub")
            self._reader.start()

    def _read_forever(self):
        while True:
            with self._lock:
                if self._closed:
                    return
                after = {log_id: followed.version for log_id, followed in self._logs.items()}
            found = self._tail(after)  # with nothing followed, this waits for a wake-up (a new follower)
            with self._lock:
                for log_id, events in found.items():
                    followed = self._logs.get(log_id)
                    if followed is None:  # no longer followed
                        continue
                    fresh = [e for e in events if e["version"] > followed.version]
                    if fresh:
                        followed.version = fresh[-1]["version"]
                        followed.recent = (followed.recent + fresh)[-KEEP:]
                        followed.changed.notify_all()
                        for watch in followed.watches:
                            watch.notify_all()

    def _tail(self, after: dict[str, int]) -> dict[str, list[dict]]:
        try:
            found = self._store.tail(after, self._block)
        except Exception as error:  # the store is unreachable: followers keep waiting (with keep-alives); retry
            self._outage.lost(error)
            time.sleep(RETRY_SECONDS)
            return {}
        self._outage.back()
        return found


class Follower:
    """One stream's place in a log."""

    def __init__(self, hub: Hub, log_id: str, followed: _Log, version: int):
        self._hub = hub
        self._log_id = log_id
        self._followed = followed
        self.version = version

    def next(self, timeout: float) -> list[dict]:
        """The events right after `version`, in order, waiting up to `timeout` seconds for the first
        (then [] if none came)."""
        deadline = time.monotonic() + timeout
        with self._hub._lock:
            while self._followed.version <= self.version:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self._followed.changed.wait(remaining)
            kept = [e for e in self._followed.recent if e["version"] > self.version]
        if not kept or kept[0]["version"] != self.version + 1:
            kept = self._hub._store.read(self._log_id, after=self.version)
        if kept:
            self.version = kept[-1]["version"]
        return kept


class Watch:
    """Many logs followed at once, by whoever needs to know only which of them moved (not their events)."""

    def __init__(self, hub: Hub):
        self._hub = hub
        self._changed = threading.Condition(hub._lock)
        self._logs: dict[str, _Log] = {}
        self.seen: dict[str, int] = {}  # log -> the version the watcher has looked at

    def add(self, versions: dict[str, int]) -> None:
        """Follow these logs from these versions (a log followed already keeps its place)."""
        versions = {log_id: v for log_id, v in versions.items() if log_id not in self._logs}
        if versions:
            self._logs.update(self._hub._join(versions, self._changed))
            self.seen.update(versions)

    def drop(self, *log_ids: str) -> None:
        for log_id in log_ids:
            if log_id in self._logs:
                self._hub._leave(log_id, self._logs.pop(log_id), self._changed)
                del self.seen[log_id]

    def wait(self, timeout: float) -> list[str]:
        """The logs that moved past the version last looked at, waiting up to `timeout` seconds for one
        ([] if none did); they count as looked at up to where they are now."""
        deadline = time.monotonic() + timeout
        with self._hub._lock:
            while True:
                moved = [log_id for log_id, followed in self._logs.items() if followed.version > self.seen[log_id]]
                remaining = deadline - time.monotonic()
                if moved or remaining <= 0:
                    break
                self._changed.wait(remaining)
            for log_id in moved:
                self.seen[log_id] = self._logs[log_id].version
        return moved
