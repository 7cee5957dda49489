"""The event store's ports: the log of each aggregate (Log), following logs live (LogTail; FollowedLog, both), the
catalogs (Catalog), the janitor's notes (JanitorNotes) and a finished match's retention (Archive). EventStore is all
of them, which the Redis, Redis Cluster and in-memory stores implement; each passes
tests/contract/test_eventstore_contract.py."""
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from eventstore.chain import GENESIS


@dataclass(frozen=True)
class Head:
    """Where a log ends: its version (number of events) and the hash of its last event."""
    version: int = 0
    hash: str = GENESIS


@dataclass(frozen=True)
class Snapshot:
    version: int
    hash: str
    state: dict


@dataclass
class Loaded:
    """An aggregate as read in one go: its metadata, the latest snapshot at or before the version asked
    for, and the events after that snapshot."""
    meta: dict[str, str]
    snapshot: Snapshot | None
    events: list[dict] = field(default_factory=list)

    @property
    def head(self) -> Head:
        if self.events:
            return Head(self.events[-1]["version"], self.events[-1]["hash"])
        return Head(self.snapshot.version, self.snapshot.hash) if self.snapshot else Head()


@dataclass(frozen=True)
class Appended:
    events: list[dict]  # the stored events, as appended
    head: Head


@dataclass(frozen=True)
class Duplicate:
    """The idempotency key was used before: nothing was appended; `record` is what was remembered."""
    record: str


class VersionConflict(Exception):
    def __init__(self, current: int):
        super().__init__(f"the log is at version {current}")
        self.current = current


class Log(ABC):
    """The log port, what service/repository.py needs: each aggregate is a stream of events (a match's is its id, a
    tournament's "t:<id>"), with its meta, its snapshots and its idempotency records beside it."""

    @abstractmethod
    def append(self, stream: str, expected: Head, events: list[dict], *, meta: dict[str, str] | None = None,
               idempotency: tuple[str, str] | None = None, time: str | None = None,
               snapshot: dict | None = None) -> Appended | Duplicate:
        """Append all events after `expected` or none. Raises VersionConflict if the log is not at
        `expected`. With idempotency=(key, record): if key was recorded before, return Duplicate and
        append nothing; else append and remember record under key, atomically. `meta` fields are set
        in the same step (the store adds version and head). `time`: the events' time (ISO 8601 UTC; default:
        the store's clock), given by a caller that folded the events with it (a turn clock reads it).
        `snapshot`: the state after these events, kept as the snapshot at the new head in the same step."""

    @abstractmethod
    def load(self, stream: str, upto: int | None = None, since: int = 0) -> Loaded | None:
        """Meta, latest snapshot at or before `upto` (default: the end) and the events after it up to `upto`.
        `since`: the version of a state the caller holds; when no snapshot up to `upto` is later than it, no
        snapshot is returned and the events start after `since` (the caller folds them onto its own state)."""

    @abstractmethod
    def read(self, stream: str, after: int = 0, upto: int | None = None) -> list[dict]:
        """The stored events with after < version <= upto."""

    @abstractmethod
    def meta(self, stream: str) -> dict[str, str] | None: ...

    @abstractmethod
    def metas(self, streams: list[str]) -> list[dict[str, str] | None]:
        """The meta of each stream, in one round trip."""

    @abstractmethod
    def recall(self, stream: str, key: str) -> str | None:
        """What was remembered under an idempotency key, if anything."""

    @abstractmethod
    def annotate(self, stream: str, fields: dict[str, str]) -> None:
        """Sets `fields` of an existing stream's meta outside any append: what is said of an aggregate after its
        log ended (a finished match's rematch), never a field an append writes (its version does not change)."""


class LogTail(ABC):
    """Following logs as they grow: what the stream hub (service/live/hub.py) waits on."""

    @abstractmethod
    def tail(self, after: dict[str, int], timeout: float) -> dict[str, list[dict]]:
        """Wait up to `timeout` seconds until any of the logs named in `after` (stream -> version) has
        events past its version; return them, by stream (only the logs that have some). Returns at
        once if some are already there; returns {} on timeout or when `wake` is called meanwhile."""

    @abstractmethod
    def wake(self) -> None:
        """End a `tail` of this store object that is waiting (or the next one, if none is), so its
        caller can wait again on other logs."""


class Catalog(ABC):
    """The catalogs beside the logs: the matches newest first (by game, by status), another aggregate's in its own
    `catalog` (the tournaments'). Kept a superset of the truth: readers check the metas."""

    @abstractmethod
    def index(self, aggregate_id: str, game: str, catalog: str = "matches") -> None:
        """List the aggregate in its catalog (newest first): a match in the catalog of matches."""

    @abstractmethod
    def list_status(self, match_id: str, game: str, status: str) -> None:
        """List an indexed match under `status` (alone and with its game) at its catalog position. It stays
        listed under a former status until unlist_status: listings still check the meta."""

    @abstractmethod
    def unlist_status(self, match_id: str, game: str, status: str) -> None: ...

    @abstractmethod
    def matches(self, game: str | None, before: int | None, limit: int,
                status: str | None = None, catalog: str = "matches") -> list[tuple[int, str]]:
        """(position, id) of listed matches (under `status` if given), newest first, with position < before;
        of another `catalog` (no status there)."""

    @abstractmethod
    def list_finished(self, match_id: str, at: int, listings: list[str]) -> None:
        """List a match in each of the listings of finished matches named (service/matches/reactions/finished.py
        names them: "all", "game:<game>", "account:<id>", ...) at `at`, when it finished (milliseconds since the
        epoch). Listing it again moves it to the new time."""

    @abstractmethod
    def finished(self, listing: str, since: int, after: str | None, limit: int) -> list[tuple[int, str]] | None:
        """(at, id) of up to `limit` matches of a listing of finished matches, oldest first, those listed at the same
        millisecond by id: the first listed at `since` or later, or, when `after` (a listed match) is at `since` or
        later, those that follow it. None if `after` is not in the listing."""


class JanitorNotes(ABC):
    """What the janitor reads to make up for lost work (workers/janitor.py): the matches awaiting a bot, and the
    turn clocks' next deadlines."""

    @abstractmethod
    def await_bot(self, match_id: str, since: float) -> None:
        """Note that the match awaits a bot's turn since `since` (seconds since the epoch); noting it again
        moves it to the later time."""

    @abstractmethod
    def bots_awaited(self, since_before: float, limit: int) -> list[tuple[str, float]]:
        """(match, since) of the matches noted as awaiting a bot since before `since_before`, oldest first."""

    @abstractmethod
    def release_bot(self, match_id: str, noted_by: float) -> None:
        """Forget that the match awaits a bot, unless it was noted again after `noted_by`."""

    @abstractmethod
    def note_deadline(self, match_id: str, deadline: float | None) -> None:
        """Note when the match's turn clock next runs out (seconds since the epoch); None forgets it."""

    @abstractmethod
    def deadlines_passed(self, before: float, limit: int) -> list[tuple[str, float]]:
        """(match, deadline) of the matches whose noted deadline is before `before`, earliest first."""


class Archive(ABC):
    """A finished match's retention: its extras expire, its log is archived (docs/deployment.md)."""

    @abstractmethod
    def expire_extras(self, match_id: str, seconds: int) -> None:
        """Let the match's snapshots and idempotency records expire in `seconds`; its log and meta stay."""

    @abstractmethod
    def archive_when(self, match_id: str, due: float) -> None:
        """Note that the (finished) match is to be archived from `due` on (seconds since the epoch)."""

    @abstractmethod
    def archives_due(self, before: float, limit: int) -> list[str]:
        """The matches noted to be archived from before `before`, the longest due first."""

    @abstractmethod
    def archive(self, match_id: str) -> bool:
        """Move the match's log out of the hot keys into one compressed record (its snapshots and idempotency
        records go; its meta stays, with archived=1) and forget its note; False if there was nothing to
        archive. load, read and meta then answer as before; nothing may be appended any more."""


class FollowedLog(Log, LogTail, ABC):
    """A log read live: its tail for the new events, the log itself for those a follower missed (service/live/hub.py)."""


class EventStore(FollowedLog, Catalog, JanitorNotes, Archive):
    """Every port at once, as each store implements them: Redis (redis_store.py), Redis Cluster (redis_cluster.py)
    and in memory (memory.py); a part of the service that needs one port is given it alone."""
