"""Where accounts are kept: the account records, the unique names, the key index and each account's matches.
Both implementations pass tests/contract/test_account_store_contract.py.

In Redis the keys of one account share the hash tag {a:<id>} (DESIGN.md: one aggregate, one hash tag):
    cr:{a:<id>}:account   hash: id, name, kind, created_at, key (the SHA-256 of its API key, hex), challenges
                          (who may invite it, as JSON; absent: the default), disabled (the operator's reason)
    cr:{a:<id>}:matches   sorted set: match id -> the account's own running number (newest = highest)
    cr:{a:<id>}:open      set: the account's matches not yet seen finished (for the bound on open matches)
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
# KEYS: the account's record, its matches, its open matches, its invitations, its stream of notes. ARGV: match,
# "open" or "invited".
# Numbers the account's matches; a match noted again keeps its place and is open again (a seat taken again after
# leaving it, an invitation accepted).
NOTE_MATCH = """
if ARGV[2] == 'open' then
  redis.call('SADD', KEYS[3], ARGV[1])
  redis.call('SREM', KEYS[4], ARGV[1])
else
  redis.call('SADD', KEYS[4], ARGV[1])
end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
local position = redis.call('HINCRBY', KEYS[1], 'matches', 1)
redis.call('ZADD', KEYS[2], position, ARGV[1])
redis.call('XADD', KEYS[5], 'MAXLEN', '1', position .. '-0', 'e',
           cjson.encode({version = position, type = 'match_noted', data = {match = ARGV[1]}}))
return position
"""
FIELDS = ("id", "name", "kind", "created_at", "key")
OPTIONAL_FIELDS = ("challenges", "disabled")  # disabled: the operator's reason; "" or absent = enabled


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
    def note_match(self, account_id: str, match_id: str, invited: bool = False) -> None:
        """List the match among the account's (newest first) and as open, or as inviting it when `invited`;
        noting it again keeps its place (and, not invited, opens it again and ends its invitation)."""

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
        """Forget that these matches are open or inviting (they stay among the account's matches)."""


def _record_keys(account_id: str) -> tuple[str, str, str, str]:
    tag = f"cr:{{a:{account_id}}}"
    return f"{tag}:account", f"{tag}:matches", f"{tag}:open", f"{tag}:invited"


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

    def note_match(self, account_id, match_id, invited=False):
        position = self._note_match(keys=[*_record_keys(account_id), f"cr:{{{noted_log(account_id)}}}:events"],
                                    args=[match_id, "invited" if invited else "open"])
        if position and isinstance(self._redis, RedisCluster):  # a cluster's hubs hear of logs by its change feed
            self._redis.xadd(CHANGES, {"m": noted_log(account_id)}, maxlen=CHANGES_KEPT, approximate=True)

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
            keys = _record_keys(account_id)
            pipe = self._redis.pipeline(transaction=False)
            pipe.srem(keys[2], *match_ids)
            pipe.srem(keys[3], *match_ids)
            pipe.execute()


class InMemoryAccountStore(AccountStore):
    """The same behaviour in dicts under one lock, for unit tests."""

    def __init__(self):
        self._lock = threading.Lock()
        self._accounts: dict[str, dict[str, str]] = {}
        self._names: dict[str, str] = {}
        self._matches: dict[str, dict[str, int]] = {}
        self._open: dict[str, set[str]] = {}
        self._invited: dict[str, set[str]] = {}

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

    def note_match(self, account_id, match_id, invited=False):
        with self._lock:
            noted = self._matches.setdefault(account_id, {})
            noted.setdefault(match_id, len(noted) + 1)
            if invited:
                self._invited.setdefault(account_id, set()).add(match_id)
            else:
                self._open.setdefault(account_id, set()).add(match_id)
                self._invited.get(account_id, set()).discard(match_id)

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
            self._open.get(account_id, set()).difference_update(match_ids)
            self._invited.get(account_id, set()).difference_update(match_ids)


def _record(found: dict[str, str]) -> dict[str, str]:
    return {field: found[field] for field in FIELDS + OPTIONAL_FIELDS if field in found}
