"""An API client for tests: the Flask test client over the in-memory service."""
from api.app import create_app
from api.context import request_memo
from eventstore.accounts import InMemoryAccountStore
from eventstore.leaderboards import InMemoryLeaderboardStore
from eventstore.memory import InMemoryEventStore
from eventstore.transparency import InMemoryTransparencyStore
from service.accounts import AccountService
from service.admin import AdminService
from service.ladders import LadderService
from service.live.feed import AccountFeeds
from service.live.hub import Hub
from service.live.streams import MatchStreams, TournamentStreams
from service.seeks import SeekService
from service.signing import Signer
from service.tournaments import TournamentService
from service.transparency import TransparencyService
from tests.support.service import InlineTournaments, RecordedTournaments, make_service

KEEP_ALIVE_SECONDS = 0.2
# a match of three human seats, the unit tests' usual table
THREE = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]}


def make_client(bots=None, store=None, accounts=None, tournament_jobs=None, rate_limits=None, admin_key=None,
                metrics_token=None, ladders=None, seeks=None, transparency=None, **service_options):
    """`tournament_jobs`: the TournamentScheduler (default: one that records and runs nothing); `rate_limits`:
    api.rate_limits.RateLimits (default: none); `admin_key`: the ADMIN_KEY (default: none, admin off);
    `metrics_token`: METRICS_TOKEN (default: none); `ladders`: the LadderService (default: one on `store`);
    `seeks`: a SeekService (default: one on the same store, pairing by `ladders`' ratings); `transparency`: the
    TransparencyService (default: one in memory, signing with a key of its own)."""
    store = store or InMemoryEventStore()
    ladders = ladders or LadderService(store, InMemoryLeaderboardStore())
    accounts = accounts or AccountService(InMemoryAccountStore(), memo=request_memo)
    jobs = tournament_jobs if tournament_jobs is not None else RecordedTournaments()
    transparency = transparency or TransparencyService(InMemoryTransparencyStore(), store, Signer.generated())
    service = make_service(bots, store=store, accounts=accounts, tournaments=jobs, ladders=ladders,
                           transparency=transparency, **service_options)
    hub = Hub(store)
    streams = MatchStreams(service, hub, KEEP_ALIVE_SECONDS)
    feeds = AccountFeeds(accounts, service, store, hub, KEEP_ALIVE_SECONDS, poll_seconds=KEEP_ALIVE_SECONDS)
    tournaments = TournamentService(store, service, jobs, max_matches=1000, accounts=accounts)
    if isinstance(jobs, InlineTournaments):
        jobs.service = tournaments
    seeks = seeks or SeekService(store, service, accounts, ratings=ladders.rating_of)
    admin = AdminService(service, accounts, service._bots, admin_key, stall_after=5, give_up_after=3600,
                         ladders=ladders, seeks=seeks)
    app = create_app(service, lambda: True, max_body_bytes=4096, streams=streams, accounts=accounts, feeds=feeds,
                     tournaments=tournaments, rate_limits=rate_limits, metrics_token=metrics_token,
                     tournament_streams=TournamentStreams(tournaments, hub, KEEP_ALIVE_SECONDS), admin=admin,
                     ladders=ladders, seeks=seeks, transparency=transparency)
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
