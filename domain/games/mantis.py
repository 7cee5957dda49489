"""Mantis (seeds 000 classic and 001 compact; RULINGS.md "mantis"). Rules page: docs/games/mantis.md.

A card is {"back": [three colours], "front": colour}; the back of the draw pile's top card is public.
A turn is `score` (flip the top card into your own tank) or `steal` (flip it into another seat's tank).
"""
from collections import Counter
from itertools import combinations
from typing import NamedTuple, TypedDict

from domain.protocol import (INTEGER, Field, GameInfo, Option, Seen, ViewField, check_player_count, highest, list_of,
                             next_seat, named, nullable, one_of, parse_move, record, require, started,
                             validate_options, win_share)
from domain.simulation import Simulation, fast_simulation

# --- components -------------------------------------------------------------------------------------
class Edition(TypedDict):
    colours: int  # the first this many of COLOURS
    players: tuple[int, int]  # the fewest and the most


COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "pink")
EDITIONS: dict[str, Edition] = {"classic": {"colours": 7, "players": (2, 6)},
                                 "compact": {"colours": 6, "players": (2, 4)}}
TANK_SIZE = 4
TARGET = {2: 15}  # score-pile size that wins, by player count; 10 otherwise
DEFAULT_TARGET = 10

COLOUR = named("Colour", one_of(*COLOURS))
CARD = named("Card", record({"back": list_of(COLOUR), "front": COLOUR}))
INFO = GameInfo(
    id="mantis",
    name="Mantis",
    min_players=2,
    max_players=6,
    summary="Flip the top card into your tank to score matching colours, or into another tank to steal them.",
    options=(Option("edition", "string", "classic",
                    "classic: 7 colours, 105 cards, 2-6 players; compact: 6 colours, 60 cards, 2-4 players",
                    ("classic", "compact")),),
    actions={
        "score": ("flip the draw pile's top card into your own tank", {}),
        "steal": ("flip the draw pile's top card into another seat's tank",
                  {"target": Field("integer", "the seat whose tank the card is flipped into")}),
    },
    view={
        "edition": ViewField(one_of(*EDITIONS), "'classic' or 'compact'"),
        "draw_pile": ViewField(record({"count": INTEGER, "top_back": nullable(list_of(COLOUR))}),
                               "'{count, top_back}': the number of cards left and the three colours on the back "
                               "of the top card ('null' when the pile is empty)"),
        "tanks": ViewField(list_of(list_of(CARD)), "per seat, its tank: every card '{back, front}' (tanks are public)"),
        "score_piles": ViewField(list_of(INTEGER),
                                 "per seat, the number of cards in its score pile (the colours are not public)"),
        "own_score_pile": ViewField(nullable(list_of(CARD)), "your own score pile's cards; 'null' for a spectator"),
        "turn": ViewField(INTEGER, "the seat whose turn it is"),
        "target": ViewField(INTEGER, "the score-pile size that wins: 10, or 15 with 2 players"),
    },
)


def build_deck(edition: str) -> list[dict]:
    colours = COLOURS[:EDITIONS[edition]["colours"]]
    return [{"back": list(back), "front": front} for back in combinations(colours, 3) for front in back]


_BACKS = {edition: {tuple(card["back"]) for card in build_deck(edition)} for edition in EDITIONS}


def target_score(player_count: int) -> int:
    return TARGET.get(player_count, DEFAULT_TARGET)


# --- options ----------------------------------------------------------------------------------------
def options(raw: dict, player_count: int) -> dict:
    result = validate_options(INFO, raw, player_count)
    low, high = EDITIONS[result["edition"]]["players"]
    check_player_count(f"Mantis {result['edition']}", player_count, low, high)
    return result


# --- deal -------------------------------------------------------------------------------------------
def deal(options: dict, player_count: int, rng) -> list[dict]:
    deck = rng.shuffled(build_deck(options["edition"]))
    dealt = TANK_SIZE * player_count
    tanks = [[deck[i] for i in range(seat, dealt, player_count)] for seat in range(player_count)]
    return [{"type": "dealt", "data": {"edition": options["edition"], "tanks": tanks, "draw_pile": deck[dealt:]}}]


# --- evolve -----------------------------------------------------------------------------------------
def evolve(state: dict | None, event: dict) -> dict:
    data = event["data"]
    if event["type"] == "dealt":
        players = len(data["tanks"])
        return {"edition": data["edition"], "draw_pile": data["draw_pile"], "tanks": data["tanks"], "score_piles": [[] for _ in range(players)],
                "turn": 0, "target": target_score(players), "finished": False}
    state = started(state, event)
    owner = data["seat"] if event["type"] == "score_tried" else data["target"]
    card, rest = state["draw_pile"][0], state["draw_pile"][1:]
    tanks = list(state["tanks"])  # a new list for each tank a flip changes; the others are shared (never mutated)
    score_piles = list(state["score_piles"])
    matched = [c for c in tanks[owner] if c["front"] == card["front"]]
    if not matched:
        tanks[owner] = tanks[owner] + [card]
    else:
        tanks[owner] = [c for c in tanks[owner] if c["front"] != card["front"]]
        if event["type"] == "score_tried":
            score_piles[owner] = score_piles[owner] + matched + [card]
        else:
            tanks[data["seat"]] = tanks[data["seat"]] + matched + [card]
    players = len(tanks)
    extra_turn = event["type"] == "steal_tried" and matched and players == 2
    won = any(len(pile) >= state["target"] for pile in score_piles)
    return {**state, "draw_pile": rest, "tanks": tanks, "score_piles": score_piles,
            "turn": state["turn"] if extra_turn else next_seat(state["turn"], players),
            "finished": won or not rest}


# --- decide -----------------------------------------------------------------------------------------
def decide(state: dict, seat: int, move: dict, rng) -> list[dict]:
    move = parse_move(INFO, move)
    require(not state["finished"], "game_over", "the game is over")
    require(seat == state["turn"], "not_your_turn", f"it is seat {state['turn']}'s turn")
    card = state["draw_pile"][0]
    if move["action"] == "score":
        return [{"type": "score_tried", "data": {"seat": seat, "card": card,
                                                 "moved": _moved(state["tanks"][seat], card)}}]
    target = move["target"]
    require(0 <= target < len(state["tanks"]) and target != seat, "invalid_target",
            "steal from another seat of this match")
    return [{"type": "steal_tried", "data": {"seat": seat, "target": target, "card": card,
                                             "moved": _moved(state["tanks"][target], card)}}]


def _moved(tank: list[dict], card: dict) -> int:
    """How many cards a flip moves: the matching colour plus the flipped card, or none."""
    matching = sum(1 for c in tank if c["front"] == card["front"])
    return matching + 1 if matching else 0


# --- legal moves and whose turn ---------------------------------------------------------------------
def legal_moves(state: dict, seat: int) -> list[dict]:
    if seat not in to_act(state):
        return []
    return [{"action": "score"}] + [{"action": "steal", "target": other}
                                    for other in range(len(state["tanks"])) if other != seat]


def to_act(state: dict) -> list[int]:
    return [] if state["finished"] else [state["turn"]]


# --- what each seat may see -------------------------------------------------------------------------
def view(state: dict, seat: int | None) -> dict:
    pile = state["draw_pile"]
    return {
        "edition": state["edition"],
        "draw_pile": {"count": len(pile), "top_back": pile[0]["back"] if pile else None},
        "tanks": state["tanks"],
        "score_piles": [len(p) for p in state["score_piles"]],
        "own_score_pile": state["score_piles"][seat] if seat is not None else None,
        "turn": state["turn"],
        "target": state["target"],
    }


def redact(event: dict, seat: int | None) -> dict:
    if event["type"] != "dealt":
        return event  # a flip shows its card to everyone at the table
    pile = event["data"]["draw_pile"]
    hidden_pile = [{"back": pile[0]["back"]}] + [None] * (len(pile) - 1) if pile else []
    return {**event, "data": {**event["data"], "draw_pile": hidden_pile}}


# --- the result -------------------------------------------------------------------------------------
def outcome(state: dict) -> dict | None:
    if not state["finished"]:
        return None
    return result([len(pile) for pile in state["score_piles"]], [len(tank) for tank in state["tanks"]])


def result(scores: list[int], tank_sizes: list[int]) -> dict:
    """The most scored cards win; a tie goes to the biggest tank of those tied."""
    rank = list(zip(scores, tank_sizes))
    best = max(rank)
    return {"winners": [seat for seat, r in enumerate(rank) if r == best],
            "scores": {str(seat): score for seat, score in enumerate(scores)}}


# --- bots -------------------------------------------------------------------------------------------
def recall(seen: Seen, seat: int) -> dict | None:
    """Every seat's score pile: each card in one was flipped face up and matched cards of a public tank,
    so the whole table saw it go there (the view shows only the pile's size). The events, folded with each
    flipped card put on top of the draw pile as the event shows it, give the piles."""
    state: dict | None = None
    for events, _ in seen:
        for event in events:
            if event["type"] != "dealt":
                before = started(state, event)
                state = {**before, "draw_pile": [event["data"]["card"]] + before["draw_pile"][1:]}
            state = evolve(state, event)
    return {"score_piles": state["score_piles"]} if state else None


def determinize(view: dict, seat: int, rng, memory: dict | None = None) -> dict:
    """A full state consistent with the view: unseen cards dealt at random to the draw pile and the
    other seats' score piles, with a top card whose back is the one on show. With the score piles
    remembered (recall) they are as seen, and every unseen card is in the draw pile."""
    known = memory["score_piles"] if memory else None
    unseen = _unseen_cards(view, [card for pile in known for card in pile] if known else None)
    pile_size = view["draw_pile"]["count"]
    rng.shuffle(unseen)
    if pile_size:
        top = next(i for i, c in enumerate(unseen) if c["back"] == view["draw_pile"]["top_back"])
        unseen.insert(0, unseen.pop(top))
    pile, rest = unseen[:pile_size], unseen[pile_size:]
    score_piles = []
    for other, count in enumerate(view["score_piles"]):
        if known:
            score_piles.append(known[other])
        elif other == seat:
            score_piles.append(view["own_score_pile"])
        else:
            score_piles.append(rest[:count])
            rest = rest[count:]
    return {"edition": view["edition"], "draw_pile": pile, "tanks": view["tanks"], "score_piles": score_piles,
            "turn": view["turn"], "target": view["target"], "finished": False}


class FlipWeights(NamedTuple):
    """What greedy weighs in a flip besides the cards a score is expected to move, tuned by self-play on
    duplicate deals (bench/bots.py `greedy[steal=30]:greedy`, in hundredths: docs/bots.md "Greedy's weights").
    A steal is worth little at a big table, where the cards it takes from one rival help every other, and
    much at 2 players, where a hit takes them from the one rival."""
    score_miss: float = 0.3  # scoring: a miss still grows my tank
    steal: float = 0.3  # stealing: the cards a hit is expected to move, worth less than cards scored
    steal_hit: float = 2.5  # stealing at 2 players: a hit also takes from the one rival
    steal_miss: float = 0.3  # stealing: a miss feeds the target


GREEDY_WEIGHTS = FlipWeights()


def greedy(view: dict, seat: int, moves: list[dict], rng, weights: FlipWeights = GREEDY_WEIGHTS) -> dict:
    """One move ahead: the expected gain of each flip, given which fronts the top card can still have."""
    fronts = _possible_top_fronts(view)
    two_players = len(view["tanks"]) == 2

    def value(move: dict) -> float:
        owner = seat if move["action"] == "score" else move["target"]
        gains = [_moved(view["tanks"][owner], {"front": f}) for f in fronts]
        return flip_value(move["action"] == "score", sum(1 for g in gains if g), sum(gains), len(gains), two_players,
                          weights)

    return moves[highest([value(move) for move in moves], rng)]


def flip_value(scoring: bool, hits: int, moved: int, fronts: int, two_players: bool,
               weights: FlipWeights = GREEDY_WEIGHTS) -> float:
    """Greedy's worth of a flip: the top card may have `fronts` fronts, `hits` of which match the tank flipped
    into, moving `moved` cards in all."""
    hit, expected = hits / fronts, moved / fronts
    if scoring:
        return expected + weights.score_miss * (1 - hit)
    return (weights.steal * expected + (weights.steal_hit * hit if two_players else 0)
            - weights.steal_miss * (1 - hit))


def _unseen_cards(view: dict, scored: list[dict] | None = None) -> list[dict]:
    """The deck but the tanks' cards and the scored ones the seat knows of (its own, unless given)."""
    remaining = Counter(_key(c) for c in build_deck(view["edition"]))
    known = _seen_cards(view) if scored is None else [c for tank in view["tanks"] for c in tank] + scored
    remaining.subtract(_key(c) for c in known)
    return [{"back": list(back), "front": front} for (back, front), n in remaining.items() for _ in range(n)]


def _possible_top_fronts(view: dict) -> list[str]:
    """The fronts of the unseen cards with the top card's back. The deck holds one card of each back and front
    of it (build_deck), so these are the back's colours but those on a seen card of that back; looking only at
    seen cards of that back spares building the unseen deck on every greedy move of a playout."""
    back = view["draw_pile"]["top_back"]
    if tuple(back) not in _BACKS[view["edition"]]:
        return list(back)  # no card of the deck has it
    seen = {c["front"] for c in _seen_cards(view) if c["back"] == back}
    return [front for front in back if front not in seen] or list(back)


def _seen_cards(view: dict) -> list[dict]:
    return [c for tank in view["tanks"] for c in tank] + (view["own_score_pile"] or [])


def _key(card: dict) -> tuple:
    return tuple(card["back"]), card["front"]


PLAYOUT_CAP = 8  # moves a search plays out before evaluate scores the state (tuned: docs/bots.md)
GREEDY_ROLLOUTS = 100  # percent of a search's playout moves greedy plays (all greedy; tuned: docs/bots.md)

def evaluate(state: dict, seat: int) -> float:
    return chance([len(pile) for pile in state["score_piles"]], state["target"], seat)


def chance(scores: list[int], target: int, seat: int) -> float:
    """evaluate from the score piles' sizes (the simulation's too): a quarter of the target ahead weighs e to 1."""
    return win_share(scores, seat, target / 4)


# --- simulation -------------------------------------------------------------------------------------
def simulation(state: dict) -> Simulation:
    return fast_simulation("domain.simulations.mantis")(state)
