"""9STAX rules: given these events, when this move, then these events (or this refusal)."""
import json
import random
from collections import Counter

import pytest

from domain import match
from domain.errors import InvalidSetup
from domain.games import ninestax
from domain.games.ninestax import card
from domain.rng import Rng
from tests.support.games import given, random_match, rejected, when

FD, CS = card(None, "free_discard"), card(None, "color_shift")


def red(face):
    return card("red", str(face))


def blue(face):
    return card("blue", str(face))


def green(face):
    return card("green", str(face))


def purple(face):
    return card("purple", str(face))


FILLER = [purple(9)] * 20  # a draw pile that is not the point of the test


def table(*seats, draw=None, discard=None, lead=None, **fields):
    """A table with these stacks per seat (seat 0 to act, everyone holding stack #1), then any changes."""
    state = given(ninestax, {"type": "dealt", "data": {"stacks": [list(s) for s in seats],
                                                       "draw_pile": FILLER if draw is None else draw,
                                                       "max_turns": 600}})
    pile = discard if discard is not None else ([lead] if lead else [])
    return {**state, "discard_pile": pile, "lead": lead, **fields}


def act(state, seat, move):
    """The events a move decides and the state after them."""
    events = when(ninestax, state, seat, move)
    for event in events:
        state = ninestax.evolve(state, event)
    return events, state


def kinds(events):
    return [e["type"] for e in events]


def all_cards(state):
    cards = state["draw_pile"] + state["discard_pile"] + [c for own in state["stacks"] for s in own for c in s]
    pending = state["pending"]
    return cards + ([pending["card"]] if pending and pending["kind"] == "drawn" else [])


def counted(cards):
    return Counter((c["colour"], c["face"]) for c in cards)


# --- components and the deal ------------------------------------------------------------------------
def test_the_deck_has_200_cards_in_the_stated_mix():
    deck = counted(ninestax.build_deck())
    assert sum(deck.values()) == 200
    for colour in ninestax.COLOURS:
        assert all(deck[(colour, str(n))] == 3 for n in range(1, 10))
        actions = ("attack", "swap", "discard", "reverse", "peek", "reveal")
        assert [deck[(colour, a)] for a in actions] == [4, 3, 4, 2, 2, 2]
    assert deck[(None, "color_shift")] == 12 and deck[(None, "free_discard")] == 12


@pytest.mark.parametrize("players,pile", [(2, 128), (3, 92), (4, 56)])
def test_the_deal_gives_every_seat_nine_stacks_of_four_and_keeps_the_rest_as_the_draw_pile(players, pile):
    [event] = ninestax.deal(ninestax.options({}, players), players, Rng.derive("s", "deal"))
    state = ninestax.evolve(None, event)
    assert [[len(s) for s in own] for own in state["stacks"]] == [[4] * 9] * players
    assert len(state["draw_pile"]) == pile and state["discard_pile"] == []
    assert state["held"] == [0] * players and state["turn"] == 0 and state["direction"] == 1
    assert state["lead"] is None and state["immunity"] == [True] * players
    assert counted(all_cards(state)) == counted(ninestax.build_deck())


@pytest.mark.parametrize("raw,players,reason", [({}, 1, "invalid_player_count"), ({}, 5, "invalid_player_count"),
                                                ({"max_turns": 0}, 2, "invalid_option"),
                                                ({"max_turns": "9"}, 2, "invalid_option"),
                                                ({"jokers": True}, 2, "unknown_option")])
def test_bad_setups_are_refused(raw, players, reason):
    with pytest.raises(InvalidSetup) as refusal:
        ninestax.options(raw, players)
    assert refusal.value.reason == reason


# --- playing a card ---------------------------------------------------------------------------------
def test_the_first_player_may_play_any_card_of_stack_one_or_draw():
    state = table([[red(1), blue("swap"), green(5), FD], [red(2)]], [[blue(3)]])
    assert ninestax.legal_moves(state, 0) == [{"action": "play", "card": i} for i in range(4)] + [{"action": "draw"}]
    assert ninestax.legal_moves(state, 1) == []


def test_a_play_must_match_the_leads_colour_or_face_and_wilds_match_anything():
    state = table([[red(1), blue(7), green(5), FD, CS], [red(2)]], [[blue(3)]], lead=green(7))
    plays = [{"action": "play", "card": i} for i in (1, 2, 3, 4)]
    assert ninestax.legal_moves(state, 0) == plays + [{"action": "draw"}]
    assert rejected(ninestax, state, 0, {"action": "play", "card": 0}) == "card_not_playable"


def test_a_number_card_moves_every_seat_that_has_that_stack_and_the_others_stay():
    state = table([[red(3), red(8)], [red(1)], [red(1)], [red(1)]],
                  [[blue(1)], [blue(1)], [blue(1)]], [[green(1)], [green(1)]], lead=red(5))
    state = {**state, "held": [0, 1, 1]}
    events, after = act(state, 0, {"action": "play", "card": 0})
    assert events == [{"type": "card_played", "data": {"seat": 0, "index": 0, "card": red(3)}}]
    assert after["held"] == [2, 2, 1]  # seat 2 has no stack #3 and stays on its stack #2
    assert after["lead"] == red(3) and after["turn"] == 1 and after["discard_pile"][-1] == red(3)


def test_an_emptied_stack_goes_the_higher_ones_move_down_and_the_owner_restarts_on_stack_one():
    state = table([[red(1)], [red("reverse")], [red(3)], [red(4)]], [[blue(1)]], lead=red("attack"))
    state = {**state, "held": [1, 0]}
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["stacks"][0] == [[red(1)], [red(3)], [red(4)]] and after["held"][0] == 0
    assert after["turn"] == 1


def test_a_number_card_that_empties_its_stack_switches_after_the_renumbering():
    state = table([[blue(1)], [red(2)], [green(3)], [purple(4)]], [[blue(1)], [blue(2)]], lead=red(5))
    state = {**state, "held": [1, 0]}
    _, after = act(state, 0, {"action": "play", "card": 0})  # the red 2 empties stack #2
    assert after["stacks"][0] == [[blue(1)], [green(3)], [purple(4)]]
    assert after["held"] == [1, 1]  # both seats move to stack #2, for seat 0 the former stack #3


def test_reverse_flips_the_direction_of_play():
    state = table([[red("reverse"), red(1)]], [[blue(1)]], [[green(1)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["direction"] == -1 and after["turn"] == 2
    _, after = act(after, 2, {"action": "draw"})
    _, after = act(after, 2, {"action": "keep"})
    assert after["turn"] == 1


def test_with_two_players_reverse_only_flips_the_disc():
    state = table([[red("reverse"), red(1)]], [[blue(1)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["direction"] == -1 and after["turn"] == 1
    _, after = act(after, 1, {"action": "draw"})
    _, after = act(after, 1, {"action": "keep"})
    assert after["turn"] == 0


def test_discard_puts_the_whole_held_stack_under_it_and_its_owner_restarts_on_stack_one():
    state = table([[red(1)], [blue(2), red("discard"), green(3)], [red(4)]], [[blue(1)]], lead=red(5),
                  held=[1, 0])
    events, after = act(state, 0, {"action": "play", "card": 1})
    assert kinds(events) == ["card_played"]
    assert after["stacks"][0] == [[red(1)], [red(4)]] and after["held"][0] == 0
    assert after["discard_pile"] == [red(5), blue(2), green(3), red("discard")]
    assert after["lead"] == red("discard") and after["turn"] == 1


def test_an_action_card_that_empties_its_stack_acts_after_the_restart_so_a_last_discard_discards_stack_one():
    state = table([[red(1), blue(1)], [red("discard")], [red(4)]], [[blue(1)]], lead=red(5), held=[1, 0])
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["stacks"][0] == [[red(4)]] and after["held"][0] == 0
    assert after["discard_pile"] == [red(5), red(1), blue(1), red("discard")]


def test_free_discard_is_played_on_anything_and_discards_the_stack_named_next():
    state = table([[red(1)], [FD, green(3)], [blue(7), blue(8)], [red(4)]], [[blue(1)]], lead=purple("peek"),
                  held=[1, 0])
    events, after = act(state, 0, {"action": "play", "card": 0})
    assert after["pending"] == {"kind": "choose", "seat": 0, "face": "free_discard"} and ninestax.to_act(after) == [0]
    assert ninestax.legal_moves(after, 0) == [{"action": "free_discard", "stack": i} for i in range(4)]
    events, after = act(after, 0, {"action": "free_discard", "stack": 2})
    assert events == [{"type": "stack_discarded", "data": {"seat": 0, "stack": 2, "count": 2}}]
    assert after["stacks"][0] == [[red(1)], [green(3)], [red(4)]] and after["held"][0] == 1
    assert after["discard_pile"] == [purple("peek"), blue(7), blue(8), FD]
    assert after["lead"] is None and after["turn"] == 1  # the next seat may play any card
    assert ninestax.legal_moves(after, 1) == [{"action": "play", "card": 0}, {"action": "draw"}]


def test_a_free_discard_that_empties_its_stack_names_a_stack_of_the_renumbered_table():
    state = table([[red(1)], [FD], [blue(7), blue(8)]], [[blue(1)]], lead=red(5), held=[1, 0])
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["stacks"][0] == [[red(1)], [blue(7), blue(8)]] and after["held"][0] == 0
    assert ninestax.legal_moves(after, 0) == [{"action": "free_discard", "stack": i} for i in range(2)]
    _, after = act(after, 0, {"action": "free_discard", "stack": 1})
    assert after["stacks"][0] == [[red(1)]]


def test_an_attack_that_empties_its_stack_restarts_its_owner_before_the_target_is_named():
    state = table([[red(1)], [red("attack")]], [[blue(1)]], lead=red(5), held=[1, 0], immunity=[False, False])
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["stacks"][0] == [[red(1)]] and after["held"][0] == 0 and ninestax.to_act(after) == [0]
    _, after = act(after, 0, {"action": "attack", "target": 1})
    _, after = act(after, 1, {"action": "keep"})
    assert len(after["stacks"][1]) == 2 and after["turn"] == 0


def test_free_discard_of_a_lower_stack_keeps_the_held_stack_which_moves_down():
    state = table([[red(1)], [blue(2)], [FD, green(3)]], [[blue(1)]], lead=red(5), held=[2, 0])
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "free_discard", "stack": 0})
    assert after["stacks"][0] == [[blue(2)], [green(3)]] and after["held"][0] == 1


def test_free_discard_of_the_held_stack_restarts_its_owner_on_stack_one():
    state = table([[red(1)], [blue(2)], [FD, green(3)]], [[blue(1)]], lead=red(5), held=[2, 0])
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "free_discard", "stack": 2})
    assert after["stacks"][0] == [[red(1)], [blue(2)]] and after["held"][0] == 0


def test_color_shift_is_wild_and_the_same_player_must_play_any_card_of_its_held_stack_next():
    state = table([[CS, blue(5), green("reverse")], [red(1)]], [[red(2)]], [[red(3)]], lead=red(7))
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["pending"] == {"kind": "shift", "seat": 0} and ninestax.to_act(after) == [0]
    assert ninestax.legal_moves(after, 0) == [{"action": "play", "card": 0}, {"action": "play", "card": 1}]
    assert rejected(ninestax, after, 0, {"action": "draw"}) == "unexpected_action"
    _, after = act(after, 0, {"action": "play", "card": 0})  # the blue 5 sets blue, and it is a number
    assert after["lead"] == blue(5) and after["turn"] == 1 and after["pending"] is None


def test_color_shifts_can_be_chained_before_the_card_that_sets_the_colour():
    state = table([[CS, CS, green("reverse"), red(1)]], [[red(2)]], [[red(3)]], lead=blue(7))
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "play", "card": 0})
    assert after["pending"] == {"kind": "shift", "seat": 0}
    _, after = act(after, 0, {"action": "play", "card": 0})
    assert after["lead"] == green("reverse") and after["direction"] == -1 and after["turn"] == 2


def test_a_number_card_after_a_color_shift_still_switches_stacks():
    state = table([[CS, purple(2), blue(1)], [red(1)]], [[red(2)], [red(9)]], lead=blue(7))
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "play", "card": 0})
    assert after["held"] == [1, 1] and after["lead"] == purple(2)


# --- Attack -----------------------------------------------------------------------------------------
def test_attack_makes_the_target_draw_and_an_unplayable_card_kept_becomes_its_new_highest_stack():
    state = table([[red("attack"), red(1)]], [[blue(1)], [blue(2)]], [[green(1)]], [[purple(1)]],
                  draw=[green(4), blue(9)], lead=red(5), immunity=[True, True, False, True])
    state = {**state, "held": [0, 1, 0, 0]}
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["pending"]["kind"] == "choose" and ninestax.legal_moves(after, 0) == [
        {"action": "attack", "target": t} for t in (1, 2, 3)]
    events, after = act(after, 0, {"action": "attack", "target": 2})  # seat 2 has no tile: no window
    assert events == [{"type": "attack_declared", "data": {"seat": 0, "target": 2}},
                      {"type": "card_drawn", "data": {"seat": 2, "card": green(4), "reason": "attack"}}]
    assert ninestax.to_act(after) == [2] and ninestax.legal_moves(after, 2) == [{"action": "keep"}]
    assert rejected(ninestax, after, 2, {"action": "play_drawn"}) == "card_not_playable"
    _, after = act(after, 2, {"action": "keep"})
    assert after["stacks"][2] == [[green(1)], [green(4)]] and after["held"][2] == 0
    assert after["turn"] == 3  # play resumes from the target: seat 1 is passed over
    assert ninestax.redact(events[1], 1)["data"]["card"] is None
    assert ninestax.redact(events[1], 2)["data"]["card"] == green(4)


def test_an_attacked_seat_keeps_holding_its_stack_and_may_play_a_drawn_card_that_matches():
    state = table([[red("attack"), red(1)]], [[blue(1)], [blue(2)]], [[green(1)]],
                  draw=[red(6)], lead=red(5), immunity=[True, False, True], held=[0, 1, 0])
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "attack", "target": 1})
    assert after["pending"] == {"kind": "drawn", "seat": 1, "card": red(6), "reason": "attack"}
    assert ninestax.to_act(after) == [1]
    assert ninestax.legal_moves(after, 1) == [{"action": "play_drawn"}, {"action": "keep"}]
    events, played = act(after, 1, {"action": "play_drawn"})
    assert events == [{"type": "card_played", "data": {"seat": 1, "index": None, "card": red(6)}}]
    assert played["stacks"][1] == [[blue(1)], [blue(2)]] and played["lead"] == red(6) and played["turn"] == 2
    _, kept = act(after, 1, {"action": "keep"})
    assert kept["stacks"][1] == [[blue(1)], [blue(2)], [red(6)]] and kept["held"][1] == 1 and kept["turn"] == 2


def test_an_attacked_seat_with_its_tile_answers_first_and_immunity_cancels_the_draw_but_not_its_turn():
    state = table([[red("attack"), red(1)]], [[blue(1)]], [[green(1)]], draw=[green(4)], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    events, window = act(after, 0, {"action": "attack", "target": 2})
    assert kinds(events) == ["attack_declared"] and ninestax.to_act(window) == [2]
    assert window["pending"] == {"kind": "effect", "effect": "attack", "seat": 0, "target": 2, "waiting": [2],
                                 "immune": []}
    assert ninestax.legal_moves(window, 2) == [{"action": "immunity"}, {"action": "accept"}]
    events, immune = act(window, 2, {"action": "immunity"})
    assert kinds(events) == ["immunity_used"]
    assert immune["immunity"] == [True, True, False] and immune["stacks"][2] == [[green(1)]]
    assert immune["turn"] == 2 and ninestax.to_act(immune) == [2] and immune["lead"] == red("attack")
    events, accepted = act(window, 2, {"action": "accept"})
    assert kinds(events) == ["immunity_declined", "card_drawn"]
    _, accepted = act(accepted, 2, {"action": "keep"})
    assert accepted["stacks"][2] == [[green(1)], [green(4)]]


def test_the_immunity_tile_works_once_per_game_and_a_seat_without_it_gets_no_window():
    state = table([[red("attack"), red("attack"), red(1)]], [[blue(1)]], [[green(1)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "attack", "target": 1})
    _, after = act(after, 1, {"action": "immunity"})
    assert after["immunity"] == [True, False, True] and after["turn"] == 1
    after = {**after, "turn": 0}
    _, after = act(after, 0, {"action": "play", "card": 0})
    events, after = act(after, 0, {"action": "attack", "target": 1})
    assert kinds(events) == ["attack_declared", "card_drawn"]
    _, after = act(after, 1, {"action": "keep"})
    assert len(after["stacks"][1]) == 2


def test_an_attack_with_nothing_left_to_draw_has_no_effect():
    state = table([[red("attack"), red(1)]], [[blue(1)]], [[green(1)]], draw=[], lead=red(5),
                  discard=[], immunity=[True, False, False])
    _, after = act(state, 0, {"action": "play", "card": 0})
    events, after = act(after, 0, {"action": "attack", "target": 1})
    assert kinds(events) == ["attack_declared", "nothing_to_draw"]
    assert after["stacks"][1] == [[blue(1)]] and after["turn"] == 2


def test_an_attack_chain_drawn_attack_played_at_once_hits_the_next_target():
    state = table([[red("attack"), red(1)]], [[blue(1)]], [[green(1)]], draw=[blue("attack"), green(8)],
                  lead=red(5), immunity=[False, False, False])
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "attack", "target": 1})
    _, after = act(after, 1, {"action": "play_drawn"})
    assert after["pending"] == {"kind": "choose", "seat": 1, "face": "attack"}
    _, after = act(after, 1, {"action": "attack", "target": 0})
    _, after = act(after, 0, {"action": "keep"})
    assert after["stacks"][0] == [[red(1)], [green(8)]] and after["turn"] == 1


# --- Swap -------------------------------------------------------------------------------------------
def test_swap_exchanges_any_two_stacks_and_a_seat_whose_held_stack_moves_holds_the_one_that_arrives():
    state = table([[red("swap"), red(1)], [red(2), red(3), red(4)]], [[blue(1)], [blue(2)]], lead=red(5),
                  immunity=[True, False])
    _, after = act(state, 0, {"action": "play", "card": 0})
    moves = ninestax.legal_moves(after, 0)
    assert len(moves) == 6  # every pair of the 4 stacks on the table, once
    events, after = act(after, 0, {"action": "swap", "first_seat": 0, "first_stack": 1, "second_seat": 1,
                                   "second_stack": 0})
    assert kinds(events) == ["swap_declared", "stacks_swapped"]
    assert after["stacks"] == [[[red(1)], [blue(1)]], [[red(2), red(3), red(4)], [blue(2)]]]
    assert after["held"] == [0, 0] and after["turn"] == 1  # seat 1 now holds the stack that arrived


def test_a_swap_named_in_the_other_order_is_the_same_swap():
    state = table([[red("swap"), red(1)], [red(2)]], [[blue(1)], [blue(2)]], lead=red(5), immunity=[False, False])
    _, after = act(state, 0, {"action": "play", "card": 0})
    one = {"action": "swap", "first_seat": 0, "first_stack": 1, "second_seat": 1, "second_stack": 0}
    other = {"action": "swap", "first_seat": 1, "first_stack": 0, "second_seat": 0, "second_stack": 1}
    assert one in ninestax.legal_moves(after, 0) and other not in ninestax.legal_moves(after, 0)
    assert act(after, 0, one)[1]["stacks"] == act(after, 0, other)[1]["stacks"]


def test_swapping_two_stacks_of_two_other_seats_asks_both_at_once_and_either_immunity_cancels_it():
    state = table([[red("swap"), red(1)]], [[blue(1)], [blue(2)]], [[green(1), green(2)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    swap = {"action": "swap", "first_seat": 1, "first_stack": 1, "second_seat": 2, "second_stack": 0}
    _, window = act(after, 0, swap)
    assert ninestax.to_act(window) == [1, 2] and window["pending"]["waiting"] == [1, 2]
    events, half = act(window, 2, {"action": "accept"})
    assert kinds(events) == ["immunity_declined"] and ninestax.to_act(half) == [1]
    events, done = act(half, 1, {"action": "accept"})
    assert kinds(events) == ["immunity_declined", "stacks_swapped"]
    assert done["stacks"][1] == [[blue(1)], [green(1), green(2)]] and done["stacks"][2] == [[blue(2)]]
    events, blocked = act(window, 1, {"action": "immunity"})
    assert kinds(events) == ["immunity_used"] and blocked["stacks"] == window["stacks"]
    assert blocked["turn"] == 1 and blocked["pending"] is None and blocked["immunity"] == [True, False, True]


def test_a_seat_swapping_two_of_its_own_stacks_gets_no_window_and_holds_the_arriving_stack():
    state = table([[red("swap"), red(1)], [red(2), red(3)]], [[blue(1)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    events, after = act(after, 0, {"action": "swap", "first_seat": 0, "first_stack": 0, "second_seat": 0,
                                   "second_stack": 1})
    assert kinds(events) == ["swap_declared", "stacks_swapped"]
    assert after["stacks"][0] == [[red(2), red(3)], [red(1)]] and after["held"][0] == 0


# --- Peek -------------------------------------------------------------------------------------------
def test_peek_shows_the_stack_to_the_peeker_only_and_an_exchange_is_optional():
    state = table([[red("peek"), red(1), blue(4)]], [[blue(1)], [FD, green(6)]], [[green(1)]], lead=red(5),
                  immunity=[True, False, True])
    _, after = act(state, 0, {"action": "play", "card": 0})
    events, after = act(after, 0, {"action": "peek", "target": 1, "stack": 1})
    assert kinds(events) == ["peek_declared", "stack_peeked"]
    assert ninestax.redact(events[1], 0)["data"]["cards"] == [FD, green(6)]
    assert ninestax.redact(events[1], 1)["data"]["cards"] == [None, None]
    assert ninestax.redact(events[1], None)["data"]["cards"] == [None, None]
    assert ninestax.view(after, 0)["stacks"][1][1] == [FD, green(6)]
    assert ninestax.view(after, 2)["stacks"][1][1] == [None, None]
    moves = ninestax.legal_moves(after, 0)
    assert len(moves) == 2 * 2 + 1 and moves[-1] == {"action": "end_peek"}
    events, swapped = act(after, 0, {"action": "exchange", "card": 0, "own_card": 1})
    assert swapped["stacks"][0] == [[red(1), FD]] and swapped["stacks"][1] == [[blue(1)], [blue(4), green(6)]]
    assert ninestax.redact(events[0], 1)["data"]["taken"] is None and swapped["turn"] == 1
    assert ninestax.view(swapped, 0)["stacks"][1][1] == [None, None]  # handed back
    _, ended = act(after, 0, {"action": "end_peek"})
    assert ended["stacks"] == after["stacks"] and ended["turn"] == 1


def test_immunity_against_a_peek_keeps_the_stack_unseen():
    state = table([[red("peek"), red(1)]], [[blue(1)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, window = act(after, 0, {"action": "peek", "target": 1, "stack": 0})
    assert ninestax.to_act(window) == [1]
    events, after = act(window, 1, {"action": "immunity"})
    assert kinds(events) == ["immunity_used"] and after["turn"] == 1 and after["pending"] is None
    assert ninestax.view(after, 0)["stacks"][1] == [[None]]


# --- Reveal -----------------------------------------------------------------------------------------
def reveal_table(**fields):
    return table([[red("reveal"), red("reveal"), red(1)], [red(2)]], [[blue(1)], [blue(2), blue(3)]],
                 [[green(1)], [green(2)]], [[purple(1)]], lead=red(5), **fields)


def test_reveal_turns_every_opponents_stack_at_that_position_face_up_except_the_revealers():
    state = reveal_table(immunity=[False] * 4)
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert ninestax.legal_moves(after, 0) == [{"action": "reveal", "stack": 0}, {"action": "reveal", "stack": 1}]
    events, after = act(after, 0, {"action": "reveal", "stack": 1})
    assert kinds(events) == ["reveal_declared", "stack_revealed"]
    assert after["reveal"] == {"stack": 1, "revealer": 0, "immune": []} and after["turn"] == 1
    for seat in (None, 0, 1, 2, 3):
        seen = ninestax.view(after, seat)["stacks"]
        assert seen[1][1] == [blue(2), blue(3)] and seen[2][1] == [green(2)]
        assert seen[0][1] == [None]  # the revealer's own stack #2 stays face down


def test_revealing_the_same_position_again_moves_the_exemption_to_the_new_revealer():
    state = reveal_table(immunity=[False] * 4, reveal={"stack": 1, "revealer": 1, "immune": []})
    seen = ninestax.view(state, 3)["stacks"]
    assert seen[0][1] == [red(2)] and seen[1][1] == [None, None]
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "reveal", "stack": 1})
    assert ninestax.view(after, 3)["stacks"][0][1] == [None]
    assert ninestax.view(after, 3)["stacks"][1][1] == [blue(2), blue(3)]


def test_every_seat_hit_by_a_reveal_answers_at_once_and_an_immune_seat_stays_hidden_until_the_next_reveal():
    state = reveal_table(immunity=[True, True, True, False])
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, window = act(after, 0, {"action": "reveal", "stack": 1})
    assert ninestax.to_act(window) == [1, 2]  # seat 3 has no stack #2, and no tile anyway
    _, after = act(window, 2, {"action": "immunity"})
    assert ninestax.to_act(after) == [1] and after["reveal"] is None
    events, after = act(after, 1, {"action": "accept"})
    assert kinds(events) == ["immunity_declined", "stack_revealed"]
    assert after["reveal"] == {"stack": 1, "revealer": 0, "immune": [2]}
    assert ninestax.view(after, 3)["stacks"][1][1] == [blue(2), blue(3)]
    assert ninestax.view(after, 3)["stacks"][2][1] == [None]


def test_the_stack_that_moves_down_into_the_revealed_position_is_revealed():
    state = table([[red(1)], [red(2)], [red(3), red(4)]], [[blue(1)]], lead=red(5), held=[1, 0],
                  reveal={"stack": 1, "revealer": 1, "immune": []})
    assert ninestax.view(state, 1)["stacks"][0][1] == [red(2)]
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert ninestax.view(after, 1)["stacks"][0][1] == [red(3), red(4)]


def test_a_revealed_stack_that_its_owner_holds_stays_face_up_for_everyone():
    state = table([[red(1)], [red(2), red(3)]], [[blue(1)], [blue(2)]], lead=red(5), held=[1, 0],
                  reveal={"stack": 1, "revealer": 1, "immune": []})
    assert ninestax.view(state, 1)["stacks"][0] == [[None], [red(2), red(3)]]
    assert ninestax.view(state, None)["stacks"][0] == [[None], [red(2), red(3)]]
    assert ninestax.view(state, 0)["stacks"][1] == [[None], [None]]  # the revealer's own stack stays down


def test_a_swap_moves_a_stack_into_or_out_of_the_revealed_position():
    state = table([[red("swap"), red(1)], [red(2)]], [[blue(1)], [blue(2)]], lead=red(5), immunity=[False, False],
                  reveal={"stack": 1, "revealer": 0, "immune": []})
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "swap", "first_seat": 1, "first_stack": 0, "second_seat": 1,
                              "second_stack": 1})
    assert ninestax.view(after, 0)["stacks"][1] == [[None], [blue(1)]]


# --- drawing ----------------------------------------------------------------------------------------
def test_drawing_is_always_allowed_and_an_unplayable_card_can_only_be_kept_in_the_held_stack():
    state = table([[red(1), blue(2)]], [[blue(1)]], draw=[green(4), red(9)], lead=red(5))
    assert {"action": "draw"} in ninestax.legal_moves(state, 0)
    events, after = act(state, 0, {"action": "draw"})
    assert events == [{"type": "card_drawn", "data": {"seat": 0, "card": green(4), "reason": "draw"}}]
    assert after["pending"] == {"kind": "drawn", "seat": 0, "card": green(4), "reason": "draw"}
    assert ninestax.legal_moves(after, 0) == [{"action": "keep"}]
    assert rejected(ninestax, after, 0, {"action": "play_drawn"}) == "card_not_playable"
    events, after = act(after, 0, {"action": "keep"})
    assert events == [{"type": "drawn_card_kept", "data": {"seat": 0}}]
    assert after["stacks"][0] == [[red(1), blue(2), green(4)]] and after["turn"] == 1
    assert after["draw_pile"] == [red(9)]


def test_a_drawn_card_that_matches_may_be_played_at_once_or_kept():
    state = table([[blue(2)]], [[blue(1)]], draw=[red(9)], lead=red(5))
    _, after = act(state, 0, {"action": "draw"})
    assert after["pending"] == {"kind": "drawn", "seat": 0, "card": red(9), "reason": "draw"}
    assert ninestax.view(after, 1)["pending"]["card"] is None and ninestax.view(after, 0)["pending"]["card"] == red(9)
    _, played = act(after, 0, {"action": "play_drawn"})
    assert played["lead"] == red(9) and played["stacks"][0] == [[blue(2)]] and played["turn"] == 1
    _, kept = act(after, 0, {"action": "keep"})
    assert kept["stacks"][0] == [[blue(2), red(9)]] and kept["turn"] == 1


@pytest.mark.parametrize("reason", ["draw", "attack"])
def test_whether_a_drawn_card_matches_shows_in_nothing_the_other_seats_see(reason):
    def drawn(top):
        state = table([[red("attack"), blue(2)]], [[blue(1)]], [[green(1)]], draw=[top], lead=red(5),
                      immunity=[False, False, False])
        if reason == "attack":
            _, state = act(state, 0, {"action": "play", "card": 0})
            return act(state, 0, {"action": "attack", "target": 1})
        return act({**state, "turn": 1}, 1, {"action": "draw"})

    (matching_events, matching), (other_events, other) = drawn(red(9)), drawn(green(4))
    assert ninestax.legal_moves(matching, 1) == [{"action": "play_drawn"}, {"action": "keep"}]
    assert ninestax.legal_moves(other, 1) == [{"action": "keep"}]
    for seat in (0, 2, None):
        assert [ninestax.redact(e, seat) for e in matching_events] == [ninestax.redact(e, seat) for e in other_events]
        assert ninestax.view(matching, seat) == ninestax.view(other, seat)
    assert ninestax.to_act(matching) == ninestax.to_act(other) == [1]


def test_an_empty_draw_pile_is_rebuilt_from_the_discard_pile_but_its_top():
    state = table([[blue(2)]], [[blue(1)]], draw=[], discard=[green(1), green(2), red(5)], lead=red(5))
    events, after = act(state, 0, {"action": "draw"})
    assert kinds(events) == ["reshuffled", "card_drawn"]
    assert counted(events[0]["data"]["draw_pile"]) == counted([green(1), green(2)])
    assert ninestax.redact(events[0], 0)["data"]["draw_pile"] == [None, None]
    assert after["discard_pile"] == [red(5)] and len(after["draw_pile"]) == 1
    assert counted(all_cards(after)) == counted(all_cards(state))


def test_a_seat_that_can_neither_play_nor_draw_passes_and_only_then():
    state = table([[blue(2)]], [[blue(1)]], draw=[], discard=[red(5)], lead=red(5))
    assert ninestax.legal_moves(state, 0) == [{"action": "pass"}]
    assert rejected(ninestax, state, 0, {"action": "draw"}) == "nothing_to_draw"
    events, after = act(state, 0, {"action": "pass"})
    assert events == [{"type": "passed", "data": {"seat": 0}}] and after["turn"] == 1
    assert rejected(ninestax, table([[red(2)]], [[blue(1)]], lead=red(5)), 0, {"action": "pass"}) == "cannot_pass"


# --- the end ----------------------------------------------------------------------------------------
def test_the_first_seat_without_cards_wins_even_with_an_action_card():
    state = table([[red("attack")]], [[blue(1)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert after["stacks"][0] == [] and ninestax.to_act(after) == []
    assert ninestax.outcome(after) == {"winners": [0], "scores": {"0": 0, "1": 1}}
    assert rejected(ninestax, after, 1, {"action": "draw"}) == "game_over"


def test_a_discard_or_free_discard_of_the_last_stack_wins():
    state = table([[red("discard"), red(1)]], [[blue(1)]], lead=red(5))
    assert ninestax.outcome(act(state, 0, {"action": "play", "card": 0})[1])["winners"] == [0]
    state = table([[FD], [red(1), red(2)]], [[blue(1)]], lead=red(5))
    _, after = act(state, 0, {"action": "play", "card": 0})
    _, after = act(after, 0, {"action": "free_discard", "stack": 0})
    assert ninestax.outcome(after)["winners"] == [0]


def test_after_the_turn_limit_the_fewest_cards_win_and_a_tie_is_shared():
    state = table([[red(1), red(2)]], [[blue(1)]], [[green(1)]], draw=[green(9)], lead=red(5), turns=599)
    _, after = act(state, 0, {"action": "play", "card": 0})
    assert ninestax.outcome(after) == {"winners": [0, 1, 2], "scores": {"0": 1, "1": 1, "2": 1}}
    _, after = act(state, 0, {"action": "draw"})
    _, after = act(after, 0, {"action": "keep"})
    assert ninestax.outcome(after)["winners"] == [1, 2] and ninestax.to_act(after) == []


# --- refusals ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("seat,move,reason", [
    (1, {"action": "draw"}, "not_your_turn"),
    (0, {"action": "play"}, "malformed_move"),
    (0, {"action": "play", "card": "0"}, "malformed_move"),
    (0, {"action": "draw", "card": 0}, "malformed_move"),
    (0, ["draw"], "malformed_move"),
    (0, {"action": "cheat"}, "unknown_action"),
    (0, {"action": "play", "card": 7}, "no_such_card"),
    (0, {"action": "play", "card": 1}, "card_not_playable"),
    (0, {"action": "keep"}, "unexpected_action"),
    (0, {"action": "attack", "target": 1}, "unexpected_action"),
    (0, {"action": "immunity"}, "unexpected_action"),
])
def test_moves_that_break_the_rules_are_refused_with_a_reason(seat, move, reason):
    state = table([[red("attack"), blue(3)]], [[blue(1)]], lead=red(5))
    assert rejected(ninestax, state, seat, move) == reason


@pytest.mark.parametrize("face,move", [
    ("attack", {"action": "attack", "target": 0}),
    ("attack", {"action": "attack", "target": 3}),
    ("peek", {"action": "peek", "target": 0, "stack": 0}),
    ("peek", {"action": "peek", "target": 1, "stack": 2}),
    ("reveal", {"action": "reveal", "stack": 2}),
    ("free_discard", {"action": "free_discard", "stack": 1}),
    ("swap", {"action": "swap", "first_seat": 0, "first_stack": 0, "second_seat": 0, "second_stack": 0}),
    ("swap", {"action": "swap", "first_seat": 0, "first_stack": 0, "second_seat": 4, "second_stack": 0}),
])
def test_targets_off_the_table_are_refused(face, move):
    state = table([[red(1)]], [[blue(1)], [blue(2)]], [[green(1)]], lead=red(5),
                  pending={"kind": "choose", "seat": 0, "face": face})
    assert rejected(ninestax, state, 0, move) == "invalid_target"
    assert rejected(ninestax, state, 0, {"action": "draw"}) == "unexpected_action"


def test_an_exchange_of_cards_that_are_not_there_is_refused():
    state = table([[red(1)]], [[blue(1)], [blue(2)]], lead=red(5),
                  pending={"kind": "peek", "seat": 0, "target": 1, "stack": 1})
    assert rejected(ninestax, state, 0, {"action": "exchange", "card": 1, "own_card": 0}) == "no_such_card"
    assert rejected(ninestax, state, 1, {"action": "end_peek"}) == "not_your_turn"


def test_a_seat_outside_a_window_cannot_answer_it():
    state = table([[red(1)]], [[blue(1)]], [[green(1)]], lead=red(5),
                  pending={"kind": "effect", "effect": "attack", "seat": 0, "target": 2, "waiting": [2],
                           "immune": []})
    assert rejected(ninestax, state, 1, {"action": "immunity"}) == "not_your_turn"
    assert rejected(ninestax, state, 0, {"action": "accept"}) == "not_your_turn"


# --- views and redaction ----------------------------------------------------------------------------
def test_a_seat_sees_its_held_stack_and_public_counts_only():
    state = table([[red(1), red(2)], [blue(3)]], [[blue(1)], [green(2), green(3), green(4)]],
                  draw=[red(9)] * 5, discard=[green(5), red(5)], lead=red(5), held=[0, 1])
    seen = ninestax.view(state, 1)
    assert seen["stacks"] == [[[None, None], [None]], [[None], [green(2), green(3), green(4)]]]
    assert seen["cards_left"] == [3, 4] and seen["draw_pile"] == 5
    assert seen["discard_pile"] == {"count": 2, "top": red(5)} and seen["lead"] == red(5)
    assert ninestax.view(state, None)["stacks"] == [[[None, None], [None]], [[None], [None, None, None]]]


def test_a_redacted_deal_shows_each_seat_its_stack_one_only():
    event = {"type": "dealt", "data": {"stacks": [[[red(1)], [red(2)]], [[blue(1)], [blue(2)]]],
                                       "draw_pile": [green(1)], "max_turns": 600}}
    assert ninestax.redact(event, 1)["data"]["stacks"] == [[[None], [None]], [[blue(1)], [None]]]
    assert ninestax.redact(event, None)["data"]["stacks"] == [[[None], [None]], [[None], [None]]]
    assert ninestax.redact(event, 0)["data"]["draw_pile"] == [None]


# --- random matches ---------------------------------------------------------------------------------
def may_see(state, seat):
    """From the rules, independently of the module: {(owner, position): cards} a seat may see now."""
    seen, reveal, pending = {}, state["reveal"], state["pending"]
    for owner, own in enumerate(state["stacks"]):
        for position, stack in enumerate(own):
            held = seat == owner and state["held"][owner] == position
            revealed = (reveal is not None and position == reveal["stack"] and owner != reveal["revealer"]
                        and owner not in reveal["immune"])
            peeked = (pending is not None and pending["kind"] == "peek" and pending["seat"] == seat
                      and pending["target"] == owner and pending["stack"] == position)
            if held or revealed or peeked:
                seen[(owner, position)] = stack
    return seen


def visible_cards(state, seat):
    """Every card the seat may see now: the stacks above, the discard pile's top, its own drawn card."""
    cards = [c for stack in may_see(state, seat).values() for c in stack] + state["discard_pile"][-1:]
    pending = state["pending"]
    if pending is not None and pending["kind"] == "drawn" and pending["seat"] == seat:
        cards.append(pending["card"])
    return cards


def cards_in(value):
    """Every card (a dict with a face) anywhere in a JSON value."""
    if isinstance(value, dict):
        return [value] if set(value) == {"colour", "face"} else [c for v in value.values() for c in cards_in(v)]
    if isinstance(value, list):
        return [c for v in value for c in cards_in(v)]
    return []


def check_view(state, seat):
    seen, shown = may_see(state, seat), ninestax.view(state, seat)
    for owner, own in enumerate(state["stacks"]):
        for position, stack in enumerate(own):
            expected = seen.get((owner, position), [None] * len(stack))
            assert shown["stacks"][owner][position] == expected, (seat, owner, position)
    allowed = counted(visible_cards(state, seat))
    assert not counted(c for own in shown["stacks"] for s in own for c in s if c) - allowed
    assert {(c["colour"], c["face"]) for c in cards_in(shown)} <= set(allowed)


def check_event(before, event, after, seat):
    """A redacted event carries only cards the seat sees before or after it, the card just played, or the
    card it drew itself."""
    allowed = counted(visible_cards(after, seat)) + (counted(visible_cards(before, seat)) if before else Counter())
    if event["type"] == "card_played":
        allowed[(event["data"]["card"]["colour"], event["data"]["card"]["face"])] += 1
    if event["type"] == "card_drawn" and event["data"]["seat"] == seat:
        allowed[(event["data"]["card"]["colour"], event["data"]["card"]["face"])] += 1
    redacted = ninestax.redact(event, seat)
    assert not counted(cards_in(redacted)) - allowed, (seat, event, redacted)


SIZES = (2, 3, 4)
MATCH_EVENTS = ("match_created", "seat_joined", "moved", "match_finished")  # the lifecycle's own, all public


@pytest.mark.parametrize("players", SIZES)
def test_random_matches_end_conserve_all_200_cards_at_every_version_and_replay(players):
    deck, total, lengths = counted(ninestax.build_deck()), 0, []
    for seed in range(700):
        options = {"max_turns": 150} if seed % 10 == 0 else {}  # some end by the turn limit
        for state, log in random_match("9stax", players, f"property-{players}-{seed}", options):
            game = state["game_state"]
            assert sum(len(s) for own in game["stacks"] for s in own) + len(game["draw_pile"]) + len(
                game["discard_pile"]) + (game["pending"] is not None and game["pending"]["kind"] == "drawn") == 200
            if seed % 10 == 1:  # the full multiset on every version of a tenth of the matches
                assert counted(all_cards(game)) == deck
        total += 1
        lengths.append(game["turns"])
        assert state["status"] == "finished" and state["result"]["winners"]
        assert match.evolve_all(None, log) == state
        assert json.loads(json.dumps(log)) == log and json.loads(json.dumps(state)) == state
    assert total == 700 and max(lengths) <= 600


@pytest.mark.parametrize("players", SIZES)
def test_no_view_and_no_redacted_event_ever_carries_a_card_the_seat_may_not_see(players):
    seats = list(range(players)) + [None]
    for seed in range(25):
        previous = None
        for state, log in random_match("9stax", players, f"secrets-{players}-{seed}"):
            game = state["game_state"]
            if previous is None:
                new_events, before = log[-1:], None
            else:
                new_events, before = log[len(previous[1]):], previous[0]["game_state"]
            for event in new_events:
                if event["type"] in MATCH_EVENTS:
                    continue
                after = ninestax.evolve(before, event)
                for seat in seats:
                    check_event(before, event, after, seat)
                before = after
            assert before == game
            if state["status"] == "active":
                for seat in seats:
                    check_view(game, seat)
            previous = (state, log)


def test_decide_and_evolve_never_change_the_state_they_are_given():
    for players in SIZES:
        for state, log in random_match("9stax", players, f"pure-{players}"):
            pass
        game = None
        for event in [e for e in log if e["type"] not in MATCH_EVENTS]:
            frozen = json.dumps(game, sort_keys=True)
            after = ninestax.evolve(game, event)
            assert json.dumps(game, sort_keys=True) == frozen
            if ninestax.to_act(after):
                seat = ninestax.to_act(after)[0]
                frozen = json.dumps(after, sort_keys=True)
                when(ninestax, after, seat, ninestax.legal_moves(after, seat)[-1])
                assert json.dumps(after, sort_keys=True) == frozen
            game = after


def test_a_determinized_state_agrees_with_the_view_it_came_from_and_holds_the_whole_deck():
    rng = random.Random(7)
    for players in SIZES:
        for step, (state, _) in enumerate(random_match("9stax", players, f"determinize-{players}")):
            if state["status"] != "active" or step % 3:
                continue
            game = state["game_state"]
            for seat in range(players):
                sample = ninestax.determinize(ninestax.view(game, seat), seat, rng)
                assert ninestax.view(sample, seat) == ninestax.view(game, seat)
                assert counted(all_cards(sample)) == counted(ninestax.build_deck())
                assert ninestax.to_act(sample) == ninestax.to_act(game)
                assert ninestax.legal_moves(sample, seat) == ninestax.legal_moves(game, seat)


# --- the greedy bot ---------------------------------------------------------------------------------
def greedy_match(seed, greedy_seat, players=2):
    pick = random.Random(seed)
    state = None
    for event in ninestax.deal(ninestax.options({}, players), players, Rng.derive(f"g{seed}", "deal")):
        state = ninestax.evolve(state, event)
    for version in range(20000):
        if ninestax.outcome(state) is not None:
            return ninestax.outcome(state)["winners"]
        seat = pick.choice(ninestax.to_act(state))
        moves = ninestax.legal_moves(state, seat)
        move = (ninestax.greedy(ninestax.view(state, seat), seat, moves, pick) if seat == greedy_seat
                else pick.choice(moves))
        for event in ninestax.decide(state, seat, move, Rng.derive(f"g{seed}", f"move:{version}")):
            state = ninestax.evolve(state, event)
    raise AssertionError("the match did not end")


def test_greedy_beats_random_play_clearly():
    wins = sum(seed % 2 in greedy_match(seed, seed % 2) for seed in range(200))
    assert wins >= 150, wins


def greedy_choice(state, seat):
    return ninestax.greedy(ninestax.view(state, seat), seat, ninestax.legal_moves(state, seat), random.Random(1))


def test_greedy_plays_rather_than_draws_and_prefers_a_discard_of_a_big_held_stack():
    state = table([[red(1), red("discard"), blue(2), blue(3), red("reverse")]], [[blue(1)]], lead=red(5))
    assert greedy_choice(state, 0) == {"action": "play", "card": 1}


def test_greedy_weighs_a_draw_by_its_weights():
    state = table([[red(1), red("discard"), blue(2), blue(3), red("reverse")]], [[blue(1)]], lead=red(5))
    view, moves = ninestax.view(state, 0), ninestax.legal_moves(state, 0)
    worth_more_than_any_play = ninestax.GREEDY_WEIGHTS._replace(draw=10)
    assert ninestax.greedy(view, 0, moves, random.Random(1), worth_more_than_any_play) == {"action": "draw"}


def test_greedy_free_discards_its_biggest_stack_and_attacks_the_seat_with_fewest_cards():
    state = table([[red(1)], [red(2), red(3), red(4)], [red(5)]], [[blue(1)] * 5], [[green(1)]], lead=red(5),
                  pending={"kind": "choose", "seat": 0, "face": "free_discard"})
    assert greedy_choice(state, 0) == {"action": "free_discard", "stack": 1}
    state = {**state, "pending": {"kind": "choose", "seat": 0, "face": "attack"}}
    assert greedy_choice(state, 0) == {"action": "attack", "target": 2}


def test_greedy_keeps_its_immunity_for_a_swap_that_costs_many_cards_but_not_for_a_peek():
    state = table([[red(1)]], [[blue(1)] * 6], lead=red(5),
                  pending={"kind": "effect", "effect": "swap", "seat": 1, "stacks": [[0, 0], [1, 0]],
                           "waiting": [0], "immune": []})
    assert greedy_choice(state, 0) == {"action": "immunity"}
    state = {**state, "pending": {"kind": "effect", "effect": "peek", "seat": 1, "target": 0, "stack": 0,
                                  "waiting": [0], "immune": []}}
    assert greedy_choice(state, 0) == {"action": "accept"}
