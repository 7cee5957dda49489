"""One contract, two account stores: what the in-memory store does in unit tests, Redis does in production."""
import pytest

from eventstore.accounts import InMemoryAccountStore, RedisAccountStore


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration),
                        pytest.param("cluster", marks=pytest.mark.integration)])
def accounts(request):
    if request.param == "memory":
        return InMemoryAccountStore()
    return RedisAccountStore(request.getfixturevalue("cluster_client" if request.param == "cluster" else "redis_client"))


def account(account_id="a" * 32, name="Alice", key="k1"):
    return {"id": account_id, "name": name, "kind": "bot", "created_at": "2026-01-01T00:00:00Z", "key": key}


def test_a_created_account_is_found_by_id_by_name_in_any_case_and_by_its_key(accounts):
    assert accounts.create(account())
    assert accounts.get("a" * 32) == account()
    assert accounts.id_by_name("aLICE") == "a" * 32
    assert accounts.by_key("k1") == account()
    assert accounts.get("b" * 32) is None and accounts.by_key("k2") is None and accounts.id_by_name("bob") is None


def test_a_name_taken_in_another_case_is_refused_and_nothing_of_the_loser_is_stored(accounts):
    assert accounts.create(account())
    assert not accounts.create(account("b" * 32, "ALICE", "k2"))
    assert accounts.get("b" * 32) is None and accounts.by_key("k2") is None and accounts.id_by_name("alice") == "a" * 32


def test_replacing_the_key_retires_the_old_one_unless_another_replacement_got_in_first(accounts):
    accounts.create(account())
    assert accounts.replace_key("a" * 32, "k1", "k2")
    assert accounts.by_key("k1") is None and accounts.by_key("k2")["id"] == "a" * 32
    assert not accounts.replace_key("a" * 32, "k1", "k3")
    assert accounts.by_key("k3") is None and accounts.by_key("k2")["id"] == "a" * 32


def test_an_accounts_matches_page_newest_first_and_noting_one_again_keeps_its_place(accounts):
    accounts.create(account())
    for match_id in ("m1", "m2", "m3"):
        accounts.note_match("a" * 32, match_id)
    accounts.note_match("a" * 32, "m1")
    assert accounts.matches("a" * 32, None, 2) == [(3, "m3"), (2, "m2")]
    assert accounts.matches("a" * 32, 2, 2) == [(1, "m1")]
    assert accounts.matches("b" * 32, None, 2) == []


def test_a_noted_match_is_open_until_closed_and_stays_listed(accounts):
    accounts.create(account())
    accounts.note_match("a" * 32, "m1")
    accounts.note_match("a" * 32, "m2")
    assert accounts.open_matches("a" * 32) == ["m1", "m2"]
    accounts.close_matches("a" * 32, ["m1"])
    assert accounts.open_matches("a" * 32) == ["m2"]
    accounts.note_match("a" * 32, "m1")  # noted again (a seat taken again after leaving it): open, same place
    assert accounts.open_matches("a" * 32) == ["m1", "m2"] and accounts.matches("a" * 32, None, 5) == [(2, "m2"), (1, "m1")]


def test_the_number_noted_is_the_position_of_the_newest(accounts):
    accounts.create(account())
    assert accounts.noted("a" * 32) == 0
    for match_id in ("m1", "m2", "m1"):
        accounts.note_match("a" * 32, match_id)
    assert accounts.noted("a" * 32) == 2 == accounts.matches("a" * 32, None, 1)[0][0]
