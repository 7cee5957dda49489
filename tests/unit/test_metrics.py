"""GET /metrics over the in-memory service: the figures a move, a bot's turn and a refusal leave, read back with
prometheus-client's own parser; who may read them; the queue figures read at the scrape."""
from datetime import datetime, timedelta, timezone

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from observability.exposition import QueueCollector
from observability.metrics import PrometheusMetrics
from tests.support.http import bearer, make_client
from tests.support.service import InlineBots

MOVES_ROUTE = "/v1/matches/<match_id>/moves"
TWO = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]}


def scrape(client, **request) -> dict[tuple, float]:
    """Every sample of GET /metrics, by (name, sorted labels)."""
    answer = client.get("/metrics", **request)
    assert answer.status_code == 200, answer.get_json()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.get_data(as_text=True)) for sample in family.samples}


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def client():
    return make_client(metrics=PrometheusMetrics())


def test_a_move_counts_for_its_game_and_its_request_under_the_route_template(client):
    created = client.post("/v1/matches", json=TWO).get_json()
    before = scrape(client)
    seat = created["to_act"][0]
    answer = client.post(f"/v1/matches/{created['id']}/moves", headers=bearer(created["seats"][seat]["token"]),
                         json={"move": {"action": "score"}, "expected_version": created["version"]})
    assert answer.status_code == 201
    after = scrape(client)
    assert value(after, "cardroom_moves_total", game="mantis") == value(before, "cardroom_moves_total", game="mantis") + 1
    moved = dict(route=MOVES_ROUTE, method="POST", status="201")
    assert value(after, "cardroom_http_requests_total", **moved) == value(before, "cardroom_http_requests_total", **moved) + 1
    assert value(after, "cardroom_http_request_duration_seconds_count", route=MOVES_ROUTE, method="POST") >= 1
    assert value(after, "cardroom_append_duration_seconds_count") > value(before, "cardroom_append_duration_seconds_count")
    assert not [key for key in after if created["id"] in str(key)]  # no series per match


def test_a_path_no_route_matches_counts_as_one_unmatched_series(client):
    client.get("/v1/nowhere/at/all")
    assert value(scrape(client), "cardroom_http_requests_total", route="unmatched", method="GET", status="404") >= 1


def test_a_bot_turn_counts_by_its_kind_with_the_time_it_took():
    client = make_client(bots=InlineBots(), metrics=PrometheusMetrics())
    before = scrape(client)
    client.post("/v1/matches", json={"game": "mantis", "seats": [{"bot": "random"}, {"bot": "random"}]})
    after = scrape(client)
    played = dict(kind="random", outcome="played")
    assert value(after, "cardroom_bot_turns_total", **played) > value(before, "cardroom_bot_turns_total", **played)
    assert value(after, "cardroom_bot_turn_delay_seconds_count", kind="random") > \
        value(before, "cardroom_bot_turn_delay_seconds_count", kind="random")


def test_a_refusal_counts_by_its_status_and_reason(client):
    before = scrape(client)
    client.application.extensions["cardroom.health"] = fail_with_redis_unreachable
    assert client.get("/health").status_code == 503
    after = scrape(client)
    for name, labels in (("cardroom_refusals_total", dict(status="503", reason="redis_unreachable")),
                         ("cardroom_redis_errors_total", dict(where="api"))):
        assert value(after, name, **labels) == value(before, name, **labels) + 1


def fail_with_redis_unreachable():
    raise redis.ConnectionError("connection refused")


def test_the_open_connection_gauges_are_exported_before_any_opens(client):
    samples = scrape(client)
    for kind in ("stream", "feed", "play_socket"):
        assert ("cardroom_open_connections", (("kind", kind),)) in samples


def test_without_a_token_only_loopback_clients_may_read_the_figures(client):
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    refused = client.get("/metrics", environ_base={"REMOTE_ADDR": "203.0.113.9"})
    assert refused.status_code == 403 and refused.get_json()["reason"] == "metrics_loopback_only"


def test_with_a_token_every_client_must_send_it_loopback_included():
    client = make_client(metrics_token="s3cret")
    for headers in ({}, bearer("wrong"), {"Authorization": "Basic s3cret"}):
        refused = client.get("/metrics", headers=headers)
        assert refused.status_code == 401 and refused.get_json()["reason"] == "metrics_token_required"
    assert client.get("/metrics", headers=bearer("s3cret"), environ_base={"REMOTE_ADDR": "203.0.113.9"}).status_code == 200


class QueueOf:
    """The part of an rq.Queue the collector reads: jobs waiting since the given times."""

    def __init__(self, name: str, enqueued: list[datetime]):
        self.name, self._enqueued = name, enqueued

    @property
    def count(self) -> int:
        return len(self._enqueued)

    def get_job_ids(self, offset: int, length: int) -> list[str]:
        return [str(i) for i in range(len(self._enqueued))][offset:offset + length]

    def fetch_job(self, job_id: str):
        return type("Job", (), {"enqueued_at": self._enqueued[int(job_id)]})


def test_the_queue_figures_are_each_queues_depth_and_the_wait_of_its_oldest_job():
    now = datetime.now(timezone.utc).replace(tzinfo=None)  # as RQ stores it: naive UTC
    collector = QueueCollector([QueueOf("bots", [now - timedelta(seconds=30), now]), QueueOf("timers", [])])
    samples = {(s.name, s.labels["queue"]): s.value for family in collector.collect() for s in family.samples}
    assert samples[("cardroom_queue_jobs", "bots")] == 2 and samples[("cardroom_queue_jobs", "timers")] == 0
    assert 30 <= samples[("cardroom_queue_oldest_job_age_seconds", "bots")] < 300
    assert samples[("cardroom_queue_oldest_job_age_seconds", "timers")] == 0



class UnreachableQueue(QueueOf):
    """A queue on a Redis that does not answer; `asked` counts the reads tried."""

    def __init__(self, name: str):
        super().__init__(name, [])
        self.asked = 0

    @property
    def count(self) -> int:
        self.asked += 1
        raise redis.TimeoutError("Timeout reading from socket")


def test_once_a_queue_is_found_unreachable_the_scrape_asks_no_other():
    """Each queue would wait out REDIS_TIMEOUT on a frozen Redis: one timeout a scrape, not one a queue."""
    queues = [UnreachableQueue("bots"), UnreachableQueue("bots-clocks"), UnreachableQueue("bots-recovered")]
    families = {family.name: family.samples for family in QueueCollector(queues).collect()}
    assert [queue.asked for queue in queues] == [1, 0, 0]
    assert families == {"cardroom_queue_jobs": [], "cardroom_queue_oldest_job_age_seconds": []}
