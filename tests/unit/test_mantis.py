"""Mantis rules: given these events, when this move, then these events (or this refusal)."""
from collections import Counter

import pytest

from domain.errors import InvalidSetup
from domain.games import mantis
from tests.support.games import given, random_match, rejected, when


def card(front, back=None):
    back = back or sorted({front, "red", "blue", "green"} - {front})[:2] + [front]
    return {"back": sorted(back), "front": front}


def dealt(tanks, draw_pile):
    return {"type": "dealt", "data": {"edition": "classic", "tanks": tanks, "draw_pile": draw_pile}}


def test_the_classic_deck_has_35_backs_of_3_colours_and_15_fronts_per_colour():
    deck = mantis.build_deck("classic")
    assert len(deck) == 105
    assert len({tuple(c["back"]) for c in deck}) == 35
    assert set(Counter(c["front"] for c in deck).values()) == {15}
    assert all(c["front"] in c["back"] for c in deck)


def test_the_compact_deck_has_20_backs_and_10_fronts_per_colour_without_pink():
    deck = mantis.build_deck("compact")
    assert len(deck) == 60 and len({tuple(c["back"]) for c in deck}) == 20
    assert Counter(c["front"] for c in deck) == {c: 10 for c in mantis.COLOURS[:6]}


@pytest.mark.parametrize("edition,players", [("classic", 1), ("classic", 7), ("compact", 5)])
def test_player_counts_outside_the_edition_are_refused(edition, players):
    with pytest.raises(InvalidSetup) as refusal:
        mantis.options({"edition": edition}, players)
    assert refusal.value.reason == "invalid_player_count"


def test_the_deal_gives_four_cards_to_each_tank_and_keeps_the_rest_as_the_draw_pile():
    from domain.rng import Rng
    [event] = mantis.deal({"edition": "compact"}, 3, Rng.derive("s", "deal"))
    assert [len(t) for t in event["data"]["tanks"]] == [4, 4, 4]
    assert len(event["data"]["draw_pile"]) == 48


def test_a_score_that_matches_moves_every_card_of_that_colour_to_the_score_pile():
    state = given(mantis, dealt([[card("red"), card("red"), card("blue")], [card("green")]], [card("red"), card("blue")]))
    [event] = when(mantis, state, 0, {"action": "score"})
    assert event == {"type": "score_tried", "data": {"seat": 0, "card": card("red"), "moved": 3}}
    after = mantis.evolve(state, event)
    assert [c["front"] for c in after["score_piles"][0]] == ["red", "red", "red"]
    assert after["tanks"][0] == [card("blue")] and after["turn"] == 1


def test_a_score_that_misses_leaves_the_card_in_the_tank_and_ends_the_turn():
    state = given(mantis, dealt([[card("blue")], [card("green")]], [card("red"), card("blue")]))
    after = mantis.evolve(state, when(mantis, state, 0, {"action": "score"})[0])
    assert after["tanks"][0] == [card("blue"), card("red")] and after["score_piles"][0] == [] and after["turn"] == 1


def test_a_successful_steal_moves_the_matching_cards_into_the_stealers_tank_not_the_score_pile():
    state = given(mantis, dealt([[card("blue")], [card("red"), card("green")], [card("red")]],
                                [card("red"), card("blue")]))
    [event] = when(mantis, state, 0, {"action": "steal", "target": 1})
    after = mantis.evolve(state, event)
    assert event["data"]["moved"] == 2
    assert after["tanks"][0] == [card("blue"), card("red"), card("red")] and after["tanks"][1] == [card("green")]
    assert after["score_piles"][0] == [] and after["turn"] == 1


def test_a_steal_from_an_empty_tank_leaves_the_card_there():
    state = given(mantis, dealt([[card("blue")], []], [card("red"), card("blue")]))
    [event] = when(mantis, state, 0, {"action": "steal", "target": 1})
    after = mantis.evolve(state, event)
    assert event["data"]["moved"] == 0 and after["tanks"][1] == [card("red")] and after["turn"] == 1


def test_with_two_players_a_successful_steal_gives_another_turn_and_a_miss_ends_it():
    state = given(mantis, dealt([[card("blue")], [card("red")]], [card("red"), card("green"), card("blue")]))
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "steal", "target": 1})[0])
    assert state["turn"] == 0
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "steal", "target": 1})[0])
    assert state["turn"] == 1


def test_with_three_players_a_successful_steal_ends_the_turn():
    state = given(mantis, dealt([[], [card("red")], []], [card("red"), card("green")]))
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "steal", "target": 1})[0])
    assert state["turn"] == 1


def test_a_steal_chain_ends_the_game_when_the_pile_runs_out_mid_chain():
    state = given(mantis, dealt([[card("blue")], [card("red"), card("green")]], [card("red"), card("green")]))
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "steal", "target": 1})[0])
    assert state["turn"] == 0 and not state["finished"]
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "steal", "target": 1})[0])
    assert state["finished"] and mantis.to_act(state) == []
    # no score cards for anyone: the tank decides, seat 0 now holds all five cards
    assert mantis.outcome(state) == {"winners": [0], "scores": {"0": 0, "1": 0}}


def test_a_win_is_reached_at_exactly_ten_cards_with_three_players():
    state = given(mantis, dealt([[card("red")], [], []], [card("red"), card("blue"), card("blue")]))
    state = {**state, "score_piles": [[card("green")] * 8, [], []]}
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "score"})[0])
    assert len(state["score_piles"][0]) == 10 and state["finished"]
    assert mantis.outcome(state)["winners"] == [0]


def test_nine_cards_do_not_win_with_three_players():
    state = given(mantis, dealt([[card("red")], [], []], [card("red"), card("blue"), card("blue")]))
    state = {**state, "score_piles": [[card("green")] * 7, [], []]}
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "score"})[0])
    assert len(state["score_piles"][0]) == 9 and not state["finished"]


def test_with_two_players_fifteen_cards_win_and_fourteen_do_not():
    state = given(mantis, dealt([[card("red")], [card("red")]], [card("red"), card("red"), card("blue")]))
    state = {**state, "score_piles": [[card("green")] * 12, [card("green")] * 13]}
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "score"})[0])
    assert len(state["score_piles"][0]) == 14 and not state["finished"]
    state = mantis.evolve(state, when(mantis, state, 1, {"action": "score"})[0])
    assert state["finished"] and mantis.outcome(state)["winners"] == [1]


def test_an_empty_pile_ends_the_game_and_most_score_cards_win():
    state = given(mantis, dealt([[], [], []], [card("red")]))
    state = {**state, "score_piles": [[card("green")] * 3, [card("green")] * 5, []]}
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "score"})[0])
    assert state["finished"] and mantis.outcome(state)["winners"] == [1]


def test_an_empty_pile_with_tied_score_piles_is_decided_by_the_tanks():
    state = given(mantis, dealt([[], [card("blue")], [card("blue"), card("green")]], [card("red")]))
    state = {**state, "score_piles": [[], [card("green")] * 4, [card("green")] * 4]}
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "score"})[0])
    assert mantis.outcome(state)["winners"] == [2]


def test_a_three_way_tie_on_score_and_tank_is_a_shared_win():
    state = given(mantis, dealt([[card("blue")], [card("blue")], [card("blue")], []], [card("red")]))
    state = {**state, "score_piles": [[card("green")] * 4] * 3 + [[]], "turn": 3}
    state = mantis.evolve(state, when(mantis, state, 3, {"action": "steal", "target": 0})[0])
    assert state["tanks"][0] == [card("blue"), card("red")]
    state = {**state, "tanks": [[card("blue")], [card("blue")], [card("blue")], []]}
    assert mantis.outcome(state) == {"winners": [0, 1, 2], "scores": {"0": 4, "1": 4, "2": 4, "3": 0}}


@pytest.mark.parametrize("seat,move,reason", [
    (1, {"action": "score"}, "not_your_turn"),
    (0, {"action": "steal", "target": 0}, "invalid_target"),
    (0, {"action": "steal", "target": 9}, "invalid_target"),
    (0, {"action": "steal"}, "malformed_move"),
    (0, {"action": "steal", "target": "1"}, "malformed_move"),
    (0, {"action": "score", "extra": 1}, "malformed_move"),
    (0, {"action": "discard"}, "unknown_action"),
    (0, ["score"], "malformed_move"),
])
def test_moves_that_break_the_rules_are_refused_with_a_reason(seat, move, reason):
    state = given(mantis, dealt([[], [], []], [card("red"), card("blue")]))
    assert rejected(mantis, state, seat, move) == reason


def test_no_move_is_accepted_once_the_game_is_over():
    state = given(mantis, dealt([[], []], [card("red")]))
    state = mantis.evolve(state, when(mantis, state, 0, {"action": "score"})[0])
    assert rejected(mantis, state, 1, {"action": "score"}) == "game_over"


def test_legal_moves_are_score_and_a_steal_from_each_other_seat_for_the_seat_to_act_only():
    state = given(mantis, dealt([[], [], []], [card("red"), card("blue")]))
    assert mantis.legal_moves(state, 0) == [{"action": "score"}, {"action": "steal", "target": 1},
                                            {"action": "steal", "target": 2}]
    assert mantis.legal_moves(state, 1) == []


def test_views_show_the_top_back_and_score_counts_but_no_hidden_fronts():
    state = given(mantis, dealt([[card("blue")], [card("red")]], [card("red", ["red", "blue", "green"]), card("blue")]))
    state = {**state, "score_piles": [[card("green")], [card("pink"), card("pink")]]}
    seen = mantis.view(state, 0)
    assert seen["draw_pile"] == {"count": 2, "top_back": ["blue", "green", "red"]}
    assert seen["score_piles"] == [1, 2] and seen["own_score_pile"] == [card("green")]
    assert "pink" not in str(seen) and mantis.view(state, None)["own_score_pile"] is None


def test_a_redacted_deal_shows_only_the_back_of_the_top_card():
    event = dealt([[card("blue")], [card("red")]], [card("red"), card("green")])
    seen = mantis.redact(event, 0)
    assert seen["data"]["draw_pile"] == [{"back": card("red")["back"]}, None]
    assert seen["data"]["tanks"] == event["data"]["tanks"]


@pytest.mark.parametrize("edition,players", [("classic", n) for n in range(2, 7)] + [("compact", n) for n in range(2, 5)])
def test_random_matches_end_and_conserve_every_card(edition, players):
    for seed in range(10):
        for state, _ in random_match("mantis", players, f"{edition}-{seed}", {"edition": edition}):
            game = state["game_state"]
            cards = game["draw_pile"] + sum(game["tanks"], []) + sum(game["score_piles"], [])
            assert sorted(map(str, cards)) == sorted(map(str, mantis.build_deck(edition)))
        assert state["status"] == "finished" and state["result"]["winners"]


def test_a_determinized_state_agrees_with_the_view_it_came_from():
    import random
    for state, _ in random_match("mantis", 3, "determinize"):
        if state["status"] != "active":
            continue
        game = state["game_state"]
        sample = mantis.determinize(mantis.view(game, 1), 1, random.Random(7))
        assert mantis.view(sample, 1) == mantis.view(game, 1)
        cards = sample["draw_pile"] + sum(sample["tanks"], []) + sum(sample["score_piles"], [])
        assert sorted(map(str, cards)) == sorted(map(str, mantis.build_deck("classic")))


def test_greedy_scores_when_every_possible_front_matches_its_tank():
    import random
    state = given(mantis, dealt([[card("red"), card("blue"), card("green")], [card("pink")]],
                                [card("red", ["red", "blue", "green"]), card("blue")]))
    chosen = mantis.greedy(mantis.view(state, 0), 0, mantis.legal_moves(state, 0), random.Random(1))
    assert chosen == {"action": "score"}


def test_greedy_weighs_a_steal_by_its_weights():
    import random
    # every front the top card can have matches seat 1's tank and none matches seat 0's
    state = given(mantis, dealt([[card("pink")], [card("red"), card("blue"), card("green")]],
                                [card("red", ["red", "blue", "green"]), card("blue")]))
    view, moves = mantis.view(state, 0), mantis.legal_moves(state, 0)
    assert mantis.greedy(view, 0, moves, random.Random(1)) == {"action": "steal", "target": 1}
    worthless_steals = mantis.GREEDY_WEIGHTS._replace(steal=0, steal_hit=0)
    assert mantis.greedy(view, 0, moves, random.Random(1), worthless_steals) == {"action": "score"}


@pytest.mark.parametrize("edition,players", [("classic", 3), ("classic", 2), ("compact", 4)])
def test_the_fronts_greedy_expects_on_top_are_those_of_the_unseen_cards_with_the_top_back(edition, players):
    for state, _ in random_match("mantis", players, f"fronts-{edition}", {"edition": edition}):
        if state["status"] != "active":
            continue
        seat = state["game_state"]["turn"]
        view = mantis.view(state["game_state"], seat)
        top_back = view["draw_pile"]["top_back"]
        unseen = [c["front"] for c in mantis._unseen_cards(view) if c["back"] == top_back]
        assert mantis._possible_top_fronts(view) == (unseen or top_back)


def cards_in(value):
    """Every card object ({back, front}) anywhere in a JSON value."""
    if isinstance(value, dict):
        return ([value] if "front" in value else []) + [c for v in value.values() for c in cards_in(v)]
    if isinstance(value, list):
        return [c for v in value for c in cards_in(v)]
    return []


def visible_to(game_state, seat):
    """The cards a seat may see: every tank, and its own score pile."""
    own = game_state["score_piles"][seat] if seat is not None else []
    return {str(c) for c in sum(game_state["tanks"], []) + own}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_no_view_or_redacted_event_shows_an_unflipped_front_or_another_seats_score_pile(players):
    from domain import match
    for seed in range(12):
        seen_events = 0
        for state, log in random_match("mantis", players, f"leak-{players}-{seed}"):
            if state["status"] != "active":
                break
            game = state["game_state"]
            for seat in [None, *range(players)]:
                assert {str(c) for c in cards_in(mantis.view(game, seat))} <= visible_to(game, seat)
                for event in log[seen_events:]:
                    shown = match.redact({"game": "mantis"}, False, event, seat)
                    flipped = [shown["data"]["card"]] if "card" in shown["data"] else []
                    assert {str(c) for c in cards_in(shown)} <= visible_to(game, seat) | {str(c) for c in flipped}
            seen_events = len(log)
