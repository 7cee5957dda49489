"""FlipOut (seed 004; RULINGS.md "flipout"). Rules page: docs/games/flipout.md.

A card has two coloured faces. Where it lies says what its faces are called:
    in a holder      {"inner": colour, "outer": colour}   inner faces its owner, outer faces everyone else
    in the deck      {"up": colour, "down": colour}       the top card's up face is public
    in a score pile  {"colour": colour, "other": colour}  colour = the colour of the set it was collected in
Places in a holder are numbered 0-5 from the owner's left. A turn is 2 actions (3 with a token spent);
an action is one move. Every card a seat learns about is in the event that shows it, redacted per seat.
"""
from collections import Counter
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from typing import NamedTuple

from domain.protocol import (BOOLEAN, INTEGER, Field, GameInfo, Option, Seen, ViewField, highest, list_of, named,
                             next_seat, nullable, one_of, parse_move, record, require, required, started,
                             validate_options, win_share)
from domain.simulation import Simulation, fast_simulation

# --- components -------------------------------------------------------------------------------------
COLOURS = ("red", "yellow", "green", "blue", "purple")
COPIES = 6  # of each of the 15 unordered colour pairs: 90 cards
HOLDER_SIZE = 6
SET_SIZES = (4, 5, 6)
ACTIONS_PER_TURN = 2
TOKENS_EACH = 3
DEFAULT_STALL_ROUNDS = 30  # so that a match always ends: see "stall_rounds" and docs interpretation 12

COLOUR = named("Colour", one_of(*COLOURS))
HOLDER_CARD = named("HolderCard", record({"inner": nullable(COLOUR), "outer": nullable(COLOUR)}))
INFO = GameInfo(
    id="flipout",
    name="FlipOut",
    min_players=2,
    max_players=5,
    summary="Double-sided cards: collect runs of 4-6 of one colour facing you, "
            "and swipe the runs your opponents cannot see on their own backs.",
    options=(
        Option("tokens", "boolean", False,
               "each seat gets 3 tokens; spending one buys a third action for the current turn (once per turn)"),
        Option("stall_rounds", "integer", DEFAULT_STALL_ROUNDS,
               "the game also ends when this many rounds in a row (every seat one turn each) pass without "
               "any set being scored or swiped", bounds=(1, 100_000)),
    ),
    actions={
        "flip": ("turn one card of any holder around: its outer face becomes the inner face and the reverse",
                 {"holder": Field("integer", "the seat whose holder the card is in (yours or another's)"),
                  "place": Field("integer", "the card's place, 0-5 from the holder owner's left")}),
        "switch": ("exchange the places of two cards in one holder (yours or another's); no card turns",
                   {"holder": Field("integer", "the seat whose holder it is"),
                    "first": Field("integer", "one place, 0-5"),
                    "second": Field("integer", "another place of the same holder, 0-5")}),
        "swap1": ("exchange one of your cards with one of another seat's; both cards turn around",
                  {"target": Field("integer", "the other seat"),
                   "mine": Field("integer", "your place, 0-5"),
                   "theirs": Field("integer", "the target's place, 0-5")}),
        "swap2": ("exchange two adjacent cards of one colour (your inner faces) with two adjacent cards of one "
                  "colour (the target's outer faces); the card at mine goes to theirs, mine+1 to theirs+1; all turn",
                  {"target": Field("integer", "the other seat"),
                   "mine": Field("integer", "the left place of your pair, 0-4"),
                   "theirs": Field("integer", "the left place of the target's pair, 0-4")}),
        "score": ("collect the run of 4-6 adjacent same-colour inner faces in your holder, then refill to 6", {}),
        "swipe": ("collect the run of 4-6 adjacent same-colour outer faces in another seat's holder; its leftmost "
                  "card goes to that seat's score pile, the rest to yours; that seat refills to 6",
                  {"target": Field("integer", "the seat whose run you take")}),
        "draw": ("2 players only: take the deck's top card into one of your places (its hidden underside faces "
                 "you) and put the card that was there at the bottom of the deck",
                 {"place": Field("integer", "your place, 0-5")}),
        "spend_token": ("tokens variant: spend a token to add a third action to this turn (once per turn); "
                        "not itself an action", {}),
    },
    view={
        "options": ViewField(record({"tokens": BOOLEAN, "stall_rounds": INTEGER}), "'{tokens, stall_rounds}'"),
        "holders": ViewField(list_of(list_of(HOLDER_CARD)),
                             "per seat, per place '{inner, outer}': your own holder shows 'inner' only ('outer' is "
                             "'null'), every other holder 'outer' only ('inner' is 'null'). A spectator sees every "
                             "outer face and no inner face"),
        "deck": ViewField(record({"count": INTEGER, "top": nullable(COLOUR)}),
                          "'{count, top}': the number of cards and the up face of the top card ('null' when empty)"),
        "score_piles": ViewField(list_of(list_of(named("ScoredCard", record({"colour": COLOUR, "other": COLOUR})))),
                                 "per seat, the collected cards (public: sets are shown when collected); their sizes "
                                 "are the scores"),
        "tokens": ViewField(nullable(list_of(INTEGER)), "tokens left per seat, or 'null' without the variant"),
        "turn": ViewField(INTEGER, "the seat to act"),
        "actions_left": ViewField(INTEGER, "the actions the seat to act has left this turn"),
        "token_spent": ViewField(BOOLEAN, "whether the seat to act spent a token this turn"),
        "turns": ViewField(INTEGER, "turns completed"),
        "quiet_since": ViewField(INTEGER, "the first turn after the last set (for the stall end)"),
        "finished": ViewField(BOOLEAN, "whether the game is over"),
        "end": ViewField(nullable(record({"reason": one_of("deck_exhausted", "stalled"), "seat": nullable(INTEGER)})),
                         "'null' while the game goes on, then '{reason, seat}' ('seat': who could not refill)"),
    },
)


def build_deck() -> list[dict]:
    """The 90 cards, each as it lies in the sorted deck: 6 copies of each unordered colour pair."""
    return [{"up": a, "down": b} for a, b in combinations_with_replacement(COLOURS, 2) for _ in range(COPIES)]


def card_kind(card: dict) -> tuple:
    """A card whatever its orientation or place: its two colours, sorted (for conservation and counting)."""
    return tuple(sorted(card.values()))


_DECK_KINDS = Counter(card_kind(card) for card in build_deck())  # 6 of each of the 15 kinds


# --- options ----------------------------------------------------------------------------------------
def options(raw: dict, player_count: int) -> dict:
    return validate_options(INFO, raw, player_count)


# --- deal -------------------------------------------------------------------------------------------
def deal(options: dict, player_count: int, rng) -> list[dict]:
    """Shuffle, give every card a random orientation, and let each seat in turn draw 6 from the top."""
    deck = [card if rng.below(2) else _upside_down(card) for card in rng.shuffled(build_deck())]
    dealt = HOLDER_SIZE * player_count
    holders = [[_drawn(card) for card in deck[seat * HOLDER_SIZE:(seat + 1) * HOLDER_SIZE]]
               for seat in range(player_count)]
    return [{"type": "dealt", "data": {"options": options, "holders": holders, "deck": deck[dealt:]}}]


def _upside_down(card: dict) -> dict:
    return {"up": card["down"], "down": card["up"]}


def _drawn(card: dict) -> dict:
    """A card drawn from the deck goes into a holder with its hidden underside facing the owner."""
    return {"inner": card["down"], "outer": card["up"]}


def _returned(card: dict) -> dict:
    """A card put back under the deck lies as it would if just drawn (its old inner face down)."""
    return {"up": card["outer"], "down": card["inner"]}


def _turned(card: dict) -> dict:
    return {"inner": card["outer"], "outer": card["inner"]}


# --- evolve -----------------------------------------------------------------------------------------
def evolve(state: dict | None, event: dict) -> dict:
    kind, data = event["type"], event["data"]
    if kind == "dealt":
        return _opening(data)
    return _EVOLVERS[kind](started(state, event), data)


def _opening(data: dict) -> dict:
    players = len(data["holders"])
    return {"options": data["options"], "holders": data["holders"], "deck": data["deck"],
            "score_piles": [[] for _ in range(players)],
            "tokens": [TOKENS_EACH] * players if data["options"]["tokens"] else None,
            "turn": 0, "actions_left": ACTIONS_PER_TURN, "token_spent": False, "turns": 0, "quiet_since": 0,
            "finished": False, "end": None}


def _action_done(state: dict) -> dict:
    """One action is used; after the last one the turn passes clockwise."""
    if state["actions_left"] > 1:
        return {**state, "actions_left": state["actions_left"] - 1}
    return {**state, "turn": next_seat(state["turn"], len(state["holders"])), "actions_left": ACTIONS_PER_TURN,
            "token_spent": False, "turns": state["turns"] + 1}


def _with_holders(holders: list[list], changed: dict[int, list]) -> list[list]:
    return [changed.get(seat, holder) for seat, holder in enumerate(holders)]


# The three card movements below also work on a view's holders (unknown faces None): the greedy bot uses them.
def flip_card(holders: list[list], holder: int, place: int) -> list[list]:
    cards = list(holders[holder])
    cards[place] = _turned(cards[place])
    return _with_holders(holders, {holder: cards})


def switch_cards(holders: list[list], holder: int, first: int, second: int) -> list[list]:
    cards = list(holders[holder])
    cards[first], cards[second] = cards[second], cards[first]
    return _with_holders(holders, {holder: cards})


def swap_cards(holders: list[list], seat: int, target: int, mine: list[int], theirs: list[int]) -> list[list]:
    """mine[i] <-> theirs[i]; every moved card turns around, so each side keeps seeing the colour it saw."""
    own, other = list(holders[seat]), list(holders[target])
    for m, t in zip(mine, theirs):
        own[m], other[t] = _turned(holders[target][t]), _turned(holders[seat][m])
    return _with_holders(holders, {seat: own, target: other})


def _flipped(state: dict, data: dict) -> dict:
    return _action_done({**state, "holders": flip_card(state["holders"], data["holder"], data["place"])})


def _switched(state: dict, data: dict) -> dict:
    first, second = data["places"]
    return _action_done({**state, "holders": switch_cards(state["holders"], data["holder"], first, second)})


def _swapped(state: dict, data: dict) -> dict:
    holders = swap_cards(state["holders"], data["seat"], data["target"], data["mine"], data["theirs"])
    return _action_done({**state, "holders": holders})


def _taken(holders: list[list], owner: int, start: int, count: int) -> tuple[list[list], list[dict]]:
    """Remove a run from a holder (the rest closes up to the left); returns the holders and the run."""
    cards = holders[owner]
    return _with_holders(holders, {owner: cards[:start] + cards[start + count:]}), cards[start:start + count]


def collected(run: list[dict], seen: str) -> list[dict]:
    """Cards of a set as they lie in a score pile: they count as the colour of the face the set was seen on."""
    hidden = "outer" if seen == "inner" else "inner"
    return [{"colour": card[seen], "other": card[hidden]} for card in run]


def _scored(state: dict, data: dict) -> dict:
    holders, run = _taken(state["holders"], data["seat"], data["start"], data["count"])
    collected_cards = collected(run, "inner")
    return _action_done({**state, "holders": holders, "quiet_since": state["turns"] + 1,
                         "score_piles": _add_to_piles(state["score_piles"], {data["seat"]: collected_cards})})


def _swiped(state: dict, data: dict) -> dict:
    holders, run = _taken(state["holders"], data["target"], data["start"], data["count"])
    cards = collected(run, "outer")  # the swiper saw the set on the outer faces
    piles = _add_to_piles(state["score_piles"], {data["target"]: cards[:1], data["seat"]: cards[1:]})
    return _action_done({**state, "holders": holders, "score_piles": piles, "quiet_since": state["turns"] + 1})


def _add_to_piles(piles: list[list], added: dict[int, list]) -> list[list]:
    return [pile + added[seat] if seat in added else pile for seat, pile in enumerate(piles)]


def _refilled(state: dict, data: dict) -> dict:
    owner, count = data["seat"], len(data["cards"])
    holder = state["holders"][owner] + [_drawn(card) for card in state["deck"][:count]]
    return {**state, "holders": _with_holders(state["holders"], {owner: holder}), "deck": state["deck"][count:]}


def _drew(state: dict, data: dict) -> dict:
    seat, place = data["seat"], data["place"]
    cards = list(state["holders"][seat])
    old, cards[place] = cards[place], _drawn(state["deck"][0])
    return _action_done({**state, "holders": _with_holders(state["holders"], {seat: cards}),
                         "deck": state["deck"][1:] + [_returned(old)]})


def _token_spent(state: dict, data: dict) -> dict:
    tokens = list(state["tokens"])
    tokens[data["seat"]] -= 1
    return {**state, "tokens": tokens, "actions_left": state["actions_left"] + 1, "token_spent": True}


def _game_ended(state: dict, data: dict) -> dict:
    holders, piles = state["holders"], state["score_piles"]
    for collection in data["collections"]:
        holders, run = _taken(holders, collection["seat"], collection["start"], collection["count"])
        piles = _add_to_piles(piles, {collection["seat"]: collected(run, "inner")})
    return {**state, "holders": holders, "score_piles": piles, "finished": True,
            "end": {"reason": data["reason"], "seat": data["seat"]}}


_EVOLVERS = {"flipped": _flipped, "switched": _switched, "swapped": _swapped, "scored": _scored,
             "swiped": _swiped, "refilled": _refilled, "drew": _drew, "token_spent": _token_spent,
             "game_ended": _game_ended}


# --- decide -----------------------------------------------------------------------------------------
def decide(state: dict, seat: int, move: dict, rng) -> list[dict]:
    move = parse_move(INFO, move)
    require(not state["finished"], "game_over", "the game is over")
    require(seat == state["turn"], "not_your_turn", f"it is seat {state['turn']}'s turn")
    events = _RULES[move["action"]](state, seat, move)
    return events + _ending(state, events)


def _decide_flip(state: dict, seat: int, move: dict) -> list[dict]:
    holder, place = move["holder"], move["place"]
    _check_seat(state, holder)
    _check_place(state, holder, place)
    after = flip_card(state["holders"], holder, place)
    return [{"type": "flipped", "data": {"seat": seat, "holder": holder, "place": place,
                                         "cards": [_placed(after, holder, place)]}}]


def _decide_switch(state: dict, seat: int, move: dict) -> list[dict]:
    holder, first, second = move["holder"], move["first"], move["second"]
    _check_seat(state, holder)
    _check_place(state, holder, first)
    _check_place(state, holder, second)
    require(first != second, "invalid_place", "switch two different places")
    return [{"type": "switched", "data": {"seat": seat, "holder": holder, "places": [first, second]}}]


def _decide_swap1(state: dict, seat: int, move: dict) -> list[dict]:
    target, mine, theirs = move["target"], move["mine"], move["theirs"]
    _check_other_seat(state, seat, target)
    _check_place(state, seat, mine)
    _check_place(state, target, theirs)
    return [_swap_event(state, seat, target, [mine], [theirs])]


def _decide_swap2(state: dict, seat: int, move: dict) -> list[dict]:
    target, mine, theirs = move["target"], move["mine"], move["theirs"]
    _check_other_seat(state, seat, target)
    _check_pair_place(state, seat, mine)
    _check_pair_place(state, target, theirs)
    require(_same_colour_pair(state["holders"][seat], mine, "inner"), "not_same_colour",
            f"your cards at {mine} and {mine + 1} do not show you the same colour")
    require(_same_colour_pair(state["holders"][target], theirs, "outer"), "not_same_colour",
            f"seat {target}'s cards at {theirs} and {theirs + 1} do not show you the same colour")
    return [_swap_event(state, seat, target, [mine, mine + 1], [theirs, theirs + 1])]


def _swap_event(state: dict, seat: int, target: int, mine: list[int], theirs: list[int]) -> dict:
    after = swap_cards(state["holders"], seat, target, mine, theirs)
    cards = [_placed(after, seat, m) for m in mine] + [_placed(after, target, t) for t in theirs]
    return {"type": "swapped", "data": {"seat": seat, "target": target, "mine": mine, "theirs": theirs,
                                        "cards": cards}}


def _decide_score(state: dict, seat: int, move: dict) -> list[dict]:
    start, count, colour = required(find_run([card["inner"] for card in state["holders"][seat]]),
                                    "no_set", "you see no run of 4-6 adjacent cards of one colour in your holder")
    cards = collected(state["holders"][seat][start:start + count], "inner")
    scored = {"type": "scored", "data": {"seat": seat, "start": start, "count": count, "colour": colour,
                                         "cards": cards}}
    return [scored, _refill_event(evolve(state, scored), seat)]


def _decide_swipe(state: dict, seat: int, move: dict) -> list[dict]:
    target = move["target"]
    _check_other_seat(state, seat, target)
    start, count, colour = required(find_run([card["outer"] for card in state["holders"][target]]), "no_set",
                                    f"you see no run of 4-6 adjacent cards of one colour in seat {target}'s holder")
    cards = collected(state["holders"][target][start:start + count], "outer")
    swiped = {"type": "swiped", "data": {"seat": seat, "target": target, "start": start, "count": count,
                                         "colour": colour, "cards": cards}}
    return [swiped, _refill_event(evolve(state, swiped), target)]


def _refill_event(state: dict, owner: int) -> dict:
    """The owner draws from the top up to 6, or what is left (then the game ends: "short")."""
    holder, deck = state["holders"][owner], state["deck"]
    wanted = HOLDER_SIZE - len(holder)
    drawn = [_drawn(card) for card in deck[:wanted]]
    cards = [{"holder": owner, "place": len(holder) + i, **card} for i, card in enumerate(drawn)]
    rest = deck[len(drawn):]
    return {"type": "refilled", "data": {"seat": owner, "cards": cards, "short": len(drawn) < wanted,
                                         "deck_top": rest[0]["up"] if rest else None}}


def _decide_draw(state: dict, seat: int, move: dict) -> list[dict]:
    require(len(state["holders"]) == 2, "not_two_players", "drawing from the deck is a 2-player action")
    require(bool(state["deck"]), "deck_empty", "the deck is empty")
    _check_place(state, seat, move["place"])
    after = evolve(state, {"type": "drew", "data": {"seat": seat, "place": move["place"]}})
    return [{"type": "drew", "data": {"seat": seat, "place": move["place"],
                                      "cards": [_placed(after["holders"], seat, move["place"])],
                                      "deck_top": after["deck"][0]["up"]}}]


def _decide_spend_token(state: dict, seat: int, move: dict) -> list[dict]:
    require(state["tokens"] is not None, "no_tokens_variant", "this match is played without tokens")
    require(state["tokens"][seat] > 0, "no_tokens_left", "you have no token left")
    require(not state["token_spent"], "token_already_spent", "one token per turn")
    return [{"type": "token_spent", "data": {"seat": seat}}]


_RULES = {"flip": _decide_flip, "switch": _decide_switch, "swap1": _decide_swap1, "swap2": _decide_swap2,
          "score": _decide_score, "swipe": _decide_swipe, "draw": _decide_draw,
          "spend_token": _decide_spend_token}


def _ending(state: dict, events: list[dict]) -> list[dict]:
    """The game ends as soon as a seat cannot refill to 6, or when stall_rounds rounds in a row pass
    without a set (counted at the end of a turn: the turns completed since the turn of the last set)."""
    short = [e["data"]["seat"] for e in events if e["type"] == "refilled" and e["data"]["short"]]
    after = state
    for event in events:
        after = evolve(after, event)
    if short:
        return [_end_event(after, "deck_exhausted", short[0])]
    if after["turns"] - after["quiet_since"] >= after["options"]["stall_rounds"] * len(after["holders"]):
        return [_end_event(after, "stalled", None)]
    return []


def _end_event(state: dict, reason: str, seat: int | None) -> dict:
    """Every seat collects the run of 4-6 facing it, if it has one; the rest of the holders do not count."""
    collections = []
    for owner, holder in enumerate(state["holders"]):
        run = find_run([card["inner"] for card in holder])
        if run:
            start, count, colour = run
            collections.append({"seat": owner, "start": start, "count": count, "colour": colour,
                                "cards": collected(holder[start:start + count], "inner")})
    return {"type": "game_ended", "data": {"reason": reason, "seat": seat, "collections": collections}}


def find_run(faces: list | tuple) -> tuple[int, int, str] | None:
    """The run of 4-6 adjacent equal faces (None = unseen never counts): (start, count, colour) or None.
    A holder has 6 places, so it holds at most one such run."""
    start = 0
    while start < len(faces):
        end = start + 1
        while end < len(faces) and faces[end] == faces[start]:
            end += 1
        if faces[start] is not None and end - start >= SET_SIZES[0]:
            return start, end - start, faces[start]
        start = end
    return None


def _placed(holders: list[list], holder: int, place: int) -> dict:
    """A card as it now lies, with where it lies (redact() hides the face its viewer cannot see)."""
    return {"holder": holder, "place": place, **holders[holder][place]}


def _same_colour_pair(cards: list[dict], left: int, face: str) -> bool:
    return cards[left][face] == cards[left + 1][face]


def _check_seat(state: dict, holder: int) -> None:
    require(0 <= holder < len(state["holders"]), "invalid_target", f"there is no seat {holder}")


def _check_other_seat(state: dict, seat: int, target: int) -> None:
    require(0 <= target < len(state["holders"]) and target != seat, "invalid_target",
            "name another seat of this match")


def _check_place(state: dict, holder: int, place: int) -> None:
    require(0 <= place < len(state["holders"][holder]), "invalid_place", f"places are 0 to {HOLDER_SIZE - 1}")


def _check_pair_place(state: dict, holder: int, left: int) -> None:
    require(0 <= left < len(state["holders"][holder]) - 1, "invalid_place",
            f"a pair starts at a place from 0 to {HOLDER_SIZE - 2}")


# --- legal moves and whose turn ---------------------------------------------------------------------
def legal_moves(state: dict, seat: int) -> list[dict]:
    """Every distinct move: a switch is listed once per unordered pair of places (first < second), a swap2
    once per pair of left places whose faces match as the actor sees them."""
    if seat not in to_act(state):
        return []
    holders = state["holders"]
    inner = [tuple(card["inner"] for card in holder) for holder in holders]
    outer = [tuple(card["outer"] for card in holder) for holder in holders]
    can_spend = state["tokens"] is not None and state["tokens"][seat] > 0 and not state["token_spent"]
    return _legal(inner, outer, seat, bool(state["deck"]), can_spend)


def _legal(inner: list[tuple], outer: list[tuple], seat: int, deck: bool, can_spend: bool) -> list[dict]:
    """The legal moves from each holder's inner and outer faces: the one list of them for legal_moves and
    the simulation (only the seat's own inner faces and the others' outer faces count, so greedy can list
    them from a view)."""
    players = len(inner)
    others = [other for other in range(players) if other != seat]
    sizes = [len(faces) for faces in inner]
    moves = [{"action": "flip", "holder": h, "place": p} for h in range(players) for p in range(sizes[h])]
    moves += [{"action": "switch", "holder": h, "first": a, "second": b}
              for h in range(players) for a in range(sizes[h]) for b in range(a + 1, sizes[h])]
    moves += [{"action": "swap1", "target": t, "mine": m, "theirs": p}
              for t in others for m in range(sizes[seat]) for p in range(sizes[t])]
    my_pairs = _pair_places(inner[seat])
    moves += [{"action": "swap2", "target": t, "mine": m, "theirs": p}
              for t in others for p in _pair_places(outer[t]) for m in my_pairs]
    if find_run(inner[seat]):
        moves.append({"action": "score"})
    moves += [{"action": "swipe", "target": t} for t in others if find_run(outer[t])]
    if players == 2 and deck:
        moves += [{"action": "draw", "place": p} for p in range(sizes[seat])]
    if can_spend:
        moves.append({"action": "spend_token"})
    return moves


_MOVE_FIELDS = {"flip": ("holder", "place"), "switch": ("holder", "first", "second"),
                "swap1": ("target", "mine", "theirs"), "swap2": ("target", "mine", "theirs"), "score": (),
                "swipe": ("target",), "draw": ("place",), "spend_token": ()}


def _as_tuple(move: dict) -> tuple:
    """A move as a hashable key."""
    return (move["action"], *(move[name] for name in _MOVE_FIELDS[move["action"]]))


def _pair_places(faces: tuple) -> list[int]:
    return [left for left in range(len(faces) - 1) if faces[left] == faces[left + 1]]


def to_act(state: dict) -> list[int]:
    return [] if state["finished"] else [state["turn"]]


# --- what each seat may see -------------------------------------------------------------------------
def view(state: dict, seat: int | None) -> dict:
    deck = state["deck"]
    return {
        "options": state["options"],
        "holders": [[_seen(card, owner, seat) for card in holder] for owner, holder in enumerate(state["holders"])],
        "deck": {"count": len(deck), "top": deck[0]["up"] if deck else None},
        "score_piles": state["score_piles"],
        "tokens": state["tokens"],
        "turn": state["turn"],
        "actions_left": state["actions_left"],
        "token_spent": state["token_spent"],
        "turns": state["turns"],
        "quiet_since": state["quiet_since"],
        "finished": state["finished"],
        "end": state["end"],
    }


def _seen(card: dict, owner: int, seat: int | None) -> dict:
    """The owner sees the inner face only; everyone else (spectators too) the outer face only."""
    if owner == seat:
        return {"inner": card["inner"], "outer": None}
    return {"inner": None, "outer": card["outer"]}


def redact(event: dict, seat: int | None) -> dict:
    data = event["data"]
    if event["type"] == "dealt":
        holders = [[_seen(card, owner, seat) for card in holder] for owner, holder in enumerate(data["holders"])]
        deck = [{"up": data["deck"][0]["up"], "down": None}] + [None] * (len(data["deck"]) - 1) if data["deck"] else []
        return {**event, "data": {**data, "holders": holders, "deck": deck}}
    if event["type"] in ("flipped", "swapped", "refilled", "drew"):
        cards = [{"holder": c["holder"], "place": c["place"], **_seen(c, c["holder"], seat)} for c in data["cards"]]
        return {**event, "data": {**data, "cards": cards}}
    return event  # switches, tokens, and collected sets (shown to everyone) hide nothing


# --- the result -------------------------------------------------------------------------------------
def outcome(state: dict) -> dict | None:
    return outcome_of_piles(state["score_piles"]) if state["finished"] else None


def outcome_of_piles(piles: list[list[dict]]) -> dict:
    """A finished game's result, which its score piles alone decide."""
    rank = {seat: (len(pile), _most_of_one_colour(pile)) for seat, pile in enumerate(piles)}
    best = max(rank.values())
    return {"winners": [seat for seat, r in rank.items() if r == best],
            "scores": {str(seat): len(pile) for seat, pile in enumerate(piles)}}


def _most_of_one_colour(pile: list[dict]) -> int:
    """The tie-break: the most cards of any one colour, each card counting as the colour of its set."""
    counts = Counter(card["colour"] for card in pile)
    return max(counts.values(), default=0)


# --- bots -------------------------------------------------------------------------------------------
def recall(seen: Seen, seat: int) -> dict | None:
    """Both faces of every card the seat has seen from both sides, where each card now lies: a card flipped
    (or swapped, which turns it) shows each side in turn, a card drawn from the deck's top shows its underside
    to the drawer after its up face to all, and a card put under the deck lies there as it was seen. The
    events, folded on holders and a deck whose unseen faces are None, with the faces each event shows (and
    the deck's new top) filled in, follow every card as it moves."""
    state = None
    for events, _ in seen:
        for event in events:
            data = event["data"]
            if event["type"] == "dealt":
                unseen = {"up": None, "down": None}
                state = evolve(None, {**event, "data": {**data, "deck": [card or unseen for card in data["deck"]]}})
                continue
            state = evolve(state, event)
            holders = state["holders"]
            for shown in data.get("cards", ()) if event["type"] in ("flipped", "swapped", "refilled", "drew") else ():
                place = holders[shown["holder"]][shown["place"]]
                place = {face: place[face] if shown[face] is None else shown[face] for face in ("inner", "outer")}
                holders = _with_holders(holders, {shown["holder"]: _placed_card(holders, shown, place)})
            deck = state["deck"]
            if data.get("deck_top") is not None and deck:
                deck = [{**deck[0], "up": data["deck_top"]}] + deck[1:]
            state = {**state, "holders": holders, "deck": deck}
    return {"holders": state["holders"], "deck": state["deck"]} if state else None


def _placed_card(holders: list[list], shown: dict, card: dict) -> list[dict]:
    cards = list(holders[shown["holder"]])
    cards[shown["place"]] = card
    return cards


def determinize(view: dict, seat: int, rng, memory: dict | None = None) -> dict:
    """A full state consistent with the view: every half-seen card (holders, deck top) gets a hidden face
    from a card the seat cannot account for, the rest of those cards form the deck below the top. With a
    memory (recall), a card whose both faces the seat has seen is that card, and every card it knows a face
    of in the deck lies where it knows it."""
    pool = _DECK_KINDS.copy()
    pool.subtract(card_kind(card) for pile in view["score_piles"] for card in pile)
    known_holders = memory["holders"] if memory else view["holders"]
    # (owner or None for the deck, place, {face: colour or None} as it lies there)
    slots: list[tuple[int | None, int, dict]] = []
    for holder_seat, holder in enumerate(known_holders):
        for place, card in enumerate(holder):
            shown = _own_face(view["holders"][holder_seat][place], holder_seat, seat)
            slots.append((holder_seat, place, {**card, **shown}))
    deck_known = memory["deck"] if memory else [{"up": view["deck"]["top"], "down": None}][:view["deck"]["count"]]
    slots += [(None, place, card) for place, card in enumerate(deck_known) if card["up"] or card["down"]]
    kinds = _match_kinds([tuple(colour for colour in card.values() if colour) for _, _, card in slots], pool, rng)
    holders = [list(holder) for holder in view["holders"]]
    deck: list[dict | None] = [None] * view["deck"]["count"]
    for (owner, place, card), kind in zip(slots, kinds):
        full = _filled(card, kind)
        if owner is None:
            deck[place] = full
        else:
            holders[owner][place] = full
    pool.subtract(kinds)
    rest = [kind for kind, n in pool.items() for _ in range(n)]
    rng.shuffle(rest)
    loose = iter({"up": a, "down": b} if rng.random() < 0.5 else {"up": b, "down": a} for a, b in rest)
    deck = [card or next(loose) for card in deck]
    return {"options": view["options"], "holders": holders, "deck": deck,
            "score_piles": [list(pile) for pile in view["score_piles"]], "tokens": view["tokens"],
            "turn": view["turn"], "actions_left": view["actions_left"], "token_spent": view["token_spent"],
            "turns": view["turns"], "quiet_since": view["quiet_since"], "finished": view["finished"],
            "end": view["end"]}


def _own_face(card: dict, owner: int, seat: int) -> dict:
    """The face of a holder's card the seat sees now, as the view shows it."""
    face = "inner" if owner == seat else "outer"
    return {face: card[face]}


def _filled(card: dict, kind: tuple) -> dict:
    """The card as it lies (two face names), its unknown face the colour of `kind` its known one leaves."""
    (first, a), (second, b) = card.items()
    if a is None:
        return {first: _other_face(kind, b), second: b}
    return {first: a, second: b if b is not None else _other_face(kind, a)}


def _other_face(kind: tuple, face: str) -> str:
    return kind[1] if kind[0] == face else kind[0]


def _match_kinds(faces: list[tuple], pool: Counter, rng) -> list[tuple]:
    """A kind of card for each slot's known faces (one or both), at most pool[kind] slots of a kind: a random
    matching by augmenting paths, so it never gets stuck when the true state shows one exists. A slot tries the
    kinds that carry its faces in a random order where a kind comes first as often as its share of the cards
    left (Efraimidis and Spirakis' weighted draw), as if it drew an unseen card; kinds, not cards, are matched
    (15 of them), so a sample costs little however many slots the seat knows a face of."""
    preferences = [sorted((kind for kind in _fitting(known) if pool[kind] > 0),
                          key=lambda kind: rng.random() ** (1 / pool[kind]), reverse=True) for known in faces]
    slots_of: dict[tuple, list[int]] = {kind: [] for kind in pool}
    order = list(range(len(faces)))
    rng.shuffle(order)
    for slot in order:
        if not _augment(slot, preferences, slots_of, pool, set()):
            raise ValueError("the view is inconsistent with the deck")
    kinds: list[tuple] = [()] * len(faces)
    for kind, slots in slots_of.items():
        for slot in slots:
            kinds[slot] = kind
    return kinds


def _augment(slot: int, preferences: list[list[tuple]], slots_of: dict[tuple, list[int]], pool: Counter,
             tried: set) -> bool:
    for kind in preferences[slot]:
        if kind in tried:
            continue
        tried.add(kind)
        holding = slots_of[kind]
        if len(holding) < pool[kind]:
            holding.append(slot)
            return True
        for index, other in enumerate(holding):
            if _augment(other, preferences, slots_of, pool, tried):
                holding[index] = slot
                return True
    return False


@cache
def _fitting(known: tuple) -> tuple:
    """The kinds of card that carry these faces: that pair of colours, or every pair with that colour."""
    if len(known) == 2:
        return (tuple(sorted(known)),)
    return tuple(kind for kind in _DECK_KINDS if known[0] in kind)


class SetWeights(NamedTuple):
    """What greedy weighs in a move besides my window (the most cards of one colour facing me in 4 adjacent
    places, 1 a card): the set it brings within reach, and when to take or buy one (bench/bots.py tunes
    them by self-play as `greedy[next_turn=600]`, in hundredths: docs/bots.md "Greedy's weights")."""
    next_action: float = 10  # per card of a set my next action this turn can take: surest
    next_turn: float = 4  # per card of a set left for my next turn, which the others may take or break first
    score_over_swipe: float = 0.5  # a score over a swipe that gives me as many cards (it feeds its victim one)
    token_deck: float = len(build_deck())  # a token is spent once the deck is down to this many cards: all, so at once


GREEDY_WEIGHTS = SetWeights()


def greedy(view: dict, seat: int, moves: list[dict], rng, weights: SetWeights = GREEDY_WEIGHTS) -> dict:
    """One action ahead: take a set when there is one (the biggest), else the move whose result, as far as
    this seat can see it, brings a set closest: a run to score or swipe with the next action, else the
    most cards of one colour facing me in 4 adjacent places. A token is spent when it lets a set be taken
    and still leaves an action, or once the deck is down to `token_deck` cards: by default at once, the
    first action of each turn while tokens last (an action early is worth more than one kept)."""
    faces = _faces_seen(view["holders"], seat)
    every = _legal(faces, faces, seat, True, True)  # a seat's moves depend only on the faces it sees
    values = _greedy_values(faces, seat, view["actions_left"], view["deck"]["count"], every, weights)
    value_of = {_as_tuple(move): value for move, value in zip(every, values)}
    return moves[highest([value_of[_as_tuple(move)] for move in moves], rng)]


def _faces_seen(holders: list[list], seat: int) -> list[tuple]:
    """Each holder as this seat sees it: its own inner faces, the others' outer faces."""
    return [tuple(card["inner" if owner == seat else "outer"] for card in cards)
            for owner, cards in enumerate(holders)]


_CHANGES = ("flip", "switch", "swap1", "swap2")  # _legal lists these first
_OUTDONE = -1000  # the value given to a move that a set to take outdoes, instead of weighing it
SET = 100  # a set's value before the cards it gives me (only a token is weighed beside a set)
SPEND, KEEP = 200, -100  # a token's value when greedy spends it (above any set) and keeps it (below any move)


def _greedy_values(faces: list[tuple], seat: int, actions_left: int, deck_count: int, moves: list[dict],
                   weights: SetWeights) -> list[float]:
    """Greedy's value of each move of `moves`, which are _legal's moves in _legal's order (a subset of
    groups may be missing only at the end: draws, the token), or _OUTDONE for a move that cannot be the best
    (while a set can be taken, the rest is not weighed). A holder is judged by the faces this seat sees
    on it; the values of one holder's flips and switches, and of the swaps between two holders, are
    remembered between calls: greedy weighs 85-250 moves each action, and one action changes at most two
    holders, so most of it was weighed before. The fast simulation (domain/simulations/flipout.py) weighs
    the same values its own way, from tables: a change here is a change there (test_simulation.py)."""
    takes = [_take_of(seen, owner == seat) for owner, seen in enumerate(faces)]
    window = _window_of(faces[seat])
    weight = weights.next_action if actions_left > 1 else weights.next_turn
    others_best = [max(takes[:h] + takes[h + 1:], default=0) for h in range(len(takes))]  # unchanged holders
    others = [h for h in range(len(faces)) if h != seat]
    if any(takes):  # a set to take is taken: no flip, switch, swap or draw is weighed against it
        values: list[float] = [_OUTDONE] * next(i for i, move in enumerate(moves) if move["action"] not in _CHANGES)
    else:
        values = []
        for h, seen in enumerate(faces):
            values += _turn_values(seen, h == seat, weight, others_best[h], window)
        for h, seen in enumerate(faces):
            values += _switch_values(seen, h == seat, weight, others_best[h], window)
        for width in (1, 2):
            for target in others:
                rest = max((take for h, take in enumerate(takes) if h not in (seat, target)), default=0)
                values += _swap_values(faces[seat], faces[target], width, weight, rest)
    values += [SET + weights.score_over_swipe + takes[seat]] if takes[seat] else []
    values += [SET + takes[target] for target in others if find_run(faces[target])]
    extra = moves[len(values):]
    if extra and extra[0]["action"] == "draw":
        values += [_OUTDONE] * len(faces[seat]) if any(takes) else _turn_values(faces[seat], True, weight,
                                                                                others_best[seat], window)
    if moves[-1]["action"] == "spend_token":
        spend = (max(takes) and actions_left == 1) or deck_count <= weights.token_deck
        values.append(SPEND if spend else KEEP)
    return values


@lru_cache(maxsize=1 << 14)
def _turn_values(faces: tuple, mine: bool, weight: float, others_best: int, window: int) -> tuple:
    """A flip (or a draw) at each place of one holder: the card there then shows this seat a face it has not
    seen (None)."""
    return tuple(_value(faces[:place] + (None,) + faces[place + 1:], mine, weight, others_best, window)
                 for place in range(len(faces)))


@lru_cache(maxsize=1 << 14)
def _switch_values(faces: tuple, mine: bool, weight: float, others_best: int, window: int) -> tuple:
    """A switch of each pair of places of one holder, first < second."""
    values = []
    for first, second in combinations(range(len(faces)), 2):
        seen = list(faces)
        seen[first], seen[second] = seen[second], seen[first]
        values.append(_value(tuple(seen), mine, weight, others_best, window))
    return tuple(values)


def _value(seen: tuple, mine: bool, weight: float, others_best: int, window: int) -> float:
    """A move that changed one holder to `seen`: what I could take next (there or elsewhere) and my window."""
    return weight * max(_take_of(seen, mine), others_best) + (_window_of(seen) if mine else window)


@lru_cache(maxsize=1 << 14)
def _swap_values(own: tuple, other: tuple, width: int, weight: float, rest: int) -> tuple:
    """A swap of `width` adjacent cards at each (mine, theirs) in _legal's order: every place for swap1, the
    same-colour pairs for swap2. A card that crosses turns, so the face it showed this seat on one side still
    faces it on the other (swap_cards)."""
    if width == 1:
        places = [(mine, theirs) for mine in range(len(own)) for theirs in range(len(other))]
    else:
        places = [(mine, theirs) for theirs in _pair_places(other) for mine in _pair_places(own)]
    values = []
    for mine, theirs in places:
        new_own = own[:mine] + other[theirs:theirs + width] + own[mine + width:]
        new_other = other[:theirs] + own[mine:mine + width] + other[theirs + width:]
        values.append(weight * max(_take_of(new_own, True), _take_of(new_other, False), rest) + _window_of(new_own))
    return tuple(values)


# Unbounded: a holder is at most 6 faces of 5 colours or None, so fewer than 56,000 tuples exist (about
# 20 MB for both caches when every one has been seen); a bounded cache evicted in every playout.
@cache
def _take_of(faces: tuple, mine: bool) -> int:
    """How many cards a set in a holder would give me: my own run, or another seat's visible run less one."""
    run = find_run(faces)
    return 0 if run is None else run[1] if mine else run[1] - 1


@cache
def _window_of(faces: tuple) -> int:
    """How close my inner faces are to a set: the most cards of one colour in any 4 adjacent places."""
    best = 0
    for start in range(len(faces) - SET_SIZES[0] + 1):
        window = faces[start:start + SET_SIZES[0]]
        best = max([best] + [window.count(face) for face in set(window) if face is not None])
    return best


PLAYOUT_CAP = 6  # moves a search plays out before evaluate scores the state (tuned: docs/bots.md)
GREEDY_ROLLOUTS = 100  # percent of a search's playout moves greedy plays (all greedy; tuned: docs/bots.md)

def evaluate(state: dict, seat: int) -> float:
    return chance([len(pile) for pile in state["score_piles"]], seat)


def chance(pile_sizes: list[int], seat: int) -> float:
    """evaluate from the score piles' sizes (the simulation's too): a set of 4 ahead weighs e to 1."""
    return win_share(pile_sizes, seat, SET_SIZES[0])


# --- simulation -------------------------------------------------------------------------------------
def simulation(state: dict) -> Simulation:
    return fast_simulation("domain.simulations.flipout")(state)
