"""FlipOut's fast simulation: the rules of domain/games/flipout.py once more, for a search's playouts.

While the game lasts every holder has 6 cards, kept as two ints: the code of its inner faces and the code
of its outer faces, where colour c (its index in COLOURS) at place p adds c * 5**p. A move changes codes by
arithmetic, and what depends on one holder's faces alone (its run, its pairs of places, what greedy needs
to weigh the moves that change it) is looked up by code. A move is an index into the seat's legal moves
(legal_moves' order), made into the engine's move dict only when asked for.

Greedy weighs all 85-250 legal moves every action. While no set can be taken, a move's value is
weight * take + window of the holders it changes alone (flipout._greedy_values), so the best of each group
of moves (one holder's flips or switches, the swaps between the seat's holder and another) comes from
tables of those holders' patterns (their faces with the colours renamed in order of appearance: 202 of
them), and only the moves of the best groups are listed.
"""
from collections import deque
from functools import cache
from itertools import combinations, permutations

from domain.games.flipout import (ACTIONS_PER_TURN, COLOURS, GREEDY_WEIGHTS, HOLDER_SIZE, SET, SET_SIZES, SPEND,
                                  _legal, chance, find_run, outcome_of_piles)
from domain.protocol import next_seat, tie_break
from domain.simulation import Simulation

PLACES = range(HOLDER_SIZE)
BASE = len(COLOURS)  # a code is a number in base 5, a digit a place
POWERS = tuple(BASE ** place for place in PLACES)
COLOUR_OF = {colour: index for index, colour in enumerate(COLOURS)}
SWITCHES = tuple(combinations(PLACES, 2))  # a holder's switches in legal_moves' order
SWAP1S = HOLDER_SIZE * HOLDER_SIZE  # swap1s with one other seat
# greedy's weights, read in its busiest loop (the tables of holders below hold for any positive take weight)
NEXT_ACTION, NEXT_TURN, SCORE_OVER_SWIPE, TOKEN_DECK = GREEDY_WEIGHTS


def _window(faces: tuple) -> int:
    """How close faces facing me are to a set: the most of one colour in any 4 adjacent places (None, a face
    I have not seen, counts for nothing)."""
    size = SET_SIZES[0]
    return max((faces[start:start + size].count(face) for start in range(len(faces) - size + 1)
                for face in faces[start:start + size] if face is not None), default=0)


def _code(faces) -> int:
    """The code of faces (colour indices) from place 0."""
    code = 0
    for face in reversed(faces):
        code = code * BASE + face
    return code


def _codes(cards: list[dict]) -> tuple[int, int]:
    """The codes of a holder's inner faces and of its outer faces."""
    inner = outer = 0
    for card in reversed(cards):
        inner, outer = inner * BASE + COLOUR_OF[card["inner"]], outer * BASE + COLOUR_OF[card["outer"]]
    return inner, outer


# colours seen, in the order first seen -> per colour: (its label, the colours seen once it is)
_STEPS = {seen: [(seen.index(colour), seen) if colour in seen else (len(seen), seen + (colour,))
                 for colour in range(len(COLOURS))]
          for size in range(len(COLOURS) + 1) for seen in permutations(range(len(COLOURS)), size)}


def _patterns() -> tuple[list[int], list[tuple]]:
    """By code: its pattern (its faces relabelled 0, 1, ... in the order their colours first appear from
    place 0, itself a code) and its colours in that order (label -> colour)."""
    patterns: list[int] = [0]
    seen: list[tuple] = [()]
    for power in POWERS:  # the code's next digit, the most significant so far, is the outer loop
        patterns = [pattern + _STEPS[colours][colour][0] * power
                    for colour in range(len(COLOURS)) for pattern, colours in zip(patterns, seen)]
        seen = [_STEPS[colours][colour][1] for colour in range(len(COLOURS)) for colours in seen]
    return patterns, seen


def _faces(code: int, size: int = HOLDER_SIZE) -> tuple[int, ...]:
    """A code's face at each place."""
    return tuple(code // power % BASE for power in POWERS[:size])


# Runs, windows and pairs stay when colours are renamed: of the 15,625 codes only 202 patterns differ, and
# what greedy needs to know of a holder is built per pattern (numbered in order of first code). Tables by
# code are bytes where they can be, and a code's faces are worked out, not looked up: a playout reads them
# every move, and tables small enough for the processor's caches made it faster than fewer instructions.
_PATTERN_CODES, SEEN = _patterns()  # SEEN: a code's colours by label
PATTERNS = list(dict.fromkeys(_PATTERN_CODES))  # a pattern's code by number
_NUMBERS = {pattern: number for number, pattern in enumerate(PATTERNS)}
PATTERN = bytes(_NUMBERS[pattern] for pattern in _PATTERN_CODES)  # a code's pattern number
_RUN_SIZES = [(find_run(_faces(pattern)) or (0, 0))[1] for pattern in PATTERNS]
_WINDOWS = [_window(_faces(pattern)) for pattern in PATTERNS]
_PAIRS = [tuple(left for left in range(HOLDER_SIZE - 1) if faces[left] == faces[left + 1])
          for faces in map(_faces, PATTERNS)]
RUN_SIZES = bytes(_RUN_SIZES[number] for number in PATTERN)
WINDOWS = bytes(_WINDOWS[number] for number in PATTERN)
PAIRS = [_PAIRS[number] for number in PATTERN]
PAIR_COUNTS = bytes(len(pairs) for pairs in PAIRS)
HAS_RUN = bytes(int(size > 0) for size in RUN_SIZES)
_LABELS = {seen: tuple(label for label, _ in steps) for seen, steps in _STEPS.items()}
LABELS = [_LABELS[colours] for colours in SEEN]  # a code's label of each colour (one it does not show: the next)


def _take_theirs(code: int) -> int:
    """The cards a swipe of another seat's run gives me: all but its leftmost."""
    return max(RUN_SIZES[code] - 1, 0)


def _taking(code: int, place: int, width: int, colour: int) -> int:
    """The code after `colour` comes in at `width` (1 or 2) places from `place`."""
    faces = _faces(code)
    after = code + (colour - faces[place]) * POWERS[place]
    return after if width == 1 else after + (colour - faces[place + 1]) * POWERS[place + 1]


def _best(scored) -> tuple:
    """(the highest key, the items of that key) of (key, item) pairs; (None, ()) of none."""
    best, items = None, []
    for key, item in scored:
        if best is None or key > best:
            best, items = key, [item]
        elif key == best:
            items.append(item)
    return best, tuple(items)


class _Swaps:
    """A pattern for the swaps of `width` adjacent cards with another holder (swap1: 1, swap2: 2 of one
    colour), in which a card keeps facing me the face it showed me: each slot (the left place of the cards
    that cross; an index into `slots`) takes in the colour the other holder showed me there. Colours are
    the pattern's labels, and one more when a colour is left: one the holder does not show."""
    __slots__ = ("slots", "showing", "gain", "lure")

    def __init__(self, pattern: int, width: int):
        faces = _faces(pattern)
        self.slots = tuple(PLACES) if width == 1 else PAIRS[pattern]
        labels = range(min(len(SEEN[pattern]) + 1, len(COLOURS)))
        self.showing = tuple(tuple(i for i, place in enumerate(self.slots) if faces[place] == label)
                             for label in labels)
        # As mine: the best (take, window) a colour coming in gives me, and at which slots. A take implies
        # a window of 4, so this order of the pairs is that of weight * take + window for any weight.
        self.gain = tuple(_best(((RUN_SIZES[after], WINDOWS[after]), i) for i, place in enumerate(self.slots)
                                for after in (_taking(pattern, place, width, label),))
                          for label in labels)
        # As theirs: (slot, its colour, a colour coming in, the take) where that makes a run I can swipe
        self.lure = tuple((i, faces[place], label, take) for i, place in enumerate(self.slots) for label in labels
                          if (take := _take_theirs(_taking(pattern, place, width, label))))


class _Holder:
    """A pattern of the faces the seat weighing moves sees on a holder, with the best of each kind of move
    that changes that holder alone: (best key, those moves)."""
    __slots__ = ("window", "flip", "switch_mine", "switch_theirs", "swaps")

    def __init__(self, pattern: int):
        faces = _faces(pattern)
        self.window = WINDOWS[pattern]
        # a flip or a draw at my place: I no longer know the face there
        self.flip = _best((_window(faces[:place] + (None,) + faces[place + 1:]), place) for place in PLACES)
        switched = [pattern + (faces[b] - faces[a]) * (POWERS[a] - POWERS[b]) for a, b in SWITCHES]
        self.switch_mine = _best(((RUN_SIZES[after], WINDOWS[after]), k) for k, after in enumerate(switched))
        self.switch_theirs = _best((_take_theirs(after), k) for k, after in enumerate(switched))
        self.swaps = (_Swaps(pattern, 1), _Swaps(pattern, 2))


class _Holders(dict):
    """_Holder by pattern number, each built when greedy first meets it (random playouts need none)."""

    def __missing__(self, number: int) -> _Holder:
        holder = self[number] = _Holder(PATTERNS[number])
        return holder


HOLDERS = _Holders()


def _swap_best(mine: int, theirs: int, width: int, weight: float) -> tuple[float, list[tuple[int, int]]]:
    """The best value of the swaps of `width` between my holder and theirs (codes of the faces I see), and
    the (my slot, their slot) of every swap of that value (some twice). A swap's value is its change to my
    holder (by the colour their slot shows me) unless it also makes a run for me to swipe (a lure)."""
    here, there = HOLDERS[PATTERN[mine]].swaps[width - 1], HOLDERS[PATTERN[theirs]].swaps[width - 1]
    my_label, their_colours = LABELS[mine], SEEN[theirs]
    best = -1
    found: list[tuple[int, int]] = []
    for label, their_slots in enumerate(there.showing):
        if their_slots:
            (take, window), my_slots = here.gain[my_label[their_colours[label]]]
            value = weight * take + window
            if value >= best:
                if value > best:
                    best, found = value, []
                found += [(i, j) for i in my_slots for j in their_slots]
    for j, label, wanted, take_there in there.lure:
        for i in here.showing[my_label[their_colours[wanted]]]:
            after = _taking(mine, here.slots[i], width, their_colours[label])
            value = weight * max(RUN_SIZES[after], take_there) + WINDOWS[after]
            if value >= best:
                if value > best:
                    best, found = value, []
                found.append((i, j))
    return best, found


@cache
def _changes(players: int) -> tuple[tuple[dict, ...], ...]:
    """Each seat's flips, switches and swap1s, the same at every table of `players` in play (6 cards a
    holder), in legal_moves' order: the engine's own list from faces that make no pair and no run. Built
    once and shared, as the reference simulation shares its list of legal moves."""
    faces = [(0, 1) * (HOLDER_SIZE // 2)] * players
    return tuple(tuple(_legal(faces, faces, seat, False, False)) for seat in range(players))


@cache
def _others(players: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(other for other in range(players) if other != seat) for seat in range(players))


class _Moves:
    """Where each group of the seat to act's legal moves after its swap1s starts in legal_moves' list (the
    flips, switches and swap1s of a table always number alike)."""
    __slots__ = ("seat", "swap2", "score", "swipe", "swipes", "draw", "token")

    def __init__(self, simulation: "FastSimulation"):
        seat, outer = simulation.turn, simulation.outer
        self.seat, mine = seat, simulation.inner[seat]
        start = simulation.fixed
        self.swap2 = []  # (start, target, its pairs), when it and I have pairs
        for target in simulation.others[seat]:
            if PAIRS[mine] and PAIRS[outer[target]]:
                self.swap2.append((start, target, PAIRS[outer[target]]))
                start += len(PAIRS[mine]) * len(PAIRS[outer[target]])
        self.score = start if RUN_SIZES[mine] else None
        self.swipe = start + (self.score is not None)
        self.swipes = [target for target in simulation.others[seat] if RUN_SIZES[outer[target]]]
        start = self.swipe + len(self.swipes)
        self.draw = start if len(outer) == 2 and simulation.deck else None
        self.token = start + (HOLDER_SIZE if self.draw is not None else 0)  # when it can be spent

    def move(self, simulation: "FastSimulation", index: int) -> dict:
        """The move at an index past the swap1s."""
        if index < self.swipe - (self.score is not None):
            start, target, theirs = next(part for part in reversed(self.swap2) if part[0] <= index)
            mine = PAIRS[simulation.inner[self.seat]]
            their_pair, my_pair = divmod(index - start, len(mine))
            return {"action": "swap2", "target": target, "mine": mine[my_pair], "theirs": theirs[their_pair]}
        if index == self.score:
            return {"action": "score"}
        if index < self.swipe + len(self.swipes):
            return {"action": "swipe", "target": self.swipes[index - self.swipe]}
        if index == self.token:
            return {"action": "spend_token"}
        assert self.draw is not None  # the draws are the only moves left
        return {"action": "draw", "place": index - self.draw}


class FastSimulation(Simulation):
    """FlipOut for a search's playouts: holders as codes, the deck and the score piles of the engine's cards
    (a playout seldom reads them), and no events. The same rules as decide and evolve
    (tests/unit/test_simulation.py plays both side by side)."""

    def __init__(self, state: dict):
        self.options = state["options"]
        codes = [_codes(holder) for holder in state["holders"]]
        self.inner, self.outer = [inner for inner, _ in codes], [outer for _, outer in codes]
        self.sizes = [len(holder) for holder in state["holders"]]
        self.deck = deque(state["deck"])
        self.piles = [list(pile) for pile in state["score_piles"]]
        self.tokens = None if state["tokens"] is None else list(state["tokens"])
        self.turn, self.actions_left, self.token_spent = state["turn"], state["actions_left"], state["token_spent"]
        self.turns, self.quiet_since, self.end = state["turns"], state["quiet_since"], state["end"]
        players = len(self.inner)
        self.others, self.changes = _others(players), _changes(players)
        self.fixed = len(self.changes[0])
        self.stall = self.options["stall_rounds"] * players  # turns without a set that end the game
        self.count: int | None = None  # the seat to act's legal moves, until the next move
        self.moves: _Moves | None = None

    def state(self) -> dict:
        holders = [[{"inner": COLOURS[inner], "outer": COLOURS[outer]}
                    for inner, outer in zip(_faces(self.inner[h], size), _faces(self.outer[h], size))]
                   for h, size in enumerate(self.sizes)]
        return {"options": self.options, "holders": holders,
                "deck": list(self.deck), "score_piles": [list(pile) for pile in self.piles],
                "tokens": None if self.tokens is None else list(self.tokens), "turn": self.turn,
                "actions_left": self.actions_left, "token_spent": self.token_spent, "turns": self.turns,
                "quiet_since": self.quiet_since, "finished": self.end is not None, "end": self.end}

    def to_act(self) -> list[int]:
        return [] if self.end is not None else [self.turn]

    def legal_moves(self, seat: int) -> list[dict]:
        return [self.move(seat, index) for index in range(self.move_count(seat))]

    def move_count(self, seat: int) -> int:
        """Counted from the codes every move (_Moves, where each group starts, is built only for a move past
        the swap1s or for greedy)."""
        if seat != self.turn or self.end is not None:
            return 0
        count = self.count
        if count is None:
            mine, outer = self.inner[seat], self.outer
            count, pairs = self.fixed + HAS_RUN[mine], PAIR_COUNTS[mine]
            for target in self.others[seat]:
                theirs = outer[target]
                count += pairs * PAIR_COUNTS[theirs] + HAS_RUN[theirs]
            if len(outer) == 2 and self.deck:
                count += HOLDER_SIZE
            if self.tokens is not None and self._can_spend():  # (without the variant, no call)
                count += 1
            self.count = count
        return count

    def _can_spend(self) -> bool:
        return self.tokens is not None and self.tokens[self.turn] > 0 and not self.token_spent

    def move(self, seat: int, index: int) -> dict:
        if index < self.fixed:
            return self.changes[seat][index]
        return self._later().move(self, index)

    def _later(self) -> _Moves:
        if self.moves is None:
            self.moves = _Moves(self)
        return self.moves

    def greedy(self, seat: int, rng) -> dict:
        return self.move(seat, self._greedy(rng))

    def play(self, seat: int, move: dict, rng) -> None:
        self.count = self.moves = None
        action, short = move["action"], None
        if action == "swap1":
            self._swap(seat, move["target"], move["mine"], move["theirs"])
        elif action == "switch":
            self._switch(move["holder"], move["first"], move["second"])
        elif action == "flip":
            self._flip(move["holder"], move["place"])
        elif action == "swap2":
            self._swap(seat, move["target"], move["mine"], move["theirs"])
            self._swap(seat, move["target"], move["mine"] + 1, move["theirs"] + 1)
        elif action == "draw":
            self._draw(seat, move["place"])
        elif action == "spend_token":
            assert self.tokens is not None  # spend_token is legal only with tokens
            self.tokens[seat] -= 1
            self.actions_left += 1
            self.token_spent = True
            return  # not an action: the turn and the stall count stay
        else:
            short = self._collect(seat, seat if action == "score" else move["target"])
        if self.actions_left > 1:
            self.actions_left -= 1
        else:
            self._pass_turn()
        if short is not None:
            self._end("deck_exhausted", short)

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        for played in range(cap):
            if self.end is not None:
                return played
            seat = self.turn
            seats.add(seat)
            count = self.move_count(seat)
            if count > 1 and greedy_share and (greedy_share >= 1.0 or rng.random() < greedy_share):
                index = self._greedy(rng)
            else:
                index = rng.below(count) if count > 1 else 0
            self.play(seat, self.move(seat, index), rng)
        return cap

    def outcome(self) -> dict | None:
        return None if self.end is None else outcome_of_piles(self.piles)

    def evaluate(self, seat: int) -> float:
        return chance(list(map(len, self.piles)), seat)

    # --- greedy -----------------------------------------------------------------------------------------
    def _greedy(self, rng) -> int:
        """flipout.greedy's choice for the seat to act (its index), with its rng draws."""
        moves = self._later()
        takes = []  # (value, index) of each set to take
        if moves.score is not None:
            takes.append((SET + SCORE_OVER_SWIPE + RUN_SIZES[self.inner[self.turn]], moves.score))
        takes += [(SET + _take_theirs(self.outer[target]), moves.swipe + i) for i, target in enumerate(moves.swipes)]
        if self._can_spend() and ((takes and self.actions_left == 1) or len(self.deck) <= TOKEN_DECK):
            takes.append((SPEND, moves.token))  # (a token otherwise weighs less than any move)
        if takes:  # taken: no other move is weighed against a set
            top = max(value for value, _ in takes)
            return tie_break([index for value, index in takes if value == top], rng)
        return tie_break(self._best_changes(moves), rng)

    def _best_changes(self, moves: _Moves) -> list[int]:
        """The indices of the best moves that change holders, when no set can be taken (so only the holders
        a move changes differ from the holders as they are)."""
        players, seat, outer = len(self.inner), self.turn, self.outer
        weight = NEXT_ACTION if self.actions_left > 1 else NEXT_TURN
        my_code = self.inner[seat]
        mine = HOLDERS[PATTERN[my_code]]
        top: float = -1
        ties: list[int] = []

        def offer(value: float, start: int, offsets) -> None:
            nonlocal top, ties
            if value > top:
                top, ties = value, [start + offset for offset in offsets]
            elif value == top:
                ties += [start + offset for offset in offsets]

        switches, swap1s = HOLDER_SIZE * players, (HOLDER_SIZE + len(SWITCHES)) * players
        (take, window), changed = mine.switch_mine
        offer(weight * take + window, switches + len(SWITCHES) * seat, changed)
        for other, target in enumerate(self.others[seat]):
            theirs = HOLDERS[PATTERN[outer[target]]]
            take, changed = theirs.switch_theirs
            offer(weight * take + mine.window, switches + len(SWITCHES) * target, changed)
            value, found = _swap_best(my_code, outer[target], 1, weight)
            if value >= top:
                offer(value, swap1s + SWAP1S * other, [HOLDER_SIZE * i + j for i, j in found])
        for start, target, _ in moves.swap2:
            value, found = _swap_best(my_code, outer[target], 2, weight)
            if value >= top:
                offer(value, start, [PAIR_COUNTS[my_code] * j + i for i, j in found])
        # a flip of another holder shows me a face I have not seen there, which makes no set: my window stays
        for target in self.others[seat]:
            offer(mine.window, HOLDER_SIZE * target, PLACES)
        window, places = mine.flip
        offer(window, HOLDER_SIZE * seat, places)
        if moves.draw is not None:
            offer(window, moves.draw, places)
        return sorted(set(ties))

    # --- moves ------------------------------------------------------------------------------------------
    def _flip(self, holder: int, place: int) -> None:
        inner, outer, power = self.inner[holder], self.outer[holder], POWERS[place]
        change = (outer // power % BASE - inner // power % BASE) * power
        self.inner[holder], self.outer[holder] = inner + change, outer - change

    def _switch(self, holder: int, first: int, second: int) -> None:
        inner, outer, at_first, at_second = self.inner[holder], self.outer[holder], POWERS[first], POWERS[second]
        apart = at_first - at_second
        self.inner[holder] = inner + (inner // at_second % BASE - inner // at_first % BASE) * apart
        self.outer[holder] = outer + (outer // at_second % BASE - outer // at_first % BASE) * apart

    def _swap(self, seat: int, target: int, mine: int, theirs: int) -> None:
        """My card at `mine` and the target's at `theirs` change places, each turned around."""
        inner, outer = self.inner, self.outer
        my_inner, my_outer = inner[seat], outer[seat]
        their_inner, their_outer = inner[target], outer[target]
        here, there = POWERS[mine], POWERS[theirs]
        a, b = my_inner // here % BASE, my_outer // here % BASE
        c, d = their_inner // there % BASE, their_outer // there % BASE
        inner[seat], outer[seat] = my_inner + (d - a) * here, my_outer + (c - b) * here
        inner[target], outer[target] = their_inner + (b - c) * there, their_outer + (a - d) * there

    def _draw(self, seat: int, place: int) -> None:
        """The deck's top card comes in underside facing me; the card there goes under the deck as if drawn."""
        card, power = self.deck.popleft(), POWERS[place]
        inner, outer = self.inner[seat] // power % BASE, self.outer[seat] // power % BASE
        self.inner[seat] += (COLOUR_OF[card["down"]] - inner) * power
        self.outer[seat] += (COLOUR_OF[card["up"]] - outer) * power
        self.deck.append({"up": COLOURS[outer], "down": COLOURS[inner]})

    def _collect(self, seat: int, owner: int) -> int | None:
        """A score (owner: the seat) or a swipe: the run goes to the piles (a swipe's leftmost card to its
        victim), its holder refills; the owner if the deck ran short (the game then ends), else None."""
        run = self._taken(owner, owner != seat)
        if owner == seat:
            self.piles[seat] += run
        else:
            self.piles[owner].append(run[0])
            self.piles[seat] += run[1:]
        self.quiet_since = self.turns + 1
        return owner if self._refill(owner) else None

    def _taken(self, owner: int, outward: bool) -> list[dict]:
        """The owner's run (of inner faces, or of outer ones) out of the holder, the rest closing up to the
        left: its cards as a score pile holds them (flipout.collected)."""
        size = self.sizes[owner]
        inner, outer = list(_faces(self.inner[owner], size)), list(_faces(self.outer[owner], size))
        seen, hidden = (outer, inner) if outward else (inner, outer)
        start, count, _ = find_run(seen)  # type: ignore[misc]  # a legal score or swipe has a run
        run = [{"colour": COLOURS[colour], "other": COLOURS[other]}
               for colour, other in zip(seen[start:start + count], hidden[start:start + count])]
        del inner[start:start + count], outer[start:start + count]
        self.inner[owner], self.outer[owner], self.sizes[owner] = _code(inner), _code(outer), size - count
        return run

    def _refill(self, owner: int) -> bool:
        """The owner draws up to 6; whether the deck ran short (the game then ends)."""
        while self.sizes[owner] < HOLDER_SIZE and self.deck:
            card = self.deck.popleft()
            power = POWERS[self.sizes[owner]]
            self.inner[owner] += COLOUR_OF[card["down"]] * power
            self.outer[owner] += COLOUR_OF[card["up"]] * power
            self.sizes[owner] += 1
        return self.sizes[owner] < HOLDER_SIZE

    def _pass_turn(self) -> None:
        """After the turn's last action; the game ends when stall_rounds rounds have passed without a set
        (only a turn's end brings that on)."""
        self.turn, self.actions_left = next_seat(self.turn, len(self.inner)), ACTIONS_PER_TURN
        self.token_spent, self.turns = False, self.turns + 1
        if self.turns - self.quiet_since >= self.stall:
            self._end("stalled", None)

    def _end(self, reason: str, short: int | None) -> None:
        """Every seat collects the run facing it, if it has one."""
        for owner, size in enumerate(self.sizes):
            if find_run(_faces(self.inner[owner], size)):
                self.piles[owner] += self._taken(owner, False)
        self.end = {"reason": reason, "seat": short}
