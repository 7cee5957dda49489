"""FlipOut rules: given these events, when this move, then these events (or this refusal)."""
import json
import random
from collections import Counter
from itertools import product

import pytest
from hypothesis import given as for_all, settings, strategies as st

from domain import match
from domain.errors import IllegalMove, InvalidSetup
from domain.games import flipout
from domain.rng import Rng
from tests.support.games import given, random_match, rejected, when

COLOUR = {"r": "red", "y": "yellow", "g": "green", "b": "blue", "p": "purple"}
NO_RUN = "r/y y/g g/b b/p p/r r/y"  # no 4 alike on either side
DECK = "b/g p/y y/y g/r r/p b/b p/g y/r"


def card(spec):
    """'r/b': inner red, outer blue."""
    inner, outer = spec.split("/")
    return {"inner": COLOUR[inner], "outer": COLOUR[outer]}


def holder(spec):
    return [card(s) for s in spec.split()]


def deck(spec):
    """'r/b': up face red (public on top), down face blue."""
    return [{"up": COLOUR[s[0]], "down": COLOUR[s[2]]} for s in spec.split()]


def dealt(holders, deck_spec=DECK, tokens=False, stall_rounds=30):
    return {"type": "dealt", "data": {"options": {"tokens": tokens, "stall_rounds": stall_rounds},
                                      "holders": [holder(h) for h in holders], "deck": deck(deck_spec)}}


def play(state, seat, move):
    events = when(flipout, state, seat, move)
    for event in events:
        state = flipout.evolve(state, event)
    return state, events


def placed(h, p, spec):
    return {"holder": h, "place": p, **card(spec)}


def kinds(game):
    """Every card in a state, whatever its orientation and place."""
    cards = [c for h in game["holders"] for c in h] + game["deck"] + [c for p in game["score_piles"] for c in p]
    return Counter(flipout.card_kind(c) for c in cards)


FULL_DECK = Counter(flipout.card_kind(c) for c in flipout.build_deck())


# --- components, options and the deal ---------------------------------------------------------------
def test_the_deck_has_90_cards_six_of_each_of_the_15_colour_pairs_and_36_faces_per_colour():
    cards = flipout.build_deck()
    assert len(cards) == 90
    assert set(FULL_DECK.values()) == {6} and len(FULL_DECK) == 15
    assert sum(1 for kind in FULL_DECK if kind[0] == kind[1]) == 5
    faces = Counter(face for c in cards for face in (c["up"], c["down"]))
    assert faces == {colour: 36 for colour in flipout.COLOURS}


@pytest.mark.parametrize("players", [1, 6])
def test_player_counts_outside_two_to_five_are_refused(players):
    with pytest.raises(InvalidSetup) as refusal:
        flipout.options({}, players)
    assert refusal.value.reason == "invalid_player_count"


def test_options_default_to_no_tokens_and_a_stall_limit_and_bad_values_are_refused():
    assert flipout.options({}, 3) == {"tokens": False, "stall_rounds": 30}
    assert flipout.options({"tokens": True}, 2)["tokens"] is True
    for raw, reason in [({"stall_rounds": 0}, "invalid_option"), ({"tokens": "yes"}, "invalid_option"),
                        ({"draw_swap": True}, "unknown_option")]:
        with pytest.raises(InvalidSetup) as refusal:
            flipout.options(raw, 2)
        assert refusal.value.reason == reason


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_deal_gives_six_cards_per_holder_underside_in_and_keeps_the_rest_as_the_deck(players):
    [event] = flipout.deal(flipout.options({}, players), players, Rng.derive(f"s{players}", "deal"))
    state = flipout.evolve(None, event)
    assert [len(h) for h in state["holders"]] == [6] * players
    assert len(state["deck"]) == 90 - 6 * players
    assert kinds(state) == FULL_DECK
    assert state["turn"] == 0 and state["actions_left"] == 2 and state["tokens"] is None


def test_the_shuffle_gives_cards_both_orientations():
    [event] = flipout.deal(flipout.options({}, 2), 2, Rng.derive("orientation", "deal"))
    mixed = [c for c in event["data"]["deck"] if c["up"] != c["down"]]
    ups = Counter((c["up"], c["down"]) for c in mixed)
    assert any(ups[(a, b)] and ups[(b, a)] for a, b in ups)  # the same pair lies both ways up
    assert len({(c["up"], c["down"]) for c in mixed}) > 15


def test_the_tokens_variant_gives_each_seat_three_tokens():
    state = given(flipout, dealt([NO_RUN] * 3, tokens=True))
    assert state["tokens"] == [3, 3, 3]


# --- flip -------------------------------------------------------------------------------------------
def test_flipping_my_own_card_shows_me_its_old_outer_face_and_the_others_its_old_inner_face():
    state = given(flipout, dealt(["r/b " + NO_RUN[4:], NO_RUN]))
    after, events = play(state, 0, {"action": "flip", "holder": 0, "place": 0})
    assert events == [{"type": "flipped", "data": {"seat": 0, "holder": 0, "place": 0,
                                                   "cards": [placed(0, 0, "b/r")]}}]
    assert after["holders"][0][0] == card("b/r")
    assert flipout.view(after, 0)["holders"][0][0] == {"inner": "blue", "outer": None}
    assert flipout.view(after, 1)["holders"][0][0] == {"inner": None, "outer": "red"}
    assert after["turn"] == 0 and after["actions_left"] == 1


def test_flipping_another_seats_card_shows_me_its_old_inner_face():
    state = given(flipout, dealt([NO_RUN, "g/p " + NO_RUN[4:], NO_RUN]))
    after, [event] = play(state, 0, {"action": "flip", "holder": 1, "place": 0})
    assert after["holders"][1][0] == card("p/g")
    assert flipout.view(after, 0)["holders"][1][0] == {"inner": None, "outer": "green"}
    assert flipout.redact(event, 1)["data"]["cards"] == [{"holder": 1, "place": 0, "inner": "purple", "outer": None}]
    assert flipout.redact(event, 2)["data"]["cards"] == [{"holder": 1, "place": 0, "inner": None, "outer": "green"}]
    assert flipout.redact(event, None)["data"]["cards"] == [{"holder": 1, "place": 0, "inner": None, "outer": "green"}]


def test_a_seat_never_sees_its_own_outer_faces_nor_another_seats_inner_faces():
    state = given(flipout, dealt([NO_RUN, NO_RUN, NO_RUN]))
    for seat in (0, 1, 2, None):
        for owner, cards in enumerate(flipout.view(state, seat)["holders"]):
            for seen in cards:
                assert (seen["inner"] is None) == (owner != seat) and (seen["outer"] is None) == (owner == seat)


# --- switch -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("holder_seat", [0, 1])
def test_a_switch_exchanges_two_places_in_any_holder_without_turning_them(holder_seat):
    state = given(flipout, dealt([NO_RUN, NO_RUN]))
    after, events = play(state, 0, {"action": "switch", "holder": holder_seat, "first": 1, "second": 4})
    assert events == [{"type": "switched", "data": {"seat": 0, "holder": holder_seat, "places": [1, 4]}}]
    before = state["holders"][holder_seat]
    assert after["holders"][holder_seat] == [before[0], before[4], before[2], before[3], before[1], before[5]]


def test_a_switch_may_name_the_higher_place_first():
    state = given(flipout, dealt([NO_RUN, NO_RUN]))
    assert play(state, 0, {"action": "switch", "holder": 0, "first": 4, "second": 1})[0]["holders"] == \
        play(state, 0, {"action": "switch", "holder": 0, "first": 1, "second": 4})[0]["holders"]


# --- swap1 and swap2 --------------------------------------------------------------------------------
def test_swap1_turns_both_cards_so_both_players_keep_seeing_the_colours_they_saw():
    state = given(flipout, dealt(["r/b " + NO_RUN[4:], NO_RUN[:-3] + "y/g", NO_RUN]))
    after, [event] = play(state, 0, {"action": "swap1", "target": 1, "mine": 0, "theirs": 5})
    assert after["holders"][0][0] == card("g/y") and after["holders"][1][5] == card("b/r")
    assert event["data"]["cards"] == [placed(0, 0, "g/y"), placed(1, 5, "b/r")]
    assert flipout.view(after, 0)["holders"][0][0]["inner"] == "green"  # I saw green on its back
    assert flipout.view(after, 0)["holders"][1][5]["outer"] == "red"  # the red I gave still faces me
    assert flipout.view(after, 1)["holders"][1][5]["inner"] == "blue"  # seat 1 saw blue on my card
    assert flipout.view(after, 2)["holders"][1][5]["outer"] == "red"  # a third seat now sees the other face
    assert flipout.redact(event, 1)["data"]["cards"] == [{"holder": 0, "place": 0, "inner": None, "outer": "yellow"},
                                                         {"holder": 1, "place": 5, "inner": "blue", "outer": None}]


def test_swap2_exchanges_two_pairs_of_different_colours_in_order_and_turns_them():
    state = given(flipout, dealt(["r/b r/y g/b b/p p/r r/y", "r/y y/g p/g y/g b/p r/y"]))
    after, [event] = play(state, 0, {"action": "swap2", "target": 1, "mine": 0, "theirs": 2})
    assert after["holders"][0][:2] == [card("g/p"), card("g/y")]
    assert after["holders"][1][2:4] == [card("b/r"), card("y/r")]
    assert event["data"]["mine"] == [0, 1] and event["data"]["theirs"] == [2, 3]
    assert kinds(after) == kinds(state)


def test_swap2_judges_my_pair_by_my_inner_faces_not_by_the_outer_faces():
    state = given(flipout, dealt(["r/b y/b g/b b/p p/r r/y", "r/y y/g p/g y/g b/p r/y"]))
    assert rejected(flipout, state, 0, {"action": "swap2", "target": 1, "mine": 0, "theirs": 2}) == "not_same_colour"


def test_swap2_judges_the_targets_pair_by_its_outer_faces_not_by_the_inner_faces():
    state = given(flipout, dealt(["r/b r/y g/b b/p p/r r/y", "r/y y/g g/p g/y b/p r/y"]))
    assert rejected(flipout, state, 0, {"action": "swap2", "target": 1, "mine": 0, "theirs": 2}) == "not_same_colour"


def test_swap2_pairs_start_at_places_0_to_4():
    state = given(flipout, dealt(["r/b r/y g/b b/p p/r r/r", "r/y y/g g/p g/y b/p r/r"]))
    assert rejected(flipout, state, 0, {"action": "swap2", "target": 1, "mine": 5, "theirs": 0}) == "invalid_place"


# --- score ------------------------------------------------------------------------------------------
def test_score_takes_a_run_of_four_closes_up_left_and_refills_right_underside_in():
    state = given(flipout, dealt(["y/p r/b r/g r/y r/p g/b", NO_RUN]))
    after, [scored, refilled] = play(state, 0, {"action": "score"})
    assert scored == {"type": "scored", "data": {"seat": 0, "start": 1, "count": 4, "colour": "red", "cards": [
        {"colour": "red", "other": c} for c in ("blue", "green", "yellow", "purple")]}}
    assert refilled["data"] == {"seat": 0, "short": False, "deck_top": "red", "cards": [
        placed(0, 2, "g/b"), placed(0, 3, "y/p"), placed(0, 4, "y/y"), placed(0, 5, "r/g")]}
    assert after["holders"][0] == holder("y/p g/b g/b y/p y/y r/g")
    assert len(after["score_piles"][0]) == 4 and len(after["deck"]) == 4
    assert after["turn"] == 0 and after["actions_left"] == 1  # the second action comes after the refill
    assert flipout.redact(refilled, 1)["data"]["cards"][0] == {"holder": 0, "place": 2, "inner": None, "outer": "blue"}


@pytest.mark.parametrize("spec,count", [("b/r g/r g/y g/g g/p g/b", 5), ("g/r g/r g/y g/g g/p g/b", 6)])
def test_score_takes_the_whole_run_of_five_or_six(spec, count):
    state = given(flipout, dealt([spec, NO_RUN]))
    after, [scored, _] = play(state, 0, {"action": "score"})
    assert scored["data"]["count"] == count and len(after["score_piles"][0]) == count
    assert len(after["holders"][0]) == 6


def test_a_run_on_my_outer_faces_cannot_be_scored_and_three_alike_are_no_set():
    for spec in ("y/r b/r g/r p/r y/g b/g", "r/y r/y r/y b/p b/p y/b"):
        state = given(flipout, dealt([spec, NO_RUN]))
        assert rejected(flipout, state, 0, {"action": "score"}) == "no_set"


# --- swipe ------------------------------------------------------------------------------------------
def test_swipe_takes_a_visible_run_gives_its_leftmost_card_to_the_victim_and_the_victim_refills():
    state = given(flipout, dealt([NO_RUN, "y/p r/b g/b y/b p/b g/r", NO_RUN]))
    after, [swiped, refilled] = play(state, 0, {"action": "swipe", "target": 1})
    assert swiped["data"] == {"seat": 0, "target": 1, "start": 1, "count": 4, "colour": "blue", "cards": [
        {"colour": "blue", "other": c} for c in ("red", "green", "yellow", "purple")]}
    assert after["score_piles"][1] == [{"colour": "blue", "other": "red"}]
    assert after["score_piles"][0] == [{"colour": "blue", "other": c} for c in ("green", "yellow", "purple")]
    assert refilled["data"]["seat"] == 1 and after["holders"][1][:2] == holder("y/p g/r")
    assert len(after["holders"][1]) == 6 and after["holders"][0] == state["holders"][0]
    assert after["turn"] == 0 and after["actions_left"] == 1


def test_a_run_on_the_victims_inner_faces_cannot_be_swiped_and_no_seat_swipes_itself():
    state = given(flipout, dealt(["y/r b/r g/r p/r y/g b/g", "r/y r/g r/b r/p b/p y/b"]))
    assert rejected(flipout, state, 0, {"action": "swipe", "target": 1}) == "no_set"
    assert rejected(flipout, state, 0, {"action": "swipe", "target": 0}) == "invalid_target"


# --- turns ------------------------------------------------------------------------------------------
def test_the_turn_passes_clockwise_after_two_actions_and_repeats_are_allowed():
    state = given(flipout, dealt([NO_RUN, NO_RUN, NO_RUN]))
    state, _ = play(state, 0, {"action": "flip", "holder": 1, "place": 0})
    state, _ = play(state, 0, {"action": "flip", "holder": 1, "place": 0})
    assert state["turn"] == 1 and state["actions_left"] == 2 and state["turns"] == 1
    for seat in (1, 1, 2, 2):
        state, _ = play(state, seat, {"action": "flip", "holder": 0, "place": 3})
    assert state["turn"] == 0 and flipout.to_act(state) == [0]


# --- the end ----------------------------------------------------------------------------------------
def test_a_seat_that_cannot_refill_draws_what_is_left_and_the_game_ends_at_once_with_the_final_collection():
    state = given(flipout, dealt(["y/p r/b r/g r/y r/p g/b", "b/r b/g b/y b/p y/y g/r", "p/r g/p p/g g/r g/y y/g"],
                                 "p/g y/b"))
    after, events = play(state, 0, {"action": "score"})
    assert [e["type"] for e in events] == ["scored", "refilled", "game_ended"]
    assert events[1]["data"]["short"] is True and len(events[1]["data"]["cards"]) == 2
    assert events[2]["data"] == {"reason": "deck_exhausted", "seat": 0, "collections": [
        {"seat": 1, "start": 0, "count": 4, "colour": "blue",
         "cards": [{"colour": "blue", "other": c} for c in ("red", "green", "yellow", "purple")]}]}
    assert after["finished"] and after["deck"] == [] and flipout.to_act(after) == []
    assert after["holders"][1] == holder("y/y g/r")  # the rest of the holder does not count
    assert flipout.outcome(after) == {"winners": [0, 1], "scores": {"0": 4, "1": 4, "2": 0}}
    assert rejected(flipout, after, 0, {"action": "flip", "holder": 0, "place": 0}) == "game_over"


def test_the_short_seat_collects_a_run_that_its_partial_refill_completed():
    state = given(flipout, dealt(["g/p r/b r/g r/y r/p g/b", NO_RUN], "y/g y/g"))
    after, events = play(state, 0, {"action": "score"})
    assert after["finished"] and events[-1]["data"]["collections"][0]["seat"] == 0
    assert [c["colour"] for c in after["score_piles"][0]] == ["red"] * 4 + ["green"] * 4


def test_a_swipe_ends_the_game_when_the_victim_cannot_refill():
    state = given(flipout, dealt([NO_RUN, "y/p r/b g/b y/b p/b g/r"], "p/g y/b r/r"))
    after, events = play(state, 0, {"action": "swipe", "target": 1})
    assert events[-1]["data"]["reason"] == "deck_exhausted" and events[-1]["data"]["seat"] == 1
    assert flipout.outcome(after)["winners"] == [0]


def test_a_refill_that_empties_the_deck_exactly_does_not_end_the_game():
    state = given(flipout, dealt(["y/p r/b r/g r/y r/p g/b", "y/p r/b g/b y/b p/b g/r"], "p/g y/b r/r g/g"))
    after, events = play(state, 0, {"action": "score"})
    assert not after["finished"] and after["deck"] == [] and flipout.view(after, 1)["deck"] == {"count": 0, "top": None}
    assert events[1]["data"]["deck_top"] is None
    after, events = play(after, 0, {"action": "swipe", "target": 1})
    assert after["finished"] and events[1]["data"]["cards"] == [] and events[-1]["data"]["seat"] == 1


def test_most_cards_win_then_most_cards_of_one_colour_then_the_win_is_shared():
    state = given(flipout, dealt([NO_RUN] * 3))

    def pile(*colours):
        return [{"colour": c, "other": "red"} for c in colours]

    ended = {**state, "finished": True}
    piles = [pile("red", "red", "blue", "blue", "green"), pile(*["blue"] * 4), pile("red", "red", "red", "green")]
    assert flipout.outcome({**ended, "score_piles": piles}) == {"winners": [0], "scores": {"0": 5, "1": 4, "2": 4}}
    piles = [pile("red", "red", "blue", "blue"), pile(*["blue"] * 4), pile("red", "red", "red", "green")]
    assert flipout.outcome({**ended, "score_piles": piles})["winners"] == [1]
    piles = [pile("red", "red", "blue", "blue"), pile("yellow", "yellow", "red", "purple"), pile()]
    assert flipout.outcome({**ended, "score_piles": piles})["winners"] == [0, 1]
    assert flipout.outcome(state) is None


def test_the_tie_break_counts_a_card_as_the_colour_of_its_set_not_its_other_face():
    state = given(flipout, dealt([NO_RUN] * 2))
    piles = [[{"colour": "red", "other": "blue"}] * 2 + [{"colour": "blue", "other": "red"}] * 2,
             [{"colour": "green", "other": "green"}] * 3 + [{"colour": "red", "other": "blue"}]]
    assert flipout.outcome({**state, "finished": True, "score_piles": piles})["winners"] == [1]


def test_the_game_ends_when_stall_rounds_rounds_pass_without_a_set_and_a_set_restarts_the_count():
    quiet = given(flipout, dealt(["y/p r/b r/g r/y r/p g/b", "y/p r/b g/b y/b p/b g/r"], stall_rounds=1))
    flip = {"action": "flip", "holder": 0, "place": 5}
    state = quiet
    for seat in (0, 0, 1):
        state, _ = play(state, seat, flip)
    state, events = play(state, 1, flip)
    assert events[-1]["data"] == {"reason": "stalled", "seat": None, "collections": [
        {"seat": 0, "start": 1, "count": 4, "colour": "red",
         "cards": [{"colour": "red", "other": c} for c in ("blue", "green", "yellow", "purple")]}]}
    assert flipout.outcome(state)["winners"] == [0]
    state, _ = play(quiet, 0, {"action": "score"})
    for seat in (0, 1, 1):
        state, _ = play(state, seat, flip)
    assert not state["finished"] and state["turns"] == 2
    state, _ = play(state, 0, flip)
    state, events = play(state, 0, flip)
    assert state["finished"] and state["end"] == {"reason": "stalled", "seat": None}


# --- tokens -----------------------------------------------------------------------------------------
def test_a_token_buys_a_third_action_once_per_turn():
    state = given(flipout, dealt([NO_RUN, NO_RUN], tokens=True))
    flip = {"action": "flip", "holder": 1, "place": 0}
    state, _ = play(state, 0, flip)
    state, events = play(state, 0, {"action": "spend_token"})
    assert events == [{"type": "token_spent", "data": {"seat": 0}}]
    assert state["tokens"] == [2, 3] and state["actions_left"] == 2
    assert rejected(flipout, state, 0, {"action": "spend_token"}) == "token_already_spent"
    assert {"action": "spend_token"} not in flipout.legal_moves(state, 0)
    state, _ = play(state, 0, flip)
    assert state["turn"] == 0
    state, _ = play(state, 0, flip)
    assert state["turn"] == 1 and state["token_spent"] is False
    assert {"action": "spend_token"} in flipout.legal_moves(state, 1)


def test_no_token_can_be_spent_without_tokens_left_or_without_the_variant():
    state = given(flipout, dealt([NO_RUN, NO_RUN], tokens=True))
    assert rejected(flipout, {**state, "tokens": [0, 3]}, 0, {"action": "spend_token"}) == "no_tokens_left"
    plain = given(flipout, dealt([NO_RUN, NO_RUN]))
    assert rejected(flipout, plain, 0, {"action": "spend_token"}) == "no_tokens_variant"
    assert all(m["action"] != "spend_token" for m in flipout.legal_moves(plain, 0))


# --- the 2-player draw ------------------------------------------------------------------------------
def test_with_two_players_a_draw_takes_the_top_card_underside_in_and_puts_the_old_card_under_the_deck():
    state = given(flipout, dealt(["r/y y/g g/b b/p p/r r/y", NO_RUN]))
    after, [event] = play(state, 0, {"action": "draw", "place": 2})
    assert after["holders"][0][2] == card("g/b")  # the deck's top card, up face blue, down face green
    assert after["deck"][-1] == {"up": "blue", "down": "green"}  # the old g/b card: as if just drawn
    assert after["deck"][:-1] == state["deck"][1:] and len(after["deck"]) == len(state["deck"])
    assert event["data"] == {"seat": 0, "place": 2, "cards": [placed(0, 2, "g/b")], "deck_top": "purple"}
    assert flipout.redact(event, 1)["data"]["cards"] == [{"holder": 0, "place": 2, "inner": None, "outer": "blue"}]
    assert after["actions_left"] == 1


def test_a_draw_from_a_deck_of_one_card_puts_the_old_card_on_top_with_its_old_outer_face_up():
    state = given(flipout, dealt(["r/y y/g g/b b/p p/r r/y", NO_RUN], "b/g"))
    after, [event] = play(state, 0, {"action": "draw", "place": 0})
    assert after["deck"] == [{"up": "yellow", "down": "red"}] and event["data"]["deck_top"] == "yellow"


def test_the_draw_exists_only_with_two_players_and_a_deck():
    three = given(flipout, dealt([NO_RUN] * 3))
    assert rejected(flipout, three, 0, {"action": "draw", "place": 0}) == "not_two_players"
    assert all(m["action"] != "draw" for m in flipout.legal_moves(three, 0))
    empty = given(flipout, dealt([NO_RUN] * 2, ""))
    assert rejected(flipout, empty, 0, {"action": "draw", "place": 0}) == "deck_empty"
    assert all(m["action"] != "draw" for m in flipout.legal_moves(empty, 0))
    two = given(flipout, dealt([NO_RUN] * 2))
    assert [m for m in flipout.legal_moves(two, 0) if m["action"] == "draw"] == \
        [{"action": "draw", "place": p} for p in range(6)]


# --- refusals ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("seat,move,reason", [
    (1, {"action": "flip", "holder": 0, "place": 0}, "not_your_turn"),
    (0, {"action": "flip", "holder": 3, "place": 0}, "invalid_target"),
    (0, {"action": "flip", "holder": -1, "place": 0}, "invalid_target"),
    (0, {"action": "flip", "holder": 0, "place": 6}, "invalid_place"),
    (0, {"action": "switch", "holder": 1, "first": 2, "second": 2}, "invalid_place"),
    (0, {"action": "switch", "holder": 1, "first": -1, "second": 2}, "invalid_place"),
    (0, {"action": "swap1", "target": 0, "mine": 0, "theirs": 1}, "invalid_target"),
    (0, {"action": "swap1", "target": 5, "mine": 0, "theirs": 1}, "invalid_target"),
    (0, {"action": "swap1", "target": 1, "mine": 0, "theirs": 7}, "invalid_place"),
    (0, {"action": "swap2", "target": 0, "mine": 0, "theirs": 1}, "invalid_target"),
    (0, {"action": "swipe", "target": 9}, "invalid_target"),
    (0, {"action": "flip", "holder": 0}, "malformed_move"),
    (0, {"action": "flip", "holder": "0", "place": 0}, "malformed_move"),
    (0, {"action": "flip", "holder": True, "place": 0}, "malformed_move"),
    (0, {"action": "score", "colour": "red"}, "malformed_move"),
    (0, {"action": "pass"}, "unknown_action"),
    (0, "score", "malformed_move"),
])
def test_moves_that_break_the_rules_are_refused_with_a_reason(seat, move, reason):
    state = given(flipout, dealt([NO_RUN] * 3))
    assert rejected(flipout, state, seat, move) == reason


def test_a_turn_cannot_be_ended_early_there_is_no_pass():
    state = given(flipout, dealt([NO_RUN] * 2))
    assert rejected(flipout, state, 0, {"action": "end_turn"}) == "unknown_action"


# --- legal moves ------------------------------------------------------------------------------------
def test_legal_moves_list_each_distinct_move_once_and_only_for_the_seat_to_act():
    state = given(flipout, dealt(["r/b r/y g/b b/p p/r r/y", "r/y y/g p/g y/g b/p r/y"], tokens=True))
    moves = flipout.legal_moves(state, 0)
    count = Counter(m["action"] for m in moves)
    assert count == {"flip": 12, "switch": 30, "swap1": 36, "swap2": 2, "draw": 6, "spend_token": 1}
    assert len({json.dumps(m, sort_keys=True) for m in moves}) == len(moves)
    assert flipout.legal_moves(state, 1) == []


def test_five_players_have_a_few_hundred_moves_at_most():
    state = given(flipout, dealt(["r/r r/r g/b g/b p/r r/y"] + ["r/y y/y g/g g/g b/b r/b"] * 4))
    count = Counter(m["action"] for m in flipout.legal_moves(state, 0))
    assert count == {"flip": 30, "switch": 75, "swap1": 144, "swap2": 2 * 3 * 4}


def _all_candidates(players):
    """Every move shape over a range of values just wider than the legal one."""
    seats, places = range(-1, players + 1), range(-1, 7)
    yield from ({"action": "flip", "holder": h, "place": p} for h, p in product(seats, places))
    yield from ({"action": "switch", "holder": h, "first": a, "second": b}
                for h, a, b in product(seats, places, places))
    for action in ("swap1", "swap2"):
        yield from ({"action": action, "target": t, "mine": m, "theirs": p}
                    for t, m, p in product(seats, places, places))
    yield {"action": "score"}
    yield from ({"action": "swipe", "target": t} for t in seats)
    yield from ({"action": "draw", "place": p} for p in places)
    yield {"action": "spend_token"}


def _canonical(move):
    if move["action"] == "switch" and move["first"] > move["second"]:
        return {**move, "first": move["second"], "second": move["first"]}
    return move


@pytest.mark.parametrize("players,tokens", [(2, True), (3, False), (5, True)])
def test_legal_moves_are_exactly_the_moves_decide_accepts(players, tokens):
    checked = 0
    for step, (state, _) in enumerate(random_match("flipout", players, f"complete-{players}",
                                                   {"tokens": tokens, "stall_rounds": 2})):
        if state["status"] != "active" or step % 7:
            continue
        game, seat = state["game_state"], match.to_act(state)[0]
        accepted = []
        for move in _all_candidates(players):
            try:
                flipout.decide(game, seat, move, Rng.derive("x", "y"))
                accepted.append(json.dumps(_canonical(move), sort_keys=True))
            except IllegalMove:
                pass
        listed = [json.dumps(m, sort_keys=True) for m in flipout.legal_moves(game, seat)]
        assert sorted(set(accepted)) == sorted(listed)
        checked += 1
    assert checked >= 2


# --- views and redaction ----------------------------------------------------------------------------
def test_the_view_shows_the_deck_top_face_count_score_piles_and_public_counters():
    state = given(flipout, dealt([NO_RUN] * 2, tokens=True))
    state = {**state, "score_piles": [[{"colour": "red", "other": "blue"}], []]}
    seen = flipout.view(state, 1)
    assert seen["deck"] == {"count": 8, "top": "blue"}
    assert seen["score_piles"] == [[{"colour": "red", "other": "blue"}], []]
    assert seen["tokens"] == [3, 3] and seen["turn"] == 0 and seen["actions_left"] == 2
    assert "green" not in json.dumps(seen["deck"])


def test_a_redacted_deal_shows_own_inner_faces_other_outer_faces_and_the_top_face_only():
    event = dealt(["r/b y/g g/b b/p p/r r/y", "g/p g/p g/p g/p g/p g/p"])
    seen = flipout.redact(event, 0)["data"]
    assert seen["holders"][0][0] == {"inner": "red", "outer": None}
    assert seen["holders"][1] == [{"inner": None, "outer": "purple"}] * 6
    assert seen["deck"] == [{"up": "blue", "down": None}] + [None] * 7
    spectator = flipout.redact(event, None)["data"]
    assert spectator["holders"][0][0] == {"inner": None, "outer": "blue"}


def test_switches_tokens_and_collected_sets_are_public():
    for event in ({"type": "switched", "data": {"seat": 0, "holder": 1, "places": [0, 1]}},
                  {"type": "token_spent", "data": {"seat": 0}}):
        assert flipout.redact(event, 1) == event and flipout.redact(event, None) == event


# --- random matches ---------------------------------------------------------------------------------
VIEW_KEYS = {"options", "holders", "deck", "score_piles", "tokens", "turn", "actions_left", "token_spent",
             "turns", "quiet_since", "finished", "end"}


def may_see_holders(game, seat):
    """From the rules: the owner sees inner faces only, everyone else (spectators too) outer faces only."""
    return [[{"inner": c["inner"] if owner == seat else None, "outer": c["outer"] if owner != seat else None}
             for c in cards] for owner, cards in enumerate(game["holders"])]


def check_view(game, seat):
    seen = flipout.view(game, seat)
    assert set(seen) == VIEW_KEYS
    assert seen["holders"] == may_see_holders(game, seat)
    assert seen["deck"] == {"count": len(game["deck"]), "top": game["deck"][0]["up"] if game["deck"] else None}
    for key in VIEW_KEYS - {"holders", "deck"}:
        assert seen[key] == game[key]  # public information only


def check_event(event, after, seat):
    """A redacted event shows a holder card's face only where the seat's view would show it now, the deck
    top face only, and collected cards (public) only as they lie in the score piles."""
    seen = flipout.redact(event, seat)
    data = seen["data"]
    if event["type"] == "dealt":
        assert data["holders"] == may_see_holders(after, seat)
        assert data["deck"][1:] == [None] * (len(data["deck"]) - 1)
        assert data["deck"][:1] == [{"up": after["deck"][0]["up"], "down": None}][:len(data["deck"])]
        return
    for entry in data.get("cards", []):
        if "holder" in entry:
            owner, truth = entry["holder"], after["holders"][entry["holder"]][entry["place"]]
            assert entry["inner"] == (truth["inner"] if owner == seat else None)
            assert entry["outer"] == (truth["outer"] if owner != seat else None)
        else:
            assert event["type"] in ("scored", "swiped")
    if "deck_top" in data:
        assert data["deck_top"] == (after["deck"][0]["up"] if after["deck"] else None)
    rest = json.dumps({k: v for k, v in data.items() if k not in ("cards", "deck_top", "colour", "collections")})
    assert not any(colour in rest for colour in flipout.COLOURS)


def play_keen(player_count, seed, options):
    """Random play that takes a set whenever it can and half the time moves like the greedy bot (so the
    deck runs out), through the match lifecycle."""
    pick = random.Random(seed)
    log = match.create("flipout", options, [{"bot": "random"}] * player_count, "commitment", "client")
    state = match.evolve_all(None, log)
    opening = match.open_events(state, seed)
    state = match.evolve_all(state, opening)
    log = log + opening
    yield state, log
    while state["status"] == match.ACTIVE:
        seat = match.to_act(state)[0]
        moves = match.legal_moves(state, seat)
        takes = [m for m in moves if m["action"] in ("score", "swipe")]
        if takes or pick.random() < 0.5:
            move = pick.choice(takes or moves)
        else:
            move = flipout.greedy(match.view(state, seat), seat, moves, pick)
        events = match.decide(state, seat, move, seed, "salt")
        state = match.evolve_all(state, events)
        log = log + events
        yield state, log


GAME_EVENTS = {"dealt", "flipped", "switched", "swapped", "scored", "swiped", "refilled", "drew", "token_spent",
               "game_ended"}  # the rest of a match log is the match's own (public) events


def check_match(matches, sample_every):
    """Every match ends; cards are conserved at every version; the log replays; views and redacted events
    (the deal included) hide what they must, checked on a sample of versions."""
    ends = Counter()
    for players, seed, opts, driver in matches:
        before, checked_upto = None, 0
        for step, (state, log) in enumerate(driver("flipout", players, seed, opts) if driver is random_match
                                            else driver(players, seed, opts)):
            game = state["game_state"]
            assert kinds(game) == FULL_DECK
            assert all(len(h) == 6 for h in game["holders"]) or game["finished"]
            if step % sample_every == 0:
                for event in log[checked_upto:]:
                    if event["type"] not in GAME_EVENTS:
                        continue
                    before = flipout.evolve(before, event)
                    for seat in [None, *range(players)]:
                        check_event(event, before, seat)
                for seat in [None, *range(players)]:
                    check_view(game, seat)
            before, checked_upto = game, len(log)
        assert state["status"] == "finished" and state["result"]["winners"]
        assert match.evolve_all(None, log) == state
        assert json.loads(json.dumps(log)) == log
        ends[game["end"]["reason"]] += 1
    return ends


def test_two_thousand_random_matches_end_conserve_every_card_replay_and_leak_nothing():
    rng = random.Random(4)
    matches = [(players, f"random-{i}", {"tokens": bool(i % 2), "stall_rounds": rng.choice([1, 2, 3])}, random_match)
               for i, players in enumerate([2, 3, 4, 5] * 500)]
    ends = check_match(matches, sample_every=11)
    assert sum(ends.values()) == 2000


def test_random_matches_at_the_default_stall_limit_end():
    ends = check_match([(players, f"long-{players}", {}, random_match) for players in (2, 3, 4, 5)], sample_every=23)
    assert ends["stalled"] + ends["deck_exhausted"] == 4


def test_keen_random_matches_run_the_deck_out_and_end_with_the_final_collection():
    matches = [(players, f"keen-{i}", {"tokens": bool(i % 3)}, play_keen)
               for i, players in enumerate([2, 3, 4, 5] * 15)]
    ends = check_match(matches, sample_every=3)
    assert ends["deck_exhausted"] >= 55


def test_a_determinized_state_agrees_with_the_view_it_came_from_and_holds_all_90_cards():
    sampler = random.Random(7)
    for players, opts in [(2, {"tokens": True}), (4, {})]:
        for step, (state, _) in enumerate(play_keen(players, f"det-{players}", opts)):
            if state["status"] != "active" or step % 3:
                continue
            game = state["game_state"]
            for seat in range(players):
                seen = flipout.view(game, seat)
                sample = flipout.determinize(seen, seat, sampler)
                assert flipout.view(sample, seat) == seen
                assert kinds(sample) == FULL_DECK


# --- the greedy bot ---------------------------------------------------------------------------------
def test_greedy_scores_when_it_can_and_otherwise_swipes_the_biggest_run():
    state = given(flipout, dealt(["y/p r/b r/g r/y r/p g/b", "y/p r/b g/b y/b p/b g/r", "r/y r/g g/g g/g g/g g/g"]))
    moves = flipout.legal_moves(state, 0)
    assert flipout.greedy(flipout.view(state, 0), 0, moves, random.Random(1)) == {"action": "score"}
    moves = [m for m in moves if m["action"] != "score"]
    assert flipout.greedy(flipout.view(state, 0), 0, moves, random.Random(1)) == {"action": "swipe", "target": 2}


def test_greedy_weighs_a_score_against_a_swipe_by_its_weights():
    # a score of 4 cards, or a swipe of a run of 5 that gives me 4 and its victim 1
    state = given(flipout, dealt(["y/p r/b r/g r/y r/p g/b", "y/p r/b g/b y/b p/b g/r", "r/y r/g g/g g/g g/g g/g"]))
    view, moves = flipout.view(state, 0), flipout.legal_moves(state, 0)
    assert flipout.greedy(view, 0, moves, random.Random(1)) == {"action": "score"}
    swipes_first = flipout.GREEDY_WEIGHTS._replace(score_over_swipe=-1)
    assert flipout.greedy(view, 0, moves, random.Random(1), swipes_first) == {"action": "swipe", "target": 2}


def test_greedy_spends_a_token_at_once_unless_its_weights_keep_it_for_the_deck_s_last_cards():
    state = given(flipout, dealt([NO_RUN, NO_RUN], " ".join([DECK] * 3), tokens=True))  # 24 cards in the deck
    view, moves = flipout.view(state, 0), flipout.legal_moves(state, 0)
    assert flipout.greedy(view, 0, moves, random.Random(1)) == {"action": "spend_token"}
    kept_for_the_last_12 = flipout.GREEDY_WEIGHTS._replace(token_deck=12)
    assert flipout.greedy(view, 0, moves, random.Random(1), kept_for_the_last_12)["action"] != "spend_token"


def test_greedy_takes_a_card_that_completes_a_run_facing_it():
    state = given(flipout, dealt(["y/p r/b r/g r/y y/p g/b", "b/p b/g b/b b/y b/p b/r"]))
    chosen = flipout.greedy(flipout.view(state, 0), 0, flipout.legal_moves(state, 0), random.Random(3))
    state, _ = play(state, 0, chosen)
    assert flipout.find_run([c["inner"] for c in state["holders"][0]]) is not None


def _duel(seed, greedy_seat, players=2):
    state = None
    for event in flipout.deal(flipout.options({}, players), players, Rng.derive(f"duel-{seed}", "deal")):
        state = flipout.evolve(state, event)
    pick = random.Random(seed)
    step = 0
    while flipout.outcome(state) is None:
        seat = flipout.to_act(state)[0]
        moves = flipout.legal_moves(state, seat)
        move = (flipout.greedy(flipout.view(state, seat), seat, moves, pick) if seat == greedy_seat
                else pick.choice(moves))
        for event in flipout.decide(state, seat, move, Rng.derive(f"duel-{seed}", str(step))):
            state = flipout.evolve(state, event)
        step += 1
    return greedy_seat in flipout.outcome(state)["winners"]


def test_greedy_beats_random_play_clearly():
    wins = sum(_duel(seed, seed % 2) for seed in range(200))
    assert wins >= 180


# --- the greedy bot weighs moves on the faces it sees, as the engine's own card movements would leave them ---
def plain_greedy_values(view: dict, seat: int, moves: list[dict]) -> list[float]:
    """Greedy's value of each move by its plain reading: the move made on copies of the holders with the engine's
    card movements (flip_card, switch_cards, swap_cards), then every holder judged by the faces the seat sees."""
    holders = view["holders"]

    def seen(cards, owner):
        return tuple(card["inner" if owner == seat else "outer"] for card in cards)

    def judged(after):
        best = max(flipout._take_of(seen(cards, owner), owner == seat) for owner, cards in enumerate(after))
        weights = flipout.GREEDY_WEIGHTS
        weight = weights.next_action if view["actions_left"] > 1 else weights.next_turn
        return weight * best + flipout._window_of(seen(after[seat], seat))

    values = []
    for move in moves:
        action = move["action"]
        if action == "flip":
            values.append(judged(flipout.flip_card(holders, move["holder"], move["place"])))
        elif action == "switch":
            values.append(judged(flipout.switch_cards(holders, move["holder"], move["first"], move["second"])))
        elif action in ("swap1", "swap2"):
            width = 1 if action == "swap1" else 2
            values.append(judged(flipout.swap_cards(holders, seat, move["target"],
                                                    [move["mine"] + i for i in range(width)],
                                                    [move["theirs"] + i for i in range(width)])))
        elif action == "draw":
            drawn = [dict(card) for card in holders[seat]]
            drawn[move["place"]] = {"inner": None, "outer": None}
            values.append(judged([drawn if owner == seat else cards for owner, cards in enumerate(holders)]))
        else:
            values.append(None)  # score, swipe, spend_token: valued from the takes alone, no card moves
    return values


@settings(max_examples=25, deadline=None)
@for_all(seed=st.integers(0, 10**6), players=st.integers(2, 5), tokens=st.booleans())
def test_greedy_picks_a_move_of_the_best_plain_value_at_every_position_of_a_random_match(seed, players, tokens):
    # given every position of a random match where the seat to act has a choice
    for step, (state, _) in enumerate(random_match("flipout", players, f"greedy-{seed}", {"tokens": tokens})):
        if state["status"] != match.ACTIVE or step % 3:
            continue
        seat = match.to_act(state)[0]
        moves, view = match.legal_moves(state, seat), match.view(state, seat)
        # when greedy chooses, then its move has the best value of all the moves that move cards, by the
        # engine's own card movements (or it takes a set or spends a token)
        chosen = flipout.greedy(view, seat, moves, random.Random(seed))
        values = plain_greedy_values(view, seat, moves)
        chosen_value = values[moves.index(chosen)]
        assert chosen_value is None or chosen_value == max(v for v in values if v is not None)
