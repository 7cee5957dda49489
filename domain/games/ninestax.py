"""9STAX (seed 002; RULINGS.md "9stax"). Rules page: docs/games/ninestax.md.

A card is {"colour": "red" | "green" | "blue" | "purple" | None, "face": "1".."9" | action}; the wild cards
(Color Shift, Free Discard) have no colour. Every seat has numbered stacks (list positions, 0 = stack #1)
and holds one of them (`held`); it plays cards from the held stack onto the discard pile, matching the
lead's colour or face. The first seat without cards wins.

A turn is `play` (a card of the held stack), `draw`, or `pass` (only when neither is possible). What the
rules make a two-step or a reaction is a `pending` step, and to_act/legal_moves say who answers it:
    shift   the seat that played a Color Shift plays one more card (any card of its held stack)
    choose  the seat that played Attack, Swap, Peek, Reveal or Free Discard names the target(s)
    effect  the seats hit by Attack, Swap, Peek or Reveal answer at once: `immunity` or `accept`
    drawn   a seat that drew a card plays it (`play_drawn`, only if it matches) or `keep`s it: every draw
            has this step, so whether the hidden card matched shows in nothing the others see
    peek    the peeker, who now sees the stack, `exchange`s one card or `end_peek`s
Stacks are positions: a Swap leaves every seat holding the same position (so it holds the stack that
arrived), and a Reveal reveals a position (so the stack that moves down into it is revealed).
"""
from collections import Counter
from typing import NamedTuple

from domain.protocol import (BOOLEAN, INTEGER, STRING, Field, GameInfo, Option, Seen, ViewField, highest, list_of,
                             named, next_seat, nullable, one_of, parse_move, record, require, started,
                             validate_options, win_share)
from domain.simulation import Simulation, fast_simulation

# --- components -------------------------------------------------------------------------------------
COLOURS = ("red", "green", "blue", "purple")
NUMBERS = tuple(str(n) for n in range(1, 10))
NUMBER_COPIES = 3
ACTION_COPIES = {"attack": 4, "swap": 3, "discard": 4, "reverse": 2, "peek": 2, "reveal": 2}
WILD_COPIES = {"color_shift": 12, "free_discard": 12}
WILDS = tuple(WILD_COPIES)
STACKS_PER_SEAT, CARDS_PER_STACK = 9, 4
DECK_SIZE = 200
DEFAULT_MAX_TURNS = 600
TARGETED = {"attack": "attack", "swap": "swap", "peek": "peek", "reveal": "reveal", "free_discard": "free_discard"}
HITS = ("attack", "swap", "peek", "reveal")  # the cards an Immunity tile answers

_STACK = "a stack position of that seat (0 = stack #1)"
_CARD = named("Card", record({"colour": nullable(named("Colour", one_of(*COLOURS))),
                             "face": named("Face", one_of(*NUMBERS, *ACTION_COPIES, *WILDS))}))
_PENDING = named("Pending", record(
    {"kind": one_of("shift", "choose", "effect", "drawn", "peek"), "seat": INTEGER, "face": STRING,
     "card": nullable(_CARD), "reason": STRING, "effect": one_of(*HITS), "target": INTEGER, "stack": INTEGER,
     "stacks": list_of(list_of(INTEGER)), "waiting": list_of(INTEGER), "immune": list_of(INTEGER)},
    optional=("face", "card", "reason", "effect", "target", "stack", "stacks", "waiting", "immune")))
INFO = GameInfo(
    id="9stax",
    name="9STAX",
    min_players=2,
    max_players=4,
    summary="Play cards from the stack you hold, matching colour or face, until all nine of your stacks are gone.",
    options=(Option("max_turns", "integer", DEFAULT_MAX_TURNS,
                    "the match ends after this many turns; then the fewest cards left wins (ties share)",
                    bounds=(1, 100_000)),),
    actions={
        "play": ("play a card of your held stack (it must match the lead, except right after a Color Shift)",
                 {"card": Field("integer", "the card's position in your held stack (0 = first)")}),
        "draw": ("draw the draw pile's top card instead of playing", {}),
        "pass": ("end your turn; only when you can neither play nor draw", {}),
        "play_drawn": ("play the card you just drew; only if it matches the lead", {}),
        "keep": ("keep the card you just drew: it goes into your held stack (after an Attack: a new stack); "
                 "the only choice when it does not match", {}),
        "attack": ("name the seat your Attack makes draw a card", {"target": Field("integer", "another seat")}),
        "swap": ("name the two stacks your Swap exchanges (any owners, two different stacks)",
                 {"first_seat": Field("integer", "the seat owning the first stack"),
                  "first_stack": Field("integer", _STACK),
                  "second_seat": Field("integer", "the seat owning the second stack"),
                  "second_stack": Field("integer", _STACK)}),
        "peek": ("name the opponent's stack your Peek looks at",
                 {"target": Field("integer", "another seat"), "stack": Field("integer", _STACK)}),
        "reveal": ("name the stack position your Reveal turns face up for every opponent",
                   {"stack": Field("integer", "a stack position (0 = stack #1) that some opponent has")}),
        "free_discard": ("name the stack of yours your Free Discard discards",
                         {"stack": Field("integer", "one of your stack positions (0 = stack #1)")}),
        "immunity": ("use your Immunity tile to cancel the Attack, Swap, Peek or Reveal that hits you", {}),
        "accept": ("let the Attack, Swap, Peek or Reveal that hits you take effect", {}),
        "exchange": ("after a Peek: exchange one card of the peeked stack with one of your held stack",
                     {"card": Field("integer", "the card's position in the peeked stack"),
                      "own_card": Field("integer", "the card's position in your held stack")}),
        "end_peek": ("after a Peek: hand the stack back without exchanging", {}),
    },
    view={
        "players": ViewField(INTEGER, "number of seats"),
        "stacks": ViewField(list_of(list_of(list_of(nullable(_CARD)))),
                            "per seat, per position, the stack's cards; a card the viewer may not see is 'null' "
                            "(lengths are real, so stack and card counts are public)"),
        "held": ViewField(list_of(INTEGER), "per seat, the position it holds (public: everyone sees which stack a "
                                            "player picks up)"),
        "cards_left": ViewField(list_of(INTEGER), "per seat, its number of cards"),
        "draw_pile": ViewField(INTEGER, "the number of cards in the draw pile"),
        "discard_pile": ViewField(record({"count": INTEGER, "top": nullable(_CARD)}),
                                  "'{count, top}': the top card is public, the rest is not shown"),
        "lead": ViewField(nullable(_CARD), "the card to match, or 'null' when any card may be played (game start, "
                                           "after a Free Discard, during a Color Shift)"),
        "direction": ViewField(one_of(1, -1), "'1' or '-1'"),
        "turn": ViewField(INTEGER, "the seat whose turn it is (during windows and follow-up steps, 'to_act' says "
                                   "who answers)"),
        "turns": ViewField(INTEGER, "turns played so far"),
        "max_turns": ViewField(INTEGER, "the turn limit"),
        "immunity": ViewField(list_of(BOOLEAN), "per seat, 'true' while its tile is unused"),
        "reveal": ViewField(nullable(record({"stack": INTEGER, "revealer": INTEGER, "immune": list_of(INTEGER)})),
                            "'null' or '{stack, revealer, immune: [seats]}': the revealed position, the exempt "
                            "revealer, and seats that used immunity against it"),
        "pending": ViewField(nullable(_PENDING), "the pending step (see the table above) with its public data; in a "
                                                 "'drawn' step 'card' is 'null' except for the drawer"),
        "winners": ViewField(nullable(list_of(INTEGER)), "'null' while the game goes on"),
    },
)

STEP_ACTIONS = {  # pending kind -> the actions that answer it
    "turn": ("play", "draw", "pass"),
    "shift": ("play",),
    "drawn": ("play_drawn", "keep"),
    "effect": ("immunity", "accept"),
    "peek": ("exchange", "end_peek"),
}


def build_deck() -> list[dict]:
    """The deck in its fixed order, new dicts each time (copied from a template: determinize counts the deck
    for every sample a search makes)."""
    return list(map(dict.copy, _DECK))


def card(colour: str | None, face: str) -> dict:
    return {"colour": colour, "face": face}


_DECK = tuple([card(c, n) for c in COLOURS for n in NUMBERS for _ in range(NUMBER_COPIES)]
              + [card(c, a) for c in COLOURS for a, copies in ACTION_COPIES.items() for _ in range(copies)]
              + [card(None, w) for w, copies in WILD_COPIES.items() for _ in range(copies)])


def playable(played: dict, lead: dict | None) -> bool:
    """A card matches a lead of the same colour or face; wilds match anything; no lead takes anything."""
    return (lead is None or played["face"] in WILDS or played["colour"] == lead["colour"]
            or played["face"] == lead["face"])


def cards_left(state: dict, seat: int) -> int:
    return sum(len(stack) for stack in state["stacks"][seat])


# --- options ----------------------------------------------------------------------------------------
def options(raw: dict, player_count: int) -> dict:
    return validate_options(INFO, raw, player_count)


# --- deal -------------------------------------------------------------------------------------------
def deal(options: dict, player_count: int, rng) -> list[dict]:
    deck = rng.shuffled(build_deck())
    per_seat = STACKS_PER_SEAT * CARDS_PER_STACK
    stacks = [[deck[seat * per_seat + i * CARDS_PER_STACK:seat * per_seat + (i + 1) * CARDS_PER_STACK]
               for i in range(STACKS_PER_SEAT)] for seat in range(player_count)]
    return [{"type": "dealt", "data": {"stacks": stacks, "draw_pile": deck[per_seat * player_count:],
                                       "max_turns": options["max_turns"]}}]


# --- evolve -----------------------------------------------------------------------------------------
def evolve(state: dict | None, event: dict) -> dict:
    return _EVOLVERS[event["type"]](state, event["data"])


def _dealt(state, data):
    players = len(data["stacks"])
    return {"players": players, "max_turns": data["max_turns"], "stacks": data["stacks"], "held": [0] * players,
            "draw_pile": data["draw_pile"], "discard_pile": [], "direction": 1, "turn": 0, "turns": 0,
            "lead": None, "immunity": [True] * players, "reveal": None, "pending": None, "winners": None}


def _card_played(state, data):
    seat, played = data["seat"], data["card"]
    own, held = list(state["stacks"][seat]), list(state["held"])
    if data["index"] is not None:  # from the held stack; None = the card just drawn
        rest = own[held[seat]][:data["index"]] + own[held[seat]][data["index"] + 1:]
        if rest:
            own[held[seat]] = rest
        else:  # an emptied stack goes, the higher ones move down, and the owner restarts on stack #1
            del own[held[seat]]
            held[seat] = 0
    state = {**_with_stacks(state, seat, own), "held": held, "discard_pile": state["discard_pile"] + [played],
             "pending": None, "lead": played}
    if not own:
        return _won(state, seat)
    face = played["face"]
    if face in NUMBERS:
        return _end_turn(_switch_stacks(state, int(face) - 1), seat)
    if face == "reverse":
        return _end_turn({**state, "direction": -state["direction"]}, seat)
    if face == "discard":
        return _discard_stack(state, seat, state["held"][seat])
    if face == "color_shift":
        return {**state, "lead": None, "pending": {"kind": "shift", "seat": seat}}
    return {**state, "lead": None if face == "free_discard" else played,
            "pending": {"kind": "choose", "seat": seat, "face": face}}


def _switch_stacks(state, position):
    """A number card moves every seat that has that stack to it; the others stay where they are."""
    return {**state, "held": [position if len(stacks) > position else held
                              for stacks, held in zip(state["stacks"], state["held"])]}


def _discard_stack(state, seat, position):
    """A whole stack goes under the card on top of the discard pile (Discard and Free Discard)."""
    own, held = list(state["stacks"][seat]), list(state["held"])
    gone = own.pop(position)
    if held[seat] == position:
        held[seat] = 0
    elif held[seat] > position:
        held[seat] -= 1  # the seat keeps the stack it held, which moved down one place
    pile = state["discard_pile"]
    state = {**_with_stacks(state, seat, own), "held": held, "discard_pile": pile[:-1] + gone + pile[-1:]}
    return _won(state, seat) if not own else _end_turn(state, seat)


def _card_drawn(state, data):
    drawn = state["draw_pile"][0]
    return {**state, "draw_pile": state["draw_pile"][1:],
            "pending": {"kind": "drawn", "seat": data["seat"], "card": drawn, "reason": data["reason"]}}


def _place_drawn(state, seat, drawn, reason):
    """A kept card joins the held stack; one drawn because of an Attack becomes the new highest stack."""
    own = list(state["stacks"][seat])
    if reason == "attack":
        own.append([drawn])
    else:
        own[state["held"][seat]] = own[state["held"][seat]] + [drawn]
    return {**_with_stacks(state, seat, own), "pending": None}


def _drawn_card_kept(state, data):
    pending = state["pending"]
    return _end_turn(_place_drawn(state, data["seat"], pending["card"], pending["reason"]), data["seat"])


def _reshuffled(state, data):
    return {**state, "draw_pile": data["draw_pile"], "discard_pile": state["discard_pile"][-1:]}


def _passed(state, data):
    return _end_turn(state, data["seat"])


def _nothing_to_draw(state, data):
    return _end_turn({**state, "pending": None}, data["seat"])


def _attack_declared(state, data):
    return _open_window(state, {"effect": "attack", "seat": data["seat"], "target": data["target"]},
                        [data["target"]])


def _swap_declared(state, data):
    owners = {owner for owner, _ in data["stacks"]} - {data["seat"]}
    return _open_window(state, {"effect": "swap", "seat": data["seat"], "stacks": data["stacks"]}, sorted(owners))


def _peek_declared(state, data):
    return _open_window(state, {"effect": "peek", "seat": data["seat"], "target": data["target"],
                                "stack": data["stack"]}, [data["target"]])


def _reveal_declared(state, data):
    position = data["stack"]
    hit = [s for s in range(state["players"]) if s != data["seat"] and len(state["stacks"][s]) > position]
    return _open_window(state, {"effect": "reveal", "seat": data["seat"], "stack": position}, hit)


def _open_window(state, effect, hit):
    """Only seats that still have their Immunity tile get to answer; an empty window is settled at once by
    decide (it appends the effect's event)."""
    waiting = [s for s in hit if state["immunity"][s]]
    return {**state, "pending": {"kind": "effect", **effect, "waiting": waiting, "immune": []}}


def _immunity_used(state, data):
    seat, pending = data["seat"], state["pending"]
    immunity = list(state["immunity"])
    immunity[seat] = False
    state = {**state, "immunity": immunity}
    if pending["effect"] == "reveal":  # the Reveal goes on for the others; this seat's stack stays hidden
        return {**state, "pending": {**pending, "waiting": [s for s in pending["waiting"] if s != seat],
                                     "immune": pending["immune"] + [seat]}}
    if pending["effect"] == "attack":  # the target neither draws nor loses its turn: it plays next
        return _give_turn({**state, "pending": None}, seat)
    return _end_turn({**state, "pending": None}, pending["seat"])  # a Swap or Peek cancelled for one is off


def _immunity_declined(state, data):
    pending = state["pending"]
    return {**state, "pending": {**pending, "waiting": [s for s in pending["waiting"] if s != data["seat"]]}}


def _stacks_swapped(state, data):
    (a, i), (b, j) = data["stacks"]
    stacks = [list(own) for own in state["stacks"]]
    stacks[a][i], stacks[b][j] = state["stacks"][b][j], state["stacks"][a][i]
    return _end_turn({**state, "stacks": stacks, "pending": None}, data["seat"])


def _stack_peeked(state, data):
    return {**state, "pending": {"kind": "peek", "seat": data["seat"], "target": data["target"],
                                 "stack": data["stack"]}}


def _cards_exchanged(state, data):
    seat, target, position = data["seat"], data["target"], data["stack"]
    theirs, mine = list(state["stacks"][target]), list(state["stacks"][seat])
    peeked, held = list(theirs[position]), list(mine[state["held"][seat]])
    peeked[data["card"]], held[data["own_card"]] = held[data["own_card"]], peeked[data["card"]]
    theirs[position], mine[state["held"][seat]] = peeked, held
    state = _with_stacks(_with_stacks(state, target, theirs), seat, mine)
    return _end_turn({**state, "pending": None}, seat)


def _peek_ended(state, data):
    return _end_turn({**state, "pending": None}, data["seat"])


def _stack_revealed(state, data):
    reveal = {"stack": data["stack"], "revealer": data["seat"], "immune": data["immune"]}
    return _end_turn({**state, "reveal": reveal, "pending": None}, data["seat"])


def _stack_discarded(state, data):
    return _discard_stack({**state, "pending": None}, data["seat"], data["stack"])


def _with_stacks(state, seat, own):
    stacks = list(state["stacks"])
    stacks[seat] = own
    return {**state, "stacks": stacks}


def _end_turn(state, seat):
    return _give_turn(state, next_seat(seat, state["players"], state["direction"]))


def _give_turn(state, seat):
    """The turn passes to `seat`; after max_turns turns the match ends and the fewest cards win."""
    turns = state["turns"] + 1
    state = {**state, "turn": seat, "turns": turns}
    if turns < state["max_turns"]:
        return state
    left = [cards_left(state, s) for s in range(state["players"])]
    return {**state, "pending": None, "winners": [s for s, n in enumerate(left) if n == min(left)]}


def _won(state, seat):
    return {**state, "pending": None, "winners": [seat]}


_EVOLVERS = {
    "dealt": _dealt, "card_played": _card_played, "card_drawn": _card_drawn, "drawn_card_kept": _drawn_card_kept,
    "reshuffled": _reshuffled, "passed": _passed, "nothing_to_draw": _nothing_to_draw,
    "attack_declared": _attack_declared, "swap_declared": _swap_declared, "peek_declared": _peek_declared,
    "reveal_declared": _reveal_declared, "immunity_used": _immunity_used, "immunity_declined": _immunity_declined,
    "stacks_swapped": _stacks_swapped, "stack_peeked": _stack_peeked, "cards_exchanged": _cards_exchanged,
    "peek_ended": _peek_ended, "stack_revealed": _stack_revealed, "stack_discarded": _stack_discarded,
}


# --- decide -----------------------------------------------------------------------------------------
def decide(state: dict, seat: int, move: dict, rng) -> list[dict]:
    move = parse_move(INFO, move)
    require(state["winners"] is None, "game_over", "the game is over")
    require(seat in to_act(state), "not_your_turn", f"seats to act: {to_act(state)}")
    step = _step(state)
    expected = (TARGETED[state["pending"]["face"]],) if step == "choose" else STEP_ACTIONS[step]
    require(move["action"] in expected, "unexpected_action",
            f"now {'one of ' if len(expected) > 1 else ''}{', '.join(expected)} is expected")
    return _settle(state, _DECIDERS[move["action"]](state, seat, move, rng), rng)


def _step(state) -> str:
    return state["pending"]["kind"] if state["pending"] else "turn"


def _play(state, seat, move, rng):
    held = _held_stack(state, seat)
    require(0 <= move["card"] < len(held), "no_such_card", f"your held stack has {len(held)} cards")
    played = held[move["card"]]
    require(_step(state) == "shift" or playable(played, state["lead"]), "card_not_playable",
            "the card matches neither the lead's colour nor its face")
    return [{"type": "card_played", "data": {"seat": seat, "index": move["card"], "card": played}}]


def _draw(state, seat, move, rng):
    require(_can_draw(state), "nothing_to_draw", "the draw pile and the discard pile below its top are empty")
    return _draw_events(state, seat, "draw", rng)


def _pass(state, seat, move, rng):
    require(not _can_draw(state) and not _plays(state, seat), "cannot_pass", "you can play or draw")
    return [{"type": "passed", "data": {"seat": seat}}]


def _play_drawn(state, seat, move, rng):
    require(playable(state["pending"]["card"], state["lead"]), "card_not_playable",
            "the drawn card matches neither the lead's colour nor its face: keep it")
    return [{"type": "card_played", "data": {"seat": seat, "index": None, "card": state["pending"]["card"]}}]


def _keep(state, seat, move, rng):
    return [{"type": "drawn_card_kept", "data": {"seat": seat}}]


def _attack(state, seat, move, rng):
    require(_is_opponent(state, seat, move["target"]), "invalid_target", "attack another seat of this match")
    return [{"type": "attack_declared", "data": {"seat": seat, "target": move["target"]}}]


def _swap(state, seat, move, rng):
    first, second = [move["first_seat"], move["first_stack"]], [move["second_seat"], move["second_stack"]]
    require(_is_stack(state, *first) and _is_stack(state, *second), "invalid_target", "name two stacks on the table")
    require(first != second, "invalid_target", "a stack cannot be swapped with itself")
    return [{"type": "swap_declared", "data": {"seat": seat, "stacks": [first, second]}}]


def _peek(state, seat, move, rng):
    require(_is_opponent(state, seat, move["target"]) and _is_stack(state, move["target"], move["stack"]),
            "invalid_target", "peek at a stack of another seat")
    return [{"type": "peek_declared", "data": {"seat": seat, "target": move["target"], "stack": move["stack"]}}]


def _reveal(state, seat, move, rng):
    require(0 <= move["stack"] < _reveal_range(state, seat), "invalid_target",
            "name a stack position that some opponent has")
    return [{"type": "reveal_declared", "data": {"seat": seat, "stack": move["stack"]}}]


def _free_discard(state, seat, move, rng):
    require(_is_stack(state, seat, move["stack"]), "invalid_target", "discard one of your own stacks")
    count = len(state["stacks"][seat][move["stack"]])
    return [{"type": "stack_discarded", "data": {"seat": seat, "stack": move["stack"], "count": count}}]


def _immunity(state, seat, move, rng):
    return [{"type": "immunity_used", "data": {"seat": seat, "effect": state["pending"]["effect"]}}]


def _accept(state, seat, move, rng):
    return [{"type": "immunity_declined", "data": {"seat": seat}}]


def _exchange(state, seat, move, rng):
    pending = state["pending"]
    peeked, held = state["stacks"][pending["target"]][pending["stack"]], _held_stack(state, seat)
    require(0 <= move["card"] < len(peeked) and 0 <= move["own_card"] < len(held), "no_such_card",
            f"the peeked stack has {len(peeked)} cards and your held stack {len(held)}")
    return [{"type": "cards_exchanged", "data": {
        "seat": seat, "target": pending["target"], "stack": pending["stack"], "card": move["card"],
        "own_card": move["own_card"], "taken": peeked[move["card"]], "given": held[move["own_card"]]}}]


def _end_peek(state, seat, move, rng):
    return [{"type": "peek_ended", "data": {"seat": seat}}]


_DECIDERS = {
    "play": _play, "draw": _draw, "pass": _pass, "play_drawn": _play_drawn, "keep": _keep, "attack": _attack,
    "swap": _swap, "peek": _peek, "reveal": _reveal, "free_discard": _free_discard, "immunity": _immunity,
    "accept": _accept, "exchange": _exchange, "end_peek": _end_peek,
}


def _settle(state, events, rng) -> list[dict]:
    """The move's events, then what follows on its own: the effect of a window that every seat hit has
    answered (the Attack's draw, the swap, the peeked cards, the reveal)."""
    for event in events:
        state = evolve(state, event)
    pending = state["pending"]
    if not pending or pending["kind"] != "effect" or pending["waiting"]:
        return events
    return events + _settle(state, _effect_events(state, pending, rng), rng)


def _effect_events(state, pending, rng):
    seat, effect = pending["seat"], pending["effect"]
    if effect == "attack":
        if not _can_draw(state):
            return [{"type": "nothing_to_draw", "data": {"seat": pending["target"]}}]
        return _draw_events(state, pending["target"], "attack", rng)
    if effect == "swap":
        return [{"type": "stacks_swapped", "data": {"seat": seat, "stacks": pending["stacks"]}}]
    if effect == "peek":
        cards = state["stacks"][pending["target"]][pending["stack"]]
        return [{"type": "stack_peeked", "data": {"seat": seat, "target": pending["target"],
                                                  "stack": pending["stack"], "cards": cards}}]
    return [{"type": "stack_revealed", "data": {"seat": seat, "stack": pending["stack"],
                                                "immune": pending["immune"]}}]


def _draw_events(state, seat, reason, rng):
    """The top card of the draw pile; an empty pile is first rebuilt from the discard pile but its top."""
    events, pile = [], state["draw_pile"]
    if not pile:
        pile = rng.shuffled(state["discard_pile"][:-1])
        events.append({"type": "reshuffled", "data": {"draw_pile": pile}})
    drawn = pile[0]
    return events + [{"type": "card_drawn", "data": {"seat": seat, "card": drawn, "reason": reason}}]


def _can_draw(state) -> bool:
    return bool(state["draw_pile"]) or len(state["discard_pile"]) > 1


def _held_stack(state, seat) -> list:
    return state["stacks"][seat][state["held"][seat]]


def _is_opponent(state, seat, other) -> bool:
    return 0 <= other < state["players"] and other != seat


def _is_stack(state, owner, position) -> bool:
    return 0 <= owner < state["players"] and 0 <= position < len(state["stacks"][owner])


def _reveal_range(state, seat) -> int:
    return max(len(state["stacks"][s]) for s in range(state["players"]) if s != seat)


# --- legal moves and whose turn ---------------------------------------------------------------------
def legal_moves(state: dict, seat: int) -> list[dict]:
    """Every legal move; a Swap's two stacks are listed once, in table order (the reverse order is the
    same swap and is accepted too)."""
    if seat not in to_act(state):
        return []
    step, pending = _step(state), state["pending"]
    if step == "turn":
        moves = [{"action": "play", "card": i} for i in _plays(state, seat)]
        moves += [{"action": "draw"}] if _can_draw(state) else []
        return moves or [{"action": "pass"}]
    if step == "shift":
        return [{"action": "play", "card": i} for i in range(len(_held_stack(state, seat)))]
    if step == "drawn":
        return ([{"action": "play_drawn"}] if playable(pending["card"], state["lead"]) else []) + [{"action": "keep"}]
    if step == "effect":
        return [{"action": "immunity"}, {"action": "accept"}]
    if step == "peek":
        peeked = state["stacks"][pending["target"]][pending["stack"]]
        return [{"action": "exchange", "card": i, "own_card": j}
                for i in range(len(peeked)) for j in range(len(_held_stack(state, seat)))] + [{"action": "end_peek"}]
    return _choices(state, seat, pending["face"])


def _plays(state, seat) -> list[int]:
    return [i for i, c in enumerate(_held_stack(state, seat)) if playable(c, state["lead"])]


def _choices(state, seat, face) -> list[dict]:
    players = range(state["players"])
    if face == "attack":
        return [{"action": "attack", "target": t} for t in players if t != seat]
    if face == "peek":
        return [{"action": "peek", "target": t, "stack": i}
                for t in players if t != seat for i in range(len(state["stacks"][t]))]
    if face == "reveal":
        return [{"action": "reveal", "stack": i} for i in range(_reveal_range(state, seat))]
    if face == "free_discard":
        return [{"action": "free_discard", "stack": i} for i in range(len(state["stacks"][seat]))]
    table = [(s, i) for s in players for i in range(len(state["stacks"][s]))]
    return [{"action": "swap", "first_seat": a, "first_stack": i, "second_seat": b, "second_stack": j}
            for n, (a, i) in enumerate(table) for b, j in table[n + 1:]]


def to_act(state: dict) -> list[int]:
    pending = state["pending"]
    if state["winners"] is not None:
        return []
    if pending is None:
        return [state["turn"]]
    return list(pending["waiting"]) if pending["kind"] == "effect" else [pending["seat"]]


# --- what each seat may see -------------------------------------------------------------------------
def visible(state: dict, seat: int | None, owner: int, position: int) -> bool:
    """A seat sees its held stack, every revealed stack, and the stack its Peek is looking at."""
    reveal, pending = state["reveal"], state["pending"]
    if seat == owner and state["held"][owner] == position:
        return True
    if reveal and reveal["stack"] == position and owner != reveal["revealer"] and owner not in reveal["immune"]:
        return True
    return bool(pending and pending["kind"] == "peek" and seat == pending["seat"]
                and (pending["target"], pending["stack"]) == (owner, position))


def view(state: dict, seat: int | None) -> dict:
    pending = state["pending"]
    if pending and pending["kind"] == "drawn" and seat != pending["seat"]:
        pending = {**pending, "card": None}  # only the drawer has seen the drawn card
    stacks = [[list(stack) if visible(state, seat, owner, position) else [None] * len(stack)
               for position, stack in enumerate(own)] for owner, own in enumerate(state["stacks"])]
    return {
        "players": state["players"],
        "stacks": stacks,
        "held": state["held"],
        "cards_left": [cards_left(state, s) for s in range(state["players"])],
        "draw_pile": len(state["draw_pile"]),
        "discard_pile": {"count": len(state["discard_pile"]),
                         "top": state["discard_pile"][-1] if state["discard_pile"] else None},
        "lead": state["lead"],
        "direction": state["direction"],
        "turn": state["turn"],
        "turns": state["turns"],
        "max_turns": state["max_turns"],
        "immunity": state["immunity"],
        "reveal": state["reveal"],
        "pending": pending,
        "winners": state["winners"],
    }


def redact(event: dict, seat: int | None) -> dict:
    kind, data = event["type"], event["data"]
    if kind == "dealt":  # everyone starts holding stack #1 and sees only that
        stacks = [[list(stack) if (owner, position) == (seat, 0) else [None] * len(stack)
                   for position, stack in enumerate(own)] for owner, own in enumerate(data["stacks"])]
        return {**event, "data": {**data, "stacks": stacks, "draw_pile": [None] * len(data["draw_pile"])}}
    if kind == "reshuffled":
        return {**event, "data": {**data, "draw_pile": [None] * len(data["draw_pile"])}}
    if kind == "card_drawn" and seat != data["seat"]:
        return {**event, "data": {**data, "card": None}}
    if kind == "stack_peeked" and seat != data["seat"]:
        return {**event, "data": {**data, "cards": [None] * len(data["cards"])}}
    if kind == "cards_exchanged" and seat != data["seat"]:
        return {**event, "data": {**data, "taken": None, "given": None}}
    return event


# --- the result -------------------------------------------------------------------------------------
def outcome(state: dict) -> dict | None:
    """Scores are the cards each seat has left (fewer is better; the winner of a finished race has 0)."""
    if state["winners"] is None:
        return None
    return {"winners": state["winners"],
            "scores": {str(s): cards_left(state, s) for s in range(state["players"])}}


# --- bots -------------------------------------------------------------------------------------------
def recall(seen: Seen, seat: int) -> dict | None:
    """Every card the seat has seen, where it now lies: the stacks it held, peeked at or saw revealed, its
    draws, the cards played onto the discard pile (below its top too), each followed through swaps,
    exchanges and discards; and which cards a reshuffled draw pile was made of.

    The events are folded as the engine folds them, on a state whose unknown cards are tokens
    {"from": pool}: pool 0 is the deal, pool k the k-th reshuffle (its `contents`: the discard pile below
    its top, tokens of earlier pools among them). A card seen where a token lay is `consumed` from the
    token's pool. determinize deals each pool's unconsumed cards to its tokens, pool by pool."""
    state: dict | None = None
    contents: list[list[dict] | None] = [None]  # the deal's pool is the whole deck
    consumed: list[list[dict]] = [[]]

    def learn(entry: dict, card: dict) -> dict:
        if "from" in entry:
            consumed[entry["from"]].append(card)
        return card

    for events, view in seen:
        for event in events:
            kind, data = event["type"], event["data"]
            if kind == "dealt":
                stacks = [[[c or {"from": 0} for c in stack] for stack in own] for own in data["stacks"]]
                consumed[0] += [c for own in data["stacks"] for stack in own for c in stack if c]
                hidden_pile = [{"from": 0}] * len(data["draw_pile"])
                event = {**event, "data": {**data, "stacks": stacks, "draw_pile": hidden_pile}}
            elif kind == "reshuffled":
                contents.append(started(state, event)["discard_pile"][:-1])
                consumed.append([])
                event = {**event, "data": {"draw_pile": [{"from": len(contents) - 1}] * len(data["draw_pile"])}}
            elif kind == "card_played":
                before = started(state, event)
                source = (before["pending"]["card"] if data["index"] is None
                          else before["stacks"][data["seat"]][before["held"][data["seat"]]][data["index"]])
                learn(source, data["card"])
            state = evolve(state, event)
            if kind == "card_drawn" and data["card"] is not None:
                drawn = learn(state["pending"]["card"], data["card"])
                state = {**state, "pending": {**state["pending"], "card": drawn}}
            elif kind == "stack_peeked" and data["cards"][:1] != [None]:
                state = _with_stack(state, data["target"], data["stack"], data["cards"], learn)
        assert state is not None  # a change holds events, and the first change opens with the deal
        for owner, own in enumerate(view["stacks"]):
            for position, stack in enumerate(own):
                if stack[:1] != [None]:
                    state = _with_stack(state, owner, position, stack, learn)
    return {"state": state, "contents": contents, "consumed": consumed} if state else None


def _with_stack(state: dict, owner: int, position: int, cards: list[dict], learn) -> dict:
    """The state with a stack's cards as seen (each token it held learned)."""
    own = list(state["stacks"][owner])
    own[position] = [learn(entry, card) for entry, card in zip(own[position], cards)]
    return _with_stacks(state, owner, own)


def determinize(view: dict, seat: int, rng, memory: dict | None = None) -> dict:
    """A full state consistent with the view: the cards the seat cannot see are dealt at random from
    the deck minus the cards it sees (stacks, the discard pile's top, its drawn card). With a memory
    (recall), every card the seat has seen lies where it saw it go, and the cards of each reshuffle are
    what the discard pile held then."""
    if memory:
        for _ in range(DEAL_ATTEMPTS):
            world = _dealt_tokens(memory, rng)
            if world:
                return world
        raise ValueError("no world dealt holds every card this seat saw drawn from a reshuffle")
    unseen = _unseen_cards(view)
    rng.shuffle(unseen)
    deal_next = iter(unseen)
    stacks = [[[c if c is not None else next(deal_next) for c in stack] for stack in own] for own in view["stacks"]]
    pending = view["pending"]
    if pending and pending["kind"] == "drawn" and pending["card"] is None:
        pending = {**pending, "card": next(deal_next)}
    draw_pile = [next(deal_next) for _ in range(view["draw_pile"])]
    top = view["discard_pile"]["top"]
    discard_pile = [next(deal_next) for _ in range(view["discard_pile"]["count"] - 1)] + ([top] if top else [])
    return {"players": view["players"], "max_turns": view["max_turns"], "stacks": stacks, "held": view["held"],
            "draw_pile": draw_pile, "discard_pile": discard_pile, "direction": view["direction"],
            "turn": view["turn"], "turns": view["turns"], "lead": view["lead"], "immunity": view["immunity"],
            "reveal": view["reveal"], "pending": pending, "winners": view["winners"]}


DEAL_ATTEMPTS = 100  # _dealt_tokens tries before determinize gives up (about one deal in 2,000 fails once)


def _dealt_tokens(memory: dict, rng) -> dict | None:
    """The remembered state with every token dealt a card of its pool that nothing seen accounts for: the
    deal's pool first (the whole deck), then each reshuffle's (its contents, their tokens dealt by then; a
    card seen drawn from a reshuffle that no card seen in its contents accounts for is dealt to one of
    their tokens first). None when it finds no such token: the cards dealt to an earlier pool's tokens, or
    to this pool's earlier ones, took the copies it needed (the pools are dealt one after the other, not
    jointly), so determinize deals again."""
    unseen: list[list[dict]] = []  # per pool, its cards no one has been seen to take, in random order; a token takes the last

    def dealt(entry: dict) -> dict:
        return unseen[entry["from"]].pop() if "from" in entry else entry

    for pool, cards in enumerate(memory["contents"]):
        consumed = Counter(_key(c) for c in memory["consumed"][pool])
        if pool:
            consumed.subtract(_key(c) for c in cards if "from" not in c)
            tokens = [index for index, c in enumerate(cards) if "from" in c]
            rng.shuffle(tokens)
            cards = list(cards)
            for key in consumed.elements():
                index = next((i for i in tokens if key in map(_key, unseen[cards[i]["from"]])), None)
                if index is None:
                    return None
                tokens.remove(index)
                source = unseen[cards[index]["from"]]
                cards[index] = source.pop(next(i for i, c in enumerate(source) if _key(c) == key))
            cards, consumed = [dealt(c) for c in cards], Counter(_key(c) for c in memory["consumed"][pool])
        remaining = Counter(_key(c) for c in (cards if pool else build_deck()))
        remaining.subtract(consumed)
        unseen.append([card(colour, face) for (colour, face), n in remaining.items() for _ in range(n)])
        rng.shuffle(unseen[-1])
    state = memory["state"]
    pending = state["pending"]
    if pending and pending.get("card"):
        pending = {**pending, "card": dealt(pending["card"])}
    return {**state, "stacks": [[[dealt(c) for c in stack] for stack in own] for own in state["stacks"]],
            "draw_pile": [dealt(c) for c in state["draw_pile"]],
            "discard_pile": [dealt(c) for c in state["discard_pile"]], "pending": pending}


class PlayWeights(NamedTuple):
    """What greedy sees in a move besides the cards it sheds (bench/bots.py tunes them by self-play as
    `greedy[draw=50]`, in hundredths: docs/bots.md "Greedy's weights")."""
    draw: float = 0.5  # a draw: below any card that can be played (worth 1 and up)
    color_shift: float = 0.8  # playing a Color Shift, beyond the card itself
    attack: float = 0.6  # playing an Attack, beyond the card itself
    swap: float = 0.5  # playing a Swap, beyond the card itself
    emptying: float = 0.3  # a play that empties the held stack
    free_discard: float = 0.5  # a Free Discard's cost: the wild it spends
    keep_immunity: float = 2.5  # the Immunity tile answers only a hit that costs more cards than this
    immune_target: float = 0.5  # an Attack's loss on a seat with its tile, which may answer it
    immune_swap: float = 0.5  # what a Swap with a seat with its tile keeps of its gain
    rival_swap: float = 0.3  # a Swap between two others, per card it moves onto the one with the fewest
    peek_stack: float = 0.1  # a Peek, per card of the stack looked at


GREEDY_WEIGHTS = PlayWeights()
BONUS_FACES = ("color_shift", "attack", "swap")  # the faces with a weight of their own


def greedy(view: dict, seat: int, moves: list[dict], rng, weights: PlayWeights = GREEDY_WEIGHTS) -> dict:
    """One move ahead: shed the most cards (Discard, Free Discard on the biggest stack, an emptying play),
    never draw when a card can be played, hurt the seat closest to winning, and keep the Immunity tile
    for hits that cost several cards."""
    return moves[highest([_move_value(view, seat, move, weights) for move in moves], rng)]


def _move_value(view, seat, move, weights: PlayWeights) -> float:
    action, left = move["action"], view["cards_left"]
    if action in ("play", "play_drawn"):
        held = view["stacks"][seat][view["held"][seat]]
        played = held[move["card"]] if action == "play" else view["pending"]["card"]
        return 1 + _card_value(view, seat, played, weights, emptying=action == "play" and len(held) == 1)
    if action == "attack":
        return -left[move["target"]] - weights.immune_target * view["immunity"][move["target"]]
    if action == "swap":
        return _swap_gain(view, seat, move, weights)
    if action == "free_discard":
        return len(view["stacks"][seat][move["stack"]])
    if action == "peek":
        return -left[move["target"]] + weights.peek_stack * len(view["stacks"][move["target"]][move["stack"]])
    if action == "reveal":
        return sum(len(view["stacks"][s]) > move["stack"] for s in range(view["players"]) if s != seat)
    if action == "exchange":
        pending = view["pending"]
        taken = view["stacks"][pending["target"]][pending["stack"]][move["card"]]
        given = view["stacks"][seat][view["held"][seat]][move["own_card"]]
        return _card_value(view, seat, taken, weights) - _card_value(view, seat, given, weights)
    if action == "immunity":
        return _hit_cost(view, seat) - weights.keep_immunity
    if action == "draw":
        return weights.draw
    return 0  # keep, pass, accept, end_peek: no stack changes


def _card_value(view, seat, played, weights: PlayWeights, emptying=False) -> float:
    """What playing a card sheds beyond itself, roughly, plus a little for hurting others."""
    if played is None:
        return 0
    face, own = played["face"], view["stacks"][seat]
    bonus = weights.emptying if emptying else 0
    if face == "free_discard":
        return bonus + max(len(stack) for stack in own) - weights.free_discard
    if face == "discard":
        held = len(own[view["held"][seat]]) - 1
        return bonus + (held if held else len(own[0]) if len(own) > 1 else 0)
    return bonus + card_bonus(face, weights)


def card_bonus(face: str, weights: PlayWeights) -> float:
    """What greedy sees in playing a card of this face beyond the card itself."""
    return getattr(weights, face) if face in BONUS_FACES else 0


def _swap_gain(view, seat, move, weights: PlayWeights) -> float:
    """Cards the swap moves away from me (or onto the seat with the fewest cards)."""
    stacks, left = view["stacks"], view["cards_left"]
    (a, i), (b, j) = (move["first_seat"], move["first_stack"]), (move["second_seat"], move["second_stack"])
    if a == b:
        return 0
    if seat in (a, b):
        mine, other = (i, (b, j)) if a == seat else (j, (a, i))
        gain = len(stacks[seat][mine]) - len(stacks[other[0]][other[1]])
        return gain * (weights.immune_swap if view["immunity"][other[0]] else 1)
    leader = min((a, b), key=lambda s: left[s])
    given = len(stacks[b][j]) - len(stacks[a][i]) if leader == a else len(stacks[a][i]) - len(stacks[b][j])
    return weights.rival_swap * given


def _hit_cost(view, seat) -> float:
    """How many cards the hit now waiting on me would cost me (a rough guess from the counts)."""
    pending, stacks = view["pending"], view["stacks"]
    if pending["effect"] == "attack":
        return 1 + 3 * (view["cards_left"][seat] <= 3)
    if pending["effect"] == "swap":
        sizes = {(s, i): len(stacks[s][i]) for s, i in pending["stacks"]}
        (a, i), (b, j) = pending["stacks"]
        if a == b == seat or seat not in (a, b):
            return 0
        mine, other = ((a, i), (b, j)) if a == seat else ((b, j), (a, i))
        return sizes[other] - sizes[mine] + (2 if mine == (seat, view["held"][seat]) else 0)
    return 0


def _unseen_cards(view) -> list[dict]:
    seen = [c for own in view["stacks"] for stack in own for c in stack if c is not None]
    seen += [view["discard_pile"]["top"]] if view["discard_pile"]["top"] else []
    pending = view["pending"]
    if pending and pending["kind"] == "drawn" and pending["card"] is not None:
        seen.append(pending["card"])
    remaining = Counter(_key(c) for c in build_deck())
    remaining.subtract(_key(c) for c in seen)
    return [card(colour, face) for (colour, face), n in remaining.items() for _ in range(n)]


def _key(c: dict) -> tuple:
    return c["colour"], c["face"]


PLAYOUT_CAP = 32  # moves a search plays out before evaluate scores the state (tuned: docs/bots.md)
GREEDY_ROLLOUTS = 100  # percent of a search's playout moves greedy plays (all greedy; tuned: docs/bots.md)

def evaluate(state: dict, seat: int) -> float:
    return chance([cards_left(state, s) for s in range(state["players"])], seat)


def chance(left: list[int], seat: int) -> float:
    """evaluate from the cards each seat has left (the simulation's too): 3 cards fewer weighs e to 1."""
    return win_share([-count for count in left], seat, 3)


# --- simulation -------------------------------------------------------------------------------------
def simulation(state: dict) -> Simulation:
    return fast_simulation("domain.simulations.ninestax")(state)
