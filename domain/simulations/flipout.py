"""FlipOut's fast simulation: the rules of domain/games/flipout.py once more, for a search's playouts.

While the game lasts every holder has 6 cards, kept as two ints: the code of its inner faces and the code
of its outer faces, where colour c (its index in COLOURS) at place p adds c * 5**p. A move changes codes by
arithmetic, and what depends on one holder's faces alone (its run, its pairs of places, what greedy needs
to weigh the moves that change it) is looked up by code. A move is an index into the seat's legal moves
(legal_moves' order), made into the engine's move dict only when asked for.

Greedy weighs all 85-250 legal moves every action. While no set can be taken, a move's value is
weight * take + window of the holders it changes alone (flipout._greedy_values), so the best of each group
of moves (one holder's flips or switches, the swaps between the seat's holder and another) comes from
tables of those holders' codes, and only the moves of the best groups are listed.
"""
from collections import deque
from itertools import combinations, product

from domain.games.flipout import (_MOVE_FIELDS, ACTIONS_PER_TURN, COLOURS, HOLDER_SIZE, SET_SIZES, _as_tuple,
                                  find_run, outcome)
from domain.protocol import next_seat
from domain.simulation import Simulation

PLACES = range(HOLDER_SIZE)
POWERS = tuple(len(COLOURS) ** place for place in PLACES)
COLOUR_OF = {colour: index for index, colour in enumerate(COLOURS)}
SWITCHES = tuple(combinations(PLACES, 2))  # a holder's switches in legal_moves' order
SWAP1S = HOLDER_SIZE * HOLDER_SIZE  # swap1s with one other seat


def _window(faces: tuple) -> int:
    """How close faces facing me are to a set: the most of one colour in any 4 adjacent places (None, a face
    I have not seen, counts for nothing)."""
    size = SET_SIZES[0]
    return max((faces[start:start + size].count(face) for start in range(len(faces) - size + 1)
                for face in faces[start:start + size] if face is not None), default=0)


def _labelled() -> tuple[list[tuple], list[tuple]]:
    """Each code's faces relabelled 0, 1, ... in the order their colours first appear from place 0, and its
    colours in that order (label -> colour); both by code."""
    labelled: list[tuple] = [()]
    seen: list[tuple] = [()]
    for _ in PLACES:
        longer, seen_longer = [], []
        for colour in range(len(COLOURS)):  # the code's next digit, the most significant so far
            for faces, colours in zip(labelled, seen):
                if colour in colours:
                    longer.append(faces + (colours.index(colour),))
                    seen_longer.append(colours)
                else:
                    longer.append(faces + (len(colours),))
                    seen_longer.append(colours + (colour,))
        labelled, seen = longer, seen_longer
    return labelled, seen


def _code(faces) -> int:
    return sum(face * power for face, power in zip(faces, POWERS))


# Runs, windows and pairs stay when colours are renamed: of the 15,625 codes only 202 patterns (a code's
# faces relabelled, itself a code) differ, and what greedy needs to know of a holder is built per pattern.
FACES = [faces[::-1] for faces in product(range(len(COLOURS)), repeat=HOLDER_SIZE)]  # a code's face at each place
_LABELLED, SEEN = _labelled()  # SEEN: a code's colours by label
_PATTERNS = {faces: _code(faces) for faces in _LABELLED}
PATTERN = [_PATTERNS[faces] for faces in _LABELLED]
_RUN_SIZES = {pattern: (find_run(faces) or (0, 0))[1] for faces, pattern in _PATTERNS.items()}
_WINDOWS = {pattern: _window(faces) for faces, pattern in _PATTERNS.items()}
_PAIRS = {pattern: tuple(left for left in range(HOLDER_SIZE - 1) if faces[left] == faces[left + 1])
          for faces, pattern in _PATTERNS.items()}
RUN_SIZES = [_RUN_SIZES[pattern] for pattern in PATTERN]
WINDOWS = [_WINDOWS[pattern] for pattern in PATTERN]
PAIRS = [_PAIRS[pattern] for pattern in PATTERN]
_LABELS = {colours: tuple(colours.index(colour) if colour in colours else len(colours)
                          for colour in range(len(COLOURS))) for colours in set(SEEN)}
LABELS = [_LABELS[colours] for colours in SEEN]  # a code's label of each colour (one it does not show: the next)


def _take_theirs(code: int) -> int:
    """The cards a swipe of another seat's run gives me: all but its leftmost."""
    return max(RUN_SIZES[code] - 1, 0)


def _taking(code: int, place: int, width: int, colour: int) -> int:
    """The code after `colour` comes in at `width` places from `place`."""
    faces = FACES[code]
    return code + sum((colour - faces[p]) * POWERS[p] for p in range(place, place + width))


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
        faces = FACES[pattern]
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
        faces = FACES[pattern]
        self.window = WINDOWS[pattern]
        # a flip or a draw at my place: I no longer know the face there
        self.flip = _best((_window(faces[:place] + (None,) + faces[place + 1:]), place) for place in PLACES)
        switched = [pattern + (faces[b] - faces[a]) * (POWERS[a] - POWERS[b]) for a, b in SWITCHES]
        self.switch_mine = _best(((RUN_SIZES[after], WINDOWS[after]), k) for k, after in enumerate(switched))
        self.switch_theirs = _best((_take_theirs(after), k) for k, after in enumerate(switched))
        self.swaps = (_Swaps(pattern, 1), _Swaps(pattern, 2))


_HOLDERS = {pattern: _Holder(pattern) for pattern in _PATTERNS.values()}
HOLDERS = [_HOLDERS[pattern] for pattern in PATTERN]


def _swap_best(mine: int, theirs: int, width: int, weight: int) -> tuple[int, list[tuple[int, int]]]:
    """The best value of the swaps of `width` between my holder and theirs (codes of the faces I see), and
    the (my slot, their slot) of every swap of that value (some twice). A swap's value is its change to my
    holder (by the colour their slot shows me) unless it also makes a run for me to swipe (a lure)."""
    here, there = HOLDERS[mine].swaps[width - 1], HOLDERS[theirs].swaps[width - 1]
    my_label, their_colours = LABELS[mine], SEEN[theirs]
    best, found = -1, []
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


class _Moves:
    """The legal moves of the seat to act, as where each kind starts in legal_moves' list; a table's flips,
    switches and swap1s always number alike."""
    __slots__ = ("seat", "others", "swap2", "score", "swipe", "swipes", "draw", "token", "count")

    def __init__(self, simulation: "FastSimulation"):
        players, seat, outer = len(simulation.inner), simulation.turn, simulation.outer
        self.seat, self.others = seat, [other for other in range(players) if other != seat]
        mine = simulation.inner[seat]
        start = (HOLDER_SIZE + len(SWITCHES)) * players + SWAP1S * (players - 1)
        self.swap2 = []  # (start, target, its pairs) with a pair of mine and one of the target's
        for target in self.others:
            if PAIRS[mine] and PAIRS[outer[target]]:
                self.swap2.append((start, target, PAIRS[outer[target]]))
                start += len(PAIRS[mine]) * len(PAIRS[outer[target]])
        self.score = start if RUN_SIZES[mine] else None
        self.swipe = start + (self.score is not None)
        self.swipes = [target for target in self.others if RUN_SIZES[outer[target]]]
        start = self.swipe + len(self.swipes)
        self.draw = start if players == 2 and simulation.deck else None
        start += HOLDER_SIZE if self.draw is not None else 0
        tokens = simulation.tokens
        self.token = start if tokens is not None and tokens[seat] > 0 and not simulation.token_spent else None
        self.count = start + (self.token is not None)

    def decoded(self, simulation: "FastSimulation", index: int) -> tuple:
        """The move at `index`, as flipout._as_tuple gives it."""
        players = len(simulation.inner)
        flips, switches = HOLDER_SIZE * players, len(SWITCHES) * players
        if index < flips:
            return ("flip", *divmod(index, HOLDER_SIZE))
        if index < flips + switches:
            holder, switch = divmod(index - flips, len(SWITCHES))
            return ("switch", holder, *SWITCHES[switch])
        if index < flips + switches + SWAP1S * (players - 1):
            other, places = divmod(index - flips - switches, SWAP1S)
            return ("swap1", self.others[other], *divmod(places, HOLDER_SIZE))
        if index < self.swipe - (self.score is not None):
            start, target, theirs = next(part for part in reversed(self.swap2) if part[0] <= index)
            mine = PAIRS[simulation.inner[self.seat]]
            their_pair, my_pair = divmod(index - start, len(mine))
            return "swap2", target, mine[my_pair], theirs[their_pair]
        if index == self.score:
            return ("score",)
        if index < self.swipe + len(self.swipes):
            return "swipe", self.swipes[index - self.swipe]
        if index == self.token:
            return ("spend_token",)
        return "draw", index - self.draw


class FastSimulation(Simulation):
    """FlipOut for a search's playouts: holders as codes, the deck a deque of (up, down) colour indices,
    score piles of (colour, other), and no events. The same rules as decide and evolve
    (tests/unit/test_simulation.py plays both side by side)."""

    def __init__(self, state: dict):
        self.options = state["options"]
        self.inner = [_code(COLOUR_OF[card["inner"]] for card in holder) for holder in state["holders"]]
        self.outer = [_code(COLOUR_OF[card["outer"]] for card in holder) for holder in state["holders"]]
        self.sizes = [len(holder) for holder in state["holders"]]
        self.deck = deque((COLOUR_OF[card["up"]], COLOUR_OF[card["down"]]) for card in state["deck"])
        self.piles = [[(COLOUR_OF[card["colour"]], COLOUR_OF[card["other"]]) for card in pile]
                      for pile in state["score_piles"]]
        self.tokens = None if state["tokens"] is None else list(state["tokens"])
        self.turn, self.actions_left, self.token_spent = state["turn"], state["actions_left"], state["token_spent"]
        self.turns, self.quiet_since, self.end = state["turns"], state["quiet_since"], state["end"]
        self.moves: _Moves | None = None  # the legal moves until the next move

    def state(self) -> dict:
        holders = [[{"inner": COLOURS[inner], "outer": COLOURS[outer]}
                    for inner, outer in zip(FACES[self.inner[h]][:size], FACES[self.outer[h]][:size])]
                   for h, size in enumerate(self.sizes)]
        return {"options": self.options, "holders": holders,
                "deck": [{"up": COLOURS[up], "down": COLOURS[down]} for up, down in self.deck],
                "score_piles": [[{"colour": COLOURS[colour], "other": COLOURS[other]} for colour, other in pile]
                                for pile in self.piles],
                "tokens": None if self.tokens is None else list(self.tokens), "turn": self.turn,
                "actions_left": self.actions_left, "token_spent": self.token_spent, "turns": self.turns,
                "quiet_since": self.quiet_since, "finished": self.end is not None, "end": self.end}

    def to_act(self) -> list[int]:
        return [] if self.end is not None else [self.turn]

    def _legal(self) -> _Moves:
        if self.moves is None:
            self.moves = _Moves(self)
        return self.moves

    def legal_moves(self, seat: int) -> list[dict]:
        return [self.move(seat, index) for index in range(self.move_count(seat))]

    def move_count(self, seat: int) -> int:
        return self._legal().count if seat == self.turn and self.end is None else 0

    def move(self, seat: int, index: int) -> dict:
        action, *values = self._legal().decoded(self, index)
        return {"action": action, **dict(zip(_MOVE_FIELDS[action], values))}

    def greedy(self, seat: int, rng) -> dict:
        return self.move(seat, self._greedy(self._legal(), rng))

    def play(self, seat: int, move: dict, rng) -> None:
        self._play(seat, _as_tuple(move))

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        for played in range(cap):
            if self.end is not None:
                return played
            moves = self._legal()
            seats.add(moves.seat)
            count = moves.count
            if greedy_share and count > 1 and rng.random() < greedy_share:
                index = self._greedy(moves, rng)
            else:
                index = rng.below(count) if count > 1 else 0
            self._play(moves.seat, moves.decoded(self, index))
        return cap

    def outcome(self) -> dict | None:
        return None if self.end is None else outcome(self.state())

    # --- greedy -----------------------------------------------------------------------------------------
    def _greedy(self, moves: _Moves, rng) -> int:
        """flipout.greedy's choice (its index), with its rng draws."""
        weight = 10 if self.actions_left > 1 else 4  # as in flipout._greedy_values
        takes = []  # (value, index) of each set to take
        if moves.score is not None:
            takes.append((100.5 + RUN_SIZES[self.inner[moves.seat]], moves.score))
        takes += [(100 + _take_theirs(self.outer[target]), moves.swipe + i) for i, target in enumerate(moves.swipes)]
        if moves.token is not None and ((takes and self.actions_left == 1) or len(self.deck) <= 12):
            takes.append((200, moves.token))  # (a token otherwise weighs less than any move)
        if takes:  # worth 100 or more: any other move 6 * 10 + 4 at most
            top = max(value for value, _ in takes)
            return _pick([index for value, index in takes if value == top], moves.count, rng)
        return _pick(self._best_changes(moves, weight), moves.count, rng)

    def _best_changes(self, moves: _Moves, weight: int) -> list[int]:
        """The indices of the best moves that change holders, when no set can be taken (so only the holders
        a move changes differ from the holders as they are)."""
        players, seat, outer = len(self.inner), moves.seat, self.outer
        my_code = self.inner[seat]
        mine = HOLDERS[my_code]
        top, ties = -1, []

        def offer(value: int, start: int, offsets) -> None:
            nonlocal top, ties
            if value > top:
                top, ties = value, [start + offset for offset in offsets]
            elif value == top:
                ties += [start + offset for offset in offsets]

        switches, swap1s = HOLDER_SIZE * players, (HOLDER_SIZE + len(SWITCHES)) * players
        (take, window), changed = mine.switch_mine
        offer(weight * take + window, switches + len(SWITCHES) * seat, changed)
        for other, target in enumerate(moves.others):
            theirs = HOLDERS[outer[target]]
            take, changed = theirs.switch_theirs
            offer(weight * take + mine.window, switches + len(SWITCHES) * target, changed)
            value, found = _swap_best(my_code, outer[target], 1, weight)
            if value >= top:
                offer(value, swap1s + SWAP1S * other, [HOLDER_SIZE * i + j for i, j in found])
        for start, target, _ in moves.swap2:
            value, found = _swap_best(my_code, outer[target], 2, weight)
            if value >= top:
                offer(value, start, [len(PAIRS[my_code]) * j + i for i, j in found])
        # a flip of another holder shows me a face I have not seen there, which makes no set: my window stays
        for target in moves.others:
            offer(mine.window, HOLDER_SIZE * target, PLACES)
        window, places = mine.flip
        offer(window, HOLDER_SIZE * seat, places)
        if moves.draw is not None:
            offer(window, moves.draw, places)
        return sorted(set(ties))

    # --- moves ------------------------------------------------------------------------------------------
    def _play(self, seat: int, move: tuple) -> None:
        self.moves = None
        action = move[0]
        if action == "flip":
            self._flip(*move[1:])
        elif action == "switch":
            self._switch(*move[1:])
        elif action == "swap1":
            self._swap(seat, *move[1:])
        elif action == "swap2":
            _, target, mine, theirs = move
            self._swap(seat, target, mine, theirs)
            self._swap(seat, target, mine + 1, theirs + 1)
        elif action == "draw":
            self._draw(seat, move[1])
        elif action == "spend_token":
            assert self.tokens is not None  # spend_token is legal only with tokens
            self.tokens[seat] -= 1
            self.actions_left += 1
            self.token_spent = True
            self._check_end(None)
            return
        else:  # score or swipe: the run goes to the piles, its holder refills
            owner = seat if action == "score" else move[1]
            run = self._taken(owner, action == "swipe")
            if action == "score":
                self.piles[seat] += run
            else:
                self.piles[owner].append(run[0])
                self.piles[seat] += run[1:]
            self.quiet_since = self.turns + 1
            self._action_done()
            self._check_end(self._refill(owner))
            return
        self._action_done()
        self._check_end(None)

    def _flip(self, holder: int, place: int) -> None:
        inner, outer, power = self.inner[holder], self.outer[holder], POWERS[place]
        change = (outer // power % 5 - inner // power % 5) * power
        self.inner[holder], self.outer[holder] = inner + change, outer - change

    def _switch(self, holder: int, first: int, second: int) -> None:
        for codes in (self.inner, self.outer):
            faces = FACES[codes[holder]]
            codes[holder] += (faces[second] - faces[first]) * (POWERS[first] - POWERS[second])

    def _swap(self, seat: int, target: int, mine: int, theirs: int) -> None:
        """My card at `mine` and the target's at `theirs` change places, each turned around."""
        my_inner, my_outer = FACES[self.inner[seat]][mine], FACES[self.outer[seat]][mine]
        their_inner, their_outer = FACES[self.inner[target]][theirs], FACES[self.outer[target]][theirs]
        self.inner[seat] += (their_outer - my_inner) * POWERS[mine]
        self.outer[seat] += (their_inner - my_outer) * POWERS[mine]
        self.inner[target] += (my_outer - their_inner) * POWERS[theirs]
        self.outer[target] += (my_inner - their_outer) * POWERS[theirs]

    def _draw(self, seat: int, place: int) -> None:
        """The deck's top card comes in underside facing me; the card there goes under the deck as if drawn."""
        up, down = self.deck.popleft()
        inner, outer = FACES[self.inner[seat]][place], FACES[self.outer[seat]][place]
        self.inner[seat] += (down - inner) * POWERS[place]
        self.outer[seat] += (up - outer) * POWERS[place]
        self.deck.append((outer, inner))

    def _taken(self, owner: int, outward: bool) -> list[tuple[int, int]]:
        """The owner's run (of inner faces, or of outer ones) out of the holder, the rest closing up to the
        left: its cards as (colour, other), colour the face the run was seen on."""
        size = self.sizes[owner]
        inner, outer = list(FACES[self.inner[owner]][:size]), list(FACES[self.outer[owner]][:size])
        seen, hidden = (outer, inner) if outward else (inner, outer)
        start, count, _ = find_run(seen)  # type: ignore[misc]  # a legal score or swipe has a run
        run = list(zip(seen[start:start + count], hidden[start:start + count]))
        del inner[start:start + count], outer[start:start + count]
        self.inner[owner], self.outer[owner], self.sizes[owner] = _code(inner), _code(outer), size - count
        return run

    def _refill(self, owner: int) -> int | None:
        """The owner draws up to 6; the owner if the deck ran short (the game then ends), else None."""
        while self.sizes[owner] < HOLDER_SIZE and self.deck:
            up, down = self.deck.popleft()
            power = POWERS[self.sizes[owner]]
            self.inner[owner] += down * power
            self.outer[owner] += up * power
            self.sizes[owner] += 1
        return owner if self.sizes[owner] < HOLDER_SIZE else None

    def _action_done(self) -> None:
        if self.actions_left > 1:
            self.actions_left -= 1
        else:
            self.turn, self.actions_left = next_seat(self.turn, len(self.inner)), ACTIONS_PER_TURN
            self.token_spent, self.turns = False, self.turns + 1

    def _check_end(self, short: int | None) -> None:
        if short is not None:
            reason = "deck_exhausted"
        elif self.turns - self.quiet_since >= self.options["stall_rounds"] * len(self.inner):
            reason = "stalled"
        else:
            return
        for owner, size in enumerate(self.sizes):
            if find_run(FACES[self.inner[owner]][:size]):
                self.piles[owner] += self._taken(owner, False)
        self.end = {"reason": reason, "seat": short}


def _pick(ties: list[int], count: int, rng) -> int:
    """flipout._best's choice among the moves of the top value: one rng.random() per legal move, the tie of
    the highest draw wins. One tie needs no draw's value, only as many: getrandbits(64) takes the two 32-bit
    words of the Mersenne Twister that random() takes."""
    if len(ties) == 1:
        rng.getrandbits(64 * count)
        return ties[0]
    draws = [rng.random() for _ in range(count)]
    return max(ties, key=draws.__getitem__)
