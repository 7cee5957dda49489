"""Accounts over HTTP: register, read yourself, rotate the key, hold seats, list your matches."""
import pytest

from api.context import request_memo
from eventstore.accounts import InMemoryAccountStore
from service.accounts import AccountService
from tests.support.http import assert_error, bearer, make_client


def register(client, name, kind="bot"):
    answer = client.post("/v1/accounts", json={"name": name, "kind": kind})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def accepting_every_challenge(client, account) -> dict:
    """The account lets anyone seat it (docs/challenges.md), as a bot on a ladder does."""
    answer = client.patch("/v1/accounts/me", json={"challenges": "auto"}, headers=bearer(account["api_key"]))
    assert answer.status_code == 200, answer.get_json()
    return account


def score(client, match_id, credential, version):
    return client.post(f"/v1/matches/{match_id}/moves", headers=bearer(credential),
                       json={"move": {"action": "score"}, "expected_version": version})


def test_a_new_account_gets_a_key_once_and_the_key_reads_the_account(client):
    created = register(client, "Alice", "human")
    assert set(created) == {"id", "name", "kind", "created_at", "challenges", "auto_accept_max", "api_key"}
    assert created["api_key"].startswith("crk_")
    me = client.get("/v1/accounts/me", headers=bearer(created["api_key"]))
    assert me.status_code == 200 and me.get_json() == {k: v for k, v in created.items() if k != "api_key"}


@pytest.mark.parametrize("body, reason", [
    ({"name": "alice", "kind": "bot"}, "name_taken"),
    ({"name": "ALICE", "kind": "human"}, "name_taken"),
])
def test_names_are_unique_in_any_case(client, body, reason):
    register(client, "Alice")
    assert_error(client.post("/v1/accounts", json=body), 409, reason)


@pytest.mark.parametrize("body", [{"name": "a", "kind": "bot"}, {"name": "x" * 31, "kind": "bot"},
                                  {"name": "_alice", "kind": "bot"}, {"name": "al ice", "kind": "bot"},
                                  {"name": "alice", "kind": "robot"}, {"name": "alice"}])
def test_bad_names_and_kinds_are_refused(client, body):
    assert_error(client.post("/v1/accounts", json=body), 422)


@pytest.mark.parametrize("headers, status, reason", [
    ({}, 401, "key_required"), (bearer("crk_nothing"), 401, "key_rejected"), (bearer("seat-token"), 401, "key_rejected"),
    ({"Authorization": "Basic abc"}, 401, "token_malformed")])
def test_me_needs_a_current_key(client, headers, status, reason):
    assert_error(client.get("/v1/accounts/me", headers=headers), status, reason)


def test_rotating_the_key_revokes_the_old_one(client):
    old = register(client, "Alice")["api_key"]
    rotated = client.post("/v1/accounts/me/keys", headers=bearer(old))
    assert rotated.status_code == 201
    new = rotated.get_json()["api_key"]
    assert new != old
    assert_error(client.get("/v1/accounts/me", headers=bearer(old)), 401, "key_rejected")
    assert client.get("/v1/accounts/me", headers=bearer(new)).get_json()["name"] == "Alice"


def test_an_accounts_key_acts_for_the_seat_it_was_given_by_name_or_id(client):
    alice, bob = register(client, "alice"), accepting_every_challenge(client, register(client, "bob"))
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "ALICE"}, {"account": bob["id"]}]},
                          headers=bearer(alice["api_key"])).get_json()
    assert [s["account"] for s in created["seats"]] == [alice["id"], bob["id"]]
    assert [s["name"] for s in created["seats"]] == ["alice", "bob"]
    assert all("token" not in s for s in created["seats"])
    keys = {0: alice["api_key"], 1: bob["api_key"]}
    assert client.get(f"/v1/matches/{created['id']}", headers=bearer(keys[1])).get_json()["you"] == 1
    version, turn = created["version"], created["to_act"]
    while turn:  # the keys play the match to its end
        answer = score(client, created["id"], keys[turn[0]], version)
        assert answer.status_code == 201, answer.get_json()
        version, turn = answer.get_json()["version"], answer.get_json()["to_act"]
    assert client.get(f"/v1/matches/{created['id']}").get_json()["status"] == "finished"


def test_an_account_without_a_seat_in_the_match_is_refused(client):
    carol = register(client, "carol")
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    assert_error(score(client, created["id"], carol["api_key"], created["version"]), 403, "token_rejected")


def test_seat_tokens_keep_working_beside_account_seats(client):
    alice = register(client, "alice")
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "ann"}, {"account": "alice"}]},
                          headers=bearer(alice["api_key"]))
    ann = created.get_json()["seats"][0]["token"]
    assert client.get(f"/v1/matches/{created.get_json()['id']}", headers=bearer(ann)).get_json()["you"] == 0


@pytest.mark.parametrize("seats, status, reason", [
    ([{"account": "nobody"}, {"name": "b"}], 404, "account_not_found"),
    ([{"account": "alice"}, {"account": "Alice"}], 422, "account_seated_twice"),
    ([{"account": "alice", "name": "x"}, {"name": "b"}], 422, "invalid_request"),
])
def test_bad_account_seats_are_refused(client, seats, status, reason):
    alice = register(client, "alice")
    assert_error(client.post("/v1/matches", json={"game": "mantis", "seats": seats}, headers=bearer(alice["api_key"])),
                 status, reason)


def test_a_client_seed_may_seat_only_the_creators_own_account(client):
    alice, bob = register(client, "alice"), register(client, "bob")
    body = {"game": "mantis", "seed": "known", "seats": [{"account": "alice"}, {"bot": "random"}]}
    created = client.post("/v1/matches", json=body, headers=bearer(alice["api_key"]))
    assert created.status_code == 201
    assert client.get(f"/v1/matches/{created.get_json()['id']}/audit").get_json()["ok"]  # the owner is logged
    assert_error(client.post("/v1/matches", json=body, headers=bearer(bob["api_key"])), 422,
                 "client_seed_with_open_seats")
    assert_error(client.post("/v1/matches", json=body), 401, "key_required")  # naming an account needs a key


def test_joining_with_a_key_gives_the_account_the_seat_without_a_token(client):
    alice = register(client, "alice")
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"open": True}]}).get_json()
    joined = client.post(f"/v1/matches/{waiting['id']}/join", json={}, headers=bearer(alice["api_key"]))
    assert joined.status_code == 201 and "token" not in joined.get_json()
    assert joined.get_json()["match"]["seats"][1] == {"seat": 1, "name": "alice", "bot": None, "open": False,
                                                      "account": alice["id"], "invited": False, "zombie": False,
                                                      "out": None}
    assert client.get(f"/v1/matches/{waiting['id']}", headers=bearer(alice["api_key"])).get_json()["you"] == 1
    assert client.get(f"/v1/matches/{waiting['id']}/audit").get_json()["ok"]  # the verifier replays the join


def test_joining_without_a_key_needs_a_name_and_an_account_joins_a_match_once(client):
    alice = register(client, "alice")
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "alice"}, {"open": True},
                                                                            {"open": True}]},
                          headers=bearer(alice["api_key"])).get_json()
    assert_error(client.post(f"/v1/matches/{waiting['id']}/join", json={}), 401, "name_or_key_required")
    assert_error(client.post(f"/v1/matches/{waiting['id']}/join", json={}, headers=bearer(alice["api_key"])), 409,
                 "account_already_seated")


def test_my_matches_lists_each_match_with_my_seat_newest_first_and_filters_by_status(client):
    alice = register(client, "alice")
    first = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"account": "alice"}]},
                        headers=bearer(alice["api_key"]))
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"open": True}, {"name": "b"}]})
    client.post(f"/v1/matches/{waiting.get_json()['id']}/join", json={}, headers=bearer(alice["api_key"]))
    client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]})  # not hers
    mine = client.get("/v1/accounts/me/matches", headers=bearer(alice["api_key"])).get_json()
    assert [(m["id"], m["seat"]) for m in mine["matches"]] == [(waiting.get_json()["id"], 0),
                                                               (first.get_json()["id"], 1)]
    page = client.get("/v1/accounts/me/matches?limit=1", headers=bearer(alice["api_key"])).get_json()
    assert len(page["matches"]) == 1 and page["next_cursor"] is not None
    finished = client.get("/v1/accounts/me/matches?status=finished", headers=bearer(alice["api_key"])).get_json()
    assert finished == {"matches": [], "next_cursor": None}
    assert_error(client.get("/v1/accounts/me/matches"), 401, "key_required")


def test_an_account_holds_a_bounded_number_of_unfinished_matches_and_a_finished_one_frees_its_place():
    accounts = AccountService(InMemoryAccountStore(), max_open_matches=2)
    client = make_client(accounts=accounts)
    alice = register(client, "alice")
    two = {"game": "mantis", "seats": [{"name": "ann"}, {"account": "alice"}]}
    first = finished_match_of(client, two, alice["api_key"])
    mine = bearer(alice["api_key"])
    assert [client.post("/v1/matches", json=two, headers=mine).status_code for _ in range(2)] == [201, 201]  # the finished is not counted
    assert_error(client.post("/v1/matches", json=two, headers=mine), 409, "too_many_open_matches")
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"open": True}]}).get_json()
    assert_error(client.post(f"/v1/matches/{waiting['id']}/join", json={}, headers=bearer(alice["api_key"])), 409,
                 "too_many_open_matches")
    assert first["status"] == "finished"


def finished_match_of(client, body, key) -> dict:
    """A match created from `body` and played to its end: seat 0 by its token, the rest by `key`."""
    created = client.post("/v1/matches", json=body, headers=bearer(key)).get_json()
    version, turn = created["version"], created["to_act"]
    while turn:
        credential = created["seats"][turn[0]].get("token") or key
        answer = score(client, created["id"], credential, version).get_json()
        version, turn = answer["version"], answer["to_act"]
    return client.get(f"/v1/matches/{created['id']}").get_json()


def test_a_seat_left_before_the_deal_is_open_again_and_the_next_join_deals():
    client = make_client()
    alice = register(client, "alice")
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "ann"}, {"open": True},
                                                                            {"open": True}]}).get_json()
    url = f"/v1/matches/{waiting['id']}"
    client.post(f"{url}/join", json={}, headers=bearer(alice["api_key"]))
    left = client.post(f"{url}/leave", headers=bearer(alice["api_key"]))
    assert left.status_code == 200 and left.get_json()["seats"][1]["open"] is True
    assert client.get("/v1/accounts/me/matches", headers=bearer(alice["api_key"])).get_json()["matches"] == []
    ann = waiting["seats"][0]["token"]
    assert client.post(f"{url}/leave", headers=bearer(ann)).get_json()["seats"][0]["open"] is True
    assert_error(client.get(f"{url}/legal-moves", headers=bearer(ann)), 403, "token_rejected")  # her token is gone
    for name in ("bob", "cy"):
        client.post(f"{url}/join", json={"name": name})
    dealt = client.post(f"{url}/join", json={"name": "dee"}).get_json()["match"]
    assert dealt["status"] == "active" and [s["name"] for s in dealt["seats"]] == ["bob", "cy", "dee"]
    assert_error(client.post(f"{url}/leave", headers=bearer(alice["api_key"])), 403, "token_rejected")
    assert client.get(f"{url}/audit").get_json()["ok"]  # the verifier replays the leaves


def test_a_seat_cannot_be_left_once_the_match_has_started(client):
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    assert_error(client.post(f"/v1/matches/{created['id']}/leave", headers=bearer(created["seats"][0]["token"])),
                 409, "match_started")
    assert_error(client.post(f"/v1/matches/{created['id']}/leave"), 401, "token_required")


def test_joining_a_match_that_does_not_exist_lists_nothing_for_the_account(client):
    alice = register(client, "alice")
    assert_error(client.post("/v1/matches/nope/join", json={}, headers=bearer(alice["api_key"])), 404, "match_not_found")
    assert client.get("/v1/accounts/me/matches", headers=bearer(alice["api_key"])).get_json()["matches"] == []


class CountedAccountStore(InMemoryAccountStore):
    def __init__(self):
        super().__init__()
        self.lookups = 0

    def by_key(self, key_hash):
        self.lookups += 1
        return super().by_key(key_hash)


@pytest.mark.parametrize("memo, lookups", [(request_memo, 1), (lambda: None, 2)])
def test_a_request_with_a_key_looks_its_account_up_once_when_the_request_remembers_it(memo, lookups):
    store = CountedAccountStore()
    client = make_client(accounts=AccountService(store, memo=memo))
    key = register(client, "ann")["api_key"]
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "ann"}, {"name": "x"}]},
                          headers=bearer(key))
    store.lookups = 0
    read = client.get(f"/v1/matches/{created.get_json()['id']}/legal-moves", headers=bearer(key))  # ETag, then read
    assert read.get_json()["seat"] == 0 and store.lookups == lookups
