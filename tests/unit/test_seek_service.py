"""The seek use cases (service/seeks.py) over the in-memory store: given the accounts' seeks, when a pairing pass
runs (or a seek is canceled, or a pass dies half-way), then these seeks and these matches."""
import pytest

from eventstore.accounts import InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.errors import Conflict, Forbidden, NotFound, Unauthorized, Unavailable, Unprocessable
from service.live.feed import AccountFeeds
from service.live.hub import Hub
from service.ladders import LadderService
from service.seeks import SeekService, newcomer
from eventstore.leaderboards import InMemoryLeaderboardStore
from tests.support.service import make_service
from tests.unit.test_feed import kinds, upto

DUEL = {"game": "mantis", "options": {}, "players": 2}


class Clock:
    def __init__(self):
        self.now = 1_700_000_000.0

    def __call__(self):
        return self.now


class Passes:
    """Remembers the nudges the service sends."""

    def __init__(self):
        self.scheduled = []

    def schedule(self, game, version):
        self.scheduled.append((game, version))


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store():
    return InMemoryEventStore()


@pytest.fixture
def accounts():
    return AccountService(InMemoryAccountStore(), max_open_matches=3)


@pytest.fixture
def matches(store, accounts):
    return make_service(store=store, accounts=accounts)


@pytest.fixture
def passes():
    return Passes()


@pytest.fixture
def pool(store, matches, accounts, passes, clock):
    return SeekService(store, matches, accounts, passes, clock=clock, expiry=600, max_open=2, widen_per_second=0.1)


@pytest.fixture
def keys(accounts):
    return {name: accounts.register(name, "bot")["api_key"] for name in ("ann", "bob", "cat")}


def test_a_seek_needs_an_account_key(pool):
    with pytest.raises(Unauthorized):
        pool.open(None, DUEL)


def test_an_opened_seek_is_open_until_its_expiry_and_nudges_a_pairing_pass(pool, keys, passes, clock):
    seek = pool.open(keys["ann"], DUEL)
    assert seek["status"] == "open" and seek["account"]["name"] == "ann" and seek["match"] is None
    assert seek["expires_at"] > seek["opened_at"] and seek["rating"] == newcomer("x", "mantis", {}, 2)
    assert pool.get(seek["id"]) == seek and passes.scheduled == [("mantis", 1)]
    assert pool.mine(keys["ann"]) == {"seeks": [seek]}


@pytest.mark.parametrize("request_, reason", [({**DUEL, "game": "chess"}, "unknown_game"),
                                              ({**DUEL, "players": 7}, "invalid_player_count"),
                                              ({**DUEL, "rated": True}, "clock_required")])
def test_a_seek_that_cannot_make_a_match_is_refused_with_the_reason(pool, keys, request_, reason):
    with pytest.raises(Unprocessable) as refused:
        pool.open(keys["ann"], request_)
    assert refused.value.reason == reason


def test_two_accounts_seeking_alike_are_seated_in_one_match(pool, keys, matches):
    ann, bob = pool.open(keys["ann"], DUEL), pool.open(keys["bob"], DUEL)
    assert pool.pair("mantis") == {"expired": 0, "paired": 1, "started": 1, "refused": 0}
    ann, bob = pool.get(ann["id"]), pool.get(bob["id"])
    assert ann["status"] == bob["status"] == "paired" and ann["match"] == bob["match"]
    table = matches.get(ann["match"], None)
    assert table["status"] == "active"
    assert sorted(s["name"] for s in table["seats"]) == ["ann", "bob"]
    assert {table["seats"][ann["seat"]]["name"], table["seats"][bob["seat"]]["name"]} == {"ann", "bob"}
    assert pool.pair("mantis") == {"expired": 0, "paired": 0, "started": 0, "refused": 0}


def test_a_pairing_decided_by_a_pass_that_died_before_creating_its_match_is_created_by_the_next(
        pool, keys, matches, monkeypatch):
    ann, bob = pool.open(keys["ann"], DUEL), pool.open(keys["bob"], DUEL)

    def dies(*args, **kwargs):
        raise SystemExit("the worker was killed")

    with monkeypatch.context() as crash:
        crash.setattr(matches, "create", dies)
        with pytest.raises(SystemExit):
            pool.pair("mantis")
    paired = pool.get(ann["id"])
    assert paired["status"] == "paired"
    with pytest.raises(NotFound):
        matches.get(paired["match"], None)
    assert pool.pair("mantis") == {"expired": 0, "paired": 0, "started": 1, "refused": 0}
    assert matches.get(paired["match"], None)["status"] == "active" and pool.get(bob["id"])["match"] == paired["match"]


def test_a_pass_that_died_after_creating_the_match_leaves_the_next_one_noting_it_once(pool, keys, matches, store,
                                                                                   monkeypatch):
    ann, _ = pool.open(keys["ann"], DUEL), pool.open(keys["bob"], DUEL)

    def dies(*args, **kwargs):
        raise SystemExit("the worker was killed")

    with monkeypatch.context() as crash:
        crash.setattr("service.seeks.seeks.started", dies)
        with pytest.raises(SystemExit):
            pool.pair("mantis")
    match_id = pool.get(ann["id"])["match"]
    version = matches.get(match_id, None)["version"]
    assert pool.pair("mantis") == {"expired": 0, "paired": 0, "started": 1, "refused": 0}
    assert [m for _, m in store.matches(None, None, 10)] == [match_id]  # created once
    assert matches.get(match_id, None)["version"] == version
    assert pool.pair("mantis")["started"] == 0


def test_an_account_holds_a_bounded_number_of_open_seeks(pool, keys):
    pool.open(keys["ann"], DUEL)
    pool.open(keys["ann"], {**DUEL, "game": "flipout"})
    with pytest.raises(Conflict) as refused:
        pool.open(keys["ann"], DUEL)
    assert refused.value.reason == "too_many_seeks"


def test_a_seek_reserves_room_among_the_accounts_open_matches(pool, keys, matches):
    matches.create("mantis", {}, [{"account": "ann"}, {"bot": "random"}], credential=keys["ann"])
    matches.create("mantis", {}, [{"account": "ann"}, {"bot": "random"}], credential=keys["ann"])
    pool.open(keys["ann"], DUEL)  # 2 matches + this seek: the room of 3 is full
    with pytest.raises(Conflict) as refused:
        pool.open(keys["ann"], {**DUEL, "game": "flipout"})
    assert refused.value.reason == "too_many_open_matches"
    pool.open(keys["bob"], DUEL)
    assert pool.pair("mantis")["started"] == 1  # the room it reserved: never refused for it


def solo(matches, key):
    return matches.create("mantis", {}, [{"account": "ann"}, {"bot": "random"}], credential=key)


def refused_reason(attempt) -> str:
    with pytest.raises(Conflict) as refused:
        attempt()
    return refused.value.reason


def test_open_seeks_hold_their_room_against_later_creates_until_one_is_canceled(pool, keys, matches):
    solo(matches, keys["ann"])
    first, _ = pool.open(keys["ann"], DUEL), pool.open(keys["ann"], {**DUEL, "game": "flipout"})
    assert refused_reason(lambda: solo(matches, keys["ann"])) == "too_many_open_matches"
    pool.cancel(first["id"], keys["ann"])
    assert solo(matches, keys["ann"])["status"] == "active"


def test_a_paired_seeks_room_becomes_its_matchs_and_the_seek_no_longer_counts_among_the_seeks(pool, keys, matches):
    pool.open(keys["ann"], DUEL)
    pool.open(keys["ann"], {**DUEL, "game": "flipout"})
    pool.open(keys["bob"], DUEL)
    assert pool.pair("mantis")["started"] == 1
    pool.open(keys["ann"], {**DUEL, "game": "blockers"})  # one seek left open of two: room for another
    assert refused_reason(lambda: solo(matches, keys["ann"])) == "too_many_open_matches"  # 1 match + 2 seeks


def test_seeks_that_expired_or_whose_pairing_was_refused_give_their_room_back(pool, keys, matches, clock, monkeypatch):
    pool.open(keys["ann"], DUEL)
    pool.open(keys["ann"], {**DUEL, "game": "flipout"})
    clock.now += 600
    pool.pair("mantis")
    pool.pair("flipout")
    pool.open(keys["ann"], DUEL)
    pool.open(keys["bob"], DUEL)
    pool.open(keys["ann"], {**DUEL, "game": "flipout"})

    def refuses(*args, **kwargs):
        raise Unprocessable("account_not_found", "no account (deleted meanwhile)")

    monkeypatch.setattr(matches, "create", refuses)
    assert pool.pair("mantis")["refused"] == 1
    assert pool.open(keys["ann"], {**DUEL, "game": "blockers"})["status"] == "open"


def test_a_seek_its_pool_could_not_take_gives_its_room_back(pool, keys, monkeypatch):
    def unavailable(*args, **kwargs):
        raise Unavailable("redis_unreachable", "Redis did not answer")

    with monkeypatch.context() as outage:
        outage.setattr(pool, "_save", unavailable)
        for _ in range(3):
            with pytest.raises(Unavailable):
                pool.open(keys["ann"], DUEL)
    assert [pool.open(keys["ann"], DUEL)["status"] for _ in range(2)] == ["open", "open"]


def test_only_the_owner_cancels_and_not_once_paired(pool, keys):
    ann = pool.open(keys["ann"], DUEL)
    with pytest.raises(Forbidden):
        pool.cancel(ann["id"], keys["bob"])
    canceled = pool.cancel(ann["id"], keys["ann"])
    assert canceled["status"] == "canceled" and pool.cancel(ann["id"], keys["ann"]) == canceled
    bob, cat = pool.open(keys["bob"], DUEL), pool.open(keys["cat"], DUEL)
    pool.pair("mantis")
    with pytest.raises(Conflict) as refused:
        pool.cancel(bob["id"], keys["bob"])
    assert refused.value.reason == "seek_paired" and pool.get(cat["id"])["status"] == "paired"


@pytest.mark.parametrize("seek_id", ["nope", "chess-" + "0" * 32, "mantis-" + "0" * 32])
def test_an_unknown_seek_is_not_found(pool, seek_id):
    with pytest.raises(NotFound):
        pool.get(seek_id)


def test_a_seek_nobody_pairs_expires(pool, keys, clock):
    ann = pool.open(keys["ann"], DUEL)
    clock.now += 599
    assert pool.pair("mantis")["expired"] == 0
    clock.now += 1
    assert pool.pair("mantis")["expired"] == 1 and pool.get(ann["id"])["status"] == "expired"
    assert pool.mine(keys["ann"]) == {"seeks": []}


def test_a_seek_alone_past_its_bot_after_plays_a_house_bot(pool, keys, matches, clock):
    ann = pool.open(keys["ann"], {**DUEL, "bot_after": 5, "bot": "random"})
    assert pool.pair("mantis")["paired"] == 0
    clock.now += 5
    assert pool.pair("mantis")["started"] == 1
    table = matches.get(pool.get(ann["id"])["match"], None)
    assert sorted((s["bot"] or "", s["name"]) for s in table["seats"]) == [("", "ann"), ("random", "random bot")]


def test_a_match_that_cannot_be_created_ends_its_seeks_canceled_with_the_reason(pool, keys, matches, monkeypatch):
    ann, bob = pool.open(keys["ann"], DUEL), pool.open(keys["bob"], DUEL)

    def refuses(*args, **kwargs):
        raise Unprocessable("account_not_found", "no account (deleted meanwhile)")

    monkeypatch.setattr(matches, "create", refuses)
    assert pool.pair("mantis")["refused"] == 1
    assert [pool.get(s["id"])["status"] for s in (ann, bob)] == ["canceled", "canceled"]
    assert pool.get(ann["id"])["reason"] == "account_not_found"
    assert pool.pair("mantis")["refused"] == 0


def test_a_match_the_store_cannot_create_for_now_stays_pending_for_the_next_pass(pool, keys, matches, monkeypatch):
    ann, _ = pool.open(keys["ann"], DUEL), pool.open(keys["bob"], DUEL)

    def unavailable(*args, **kwargs):
        raise Unavailable("redis_unreachable", "Redis did not answer")

    with monkeypatch.context() as outage:
        outage.setattr(matches, "create", unavailable)
        with pytest.raises(Unavailable):
            pool.pair("mantis")
    assert pool.get(ann["id"])["status"] == "paired" and pool.get(ann["id"])["reason"] is None
    assert pool.pair("mantis")["started"] == 1


def test_a_disabled_accounts_seeks_are_canceled_and_a_pass_does_not_pair_them(pool, keys, accounts):
    ann, ann_too = pool.open(keys["ann"], DUEL), pool.open(keys["ann"], {**DUEL, "game": "flipout"})
    bob = pool.open(keys["bob"], DUEL)
    accounts.set_disabled("ann", "reported for abuse")
    assert sorted(pool.withdraw(ann["account"]["id"], "account_disabled")) == sorted([ann["id"], ann_too["id"]])
    assert [(pool.get(s["id"])["status"], pool.get(s["id"])["reason"]) for s in (ann, ann_too)] == [
        ("canceled", "account_disabled")] * 2
    assert pool.pair("mantis")["paired"] == 0 and pool.get(bob["id"])["status"] == "open"


def test_a_pass_never_pairs_a_seek_whose_account_was_disabled_after_it_opened(pool, keys, accounts):
    ann, bob, cat = (pool.open(keys[name], DUEL) for name in ("ann", "bob", "cat"))
    accounts.set_disabled("ann", "reported for abuse")  # its seeks not withdrawn yet: the pass reads the account
    assert pool.pair("mantis") == {"expired": 0, "paired": 1, "started": 1, "refused": 0}
    assert (pool.get(ann["id"])["status"], pool.get(ann["id"])["reason"]) == ("canceled", "account_disabled")
    assert pool.get(bob["id"])["match"] == pool.get(cat["id"])["match"] is not None


def test_an_account_disabled_while_its_pairing_was_decided_is_taken_out_of_the_new_match(pool, keys, accounts,
                                                                                      matches, monkeypatch):
    ann, _ = pool.open(keys["ann"], DUEL), pool.open(keys["bob"], DUEL)
    create = matches.create

    def disabled_meanwhile(*args, **kwargs):  # the operator acts after the pass read the account
        accounts.set_disabled("ann", "reported for abuse")
        return create(*args, **kwargs)

    monkeypatch.setattr(matches, "create", disabled_meanwhile)
    assert pool.pair("mantis")["started"] == 1
    table = matches.get(pool.get(ann["id"])["match"], None)
    assert [seat["out"] for seat in table["seats"] if seat["name"] == "ann"] == ["resigned"]


def test_each_account_feed_announces_the_paired_match(pool, keys, store, accounts, matches):
    feeds = AccountFeeds(accounts, matches, store, Hub(store), keep_alive_seconds=0.3, poll_seconds=0.02)
    frames = {name: feeds.open(keys[name]) for name in ("ann", "bob")}
    for name in ("ann", "bob"):
        assert kinds(upto(frames[name], "synced")) == [("synced", None)]
    ann, _ = pool.open(keys["ann"], DUEL), pool.open(keys["bob"], DUEL)
    pool.pair("mantis")
    match_id = pool.get(ann["id"])["match"]
    for name in ("ann", "bob"):
        started = upto(frames[name], "match_started")
        assert kinds(started) == [("match_started", match_id)]


def test_another_process_folds_the_pool_from_its_snapshots_as_the_one_that_wrote_it(store, matches, accounts, keys):
    writer = SeekService(store, matches, accounts, snapshot_every=3)
    opened = [writer.open(keys[name], DUEL) for name in ("ann", "bob", "cat")]
    writer.pair("mantis")
    writer.cancel(opened[2]["id"], keys["cat"])
    reader = SeekService(store, matches, accounts, snapshot_every=3)  # remembers nothing: snapshot + the events after
    assert [reader.get(s["id"]) for s in opened] == [writer.get(s["id"]) for s in opened]
    assert [reader.get(s["id"])["status"] for s in opened] == ["paired", "paired", "canceled"]


def test_the_pool_pairs_by_the_ratings_it_is_given_for_the_seeks_terms(store, matches, accounts, keys):
    asked = []

    def ladder(account_id, game, options, players):
        asked.append((game, options, players))
        return {"mu": {"ann": 20.0, "bob": 30.0, "cat": 21.0}[accounts.resolve(account_id)["name"]], "sigma": 5.0}

    pool = SeekService(store, matches, accounts, ratings=ladder)
    ann, bob, cat = (pool.open(keys[name], {**DUEL, "rating_range": 2}) for name in ("ann", "bob", "cat"))
    assert asked[0] == ("mantis", {"edition": "classic"}, 2) and ann["rating"] == {"mu": 20.0, "sigma": 5.0}
    pool.pair("mantis")
    assert pool.get(ann["id"])["match"] == pool.get(cat["id"])["match"] and pool.get(bob["id"])["status"] == "open"


def test_rated_seeks_make_a_rated_match_on_the_ladder(store, accounts, keys):
    ladders = LadderService(store, InMemoryLeaderboardStore())
    matches = make_service(store=store, accounts=accounts, ladders=ladders)
    pool = SeekService(store, matches, accounts, ratings=ladders.rating_of)
    rated = {**DUEL, "clock": {"move_ms": 10_000}, "rated": True}
    ann, _ = pool.open(keys["ann"], rated), pool.open(keys["bob"], rated)
    assert pool.pair("mantis")["started"] == 1
    assert matches.get(pool.get(ann["id"])["match"], None)["rated"] is True
