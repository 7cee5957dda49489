"""Mantis for a search's playouts: the flip of domain/games/mantis.py once more, on small ints.

A card is its index in the classic deck (build_deck; the compact deck's cards are classic cards, those whose
backs lack pink), a colour its index in COLOURS. The tanks are kept by colour, then seat: the cards of that
front in that seat's tank, in the order they came (a list, or EMPTY), and what they add to greedy's key
(ADDS); a score pile is a count. Where each card lies (the draw pile, a tank, a seat's score pile) is kept
too, for greedy: the fronts the top card may have, for the mover, are those of the cards with its back that
lie neither in a tank nor in the mover's score pile. The draw pile stays the engine's list of card dicts,
read from an index on; only its top card is turned into an int.
The engine's state is the start state with the moves played since folded through decide and evolve, when
asked (a playout asks at most once, at its cap), so a move here changes only the ints.
"""
from collections import Counter
from operator import add

from domain.games import mantis as rules
from domain.simulation import Simulation

DECK = rules.build_deck("classic")
FRONT = tuple(rules.COLOURS.index(card["front"]) for card in DECK)
CARD_IDS: dict = {}  # back colours, one level each, then front -> card
for _card, (_first, _second, _third) in enumerate(card["back"] for card in DECK):
    CARD_IDS.setdefault(_first, {}).setdefault(_second, {}).setdefault(_third, {})[DECK[_card]["front"]] = _card
SAME_BACK = tuple(tuple(other for other, mate in enumerate(DECK) if mate["back"] == card["back"]) for card in DECK)
IN_PILE, IN_TANK = -1, -2  # where a card lies; a seat's score pile is the seat
EMPTY = ()  # a tank's cards of a colour it holds none of (a list is made when a card comes)
# each seat's legal moves as the owners of the tanks they flip into: its own, then the others in order
ORDERS = {players: tuple((seat,) + tuple(other for other in range(players) if other != seat)
                         for seat in range(players))
          for players in range(rules.INFO.min_players, rules.INFO.max_players + 1)}
NO_CARDS = {players: ((EMPTY,) * players,) * len(rules.COLOURS) for players in ORDERS}  # by colour, then seat
NO_ADDS = {players: ((0,) * players,) * len(rules.COLOURS) for players in ORDERS}

# Greedy values a flip (rules.flip_value) by the fronts the top card may have: how many would match the tank
# flipped into (hits) and the cards they would move. Each front adds to a key: 16 per card it would move and
# 4 if it would move any (at most 3 hits, so the sum holds both); a table per count of fronts maps the key to
# the value of a steal and of a score.
MOST_OF_A_COLOUR = max(Counter(FRONT).values())
ADDS = (0,) + tuple((count + 1) * 16 + 4 for count in range(1, MOST_OF_A_COLOUR + 1))  # by count in the tank


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
    as of `_folded` moves of the journal."""

    def __init__(self, state: dict):
        super().__init__(rules, state)
        players = len(state["tanks"])
        self._players, self._turn, self._finished = players, state["turn"], state["finished"]
        self._target, self._scores = state["target"], [len(pile) for pile in state["score_piles"]]
        self._orders, self._values = ORDERS[players], VALUES[players == 2]
        self._where = where = [IN_PILE] * len(DECK)
        self._tanks: list[list] = list(map(list, NO_CARDS[players]))
        self._adds = list(map(list, NO_ADDS[players]))
        for seat, tank in enumerate(state["tanks"]):
            for card in map(card_id, tank):
                row = self._tanks[FRONT[card]]
                row[seat] = [*row[seat], card]
                self._adds[FRONT[card]][seat] = ADDS[len(row[seat])]
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
        return self._move(seat, self._greedy_owner(seat, rng))

    def play(self, seat: int, move: dict, rng) -> None:
        self._flip(seat, seat if move["action"] == "score" else move["target"])

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        players, orders = self._players, self._orders  # a seat has as many legal moves as there are players
        for played in range(cap):
            if self._finished:
                return played
            seat = self._turn
            seats.add(seat)
            if greedy_share and rng.random() < greedy_share:
                self._flip(seat, self._greedy_owner(seat, rng))
            else:
                self._flip(seat, orders[seat][rng.below(players)])
        return cap

    def outcome(self) -> dict | None:
        if not self._finished:
            return None
        return rules.result(self._scores, [sum(len(row[seat]) for row in self._tanks) for seat in range(self._players)])

    def evaluate(self, seat: int) -> float:
        return rules.chance(self._scores, self._target, seat)

    @staticmethod
    def _move(seat: int, owner: int) -> dict:
        return {"action": "score"} if owner == seat else {"action": "steal", "target": owner}

    def _flip(self, seat: int, owner: int) -> None:
        """The seat (the one to act) flips the top card into the owner's tank."""
        card, where = self._top, self._where
        front = FRONT[card]
        tanks, adds = self._tanks[front], self._adds[front]  # this colour's, by seat
        matched = tanks[owner]
        if not matched:
            tanks[owner], adds[owner] = [card], ADDS[1]
            where[card] = IN_TANK
            self._turn = (seat + 1) % self._players
        elif owner == seat:
            tanks[seat], adds[seat] = EMPTY, 0
            for scored in matched:
                where[scored] = seat
            where[card] = seat
            self._scores[seat] += len(matched) + 1
            self._finished = self._scores[seat] >= self._target
            self._turn = (seat + 1) % self._players
        else:
            tanks[owner], adds[owner] = EMPTY, 0
            matched.append(card)
            where[card] = IN_TANK
            if tanks[seat]:
                tanks[seat] += matched
            else:
                tanks[seat] = matched
            adds[seat] = ADDS[len(tanks[seat])]
            if self._players != 2:  # a successful steal between two plays again
                self._turn = (seat + 1) % self._players
        journal, pile = self._journal, self._pile
        journal.append(owner)
        if len(journal) < len(pile):  # the journal holds a move for each card flipped
            self._top = card_id(pile[len(journal)])
        else:
            self._finished = True

    def _greedy_owner(self, seat: int, rng) -> int:
        """rules.greedy's choice, as the owner of the tank flipped into: the value of each legal move, then a
        draw, in the moves' order; the first of the highest (value, draw)."""
        where, adds = self._where, self._adds
        rows = [adds[FRONT[card]] for card in SAME_BACK[self._top] if where[card] != IN_TANK and where[card] != seat]
        keys = rows[0]  # by seat
        for row in rows[1:]:
            keys = list(map(add, keys, row))
        steal, score = self._values[len(rows)]
        order, random = self._orders[seat], rng.random
        best, best_value, best_draw = seat, score[keys[seat]], random()
        for owner in order[1:]:
            value, draw = steal[keys[owner]], random()
            if value > best_value or (value == best_value and draw > best_draw):
                best, best_value, best_draw = owner, value, draw
        return best
