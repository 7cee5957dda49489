"""/v1/tournaments over the Flask test client, the in-memory store, bots and advances run inline."""
import json

import pytest

from api.rate_limits import RateLimits
from service.tournament_audit import verify_tournament
from tests.support.http import assert_error, make_client
from tests.support.openapi import component
from tests.support.service import InlineBots, InlineTournaments

DUPLICATE = {"game": "mantis", "format": "duplicate", "deals": 2, "table_size": 2,
             "entrants": [{"bot": "random"}, {"bot": "greedy"}]}


@pytest.fixture
def client():
    return make_client(bots=InlineBots(), tournament_jobs=InlineTournaments())


def test_a_tournament_created_over_http_runs_to_its_end(client):
    created = client.post("/v1/tournaments", json=DUPLICATE)
    assert created.status_code == 201, created.get_json()
    tournament_id = created.get_json()["id"]
    document = client.get(f"/v1/tournaments/{tournament_id}").get_json()
    assert document["status"] == "finished" and document["progress"] == {"done": 4, "total": 4}
    assert document["eta_seconds"] is None and document["seed"]
    listed = client.get("/v1/tournaments").get_json()["tournaments"]
    assert [t["id"] for t in listed] == [tournament_id]


def test_standings_chart_and_export(client):
    tournament_id = client.post("/v1/tournaments", json=DUPLICATE).get_json()["id"]
    standings = client.get(f"/v1/tournaments/{tournament_id}/standings").get_json()
    assert {row["name"] for row in standings["entrants"]} == {"random #0", "greedy #1"}
    assert all(row["share_low"] <= (row["share"] or 0) <= row["share_high"] for row in standings["entrants"])
    chart = client.get(f"/v1/tournaments/{tournament_id}/chart.svg")
    assert chart.mimetype == "image/svg+xml" and b"greedy #1" in chart.data and chart.data.startswith(b"<svg")
    export = client.get(f"/v1/tournaments/{tournament_id}/export").get_json()
    assert verify_tournament(export).ok


def test_the_stream_of_a_finished_tournament_is_its_document(client):
    tournament_id = client.post("/v1/tournaments", json=DUPLICATE).get_json()["id"]
    answer = client.get(f"/v1/tournaments/{tournament_id}/stream", headers={"Accept": "application/x-ndjson"})
    frames = [json.loads(line) for line in answer.data.splitlines() if line.strip()]
    assert [f["type"] for f in frames] == ["tournament"] and frames[0]["status"] == "finished"


@pytest.mark.parametrize("query, headers, status", [("?after=" + "9" * 400, {}, 422),
                                                   ("", {"Last-Event-ID": "9007199254740992"}, 400)])
def test_a_stream_resumed_past_the_largest_version_is_refused_without_echoing_it(client, query, headers, status):
    tournament_id = client.post("/v1/tournaments", json=DUPLICATE).get_json()["id"]

    answer = client.get(f"/v1/tournaments/{tournament_id}/stream{query}", headers=headers)

    assert_error(answer, status)
    assert "9" * 16 not in answer.get_data(as_text=True)


def test_a_stream_resumed_from_the_start_gives_every_event_then_the_document(client):
    tournament_id = client.post("/v1/tournaments", json=DUPLICATE).get_json()["id"]
    answer = client.get(f"/v1/tournaments/{tournament_id}/stream?after=0", headers={"Accept": "application/x-ndjson"})
    frames = [json.loads(line) for line in answer.data.splitlines() if line.strip()]
    types = [f["type"] for f in frames]
    assert types[0] == "tournament_created" and types[-2:] == ["tournament_finished", "tournament"]
    assert types.count("match_recorded") == 4


@pytest.mark.parametrize("body, reason", [
    ({**DUPLICATE, "game": "chess"}, "unknown_game"),
    ({**DUPLICATE, "entrants": [{"bot": "wizard"}, {"bot": "random"}]}, "unknown_bot"),
    ({**DUPLICATE, "format": "round_robin", "table_size": 9, "entrants": [{"bot": "random"}] * 9},
     "invalid_request"),  # beyond MAX_SEATS: the schema
    ({**DUPLICATE, "format": "round_robin", "table_size": 7, "entrants": [{"bot": "random"}] * 7},
     "invalid_player_count"),
    ({**DUPLICATE, "deals": 5000}, "too_many_matches"),
    ({**DUPLICATE, "format": "swiss"}, "rounds_required"),
    ({**DUPLICATE, "entrants": [{"bot": "random", "account": "x"}, {"bot": "random"}]}, "invalid_request"),
    ({**DUPLICATE, "entrants": [{"account": "nobody"}, {"bot": "random"}], "format": "round_robin"},
     "account_not_found"),
    ({**DUPLICATE, "surprise": 1}, "invalid_request"),
])
def test_a_bad_spec_is_refused_with_a_reason(client, body, reason):
    answer = client.post("/v1/tournaments", json=body)
    assert_error(answer, 422, reason)


def test_an_unknown_tournament_is_404(client):
    for path in ("", "/standings", "/export", "/chart.svg", "/stream"):
        assert_error(client.get(f"/v1/tournaments/nope{path}"), 404, "tournament_not_found")


def test_tournament_creations_past_the_create_limit_get_429_counted_apart_from_matches():
    limited = make_client(rate_limits=RateLimits("memory://", "2/minute", "", ""))
    for _ in range(2):
        assert limited.post("/v1/tournaments", json=DUPLICATE).status_code == 201
    assert_error(limited.post("/v1/tournaments", json=DUPLICATE), 429, "rate_limited")
    two_humans = {"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}
    assert limited.post("/v1/matches", json=two_humans).status_code == 201


@pytest.mark.parametrize("clock, accepted", [({"move_ms": 0, "bank_ms": 0}, False), ({"move_ms": 0}, False),
                                             ({"move_ms": 0, "bank_ms": 60_000}, True), ({"bank_ms": 0}, True)])
def test_a_tournaments_clock_and_a_matchs_follow_one_rule_in_the_document_and_on_the_server(client, clock, accepted):
    document = client.get("/openapi.json").get_json()
    match = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}], "clock": clock}

    as_documented = [component(document, name).is_valid(clock) for name in ("NewClock", "ClockSpec")]
    answers = [client.post("/v1/matches", json=match), client.post("/v1/tournaments", json={**DUPLICATE, "clock": clock})]

    assert as_documented == [accepted, accepted]
    for answer in answers:
        if accepted:
            assert answer.status_code == 201, answer.get_json()
        else:
            assert_error(answer, 422, "invalid_clock")
