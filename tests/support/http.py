"""An API client for tests: the Flask test client over the in-memory service."""
from api.app import create_app
from api.context import request_memo
from eventstore.accounts import InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.feed import AccountFeeds
from service.hub import Hub
from service.streams import MatchStreams
from tests.support.service import make_service

KEEP_ALIVE_SECONDS = 0.2
# a match of three human seats, the unit tests' usual table
THREE = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]}


def make_client(bots=None, store=None, accounts=None, **service_options):
    store = store or InMemoryEventStore()
    accounts = accounts or AccountService(InMemoryAccountStore(), memo=request_memo)
    service = make_service(bots, store=store, accounts=accounts, **service_options)
    hub = Hub(store)
    streams = MatchStreams(service, hub, KEEP_ALIVE_SECONDS)
    feeds = AccountFeeds(accounts, store, hub, KEEP_ALIVE_SECONDS, poll_seconds=KEEP_ALIVE_SECONDS)
    app = create_app(service, lambda: True, max_body_bytes=4096, streams=streams, accounts=accounts, feeds=feeds)
    return app.test_client()


def finished_match(client) -> dict:
    """A two-seat Mantis match created and played to its end over HTTP (both seats always score)."""
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    version, turn = created["version"], created["to_act"]
    while turn:
        answer = client.post(f"/v1/matches/{created['id']}/moves", headers=bearer(created["seats"][turn[0]]["token"]),
                             json={"move": {"action": "score"}, "expected_version": version}).get_json()
        version, turn = answer["version"], answer["to_act"]
    return created


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def assert_error(response, status, reason=None):
    body = response.get_json()
    assert response.status_code == status, body
    assert set(body) >= {"code", "status", "reason", "message"} and body["code"] == status
    if reason:
        assert body["reason"] == reason, body
    return body
