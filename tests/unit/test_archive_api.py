"""The streams of finished matches' exports over HTTP (api/archive.py): NDJSON, gzip on request, every bad query a 4xx
with its reason before anything is streamed."""
import gzip
import json

import pytest

from service.audit import verify_export
from service.matches import exports
from tests.support.http import assert_error, make_client
from tests.support.service import InlineBots

START = 1_700_000_000.0


class Clock:
    def __init__(self):
        self.now = START

    def __call__(self):
        return self.now


@pytest.fixture
def finished():
    """A client of a server where three matches of two random bots finished a minute apart, their ids, and the
    server's clock."""
    clock = Clock()
    client = make_client(InlineBots(), clock=clock)
    ids = []
    for i, game in enumerate(["flipout", "mantis", "flipout"]):
        clock.now = START + 60 * i
        ids.append(client.post("/v1/matches", json={"game": game, "seats": [{"bot": "random"}] * 2}).get_json()["id"])
    clock.now += exports.SETTLE_MS / 1000 + 1
    return client, ids, clock


def lines(body: bytes) -> list[dict]:
    return [json.loads(line) for line in body.splitlines()]


def test_the_finished_matches_stream_as_ndjson_one_verifiable_export_a_line_oldest_first(finished):
    client, ids, _ = finished
    answer = client.get("/v1/matches/export")
    assert answer.status_code == 200 and answer.mimetype == "application/x-ndjson"
    sent = lines(answer.data)
    assert [d["match_id"] for d in sent] == ids and all(verify_export(d).ok for d in sent)


def test_a_client_accepting_gzip_gets_the_same_lines_gzipped(finished):
    client, ids, _ = finished
    plain = client.get("/v1/matches/export?game=flipout").data
    answer = client.get("/v1/matches/export?game=flipout", headers={"Accept-Encoding": "gzip"})
    assert answer.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in answer.headers["Vary"]
    unzipped = lines(gzip.decompress(answer.data))
    assert [d["match_id"] for d in unzipped] == [ids[0], ids[2]]
    assert [d["events"] for d in unzipped] == [d["events"] for d in lines(plain)]


def test_a_stream_of_limit_matches_resumes_after_the_last_one(finished):
    client, ids, _ = finished
    first = lines(client.get("/v1/matches/export?limit=2").data)
    rest = lines(client.get(f"/v1/matches/export?after={first[-1]['match_id']}").data)
    assert [d["match_id"] for d in first + rest] == ids


def test_the_interval_is_read_in_rfc_3339_with_any_offset(finished):
    client, ids, _ = finished
    answer = client.get("/v1/matches/export", query_string={"since": "2023-11-14T23:14:20+01:00",
                                                             "until": "2023-11-14T22:15:20Z"})
    assert [d["match_id"] for d in lines(answer.data)] == ids[1:2]


def test_an_accounts_and_a_tournaments_streams_answer_404_for_what_does_not_exist(finished):
    client, _, clock = finished
    assert_error(client.get("/v1/accounts/nobody/matches/export"), 404, "account_not_found")
    assert_error(client.get("/v1/tournaments/nothing/matches/export"), 404, "tournament_not_found")


def test_an_accounts_stream_by_name_has_its_finished_matches(finished):
    client, _, clock = finished
    key = client.post("/v1/accounts", json={"name": "ann", "kind": "human"}).get_json()["api_key"]
    created = client.post("/v1/matches", json={"game": "flipout", "seats": [{"account": "ann"}, {"bot": "random"}]},
                          headers={"Authorization": f"Bearer {key}"}).get_json()
    client.post(f"/v1/matches/{created['id']}/resign", headers={"Authorization": f"Bearer {key}"})
    clock.now += exports.SETTLE_MS / 1000 + 1
    sent = lines(client.get("/v1/accounts/ann/matches/export").data)
    assert [d["match_id"] for d in sent] == [created["id"]]


@pytest.mark.parametrize("query, status, reason", [
    ("since=2023-11-14T22:13:20", 422, "invalid_request"),  # no offset: not RFC 3339
    ("since=yesterday", 422, "invalid_request"),
    ("rated=perhaps", 422, "invalid_request"),
    ("limit=0", 422, "invalid_request"),
    (f"limit={exports.MOST_PER_REQUEST + 1}", 422, "invalid_request"),
    ("sinse=2023-11-14T22:13:20Z", 422, "invalid_request"),
    ("after=not-a-listed-match", 422, "after_not_listed"),
    ("since=2023-11-15T00:00:00Z&until=2023-11-14T00:00:00Z", 422, "empty_interval"),
    ("game=chess", 422, "unknown_game"),
])
def test_a_bad_query_is_refused_with_its_reason(finished, query, status, reason):
    client, _, clock = finished
    assert_error(client.get(f"/v1/matches/export?{query}"), status, reason)
