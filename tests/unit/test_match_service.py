"""The match use cases over the in-memory store."""
import dataclasses

import pytest

from domain import match
from domain.bots import BOTS
from domain.errors import IllegalMove, InvalidSetup
from eventstore.memory import InMemoryEventStore
from service.matches import MatchService
from service.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from tests.support.service import InlineBots, RecordedBots, make_service

THREE_HUMANS = [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]


def tokens_of(created):
    return [seat.get("token") for seat in created["seats"]]


def test_creating_a_match_deals_it_and_gives_one_token_per_human_seat():
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    assert created["status"] == "active" and created["version"] == 2 and created["to_act"] == [0]
    assert all(tokens_of(created)) and len(set(tokens_of(created))) == 3
    assert service.get(created["id"], None)["seats"][0] == {"seat": 0, "name": "ann", "bot": None, "open": False,
                                                            "account": None, "invited": False, "zombie": False,
                                                            "out": None}
    assert "token" not in str(service.get(created["id"], None))


def test_a_client_seed_makes_the_deal_reproducible_and_is_marked_client_seeded():
    service = make_service()
    one = service.create("mantis", {}, THREE_HUMANS, seed="tournament-7")
    two = service.create("mantis", {}, THREE_HUMANS, seed="tournament-7")
    assert one["view"]["tanks"] == two["view"]["tanks"] and one["seed_source"] == "client"
    assert one["commitment"] != two["commitment"]  # salted: the seed cannot be guessed from the commitment
    assert service.create("mantis", {}, THREE_HUMANS)["seed_source"] == "server"


def test_a_client_seed_is_refused_where_a_stranger_could_join_and_nothing_is_stored():
    service = make_service()
    with pytest.raises(InvalidSetup) as refused:
        service.create("mantis", {}, [{"name": "ann"}, {"bot": "greedy"}, {"open": True}], seed="i-know-the-deck")
    assert refused.value.reason == "client_seed_with_open_seats" and "seat 2" in refused.value.message
    assert service.list_matches(None, None, None, 10)["matches"] == []


def test_a_client_seed_is_accepted_where_the_creator_plays_every_human_seat_and_the_server_the_bots():
    service = make_service()
    created = service.create("mantis", {}, [{"name": "ann"}, {"name": "ann's friend"}, {"bot": "greedy"}],
                             seed="my-own-table")
    assert created["status"] == "active" and created["seed_source"] == "client"


def test_the_listing_and_the_join_answer_say_who_chose_the_seed():
    service = make_service()
    seeded = service.create("mantis", {}, THREE_HUMANS, seed="tournament-7")
    waiting = service.create("mantis", {}, [{"name": "ann"}, {"open": True}])
    listed = {m["id"]: m["seed_source"] for m in service.list_matches(None, None, None, 10)["matches"]}
    assert listed == {seeded["id"]: "client", waiting["id"]: "server"}
    assert service.join(waiting["id"], "bob")["match"]["seed_source"] == "server"


def test_open_seats_wait_and_the_deal_happens_when_the_last_one_is_filled():
    service = make_service()
    created = service.create("mantis", {}, [{"name": "ann"}, {"open": True}, {"open": True}])
    assert created["status"] == "waiting" and created["view"] is None and created["to_act"] == []
    first = service.join(created["id"], "bob")
    assert first["seat"] == 1 and first["match"]["status"] == "waiting"
    second = service.join(created["id"], "cy")
    assert second["seat"] == 2 and second["match"]["status"] == "active" and second["match"]["view"]["tanks"]
    with pytest.raises(Conflict) as full:
        service.join(created["id"], "dee")
    assert full.value.reason == "match_not_waiting"


def test_a_move_appends_its_events_and_returns_them_redacted_for_the_mover():
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    result = service.move(created["id"], tokens_of(created)[0], {"action": "score"}, 2)
    assert result["version"] == 4 and [e["type"] for e in result["events"]] == ["moved", "score_tried"]
    assert "nonce" not in result["events"][0] and result["events"][0]["hash"]
    assert service.get(created["id"], None)["to_act"] == [1]


@pytest.mark.parametrize("token,error,reason", [(None, Unauthorized, "token_required"),
                                                ("forged", Forbidden, "token_rejected")])
def test_moves_without_a_seat_token_are_refused(token, error, reason):
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    with pytest.raises(error) as refusal:
        service.move(created["id"], token, {"action": "score"}, 2)
    assert refusal.value.reason == reason


def test_a_move_at_a_stale_version_is_a_conflict_that_names_the_current_version():
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    with pytest.raises(Conflict) as conflict:
        service.move(created["id"], tokens_of(created)[0], {"action": "score"}, 1)
    assert conflict.value.details == {"current_version": 2}


def test_a_move_out_of_turn_is_refused_by_the_rules():
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    with pytest.raises(IllegalMove) as refusal:
        service.move(created["id"], tokens_of(created)[1], {"action": "score"}, 2)
    assert refusal.value.reason == "not_your_turn"


def test_a_retry_with_the_same_idempotency_key_returns_the_first_answer_and_appends_nothing():
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    token = tokens_of(created)[0]
    first = service.move(created["id"], token, {"action": "score"}, 2, idempotency_key="k-1")
    again = service.move(created["id"], token, {"action": "score"}, 2, idempotency_key="k-1")
    assert again == first and service.get(created["id"], None)["version"] == 4
    with pytest.raises(Unprocessable) as reused:
        service.move(created["id"], token, {"action": "steal", "target": 1}, 2, idempotency_key="k-1")
    assert reused.value.reason == "idempotency_key_reused"


def test_an_unknown_match_is_not_found():
    with pytest.raises(NotFound):
        make_service().get("nope", None)


def test_bot_seats_are_scheduled_when_they_are_to_act():
    bots = RecordedBots()
    service = make_service(bots)
    created = service.create("mantis", {}, [{"bot": "random"}, {"name": "ann"}])
    assert bots.scheduled == [(created["id"], 0, 2)]


def test_a_bot_turn_for_a_version_that_is_gone_is_not_played():
    bots = RecordedBots()
    service = make_service(bots)
    created = service.create("mantis", {}, [{"bot": "random"}, {"name": "ann"}])
    assert service.play_bot_turn(created["id"], 0, 2) == "played"
    assert service.play_bot_turn(created["id"], 0, 2) == "stale"
    assert service.play_bot_turn(created["id"], 1, service.get(created["id"], None)["version"]) == "stale"


def test_a_match_of_bots_plays_itself_to_the_end():
    service = make_service(InlineBots())
    created = service.create("mantis", {}, [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}])
    finished = service.get(created["id"], None)
    assert finished["status"] == "finished" and finished["result"]["winners"]
    log = service.events(created["id"], None)["events"]
    assert log[-1]["type"] == "match_finished" and log[-1]["data"]["seed"] and "nonce" in log[-1]
    assert [e["version"] for e in log] == list(range(1, len(log) + 1))


def test_the_finish_reveals_the_seed_and_salt_that_match_the_commitment():
    service = make_service(InlineBots())
    created = service.create("mantis", {}, [{"bot": "random"}, {"bot": "random"}])
    revealed = service.events(created["id"], None)["events"][-1]["data"]
    assert match.commitment(revealed["seed"], revealed["salt"]) == created["commitment"]


def test_snapshot_and_tail_load_the_same_state_as_a_full_replay():
    snapshotting = make_service(InlineBots(), snapshot_every=5)
    created = snapshotting.create("mantis", {}, [{"bot": "random"}, {"bot": "random"}, {"bot": "random"}],
                                  seed="same")
    full = match.evolve_all(None, snapshotting.events(created["id"], None)["events"])
    assert snapshotting._load(created["id"]).state == full


def test_the_state_at_an_earlier_version_is_that_seats_view_as_it_was():
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    service.move(created["id"], tokens_of(created)[0], {"action": "score"}, 2)
    then = service.state_at(created["id"], tokens_of(created)[1], 2)
    assert then["version"] == 2 and then["you"] == 1 and then["view"]["own_score_pile"] == []
    assert then["view"]["tanks"] == created["view"]["tanks"] != service.get(created["id"], None)["view"]["tanks"]
    with pytest.raises(NotFound):
        service.state_at(created["id"], None, 99)


def test_spectators_see_the_log_redacted_until_the_end():
    service = make_service()
    created = service.create("mantis", {}, THREE_HUMANS)
    dealt = service.events(created["id"], None)["events"][1]
    assert dealt["type"] == "dealt" and dealt["data"]["draw_pile"][1] is None and "nonce" not in dealt


def test_listing_filters_by_game_and_status_and_pages_with_a_cursor():
    service = make_service(InlineBots())
    ids = [service.create("mantis", {}, THREE_HUMANS)["id"] for _ in range(3)]
    done = service.create("mantis", {}, [{"bot": "random"}, {"bot": "random"}])["id"]
    page = service.list_matches("mantis", "active", None, 2)
    assert [m["id"] for m in page["matches"]] == ids[:0:-1]
    rest = service.list_matches("mantis", "active", page["next_cursor"], 2)
    assert [m["id"] for m in rest["matches"]] == ids[:1] and rest["next_cursor"] is None
    assert [m["id"] for m in service.list_matches(None, "finished", None, 10)["matches"]] == [done]


def test_a_bot_turn_takes_the_bots_think_time_whatever_its_cards_and_however_long_it_searched():
    slept, bots = [], InlineBots()
    bots.service = service = MatchService(InMemoryEventStore(), bots, clock=lambda: 1000.0, sleep=slept.append)
    created = service.create("9stax", {}, [{"name": "ann"}, {"bot": "ismcts", "bot_options": {
        "budget_ms": 250, "iterations": 40}}, {"bot": "greedy"}], seed="steady")
    for _ in range(10):  # ann draws and keeps (or answers); the bots answer every step, forced or not
        mine = service.legal_moves(created["id"], tokens_of(created)[0])
        service.move(created["id"], tokens_of(created)[0], mine["moves"][-1], mine["version"])
    movers = [step["seat"] for step in service.moves(created["id"])["moves"]]
    assert movers.count(1) >= 5 and movers.count(2) >= 5
    assert slept == [0.25 if seat == 1 else 0.0 for seat in movers if seat != 0]  # the clock stands still here


def test_a_bot_that_remembers_is_given_what_its_seat_was_shown_and_nothing_more(monkeypatch):
    # given a Mantis match of ann against an ismcts seat whose policy records what it is given
    given = []

    def recording(game, view, seat, moves, rng, seen=(), **options):
        given.append((seat, seen))
        return moves[0]

    monkeypatch.setitem(BOTS, "ismcts", dataclasses.replace(BOTS["ismcts"], policy=recording))
    store, bots = InMemoryEventStore(), InlineBots()
    bots.service = service = MatchService(store, bots, sleep=lambda seconds: None)
    created = service.create("mantis", {}, [{"name": "ann"}, {"bot": "ismcts", "bot_options": {"level": 1}}])
    # when ann moves and the bot answers
    mine = service.legal_moves(created["id"], tokens_of(created)[0])
    service.move(created["id"], tokens_of(created)[0], mine["moves"][0], mine["version"])
    # then the bot got its seat's redacted game events and views up to its turn, as domain.match.seen gives them
    seat, seen = given[0]
    log = store.read(created["id"], upto=4)  # created, dealt, ann's move and her flip: the bot's turn
    assert seat == 1 and seen == match.seen(log, 1) and len(seen) == 2
    assert seen[0][0][0]["data"]["draw_pile"][1] is None  # the deal as seat 1 sees it: no card below the top


@pytest.mark.parametrize("seats,seed", [([{"name": "\ud800"}, {"name": "bob"}], None),
                                        (THREE_HUMANS, "\udfff"), ([{"bot": "random", "name": "\udc00"}] * 2, None)])
def test_a_create_the_log_cannot_store_is_refused_before_anything_is_written(seats, seed):
    store = InMemoryEventStore()
    with pytest.raises(Unprocessable) as refused:
        make_service(store=store).create("mantis", {}, seats, seed=seed)
    assert refused.value.reason == "invalid_text"
    assert store.matches(None, None, 10) == [] and store.bots_awaited(float("inf"), 10) == []
