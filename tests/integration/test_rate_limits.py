"""Rate limits on the real Redis: every gunicorn worker (here: two apps) counts against one limit."""
import pytest
import redis

from api.app import create_app
from api.rate_limits import RateLimits
from eventstore.accounts import InMemoryAccountStore
from service.accounts import AccountService
from tests.support.http import assert_error
from tests.support.service import make_service

pytestmark = pytest.mark.integration
HUMANS = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]}


def test_two_processes_on_one_redis_share_a_clients_creation_limit(redis_url, redis_client):
    limits = RateLimits(redis_url, create="3/minute", join="", moves="")
    first, second = (create_app(make_service(), lambda: True, rate_limits=limits).test_client() for _ in range(2))
    answers = [client.post("/v1/matches", json=HUMANS).status_code for client in (first, second, first)]
    assert answers == [201, 201, 201]
    refused = second.post("/v1/matches", json=HUMANS)
    assert_error(refused, 429, "rate_limited")
    assert int(refused.headers["Retry-After"]) >= 1
    assert any(key.startswith("LIMITS") for key in redis_client.scan_iter())  # kept in Redis, with expiry
    assert all(redis_client.ttl(key) > 0 for key in redis_client.scan_iter("LIMITS*"))


def test_a_caller_with_an_account_key_is_counted_as_the_account_and_others_by_address(redis_url, redis_client):
    accounts = AccountService(InMemoryAccountStore())
    app = create_app(make_service(accounts=accounts), lambda: True, accounts=accounts,
                     rate_limits=RateLimits(redis_url, create="2/minute", join="", moves="", accounts="3/minute"))
    client = app.test_client()
    keys = [client.post("/v1/accounts", json={"name": name, "kind": "bot"}).get_json()["api_key"]
            for name in ("alice", "bob", "carol")]
    assert_error(client.post("/v1/accounts", json={"name": "dave", "kind": "bot"}), 429, "rate_limited")
    alice, bob = ({"Authorization": f"Bearer {key}"} for key in keys[:2])
    assert [client.post("/v1/matches", json=HUMANS, headers=alice).status_code for _ in range(2)] == [201, 201]
    refused = assert_error(client.post("/v1/matches", json=HUMANS, headers=alice), 429, "rate_limited")
    assert "your account" in refused["message"] and refused["retry_after"] >= 1
    assert client.post("/v1/matches", json=HUMANS, headers=bob).status_code == 201  # bob has his own limit
    assert [client.post("/v1/matches", json=HUMANS).status_code for _ in range(3)] == [201, 201, 429]  # the address


def test_reads_are_counted_per_account_wherever_they_come_from_and_per_address_without_a_key(redis_url):
    accounts = AccountService(InMemoryAccountStore())
    limits = RateLimits(redis_url, create="", join="", moves="", reads="3/minute")
    first, second = (create_app(make_service(accounts=accounts), lambda: True, accounts=accounts,
                                rate_limits=limits).test_client() for _ in range(2))
    key = first.post("/v1/accounts", json={"name": "reader", "kind": "bot"}).get_json()["api_key"]
    alice = {"Authorization": f"Bearer {key}"}
    answers = [client.get("/v1/accounts/me", headers=alice, environ_base={"REMOTE_ADDR": address}).status_code
               for client, address in ((first, "10.0.0.1"), (second, "10.0.0.2"), (first, "10.0.0.3"))]
    assert answers == [200, 200, 200]
    refused = assert_error(second.get("/v1/accounts/me", headers=alice, environ_base={"REMOTE_ADDR": "10.0.0.4"}),
                           429, "rate_limited")
    assert "your account" in refused["message"]
    assert second.get("/v1/games", environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 200  # the address's own


def redis_commands(monkeypatch) -> list[str]:
    """The commands every Redis client sends from now on, by name: each is one round trip."""
    sent: list[str] = []
    send = redis.Redis.execute_command
    monkeypatch.setattr(redis.Redis, "execute_command",
                        lambda self, *args, **options: sent.append(str(args[0]).upper()) or send(self, *args, **options))
    return sent


def test_the_rate_limit_headers_count_every_process_and_cost_one_round_trip_more_at_most(redis_url, monkeypatch):
    # given two processes on one Redis, reads limited to 3 a minute within 100 an hour
    limits = RateLimits(redis_url, create="", join="", moves="", reads="3/minute;100/hour")
    first, second = (create_app(make_service(), lambda: True, rate_limits=limits).test_client() for _ in range(2))
    first.get("/v1/games", environ_base={"REMOTE_ADDR": "10.0.0.9"})  # loads the counting script into Redis
    sent = redis_commands(monkeypatch)
    # when one address reads in each in turn
    opening = first.get("/v1/games")
    opened = sent[:]
    following = second.get("/v1/games")
    followed = sent[len(opened):]
    last = first.get("/v1/games")
    before_refusal = len(sent)
    refused = second.get("/v1/games")
    refusal = sent[before_refusal:]
    # then both processes count in the same windows, every answer says so
    assert {answer.headers["RateLimit-Policy"] for answer in (opening, following, last, refused)} == \
        {'"reads-minute";q=3;w=60, "reads-hour";q=100;w=3600'}
    assert [answer.headers["RateLimit"].split(";t=")[0] for answer in (opening, following, last, refused)] == \
        ['"reads-minute";r=2', '"reads-minute";r=1', '"reads-minute";r=0', '"reads-minute";r=0']
    body = assert_error(refused, 429, "rate_limited")
    assert (body["limit"], body["policy"]) == ("3 per 1 minute", "reads-minute")
    assert 1 <= int(refused.headers["RateLimit"].split(";t=")[1]) <= 60
    # and the counting took one round trip a window, as before these headers, plus one for a reset not known
    assert opened == ["EVALSHA", "EVALSHA"]  # the windows opened by this read: their resets are a window away
    assert followed == ["EVALSHA", "EVALSHA", "TTL"]
    assert refusal == ["EVALSHA", "TTL"]  # the refused window's count and reset; the hour's is not counted
    assert len(sent) == before_refusal + 2 and second.get("/v1/games").status_code == 429
    assert len(sent) == before_refusal + 2  # a refusal remembered asks Redis nothing
