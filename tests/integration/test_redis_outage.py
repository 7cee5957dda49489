"""Redis goes away under a running API: every endpoint answers 503 `redis_unreachable` with a Retry-After (never
500), naming no address, and the same app serves again as soon as Redis is back. A Redis that hangs (SIGSTOP)
gets the same answer within about REDIS_TIMEOUT, also when more requests wait than there are connections."""
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest
import redis
from rq import Queue

from api.app import create_app
from bootstrap import build_app, build_redis, redis_options
from bootstrap.config import Settings
from bootstrap.embedded_redis import EmbeddedRedis, free_port
from eventstore.redis_store import RedisEventStore
from service.matches import MatchService
from tests.support.http import assert_error, bearer
from workers.scheduler import RqBotScheduler

pytestmark = pytest.mark.integration
TWO_HUMANS = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]}


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test's own, to stop and start again on the same port and AOF."""
    server = EmbeddedRedis(tmp_path / "redis", appendfsync="always").start()
    yield server
    server.stop()


def settings(redis_url: str, **more: str) -> Settings:
    return Settings.from_env({"REDIS_URL": redis_url, "REDIS_TIMEOUT": "1", **more})


@contextmanager
def frozen(server: EmbeddedRedis):
    """The Redis process stopped: its port still accepts connections, but nothing is answered."""
    server.process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        server.process.send_signal(signal.SIGCONT)


def assert_redis_unreachable(response, redis_port: int):
    assert_error(response, 503, "redis_unreachable")
    assert response.headers["Retry-After"] == "1"
    text = response.get_data(as_text=True)
    assert "127.0.0.1" not in text and str(redis_port) not in text


def test_while_redis_is_down_reads_moves_creates_and_health_answer_503_and_then_recover(own_redis):
    client = build_app(settings(own_redis.url)).test_client()
    match = client.post("/v1/matches", json=TWO_HUMANS).get_json()
    mover = bearer(match["seats"][0]["token"])
    move = {"move": {"action": "score"}, "expected_version": match["version"]}

    own_redis.stop()
    for response in (client.get("/health"), client.get(f"/v1/matches/{match['id']}"), client.get("/v1/matches"),
                     client.get(f"/v1/matches/{match['id']}/events"), client.post("/v1/matches", json=TWO_HUMANS),
                     client.post(f"/v1/matches/{match['id']}/moves", json=move, headers=mover)):
        assert_redis_unreachable(response, own_redis.port)
    assert client.get("/v1/games").status_code == 200  # what needs no Redis still answers

    own_redis.start()
    assert client.get("/health").get_json() == {"status": "ok", "redis": "ok"}
    moved = client.post(f"/v1/matches/{match['id']}/moves", json=move, headers=mover)
    assert moved.status_code == 201 and moved.get_json()["version"] > match["version"]


def test_a_stored_move_whose_bot_turn_cannot_be_enqueued_is_acknowledged_and_the_janitor_finds_the_turn(own_redis):
    config = settings(own_redis.url)
    store_client = build_redis(config)
    unreachable_queue = Queue("bots", connection=redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0",
                                                                     **redis_options(config)))
    service = MatchService(RedisEventStore(store_client), RqBotScheduler(unreachable_queue))
    client = create_app(service, store_client.ping).test_client()

    response = client.post("/v1/matches", json={"game": "mantis", "seats": [{"bot": "random"}, {"bot": "greedy"}]})

    assert response.status_code == 201  # the match is stored: telling the client otherwise would invite a retry
    assert len(service.stalled_bot_turns(0, give_up_after=3600)) == 1  # the janitor re-enqueues its turn


FREEZE_TIMEOUT = 0.5
# about one timeout is the promise; timeouts retried (4 tries) or a 10 s wait for a pooled connection exceed 3
GENEROUS = 3 * FREEZE_TIMEOUT


def timed(request):
    started = time.monotonic()
    response = request()
    return response, time.monotonic() - started


def test_while_redis_is_frozen_a_read_and_a_rate_limited_create_answer_503_within_about_the_timeout(own_redis):
    client = build_app(settings(own_redis.url, REDIS_TIMEOUT=str(FREEZE_TIMEOUT))).test_client()
    match = client.post("/v1/matches", json=TWO_HUMANS).get_json()

    with frozen(own_redis):
        read, read_seconds = timed(lambda: client.get(f"/v1/matches/{match['id']}"))
        create, create_seconds = timed(lambda: client.post("/v1/matches", json=TWO_HUMANS))  # its counter first

    assert_redis_unreachable(read, own_redis.port)
    assert_redis_unreachable(create, own_redis.port)
    assert read_seconds < GENEROUS and create_seconds < GENEROUS
    assert client.get(f"/v1/matches/{match['id']}").status_code == 200  # and it serves again once Redis answers


def test_while_redis_is_frozen_requests_waiting_for_a_connection_answer_503_within_about_the_timeout(own_redis):
    connections, requests = 2, 12
    app = build_app(settings(own_redis.url, REDIS_TIMEOUT=str(FREEZE_TIMEOUT), REDIS_CONNECTIONS=str(connections)))
    match = app.test_client().post("/v1/matches", json=TWO_HUMANS).get_json()

    def read():
        return timed(lambda: app.test_client().get(f"/v1/matches/{match['id']}"))

    with frozen(own_redis), ThreadPoolExecutor(requests) as pool:
        answers = list(pool.map(lambda _: read(), range(requests)))

    for response, seconds in answers:
        assert_redis_unreachable(response, own_redis.port)
        assert seconds < GENEROUS
