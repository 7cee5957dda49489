"""The operator's actions over HTTP (docs/operations.md): given matches and accounts, when the operator acts with
the ADMIN_KEY, then the match's log, the account's key and its matches show it; without the key, nothing."""
import pytest

from tests.support.http import assert_error, bearer, make_client
from tests.support.service import InlineBots, RecordedBots

ADMIN = "operator-secret"
WHY = {"reason": "reported for abuse", "by": "ops-ann"}


def account(client, name, challenges=None) -> dict:
    created = client.post("/v1/accounts", json={"name": name, "kind": "bot"}).get_json()
    if challenges:
        client.patch("/v1/accounts/me", json={"challenges": challenges}, headers=bearer(created["api_key"]))
    return created


@pytest.fixture
def client():
    return make_client(bots=InlineBots(), admin_key=ADMIN)


def test_without_an_admin_key_the_admin_endpoints_are_off():
    client = make_client()
    assert_error(client.post("/v1/admin/matches/x/abort", json=WHY, headers=bearer("anything")), 404,
                 "admin_disabled")


@pytest.mark.parametrize("headers, status, reason", [({}, 401, "key_required"),
                                                     (bearer("guess"), 403, "not_admin")])
def test_only_the_admin_key_acts(client, headers, status, reason):
    assert_error(client.get("/v1/admin/bot-turns", headers=headers), status, reason)


def test_an_aborted_match_ends_with_no_result_and_the_audit_replays_the_abort(client):
    ann = account(client, "ann")
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "ann"}, {"bot": "random"}]},
                          headers=bearer(ann["api_key"])).get_json()
    aborted = client.post(f"/v1/admin/matches/{created['id']}/abort", json=WHY, headers=bearer(ADMIN))
    assert aborted.status_code == 200, aborted.get_json()
    assert aborted.get_json()["status"] == "finished"
    assert aborted.get_json()["result"] == {"winners": [], "scores": {},
                                            "aborted": {"by": "operator", "reason": "reported for abuse"}}
    assert client.get(f"/v1/matches/{created['id']}/audit").get_json()["ok"]
    assert_error(client.post(f"/v1/admin/matches/{created['id']}/abort", json=WHY, headers=bearer(ADMIN)), 409,
                 "match_finished")
    assert_error(client.post("/v1/admin/matches/nope/abort", json=WHY, headers=bearer(ADMIN)), 404, "match_not_found")
    assert_error(client.post(f"/v1/admin/matches/{created['id']}/abort", json={}, headers=bearer(ADMIN)), 422,
                 "invalid_request")  # a reason is required


def test_a_disabled_account_is_refused_and_taken_out_of_its_matches_until_enabled(client):
    mal, ann = account(client, "mal"), account(client, "ann")
    running = client.post("/v1/matches", headers=bearer(mal["api_key"]), json={
        "game": "mantis", "seats": [{"account": "mal"}, {"bot": "random"}, {"bot": "greedy"}]}).get_json()
    waiting = client.post("/v1/matches", headers=bearer(mal["api_key"]), json={
        "game": "mantis", "seats": [{"account": "mal"}, {"open": True}]}).get_json()
    invitation = client.post("/v1/matches", headers=bearer(ann["api_key"]), json={
        "game": "mantis", "seats": [{"account": "ann"}, {"account": "mal"}]}).get_json()
    disabled = client.post("/v1/admin/accounts/mal/disable", json=WHY, headers=bearer(ADMIN)).get_json()
    assert disabled["disabled"] == "reported for abuse"
    assert sorted(disabled["withdrawn_from"]) == sorted([running["id"], waiting["id"], invitation["id"]])
    assert_error(client.get("/v1/accounts/me", headers=bearer(mal["api_key"])), 403, "account_disabled")
    assert_error(client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]},
                             headers=bearer(mal["api_key"])), 403, "account_disabled")
    seat = client.get(f"/v1/matches/{running['id']}").get_json()["seats"][0]
    assert seat["out"] == "resigned" and seat["zombie"]  # the greedy bot plays it on
    assert client.get(f"/v1/matches/{waiting['id']}").get_json()["seats"][0]["open"]
    assert client.get(f"/v1/matches/{invitation['id']}").get_json()["result"]["canceled"]["reason"] == "declined"
    enabled = client.post("/v1/admin/accounts/mal/enable", json=WHY, headers=bearer(ADMIN)).get_json()
    assert enabled["disabled"] is None
    assert client.get("/v1/accounts/me", headers=bearer(mal["api_key"])).status_code == 200
    assert_error(client.post("/v1/admin/accounts/nobody/disable", json=WHY, headers=bearer(ADMIN)), 404,
                 "account_not_found")


def test_disabling_an_account_cancels_its_open_seeks_with_the_reason(client):
    mal, ann = account(client, "mal"), account(client, "ann")
    seek = client.post("/v1/seeks", json={"game": "mantis"}, headers=bearer(mal["api_key"])).get_json()
    other = client.post("/v1/seeks", json={"game": "mantis"}, headers=bearer(ann["api_key"])).get_json()
    disabled = client.post("/v1/admin/accounts/mal/disable", json=WHY, headers=bearer(ADMIN)).get_json()
    assert disabled["seeks_canceled"] == [seek["id"]]
    canceled = client.get(f"/v1/seeks/{seek['id']}").get_json()
    assert (canceled["status"], canceled["reason"]) == ("canceled", "account_disabled")
    assert client.application.extensions["cardroom.seeks"].pair("mantis")["paired"] == 0
    assert client.get(f"/v1/seeks/{other['id']}").get_json()["status"] == "open"


def test_the_operator_sees_the_stuck_bot_turns_and_enqueues_them_again():
    bots = RecordedBots()
    now = [1_800_000_000.0]
    client = make_client(bots=bots, admin_key=ADMIN, clock=lambda: now[0])
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"bot": "random"}, {"name": "b"}]}).get_json()
    assert client.get("/v1/admin/bot-turns", headers=bearer(ADMIN)).get_json() == {"bot_turns": []}
    now[0] += 60  # the worker that took the turn died
    stuck = [{"match": created["id"], "seat": 0, "version": created["version"]}]
    assert client.get("/v1/admin/bot-turns", headers=bearer(ADMIN)).get_json() == {"bot_turns": stuck}
    bots.scheduled.clear()
    assert client.post("/v1/admin/bot-turns/requeue", json=WHY, headers=bearer(ADMIN)).get_json() == {"bot_turns": stuck}
    assert bots.scheduled == [(created["id"], 0, created["version"])]
