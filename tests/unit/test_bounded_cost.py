"""What one client may cost: rate limits and quotas per address (429 in the error shape, with Retry-After)
and the caps on a bot's search."""
import re

import pytest
from limits.storage import MemoryStorage

from api.app import create_app
from api.rate_limits import HOLD_REFUSALS, RateLimits
from bootstrap import build_rate_limits
from bootstrap.config import Settings
from domain.bots.ismcts import MAX_BUDGET_MS, MAX_ITERATIONS
from tests.support.http import assert_error, bearer
from tests.support.service import make_service

HUMANS = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]}
FROM_A = {"REMOTE_ADDR": "10.0.0.1"}
FROM_B = {"REMOTE_ADDR": "10.0.0.2"}


def counted_round_trips(monkeypatch) -> list[str]:
    """The counter storage's counts and reset lookups from now on, by name: against Redis each is one round trip
    (the Redis test counts the commands themselves)."""
    asked: list[str] = []
    for name in ("incr", "get_expiry"):
        original = getattr(MemoryStorage, name)
        monkeypatch.setattr(MemoryStorage, name, lambda self, *args, _name=name, _original=original, **kwargs:
                            asked.append(_name) or _original(self, *args, **kwargs))
    return asked


def client_with(create="", join="", moves="", reads=""):
    app = create_app(make_service(), lambda: True, rate_limits=RateLimits("memory://", create, join, moves,
                                                                         reads=reads))
    return app.test_client()


def test_creations_past_the_limit_get_429_rate_limited_with_retry_after_in_body_and_header():
    client = client_with(create="2/minute")
    for _ in range(2):
        assert client.post("/v1/matches", json=HUMANS, environ_base=FROM_A).status_code == 201
    refused = client.post("/v1/matches", json=HUMANS, environ_base=FROM_A)
    body = assert_error(refused, 429, "rate_limited")
    assert 1 <= body["retry_after"] <= 61 and refused.headers["Retry-After"] == str(body["retry_after"])


def test_the_limit_counts_per_address_and_leaves_reads_alone():
    client = client_with(create="1/minute")
    created = client.post("/v1/matches", json=HUMANS, environ_base=FROM_A).get_json()
    assert client.post("/v1/matches", json=HUMANS, environ_base=FROM_B).status_code == 201
    assert client.post("/v1/matches", json=HUMANS, environ_base=FROM_A).status_code == 429
    for _ in range(3):
        assert client.get("/v1/matches", environ_base=FROM_A).status_code == 200
        assert client.get(f"/v1/matches/{created['id']}", environ_base=FROM_A).status_code == 200


def test_reads_past_the_limit_get_429_with_retry_after_for_that_address_only():
    client = client_with(reads="3/minute")
    assert [client.get("/v1/games", environ_base=FROM_A).status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/v1/bots", environ_base=FROM_A)  # one budget for every read
    body = assert_error(refused, 429, "rate_limited")
    assert 1 <= body["retry_after"] <= 60 and refused.headers["Retry-After"] == str(body["retry_after"])
    assert "your address" in body["message"]
    assert client.get("/v1/games", environ_base=FROM_B).status_code == 200


def test_a_listing_counts_one_read_per_page_of_twenty_it_asks_for():
    client = client_with(reads="10/minute")
    assert client.get("/v1/matches?limit=100", environ_base=FROM_A).status_code == 200  # 5 reads
    assert client.get("/v1/matches?limit=81", environ_base=FROM_A).status_code == 200  # 5 more
    assert_error(client.get("/v1/matches?limit=1", environ_base=FROM_A), 429, "rate_limited")


def test_writes_the_health_checks_and_metrics_are_not_reads():
    client = client_with(reads="1/minute")
    assert client.get("/v1/games", environ_base=FROM_A).status_code == 200
    assert client.post("/v1/matches", json=HUMANS, environ_base=FROM_A).status_code == 201
    for path in ("/health", "/health/live", "/health/ready", "/metrics"):
        assert client.get(path, environ_base=FROM_A).status_code != 429, path
    assert_error(client.get("/v1/games", environ_base=FROM_A), 429, "rate_limited")


@pytest.mark.parametrize("path", ["/openapi.json", "/docs/swagger-ui-bundle.js", "/docs/games/mantis", "/",
                                  "/viewer/match.js", "/nothing/here"])
def test_the_docs_the_viewers_files_and_unknown_paths_are_reads_too(path):
    client = client_with(reads="1/minute")
    assert client.get(path, environ_base=FROM_A).status_code in (200, 404)
    assert_error(client.get(path, environ_base=FROM_A), 429, "rate_limited")
    assert_error(client.get("/v1/games", environ_base=FROM_A), 429, "rate_limited")


def test_a_refused_caller_is_refused_from_memory_without_asking_the_counters_again(monkeypatch):
    client, asked = client_with(reads="1/minute"), counted_round_trips(monkeypatch)
    assert client.get("/v1/games", environ_base=FROM_A).status_code == 200
    first = assert_error(client.get("/v1/games", environ_base=FROM_A), 429, "rate_limited")
    assert asked == ["incr", "incr", "get_expiry"]  # the window's opening needs no reset asked; the refusal does
    for _ in range(3):
        again = client.get("/v1/games", environ_base=FROM_A)
        assert assert_error(again, 429, "rate_limited")["retry_after"] <= first["retry_after"]
        assert again.headers["RateLimit"].startswith('"reads-minute";r=0;')
    assert len(asked) == 3
    assert client.get("/v1/games", environ_base=FROM_B).status_code == 200 and len(asked) == 4


def test_a_refusal_is_held_back_before_it_is_answered_and_an_answer_is_not(monkeypatch):
    held = []
    monkeypatch.setattr("api.rate_limits.time.sleep", held.append)
    client = create_app(make_service(), lambda: True, rate_limits=RateLimits("memory://", "1/minute", "", "",
                                                                              reads="1/minute", hold=0.5)).test_client()
    assert client.get("/v1/games").status_code == 200 and client.post("/v1/matches", json=HUMANS).status_code == 201
    assert held == []
    assert_error(client.get("/v1/games"), 429, "rate_limited")
    assert_error(client.post("/v1/matches", json=HUMANS), 429, "rate_limited")
    assert held == [0.5, 0.5]


def standing(answer) -> tuple[str, int, int]:
    """The RateLimit header's policy, remaining requests (r) and seconds until the reset (t)."""
    policy, remaining, reset = re.fullmatch(r'"([\w-]+)";r=(\d+);t=(\d+)', answer.headers["RateLimit"]).groups()
    return policy, int(remaining), int(reset)


def test_every_limited_answer_lists_the_windows_and_stands_in_the_one_closest_to_running_out():
    # given reads limited to a burst of 3 a minute within 100 an hour
    client = client_with(reads="3/minute;100/hour")
    # when an address reads once, then the burst's window has the fewest left
    first = client.get("/v1/games", environ_base=FROM_A)
    assert first.headers["RateLimit-Policy"] == '"reads-minute";q=3;w=60, "reads-hour";q=100;w=3600'
    policy, remaining, reset = standing(first)
    assert (policy, remaining) == ("reads-minute", 2) and 1 <= reset <= 60
    # and with an hour's quota of 5, after three reads the hour's window is the closer
    client = client_with(reads="100/minute;5/hour")
    answers = [client.get("/v1/games", environ_base=FROM_A) for _ in range(3)]
    policy, remaining, reset = standing(answers[-1])
    assert (policy, remaining) == ("reads-hour", 2) and 1 <= reset <= 3600
    assert standing(client.get("/v1/games", environ_base=FROM_B))[:2] == ("reads-hour", 4)  # the other address's own


def test_a_write_and_its_refusal_carry_the_headers_and_the_refusal_names_the_limit_it_hit():
    # given creations limited to 20 a second and 2 a minute
    client = client_with(create="20/second;2/minute")
    # when an address creates twice, then a third time
    created = [client.post("/v1/matches", json=HUMANS, environ_base=FROM_A) for _ in range(2)]
    refused = client.post("/v1/matches", json=HUMANS, environ_base=FROM_A)
    # then each answer stands in the minute's window, the refusal at 0 with the limit and policy it hit
    assert [standing(answer)[:2] for answer in created] == [("matches-minute", 1), ("matches-minute", 0)]
    body = assert_error(refused, 429, "rate_limited")
    assert (body["limit"], body["policy"]) == ("2 per 1 minute", "matches-minute")
    assert "2 per 1 minute (matches-minute)" in body["message"]
    assert refused.headers["RateLimit-Policy"] == '"matches-second";q=20;w=1, "matches-minute";q=2;w=60'
    policy, remaining, reset = standing(refused)
    assert (policy, remaining) == ("matches-minute", 0) and 1 <= reset <= 60 and 1 <= body["retry_after"] <= 60


def test_what_is_not_limited_carries_no_rate_limit_headers():
    # given reads limited and writes not
    client = client_with(reads="10/minute")
    # then the health checks, uncounted, and a creation, unlimited, say nothing of rate limits
    for answer in (client.get("/health"), client.get("/health/ready"), client.post("/v1/matches", json=HUMANS)):
        assert "RateLimit" not in answer.headers and "RateLimit-Policy" not in answer.headers
    assert "RateLimit" in client.get("/v1/games").headers


def test_a_browser_page_may_read_the_rate_limit_headers():
    client = client_with(reads="10/minute")
    answer = client.get("/v1/games", headers={"Origin": "https://bots.example"})
    exposed = {name.strip() for name in answer.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"RateLimit-Policy", "RateLimit", "Retry-After"} <= exposed


def test_a_quota_is_one_more_part_of_the_creation_limit():
    client = client_with(create="100/second;3/day")
    assert [client.post("/v1/matches", json=HUMANS, environ_base=FROM_A).status_code for _ in range(4)] == \
        [201, 201, 201, 429]
    body = client.post("/v1/matches", json=HUMANS, environ_base=FROM_A).get_json()
    assert body["retry_after"] > 3600  # the day's quota, not the second's burst, is what was hit


def test_moves_and_joins_have_their_own_limits():
    client = client_with(join="1/minute", moves="1/minute")
    created = client.post("/v1/matches", json=HUMANS, environ_base=FROM_A).get_json()
    token = created["seats"][0]["token"]
    move = {"move": {"action": "score"}, "expected_version": 2}
    assert client.post(f"/v1/matches/{created['id']}/moves", json=move, headers=bearer(token),
                       environ_base=FROM_A).status_code == 201
    again = client.post(f"/v1/matches/{created['id']}/moves", json=move, headers=bearer(token), environ_base=FROM_A)
    assert_error(again, 429, "rate_limited")
    table = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "ann"}, {"open": True},
                                                                         {"open": True}]}).get_json()
    assert client.post(f"/v1/matches/{table['id']}/join", json={"name": "bob"}, environ_base=FROM_B).status_code == 201
    assert_error(client.post(f"/v1/matches/{table['id']}/join", json={"name": "cy"}, environ_base=FROM_B), 429)


def test_with_no_limit_configured_nothing_is_limited():
    client = client_with()
    assert all(client.post("/v1/matches", json=HUMANS).status_code == 201 for _ in range(30))


@pytest.mark.parametrize("options", [{"budget_ms": MAX_BUDGET_MS + 1}, {"iterations": MAX_ITERATIONS + 1}])
def test_a_bot_asking_for_more_search_than_the_caps_is_refused(options):
    client = client_with()
    seats = [{"name": "ann"}, {"bot": "ismcts", "bot_options": options}]
    assert_error(client.post("/v1/matches", json={"game": "mantis", "seats": seats}), 422, "invalid_option")


def test_a_bot_at_the_caps_is_accepted():
    client = client_with()
    seats = [{"name": "ann"}, {"bot": "ismcts", "bot_options": {"budget_ms": MAX_BUDGET_MS,
                                                               "iterations": MAX_ITERATIONS}}]
    assert client.post("/v1/matches", json={"game": "mantis", "seats": seats}).status_code == 201


def test_the_limits_default_to_the_services_redis_and_can_each_be_turned_off():
    config = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6390/0", "LIMIT_JOIN": ""})
    limits = build_rate_limits(config)
    assert limits.storage_uri == "redis://127.0.0.1:6390/0" and limits.join == ""
    assert limits.create.endswith("/day") and limits.moves and limits.reads
    assert limits.hold == HOLD_REFUSALS > 0  # the service holds its refusals; the tests' apps above do not
    elsewhere = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6390/0", "RATE_LIMIT_STORAGE": "memory://"})
    assert build_rate_limits(elsewhere).storage_uri == "memory://"
