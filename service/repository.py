"""One repository for every event-sourced aggregate (a match, a tournament): load it folded, save a change.

An aggregate is its log in the event store, its meta beside it and, every `snapshot_every` events, a snapshot of
its folded state. Loading reads the latest snapshot and the events after it and folds them with the aggregate's
`evolve_all`; saving appends a change at the head it was decided from (the store refuses it with VersionConflict
if another got in first) and stores a snapshot when the log passes a multiple of `snapshot_every`.

What it remembers (`remembered` aggregates, the least recently used forgotten first) spares work and never decides
anything: a load still asks the store, but only for the events after the remembered head (no snapshot to decode,
nothing to fold again), and checks that they continue it; a change saved at the remembered head needs no load at
all, as the append's own expected-head check guards it.
"""
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from eventstore.base import Appended, Duplicate, Head, Log, Loaded
from service.errors import NotFound


@dataclass(frozen=True)
class Current:
    """An aggregate as loaded: its meta (secrets included), its folded state and where its log ends."""
    meta: dict
    state: dict
    head: Head


NEW = Current({}, {}, Head())  # an aggregate about to be created: no meta, no state, an empty log


class Repository:
    def __init__(self, store: Log, evolve_all: Callable[[dict | None, list[dict]], dict],
                 missing: Callable[[str], NotFound], key: Callable[[str], str] = str, snapshot_every: int = 0,
                 remembered: int = 0):
        """`missing(id)`: the error for an aggregate that does not exist; `key(id)`: its id in the store (a
        tournament's is "t:<id>"); `snapshot_every`: 0 stores no snapshot; `remembered`: 0 remembers none."""
        self._store = store
        self._evolve_all = evolve_all
        self._missing = missing
        self._key = key
        self._snapshot_every = snapshot_every
        self._recent = _Recent(remembered)

    def load(self, aggregate_id: str, upto: int | None = None) -> Current:
        """The aggregate at version `upto` (default: now, folded onto what is remembered when the events read
        continue its head; the result is remembered)."""
        recent = self._recent.get(aggregate_id) if upto is None else None
        loaded = self._store.load(self._key(aggregate_id), upto=upto, since=recent.head.version if recent else 0)
        if loaded is None:
            raise self._missing(aggregate_id)
        if recent and loaded.snapshot is None:
            if _continues(recent.head, loaded):
                state = self._evolve_all(recent.state, loaded.events)
                head = loaded.head if loaded.events else recent.head
                return self.remember(aggregate_id, Current(loaded.meta, state, head))
            self._recent.forget(aggregate_id)  # not this log's past (never seen: a log is only appended to)
            return self.load(aggregate_id)
        state = self._evolve_all(loaded.snapshot.state if loaded.snapshot else None, loaded.events)
        current = Current(loaded.meta, state, loaded.head)
        return self.remember(aggregate_id, current) if upto is None else current

    def recent(self, aggregate_id: str) -> Current | None:
        """The aggregate as this process last loaded or saved it, if it remembers it (it may be stale)."""
        return self._recent.get(aggregate_id)

    def meta(self, aggregate_id: str) -> dict:
        meta = self._store.meta(self._key(aggregate_id))
        if meta is None:
            raise self._missing(aggregate_id)
        return meta

    def save(self, aggregate_id: str, current: Current, events: list[dict], state: dict, meta: dict,
             idempotency: tuple[str, str] | None = None, time: str | None = None) -> Appended | Duplicate:
        """Appends `events` after `current.head` with `meta` (the fields it changes), making `state`; raises
        VersionConflict if the log has moved on. Remembers the aggregate as saved."""
        every = self._snapshot_every  # a snapshot each time the version passes a multiple of it
        passed = every and (current.head.version + len(events)) // every > current.head.version // every
        appended = self._store.append(self._key(aggregate_id), current.head, events, meta=meta,
                                      idempotency=idempotency, time=time, snapshot=state if passed else None)
        if isinstance(appended, Appended):
            saved = {**current.meta, **meta, "version": str(appended.head.version), "head": appended.head.hash}
            self._recent.put(aggregate_id, Current(saved, state, appended.head))
        return appended

    def remember(self, aggregate_id: str, current: Current) -> Current:
        self._recent.put(aggregate_id, current)
        return current

    def forget(self, aggregate_id: str) -> None:
        self._recent.forget(aggregate_id)


def _continues(head: Head, loaded: Loaded) -> bool:
    """Whether the events loaded follow `head` (or, none loaded, the log still ends there)."""
    if loaded.events:
        return loaded.events[0]["version"] == head.version + 1 and loaded.events[0]["prev"] == head.hash
    return int(loaded.meta["version"]) == head.version and loaded.meta["head"] == head.hash


class _Recent:
    """The aggregates this process loaded or saved lately, the least recently used forgotten first."""

    def __init__(self, size: int):
        self._size = size
        self._lock = threading.Lock()  # gunicorn's gevent workers patch it; RQ workers are one thread
        self._items: OrderedDict[str, Current] = OrderedDict()

    def get(self, aggregate_id: str) -> Current | None:
        with self._lock:
            found = self._items.get(aggregate_id)
            if found is not None:
                self._items.move_to_end(aggregate_id)
            return found

    def put(self, aggregate_id: str, current: Current) -> None:
        if not self._size:
            return
        with self._lock:
            known = self._items.get(aggregate_id)
            if known is not None and known.head.version > current.head.version:
                return  # a slower request must not put back an older state
            self._items[aggregate_id] = current
            self._items.move_to_end(aggregate_id)
            if len(self._items) > self._size:
                self._items.popitem(last=False)

    def forget(self, aggregate_id: str) -> None:
        with self._lock:
            self._items.pop(aggregate_id, None)


TOURNAMENT = "t:"  # a tournament's log is kept beside the matches', under this prefix


def tournament_key(tournament_id: str) -> str:
    """A tournament's id in the event store: its own aggregate, "t:<id>" (eventstore/redis_store.py keys)."""
    return f"{TOURNAMENT}{tournament_id}"
