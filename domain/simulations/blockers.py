"""Blockers for a search's playouts: the rules of domain/games/blockers.py once more, on small ints.

A Victory card is a tuple (colour, shape) of indices into one list of masks (the colours' first, then the
shapes'), a Kicker (colour, shape, True). A place is its index in PLACES (row by row), a hand card its index in
HAND_CARDS. The grid is kept twice: a list of cards by place (None where taken), and per colour and per shape a
16-bit mask of the places holding one, so that the places matching a card are two lookups and an `or`; a hand
card's takes are then one table lookup by the open places of its area, and greedy's value of a take two bit
counts. A move is a tuple (hand card, place, the place's bit): a take, PASS or KICKER; move dicts are built
only when asked for. Every move, the interface's and a playout's, is played by one loop (FastSimulation._run).
"""
from random import Random

from domain.games import blockers as rules
from domain.protocol import tie_break
from domain.simulation import Simulation

Move = tuple[int, int, int]  # (hand card, place, the place's bit), or PASS or KICKER

PLACE_COUNT = len(rules.PLACES)
PLACE_BIT = tuple(1 << place for place in range(PLACE_COUNT))
EVERY_PLACE = (1 << PLACE_COUNT) - 1
PLACE_INDEX = {place: index for index, place in enumerate(rules.PLACES)}
HAND_INDEX = {hand_card: index for index, hand_card in enumerate(rules.HAND_CARDS)}
HAND_DECK = tuple(range(len(rules.HAND_CARDS)))
HAND_BIT = tuple(1 << hand_card for hand_card in HAND_DECK)
AREA_MASK = tuple(sum(PLACE_BIT[PLACE_INDEX[place]] for place in rules.AREAS[hand_card])
                  for hand_card in rules.HAND_CARDS)
FIRST_SHAPE = len(rules.COLOURS)  # a shape's index among the masks
SEAT_KEYS = tuple(str(seat) for seat in range(rules.INFO.max_players))


def _reaches() -> list[int]:
    """A set of hand cards as a mask -> the places their areas open."""
    reach = [0] * (1 << len(HAND_DECK))
    for held in range(1, len(reach)):  # the lowest hand card's area and the rest's reach
        reach[held] = reach[held & (held - 1)] | AREA_MASK[(held & -held).bit_length() - 1]
    return reach


REACH = _reaches()
# a hand (its cards as a mask) -> per hand card, the places the other hand cards open (only hands of
# rules.HAND_SIZE cards, the ones greedy weighs)
OTHERS_REACH = {held: tuple(REACH[held & ~HAND_BIT[card]] for card in HAND_DECK)
                for held in range(len(REACH)) if held.bit_count() == rules.HAND_SIZE}


def _ours(card: dict) -> tuple:
    """An engine card as this module's tuple."""
    colour, shape = rules.COLOURS.index(card["colour"]), FIRST_SHAPE + rules.SHAPES.index(card["shape"])
    return (colour, shape, True) if card.get("kicker") else (colour, shape)


ENGINE_CARD = {_ours(card): card for card in rules.victory_cards() + rules.kicker_cards()}
# reading an engine state in (dict lookups cost less than _ours): Victory cards by colour then shape, Kickers
# by colour (there is one of each)
VICTORY_CARD_OF = {colour: {shape: _ours({"colour": colour, "shape": shape}) for shape in rules.SHAPES}
                   for colour in rules.COLOURS}
KICKER_OF = {card["colour"]: _ours(card) for card in rules.kicker_cards()}
NEXT_SEATS = {players: tuple(rules.next_seat(seat, players) for seat in range(players))
              for players in range(rules.INFO.min_players, rules.INFO.max_players + 1)}
# what a new game shuffles, listed as the engine's deal lists it (the same draws give the same deal)
VICTORY_DECK = tuple(map(_ours, rules.victory_cards()))
KICKER_DECK = tuple(map(_ours, rules.kicker_cards()))
NO_TOP: tuple = ()  # an empty stack's top: it takes any card

PASS: Move = (-1, 0, 0)
KICKER: Move = (-2, 0, 0)
MOVE_DICTS = {PASS: {"action": "pass"}, KICKER: {"action": "kicker"},
              **{(hand, place, PLACE_BIT[place]): {"action": "take", "hand_card": hand_card,
                                                   "place": rules.PLACES[place]}
                 for hand, hand_card in enumerate(rules.HAND_CARDS) for place in range(PLACE_COUNT)}}
TAKE_OF = {(move["hand_card"], move["place"]): key for key, move in MOVE_DICTS.items() if move["action"] == "take"}
STUCK: tuple[Move, ...] = (PASS,)
STUCK_WITH_KICKER: tuple[Move, ...] = (PASS, KICKER)
NO_SEAT = -1
NO_DRAWS = Random(0)  # the rng of a run of no moves, which draws nothing


def _subsets(mask: int) -> list[int]:
    subsets, subset = [mask], mask
    while subset:
        subset = (subset - 1) & mask
        subsets.append(subset)
    return subsets


# per hand card: its area's open places (a subset of the area) -> the takes of them, in the engine's order (an
# area lists its places in increasing index)
TAKES = tuple({open_places: tuple((hand_card, place, PLACE_BIT[place]) for place in range(PLACE_COUNT)
                                  if open_places & PLACE_BIT[place])
               for open_places in _subsets(AREA_MASK[hand_card])} for hand_card in HAND_DECK)
# the places of a mask, a byte at a time: the low byte's, and the high byte's
LOW_PLACES = tuple(tuple(place for place in range(8) if byte >> place & 1) for byte in range(256))
HIGH_PLACES = tuple(tuple(place + 8 for place in places) for places in LOW_PLACES)
# random.shuffle's steps on a list of each length: the index swapped, last first, and the bits its bounded
# draw takes (random.Random._randbelow: getrandbits of the bound's length, again while not below the bound)
SHUFFLE_STEPS = tuple(tuple((last, (last + 1).bit_length()) for last in range(length - 1, 0, -1))
                      for length in range(len(VICTORY_DECK) + 1))


class FastSimulation(Simulation):
    """Blockers on small ints and bitmasks, changed in place; the same rules, rng draws and greedy choice as
    the engine's (tests/unit/test_simulation.py plays both side by side). Its rng is a random.Random (the
    search's FastRng), whose bounded draws and shuffles this takes from getrandbits as random.Random does.
    A new game refills the same lists, so that a loop holding them goes on with the new game."""

    def __init__(self, state: dict):  # the base class's engine state is replaced by this representation
        self.rules = rules
        self._players, self._games, self._match_first = state["players"], state["games"], state["match_first"]
        self._next_seat = NEXT_SEATS[self._players]
        self._scores = list(state["scores"])
        self._game, self._first, self._turn = state["game"], state["first"], state["turn"]
        self._passes, self._finished = state["passes"], state["finished"]
        self._deck = [VICTORY_CARD_OF[card["colour"]][card["shape"]] for card in state["deck"]]
        self._stacks = [[KICKER_OF[card["colour"]] if card.get("kicker")
                         else VICTORY_CARD_OF[card["colour"]][card["shape"]] for card in stack]
                        for stack in state["stacks"]]
        self._kickers = [KICKER_OF[card["colour"]] for card in state["kickers"]]
        self._kickers_aside = [KICKER_OF[card["colour"]] for card in state["kickers_aside"]]
        self._kicker_played = list(state["kicker_played"])
        self._hands = [[HAND_INDEX[card] for card in cards] for cards in state["hands"]]
        self._hand_decks = [[HAND_INDEX[card] for card in cards] for cards in state["hand_decks"]]
        self._played = [[HAND_INDEX[card] for card in cards] for cards in state["played"]]
        grid = state["grid"]
        self._grid: list = [None if card is None else VICTORY_CARD_OF[card["colour"]][card["shape"]]
                            for card in map(grid.__getitem__, rules.PLACES)]
        self._masks = [0] * (FIRST_SHAPE + len(rules.SHAPES))
        self._tops: list[tuple] = []
        self._listed_seat, self._listed_moves = NO_SEAT, STUCK
        self._index()
        self._offered: tuple[dict | None, Move] = None, PASS
        self._chosen = PASS  # greedy's choice, when the interface asks the loop of moves for it

    def _index(self) -> None:
        """The grid's masks by colour and by shape, the stacks' tops, and no moves listed yet."""
        grid, masks = self._grid, self._masks
        masks[:] = [0] * len(masks)
        for place, card in enumerate(grid):
            if card is not None:
                colour, shape = card
                bit = PLACE_BIT[place]
                masks[colour] += bit  # the place was empty: adding is or-ing, and cheaper
                masks[shape] += bit
        self._tops[:] = [stack[-1] if stack else NO_TOP for stack in self._stacks]
        self._listed_seat, self._listed_moves = NO_SEAT, STUCK

    # --- the simulation's interface: the engine's states and moves ---------------------------------
    def state(self) -> dict:
        return {
            "players": self._players, "games": self._games, "match_first": self._match_first,
            "scores": list(self._scores), "game": self._game, "first": self._first, "turn": self._turn,
            "passes": self._passes, "finished": self._finished,
            "grid": {place: None if card is None else dict(ENGINE_CARD[card])
                     for place, card in zip(rules.PLACES, self._grid)},
            "deck": _card_dicts(self._deck), "stacks": [_card_dicts(stack) for stack in self._stacks],
            "kickers": _card_dicts(self._kickers), "kickers_aside": _card_dicts(self._kickers_aside),
            "kicker_played": list(self._kicker_played),
            "hands": _hand_cards(self._hands), "hand_decks": _hand_cards(self._hand_decks),
            "played": _hand_cards(self._played),
        }

    def to_act(self) -> list[int]:
        return [] if self._finished else [self._turn]

    def legal_moves(self, seat: int) -> list[dict]:
        return [dict(MOVE_DICTS[move]) for move in self._listed(seat)]

    def move_count(self, seat: int) -> int:
        return len(self._listed(seat))

    def move(self, seat: int, index: int) -> dict:
        return self._offer(self._listed(seat)[index])

    def greedy(self, seat: int, rng) -> dict:
        moves = self._listed(seat)
        return self._offer(self._greedy_choice(rng) if len(moves) > 1 else moves[0])

    def play(self, seat: int, move: dict, rng) -> None:
        offered, known = self._offered
        if move is not offered:  # a caller plays the move it was just given, whose tuple is known
            action = move["action"]
            known = (TAKE_OF[move["hand_card"], move["place"]] if action == "take"
                     else PASS if action == "pass" else KICKER)
        self._offered = None, PASS
        self._run(1, 0.0, set(), rng, known)

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        self._offered = None, PASS
        return self._run(cap, greedy_share, seats, rng, None)

    def outcome(self) -> dict | None:
        if not self._finished:
            return None
        totals = list(map(sum, zip(*self._scores)))
        best = max(totals)
        return {"winners": [seat for seat, total in enumerate(totals) if total == best],
                "scores": dict(zip(SEAT_KEYS, totals))}

    def evaluate(self, seat: int) -> float:
        now = self._stack_scores()
        return rules.chance([sum(game[s] for game in self._scores) + now[s] for s in range(self._players)], seat)

    # --- the rules on ints -------------------------------------------------------------------------
    def _offer(self, move: tuple) -> dict:
        self._offered = offered = dict(MOVE_DICTS[move]), move
        return offered[0]

    def _listed(self, seat: int) -> tuple:
        """The seat's legal moves, as the last run of moves left them listed (a run of none lists them)."""
        if self._listed_seat == NO_SEAT:
            self._run(0, 0.0, set(), NO_DRAWS, None)
        return self._listed_moves if seat == self._listed_seat else ()

    def _greedy_choice(self, rng) -> Move:
        """Greedy's choice among the mover's moves (more than one), as a run of moves chooses it."""
        self._run(1, 0.0, set(), rng, None, asked=True)
        return self._chosen

    def _run(self, cap: int, greedy_share: float, seats: set, rng, first_move: Move | None,
             asked: bool = False) -> int:
        """Simulation.play_out, playing `first_move` first if given: up to `cap` moves, each listed,
        chosen (greedy's `greedy_share` of the time when there is a choice, else at random) and played; the
        moves played, the next mover's moves left listed. `asked`: greedy's choice of the first move, kept
        in `_chosen` and not played. One loop for every move: a call a move would cost more than the rules'
        own work."""
        if self._finished:
            self._listed_seat, self._listed_moves = self._turn, ()
            return 0
        random, getrandbits = rng.random, rng.getrandbits
        add, next_seat, takes_of, area = seats.add, self._next_seat, TAKES, AREA_MASK
        grid, masks, tops, hands = self._grid, self._masks, self._tops, self._hands
        stacks, hand_decks, played_cards = self._stacks, self._hand_decks, self._played
        next_turn_weight, left_weight = rules.GREEDY_WEIGHTS
        turn = self._turn
        for played in range(cap + 1):
            seat = turn
            top = tops[seat]
            open_places = masks[top[0]] | masks[top[1]] if top else sum(masks) >> 1  # an empty stack: every card
            hand = hands[seat]
            first, second, third, fourth = hand  # rules.HAND_SIZE: a take draws a card for the one played
            moves: tuple[Move, ...] = (
                takes_of[first][area[first] & open_places] + takes_of[second][area[second] & open_places]
                + takes_of[third][area[third] & open_places] + takes_of[fourth][area[fourth] & open_places]
                or (STUCK if self._kicker_played[seat] else STUCK_WITH_KICKER))
            if played == cap:
                break
            add(seat)
            count = len(moves)
            if first_move:
                move, first_move = first_move, None
            elif count == 1:
                move = moves[0]
            elif asked or greedy_share and (greedy_share >= 1.0 or random() < greedy_share):
                if moves[0] is PASS:
                    move = self._kicker_or_pass(seat)
                else:  # rules.greedy's take: protocol.highest of the takes' weights
                    others_reach = OTHERS_REACH[HAND_BIT[first] | HAND_BIT[second] | HAND_BIT[third]
                                                | HAND_BIT[fourth]]
                    best_weight, ties = -1, None  # the ties listed only once there are two
                    for take in moves:
                        hand_card, place, bit = take
                        colour, shape = grid[place]
                        left = (masks[colour] | masks[shape]) - bit  # the taken card's own bit is set
                        # the cards left matching the taken one (its next top) that the rest of the hand
                        # reaches and all of them
                        weight = (next_turn_weight * (left & others_reach[hand_card]).bit_count()
                                  + left_weight * left.bit_count())
                        if weight > best_weight:
                            move, best_weight, ties = take, weight, None
                        elif weight == best_weight:
                            ties = (ties or [move]) + [take]
                    if ties is not None:
                        move = tie_break(ties, rng)
                if asked:
                    self._chosen = move
                    return 0
            else:
                move = moves[_below(getrandbits, count)]
            hand_card, place, bit = move
            turn = next_seat[seat]
            if hand_card < 0:  # the kicker, or a pass
                if move is KICKER:
                    kicker = self._kickers[seat]
                    stacks[seat].append(kicker)
                    tops[seat] = kicker
                    self._kicker_played[seat], self._passes = True, 0
                    continue
                self._passes += 1
                if self._passes == self._players:  # everyone passed in a row
                    self._turn = turn
                    if self._end_cycle(getrandbits):
                        self._listed_seat, self._listed_moves = self._turn, ()
                        return played + 1
                    turn = self._turn
                continue
            card = grid[place]
            grid[place] = None
            colour, shape = card
            masks[colour] -= bit  # the bit is set: subtracting clears it, cheaper than ^
            masks[shape] -= bit
            stacks[seat].append(card)
            tops[seat] = card
            hand.remove(hand_card)
            deck = hand_decks[seat]
            hand.append(deck.pop(0))
            played_cards[seat].append(hand_card)
            if not deck:  # the last card was drawn: every played hand card becomes the new deck
                hand_decks[seat] = _shuffled(getrandbits, played_cards[seat])
                played_cards[seat] = []
            self._passes = 0
        self._turn = turn
        self._listed_seat, self._listed_moves = turn, moves
        return cap

    def _kicker_or_pass(self, seat: int) -> tuple:
        """rules.greedy when stuck: the kicker only if it opens a take now and leaves another card matching it."""
        kicker, masks = self._kickers[seat], self._masks
        matching = masks[kicker[0]] | masks[kicker[1]]
        if matching.bit_count() < 2:
            return PASS
        first, second, third, fourth = self._hands[seat]
        held = HAND_BIT[first] | HAND_BIT[second] | HAND_BIT[third] | HAND_BIT[fourth]
        return KICKER if REACH[held] & matching else PASS

    def _end_cycle(self, getrandbits) -> bool:
        """Everyone passed in a row: refill the grid, or end the game and deal the next. Whether the match is
        over."""
        empty_places = EVERY_PLACE - (sum(self._masks) >> 1)
        if empty_places and len(self._deck) >= empty_places.bit_count():
            self._refill(LOW_PLACES[empty_places & 255] + HIGH_PLACES[empty_places >> 8])
            return False
        self._scores.append(self._stack_scores())
        self._finished = self._game + 1 >= self._games
        if not self._finished:
            self._deal(self._game + 1, getrandbits)
        return self._finished

    def _stack_scores(self) -> list[int]:
        """rules.stack_score of each seat's stack: a played kicker lies in it and does not count."""
        return [len(stack) - 1 if kicked else len(stack) + 1 for stack, kicked in zip(self._stacks, self._kicker_played)]

    def _refill(self, places: tuple) -> None:
        grid, masks, deck = self._grid, self._masks, self._deck
        for place, card in zip(places, deck):
            grid[place] = card
            colour, shape = card
            bit = PLACE_BIT[place]
            masks[colour] += bit  # the place was empty: adding is or-ing, and cheaper
            masks[shape] += bit
        del deck[:len(places)]
        self._passes = 0

    def _deal(self, game: int, getrandbits) -> None:
        """rules._dealt and the game it starts, drawing the same shuffles."""
        players = self._players
        cards, kickers = _shuffled(getrandbits, VICTORY_DECK), _shuffled(getrandbits, KICKER_DECK)
        hand_decks = [_shuffled(getrandbits, HAND_DECK) for _ in range(players)]
        self._game, self._first = game, rules.next_seat(self._match_first, players, game)
        self._turn, self._passes = self._first, 0
        self._grid[:], self._deck[:] = cards[:PLACE_COUNT], cards[PLACE_COUNT:]
        self._kickers[:], self._kickers_aside[:] = kickers[:players], kickers[players:]
        self._hands[:] = [deck[:rules.HAND_SIZE] for deck in hand_decks]
        self._hand_decks[:] = [deck[rules.HAND_SIZE:] for deck in hand_decks]
        self._stacks[:], self._played[:] = [[] for _ in range(players)], [[] for _ in range(players)]
        self._kicker_played[:] = [False] * players
        self._index()


def _below(getrandbits, bound: int) -> int:
    """rng.below(bound), as random.Random draws it."""
    bits = bound.bit_length()
    drawn = getrandbits(bits)
    while drawn >= bound:
        drawn = getrandbits(bits)
    return drawn


def _shuffled(getrandbits, items) -> list:
    """rng.shuffled(items): random.shuffle's swaps, each bounded draw as random.Random takes it."""
    shuffled = list(items)
    for last, bits in SHUFFLE_STEPS[len(shuffled)]:
        other = getrandbits(bits)
        while other > last:
            other = getrandbits(bits)
        shuffled[last], shuffled[other] = shuffled[other], shuffled[last]
    return shuffled


def _card_dicts(cards: list[tuple]) -> list[dict]:
    return [dict(ENGINE_CARD[card]) for card in cards]


def _hand_cards(lists: list[list[int]]) -> list[list[str]]:
    return [[rules.HAND_CARDS[card] for card in cards] for cards in lists]
