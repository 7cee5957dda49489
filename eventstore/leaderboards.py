"""Where the leaderboards are kept: a projection of the ladders' logs (docs/ladder.md), rebuilt from them at will
(`cardroom ratings rebuild`), and the notes of rated matches whose rating is due.

In Redis the keys of one ladder share the hash tag {lb:<ladder>}:
    cr:{lb:<ladder>}:board            sorted set: established player -> ordinal (mu - 3 sigma): a page is one
                                      ZREVRANGE
    cr:{lb:<ladder>}:provisional      the same of the provisional players, listed apart
    cr:{lb:<ladder>}:rows             hash: player -> its row as JSON {player, name, kind, mu, sigma, games,
                                      last_played, version, provisional}, `version` the ladder's at its last
                                      rated match
    cr:{lb:<ladder>}:history:<player> sorted set: the player's rating after each rated match, scored by the ladder's
                                      version: {match, at, name, rank, mu, sigma}
and cr:ratings:due (sorted set: match -> when its rating became due) is what the janitor reads.
A row is written only over an older one (the script compares versions), so writers that race, or a retry that
comes late, never put back an older rating; a history point written twice is the same member at the same score.
"""
import json
import threading
from abc import abstractmethod
from collections import defaultdict

from eventstore.due import DueMatches, InMemoryDueMatches, RedisDueMatches

# KEYS: the ladder's rows, its board, its provisional board, then each player's history. ARGV: per player, its id,
# its row (JSON), its ordinal, its version, 1 if provisional else 0, its history point's version and the point
# (JSON). Writes each row newer than the stored one, on the board of its listing and off the other.
PUT = """
for i = 0, (#ARGV / 7) - 1 do
  local player, row, ordinal = ARGV[7*i+1], ARGV[7*i+2], ARGV[7*i+3]
  local stored = redis.call('HGET', KEYS[1], player)
  if not stored or cjson.decode(stored)['version'] < tonumber(ARGV[7*i+4]) then
    local listed = ARGV[7*i+5] == '1' and 3 or 2
    redis.call('HSET', KEYS[1], player, row)
    redis.call('ZADD', KEYS[listed], ordinal, player)
    redis.call('ZREM', KEYS[5 - listed], player)
  end
  redis.call('ZADD', KEYS[4 + i], ARGV[7*i+6], ARGV[7*i+7])
end
return 1
"""
DUE = "cr:ratings:due"
ESTABLISHED, PROVISIONAL = "established", "provisional"  # a ladder's two listings


class LeaderboardStore(DueMatches):
    @abstractmethod
    def put(self, ladder: str, rows: list[dict], points: list[tuple[int, dict]]) -> None:
        """Writes each row ({player, ordinal, version, ...}) unless a newer one is stored, and each player's history
        point (version, {match, at, name, rank, mu, sigma}), one per row."""

    @abstractmethod
    def replace(self, ladder: str, rows: list[dict], histories: dict[str, list[tuple[int, dict]]]) -> None:
        """The ladder's whole projection in one step: these rows and, per player, its (version, point) history."""

    @abstractmethod
    def page(self, ladder: str, offset: int, limit: int, provisional: bool) -> tuple[list[dict], dict[str, int]]:
        """Rows of the provisional or the established players by ordinal, best first, from `offset`; and how many
        players each listing has ({established, provisional})."""

    @abstractmethod
    def rows(self, ladder: str, players: list[str]) -> list[dict | None]: ...

    @abstractmethod
    def history(self, ladder: str, player: str, limit: int) -> list[dict]:
        """The player's last `limit` points, oldest first."""



def _keys(ladder: str) -> tuple[str, str, str]:
    return f"cr:{{lb:{ladder}}}:rows", f"cr:{{lb:{ladder}}}:board", f"cr:{{lb:{ladder}}}:provisional"


def _history_key(ladder: str, player: str) -> str:
    return f"cr:{{lb:{ladder}}}:history:{player}"


class RedisLeaderboardStore(RedisDueMatches, LeaderboardStore):
    due_key = DUE

    def __init__(self, client):
        self._redis = client
        self._put = client.register_script(PUT)

    def put(self, ladder, rows, points):
        args = [value for row, (version, point) in zip(rows, points) for value in (
            row["player"], json.dumps(row), row["ordinal"], row["version"], int(row["provisional"]), version,
            json.dumps(point))]
        self._put(keys=[*_keys(ladder), *(_history_key(ladder, row["player"]) for row in rows)], args=args)

    def replace(self, ladder, rows, histories):
        rows_key, board, provisional = _keys(ladder)
        stale = [key for key in self._redis.scan_iter(match=_history_key(ladder, "*"), count=1000)]
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(rows_key, board, provisional, *stale)
            if rows:
                pipe.hset(rows_key, mapping={row["player"]: json.dumps(row) for row in rows})
            for listed, key in ((False, board), (True, provisional)):
                if ranked := {row["player"]: row["ordinal"] for row in rows if row["provisional"] == listed}:
                    pipe.zadd(key, ranked)
            for player, history in histories.items():
                pipe.zadd(_history_key(ladder, player), {json.dumps(point): version for version, point in history})
            pipe.execute()

    def page(self, ladder, offset, limit, provisional):
        _, board, provisional_board = _keys(ladder)
        with self._redis.pipeline(transaction=False) as pipe:
            pipe.zrevrange(provisional_board if provisional else board, offset, offset + limit - 1)
            pipe.zcard(board)
            pipe.zcard(provisional_board)
            players, established, provisionals = pipe.execute()
        return ([row for row in self.rows(ladder, players) if row],
                {ESTABLISHED: established, PROVISIONAL: provisionals})

    def rows(self, ladder, players):
        if not players:
            return []
        return [json.loads(found) if found else None for found in self._redis.hmget(_keys(ladder)[0], players)]

    def history(self, ladder, player, limit):
        return [json.loads(point) for point in self._redis.zrange(_history_key(ladder, player), -limit, -1)]



class InMemoryLeaderboardStore(InMemoryDueMatches, LeaderboardStore):
    """For unit tests: the same answers as Redis, in dicts under one lock."""

    def __init__(self):
        self._lock = threading.Lock()
        self._rows: dict[str, dict[str, dict]] = defaultdict(dict)
        self._histories: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)  # point (JSON) -> version
        self._due: dict[str, float] = {}

    def put(self, ladder, rows, points):
        with self._lock:
            for row, (version, point) in zip(rows, points):
                stored = self._rows[ladder].get(row["player"])
                if stored is None or stored["version"] < row["version"]:
                    self._rows[ladder][row["player"]] = row
                self._histories[ladder, row["player"]][json.dumps(point)] = version

    def replace(self, ladder, rows, histories):
        with self._lock:
            self._rows[ladder] = {row["player"]: row for row in rows}
            for key in [key for key in self._histories if key[0] == ladder]:
                del self._histories[key]
            for player, history in histories.items():
                self._histories[ladder, player] = {json.dumps(point): version for version, point in history}

    def page(self, ladder, offset, limit, provisional):
        with self._lock:
            listed = [row for row in self._rows[ladder].values() if row["provisional"] == provisional]
            ranked = sorted(listed, key=lambda row: (row["ordinal"], row["player"]),
                            reverse=True)  # ZREVRANGE's order: ties by player, descending
            provisionals = sum(1 for row in self._rows[ladder].values() if row["provisional"])
            return ranked[offset:offset + limit], {ESTABLISHED: len(self._rows[ladder]) - provisionals,
                                                   PROVISIONAL: provisionals}

    def rows(self, ladder, players):
        with self._lock:
            return [self._rows[ladder].get(player) for player in players]

    def history(self, ladder, player, limit):
        with self._lock:
            points = sorted(self._histories[ladder, player].items(), key=lambda item: (item[1], item[0]))
            return [json.loads(point) for point, _ in points[-limit:]]

