"""Blockers (seed 003; RULINGS.md "blockers"). Rules page: docs/games/blockers.md.

A Victory card is {"colour": c, "shape": s}; a Kicker card is the same with "kicker": true. The grid is a
dict place -> card (None once taken), places "A1".."D4". A hand card is the name of the area it opens:
a row "A".."D", a column "1".."4" or a region "spades", "clubs", "diamonds", "hearts".
A turn is `take` (play a hand card, take a matching card of its area onto your stack), `kicker` or `pass`.
The whole match (as many games as seats) is one state; every game starts with a `dealt` event.
"""
from collections import Counter, defaultdict
from functools import cache
from typing import NamedTuple

from domain.protocol import (BOOLEAN, INTEGER, Field, GameInfo, Seen, ViewField, highest, keyed, list_of, named,
                             next_seat, nullable, one_of, parse_move, record, require, started, validate_options,
                             win_share)
from domain.simulation import Simulation, fast_simulation

# --- components -------------------------------------------------------------------------------------
COLOURS = ("red", "yellow", "green", "blue", "purple")
SHAPES = ("circle", "square", "triangle", "star", "cross")
COPIES = 2  # every colour+shape pair is on two Victory cards: 5 x 5 x 2 = 50
KICKER_PAIRS = tuple(zip(COLOURS, SHAPES))  # one of each colour and one of each shape
ROWS = ("A", "B", "C", "D")
COLUMNS = ("1", "2", "3", "4")
PLACES = tuple(row + column for row in ROWS for column in COLUMNS)  # row by row, "A1" top left
REGIONS = {"spades": ("AB", "12"), "clubs": ("AB", "34"), "diamonds": ("CD", "12"), "hearts": ("CD", "34")}
AREAS = {
    **{row: tuple(row + column for column in COLUMNS) for row in ROWS},
    **{column: tuple(row + column for row in ROWS) for column in COLUMNS},
    **{name: tuple(r + c for r in rows for c in columns) for name, (rows, columns) in REGIONS.items()},
}
HAND_CARDS = ROWS + COLUMNS + ("spades", "clubs", "hearts", "diamonds")  # each seat owns one set
HAND_SIZE = 4

CARD = named("Card", record({"colour": named("Colour", one_of(*COLOURS)), "shape": named("Shape", one_of(*SHAPES)),
                             "kicker": one_of(True)}, optional=("kicker",)))
HAND_CARD = named("HandCard", one_of(*HAND_CARDS))
INFO = GameInfo(
    id="blockers",
    name="Blockers",
    min_players=2,
    max_players=4,
    summary="Play a hand card to take a Victory card from its row, column or region; every card you take must "
            "match the colour or shape on top of your stack. As many games as seats; the biggest stacks win.",
    actions={
        "take": ("play a hand card from your hand and take the Victory card at a place of that card's row, "
                 "column or region onto your stack (it must match the colour or shape of your stack's top)",
                 {"hand_card": Field("string", "the hand card played: a row, a column or a region",
                                     choices=HAND_CARDS),
                  "place": Field("string", "the grid place taken, row letter then column number",
                                 choices=PLACES)}),
        "kicker": ("play your secret Kicker card onto your stack; only when you cannot take a card, once a game",
                   {}),
        "pass": ("pass without playing or drawing; only when you cannot take a card", {}),
    },
    view={
        "players": ViewField(INTEGER, "the number of seats"),
        "games": ViewField(INTEGER, "games in the match (= seats)"),
        "match_first": ViewField(INTEGER, "the seat that started game 1"),
        "game": ViewField(INTEGER, "the current game (0-based)"),
        "first": ViewField(INTEGER, "the seat that started the current game"),
        "turn": ViewField(INTEGER, "the seat to act"),
        "passes": ViewField(INTEGER, "how many seats have passed in a row"),
        "finished": ViewField(BOOLEAN, "the match is over"),
        "grid": ViewField(keyed(nullable(CARD)), "'{place: card or null}' for all 16 places (null = empty)"),
        "deck": ViewField(INTEGER, "the number of Victory cards left in the deck (its order is seen by nobody)"),
        "stacks": ViewField(list_of(list_of(CARD)),
                            "every seat's stack, bottom first; a played Kicker sits in it where it was played"),
        "kickers": ViewField(list_of(nullable(CARD)),
                             "per seat: your own Kicker (played or not), every played Kicker, otherwise 'null'"),
        "kicker_played": ViewField(list_of(BOOLEAN), "per seat: whether its Kicker has been played this game"),
        "hands": ViewField(list_of(list_of(nullable(HAND_CARD))),
                           "per seat: your own hand; any other hand as '[null, …]' (its size)"),
        "hand_decks": ViewField(list_of(INTEGER), "per seat: the number of cards in its hand deck (order unknown to "
                                                  "everyone, owner included)"),
        "played": ViewField(list_of(list_of(HAND_CARD)),
                            "per seat: its played hand cards, in the order played (public)"),
        "scores": ViewField(list_of(list_of(INTEGER)), "per finished game: '[score per seat]'"),
        "totals": ViewField(list_of(INTEGER), "per seat: the sum of 'scores'"),
    },
)


def victory_cards() -> list[dict]:
    return [{"colour": c, "shape": s} for c in COLOURS for s in SHAPES for _ in range(COPIES)]


def kicker_cards() -> list[dict]:
    return [{"colour": c, "shape": s, "kicker": True} for c, s in KICKER_PAIRS]


def matches(card: dict, top: dict | None) -> bool:
    """The take rule: same colour or same shape as the stack's top; an empty stack takes anything."""
    return top is None or card["colour"] == top["colour"] or card["shape"] == top["shape"]


def stack_score(stack: list[dict], kicker_played: bool) -> int:
    """Victory cards in the stack (a played kicker does not count), +1 for a kicker never played."""
    return sum(1 for card in stack if not card.get("kicker")) + (0 if kicker_played else 1)


# --- options ----------------------------------------------------------------------------------------
def options(raw: dict, player_count: int) -> dict:
    return validate_options(INFO, raw, player_count)


# --- deal -------------------------------------------------------------------------------------------
def deal(options: dict, player_count: int, rng) -> list[dict]:
    """Game 1 of the match; its first seat is drawn at random (the seed text), later games rotate from it."""
    return [_dealt(0, rng.below(player_count), player_count, rng)]


def _dealt(game: int, first: int, player_count: int, rng) -> dict:
    """One game's setup: a fresh Victory deck, grid, kickers and hand decks (everything but the scores)."""
    cards = rng.shuffled(victory_cards())
    kickers = rng.shuffled(kicker_cards())
    hand_decks = [rng.shuffled(HAND_CARDS) for _ in range(player_count)]
    return {"type": "dealt", "data": {
        "game": game, "first": first,
        "grid": dict(zip(PLACES, cards[:len(PLACES)])), "deck": cards[len(PLACES):],
        "kickers": kickers[:player_count], "kickers_aside": kickers[player_count:],
        "hands": [deck[:HAND_SIZE] for deck in hand_decks], "hand_decks": [deck[HAND_SIZE:] for deck in hand_decks]}}


# --- evolve -----------------------------------------------------------------------------------------
def evolve(state: dict | None, event: dict) -> dict:
    data, kind = event["data"], event["type"]
    if kind == "dealt":
        return _start_game(state, data)
    state = started(state, event)
    seat = data.get("seat")
    if kind == "took":
        return _took(state, data)
    if kind == "kicked":
        return {**state, "stacks": _with(state["stacks"], seat, state["stacks"][seat] + [data["kicker"]]),
                "kicker_played": _with(state["kicker_played"], seat, True),
                "turn": next_seat(seat, state["players"]), "passes": 0}
    if kind == "passed":
        return {**state, "turn": next_seat(seat, state["players"]), "passes": state["passes"] + 1}
    if kind == "refilled":
        return {**state, "grid": {**state["grid"], **data["cards"]}, "deck": state["deck"][len(data["cards"]):],
                "turn": data["starts"], "passes": 0}
    if kind == "game_ended":
        return {**state, "scores": state["scores"] + [data["scores"]],
                "finished": data["game"] + 1 >= state["games"]}
    raise ValueError(f"blockers has no event {kind!r}")


def _start_game(state: dict | None, data: dict) -> dict:
    players = len(data["hands"])
    return {
        "players": players, "games": players,  # the match: one game per seat, each seat first once
        "match_first": data["first"] if state is None else state["match_first"],
        "scores": [] if state is None else state["scores"],
        "game": data["game"], "first": data["first"], "turn": data["first"], "passes": 0, "finished": False,
        "grid": data["grid"], "deck": data["deck"], "stacks": [[] for _ in range(players)],
        "kickers": data["kickers"], "kickers_aside": data["kickers_aside"], "kicker_played": [False] * players,
        "hands": data["hands"], "hand_decks": data["hand_decks"], "played": [[] for _ in range(players)],
    }


def _took(state: dict, data: dict) -> dict:
    seat, hand_card = data["seat"], data["hand_card"]
    hand = [card for card in state["hands"][seat] if card != hand_card] + [data["drew"]]
    if data["reshuffled"] is None:
        deck, played = state["hand_decks"][seat][1:], state["played"][seat] + [hand_card]
    else:  # the last card was drawn: every played hand card became the new deck
        deck, played = data["reshuffled"], []
    return {**state,
            "grid": {**state["grid"], data["place"]: None},
            "stacks": _with(state["stacks"], seat, state["stacks"][seat] + [data["card"]]),
            "hands": _with(state["hands"], seat, hand),
            "hand_decks": _with(state["hand_decks"], seat, deck),
            "played": _with(state["played"], seat, played),
            "turn": next_seat(seat, state["players"]), "passes": 0}


def _with(items: list, index: int, value) -> list:
    copy = list(items)
    copy[index] = value
    return copy


# --- decide -----------------------------------------------------------------------------------------
def decide(state: dict, seat: int, move: dict, rng) -> list[dict]:
    move = parse_move(INFO, move)
    require(not state["finished"], "game_over", "the match is over")
    require(seat == state["turn"], "not_your_turn", f"it is seat {state['turn']}'s turn")
    if move["action"] == "take":
        return [_take(state, seat, move["hand_card"], move["place"], rng)]
    require(not _can_take(state, seat), "must_take",
            f"you can take a card, so you may not {move['action']}; see your legal moves")
    if move["action"] == "kicker":
        require(not state["kicker_played"][seat], "kicker_used", "your kicker is already on your stack this game")
        return [{"type": "kicked", "data": {"seat": seat, "kicker": state["kickers"][seat]}}]
    passed = {"type": "passed", "data": {"seat": seat}}
    if state["passes"] + 1 < state["players"]:
        return [passed]
    return [passed] + _end_of_cycle(state, seat, rng)


def _take(state: dict, seat: int, hand_card: str, place: str, rng) -> dict:
    require(hand_card in state["hands"][seat], "card_not_in_hand", f"{hand_card!r} is not in your hand")
    require(place in AREAS[hand_card], "place_not_in_area",
            f"{place} is not in the area of {hand_card!r}: {', '.join(AREAS[hand_card])}")
    card = state["grid"][place]
    require(card is not None, "place_empty", f"{place} is empty")
    top = _top(state["stacks"][seat])
    require(matches(card, top), "no_match",
            f"a {card['colour']} {card['shape']} matches neither colour nor shape of your "
            f"{top and top['colour']} {top and top['shape']}")
    deck = state["hand_decks"][seat]
    # the deck is never empty here: the played cards become a new deck the moment its last card is drawn
    reshuffled = rng.shuffled(state["played"][seat] + [hand_card]) if len(deck) == 1 else None
    return {"type": "took", "data": {"seat": seat, "hand_card": hand_card, "place": place, "card": card,
                                     "drew": deck[0], "reshuffled": reshuffled}}


def _end_of_cycle(state: dict, last_to_pass: int, rng) -> list[dict]:
    """Everyone passed in a row: refill the grid, or end the game if it cannot be refilled completely."""
    empty = [place for place in PLACES if state["grid"][place] is None]
    deck = state["deck"]
    if empty and len(deck) >= len(empty):
        return [{"type": "refilled", "data": {"cards": dict(zip(empty, deck)),
                                              "starts": next_seat(last_to_pass, state["players"])}}]
    ended = {"type": "game_ended", "data": {
        "game": state["game"], "why": "deck_short" if empty else "blocked",
        "scores": [stack_score(stack, played) for stack, played in zip(state["stacks"], state["kicker_played"])]}}
    following = state["game"] + 1
    if following >= state["games"]:
        return [ended]
    first = next_seat(state["match_first"], state["players"], following)
    return [ended, _dealt(following, first, state["players"], rng)]


def _top(stack: list[dict]) -> dict | None:
    return stack[-1] if stack else None


def _takes(grid: dict, hand: list[str], top: dict | None) -> list[tuple[str, str]]:
    return [(hand_card, place) for hand_card in hand for place in AREAS[hand_card]
            if grid[place] is not None and matches(grid[place], top)]


def _can_take(state: dict, seat: int) -> bool:
    return bool(_takes(state["grid"], state["hands"][seat], _top(state["stacks"][seat])))


# --- legal moves and whose turn ---------------------------------------------------------------------
def legal_moves(state: dict, seat: int) -> list[dict]:
    """Every (hand card, place) take; only if there is none, pass and (while unplayed) the kicker."""
    if seat not in to_act(state):
        return []
    takes = _takes(state["grid"], state["hands"][seat], _top(state["stacks"][seat]))
    if takes:
        return [{"action": "take", "hand_card": hand_card, "place": place} for hand_card, place in takes]
    return [{"action": "pass"}] + ([] if state["kicker_played"][seat] else [{"action": "kicker"}])


def to_act(state: dict) -> list[int]:
    return [] if state["finished"] else [state["turn"]]


# --- what each seat may see -------------------------------------------------------------------------
def view(state: dict, seat: int | None) -> dict:
    """Public: grid, stacks, played hand cards, played kickers, counts. Own: hand and kicker. Nobody: deck orders."""
    players = range(state["players"])
    return {
        "players": state["players"], "games": state["games"], "match_first": state["match_first"],
        "game": state["game"], "first": state["first"], "turn": state["turn"], "passes": state["passes"],
        "finished": state["finished"],
        "grid": state["grid"], "deck": len(state["deck"]), "stacks": state["stacks"],
        "kickers": [state["kickers"][s] if s == seat or state["kicker_played"][s] else None for s in players],
        "kicker_played": state["kicker_played"],
        "hands": [state["hands"][s] if s == seat else [None] * len(state["hands"][s]) for s in players],
        "hand_decks": [len(deck) for deck in state["hand_decks"]],
        "played": state["played"],
        "scores": state["scores"],
        "totals": [sum(game[s] for game in state["scores"]) for s in players],
    }


def redact(event: dict, seat: int | None) -> dict:
    data = event["data"]
    if event["type"] == "dealt":
        return {**event, "data": {
            **data, "deck": [None] * len(data["deck"]), "kickers_aside": [None] * len(data["kickers_aside"]),
            "kickers": [kicker if s == seat else None for s, kicker in enumerate(data["kickers"])],
            "hands": [hand if s == seat else [None] * len(hand) for s, hand in enumerate(data["hands"])],
            "hand_decks": [[None] * len(deck) for deck in data["hand_decks"]]}}
    if event["type"] == "took":
        reshuffled = data["reshuffled"]
        return {**event, "data": {**data, "drew": data["drew"] if data["seat"] == seat else None,
                                  "reshuffled": None if reshuffled is None else [None] * len(reshuffled)}}
    return event  # a kicker is revealed when played; passes, refills and scores are public


# --- the result -------------------------------------------------------------------------------------
def outcome(state: dict) -> dict | None:
    if not state["finished"]:
        return None
    totals = {s: sum(game[s] for game in state["scores"]) for s in range(state["players"])}
    best = max(totals.values())
    return {"winners": [s for s, total in totals.items() if total == best],
            "scores": {str(s): total for s, total in totals.items()}}


# --- bots -------------------------------------------------------------------------------------------
def recall(seen: Seen, seat: int) -> dict | None:
    """The hand cards each seat surely holds. When a seat draws its deck's last card, the cards it played
    become its new deck (the view's `played` empties), so its hand is exactly the other hand cards; it
    keeps them until it plays them, while what it draws from the new deck stays unknown. The rest of what
    a seat sees (grid, stacks, played hand cards and kickers) the view keeps; a new game deals all anew."""
    sure: list[list[str]] = []  # per seat; none before the deal
    played: list[list[str]] = []
    for events, _ in seen:
        for event in events:
            data = event["data"]
            if event["type"] == "dealt":
                players = len(data["hands"])
                sure, played = [[] for _ in range(players)], [[] for _ in range(players)]
            elif event["type"] == "took":
                mover, hand_card = data["seat"], data["hand_card"]
                played[mover].append(hand_card)
                sure[mover] = [card for card in sure[mover] if card != hand_card]
                if data["reshuffled"] is not None:
                    sure[mover] = [card for card in HAND_CARDS if card not in played[mover]]
                    played[mover] = []
    return {"sure_hands": sure} if sure else None


def determinize(view: dict, seat: int, rng, memory: dict | None = None) -> dict:
    """A full state consistent with the view: the unseen Victory cards shuffled into the deck, the unseen
    kickers dealt to the seats that still hold one (the rest aside), each other seat's unplayed hand cards
    split at random between its hand and its deck (the cards it surely holds, by recall, in its hand), and
    the own deck shuffled."""
    players = range(view["players"])
    deck = _unseen_victory_cards(view)
    rng.shuffle(deck)
    unseen_kickers = [k for k in kicker_cards() if k not in view["kickers"]]
    rng.shuffle(unseen_kickers)
    kickers = [view["kickers"][s] if view["kickers"][s] is not None else unseen_kickers.pop() for s in players]
    hands, hand_decks = [], []
    for s in players:
        held = [card for card in HAND_CARDS if card not in view["played"][s]]
        if s == seat:
            hand = view["hands"][s]
            rest = [card for card in held if card not in hand]
        else:
            sure = memory["sure_hands"][s] if memory else []
            maybe = [card for card in held if card not in sure]
            rng.shuffle(maybe)
            drawn = len(view["hands"][s]) - len(sure)
            hand, rest = sure + maybe[:drawn], maybe[drawn:]
        rng.shuffle(rest)
        hands.append(hand)
        hand_decks.append(rest)
    return {
        "players": view["players"], "games": view["games"], "match_first": view["match_first"],
        "scores": view["scores"], "game": view["game"], "first": view["first"], "turn": view["turn"],
        "passes": view["passes"], "finished": view["finished"], "grid": view["grid"], "deck": deck,
        "stacks": view["stacks"], "kickers": kickers, "kickers_aside": unseen_kickers,
        "kicker_played": view["kicker_played"], "hands": hands, "hand_decks": hand_decks, "played": view["played"],
    }


class TakeWeights(NamedTuple):
    """What greedy weighs in a take: the cards left matching the one taken (its next stack top), those my
    next turn reaches with the hand I keep and all of them (bench/bots.py tunes them by self-play as
    `greedy[next_turn=200]`, in hundredths: docs/bots.md "Greedy's weights")."""
    next_turn: int = 2
    left: int = 1


GREEDY_WEIGHTS = TakeWeights()


def greedy(view: dict, seat: int, moves: list[dict], rng, weights: TakeWeights = GREEDY_WEIGHTS) -> dict:
    """Take the card that keeps the most takes open (for my next turn through the hand I keep, and on the
    whole grid); when stuck, play the kicker only if it opens takes now, else pass."""
    grid, hand = view["grid"], view["hands"][seat]
    if moves[0]["action"] == "take":
        matching = _matching_places(grid)

        def value(move: dict) -> float:
            left = matching[move["place"]]  # the cards left that match the one taken, my next stack top
            next_turn = len(left & _reach(tuple(h for h in hand if h != move["hand_card"])))
            return weights.next_turn * next_turn + weights.left * len(left)
        return moves[highest([value(move) for move in moves], rng)]
    kicker = view["kickers"][seat]
    if {"action": "kicker"} in moves and _opens_takes(grid, hand, kicker):
        return {"action": "kicker"}
    return {"action": "pass"}


def _matching_places(grid: dict) -> dict[str, set]:
    """For each card on the grid, the places of the other cards that match it (the rule is symmetric): what
    a take leaves to take on top of it. Once per greedy call, not once per take weighed."""
    cards = [(place, card) for place, card in grid.items() if card is not None]
    by_colour, by_shape = defaultdict(set), defaultdict(set)
    for place, card in cards:
        by_colour[card["colour"]].add(place)
        by_shape[card["shape"]].add(place)
    return {place: (by_colour[card["colour"]] | by_shape[card["shape"]]) - {place} for place, card in cards}


@cache
def _reach(hand: tuple[str, ...]) -> frozenset:
    """The places a hand's cards open."""
    return frozenset(place for hand_card in hand for place in AREAS[hand_card])


def _opens_takes(grid: dict, hand: list[str], kicker: dict) -> bool:
    """Worth the kicker's point: at least one take now and another matching card left on the grid."""
    reachable = _takes(grid, hand, kicker)
    return bool(reachable) and sum(1 for c in grid.values() if c is not None and matches(c, kicker)) >= 2


def _unseen_victory_cards(view: dict) -> list[dict]:
    remaining = Counter((c["colour"], c["shape"]) for c in victory_cards())
    seen = [c for c in view["grid"].values() if c is not None]
    seen += [c for stack in view["stacks"] for c in stack if not c.get("kicker")]
    remaining.subtract((c["colour"], c["shape"]) for c in seen)
    return [{"colour": colour, "shape": shape} for (colour, shape), n in remaining.items() for _ in range(n)]


PLAYOUT_CAP = 24  # moves a search plays out before evaluate scores the state (tuned: docs/bots.md)
GREEDY_ROLLOUTS = 75  # percent of a search's playout moves greedy plays (a quarter random; tuned: docs/bots.md)

def evaluate(state: dict, seat: int) -> float:
    now = [stack_score(stack, played) for stack, played in zip(state["stacks"], state["kicker_played"])]
    return chance([sum(game[s] for game in state["scores"]) + now[s] for s in range(state["players"])], seat)


def chance(totals: list[int], seat: int) -> float:
    """evaluate from the games' totals so far plus what each stack would score now (the simulation's too): 3
    points ahead weighs e to 1."""
    return win_share(totals, seat, 3)


# --- simulation -------------------------------------------------------------------------------------
def simulation(state: dict) -> Simulation:
    return fast_simulation("domain.simulations.blockers")(state)
