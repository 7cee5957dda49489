"""On a local 3-master Redis Cluster with a replica each (docs/deployment.md): memory per finished match
(hot and archived),
what the change feed (one slot) costs appends, what WAIT 1 costs an append, and the catalog's one-slot
rate beside the append rate. Prints each pair side by side from one run."""
import argparse
import json
import statistics
import tempfile
import threading
import time

import redis

from common import play_random
from bootstrap import cluster_client_for
from eventstore.base import Head
from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import APPEND, RedisEventStore, archive_key, keys
from service.matches import MatchService
from service.ports import NoBots
from tests.support.cluster import LocalCluster

GAMES = [("mantis", 2, {"edition": "classic"}), ("mantis", 4, {"edition": "compact"}), ("9stax", 2, {}),
         ("blockers", 4, {}), ("flipout", 3, {})]


def memory_per_finished_match(client, count: int) -> None:
    service = MatchService(ClusterEventStore(client), NoBots())
    print("memory per finished match (MEMORY USAGE of its keys), and once archived (meta + compressed log):")
    print(f"{'game':<18}{'events':>8}{'log+meta KB':>13}{'+snaps+idem KB':>16}{'archived KB':>13}")
    for game, players, options in GAMES:
        rows = []
        for i in range(count):
            played = play_random(service, game, players, f"mem-{i}", options=options)
            events_key, meta_key, snaps_key, idem_key = keys(played["id"])
            hot = sum(client.memory_usage(key) or 0 for key in (events_key, meta_key))
            extras = sum(client.memory_usage(key) or 0 for key in (snaps_key, idem_key))
            assert service._store.archive(played["id"])
            archived = sum(client.memory_usage(key) or 0 for key in (meta_key, archive_key(played["id"])))
            rows.append((played["version"], hot, hot + extras, archived))
        name = f"{game} {options.get('edition', '')}".strip()
        means = [statistics.mean(column) for column in zip(*rows)]
        print(f"{name:<18}{means[0]:>8.0f}{means[1] / 1024:>13.1f}{means[2] / 1024:>16.1f}{means[3] / 1024:>13.1f}")


def rate(action, threads: int, seconds: float) -> float:
    done, stop = [0] * threads, threading.Event()

    def run(i):
        while not stop.is_set():
            action(i, done[i])
            done[i] += 1

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    return sum(done) / seconds


def appender(store, prefix: str):
    heads: dict[int, Head] = {}

    def append(i, n):
        match_id = f"{prefix}-{i}-{n // 200}"  # a new match every 200 moves: spread over the slots
        heads[i] = store.append(match_id, heads.get(i, Head()) if n % 200 else Head(),
                                [{"type": "moved", "data": {"n": n}}]).head
    return append


def append_rates(client, threads: int, seconds: float) -> None:
    without = rate(appender(RedisEventStore(client), "plain"), threads, seconds)
    with_feed = rate(appender(ClusterEventStore(client), "feed"), threads, seconds)
    store = ClusterEventStore(client)
    catalog = rate(lambda i, n: store.index(f"cat-{i}-{n}", "mantis"), threads, seconds)
    node = client.get_node_from_key("cr:matches").redis_connection
    slot_capacity = rate(lambda i, n: pipelined_catalog_writes(node, n), 1, seconds) * PIPELINED
    zadd_usec = node.info("commandstats")["cmdstat_zadd"]["usec_per_call"]
    print(f"\nappends/s from {threads} threads (one process, Python-bound): without the change feed {without:.0f}, "
          f"with it {with_feed:.0f} (ratio {with_feed / without:.2f}); catalog entries/s (one slot) {catalog:.0f}; "
          f"the catalog's node took {slot_capacity:.0f} ZADD/s pipelined {PIPELINED} a round trip on one connection "
          f"(a floor on its capacity), {zadd_usec:.2f} us of its CPU per ZADD")


PIPELINED = 1000


def pipelined_catalog_writes(node, n):
    pipe = node.pipeline(transaction=False)
    for k in range(PIPELINED):
        pipe.zadd("cr:matches", {f"cap-{n}-{k}": n * PIPELINED + k})
    pipe.execute()


def wait_cost(cluster: LocalCluster, repeats: int) -> None:
    """An append alone and an append followed by WAIT 1 on the same connection to the match's master."""
    match_id = "wait-bench"
    master = redis.Redis(host="127.0.0.1", port=cluster.master_of(keys(match_id)[0]), decode_responses=True)
    script = master.register_script(APPEND)
    timings = {"alone": [], "WAIT 1": []}
    version = 0
    for n in range(repeats):
        for label in timings:
            event = json.dumps({"type": "moved", "version": version + 1})
            pipe = master.pipeline(transaction=False)
            script(keys=[*keys(match_id)[:2], keys(match_id)[3]], args=[version, "h", "h", "", "", 1, event],
                   client=pipe)
            if label == "WAIT 1":
                pipe.execute_command("WAIT", 1, 1000)
            started = time.perf_counter()
            answer = pipe.execute()
            timings[label].append(time.perf_counter() - started)
            assert answer[0][0] == "ok" and (label == "alone" or answer[1] == 1), answer
            version += 1
    alone, waited = (statistics.median(timings[label]) * 1000 for label in timings)
    print(f"\nan append on its master, median of {repeats}: alone {alone:.3f} ms, with WAIT 1 {waited:.3f} ms "
          f"(ratio {waited / alone:.2f}; loopback: a replica across a network adds its round trip)")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=3, help="finished matches per game for the memory figures")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--repeats", type=int, default=500)
    args = parser.parse_args()
    cluster = LocalCluster(tempfile.mkdtemp(prefix="cardroom-cluster-"), masters=3, replicas=1).start()
    try:
        client = cluster_client_for(cluster.nodes, max_connections=64)
        memory_per_finished_match(client, args.matches)
        append_rates(client, args.threads, args.seconds)
        wait_cost(cluster, args.repeats)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
