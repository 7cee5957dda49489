"""The event store on Redis Cluster: the same keys and scripts as eventstore/redis_store.py (every key of a
match shares its hash tag, so each script runs on the one node serving that match), and a `tail` that works
across nodes.

One XREAD can only name keys of one slot, and the matches a process follows are spread over every slot. So
each append also adds the match's id to the change feed cr:{changes} (a stream capped at CHANGES_KEPT
entries, one slot), and `tail` blocks on that feed and on its own wake-up stream cr:{changes}:wake:<uuid>
(same slot, so one XREAD BLOCK on one connection still serves the whole process, as on plain Redis), then
reads the followed logs that changed, one XRANGE each in a pipeline (one round trip per node).

The feed entry is written after the append, so a process that dies in between leaves a change unannounced:
`tail` also rescans every followed log every RESCAN_SECONDS, which bounds how late such an event reaches a
stream (and catches up a reader that fell more than CHANGES_KEPT entries behind). A log `tail` has not
followed before is read at once. docs/deployment.md measures what the one-slot feed costs.
"""
import time
import uuid

from redis.exceptions import AskError, ConnectionError, MovedError, TimeoutError

from eventstore import codec
from eventstore.base import Appended
from eventstore.clock import utc_now
from eventstore.redis_store import TAIL_COUNT, RedisEventStore, keys

CHANGES = "cr:{changes}"
CHANGES_KEPT = 100_000  # about a minute of moves at the highest rate measured; a reader behind that rescans
RESCAN_SECONDS = 5.0


class ClusterEventStore(RedisEventStore):
    def __init__(self, client, clock=utc_now, rescan_seconds: float = RESCAN_SECONDS, **wait):
        """`client` is a redis.cluster.RedisCluster with decode_responses=True; `wait`: as RedisEventStore's."""
        super().__init__(client, clock, **wait)
        self._wake_key = f"{CHANGES}:wake:{uuid.uuid4().hex}"
        self._changes_seen: str | None = None  # the last feed entry a tail consumed
        self._rescan_every = rescan_seconds
        self._rescan_at = 0.0
        self._followed: set[str] = set()  # the logs the previous tail was asked for

    def append(self, stream, expected, events, *, meta=None, idempotency=None, time=None, snapshot=None):
        outcome = super().append(stream, expected, events, meta=meta, idempotency=idempotency, time=time,
                                 snapshot=snapshot)
        if isinstance(outcome, Appended) and outcome.events:
            self._redis.xadd(CHANGES, {"m": stream}, maxlen=CHANGES_KEPT, approximate=True)
        return outcome

    def _run_append(self, keys, args):
        # On the WAIT path (a pipeline to one node) the cluster client does not follow a failover by itself:
        # learn the slots again; retry only where the append was surely not applied (the slot moved).
        try:
            return super()._run_append(keys, args)
        except (MovedError, AskError):
            self._redis.nodes_manager.initialize()
            return super()._run_append(keys, args)
        except (ConnectionError, TimeoutError):
            self._redis.nodes_manager.initialize()
            raise

    def _pipeline_to(self, key):
        return self._redis.get_node_from_key(key).redis_connection.pipeline(transaction=False)

    def tail(self, after, timeout):
        if self._longest_block is not None:
            timeout = min(timeout, self._longest_block)
        if self._changes_seen is None:  # from now on: what the rescan below reads covers what came before
            last = self._redis.xrevrange(CHANGES, count=1)
            self._changes_seen = last[0][0] if last else "0-0"
        if time.monotonic() >= self._rescan_at:
            self._rescan_at = time.monotonic() + self._rescan_every
            unread = after
        else:
            unread = {match_id: version for match_id, version in after.items() if match_id not in self._followed}
        self._followed = set(after)
        found = self._read_logs(unread)
        if found:
            return found
        answer = self._redis.xread({CHANGES: self._changes_seen, self._wake_key: self._wake_seen},
                                   count=TAIL_COUNT, block=max(1, int(timeout * 1000)))
        changed: set[str] = set()
        for stream, entries in answer or []:
            if stream == self._wake_key:
                self._wake_seen = entries[-1][0]
            else:
                self._changes_seen = entries[-1][0]
                changed.update(fields["m"] for _, fields in entries)
        return self._read_logs({match_id: version for match_id, version in after.items() if match_id in changed})

    def _read_logs(self, after: dict[str, int]) -> dict[str, list[dict]]:
        """The events past each version, for the logs that have some: one round trip per node."""
        if not after:
            return {}
        pipe = self._redis.pipeline(transaction=False)
        for match_id, version in after.items():
            pipe.xrange(keys(match_id)[0], f"({version}-0" if version else "-", "+", count=TAIL_COUNT)
        found = {}
        for match_id, entries in zip(after, pipe.execute()):
            if entries:
                found[match_id] = [codec.loads(fields["e"]) for _, fields in entries]
        return found
