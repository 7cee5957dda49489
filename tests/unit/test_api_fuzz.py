"""Schemathesis generates requests from the OpenAPI document, valid and invalid, and runs every check it has:
no 5xx; answers match the documented schemas, statuses and headers; requests the document allows are
accepted and those it does not are refused with a 4xx; an undocumented method gets 405 with Allow.
Then the same checks over sequences of calls that follow the links schemathesis infers (create, then
read, join and move the match it created). The calls an account makes (a seek, a tournament, a match seating
accounts, its settings) are generated once more, only valid ones, each sent with a new account's key."""
from itertools import count

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.config._checks import POSITIVE_DATA_ACCEPTANCE_EXPECTED_STATUSES

from api.app import create_app
from api.schemas.accounts import UNSTATED_ACCOUNT_RULES
from api.schemas.archive import EXPORT_OPERATIONS, UNSTATED_EXPORT_RULES
from api.schemas.new_match import UNSTATED_MATCH_RULES
from api.schemas.ratings import UNSTATED_LADDER_RULES
from api.schemas.tournaments import UNSTATED_TOURNAMENT_RULES
from eventstore.accounts import InMemoryAccountStore
from eventstore.leaderboards import InMemoryLeaderboardStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.ladders import LadderService
from service.live.hub import Hub
from service.live.streams import MatchStreams, TournamentStreams
from service.seeks import SeekService
from service.tournaments import TournamentService
from tests.support.http import KEEP_ALIVE_SECONDS, bearer, finished_match
from tests.support.service import RecordedTournaments, make_service

store = InMemoryEventStore()
accounts = AccountService(InMemoryAccountStore())
ladders = LadderService(store, InMemoryLeaderboardStore())
service = make_service(store=store, accounts=accounts, ladders=ladders)
tournaments = TournamentService(store, service, RecordedTournaments(), max_matches=1000, accounts=accounts)
# the server's own body limit (every valid body fits), live streams, accounts, tournaments, seeks and ladders
app = create_app(service, lambda: True, streams=MatchStreams(service, Hub(store), KEEP_ALIVE_SECONDS),
                 accounts=accounts, tournaments=tournaments,
                 tournament_streams=TournamentStreams(tournaments, Hub(store), KEEP_ALIVE_SECONDS),
                 seeks=SeekService(store, service, accounts, ratings=ladders.rating_of), ladders=ladders)
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
# The rules a document cannot state (they compare a body's items, ask another resource or a setting, or tie a query
# to its path) are listed in the operation's description with their 422 reason: a request the document admits may
# get that 422 and no other (refused_only_for_an_unstated_rule, which holds every 422 schemathesis's own check lets
# through to it); every other check holds for it.
UNSTATED = {"createMatch": UNSTATED_MATCH_RULES, "createTournament": UNSTATED_TOURNAMENT_RULES,
            "getLeaderboard": UNSTATED_LADDER_RULES, "updateMe": UNSTATED_ACCOUNT_RULES,
            **dict.fromkeys(EXPORT_OPERATIONS, UNSTATED_EXPORT_RULES)}
CHECKS = {**REFUSALS, "positive_data_acceptance": {"expected-statuses": [*POSITIVE_DATA_ACCEPTANCE_EXPECTED_STATUSES,
                                                                          "422"]}}


@schemathesis.check
def refused_only_for_an_unstated_rule(ctx, response, case):
    """A request the document admits gets 422 only for a rule its operation's description lists."""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code != 422:
        return None
    reason = response.json()["reason"]
    unstated = UNSTATED.get(case.operation.definition.raw.get("operationId"), {})
    assert reason in unstated, f"{case.operation.label} admitted a request the server refuses: 422 {reason}"
    return None


PLAY_SOCKET = r"^/v1/play$"  # a WebSocket, not HTTP: tests/unit/test_play_socket.py
schema = schemathesis.openapi.from_wsgi("/openapi.json", app, config=SchemathesisConfig.from_dict(
    {"generation": {"mode": "all"}, "checks": CHECKS})).exclude(path_regex=PLAY_SOCKET)
STREAM = r"/stream$"


KEYED_BODIES = ("createMatch", "createTournament")  # a key is optional; with one, their bodies may name accounts


def sent_with_an_account_key(ctx) -> bool:
    operation = ctx.operation.definition.raw
    return {"accountKey": []} in operation.get("security", []) or operation.get("operationId") in KEYED_BODIES


# what an account sends, valid only, each request from a new account (no open match or seek of its own yet): the
# calls above are sent without a key, and most of these answer 401 before they read the body
from_accounts = schemathesis.openapi.from_wsgi("/openapi.json", app, config=SchemathesisConfig.from_dict(
    {"generation": {"mode": "positive"}, "checks": CHECKS})).include(sent_with_an_account_key).exclude(
    path_regex=f"{STREAM}|{PLAY_SOCKET}")
NUMBERS = count()


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
    # a valid request follows a finished match (a live one would stream until the test's time runs out); an invalid
    # one keeps what was generated: put a real id in its path and what made it invalid may be gone (unknown query
    # parameters alone, which every operation ignores), and schemathesis would still expect a refusal
    if "match_id" in (case.path_parameters or {}) and case.meta is not None and case.meta.generation.mode.is_positive:
        case.path_parameters["match_id"] = FINISHED
    case.call_and_validate()


@from_accounts.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_a_body_the_document_admits_is_accepted_from_an_account(case):
    key = accounts.register(f"fuzz{next(NUMBERS)}", "bot")["api_key"]
    assert case.call_and_validate(headers=bearer(key)).status_code != 401


StatefulRun = schema.exclude(path_regex=STREAM).as_state_machine().TestCase
StatefulRun.settings = settings(max_examples=30, stateful_step_count=6, deadline=None,
                                suppress_health_check=list(HealthCheck))
