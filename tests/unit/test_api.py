"""The HTTP API: the shapes clients rely on, and a 4xx with a reason for every kind of bad input."""
import pytest

from tests.support.http import THREE, assert_error, bearer, make_client
from tests.support.service import InlineBots



def test_the_catalog_lists_every_game_with_players_options_and_actions(client):
    games = client.get("/v1/games").get_json()["games"]
    mantis = next(g for g in games if g["id"] == "mantis")
    assert mantis["players"] == {"min": 2, "max": 6}
    assert mantis["options"][0]["name"] == "edition" and mantis["options"][0]["default"] == "classic"
    assert set(mantis["actions"]) == {"score", "steal"}
    assert client.get("/v1/games/mantis").get_json() == mantis
    assert_error(client.get("/v1/games/chess"), 404, "unknown_game")


def test_bots_are_listed(client):
    assert {"random", "greedy"} <= {b["id"] for b in client.get("/v1/bots").get_json()["bots"]}


def test_a_bot_seat_may_ask_for_a_level(client):
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [
        {"name": "ann"}, {"bot": "ismcts", "bot_options": {"level": 1}}]})
    assert created.status_code == 201 and created.get_json()["seats"][1]["bot"] == "ismcts"


def test_creating_a_match_answers_201_with_the_documented_fields_and_a_token_per_human_seat(client):
    response = client.post("/v1/matches", json=THREE)
    body = response.get_json()
    assert response.status_code == 201
    assert set(body) >= {"id", "game", "options", "status", "version", "seats", "to_act", "result", "view"}
    assert body["status"] == "active" and body["to_act"] == [0] and body["result"] is None
    assert all(seat["token"] for seat in body["seats"])


def test_a_seat_sees_its_own_view_and_a_spectator_the_public_one(client, created):
    as_ann = client.get(f"/v1/matches/{created['id']}", headers=bearer(created["seats"][0]["token"])).get_json()
    spectator = client.get(f"/v1/matches/{created['id']}").get_json()
    assert as_ann["you"] == 0 and as_ann["view"]["own_score_pile"] == []
    assert spectator["you"] is None and spectator["view"]["own_score_pile"] is None


def test_a_move_answers_201_with_the_new_version_and_the_callers_events(client, created):
    token = created["seats"][0]["token"]
    legal = client.get(f"/v1/matches/{created['id']}/legal-moves", headers=bearer(token)).get_json()
    assert legal["version"] == 2 and {"action": "score"} in legal["moves"]
    response = client.post(f"/v1/matches/{created['id']}/moves", headers=bearer(token),
                           json={"move": {"action": "score"}, "expected_version": 2})
    assert response.status_code == 201 and response.get_json()["version"] == 4
    assert response.get_json()["to_act"] == [1] and response.get_json()["status"] == "active"
    assert [e["type"] for e in response.get_json()["events"]] == ["moved", "score_tried"]


def test_an_idempotent_retry_returns_the_first_answer(client, created):
    token = created["seats"][0]["token"]
    request = dict(headers={**bearer(token), "Idempotency-Key": "abc"},
                   json={"move": {"action": "score"}, "expected_version": 2})
    first = client.post(f"/v1/matches/{created['id']}/moves", **request)
    second = client.post(f"/v1/matches/{created['id']}/moves", **request)
    assert second.status_code == 201 and second.get_json() == first.get_json()
    assert client.get(f"/v1/matches/{created['id']}").get_json()["version"] == 4


def test_open_seats_are_joined_and_the_deal_waits_for_the_last(client):
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "ann"}, {"open": True}]})
    match_id = created.get_json()["id"]
    assert created.get_json()["status"] == "waiting"
    joined = client.post(f"/v1/matches/{match_id}/join", json={"name": "bob"})
    assert joined.status_code == 201 and joined.get_json()["seat"] == 1 and joined.get_json()["token"]
    assert joined.get_json()["match"]["status"] == "active"
    assert_error(client.post(f"/v1/matches/{match_id}/join", json={"name": "cy"}), 409, "match_not_waiting")


def test_the_log_and_time_travel(client, created):
    token = created["seats"][0]["token"]
    client.post(f"/v1/matches/{created['id']}/moves", headers=bearer(token),
                json={"move": {"action": "score"}, "expected_version": 2})
    log = client.get(f"/v1/matches/{created['id']}/events").get_json()["events"]
    assert [e["version"] for e in log] == [1, 2, 3, 4] and {"version", "type", "data"} <= set(log[0])
    assert [e["version"] for e in client.get(f"/v1/matches/{created['id']}/events?after=2").get_json()["events"]] == [3, 4]
    then = client.get(f"/v1/matches/{created['id']}/state?version=2").get_json()
    assert then["version"] == 2 and then["to_act"] == [0]


def test_matches_are_listed_with_filters_and_a_cursor(client, created):
    page = client.get("/v1/matches?game=mantis&status=active&limit=1").get_json()
    assert [m["id"] for m in page["matches"]] == [created["id"]] and page["matches"][0]["seed_source"] == "server"
    assert client.get("/v1/matches?status=finished").get_json()["matches"] == []


def test_a_bot_match_is_over_by_the_time_creation_answers_with_inline_bots():
    client = make_client(InlineBots())
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"bot": "random"}, {"bot": "random"}]})
    finished = client.get(f"/v1/matches/{created.get_json()['id']}").get_json()
    assert finished["status"] == "finished" and finished["result"]["winners"]


def test_health_and_the_openapi_document(client):
    assert client.get("/health").get_json() == {"status": "ok", "redis": "ok"}
    assert "/v1/matches/{match_id}/moves" in client.get("/openapi.json").get_json()["paths"]


BAD_CREATES = [
    ({"seats": [{"name": "a"}]}, 422, "invalid_request"),
    ({"game": "mantis"}, 422, "invalid_request"),
    ({**THREE, "colour": "red"}, 422, "invalid_request"),
    ({**THREE, "seats": []}, 422, "invalid_request"),
    ({**THREE, "seats": [{"open": True, "bot": "random"}, {"name": "b"}]}, 422, "invalid_request"),
    ({**THREE, "seats": [{}, {"name": "b"}]}, 422, "invalid_request"),
    ({**THREE, "seats": "two"}, 422, "invalid_request"),
    ({**THREE, "seed": 7}, 422, "invalid_request"),
    ({**THREE, "seats": [{"name": "a"}, {"open": True}], "seed": "x"}, 422, "client_seed_with_open_seats"),
    ({**THREE, "game": "chess"}, 422, "unknown_game"),
    ({**THREE, "options": {"edition": "deluxe"}}, 422, "invalid_option"),
    ({**THREE, "options": {"speed": 2}}, 422, "unknown_option"),
    ({**THREE, "seats": [{"name": "solo"}]}, 422, "invalid_player_count"),
    ({**THREE, "seats": [{"bot": "oracle"}, {"name": "b"}]}, 422, "unknown_bot"),
    ({**THREE, "seats": [{"bot": "ismcts", "bot_options": {"level": 9}}, {"name": "b"}]}, 422, "invalid_option"),
    ([1, 2], 422, "invalid_request"),
]


@pytest.mark.parametrize("body,status,reason", BAD_CREATES)
def test_bad_creates_get_a_4xx_with_a_reason(client, body, status, reason):
    assert_error(client.post("/v1/matches", json=body), status, reason)


def test_malformed_json_and_oversized_bodies_are_refused(client):
    assert_error(client.post("/v1/matches", data="{", content_type="application/json"), 400, "invalid_json")
    assert_error(client.post("/v1/matches", json={**THREE, "seed": "x" * 5000}), 413, "body_too_large")


def test_unknown_paths_and_methods_get_the_error_shape(client, created):
    assert_error(client.get("/v2/matches"), 404, "not_found")
    assert_error(client.delete(f"/v1/matches/{created['id']}"), 405, "method_not_allowed")
    assert_error(client.get("/v1/matches/nope"), 404, "match_not_found")


def test_bad_moves_get_a_4xx_with_a_reason(client, created):
    url, token = f"/v1/matches/{created['id']}/moves", created["seats"][0]["token"]
    score = {"move": {"action": "score"}, "expected_version": 2}
    assert_error(client.post(url, json=score), 401, "token_required")
    assert_error(client.post(url, json=score, headers={"Authorization": "Basic abc"}), 401, "token_malformed")
    assert_error(client.post(url, json=score, headers=bearer("forged")), 403, "token_rejected")
    assert_error(client.post(url, json={**score, "expected_version": 1}, headers=bearer(token)), 409,
                 "version_conflict")["current_version"] == 2
    assert_error(client.post(url, json={**score, "expected_version": "2"}, headers=bearer(token)), 422)
    assert_error(client.post(url, json={**score, "expected_version": -1}, headers=bearer(token)), 422)
    assert_error(client.post(url, json={"move": "score", "expected_version": 2}, headers=bearer(token)), 422)
    assert_error(client.post(url, json={**score, "extra": 1}, headers=bearer(token)), 422)
    assert_error(client.post(url, json={"move": {"action": "fly"}, "expected_version": 2}, headers=bearer(token)),
                 422, "unknown_action")
    assert_error(client.post(url, json=score, headers=bearer(created["seats"][1]["token"])), 422, "not_your_turn")
    assert_error(client.post(url, json=score, headers={**bearer(token), "Idempotency-Key": "k" * 300}), 400,
                 "invalid_idempotency_key")
    assert_error(client.post("/v1/matches/nope/moves", json=score, headers=bearer(token)), 404, "match_not_found")


def test_bad_reads_get_a_4xx_with_a_reason(client, created):
    match_url = f"/v1/matches/{created['id']}"
    assert_error(client.get(f"{match_url}/legal-moves"), 401, "token_required")
    assert_error(client.get(f"{match_url}/events?after=-1"), 422)
    assert_error(client.get(f"{match_url}/events?after=x"), 422)
    assert_error(client.get(f"{match_url}/state"), 422)
    assert_error(client.get(f"{match_url}/state?version=0"), 422)
    assert_error(client.get(f"{match_url}/state?version=99"), 404, "version_not_found")
    assert_error(client.get(match_url, headers=bearer("forged")), 403, "token_rejected")
    assert_error(client.get("/v1/matches?status=lost"), 422)
    assert_error(client.get("/v1/matches?limit=1000"), 422)
    assert_error(client.get("/v1/matches?game=chess"), 422, "unknown_game")
    assert_error(client.post(f"{match_url}/join", json={}), 401, "name_or_key_required")
    assert_error(client.post(f"{match_url}/join", json={"name": "x" * 41}), 422)


def test_an_unexpected_failure_is_a_500_in_the_one_error_shape():
    from eventstore.memory import InMemoryEventStore

    class BrokenStore(InMemoryEventStore):
        def load(self, match_id, upto=None, since=0):
            raise RuntimeError("disk on fire")

    client = make_client(store=BrokenStore())
    created = client.post("/v1/matches", json=THREE).get_json()
    body = assert_error(client.get(f"/v1/matches/{created['id']}"), 500, "internal_error")
    assert "disk" not in body["message"]
