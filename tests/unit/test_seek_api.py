"""Seeks over HTTP (Flask's test client over the in-memory service): open with an account key, read, list yours,
cancel; every bad request a 4xx with its reason; a pairing pass seats both accounts in one match."""
import pytest

from api.limits import MAX_PATH_PARAMETER_CHARS
from tests.support.http import assert_error, bearer
from tests.unit.test_accounts import register

DUEL = {"game": "mantis", "players": 2}


@pytest.fixture
def ann(client):
    return register(client, "ann")["api_key"]


@pytest.fixture
def bob(client):
    return register(client, "bob")["api_key"]


def seek(client, key, body=DUEL):
    answer = client.post("/v1/seeks", json=body, headers=bearer(key))
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def pairing_pass(client):
    return client.application.extensions["cardroom.seeks"].pair("mantis")


def test_a_seek_without_an_account_key_is_refused(client):
    assert_error(client.post("/v1/seeks", json=DUEL), 401, "key_required")


def test_an_opened_seek_is_open_readable_by_its_id_and_listed_among_yours(client, ann):
    opened = seek(client, ann, {**DUEL, "clock": {"move_ms": 20000}, "rated": True, "rating_range": 4,
                                "bot_after": 30, "bot": "random"})
    assert opened["status"] == "open" and opened["expires_at"] > opened["opened_at"]
    assert opened["rated"] is True and opened["clock"]["move_ms"] == 20000 and opened["bot"] == "random"
    assert client.get(f"/v1/seeks/{opened['id']}").get_json() == opened
    assert client.get("/v1/accounts/me/seeks", headers=bearer(ann)).get_json() == {"seeks": [opened]}


@pytest.mark.parametrize("body, status, reason", [
    ({"game": "chess"}, 422, "unknown_game"),
    ({"game": "mantis", "players": 12}, 422, None),
    ({"game": "mantis", "players": 7}, 422, "invalid_player_count"),
    ({"game": "mantis", "players": "2"}, 422, None),
    ({"game": "mantis", "options": {"edition": "deluxe"}}, 422, "invalid_option"),
    ({"game": "mantis", "rated": True}, 422, "clock_required"),
    ({"game": "mantis", "rated": 1, "clock": {"move_ms": 1000}}, 422, None),
    ({"game": "mantis", "rating_range": -1}, 422, None),
    ({"game": "mantis", "rating_range": "5"}, 422, None),
    ({"game": "mantis", "rating_range": True}, 422, None),
    ({"game": "mantis", "bot_after": 1.5}, 422, None),
    ({"game": "mantis", "bot": "random"}, 422, "bot_without_bot_after"),
    ({"game": "mantis", "bot": "chessmaster", "bot_after": 1}, 422, None),
    ({"game": "mantis", "color": "white"}, 422, None),
    ({"players": 2}, 422, None),
])
def test_a_seek_that_cannot_make_a_match_is_refused_with_a_reason(client, ann, body, status, reason):
    assert_error(client.post("/v1/seeks", json=body, headers=bearer(ann)), status, reason)


def test_an_account_holds_a_bounded_number_of_open_seeks(client, ann):
    for _ in range(5):
        seek(client, ann)
    assert_error(client.post("/v1/seeks", json=DUEL, headers=bearer(ann)), 409, "too_many_seeks")


@pytest.mark.parametrize("seek_id", ["nope", "mantis-" + "0" * 32, "x" * MAX_PATH_PARAMETER_CHARS])
def test_an_unknown_seek_is_404(client, seek_id):
    assert_error(client.get(f"/v1/seeks/{seek_id}"), 404, "seek_not_found")


def test_only_its_owner_cancels_a_seek_and_canceling_again_answers_the_same(client, ann, bob):
    opened = seek(client, ann)
    assert_error(client.delete(f"/v1/seeks/{opened['id']}"), 401, "key_required")
    assert_error(client.delete(f"/v1/seeks/{opened['id']}", headers=bearer(bob)), 403, "not_your_seek")
    canceled = client.delete(f"/v1/seeks/{opened['id']}", headers=bearer(ann))
    assert canceled.status_code == 200 and canceled.get_json()["status"] == "canceled"
    again = client.delete(f"/v1/seeks/{opened['id']}", headers=bearer(ann))
    assert again.status_code == 200 and again.get_json() == canceled.get_json()
    assert client.get("/v1/accounts/me/seeks", headers=bearer(ann)).get_json() == {"seeks": []}


def test_two_seeks_paired_seat_both_accounts_in_one_match_and_can_no_longer_be_canceled(client, ann, bob):
    first, second = seek(client, ann), seek(client, bob)
    assert pairing_pass(client)["started"] == 1
    first, second = (client.get(f"/v1/seeks/{s['id']}").get_json() for s in (first, second))
    assert first["status"] == second["status"] == "paired" and first["match"] == second["match"]
    table = client.get(f"/v1/matches/{first['match']}").get_json()
    assert table["status"] == "active"
    assert [table["seats"][first["seat"]]["name"], table["seats"][second["seat"]]["name"]] == ["ann", "bob"]
    assert_error(client.delete(f"/v1/seeks/{first['id']}", headers=bearer(ann)), 409, "seek_paired")
    mine = client.get("/v1/accounts/me/matches", headers=bearer(bob)).get_json()
    assert [m["id"] for m in mine["matches"]] == [first["match"]]
