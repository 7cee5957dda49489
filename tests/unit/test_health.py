"""Liveness and readiness: /health/live asks nothing of Redis; /health/ready runs every check and names those
that fail, in the error shape with a 503."""
import redis

from api.app import create_app
from service.errors import NotReady
from tests.support.service import make_service


def app_with(readiness=None, health_check=lambda: True):
    return create_app(make_service(), health_check, readiness=readiness).test_client()


def missing(what):
    def check():
        raise NotReady(what)
    return check


def unreachable():
    raise redis.ConnectionError("Error 111 connecting to 10.0.0.7:6379. Connection refused.")


def test_live_answers_even_while_redis_is_unreachable():
    answer = app_with(health_check=unreachable).get("/health/live")
    assert (answer.status_code, answer.get_json()) == (200, {"status": "live"})


def test_ready_when_every_check_passes():
    answer = app_with({"redis": lambda: True, "bot_workers": lambda: None}).get("/health/ready")
    assert answer.status_code == 200
    assert answer.get_json() == {"status": "ready", "checks": {"redis": "ok", "bot_workers": "ok"}}


def test_not_ready_names_each_failing_check_and_why():
    answer = app_with({"redis": lambda: True, "bot_workers": missing("no RQ worker on queue bots"),
                       "scheduler": missing("no RQ scheduler")}).get("/health/ready")
    body = answer.get_json()
    assert answer.status_code == 503 and body["reason"] == "not_ready"
    assert body["message"] == "failing: bot_workers, scheduler"
    assert body["checks"] == {"redis": "ok", "bot_workers": "no RQ worker on queue bots",
                              "scheduler": "no RQ scheduler"}
    assert body["request_id"] == answer.headers["X-Request-ID"]


def test_an_unreachable_redis_fails_its_check_without_naming_its_address():
    body = app_with({"redis": unreachable}).get("/health/ready").get_json()
    assert body["checks"] == {"redis": "Redis unreachable"}
    assert "10.0.0.7" not in str(body)


def test_a_check_that_breaks_fails_and_the_answer_still_comes():
    def broken():
        raise KeyError("surprise")
    answer = app_with({"redis": lambda: True, "scheduler": broken}).get("/health/ready")
    assert answer.status_code == 503 and answer.get_json()["checks"]["scheduler"] == "the check failed (logged)"


def test_without_checks_of_its_own_readiness_is_redis_reachability():
    assert app_with(health_check=unreachable).get("/health/ready").get_json()["checks"] == {
        "redis": "Redis unreachable"}


def test_the_old_health_endpoint_is_unchanged():
    assert app_with().get("/health").get_json() == {"status": "ok", "redis": "ok"}


def test_once_redis_is_found_unreachable_the_later_checks_are_not_run():
    """Each would wait out REDIS_TIMEOUT on a frozen Redis: the answer comes after one timeout, not one a check."""
    ran = []
    answer = app_with({"redis": unreachable, "bot_workers": lambda: ran.append("bot_workers"),
                       "scheduler": lambda: ran.append("scheduler")}).get("/health/ready")
    assert answer.status_code == 503 and ran == []
    assert answer.get_json()["checks"] == {"redis": "Redis unreachable",
                                           "bot_workers": "not checked: Redis unreachable",
                                           "scheduler": "not checked: Redis unreachable"}
