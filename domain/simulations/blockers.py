"""Blockers for a search's playouts: the rules of domain/games/blockers.py once more, on small ints.

A Victory card is a tuple (colour, shape) of indices in COLOURS and SHAPES, a Kicker (colour, shape, True).
A place is its index in PLACES (row by row), a hand card its index in HAND_CARDS. The grid is kept twice: a
list of cards by place (None where taken), and per colour and per shape a 16-bit mask of the places holding
one, so that the places matching a card are two lookups and an `or`; a hand card's takes are then one table
lookup by the open places of its area, and greedy's value of a take two bit counts. A move is a tuple: a take
(hand card, place), PASS or KICKER; move dicts are built only when asked for.
"""
from domain.games import blockers as rules
from domain.simulation import Simulation

PLACE_COUNT = len(rules.PLACES)
PLACE_BIT = tuple(1 << place for place in range(PLACE_COUNT))
PLACE_INDEX = {place: index for index, place in enumerate(rules.PLACES)}
HAND_INDEX = {hand_card: index for index, hand_card in enumerate(rules.HAND_CARDS)}
HAND_DECK = tuple(range(len(rules.HAND_CARDS)))
HAND_BIT = tuple(1 << hand_card for hand_card in HAND_DECK)
AREA_MASK = tuple(sum(PLACE_BIT[PLACE_INDEX[place]] for place in rules.AREAS[hand_card])
                  for hand_card in rules.HAND_CARDS)


def _reaches() -> list[int]:
    """A set of hand cards as a mask -> the places their areas open."""
    reach = [0] * (1 << len(HAND_DECK))
    for held in range(1, len(reach)):  # the lowest hand card's area and the rest's reach
        reach[held] = reach[held & (held - 1)] | AREA_MASK[(held & -held).bit_length() - 1]
    return reach


REACH = _reaches()


def _ours(card: dict) -> tuple:
    """An engine card as this module's tuple."""
    colour, shape = rules.COLOURS.index(card["colour"]), rules.SHAPES.index(card["shape"])
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

PASS, KICKER = (-1, 0), (-2, 0)
MOVE_DICTS = {PASS: {"action": "pass"}, KICKER: {"action": "kicker"},
              **{(hand, place): {"action": "take", "hand_card": hand_card, "place": rules.PLACES[place]}
                 for hand, hand_card in enumerate(rules.HAND_CARDS) for place in range(PLACE_COUNT)}}
STUCK, STUCK_WITH_KICKER = (PASS,), (PASS, KICKER)
NO_SEAT = -1


def _subsets(mask: int) -> list[int]:
    subsets, subset = [mask], mask
    while subset:
        subset = (subset - 1) & mask
        subsets.append(subset)
    return subsets


# per hand card: its area's open places (a subset of the area) -> the takes of them, in the engine's order (an
# area lists its places in increasing index)
TAKES = tuple({open_places: tuple((hand_card, place) for place in range(PLACE_COUNT)
                                  if open_places & PLACE_BIT[place])
               for open_places in _subsets(AREA_MASK[hand_card])} for hand_card in HAND_DECK)


# random.shuffle's steps on a list of each length: the index swapped, last first, and the bits its bounded
# draw takes (random.Random._randbelow: getrandbits of the bound's length, again while not below the bound)
SHUFFLE_STEPS = tuple(tuple((last, (last + 1).bit_length()) for last in range(length - 1, 0, -1))
                      for length in range(len(VICTORY_DECK) + 1))


class FastSimulation(Simulation):
    """Blockers on small ints and bitmasks, changed in place; the same rules, rng draws and greedy choice as
    the engine's (tests/unit/test_simulation.py plays both side by side). Its rng is a random.Random (the
    search's FastRng), whose bounded draws and shuffles this takes from getrandbits as random.Random does."""

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
        self._hands, self._hand_decks, self._played = (
            [list(map(HAND_INDEX.__getitem__, cards)) for cards in state[name]]
            for name in ("hands", "hand_decks", "played"))
        self._index([None if card is None else VICTORY_CARD_OF[card["colour"]][card["shape"]]
                     for card in map(state["grid"].__getitem__, rules.PLACES)])
        self._offered: tuple[dict | None, tuple] = None, PASS

    def _index(self, grid: list) -> None:
        """The grid (and its masks by colour and by shape), the stacks' tops, and no moves listed yet."""
        self._grid = [None] * PLACE_COUNT
        self._colours, self._shapes = [0] * len(rules.COLOURS), [0] * len(rules.SHAPES)
        self._fill(range(PLACE_COUNT), grid)
        self._tops = [stack[-1] if stack else NO_TOP for stack in self._stacks]
        self._listed_seat, self._listed_moves = NO_SEAT, STUCK

    def _fill(self, places, cards) -> None:
        """Lays the cards on the places (a None leaves its place empty)."""
        grid, colours, shapes = self._grid, self._colours, self._shapes
        for place, card in zip(places, cards):
            if card is not None:
                grid[place] = card
                colour, shape = card
                colours[colour] += PLACE_BIT[place]  # the place was empty: adding is or-ing, and cheaper
                shapes[shape] += PLACE_BIT[place]

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
        return len(self._listed_moves if seat == self._listed_seat else self._listed(seat))

    def move(self, seat: int, index: int) -> dict:
        return self._offer(self._listed_moves[index] if seat == self._listed_seat else self._listed(seat)[index])

    def greedy(self, seat: int, rng) -> dict:
        return self._offer(self._greedy(seat, self._listed(seat), rng.random))

    def play(self, seat: int, move: dict, rng) -> None:
        offered, known = self._offered
        if move is not offered:  # a caller plays the move it was just given, whose tuple is known
            action = move["action"]
            known = ((HAND_INDEX[move["hand_card"]], PLACE_INDEX[move["place"]]) if action == "take"
                     else PASS if action == "pass" else KICKER)
        self._offered, self._listed_seat = (None, PASS), NO_SEAT
        self._play(seat, known, rng)

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        random, getrandbits = rng.random, rng.getrandbits
        moves_of, greedy, play = self._moves, self._greedy, self._play
        self._offered, self._listed_seat = (None, PASS), NO_SEAT
        for played in range(cap):
            if self._finished:
                return played
            seat = self._turn
            seats.add(seat)
            moves = moves_of(seat)
            count = len(moves)
            if greedy_share and count > 1 and random() < greedy_share:
                play(seat, greedy(seat, moves, random), rng)
            else:
                play(seat, moves[_below(getrandbits, count)] if count > 1 else moves[0], rng)
        return cap

    def outcome(self) -> dict | None:
        if not self._finished:
            return None
        totals = [sum(game[seat] for game in self._scores) for seat in range(self._players)]
        best = max(totals)
        return {"winners": [seat for seat, total in enumerate(totals) if total == best],
                "scores": {str(seat): total for seat, total in enumerate(totals)}}

    # --- the rules on ints -------------------------------------------------------------------------
    def _offer(self, move: tuple) -> dict:
        self._offered = offered = dict(MOVE_DICTS[move]), move
        return offered[0]

    def _listed(self, seat: int) -> tuple:
        """The seat's legal moves, kept until the next move (a caller asks for the count, then one move)."""
        if seat == self._listed_seat:
            return self._listed_moves
        if self._finished or seat != self._turn:
            return ()
        self._listed_seat, self._listed_moves = seat, self._moves(seat)
        return self._listed_moves

    def _moves(self, seat: int) -> tuple:
        """Every take, hand card by hand card and place by place; only if there is none, pass and the kicker."""
        top = self._tops[seat]
        if top is NO_TOP:  # every occupied place (a place has one colour: the masks add up without overlap)
            open_places = sum(self._colours)
        else:
            open_places = self._colours[top[0]] | self._shapes[top[1]]
        first, second, third, fourth = self._hands[seat]  # rules.HAND_SIZE: a take draws a card for the one played
        return (TAKES[first][AREA_MASK[first] & open_places] + TAKES[second][AREA_MASK[second] & open_places]
                + TAKES[third][AREA_MASK[third] & open_places] + TAKES[fourth][AREA_MASK[fourth] & open_places]
                or (STUCK if self._kicker_played[seat] else STUCK_WITH_KICKER))

    def _greedy(self, seat: int, moves: tuple, random) -> tuple:
        """rules.greedy on ints. A take's value: twice the cards left matching the taken one (its next top)
        that the rest of the hand reaches, plus all of them, plus a tie-break draw; the first best wins, as in
        max. Stuck, the kicker only if it opens a take now and leaves another card matching it."""
        hand, colours, shapes = self._hands[seat], self._colours, self._shapes
        if moves[0] is PASS:
            kicker = self._kickers[seat]
            matching = colours[kicker[0]] | shapes[kicker[1]]
            opens = matching.bit_count() >= 2 and any(AREA_MASK[card] & matching for card in hand)
            return KICKER if len(moves) > 1 and opens else PASS
        grid, place_bit = self._grid, PLACE_BIT
        first, second, third, fourth = hand
        held = HAND_BIT[first] | HAND_BIT[second] | HAND_BIT[third] | HAND_BIT[fourth]
        best, best_value, weighed, reach = PASS, -1.0, -1, 0  # no hand card weighed yet
        for move in moves:
            hand_card, place = move
            if hand_card != weighed:
                weighed, reach = hand_card, REACH[held ^ HAND_BIT[hand_card]]
            colour, shape = grid[place]
            left = (colours[colour] | shapes[shape]) - place_bit[place]  # the taken card's own bit is set
            value = 2 * (left & reach).bit_count() + left.bit_count() + random() * 0.5
            if value > best_value:
                best, best_value = move, value
        return best

    def _play(self, seat: int, move: tuple, rng) -> None:
        hand_card, place = move
        if hand_card < 0:
            self._stuck(seat, move, rng)
            return
        grid, bit = self._grid, PLACE_BIT[place]
        card = grid[place]
        grid[place] = None
        colour, shape = card
        self._colours[colour] -= bit  # the bit is set: subtracting clears it, cheaper than ^
        self._shapes[shape] -= bit
        self._stacks[seat].append(card)
        self._tops[seat] = card
        hand, deck, played = self._hands[seat], self._hand_decks[seat], self._played[seat]
        hand.remove(hand_card)
        hand.append(deck.pop(0))
        played.append(hand_card)
        if not deck:  # the last card was drawn: every played hand card becomes the new deck
            self._hand_decks[seat] = _shuffled(rng.getrandbits, played)
            played.clear()
        self._turn, self._passes = self._next_seat[seat], 0

    def _stuck(self, seat: int, move: tuple, rng) -> None:
        """The kicker, or a pass; the last pass of a cycle refills the grid or ends the game."""
        self._turn = self._next_seat[seat]
        if move is KICKER:
            self._stacks[seat].append(self._kickers[seat])
            self._tops[seat] = self._kickers[seat]
            self._kicker_played[seat], self._passes = True, 0
            return
        self._passes += 1
        if self._passes < self._players:
            return
        empty = [place for place, card in enumerate(self._grid) if card is None]
        if empty and len(self._deck) >= len(empty):
            self._fill(empty, self._deck)
            del self._deck[:len(empty)]
            self._passes = 0
            return
        self._scores.append([len(stack) - 1 if kicked else len(stack) + 1  # a played kicker does not count
                             for stack, kicked in zip(self._stacks, self._kicker_played)])
        self._finished = self._game + 1 >= self._games
        if not self._finished:
            self._deal(self._game + 1, rng)

    def _deal(self, game: int, rng) -> None:
        """rules._dealt and the game it starts, drawing the same shuffles."""
        players = self._players
        cards, kickers = _shuffled(rng.getrandbits, VICTORY_DECK), _shuffled(rng.getrandbits, KICKER_DECK)
        hand_decks = [_shuffled(rng.getrandbits, HAND_DECK) for _ in range(players)]
        self._game, self._first = game, rules.next_seat(self._match_first, players, game)
        self._turn, self._passes = self._first, 0
        self._deck = cards[PLACE_COUNT:]
        self._kickers, self._kickers_aside = kickers[:players], kickers[players:]
        self._hands = [deck[:rules.HAND_SIZE] for deck in hand_decks]
        self._hand_decks = [deck[rules.HAND_SIZE:] for deck in hand_decks]
        self._stacks, self._played = [[] for _ in range(players)], [[] for _ in range(players)]
        self._kicker_played = [False] * players
        self._index(cards[:PLACE_COUNT])


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
