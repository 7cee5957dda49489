"""The Redis Streams event store.

Keys of one match share the hash tag {m:<id>} so one Lua script can touch them all under Redis Cluster:
    cr:{m:<id>}:events   stream, entry id "<version>-0", one field "e" = the stored event as JSON
    cr:{m:<id>}:meta     hash: version, head, and what the service keeps (game, status, secrets, ...)
    cr:{m:<id>}:snaps    sorted set: score = version, member = {"version", "hash", "state"} as JSON
    cr:{m:<id>}:idem     hash: idempotency key -> the remembered answer
The catalog of matches is outside any match: cr:matches:seq (counter), cr:matches (sorted set, score =
position), cr:matches:game:<game>, and cr:matches:active (set) for the janitor that recovers bot turns.
"""
import json

from eventstore.base import Appended, Duplicate, EventStore, Head, Loaded, Snapshot, VersionConflict
from eventstore.chain import seal
from eventstore.clock import utc_now

# KEYS: events, meta, idem. ARGV: expected version, expected head, new head, idempotency key ('' if none),
# idempotency record, n, n event JSONs, then meta field/value pairs.
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
local n = tonumber(ARGV[6])
for i = 1, n do
  redis.call('XADD', KEYS[1], (version + i) .. '-0', 'e', ARGV[6 + i])
end
redis.call('HSET', KEYS[2], 'version', tostring(version + n), 'head', ARGV[3])
for i = 7 + n, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], ARGV[4], ARGV[5]) end
return {'ok', tostring(version + n)}
"""

# KEYS: events, meta, snaps. ARGV: upto version ('' = the end). One round trip for a whole load.
LOAD = """
local meta = redis.call('HGETALL', KEYS[2])
if #meta == 0 then return false end
local upto = ARGV[1]
if upto == '' then upto = redis.call('HGET', KEYS[2], 'version') end
local snap = redis.call('ZREVRANGEBYSCORE', KEYS[3], upto, '-inf', 'LIMIT', 0, 1)
local start = 1
if #snap > 0 then start = tonumber(cjson.decode(snap[1])['version']) + 1 end
local events = {}
if start <= tonumber(upto) then
  events = redis.call('XRANGE', KEYS[1], start .. '-0', upto .. '-0')
end
return {meta, snap, events}
"""


def keys(match_id: str) -> tuple[str, str, str, str]:
    tag = f"cr:{{m:{match_id}}}"
    return f"{tag}:events", f"{tag}:meta", f"{tag}:snaps", f"{tag}:idem"


class RedisEventStore(EventStore):
    def __init__(self, client, clock=utc_now):
        """`client` is a redis.Redis with decode_responses=True."""
        self._redis = client
        self._clock = clock
        self._append = client.register_script(APPEND)
        self._load = client.register_script(LOAD)

    def append(self, match_id, expected, events, *, meta=None, idempotency=None):
        stored = seal(events, expected.version, expected.hash, self._clock())
        head = Head(expected.version + len(stored), stored[-1]["hash"] if stored else expected.hash)
        events_key, meta_key, _, idem_key = keys(match_id)
        key, record = idempotency or ("", "")
        meta_pairs = [item for pair in (meta or {}).items() for item in pair]
        outcome, value = self._append(
            keys=[events_key, meta_key, idem_key],
            args=[expected.version, expected.hash, head.hash, key, record, len(stored),
                  *(json.dumps(e) for e in stored), *meta_pairs])
        if outcome == "duplicate":
            return Duplicate(value)
        if outcome == "conflict":
            raise VersionConflict(int(value))
        return Appended(stored, head)

    def load(self, match_id, upto=None):
        events_key, meta_key, snaps_key, _ = keys(match_id)
        found = self._load(keys=[events_key, meta_key, snaps_key], args=["" if upto is None else upto])
        if not found:
            return None
        flat_meta, snap, entries = found
        snapshot = None
        if snap:
            raw = json.loads(snap[0])
            snapshot = Snapshot(raw["version"], raw["hash"], raw["state"])
        meta = dict(zip(flat_meta[::2], flat_meta[1::2]))
        return Loaded(meta, snapshot, [json.loads(fields[1]) for _, fields in entries])

    def read(self, match_id, after=0, upto=None):
        end = "+" if upto is None else f"{upto}-0"
        entries = self._redis.xrange(keys(match_id)[0], f"({after}-0" if after else "-", end)
        return [json.loads(fields["e"]) for _, fields in entries]

    def meta(self, match_id):
        return self._redis.hgetall(keys(match_id)[1]) or None

    def recall(self, match_id, key):
        return self._redis.hget(keys(match_id)[3], key)

    def save_snapshot(self, match_id, snapshot):
        member = json.dumps({"version": snapshot.version, "hash": snapshot.hash, "state": snapshot.state})
        self._redis.zadd(keys(match_id)[2], {member: snapshot.version})

    def index(self, match_id, game):
        position = self._redis.incr("cr:matches:seq")
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd("cr:matches", {match_id: position})
        pipe.zadd(f"cr:matches:game:{game}", {match_id: position})
        pipe.sadd("cr:matches:active", match_id)
        pipe.execute()

    def retire(self, match_id):
        self._redis.srem("cr:matches:active", match_id)

    def active(self):
        return sorted(self._redis.smembers("cr:matches:active"))

    def metas(self, match_ids):
        pipe = self._redis.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hgetall(keys(match_id)[1])
        return [meta or None for meta in pipe.execute()]

    def matches(self, game, before, limit):
        listing = "cr:matches" if game is None else f"cr:matches:game:{game}"
        found = self._redis.zrevrangebyscore(listing, f"({before}" if before else "+inf", "-inf",
                                             start=0, num=limit, withscores=True)
        return [(int(score), match_id) for match_id, score in found]
