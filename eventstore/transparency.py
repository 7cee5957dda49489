"""Where the Merkle log of finished matches is kept (docs/fairness.md, "Transparency"): its leaf hashes in order,
the leaf of each match, and the finished matches whose leaf is due.

In Redis the log's keys share the hash tag {tlog} (one slot on a cluster, so one script appends atomically):
    cr:{tlog}:leaves   list: the leaf hashes (hex), in the order appended; never rewritten, never trimmed
    cr:{tlog}:index    hash: match -> the index of its leaf
and cr:transparency:due (sorted set: match -> when it finished) is what the janitor reads. A match is appended once:
the script looks its index up first, so a retry, the janitor's make-up and a race of the two give one leaf.
"""
import threading
from abc import abstractmethod

from eventstore.due import DueMatches, InMemoryDueMatches, RedisDueMatches

LEAVES, INDEX = "cr:{tlog}:leaves", "cr:{tlog}:index"
DUE = "cr:transparency:due"
# KEYS: the leaves, the index. ARGV: the match, its leaf hash. Returns the match's leaf index, appending it if new.
APPEND = """
local known = redis.call('HGET', KEYS[2], ARGV[1])
if known then return tonumber(known) end
local index = redis.call('RPUSH', KEYS[1], ARGV[2]) - 1
redis.call('HSET', KEYS[2], ARGV[1], index)
return index
"""


class TransparencyStore(DueMatches):
    @abstractmethod
    def append(self, match_id: str, leaf: str) -> int:
        """The index of the match's leaf: `leaf` (hex) appended at the end if the match has none yet."""

    @abstractmethod
    def index_of(self, match_id: str) -> int | None: ...

    @abstractmethod
    def size(self) -> int:
        """How many leaves the log holds."""

    @abstractmethod
    def leaves(self, start: int, stop: int) -> list[str]:
        """The leaf hashes (hex) from index `start` up to `stop`, excluded."""



class RedisTransparencyStore(RedisDueMatches, TransparencyStore):
    """On Redis or Redis Cluster alike (the log's keys share one slot)."""

    due_key = DUE

    def __init__(self, client):
        self._redis = client
        self._append = client.register_script(APPEND)

    def append(self, match_id, leaf):
        return int(self._append(keys=[LEAVES, INDEX], args=[match_id, leaf]))

    def index_of(self, match_id):
        found = self._redis.hget(INDEX, match_id)
        return None if found is None else int(found)

    def size(self):
        return int(self._redis.llen(LEAVES))

    def leaves(self, start, stop):
        return self._redis.lrange(LEAVES, start, stop - 1) if stop > start else []



class InMemoryTransparencyStore(InMemoryDueMatches, TransparencyStore):
    """For unit tests: the same answers as Redis, under one lock."""

    def __init__(self):
        self._lock = threading.Lock()
        self._leaves: list[str] = []
        self._index: dict[str, int] = {}
        self._due: dict[str, float] = {}

    def append(self, match_id, leaf):
        with self._lock:
            if match_id not in self._index:
                self._index[match_id] = len(self._leaves)
                self._leaves.append(leaf)
            return self._index[match_id]

    def index_of(self, match_id):
        with self._lock:
            return self._index.get(match_id)

    def size(self):
        with self._lock:
            return len(self._leaves)

    def leaves(self, start, stop):
        with self._lock:
            return self._leaves[start:stop]

