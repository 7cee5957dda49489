"""One contract, two account stores: what the in-memory store does in unit tests, Redis does in production."""
import pytest

from eventstore.accounts import (AUTO, FULL, HELD, INVITED, PAIRED, SEATED, TOO_MANY_SEEKS, InMemoryAccountStore,
                                 RedisAccountStore)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration),
                        pytest.param("cluster", marks=pytest.mark.integration)])
def accounts(request):
    if request.param == "memory":
        return InMemoryAccountStore()
    return RedisAccountStore(request.getfixturevalue("cluster_client" if request.param == "cluster" else "redis_client"))


NOW = 1_800_000_000_000  # ms
ROOM = 100


def note(accounts, match_id, how=SEATED, account_id="a" * 32, now=NOW, room=ROOM, auto_max=0, seek=""):
    return accounts.note_match(account_id, match_id, how, now, room, auto_max, seek)


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
        note(accounts, match_id)
    note(accounts, "m1")
    assert accounts.matches("a" * 32, None, 2) == [(3, "m3"), (2, "m2")]
    assert accounts.matches("a" * 32, 2, 2) == [(1, "m1")]
    assert accounts.matches("b" * 32, None, 2) == []


def test_a_noted_match_is_open_until_closed_and_stays_listed(accounts):
    accounts.create(account())
    note(accounts, "m1")
    note(accounts, "m2")
    assert accounts.open_matches("a" * 32) == ["m1", "m2"]
    accounts.close_matches("a" * 32, ["m1"])
    assert accounts.open_matches("a" * 32) == ["m2"]
    note(accounts, "m1")  # noted again (a seat taken again after leaving it): open, same place
    assert accounts.open_matches("a" * 32) == ["m1", "m2"] and accounts.matches("a" * 32, None, 5) == [(2, "m2"), (1, "m1")]


def test_the_number_noted_is_the_position_of_the_newest(accounts):
    accounts.create(account())
    assert accounts.noted("a" * 32) == 0
    for match_id in ("m1", "m2", "m1"):
        note(accounts, match_id)
    assert accounts.noted("a" * 32) == 2 == accounts.matches("a" * 32, None, 1)[0][0]


# --- the room: open matches and seeks' holds, counted and taken in one decision --------------------------------
def test_a_seated_match_is_noted_only_with_room_and_one_noted_again_needs_none(accounts):
    accounts.create(account())
    assert [note(accounts, m, room=2) for m in ("m1", "m2", "m3")] == [SEATED, SEATED, FULL]
    assert accounts.open_matches("a" * 32) == ["m1", "m2"] and accounts.noted("a" * 32) == 2
    assert note(accounts, "m1", room=2) == SEATED
    accounts.close_matches("a" * 32, ["m1"])
    assert note(accounts, "m3", room=2) == SEATED


def test_an_auto_seat_past_the_accounts_auto_accept_max_or_its_room_is_an_invitation_that_counts_for_nothing(accounts):
    accounts.create(account())
    assert [note(accounts, m, AUTO, room=3, auto_max=2) for m in ("m1", "m2", "m3")] == [AUTO, AUTO, INVITED]
    assert accounts.invitations("a" * 32) == ["m3"]
    assert note(accounts, "own", room=3) == SEATED  # its own match still finds room
    accounts.close_matches("a" * 32, ["m1"])  # an auto match finished: its place among the auto ones is free
    assert note(accounts, "m4", AUTO, room=3, auto_max=2) == AUTO
    assert note(accounts, "m5", AUTO, room=3, auto_max=5) == INVITED  # below its auto_accept_max, but the room is full
    assert accounts.open_matches("a" * 32) == ["m2", "m4", "own"]


def test_an_invitation_is_listed_and_never_counted(accounts):
    accounts.create(account())
    assert [note(accounts, m, INVITED, room=1) for m in ("m1", "m2")] == [INVITED, INVITED]
    assert note(accounts, "own", room=1) == SEATED and accounts.invitations("a" * 32) == ["m1", "m2"]


def test_a_seeks_hold_counts_against_matches_and_seeks_until_released(accounts):
    accounts.create(account())

    def hold(seek, most=2):
        return accounts.hold_seek("a" * 32, seek, NOW + 600_000, NOW, 3, most)

    assert [hold("s1"), hold("s2"), hold("s3")] == [HELD, HELD, TOO_MANY_SEEKS]
    assert note(accounts, "m1", room=3) == SEATED and note(accounts, "m2", room=3) == FULL  # the seeks hold room
    assert hold("s3", most=5) == FULL
    accounts.release_seeks("a" * 32, ["s1"])
    assert hold("s1") == HELD and hold("s1") == HELD  # taken again: kept, not counted twice


def test_a_paired_match_takes_its_seeks_hold_over_and_is_counted_whatever_the_room(accounts):
    accounts.create(account())
    accounts.hold_seek("a" * 32, "s1", NOW + 600_000, NOW, 2, 5)
    assert note(accounts, "m1", room=2) == SEATED
    assert note(accounts, "paired", PAIRED, room=2, seek="s1") == PAIRED
    assert accounts.open_matches("a" * 32) == ["m1", "paired"]
    accounts.close_matches("a" * 32, ["m1"])
    assert note(accounts, "m2", room=2) == SEATED  # the seek's hold went with its pairing


def test_a_seeks_hold_lapses_at_its_expiry(accounts):
    accounts.create(account())
    assert accounts.hold_seek("a" * 32, "s1", NOW + 1000, NOW, 1, 5) == HELD
    assert note(accounts, "m1", room=1, now=NOW + 999) == FULL
    assert note(accounts, "m1", room=1, now=NOW + 1000) == SEATED


def test_an_open_match_is_known_from_when_it_was_noted_open_until_closed(accounts):
    accounts.create(account())
    note(accounts, "m1", now=NOW)
    note(accounts, "m2", INVITED, now=NOW + 5)
    assert accounts.opened_at("a" * 32, ["m1", "m2", "m3"]) == [NOW, None, None]
    accounts.close_matches("a" * 32, ["m1"])
    assert accounts.opened_at("a" * 32, ["m1"]) == [None]
