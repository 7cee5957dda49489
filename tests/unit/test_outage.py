"""An outage is one line when it begins and one when it ends, however many threads meet it and however often they
retry; each program counts it once in cardroom_redis_errors_total; the stream hub reports its outages so."""
import logging
import threading

import pytest
import redis
from prometheus_client import REGISTRY

from bootstrap.outage import RedisOutage
from eventstore.memory import InMemoryEventStore
from service.live import hub as hub_module
from service.live.hub import Hub
from service.outage import Outage
from tests.support.waiting import wait_for

LOG = logging.getLogger("tests.outage")


def lines(caplog, text: str) -> int:
    return sum(text in record.getMessage() for record in caplog.records)


def test_an_outage_met_by_many_threads_many_times_is_one_lost_line_and_one_back_line(caplog):
    outage = Outage(LOG)
    meet = [threading.Thread(target=lambda: [outage.lost(redis.TimeoutError("timed out")) for _ in range(50)])
            for _ in range(8)]
    for thread in meet:
        thread.start()
    for thread in meet:
        thread.join()
    outage.back()
    outage.back()
    assert lines(caplog, "Redis lost (TimeoutError: timed out)") == 1 and lines(caplog, "Redis back after") == 1


def errors_counted(where: str) -> float:
    return REGISTRY.get_sample_value("cardroom_redis_errors_total", {"where": where}) or 0.0


def test_each_redis_outage_counts_once_for_its_program():
    outage, before = RedisOutage(LOG, "scheduler"), errors_counted("scheduler")
    for _ in range(5):
        outage.lost(redis.ConnectionError("refused"))
    outage.back()
    for _ in range(3):
        outage.lost(redis.TimeoutError("timed out"))
    assert errors_counted("scheduler") == before + 2


class FailingFirst(InMemoryEventStore):
    """A store whose tail fails `failures` times, then works."""

    def __init__(self, failures: int):
        super().__init__()
        self.failures = failures

    def tail(self, after, timeout):
        if self.failures:
            self.failures -= 1
            raise redis.ConnectionError("refused")
        return super().tail(after, timeout)


def test_the_stream_hub_logs_one_line_for_an_outage_however_often_it_retries(caplog, monkeypatch):
    monkeypatch.setattr(hub_module, "RETRY_SECONDS", 0.01)
    store = FailingFirst(failures=13)
    hub = Hub(store, block_seconds=0.05)
    try:
        with hub.follow("m-1", 0):
            wait_for(lambda: lines(caplog, "Redis back after"), "the hub to read again")
    finally:
        hub.close()
    assert store.failures == 0
    assert lines(caplog, "Redis lost (ConnectionError: refused)") == 1 and lines(caplog, "Redis back after") == 1
    assert "Traceback" not in caplog.text


@pytest.fixture(autouse=True)
def warnings_captured(caplog):
    caplog.set_level(logging.WARNING)
