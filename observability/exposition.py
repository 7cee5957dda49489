"""What GET /metrics answers: every process's figures (observability/metrics.py) and, read at the scrape, the
depth of the RQ queues and the age of their oldest job."""
from datetime import datetime, timezone
from pathlib import Path

import redis
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from observability.metrics import redis_error

# text format 0.0.4: what every Prometheus (and promtool) reads; the names here need none of 1.0.0's escaping
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4


class QueueCollector:
    """Each RQ queue's waiting jobs and the age of the one waiting longest, read from Redis when scraped:
    a figure no process could keep current between scrapes. `queues`: rq.Queue objects."""

    def __init__(self, queues):
        self._queues = list(queues)

    def collect(self):
        depth = GaugeMetricFamily("cardroom_queue_jobs", "Jobs waiting in an RQ queue", labels=["queue"])
        oldest = GaugeMetricFamily("cardroom_queue_oldest_job_age_seconds", "Seconds the job waiting longest in an "
                                   "RQ queue has waited (0: none waits)", labels=["queue"])
        for queue in self._queues:
            try:
                depth.add_metric([queue.name], queue.count)
                oldest.add_metric([queue.name], _oldest_age(queue))
            except (redis.ConnectionError, redis.TimeoutError):
                # the other figures matter most during an outage, and each further queue would wait out
                # REDIS_TIMEOUT again: the scrape goes on without the queues' figures
                redis_error("metrics")
                break
        yield depth
        yield oldest


def _oldest_age(queue) -> float:
    first = queue.get_job_ids(0, 1)
    job = queue.fetch_job(first[0]) if first else None
    if job is None or job.enqueued_at is None:
        return 0.0
    enqueued = job.enqueued_at.replace(tzinfo=timezone.utc)  # RQ keeps UTC, naive in some versions
    return max(0.0, (datetime.now(timezone.utc) - enqueued).total_seconds())


class _ThisProcess:
    """The default registry's figures: this process's own, when no other process writes any."""

    def collect(self):
        return REGISTRY.collect()


class Exposition:
    """`metrics_dir`: PROMETHEUS_MULTIPROC_DIR, where every process writes its figures (None: this process's
    figures only, as in tests over the in-memory service). `queues`: the RQ queues whose depth to report."""

    def __init__(self, metrics_dir: Path | None, queues=()):
        self._registry = CollectorRegistry()
        if metrics_dir is not None:
            MultiProcessCollector(self._registry, path=str(metrics_dir))
        else:
            self._registry.register(_ThisProcess())
        self._registry.register(QueueCollector(queues))

    def scrape(self) -> bytes:
        return generate_latest(self._registry)
