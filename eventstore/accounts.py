"""Where accounts are kept: the account records, the unique names, the key index and each account's matches.
Both implementations pass tests/contract/test_account_store_contract.py.

In Redis the keys of one account share the hash tag {a:<id>} (DESIGN.md: one aggregate, one hash tag):
    cr:{a:<id>}:account   hash: id, name, kind, created_at, key (the SHA-256 of its API key, hex), challenges
                          (who may invite it, as JSON; absent: the default), disabled (the operator's reason)
    cr:{a:<id>}:matches   sorted set: match id -> the account's own running number (newest = highest)
    cr:{a:<id>}:open      set: the account's matches not yet seen finished (for the bound on open matches)
    cr:{a:<id>}:opened    hash: open match -> when it was noted open (ms): a match whose creation never appeared
                          is forgotten once this is old enough (docs/challenges.md, "Room")
    cr:{a:<id>}:auto      set: the open matches it was seated in unasked (an `auto` account): its auto_accept_max
    cr:{a:<id>}:seeks     sorted set: its open seeks -> when each expires (ms): each holds room for its match
    cr:{a:<id>}:invited   set: the matches inviting the account, not yet seen accepted or ended (never counted
                          as open: a stranger's invitations cannot use up an account's room)
    cr:{a:<id>}:events    stream: the newest match noted, as an event {version: its number, type: "match_noted",
                          data: {match}} at the stream id "<number>-0": the account's index of matches followed
                          like a log (the log `noted_log(id)`), so a feed's hub wakes at once when one is noted.
                          Kept to its newest entry: it only wakes; the sorted set above is the index.
The indexes are outside any account: cr:accounts:name:<lower-cased name> -> id (claimed by SET NX, which is
what makes names unique regardless of case) and cr:accounts:key:<key hash> -> id. A key index entry is only
a pointer: `by_key` trusts it only when the account's record holds the same hash, so an entry a crash left
behind (or a rotated key's) never lets anyone in.
"""
import threading
from abc import ABC, abstractmethod

from redis.cluster import RedisCluster

from eventstore.redis_cluster import CHANGES, CHANGES_KEPT

# KEYS: the account's record. ARGV: the current key hash, the new one. Compare-and-set: 1 if replaced.
REPLACE_KEY = """
if redis.call('HGET', KEYS[1], 'key') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'key', ARGV[2])
return 1
"""
# How noting a match counts in the account's room (open matches + open seeks <= MAX_OPEN_MATCHES), and what it
# was noted as:
INVITED = "invited"  # an invitation: listed, never counted
SEATED = "seated"    # counted, only with room (else FULL, and nothing noted)
AUTO = "auto"        # seated unasked: counted with room and below the account's auto_accept_max, else INVITED
PAIRED = "paired"    # the match of a seek: counted whatever, in place of the seek's hold
FULL = "full"
HELD = "held"        # a seek's hold taken
TOO_MANY_SEEKS = "too_many_seeks"

# KEYS: the account's record, matches, open, invited, its stream of notes, seeks, auto, opened.
# ARGV: match, how (above), now (ms), room, auto_accept_max, the seek a PAIRED match takes the hold of.
# One decision per account, whatever races it: the count, the room and the note in one step. Numbers the account's
# matches; a match noted again keeps its place and is open again (a seat taken again after leaving it, an
# invitation accepted). Returns {what it was noted as, or FULL; the new position, or 0}.
NOTE_MATCH = """
local match, how, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local noted = how
if (how == 'seated' or how == 'auto') and redis.call('SISMEMBER', KEYS[3], match) == 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
  local full = redis.call('SCARD', KEYS[3]) + redis.call('ZCARD', KEYS[6]) >= tonumber(ARGV[4])
  if how == 'seated' and full then return {'full', 0} end
  if how == 'auto' and (full or redis.call('SCARD', KEYS[7]) >= tonumber(ARGV[5])) then noted = 'invited' end
end
if noted == 'invited' then
  redis.call('SADD', KEYS[4], match)
else
  redis.call('SADD', KEYS[3], match)
  redis.call('SREM', KEYS[4], match)
  redis.call('HSET', KEYS[8], match, now)
  if noted == 'auto' then redis.call('SADD', KEYS[7], match) end
  if noted == 'paired' then redis.call('ZREM', KEYS[6], ARGV[6]) end
end
if redis.call('ZSCORE', KEYS[2], match) then return {noted, 0} end
local position = redis.call('HINCRBY', KEYS[1], 'matches', 1)
redis.call('ZADD', KEYS[2], position, match)
redis.call('XADD', KEYS[5], 'MAXLEN', '1', position .. '-0', 'e',
           cjson.encode({version = position, type = 'match_noted', data = {match = match}}))
return {noted, position}
"""
# KEYS: open, seeks. ARGV: seek, when it expires (ms), now (ms), room, the most open seeks. A hold taken again is
# kept; expired holds are dropped first (a seek that never reached its pool is forgotten at its expiry).
HOLD_SEEK = """
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 'held' end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
local seeks = redis.call('ZCARD', KEYS[2])
if seeks >= tonumber(ARGV[5]) then return 'too_many_seeks' end
if redis.call('SCARD', KEYS[1]) + seeks >= tonumber(ARGV[4]) then return 'full' end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 'held'
"""
FIELDS = ("id", "name", "kind", "created_at", "key")
OPTIONAL_FIELDS = ("challenges", "disabled", "auto_accept_max")  # disabled: the operator's reason; "" or absent = enabled


class AccountStore(ABC):
    @abstractmethod
    def create(self, account: dict[str, str]) -> bool:
        """Store the account ({id, name, kind, created_at, key}) unless another holds its name in any case;
        False (and nothing stored) if one does."""

    @abstractmethod
    def get(self, account_id: str) -> dict[str, str] | None: ...

    @abstractmethod
    def id_by_name(self, name: str) -> str | None:
        """The id of the account named `name`, in any case."""

    @abstractmethod
    def by_key(self, key_hash: str) -> dict[str, str] | None:
        """The account whose current key has this hash."""

    @abstractmethod
    def replace_key(self, account_id: str, old_hash: str, new_hash: str) -> bool:
        """Replace the account's key if it is still `old_hash` (False if another rotation got in first)."""

    @abstractmethod
    def set_field(self, account_id: str, field: str, value: str) -> None:
        """Set one of OPTIONAL_FIELDS of an existing account."""

    @abstractmethod
    def note_match(self, account_id: str, match_id: str, how: str, now: int, room: int = 0, auto_max: int = 0,
                   seek: str = "") -> str:
        """List the match among the account's (newest first) and count it in its room as `how` says (INVITED,
        SEATED, AUTO, PAIRED: above) at `now` (ms); `room`: MAX_OPEN_MATCHES; `auto_max`: the account's
        auto_accept_max; `seek`: the seek whose hold a PAIRED match takes. What it was noted as, or FULL (nothing
        noted). Noting it again keeps its place (and, counted, opens it again and ends its invitation)."""

    @abstractmethod
    def hold_seek(self, account_id: str, seek_id: str, expires: int, now: int, room: int, most: int) -> str:
        """Room for the seek's match, held until `expires` (ms) unless released or taken by its match: HELD, or
        TOO_MANY_SEEKS past `most` open seeks, or FULL when open matches and seeks fill `room`."""

    @abstractmethod
    def release_seeks(self, account_id: str, seek_ids: list[str]) -> None:
        """The seeks' holds given back (canceled, expired, their pairing refused)."""

    @abstractmethod
    def opened_at(self, account_id: str, match_ids: list[str]) -> list[int | None]:
        """When each open match was noted open (ms; None: not known)."""

    @abstractmethod
    def note_invitation(self, account_id: str, ref: str) -> None:
        """List `ref` (a tournament's "t:<id>") among the account's invitations only."""

    @abstractmethod
    def noted(self, account_id: str) -> int:
        """How many matches were noted for the account: the position of the newest."""

    @abstractmethod
    def matches(self, account_id: str, before: int | None, limit: int) -> list[tuple[int, str]]:
        """(position, match) of the account's matches, newest first, with position < before."""

    @abstractmethod
    def open_matches(self, account_id: str) -> list[str]:
        """The matches noted for the account and not closed since."""

    @abstractmethod
    def invitations(self, account_id: str) -> list[str]:
        """The matches noted as inviting the account and not closed or accepted since."""

    @abstractmethod
    def close_matches(self, account_id: str, match_ids: list[str]) -> None:
        """Forget that these matches are open or inviting (they stay among the account's matches): their room is
        free."""


def _record_keys(account_id: str) -> tuple[str, str, str, str]:
    tag = f"cr:{{a:{account_id}}}"
    return f"{tag}:account", f"{tag}:matches", f"{tag}:open", f"{tag}:invited"


def _room_keys(account_id: str) -> tuple[str, str, str]:
    """Its open seeks' holds, the matches it was seated in unasked, when its open matches were noted."""
    tag = f"cr:{{a:{account_id}}}"
    return f"{tag}:seeks", f"{tag}:auto", f"{tag}:opened"


def noted_log(account_id: str) -> str:
    """The log a hub follows to learn at once that a match was noted for the account (the event store's name of a
    log: "<kind>:<id>", its stream cr:{a:<id>}:events); its versions are the positions of `noted`. Only Redis
    writes it: with the in-memory stores a feed learns of new matches by counting them."""
    return f"a:{account_id}"


def _name_key(name: str) -> str:
    return f"cr:accounts:name:{name.lower()}"


def _key_index(key_hash: str) -> str:
    return f"cr:accounts:key:{key_hash}"


class RedisAccountStore(AccountStore):
    def __init__(self, client):
        """`client` is a redis.Redis with decode_responses=True."""
        self._redis = client
        self._replace_key = client.register_script(REPLACE_KEY)
        self._note_match = client.register_script(NOTE_MATCH)
        self._hold_seek = client.register_script(HOLD_SEEK)

    def create(self, account):
        record = _record_keys(account["id"])[0]
        # the record and its key first, the name last: a crash in between leaves an account nobody was ever
        # given the key of, never a name claimed by no account
        pipe = self._redis.pipeline(transaction=False)
        pipe.hset(record, mapping={field: account[field] for field in FIELDS})
        pipe.set(_key_index(account["key"]), account["id"])
        pipe.execute()
        if self._redis.set(_name_key(account["name"]), account["id"], nx=True):
            return True
        self._redis.delete(record, _key_index(account["key"]))
        return False

    def get(self, account_id):
        found = self._redis.hgetall(_record_keys(account_id)[0])
        return _record(found) if found else None

    def id_by_name(self, name):
        return self._redis.get(_name_key(name))

    def by_key(self, key_hash):
        account_id = self._redis.get(_key_index(key_hash))
        account = self.get(account_id) if account_id else None
        return account if account and account["key"] == key_hash else None

    def replace_key(self, account_id, old_hash, new_hash):
        self._redis.set(_key_index(new_hash), account_id)
        if not self._replace_key(keys=[_record_keys(account_id)[0]], args=[old_hash, new_hash]):
            self._redis.delete(_key_index(new_hash))
            return False
        self._redis.delete(_key_index(old_hash))
        return True

    def set_field(self, account_id, field, value):
        self._redis.hset(_record_keys(account_id)[0], field, value)

    def note_match(self, account_id, match_id, how, now, room=0, auto_max=0, seek=""):
        keys = [*_record_keys(account_id), f"cr:{{{noted_log(account_id)}}}:events", *_room_keys(account_id)]
        noted, position = self._note_match(keys=keys, args=[match_id, how, now, room, auto_max, seek])
        if position and isinstance(self._redis, RedisCluster):  # a cluster's hubs hear of logs by its change feed
            self._redis.xadd(CHANGES, {"m": noted_log(account_id)}, maxlen=CHANGES_KEPT, approximate=True)
        return noted

    def hold_seek(self, account_id, seek_id, expires, now, room, most):
        return self._hold_seek(keys=[_record_keys(account_id)[2], _room_keys(account_id)[0]],
                               args=[seek_id, expires, now, room, most])

    def release_seeks(self, account_id, seek_ids):
        if seek_ids:
            self._redis.zrem(_room_keys(account_id)[0], *seek_ids)

    def opened_at(self, account_id, match_ids):
        found = self._redis.hmget(_room_keys(account_id)[2], match_ids) if match_ids else []
        return [None if at is None else int(at) for at in found]

    def note_invitation(self, account_id, ref):
        self._redis.sadd(_record_keys(account_id)[3], ref)

    def noted(self, account_id):
        return int(self._redis.hget(_record_keys(account_id)[0], "matches") or 0)

    def matches(self, account_id, before, limit):
        found = self._redis.zrevrangebyscore(_record_keys(account_id)[1], f"({before}" if before else "+inf",
                                             "-inf", start=0, num=limit, withscores=True)
        return [(int(position), match_id) for match_id, position in found]

    def open_matches(self, account_id):
        return sorted(self._redis.smembers(_record_keys(account_id)[2]))

    def invitations(self, account_id):
        return sorted(self._redis.smembers(_record_keys(account_id)[3]))

    def close_matches(self, account_id, match_ids):
        if match_ids:
            keys, (_, auto, opened) = _record_keys(account_id), _room_keys(account_id)
            pipe = self._redis.pipeline(transaction=False)
            pipe.srem(keys[2], *match_ids)
            pipe.srem(keys[3], *match_ids)
            pipe.srem(auto, *match_ids)
            pipe.hdel(opened, *match_ids)
            pipe.execute()


class InMemoryAccountStore(AccountStore):
    """The same behaviour in dicts under one lock, for unit tests."""

    def __init__(self):
        self._lock = threading.Lock()
        self._accounts: dict[str, dict[str, str]] = {}
        self._names: dict[str, str] = {}
        self._matches: dict[str, dict[str, int]] = {}
        self._open: dict[str, dict[str, int]] = {}  # match -> when noted open
        self._invited: dict[str, set[str]] = {}
        self._auto: dict[str, set[str]] = {}
        self._seeks: dict[str, dict[str, int]] = {}  # seek -> when its hold expires

    def create(self, account):
        with self._lock:
            if account["name"].lower() in self._names:
                return False
            self._names[account["name"].lower()] = account["id"]
            self._accounts[account["id"]] = _record(account)
            return True

    def get(self, account_id):
        with self._lock:
            found = self._accounts.get(account_id)
            return dict(found) if found else None

    def id_by_name(self, name):
        with self._lock:
            return self._names.get(name.lower())

    def by_key(self, key_hash):
        with self._lock:
            return next((dict(a) for a in self._accounts.values() if a["key"] == key_hash), None)

    def replace_key(self, account_id, old_hash, new_hash):
        with self._lock:
            account = self._accounts.get(account_id)
            if account is None or account["key"] != old_hash:
                return False
            account["key"] = new_hash
            return True

    def set_field(self, account_id, field, value):
        with self._lock:
            self._accounts[account_id][field] = value

    def note_match(self, account_id, match_id, how, now, room=0, auto_max=0, seek=""):
        with self._lock:
            opened, seeks = self._open.setdefault(account_id, {}), self._seeks.setdefault(account_id, {})
            auto, noted = self._auto.setdefault(account_id, set()), how
            if how in (SEATED, AUTO) and match_id not in opened:
                self._drop_expired(seeks, now)
                full = len(opened) + len(seeks) >= room
                if how == SEATED and full:
                    return FULL
                if how == AUTO and (full or len(auto) >= auto_max):
                    noted = INVITED
            if noted == INVITED:
                self._invited.setdefault(account_id, set()).add(match_id)
            else:
                opened[match_id] = now
                self._invited.get(account_id, set()).discard(match_id)
                if noted == AUTO:
                    auto.add(match_id)
                if noted == PAIRED:
                    seeks.pop(seek, None)
            listed = self._matches.setdefault(account_id, {})
            listed.setdefault(match_id, len(listed) + 1)
            return noted

    def hold_seek(self, account_id, seek_id, expires, now, room, most):
        with self._lock:
            seeks = self._seeks.setdefault(account_id, {})
            if seek_id in seeks:
                return HELD
            self._drop_expired(seeks, now)
            if len(seeks) >= most:
                return TOO_MANY_SEEKS
            if len(self._open.get(account_id, {})) + len(seeks) >= room:
                return FULL
            seeks[seek_id] = expires
            return HELD

    @staticmethod
    def _drop_expired(seeks: dict[str, int], now: int) -> None:
        for seek_id in [s for s, expires in seeks.items() if expires <= now]:
            del seeks[seek_id]

    def release_seeks(self, account_id, seek_ids):
        with self._lock:
            for seek_id in seek_ids:
                self._seeks.get(account_id, {}).pop(seek_id, None)

    def opened_at(self, account_id, match_ids):
        with self._lock:
            return [self._open.get(account_id, {}).get(match_id) for match_id in match_ids]

    def note_invitation(self, account_id, ref):
        with self._lock:
            self._invited.setdefault(account_id, set()).add(ref)

    def noted(self, account_id):
        with self._lock:
            return len(self._matches.get(account_id, {}))

    def matches(self, account_id, before, limit):
        with self._lock:
            noted = self._matches.get(account_id, {})
            return sorted(((p, m) for m, p in noted.items() if before is None or p < before), reverse=True)[:limit]

    def open_matches(self, account_id):
        with self._lock:
            return sorted(self._open.get(account_id, ()))

    def invitations(self, account_id):
        with self._lock:
            return sorted(self._invited.get(account_id, ()))

    def close_matches(self, account_id, match_ids):
        with self._lock:
            for match_id in match_ids:
                self._open.get(account_id, {}).pop(match_id, None)
            self._invited.get(account_id, set()).difference_update(match_ids)
            self._auto.get(account_id, set()).difference_update(match_ids)


def _record(found: dict[str, str]) -> dict[str, str]:
    return {field: found[field] for field in FIELDS + OPTIONAL_FIELDS if field in found}
