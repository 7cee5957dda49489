"""Schemathesis generates requests from the OpenAPI document, valid and invalid, and runs every check it has:
no 5xx; answers match the documented schemas, statuses and headers; requests the document allows are
accepted and those it does not are refused with a 4xx; an undocumented method gets 405 with Allow.
Then the same checks over sequences of calls that follow the links schemathesis infers (create, then
read, join and move the match it created)."""
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from api.app import create_app
from eventstore.accounts import InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.live.hub import Hub
from service.live.streams import MatchStreams, TournamentStreams
from service.seeks import SeekService
from service.tournaments import TournamentService
from tests.support.http import KEEP_ALIVE_SECONDS, finished_match
from tests.support.service import RecordedTournaments, make_service

store = InMemoryEventStore()
accounts = AccountService(InMemoryAccountStore())
service = make_service(store=store, accounts=accounts)
tournaments = TournamentService(store, service, RecordedTournaments(), max_matches=1000, accounts=accounts)
# the server's own body limit (every valid body fits), live streams, accounts and tournaments
app = create_app(service, lambda: True, streams=MatchStreams(service, Hub(store), KEEP_ALIVE_SECONDS),
                 accounts=accounts, tournaments=tournaments,
                 tournament_streams=TournamentStreams(tournaments, Hub(store), KEEP_ALIVE_SECONDS),
                 seeks=SeekService(store, service, accounts))
# schemathesis's WSGI transport reads answers without undoing gzip: send every answer plain
app.config["COMPRESS_MIN_SIZE"] = float("inf")
client = app.test_client()
TWO = {"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}
ACTIVE = client.post("/v1/matches", json=TWO).get_json()["id"]
# a live match's stream never ends, so streams are fuzzed on a match that is over (its stream ends)
FINISHED = finished_match(client)["id"]
# An invalid request may also be refused for its size (413 body_too_large, 414, 431: docs/reliability.md's limits)
# before its shape is read; schemathesis's own list of refusals leaves those out.
REFUSALS = {"negative_data_rejection": {"expected-statuses": [
    "400", "401", "403", "404", "405", "406", "409", "411", "413", "414", "415", "422", "428", "429", "431"]}}
# A tournament's spec has cross-field rules (the match cap is entrants x deals or rounds, table_size against the
# game's players and the entrants): the document states its shape, and a schema-valid spec that cannot run gets
# 422 with a reason; every other check (no 5xx, documented answers) still holds for it.
TOURNAMENT_RULES = {"include-operation-id": "createTournament",
                    "checks": {**REFUSALS, "positive_data_acceptance": {"expected-statuses": ["2xx", "422"]}}}
# The same for a rated match (docs/ladder.md): every seat an account or a house bot, a clock and no seed.
RATED_MATCH_RULES = {"include-operation-id": "createMatch", "checks": {
    **REFUSALS, "positive_data_acceptance": {"expected-statuses": ["2xx", "401", "403", "404", "422"]}}}  # schemathesis's + 422
# A seek's terms have the same cross-field rules as a match's (players against the game and its options, a clock
# when rated, a house bot only with bot_after): a schema-valid seek that cannot make a match gets 422 with a reason;
# and as every account's call here, it is sent with no key (401: tests/unit/test_seek_api.py sends keys).
SEEK_RULES = {"include-operation-id": "createSeek",
              "checks": {**REFUSALS, "positive_data_acceptance": {"expected-statuses": ["2xx", "401", "422"]}}}
# A stream of finished matches' exports resumes `after` a match of that stream, over `since` to before `until`: a
# schema-valid `after` naming no match of it, or an interval that ends before it starts, gets 422 with a reason
# (docs/archive.md); an account or a tournament that does not exist, 404.
EXPORT_RULES = [{"include-operation-id": operation, "checks": {
    **REFUSALS, "positive_data_acceptance": {"expected-statuses": ["2xx", "404", "422"]}}}
    for operation in ("exportFinishedMatches", "exportAccountMatches", "exportTournamentMatches")]
PLAY_SOCKET = r"^/v1/play$"  # a WebSocket, not HTTP: tests/unit/test_play_socket.py
schema = schemathesis.openapi.from_wsgi("/openapi.json", app, config=SchemathesisConfig.from_dict(
    {"generation": {"mode": "all"}, "checks": REFUSALS,
     "operations": [TOURNAMENT_RULES, RATED_MATCH_RULES, SEEK_RULES, *EXPORT_RULES]})).exclude(path_regex=PLAY_SOCKET)
STREAM = r"/stream$"


def waiting_match() -> str:
    """A match with an open seat, so that every join the document allows can succeed."""
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"open": True}]})
    return waiting.get_json()["id"]


@schema.exclude(path_regex=STREAM).parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_check_passes_on_generated_requests(case):
    if "match_id" in (case.path_parameters or {}):
        case.path_parameters["match_id"] = waiting_match() if case.path.endswith("/join") else ACTIVE
    case.call_and_validate()


@schema.include(path_regex=STREAM).parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_check_passes_on_generated_stream_requests(case):
    if "match_id" in (case.path_parameters or {}):
        case.path_parameters["match_id"] = FINISHED
    case.call_and_validate()


StatefulRun = schema.exclude(path_regex=STREAM).as_state_machine().TestCase
StatefulRun.settings = settings(max_examples=30, stateful_step_count=6, deadline=None,
                                suppress_health_check=list(HealthCheck))
