"""Mantis for a search's playouts: the flip of domain/games/mantis.py once more, on small ints.

A card is its index in the classic deck (build_deck; the compact deck's cards are classic cards, those whose
backs lack pink), a colour its index in COLOURS. The tanks are kept by colour, then seat: the cards of that
front in that seat's tank, in the order they came (a list, or EMPTY), and, packed in one int a colour, what
they add to greedy's key (ADDS), a field a seat; a score pile is a count. Where each card lies (the draw
pile, a tank, a seat's score pile) is kept too, for greedy: the fronts the top card may have, for the mover,
are those of the cards with its back that lie neither in a tank nor in the mover's score pile. The draw pile
stays the engine's list of card dicts, read from an index on; only its top card is turned into an int.
The engine's state is the start state with the moves played since folded through decide and evolve, when
asked (a playout asks at most once, at its cap), so a move here changes only the ints.
"""
from collections import Counter

from domain.games import mantis as rules
from domain.protocol import tie_break
from domain.simulation import Simulation

DECK = rules.build_deck("classic")
FRONT = tuple(rules.COLOURS.index(card["front"]) for card in DECK)
CARD_IDS: dict = {}  # back colours, one level each, then front -> card
for _card, (_first, _second, _third) in enumerate(card["back"] for card in DECK):
    CARD_IDS.setdefault(_first, {}).setdefault(_second, {}).setdefault(_third, {})[DECK[_card]["front"]] = _card
# the other cards with a card's back (the deck holds one of each of the back's fronts), and their fronts
MATES = tuple(tuple((mate, FRONT[mate]) for mate, other in enumerate(DECK)
                    if other["back"] == card["back"] and mate != index)
              for index, card in enumerate(DECK))
IN_PILE, IN_TANK = -1, -2  # where a card lies; a seat's score pile is the seat
EMPTY = ()  # a tank's cards of a colour it holds none of (a list is made when a card comes)
# each seat's legal moves as the owners of the tanks they flip into: its own, then the others in order
ORDERS = {players: tuple((seat,) + tuple(other for other in range(players) if other != seat)
                         for seat in range(players))
          for players in range(rules.INFO.min_players, rules.INFO.max_players + 1)}
NEXT = {players: tuple(range(1, players)) + (0,) for players in ORDERS}  # the seat after each
OTHERS = {players: tuple(order[1:] for order in orders) for players, orders in ORDERS.items()}  # whom each can steal from
NO_CARDS = {players: ((EMPTY,) * players,) * len(rules.COLOURS) for players in ORDERS}  # by colour, then seat

# Greedy values a flip (rules.flip_value) by the fronts the top card may have: how many would match the tank
# flipped into (hits) and the cards they would move. Each front adds to a key: 16 per card it would move and
# 4 if it would move any (at most 3 hits, so the sum holds both); a table per count of fronts maps the key to
# the value of a steal and of a score. A colour's adds are packed in one int, a field of KEY_BITS a seat, wide
# enough for the sum of three fronts' adds, so that the keys of every seat are one sum of ints.
MOST_OF_A_COLOUR = max(Counter(FRONT).values())
ADDS = (0,) + tuple((count + 1) * 16 + 4 for count in range(1, MOST_OF_A_COLOUR + 1))  # by count in the tank
KEY_BITS = (3 * ADDS[-1]).bit_length()
KEY_MASK = (1 << KEY_BITS) - 1
SHIFTS = tuple(seat * KEY_BITS for seat in range(rules.INFO.max_players))


def _values(scoring: bool, fronts: int, two_players: bool) -> list[float]:
    return [rules.flip_value(scoring, key >> 2 & 3, key >> 4, fronts, two_players) for key in range(fronts * ADDS[-1] + 1)]


VALUES = {two_players: {fronts: (_values(False, fronts, two_players), _values(True, fronts, two_players))
                        for fronts in (1, 2, 3)}
          for two_players in (False, True)}


def card_id(card: dict) -> int:
    first, second, third = card["back"]
    return CARD_IDS[first][second][third][card["front"]]


class FastSimulation(Simulation):
    """Mantis on ints changed in place; the same rules, rng draws and greedy choice as the engine's
    (tests/unit/test_simulation.py plays both side by side). The base class's state is the engine's state
    as of `_folded` moves of the journal. Its rng is a random.Random (the search's FastRng), whose bounded
    draws a playout takes from getrandbits as random.Random does."""

    def __init__(self, state: dict):
        super().__init__(rules, state)
        players = len(state["tanks"])
        self._players, self._turn, self._finished = players, state["turn"], state["finished"]
        self._target, self._scores = state["target"], list(map(len, state["score_piles"]))
        self._orders, self._values = ORDERS[players], VALUES[players == 2]
        self._others, self._next = OTHERS[players], NEXT[players]
        self._where = where = [IN_PILE] * len(DECK)
        self._tanks: list[list] = list(map(list, NO_CARDS[players]))
        self._keys = keys = [0] * len(rules.COLOURS)  # by colour: each seat's adds, packed
        for seat, tank in enumerate(state["tanks"]):
            for card in map(card_id, tank):
                front = FRONT[card]
                row = self._tanks[front]
                keys[front] += (ADDS[len(row[seat]) + 1] - ADDS[len(row[seat])]) << SHIFTS[seat]
                row[seat] = [*row[seat], card]
                where[card] = IN_TANK
        for seat, pile in enumerate(state["score_piles"]):
            for card in map(card_id, pile):
                where[card] = seat
        self._pile = state["draw_pile"]
        self._top = card_id(self._pile[0]) if self._pile else IN_PILE  # a card, while the pile has one
        self._journal: list[int] = []  # each move's owner: the seat whose tank the card was flipped into
        self._folded = 0

    def state(self) -> dict:
        for owner in self._journal[self._folded:]:
            seat = self._state["turn"]
            super().play(seat, self._move(seat, owner), None)  # Mantis's decide draws nothing
        self._folded = len(self._journal)
        return self._state

    def to_act(self) -> list[int]:
        return [] if self._finished else [self._turn]

    def legal_moves(self, seat: int) -> list[dict]:
        return [self.move(seat, index) for index in range(self.move_count(seat))]

    def move_count(self, seat: int) -> int:
        return 0 if self._finished or seat != self._turn else self._players

    def move(self, seat: int, index: int) -> dict:
        return self._move(seat, self._orders[seat][index])

    def greedy(self, seat: int, rng) -> dict:
        return self._move(seat, greedy_owner(self._top, seat, self._others[seat], self._where, self._keys, self._values,
                                             rng))

    def play(self, seat: int, move: dict, rng) -> None:
        self._flips(1, 0.0, set(), rng, seat if move["action"] == "score" else move["target"])

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        return self._flips(cap, greedy_share, seats, rng)

    def _flips(self, cap: int, greedy_share: float, seats: set, rng, chosen: int = -1) -> int:
        """Up to `cap` flips, each into the tank of the `chosen` owner if one is given, else of the mover's greedy
        choice `greedy_share` of the time and a random legal one otherwise, drawing as Simulation.play_out does.
        One loop on local names: a playout's every move runs here, and a call or an attribute a move costs
        as much as the rule it serves."""
        players, order_of, values, target = self._players, self._orders, self._values, self._target
        others_of, next_of = self._others, self._next
        tanks_by_colour, keys, where, scores = self._tanks, self._keys, self._where, self._scores
        journal, pile, turn, top, finished = self._journal, self._pile, self._turn, self._top, self._finished
        random, getrandbits, bits = rng and rng.random, rng and rng.getrandbits, players.bit_length()
        flipped, last = len(journal), len(pile) - 1
        played = 0
        while played < cap and not finished:
            seat = turn
            if chosen >= 0:
                owner = chosen
            else:
                seats.add(seat)
                if greedy_share and (greedy_share >= 1.0 or random() < greedy_share):
                    owner = greedy_owner(top, seat, others_of[seat], where, keys, values, rng)
                else:  # rng.below(players)
                    owner = getrandbits(bits)
                    while owner >= players:
                        owner = getrandbits(bits)
                    owner = order_of[seat][owner]
            front = FRONT[top]
            tanks = tanks_by_colour[front]  # this colour's, by seat
            matched = tanks[owner]
            turn = next_of[seat]
            if not matched:
                tanks[owner], where[top] = [top], IN_TANK
                keys[front] += ADDS[1] << SHIFTS[owner]
            elif owner == seat:
                tanks[seat] = EMPTY
                keys[front] -= ADDS[len(matched)] << SHIFTS[seat]
                for scored in matched:
                    where[scored] = seat
                where[top] = seat
                scores[seat] += len(matched) + 1
                finished = scores[seat] >= target
            else:
                tanks[owner], where[top] = EMPTY, IN_TANK
                mine = tanks[seat]
                keys[front] += (((ADDS[len(mine) + len(matched) + 1] - ADDS[len(mine)]) << SHIFTS[seat])
                                - (ADDS[len(matched)] << SHIFTS[owner]))
                matched.append(top)
                if mine:
                    mine += matched
                else:
                    tanks[seat] = matched
                if players == 2:  # a successful steal between two plays again
                    turn = seat
            journal.append(owner)
            played += 1
            if flipped < last:  # the journal holds a move for each card flipped
                flipped += 1
                card = pile[flipped]
                first, second, third = card["back"]
                top = CARD_IDS[first][second][third][card["front"]]
            else:
                finished = True
        self._turn, self._top, self._finished = turn, top, finished
        return played

    def outcome(self) -> dict | None:
        if not self._finished:
            return None
        return rules.result(self._scores, [sum(map(len, tank)) for tank in zip(*self._tanks)])  # by seat

    def evaluate(self, seat: int) -> float:
        return rules.chance(self._scores, self._target, seat)

    @staticmethod
    def _move(seat: int, owner: int) -> dict:
        return {"action": "score"} if owner == seat else {"action": "steal", "target": owner}


def greedy_owner(top: int, seat: int, others: tuple, where: list, keys: list, values: dict, rng) -> int:
    """rules.greedy's choice, as the owner of the tank flipped into: protocol.highest over the value of each
    legal move, in the moves' order (a score, then a steal from each of the `others`)."""
    packed, fronts = keys[FRONT[top]], 1  # every seat's key, a field each; the top card lies in the draw pile
    for card, front in MATES[top]:
        lies = where[card]
        if lies != IN_TANK and lies != seat:
            packed += keys[front]
            fronts += 1
    steal, score = values[fronts]
    best, best_value, ties = seat, score[packed >> SHIFTS[seat] & KEY_MASK], None  # ties listed once two
    for owner in others:
        value = steal[packed >> SHIFTS[owner] & KEY_MASK]
        if value > best_value:
            best, best_value, ties = owner, value, None
        elif value == best_value:
            ties = (ties or [best]) + [owner]
    return best if ties is None else tie_break(ties, rng)
