"""The Redis Streams event store.

Keys of one match share the hash tag {m:<id>} so one Lua script can touch them all under Redis Cluster:
    cr:{m:<id>}:events   stream, entry id "<version>-0", one field "e" = the stored event as JSON
    cr:{m:<id>}:meta     hash: version, head, and what the service keeps (game, status, secrets, ...)
    cr:{m:<id>}:snaps    sorted set: score = version, member = {"version", "hash", "state"} as JSON
    cr:{m:<id>}:idem     hash: idempotency key -> the remembered answer
    cr:{m:<id>}:archive  string: an archived match's log, zlib-compressed JSON (in place of events, snaps, idem)
A tournament's keys are the same under the tag {t:<id>} (its id in the store is "t:<id>"); its catalog is
cr:tournaments:seq, cr:tournaments and cr:tournaments:game:<game>.
The catalog of matches is outside any match: cr:matches:seq (counter), cr:matches (sorted set, score =
position), cr:matches:game:<game>, the status index cr:matches:status:<status> and
cr:matches:game:<game>:status:<status> (same scores), and cr:bots:awaited (sorted set, score = when the
awaited bot turn began) for the janitor that recovers bot turns; cr:archive:due (sorted set, score = when
a finished match is to be archived). The listings of finished matches, by when each finished (score: milliseconds
since the epoch, ties in id order): cr:finished, cr:finished:game:<game>, cr:finished:rated:<0|1>,
cr:finished:game:<game>:rated:<0|1>, and an account's cr:{a:<id>}:finished and a tournament's cr:{t:<id>}:finished
(in their hash tags).
cr:wake:<uuid> is one store object's wake-up stream: `tail` reads it along with the match streams, so an
XADD to it ends a waiting XREAD BLOCK (it expires when no longer woken).

`tail` is one XREAD BLOCK over every stream asked for, so it needs them in one slot: under Redis Cluster
eventstore/redis_cluster.py blocks on a change feed instead.
"""
import logging
import uuid
import zlib

from redis.client import NEVER_DECODE

from eventstore import codec
from eventstore.base import Appended, Duplicate, EventStore, Head, Loaded, Snapshot, VersionConflict
from eventstore.chain import seal
from eventstore.clock import utc_now

# KEYS: events, meta, idem, snaps. ARGV: expected version, expected head, new head, idempotency key ('' if none),
# idempotency record, snapshot JSON at the new head ('' if none), n, n event JSONs, then meta field/value pairs.
APPEND = """
if ARGV[4] ~= '' then
  local prior = redis.call('HGET', KEYS[3], ARGV[4])
  if prior then return {'duplicate', prior} end
end
local version = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
local head = redis.call('HGET', KEYS[2], 'head') or ''
if version ~= tonumber(ARGV[1]) or (version > 0 and head ~= ARGV[2]) then
  return {'conflict', tostring(version)}
end
local n = tonumber(ARGV[7])
for i = 1, n do
  redis.call('XADD', KEYS[1], (version + i) .. '-0', 'e', ARGV[7 + i])
end
redis.call('HSET', KEYS[2], 'version', tostring(version + n), 'head', ARGV[3])
for i = 8 + n, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], ARGV[4], ARGV[5]) end
if ARGV[6] ~= '' then redis.call('ZADD', KEYS[4], version + n, ARGV[6]) end
return {'ok', tostring(version + n)}
"""

# KEYS: events, meta, snaps. ARGV: upto version ('' = the end), since (the version of the caller's own state:
# a snapshot is sent only when later than that). One round trip for a whole load.
LOAD = """
local meta = redis.call('HGETALL', KEYS[2])
if #meta == 0 then return false end
local upto = ARGV[1]
if upto == '' then upto = redis.call('HGET', KEYS[2], 'version') end
local since = tonumber(ARGV[2])
local snap = redis.call('ZREVRANGEBYSCORE', KEYS[3], upto, '(' .. since, 'LIMIT', 0, 1)
local start = since + 1
if #snap > 0 then start = tonumber(cjson.decode(snap[1])['version']) + 1 end
local events = {}
if start <= tonumber(upto) then
  events = redis.call('XRANGE', KEYS[1], start .. '-0', upto .. '-0')
end
return {meta, snap, events}
"""

# KEYS: the awaited-bots index. ARGV: match, noted_by. Forgets the match unless noted again after noted_by.
RELEASE_BOT = """
local since = redis.call('ZSCORE', KEYS[1], ARGV[1])
if since and tonumber(since) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""
BOTS_AWAITED = "cr:bots:awaited"
DEADLINES = "cr:clocks:deadlines"

# KEYS: events, meta, snaps, idem, archive. ARGV: the version archived, its compressed log. Replaces the hot
# keys by the archive unless the log changed since it was read (0: try again) or was archived already (-1).
ARCHIVE = """
if redis.call('HGET', KEYS[2], 'archived') or not redis.call('HGET', KEYS[2], 'version') then return -1 end
if redis.call('HGET', KEYS[2], 'version') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[5], ARGV[2])
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[2], 'archived', '1')
return 1
"""
ARCHIVE_DUE = "cr:archive:due"

# KEYS: a listing of finished matches. ARGV: since, after ('' if none), limit. Pages by rank after `after` (ties
# at one millisecond page by id), else by score from `since`; {'missing'} if `after` is not listed.
FINISHED = """
local limit = tonumber(ARGV[3])
if ARGV[2] ~= '' then
  local at = redis.call('ZSCORE', KEYS[1], ARGV[2])
  if not at then return {'missing'} end
  if tonumber(at) >= tonumber(ARGV[1]) then
    local rank = redis.call('ZRANK', KEYS[1], ARGV[2])
    return {'ok', redis.call('ZRANGE', KEYS[1], rank + 1, rank + limit, 'WITHSCORES')}
  end
end
return {'ok', redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, limit)}
"""
ARCHIVE_COMPRESSION = 6  # zlib's default level: archived logs were 4.5-7x smaller than in the stream

log = logging.getLogger("cardroom.eventstore")
WAKE_TTL_MS = 600_000
TAIL_COUNT = 1000  # events per log per XREAD: bounds one answer; the caller asks again for the rest
SOCKET_MARGIN = 0.8  # a BLOCK takes at most this share of the client's socket timeout, so no read times out


def _socket_timeout(client) -> float | None:
    """The read timeout the client's connections get (redis-py 8 sets 5 s unless told otherwise): a
    connection object is built, not connected, to ask it (a RedisCluster's nodes each have a pool, alike)."""
    pool = client.connection_pool if hasattr(client, "connection_pool") else \
        client.get_default_node().redis_connection.connection_pool
    return pool.connection_class(**pool.connection_kwargs).socket_timeout


def keys(stream: str) -> tuple[str, str, str, str]:
    """A stream's keys: a match's id; another aggregate's names its kind, "<kind>:<id>" (a tournament's "t:<id>")."""
    tag = f"cr:{{{stream}}}" if ":" in stream else f"cr:{{m:{stream}}}"
    return f"{tag}:events", f"{tag}:meta", f"{tag}:snaps", f"{tag}:idem"


def archive_key(match_id: str) -> str:
    return f"cr:{{m:{match_id}}}:archive"


class RedisEventStore(EventStore):
    def __init__(self, client, clock=utc_now, wait_replicas: int = 0, wait_timeout: float = 0.5):
        """`client` is a redis.Redis with decode_responses=True. `wait_replicas`: each append waits (WAIT) until
        that many replicas have it, or `wait_timeout` seconds (then it is acknowledged anyway, with a warning:
        it is applied and cannot be taken back); 0: no waiting (docs/deployment.md: what it buys and costs)."""
        self._redis = client
        self._clock = clock
        self._wait = (wait_replicas, max(1, int(wait_timeout * 1000)))
        self._append = client.register_script(APPEND)
        self._load = client.register_script(LOAD)
        self._release_bot = client.register_script(RELEASE_BOT)
        self._archive = client.register_script(ARCHIVE)
        self._finished = client.register_script(FINISHED)
        self._wake_key = f"cr:wake:{uuid.uuid4().hex}"
        self._wake_seen = "0-0"  # the last wake-up a tail consumed: one that comes before the XREAD still counts
        socket_timeout = _socket_timeout(client)
        self._longest_block = socket_timeout * SOCKET_MARGIN if socket_timeout else None

    def append(self, stream, expected, events, *, meta=None, idempotency=None, time=None, snapshot=None):
        stored = seal(events, expected.version, expected.hash, time or self._clock())
        head = Head(expected.version + len(stored), stored[-1]["hash"] if stored else expected.hash)
        events_key, meta_key, snaps_key, idem_key = keys(stream)
        key, record = idempotency or ("", "")
        kept = "" if snapshot is None else codec.dumps({"version": head.version, "hash": head.hash, "state": snapshot})
        meta_pairs = [item for pair in (meta or {}).items() for item in pair]
        outcome, value = self._run_append(
            keys=[events_key, meta_key, idem_key, snaps_key],
            args=[expected.version, expected.hash, head.hash, key, record, kept, len(stored),
                  *(codec.dumps(e) for e in stored), *meta_pairs])
        if outcome == "duplicate":
            return Duplicate(value)
        if outcome == "conflict":
            raise VersionConflict(int(value))
        return Appended(stored, head)

    def _run_append(self, keys, args):
        replicas, timeout_ms = self._wait
        if not replicas:
            return self._append(keys=keys, args=args)
        # WAIT counts the replicas that have this connection's writes: it goes on the append's connection
        pipe = self._pipeline_to(keys[0])
        self._append(keys=keys, args=args, client=pipe)
        pipe.execute_command("WAIT", replicas, timeout_ms)
        answer, confirmed = pipe.execute()
        if answer[0] == "ok" and confirmed < replicas:
            log.warning("an append to %s was acknowledged by %d replica(s) of the %d waited for", keys[0],
                        confirmed, replicas)
        return answer

    def _pipeline_to(self, key: str):
        """A pipeline on one connection to the Redis serving `key`."""
        return self._redis.pipeline(transaction=False)

    def load(self, stream, upto=None, since=0):
        events_key, meta_key, snaps_key, _ = keys(stream)
        found = self._load(keys=[events_key, meta_key, snaps_key], args=["" if upto is None else upto, since])
        if not found:
            return None
        flat_meta, snap, entries = found
        meta = dict(zip(flat_meta[::2], flat_meta[1::2]))
        if meta.get("archived"):
            upto = int(meta["version"]) if upto is None else upto
            return Loaded(meta, None, [e for e in self._archived(stream) if since < e["version"] <= upto])
        snapshot = None
        if snap:
            raw = codec.loads(snap[0])
            snapshot = Snapshot(raw["version"], raw["hash"], raw["state"])
        return Loaded(meta, snapshot, [codec.loads(fields[1]) for _, fields in entries])

    def read(self, stream, after=0, upto=None):
        end = "+" if upto is None else f"{upto}-0"
        entries = self._redis.xrange(keys(stream)[0], f"({after}-0" if after else "-", end)
        if not entries:  # nothing new, or an archived match
            return [e for e in self._archived(stream)
                    if after < e["version"] and (upto is None or e["version"] <= upto)]
        return [codec.loads(fields["e"]) for _, fields in entries]

    def _archived(self, stream: str) -> list[dict]:
        """An archived match's log ([] if it is not archived)."""
        packed = self._redis.execute_command("GET", archive_key(stream), **{NEVER_DECODE: True})
        return codec.loads(zlib.decompress(packed)) if packed else []

    def tail(self, after, timeout):
        if self._longest_block is not None:
            timeout = min(timeout, self._longest_block)
        streams = {keys(match_id)[0]: f"{version}-0" for match_id, version in after.items()}
        match_ids = {keys(match_id)[0]: match_id for match_id in after}
        answer = self._redis.xread({**streams, self._wake_key: self._wake_seen}, count=TAIL_COUNT,
                                   block=max(1, int(timeout * 1000)))
        found = {}
        for stream, entries in answer or []:
            if stream == self._wake_key:
                self._wake_seen = entries[-1][0]
            else:
                found[match_ids[stream]] = [codec.loads(fields["e"]) for _, fields in entries]
        return found

    def wake(self):
        pipe = self._redis.pipeline(transaction=False)
        pipe.xadd(self._wake_key, {"w": "1"}, maxlen=1, approximate=False)
        pipe.pexpire(self._wake_key, WAKE_TTL_MS)
        pipe.execute()

    def meta(self, stream):
        return self._redis.hgetall(keys(stream)[1]) or None

    def recall(self, stream, key):
        return self._redis.hget(keys(stream)[3], key)

    def annotate(self, stream, fields):
        self._redis.hset(keys(stream)[1], mapping=fields)

    def index(self, aggregate_id, game, catalog="matches"):
        position = self._redis.incr(f"cr:{catalog}:seq")
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(f"cr:{catalog}", {aggregate_id: position})
        pipe.zadd(f"cr:{catalog}:game:{game}", {aggregate_id: position})
        pipe.execute()

    def list_status(self, match_id, game, status):
        position = self._redis.zscore("cr:matches", match_id)
        if position is None:
            return  # not in the catalog: nothing to list it by
        pipe = self._redis.pipeline(transaction=False)
        for listing in _status_listings(game, status):
            pipe.zadd(listing, {match_id: position})
        pipe.execute()

    def unlist_status(self, match_id, game, status):
        pipe = self._redis.pipeline(transaction=False)
        for listing in _status_listings(game, status):
            pipe.zrem(listing, match_id)
        pipe.execute()

    def metas(self, streams):
        pipe = self._redis.pipeline(transaction=False)
        for stream in streams:
            pipe.hgetall(keys(stream)[1])
        return [meta or None for meta in pipe.execute()]

    def matches(self, game, before, limit, status=None, catalog="matches"):
        if status is not None:
            listing = _status_listings(game, status)[0 if game is None else 1]
        else:
            listing = f"cr:{catalog}" if game is None else f"cr:{catalog}:game:{game}"
        found = self._redis.zrevrangebyscore(listing, f"({before}" if before else "+inf", "-inf",
                                             start=0, num=limit, withscores=True)
        return [(int(score), match_id) for match_id, score in found]

    def list_finished(self, match_id, at, listings):
        pipe = self._redis.pipeline(transaction=False)
        for listing in listings:
            pipe.zadd(finished_key(listing), {match_id: at})
        pipe.execute()

    def finished(self, listing, since, after, limit):
        outcome, *found = self._finished(keys=[finished_key(listing)], args=[since, after or "", limit])
        if outcome == "missing":
            return None
        entries = found[0]
        return [(int(at), match_id) for match_id, at in zip(entries[::2], entries[1::2])]

    def await_bot(self, match_id, since):
        self._redis.zadd(BOTS_AWAITED, {match_id: since})

    def bots_awaited(self, since_before, limit):
        found = self._redis.zrangebyscore(BOTS_AWAITED, "-inf", f"({since_before!r}", start=0, num=limit,
                                          withscores=True)
        return [(match_id, since) for match_id, since in found]

    def release_bot(self, match_id, noted_by):
        self._release_bot(keys=[BOTS_AWAITED], args=[match_id, repr(noted_by)])

    def archive_when(self, match_id, due):
        self._redis.zadd(ARCHIVE_DUE, {match_id: due})

    def archives_due(self, before, limit):
        return self._redis.zrangebyscore(ARCHIVE_DUE, "-inf", f"({before!r}", start=0, num=limit)

    def archive(self, match_id):
        events_key, meta_key, snaps_key, idem_key = keys(match_id)
        done = 0
        while done == 0:  # the log grew between reading it and archiving it (not once finished): read it again
            version = self._redis.hget(meta_key, "version")
            log = self.read(match_id)
            packed = zlib.compress(codec.dumps(log), ARCHIVE_COMPRESSION)
            done = self._archive(keys=[events_key, meta_key, snaps_key, idem_key, archive_key(match_id)],
                                 args=[version or "", packed])
        self._redis.zrem(ARCHIVE_DUE, match_id)
        return done == 1

    def note_deadline(self, match_id, deadline):
        if deadline is None:
            self._redis.zrem(DEADLINES, match_id)
        else:
            self._redis.zadd(DEADLINES, {match_id: deadline})

    def deadlines_passed(self, before, limit):
        found = self._redis.zrangebyscore(DEADLINES, "-inf", f"({before!r}", start=0, num=limit, withscores=True)
        return [(match_id, deadline) for match_id, deadline in found]

    def expire_extras(self, match_id, seconds):
        _, _, snaps_key, idem_key = keys(match_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.expire(snaps_key, seconds)
        pipe.expire(idem_key, seconds)
        pipe.execute()


def finished_key(listing: str) -> str:
    """The key of a listing of finished matches: an account's and a tournament's in their own hash tags."""
    kind, _, owner = listing.partition(":")
    if kind == "account":
        return f"cr:{{a:{owner}}}:finished"
    if kind == "tournament":
        return f"cr:{{t:{owner}}}:finished"
    return "cr:finished" if listing == "all" else f"cr:finished:{listing}"


def _status_listings(game: str, status: str) -> tuple[str, str]:
    return f"cr:matches:status:{status}", f"cr:matches:game:{game}:status:{status}"
