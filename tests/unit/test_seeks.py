"""The seek pool decider (domain/seeks.py): given these events, when this command (open, cancel, a pairing pass at
a moment), then these events (or this refusal)."""
import pytest

from domain import seeks
from domain.errors import InvalidSetup

T0 = 1_000_000  # ms: when the first seek opens
EXPIRY = 600_000
RATING = {"mu": 25.0, "sigma": 25 / 3}
CLOCK = {"move_ms": 10_000}


def opened(seek_id, account, at=T0, mu=25.0, **request):
    request = {"players": 2, **request}
    return seeks.open_seek(seek_id, seeks.terms(request.pop("game", "mantis"), request),
                           {"id": account, "name": account}, {**RATING, "mu": mu}, at, EXPIRY)


def pool(*histories):
    return seeks.evolve_all(None, [event for history in histories for event in history])


def paired(events):
    return [e["data"] for e in events if e["type"] == "seeks_paired"]


def seats_of(pairing):
    return sorted(seat.get("seek", seat.get("bot")) for seat in pairing["seats"])


# --- opening ----------------------------------------------------------------------------------------
def test_opening_a_seek_fills_the_games_defaults_and_the_house_bot_and_sets_its_expiry():
    [event] = opened("s1", "ann", bot_after=30)
    assert event["type"] == "seek_opened"
    data = event["data"]
    assert data["options"] and data["bot"] == seeks.HOUSE_BOT and data["expires_at"] == T0 + EXPIRY
    assert data["rated"] is False and data["clock"] is None and data["rating"] == RATING


@pytest.mark.parametrize("request_, reason", [
    ({"game": "chess"}, "unknown_game"),
    ({"players": 9}, "invalid_player_count"),
    ({"options": {"edition": "deluxe"}}, "invalid_option"),
    ({"rated": True}, "clock_required"),
    ({"clock": {"move_ms": 0}}, "invalid_clock"),
    ({"bot_after": 5, "bot": "chessmaster"}, "unknown_bot"),
    ({"bot": "random"}, "bot_without_bot_after"),
])
def test_a_seek_the_games_or_the_clocks_rules_refuse_is_refused_with_their_reason(request_, reason):
    with pytest.raises(InvalidSetup) as refused:
        opened("s1", "ann", **request_)
    assert refused.value.reason == reason, refused.value.message


# --- pairing ----------------------------------------------------------------------------------------
def test_two_compatible_seeks_are_paired_into_one_match_with_an_id_derived_from_them():
    state = pool(opened("s1", "ann"), opened("s2", "bob", at=T0 + 5))
    [pairing] = paired(seeks.pair(state, T0 + 10, 0))
    assert pairing["match"] == seeks.match_id_of(["s2", "s1"])
    assert seats_of(pairing) == ["s1", "s2"] and pairing["game"] == "mantis" and pairing["players"] == 2
    after = seeks.evolve_all(state, seeks.pair(state, T0 + 10, 0))
    assert after["open"] == {} and list(after["pending"]) == [pairing["match"]]
    assert {seeks.find(after, s)["status"] for s in ("s1", "s2")} == {seeks.PAIRED}
    assert sorted(seeks.find(after, s)["seat"] for s in ("s1", "s2")) == [0, 1]


def test_seeks_of_different_terms_are_not_paired():
    state = pool(opened("s1", "ann"), opened("s2", "bob", options={"edition": "compact"}),
                 opened("s3", "cat", clock=CLOCK), opened("s4", "dan", clock=CLOCK, rated=True),
                 opened("s5", "eve", players=3), opened("s6", "fay", game="flipout"))
    assert seeks.pair(state, T0 + 10, 0) == []


def test_the_oldest_seek_is_served_first():
    state = pool(opened("young", "ann", at=T0 + 3), opened("old", "bob", at=T0 + 1), opened("middle", "cat", at=T0 + 2))
    [pairing] = paired(seeks.pair(state, T0 + 10, 0))
    assert seats_of(pairing) == ["middle", "old"]


def test_an_account_is_never_paired_with_itself():
    state = pool(opened("s1", "ann"), opened("s2", "ann", at=T0 + 1))
    assert seeks.pair(state, T0 + 10, 0) == []


def test_an_account_with_two_seeks_meets_two_others_in_two_matches_each_seek_once():
    state = pool(opened("a1", "ann"), opened("a2", "ann", at=T0 + 1), opened("b", "bob", at=T0 + 2),
                 opened("c", "cat", at=T0 + 3))
    pairings = paired(seeks.pair(state, T0 + 10, 0))
    assert [seats_of(p) for p in pairings] == [["a1", "b"], ["a2", "c"]]


def test_a_paired_seek_is_not_paired_again_by_a_later_pass():
    state = pool(opened("s1", "ann"), opened("s2", "bob"))
    state = seeks.evolve_all(state, seeks.pair(state, T0 + 10, 0))
    state = seeks.evolve_all(state, opened("s3", "cat", at=T0 + 20))
    assert seeks.pair(state, T0 + 30, 0) == []


def test_a_table_of_three_waits_for_its_third_seek():
    state = pool(opened("s1", "ann", players=3), opened("s2", "bob", players=3))
    assert seeks.pair(state, T0 + 10, 0) == []
    state = seeks.evolve_all(state, opened("s3", "cat", players=3))
    [pairing] = paired(seeks.pair(state, T0 + 10, 0))
    assert seats_of(pairing) == ["s1", "s2", "s3"]


def test_ratings_outside_the_range_wait_until_the_window_has_widened_enough():
    state = pool(opened("s1", "ann", mu=20.0, rating_range=2), opened("s2", "bob", mu=25.0, rating_range=2))
    assert seeks.pair(state, T0 + 1000, 0.1) == []  # windows 2.1: 5 apart
    assert seeks.pair(state, T0 + 29_000, 0.1) == []  # windows 4.9
    [pairing] = paired(seeks.pair(state, T0 + 30_000, 0.1))  # windows 5.0
    assert seats_of(pairing) == ["s1", "s2"]


def test_a_seek_with_no_range_still_respects_the_others_range():
    state = pool(opened("s1", "ann", mu=20.0), opened("s2", "bob", mu=25.0, rating_range=1))
    assert seeks.pair(state, T0 + 10, 0) == []
    state = seeks.evolve_all(state, opened("s3", "cat", mu=40.0))
    [pairing] = paired(seeks.pair(state, T0 + 10, 0))
    assert seats_of(pairing) == ["s1", "s3"]


def test_a_seek_alone_gets_its_house_bot_once_its_bot_after_has_passed():
    state = pool(opened("s1", "ann", bot_after=30, bot="random"))
    assert seeks.pair(state, T0 + 29_999, 0) == []
    [pairing] = paired(seeks.pair(state, T0 + 30_000, 0))
    assert seats_of(pairing) == ["random", "s1"]


def test_a_short_table_is_filled_with_bots_only_when_every_seek_in_it_has_waited_its_bot_after():
    state = pool(opened("s1", "ann", players=3, bot_after=10), opened("s2", "bob", players=3, at=T0 + 5000))
    assert seeks.pair(state, T0 + 60_000, 0) == []  # bob asked for no bot
    state = pool(opened("s1", "ann", players=3, bot_after=10), opened("s2", "bob", players=3, at=T0 + 5000,
                                                                        bot_after=10))
    assert seeks.pair(state, T0 + 14_999, 0) == []
    [pairing] = paired(seeks.pair(state, T0 + 15_000, 0))
    assert seats_of(pairing) == ["greedy", "s1", "s2"]


def test_a_rated_table_takes_one_house_bot_at_most_as_one_kind_is_one_player_on_its_ladder():
    rated = {"players": 3, "bot_after": 0, "clock": CLOCK, "rated": True}
    state = pool(opened("s1", "ann", **rated))
    assert seeks.pair(state, T0 + 60_000, 0) == []
    state = seeks.evolve_all(state, opened("s2", "bob", **rated))
    [pairing] = paired(seeks.pair(state, T0 + 60_000, 0))
    assert seats_of(pairing) == ["greedy", "s1", "s2"] and pairing["rated"] is True


def test_seeks_past_their_expiry_expire_and_are_not_paired():
    state = pool(opened("s1", "ann"), opened("s2", "bob", at=T0 + 1))
    events = seeks.pair(state, T0 + EXPIRY, 0)
    assert events == [{"type": "seeks_expired", "data": {"seeks": ["s1"], "at": T0 + EXPIRY}}]
    state = seeks.evolve_all(state, events)
    assert seeks.find(state, "s1")["status"] == seeks.EXPIRED and seeks.find(state, "s2")["status"] == seeks.OPEN


# --- canceling, completing ------------------------------------------------------------------------
def test_the_owner_cancels_an_open_seek_once_and_only_the_owner():
    state = pool(opened("s1", "ann"))
    with pytest.raises(InvalidSetup) as refused:
        seeks.cancel(state, "s1", "bob", T0)
    assert refused.value.reason == "not_your_seek"
    events = seeks.cancel(state, "s1", "ann", T0 + 1)
    assert events == [{"type": "seek_canceled", "data": {"seek": "s1", "at": T0 + 1}}]
    state = seeks.evolve_all(state, events)
    assert seeks.cancel(state, "s1", "ann", T0 + 2) == [] and seeks.pair(state, T0 + 3, 0) == []


def test_a_disabled_accounts_open_seeks_are_canceled_with_the_reason_and_never_paired():
    state = pool(opened("s1", "mal"), opened("s2", "mal", game="flipout"), opened("s3", "ann"), opened("s4", "bob"))
    events = seeks.withdraw(state, {"mal"}, seeks.DISABLED, T0 + 1)
    assert events == [{"type": "seek_canceled", "data": {"seek": s, "at": T0 + 1, "reason": "account_disabled"}}
                      for s in ("s1", "s2")]
    state = seeks.evolve_all(state, events)
    assert seeks.find(state, "s1")["status"] == seeks.CANCELED and seeks.find(state, "s1")["reason"] == "account_disabled"
    assert [seats_of(p) for p in paired(seeks.pair(state, T0 + 2, 0))] == [["s3", "s4"]]


def test_a_pass_cancels_the_seeks_of_the_accounts_it_is_told_are_barred_and_pairs_the_others():
    state = pool(opened("s1", "mal"), opened("s2", "ann"), opened("s3", "bob"))
    events = seeks.pair(state, T0 + 10, 0, barred=frozenset({"mal"}))
    assert events[0] == {"type": "seek_canceled", "data": {"seek": "s1", "at": T0 + 10, "reason": "account_disabled"}}
    assert [seats_of(p) for p in paired(events)] == [["s2", "s3"]]


def test_a_paired_seek_cannot_be_canceled():
    state = pool(opened("s1", "ann"), opened("s2", "bob"))
    state = seeks.evolve_all(state, seeks.pair(state, T0 + 10, 0))
    with pytest.raises(InvalidSetup) as refused:
        seeks.cancel(state, "s1", "ann", T0 + 11)
    assert refused.value.reason == "seek_paired"


def test_a_pairing_stays_pending_until_its_match_is_noted_started_or_refused():
    state = pool(opened("s1", "ann"), opened("s2", "bob"), opened("s3", "cat"), opened("s4", "dan"))
    state = seeks.evolve_all(state, seeks.pair(state, T0 + 10, 0))
    first, second = list(state["pending"])
    state = seeks.evolve_all(state, seeks.started([first], T0 + 20) +
                             seeks.refused(second, "account_not_found", T0 + 20))
    assert state["pending"] == {}
    refused_seeks = [s for s in ("s1", "s2", "s3", "s4") if seeks.find(state, s).get("reason")]
    assert len(refused_seeks) == 2
    assert all(seeks.find(state, s)["status"] == seeks.CANCELED for s in refused_seeks)


def test_a_closed_seek_is_forgotten_some_time_after_it_closed_but_an_open_one_never():
    state = pool(opened("s1", "ann"), opened("s2", "bob", at=T0 + 1))
    state = seeks.evolve_all(state, seeks.cancel(state, "s1", "ann", T0 + 2))
    later = T0 + 2 + seeks.CLOSED_KEPT_MS
    state = seeks.evolve_all(state, opened("s3", "cat", at=later))
    assert seeks.find(state, "s1") is not None
    state = seeks.evolve_all(state, opened("s4", "dan", at=later + 1))
    assert seeks.find(state, "s1") is None and seeks.find(state, "s2")["status"] == seeks.OPEN


def test_folding_never_changes_the_state_folded_onto():
    state = pool(opened("s1", "ann"), opened("s2", "bob"))
    before = repr(state)
    seeks.evolve_all(state, seeks.pair(state, T0 + 10, 0))
    assert repr(state) == before
