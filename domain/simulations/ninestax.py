"""9STAX for a search's playouts: domain/games/ninestax.py's rules once more, on a state of small ints.

A card is its kind, face * 5 + colour (tables give each kind's card dict, face and what it matches); a seat's
stacks are lists of kinds changed in place; the draw pile is kept top last, so that a draw pops it (the dealt
one becomes kinds a few cards at a time, as draws reach them). The pending step is a few attributes. A move
is kept compact, a tuple of the engine's move dict's values in order, ("play", 2) or ("swap", 0, 3, 1, 0),
and becomes the dict only when asked; a state's legal moves are listed once (a Swap's hundreds of pairs are
decoded one by one, when asked). play_out runs on these alone, and chooses a turn's, a drawn card's and a
hit's move by position without listing them. Greedy values moves as rules.greedy does, from tables where it
can, a Swap per pair of owners and a Peek's exchanges from the best card of each side.
tests/unit/test_simulation.py and test_ninestax_simulation.py play this side by side with the engine.

What a move costs in CPython here is mostly calls and comprehensions (each about a thousand machine
instructions in 3.11: a comprehension is a function made and called), so the hot paths make few of them,
looping where a comprehension would read better and slicing moves from tables.
"""
from bisect import bisect_right
from collections.abc import Callable
from functools import cache

from domain.games import ninestax as rules
from domain.protocol import highest, tie_break
from domain.simulation import Simulation

FACES = rules.NUMBERS + tuple(rules.ACTION_COPIES) + rules.WILDS
COLOURS = rules.COLOURS + (None,)
CARDS = tuple(rules.card(colour, face) for face in FACES for colour in COLOURS)  # by kind
KIND = {face: {colour: CARDS.index(rules.card(colour, face)) for colour in COLOURS} for face in FACES}  # [face][colour]
FACE = tuple(kind // len(COLOURS) for kind in range(len(CARDS)))
NO_LEAD = len(CARDS)  # the lead's kind when any card may be played
PLAYABLE = tuple(tuple(rules.playable(card, lead) for card in CARDS) for lead in CARDS + (None,))  # [lead][card]
DISCARD, REVERSE, COLOR_SHIFT, FREE_DISCARD = map(FACES.index, ("discard", "reverse", "color_shift", "free_discard"))
NUMBER_FACES = len(rules.NUMBERS)  # faces 0-8 are the numbers "1"-"9": a number card moves seats to its face
WEIGHTS = rules.GREEDY_WEIGHTS
CARD_BONUS = tuple(rules.card_bonus(face, WEIGHTS) for face in FACES)  # greedy's value of a card, by face
PLAY_VALUE = tuple(tuple(None if FACE[kind] in (DISCARD, FREE_DISCARD) else 1 + (bonus + CARD_BONUS[FACE[kind]])
                         for kind in range(len(CARDS))) for bonus in (0, WEIGHTS.emptying))
# [emptying][kind]: greedy's value of playing the card (rules._move_value, _card_value), None where it depends
# on the stacks (Discard, Free Discard)
CARD_VALUE = tuple(None if value is None else CARD_BONUS[FACE[kind]] for kind, value in enumerate(PLAY_VALUE[False]))
# [kind]: rules._card_value of the card not emptying a stack, None where it depends on the stacks
DEALT_AHEAD = 16  # cards of the dealt draw pile that become kinds at a time (FastSimulation._reach_dealt)
DRAW_VALUE = WEIGHTS.draw  # greedy's value of a draw, read in its busiest loop

KEYS = {action: ("action", *fields) for action, (_, fields) in rules.INFO.actions.items()}  # a move's dict keys
EFFECT_KEYS = {"attack": ("target",), "swap": ("stacks",), "peek": ("target", "stack"), "reveal": ("stack",)}
PLAYS = tuple(("play", i) for i in range(rules.DECK_SIZE))  # ("play", i): a stack holds at most every card
REVEALS = tuple(("reveal", i) for i in range(rules.DECK_SIZE))  # as many, for the same reason
FREE_DISCARDS = tuple(("free_discard", i) for i in range(rules.DECK_SIZE))
PEEKS = tuple(tuple(("peek", target, i) for i in range(rules.DECK_SIZE)) for target in range(rules.INFO.max_players))
ATTACKS = tuple(tuple(tuple(("attack", target) for target in range(players) if target != seat)
                      for seat in range(players)) for players in range(rules.INFO.max_players + 1))  # [players][seat]
OWNER_PAIRS = tuple(tuple((a, b) for a in range(players) for b in range(a + 1, players))
                    for players in range(rules.INFO.max_players + 1))  # [players]: the seats a < b
DRAW, PASS, PLAY_DRAWN, KEEP, IMMUNITY, ACCEPT, END_PEEK = (
    ("draw",), ("pass",), ("play_drawn",), ("keep",), ("immunity",), ("accept",), ("end_peek",))
# the actions of the steps of two moves, in _list_moves' order
PAIRS: dict[str | None, tuple[str, str]] = {"drawn": ("play_drawn", "keep"), "effect": ("immunity", "accept")}
BOTH = (0, 1)  # a pair's two moves, tied


def kinds(cards) -> list[int]:
    found = []
    for card in cards:
        found.append(KIND[card["face"]][card["colour"]])
    return found


def kind(card: dict) -> int:
    return KIND[card["face"]][card["colour"]]


class FastSimulation(Simulation):
    def __init__(self, state: dict):
        self.rules = rules
        self._players, self._max_turns = state["players"], state["max_turns"]
        self._stacks = [list(map(kinds, own)) for own in state["stacks"]]
        self._held = list(state["held"])
        self._dealt_pile, self._dealt_next = state["draw_pile"], 0  # the engine's, top first; from _dealt_next
        self._draw_pile: list[int] = []  # on, its cards are not yet kinds (none once this is empty)
        if self._dealt_pile:
            self._reach_dealt()
        self._discard_pile = kinds(state["discard_pile"])
        self._direction, self._turn, self._turns = state["direction"], state["turn"], state["turns"]
        self._lead = NO_LEAD if state["lead"] is None else kind(state["lead"])
        self._tiles = list(state["immunity"])
        self._reveal = state["reveal"]  # the engine's dict, never changed: only state() reads it
        pending = state["pending"] or {}  # its fields, each read only in the steps that have it
        self._step: str | None = pending.get("kind")  # None: a turn
        self._pseat, self._face = pending.get("seat", 0), pending.get("face", "")
        self._effect = pending.get("effect", "")
        self._target, self._stack = pending.get("target", 0), pending.get("stack", 0)
        self._pair = tuple(map(tuple, pending.get("stacks", ())))  # a Swap's two (seat, position)
        self._waiting, self._immune = list(pending.get("waiting", ())), list(pending.get("immune", ()))
        self._drawn = kind(pending["card"]) if pending.get("card") else 0
        self._reason = pending.get("reason", "")
        self._winners = state["winners"]
        self._legal: tuple | None = None  # (seat, its compact legal moves) until the next move

    # --- the engine's state -----------------------------------------------------------------------
    def state(self) -> dict:
        return {"players": self._players, "max_turns": self._max_turns,
                "stacks": [[[CARDS[c] for c in stack] for stack in own] for own in self._stacks],
                "held": list(self._held), "draw_pile": [CARDS[c] for c in reversed(self._draw_pile)] + self._dealt_pile[self._dealt_next:],
                "discard_pile": [CARDS[c] for c in self._discard_pile], "direction": self._direction,
                "turn": self._turn, "turns": self._turns, "lead": None if self._lead == NO_LEAD else CARDS[self._lead],
                "immunity": list(self._tiles), "reveal": self._reveal, "pending": self._pending(),
                "winners": None if self._winners is None else list(self._winners)}

    def _pending(self) -> dict | None:
        step = self._step
        if step is None:
            return None
        pending = {"kind": step, "seat": self._pseat}
        if step == "choose":
            pending["face"] = self._face
        elif step == "drawn":
            pending.update(card=CARDS[self._drawn], reason=self._reason)
        elif step == "peek":
            pending.update(target=self._target, stack=self._stack)
        elif step == "effect":
            fields = {"target": self._target, "stack": self._stack, "stacks": [list(p) for p in self._pair]}
            pending.update({key: fields[key] for key in EFFECT_KEYS[self._effect]}, effect=self._effect,
                           waiting=list(self._waiting), immune=list(self._immune))
        return pending

    def outcome(self) -> dict | None:
        if self._winners is None:
            return None
        return {"winners": list(self._winners), "scores": {str(s): self._left(s) for s in range(self._players)}}

    def evaluate(self, seat: int) -> float:
        return rules.chance([self._left(s) for s in range(self._players)], seat)

    # --- who acts and what they may play ----------------------------------------------------------
    def to_act(self) -> list[int]:
        if self._winners is not None:
            return []
        step = self._step
        if step is None:
            return [self._turn]
        return list(self._waiting) if step == "effect" else [self._pseat]

    def legal_moves(self, seat: int) -> list[dict]:
        return list(map(_as_dict, self._moves(seat)))

    def move_count(self, seat: int) -> int:
        legal = self._legal  # _moves inlined here and in move: the calls cost as much as what they do
        return len(legal[1] if legal is not None and legal[0] == seat else self._moves(seat))

    def move(self, seat: int, index: int) -> dict:
        legal = self._legal
        return _as_dict((legal[1] if legal is not None and legal[0] == seat else self._moves(seat))[index])

    def greedy(self, seat: int, rng) -> dict:
        moves = self._moves(seat)
        return _as_dict(moves[self._greedy(seat, moves, rng)])

    def _moves(self, seat: int):
        """The seat's legal moves, compact, in rules.legal_moves' order (none if it does not act); kept until
        the next move."""
        legal = self._legal
        if legal is None or legal[0] != seat:
            legal = self._legal = seat, self._list_moves(seat)
        return legal[1]

    def _list_moves(self, seat: int):
        step = self._step
        if step is None:  # a turn, or the end (which leaves no step)
            if seat != self._turn or self._winners is not None:
                return ()
            match = PLAYABLE[self._lead]
            held = self._stacks[seat][self._held[seat]]
            moves: list[tuple] = [PLAYS[i] for i, card in enumerate(held) if match[card]]
            if self._can_draw():
                moves.append(DRAW)
            return moves or (PASS,)
        if step == "effect":
            return (IMMUNITY, ACCEPT) if seat in self._waiting else ()
        if seat != self._pseat:
            return ()
        if step == "drawn":
            return (PLAY_DRAWN, KEEP) if PLAYABLE[self._lead][self._drawn] else (KEEP,)
        stacks = self._stacks
        if step == "shift":
            return list(PLAYS[:len(stacks[seat][self._held[seat]])])
        if step == "peek":
            return _exchanges(len(stacks[self._target][self._stack]), len(stacks[seat][self._held[seat]]))
        face = self._face
        if face == "attack":
            return ATTACKS[self._players][seat]
        if face == "peek":
            peeks: list[tuple] = []
            for target, own in enumerate(stacks):
                if target != seat:
                    peeks += PEEKS[target][:len(own)]
            return peeks
        if face == "reveal":
            return REVEALS[:self._reveal_range(seat)]
        if face == "free_discard":
            return FREE_DISCARDS[:len(stacks[seat])]
        return _Swaps(stacks)

    # --- greedy ------------------------------------------------------------------------------------
    def _greedy(self, seat: int, moves, rng) -> int:
        """The index of rules.greedy's choice among the seat's moves, drawing as it does."""
        if len(moves) == 1:
            return 0
        step = self._step
        if step is None or step == "shift":
            plays = [move[1] for move in moves if move[0] == "play"]
            return self._greedy_play(seat, self._stacks[seat][self._held[seat]], plays, moves[-1] is DRAW, rng)
        if step == "choose" and self._face == "swap":
            return self._greedy_swap(seat, moves, rng)
        if step == "peek":
            return self._greedy_exchange(seat, rng)
        return highest(self._values(seat), rng)

    def _greedy_exchange(self, seat: int, rng) -> int:
        """rules.greedy's choice after a Peek without valuing each exchange: exchange (i, j) is worth the
        peeked card i's value less my card j's, so the best take a most valuable peeked card for a least
        valuable one of mine, unless end_peek (last, worth 0) is worth more."""
        stacks = self._stacks
        taken = self._card_values(seat, stacks[self._target][self._stack])
        given = self._card_values(seat, stacks[seat][self._held[seat]])
        most, least, columns = max(taken), min(given), len(given)
        top, count = most - least, len(taken) * columns + 1
        ties = []
        if top >= 0:
            best_given = []  # a loop, not a comprehension: a function made and called
            for j, value in enumerate(given):
                if value == least:
                    best_given.append(j)
            for i, value in enumerate(taken):
                if value == most:
                    for j in best_given:
                        ties.append(i * columns + j)
        if top <= 0:
            ties.append(count - 1)
        return tie_break(ties, rng)

    def _card_values(self, seat: int, cards: list[int]) -> list[float]:
        """rules._card_value of each card (not emptying)."""
        values = []
        for card in cards:
            value = CARD_VALUE[card]
            values.append(self._card_value(seat, card, False) if value is None else value)
        return values

    def _greedy_swap(self, seat: int, swaps: "_Swaps", rng) -> int:
        """rules.greedy's Swap without valuing each of the hundreds of pairs: a pair's value (rules._swap_gain)
        is the difference of its two stacks' sizes times a weight its two owners set, so the best pairs of
        two owners take the largest stacks of one and the smallest of the other."""
        sizes, first, table = swaps.sizes, swaps.first, swaps.table
        groups = self._best_swap_groups(seat, sizes)
        best = _best_places(sizes, first, table, groups[0])
        if len(groups) > 1:
            for group in groups[1:]:
                best += _best_places(sizes, first, table, group)
            best.sort()
        return tie_break(best, rng)

    def _best_swap_groups(self, seat: int, sizes: list[list[int]]) -> list[tuple]:
        """The pairs of owners a <= b whose best pairs are the best of all (rules._swap_gain), each as (a, b,
        the size of a's stacks in those pairs, b's): a's own pairs are all worth 0 (sizes None)."""
        best: list[tuple] = []
        for a, own in enumerate(sizes):
            if len(own) > 1:
                best.append((a, a, None, None))
        top = 0 if best else None
        left = list(map(sum, sizes)) if self._players > 2 else ()  # read only by pairs of two others
        for a, b in OWNER_PAIRS[self._players]:
            if seat == a or seat == b:  # my largest stack for the other's smallest, halved by its tile
                large, small = (a, b) if seat == a else (b, a)
                scale = WEIGHTS.immune_swap if self._tiles[small] else 1
            else:  # the largest stack onto the one of them with the fewest cards (a on a tie)
                large, small = (b, a) if left[a] <= left[b] else (a, b)
                scale = WEIGHTS.rival_swap
            largest, smallest = max(sizes[large]), min(sizes[small])  # each pair's own: max costs a call
            value = scale * (largest - smallest)
            if top is None or value > top:
                top, best = value, []
            if value == top:
                best.append((a, b, largest, smallest) if large == a else (a, b, smallest, largest))
        return best

    def _greedy_play(self, seat: int, stack: list[int], plays, can_draw: bool, rng) -> int:
        """_greedy in a turn or after a Color Shift: the index among the plays of these positions of the held
        stack, then the draw (the commonest choice of a playout: protocol.highest's loop, on values from tables)."""
        emptying = len(stack) == 1
        table = PLAY_VALUE[emptying]  # None (a Discard's, a Free Discard's) where it depends on the stacks
        best, chosen, ties = -1.0, 0, None  # below any move's value; the ties listed only once there are two
        for index, position in enumerate(plays):
            card = stack[position]
            value = table[card] or 1 + self._card_value(seat, card, emptying)
            if value > best:
                best, chosen, ties = value, index, None
            elif value == best:
                ties = (ties or [chosen]) + [index]
        if can_draw:
            if DRAW_VALUE > best:
                return len(plays)
            if DRAW_VALUE == best:
                ties = (ties or [chosen]) + [len(plays)]
        return chosen if ties is None else tie_break(ties, rng)

    def _values(self, seat: int) -> list:
        """rules.greedy's value of each of the seat's legal moves, in their order (but a turn's, a Color
        Shift's, a Swap's or a Peek's exchanges), from the state alone."""
        step, stacks = self._step, self._stacks
        if step == "drawn" or step == "effect":
            return [self._pair_value(seat), 0]  # play_drawn and keep, or immunity and accept
        face = self._face
        if face == "free_discard":
            return list(map(len, stacks[seat]))
        values: list = []
        if face == "reveal":  # a position's value: the opponents that have a stack there
            values = [0] * self._reveal_range(seat)
            for other, own in enumerate(stacks):
                if other != seat:
                    for position in range(len(own)):
                        values[position] += 1
            return values
        for target, own in enumerate(stacks):
            if target != seat:
                left = sum(map(len, own))
                if face == "attack":
                    values.append(-left - WEIGHTS.immune_target * self._tiles[target])
                else:
                    for stack in own:
                        values.append(-left + WEIGHTS.peek_stack * len(stack))
        return values

    def _pair_value(self, seat: int) -> float:
        """rules.greedy's value of the first move of a step of two (a matching drawn card's play_drawn, a hit's
        immunity); the second (keep, accept) is worth 0."""
        if self._step == "drawn":
            return PLAY_VALUE[False][self._drawn] or 1 + self._card_value(seat, self._drawn, False)
        return self._hit_cost(seat) - WEIGHTS.keep_immunity

    def _card_value(self, seat: int, card: int, emptying: bool) -> float:
        """rules._card_value."""
        face, own = FACE[card], self._stacks[seat]
        bonus = WEIGHTS.emptying if emptying else 0
        if face == FREE_DISCARD:
            return bonus + max(map(len, own)) - WEIGHTS.free_discard
        if face == DISCARD:
            held = len(own[self._held[seat]]) - 1
            return bonus + (held if held else len(own[0]) if len(own) > 1 else 0)
        return bonus + CARD_BONUS[face]

    def _hit_cost(self, seat: int) -> float:
        """rules._hit_cost."""
        effect = self._effect
        if effect == "attack":
            return 1 + 3 * (self._left(seat) <= 3)
        if effect == "swap":
            (a, i), (b, j) = self._pair
            if a == b == seat or seat not in (a, b):
                return 0
            mine, other = ((a, i), (b, j)) if a == seat else ((b, j), (a, i))
            stacks = self._stacks
            return (len(stacks[other[0]][other[1]]) - len(stacks[mine[0]][mine[1]])
                    + (2 if mine == (seat, self._held[seat]) else 0))
        return 0

    # --- playing ------------------------------------------------------------------------------------
    def play(self, seat: int, move: dict, rng) -> None:
        _APPLY[move["action"]](self, seat, rng, **move)
        self._legal = None

    def play_out(self, cap: int, greedy_share: float, seats: set, rng) -> int:
        """Simulation.play_out, drawing from rng as it does. A turn's move or a move after a Color Shift (the
        commonest steps: a play of the held stack, else a draw, else a pass, _list_moves' order) is chosen by
        position here, in the loop: a method's call costs as much as a tenth of the move. The other steps'
        are chosen and played by their own method (_PLAYOUT_STEP), a drawn card's and a hit's without listing
        the moves."""
        self._legal = None
        for played in range(cap):
            if self._winners is not None:
                return played
            step = self._step
            if step is not None and step != "shift":
                actor = self._waiting[0] if step == "effect" else self._pseat
                seats.add(actor)
                if step == "drawn" and not PLAYABLE[self._lead][self._drawn]:  # keep, the only move
                    self._keep(actor, rng, "keep")
                else:
                    _PLAYOUT_STEP[step](self, actor, greedy_share, rng)
                continue
            seat = self._turn if step is None else self._pseat
            seats.add(seat)
            stack = self._stacks[seat][self._held[seat]]
            if step is None:
                match, plays = PLAYABLE[self._lead], []
                for i, card in enumerate(stack):
                    if match[card]:
                        plays.append(i)
                can_draw = True if self._draw_pile else len(self._discard_pile) > 1  # _can_draw, without bool's call
            else:
                plays, can_draw = list(range(len(stack))), False
            playable = len(plays)
            if playable + can_draw < 2:
                index = 0
            elif greedy_share and (greedy_share >= 1.0 or rng.random() < greedy_share):
                index = self._greedy_play(seat, stack, plays, can_draw, rng)
            else:
                index = rng.below(playable + can_draw)
            if index < playable:
                self._play(seat, rng, "play", plays[index])
            elif can_draw:
                self._draw(seat, rng, "draw")
            else:
                self._end_turn(seat)
        return cap

    def _play_pair(self, seat: int, greedy_share: float, rng) -> None:
        """play_out's move in a step of two moves (_list_moves' pair, without listing it): a matching drawn card's
        (play it or keep it) or a hit's (use the Immunity tile, or accept it)."""
        step = self._step
        if greedy_share and (greedy_share >= 1.0 or rng.random() < greedy_share):  # protocol.highest of (value, 0)
            value = self._pair_value(seat)
            second = 1 if value < 0 else 0 if value > 0 else tie_break(BOTH, rng)
        else:
            second = rng.below(2)
        action = PAIRS[step][second]
        _APPLY[action](self, seat, rng, action)

    def _play_move(self, seat: int, greedy_share: float, rng) -> None:
        """play_out's move in the rarer steps, through their compact moves."""
        moves = self._list_moves(seat)
        count = len(moves)
        if count == 1:
            move = moves[0]
        elif greedy_share and (greedy_share >= 1.0 or rng.random() < greedy_share):
            move = moves[self._greedy(seat, moves, rng)]
        else:
            move = moves[rng.below(count)]
        _APPLY[move[0]](self, seat, rng, *move)

    # each move's rules (decide's, and the evolve of the events it decides), called with the move's values
    def _pass(self, seat, rng, action):
        self._end_turn(seat)

    def _keep(self, seat, rng, action):
        own = self._stacks[seat]
        if self._reason == "attack":  # a new highest stack
            own.append([self._drawn])
        else:
            own[self._held[seat]].append(self._drawn)
        self._step = None
        self._end_turn(seat)

    def _attack(self, seat, rng, action, target):
        self._target = target
        self._open_window(seat, "attack", (target,), rng)

    def _swap(self, seat, rng, action, first_seat, first_stack, second_seat, second_stack):
        self._pair = (first_seat, first_stack), (second_seat, second_stack)
        hit = [] if first_seat == seat else [first_seat]  # the owners but the swapper, in order (first <= second)
        if second_seat != seat and second_seat != first_seat:
            hit.append(second_seat)
        self._open_window(seat, "swap", hit, rng)

    def _peek(self, seat, rng, action, target, stack):
        self._target, self._stack = target, stack
        self._open_window(seat, "peek", (target,), rng)

    def _reveal_stack(self, seat, rng, action, stack):
        self._stack = stack
        hit = []
        for other, own in enumerate(self._stacks):
            if other != seat and len(own) > stack:
                hit.append(other)
        self._open_window(seat, "reveal", hit, rng)

    def _free_discard(self, seat, rng, action, stack):
        self._step = None
        self._discard_stack(seat, stack)

    def _use_immunity(self, seat, rng, action):
        self._tiles[seat] = False
        if self._effect == "reveal":  # the Reveal goes on for the others
            self._waiting.remove(seat)
            self._immune.append(seat)
            self._settle(rng)
        elif self._effect == "attack":  # the target plays next
            self._step = None
            self._end_turn(seat - self._direction)  # the seat before the target: the turn goes to the target
        else:  # a Swap or Peek cancelled for one is off
            self._step = None
            self._end_turn(self._pseat)

    def _accept(self, seat, rng, action):
        self._waiting.remove(seat)
        self._settle(rng)

    def _exchange(self, seat, rng, action, card, own_card):
        peeked, held = self._stacks[self._target][self._stack], self._stacks[seat][self._held[seat]]
        peeked[card], held[own_card] = held[own_card], peeked[card]
        self._step = None
        self._end_turn(seat)

    def _end_peek(self, seat, rng, action):
        self._step = None
        self._end_turn(seat)

    def _play(self, seat, rng, action, card=None):
        """A card of the held stack, or (play_drawn, no card) the card just drawn: rules._card_played."""
        own = self._stacks[seat]
        if card is None:
            card = self._drawn
        else:
            stack = own[self._held[seat]]
            card = stack.pop(card)
            if not stack:  # the higher stacks move down, and the owner restarts on stack #1
                del own[self._held[seat]]
                self._held[seat] = 0
        self._discard_pile.append(card)
        self._step, self._lead = None, card
        if not own:
            self._winners = [seat]
            return
        face = FACE[card]
        if face < NUMBER_FACES:
            held = self._held
            for s, stacks in enumerate(self._stacks):
                if len(stacks) > face:
                    held[s] = face
            self._end_turn(seat)
        elif face == REVERSE:
            self._direction = -self._direction
            self._end_turn(seat)
        elif face == DISCARD:
            self._discard_stack(seat, self._held[seat])
        elif face == COLOR_SHIFT:
            self._lead, self._step, self._pseat = NO_LEAD, "shift", seat
        else:
            if face == FREE_DISCARD:
                self._lead = NO_LEAD
            self._step, self._pseat, self._face = "choose", seat, FACES[face]

    def _discard_stack(self, seat: int, position: int) -> None:
        """rules._discard_stack: the stack goes under the discard pile's top card."""
        own, held = self._stacks[seat], self._held
        gone = own.pop(position)
        if held[seat] == position:
            held[seat] = 0
        elif held[seat] > position:
            held[seat] -= 1
        self._discard_pile[-1:-1] = gone
        if own:
            self._end_turn(seat)
        else:
            self._winners = [seat]

    def _draw(self, seat: int, rng, action: str) -> None:
        """The draw pile's top card, drawn by a `draw` or for an `attack` (the draw's reason; rules._draw_events:
        an empty draw pile is first the discard pile but its top, shuffled)."""
        pile = self._draw_pile
        if not pile:
            pile = rng.shuffled(self._discard_pile[:-1])
            pile.reverse()
            self._draw_pile, self._discard_pile = pile, self._discard_pile[-1:]
        self._step, self._pseat, self._drawn, self._reason = "drawn", seat, pile.pop(), action
        if not pile and self._dealt_next < len(self._dealt_pile):
            self._reach_dealt()

    def _reach_dealt(self) -> None:
        """The dealt draw pile's next cards become kinds, the draw pile (a playout draws a few dozen of the
        hundred and more dealt, so they become kinds as they are reached, not all when the simulation starts)."""
        start = self._dealt_next
        self._dealt_next = end = start + DEALT_AHEAD
        self._draw_pile = kinds(reversed(self._dealt_pile[start:end]))

    def _open_window(self, seat: int, effect: str, hit, rng) -> None:
        """rules._open_window: the hit seats that have their tile answer; with none, the effect is at once."""
        self._step, self._pseat, self._effect, self._immune = "effect", seat, effect, []
        self._waiting = waiting = []
        for target in hit:
            if self._tiles[target]:
                waiting.append(target)
        self._settle(rng)

    def _settle(self, rng) -> None:
        """rules._settle and _effect_events: the effect of a window every seat hit has answered."""
        if self._waiting:
            return
        effect = self._effect
        if effect == "attack":
            if self._can_draw():
                self._draw(self._target, rng, "attack")
            else:
                self._step = None
                self._end_turn(self._target)
        elif effect == "peek":
            self._step = "peek"
        else:
            if effect == "swap":
                (a, i), (b, j) = self._pair
                stacks = self._stacks
                stacks[a][i], stacks[b][j] = stacks[b][j], stacks[a][i]
            else:
                self._reveal = {"stack": self._stack, "revealer": self._pseat, "immune": list(self._immune)}
            self._step = None
            self._end_turn(self._pseat)

    def _end_turn(self, seat: int) -> None:
        """rules._end_turn: the turn goes to the seat after `seat`; after max_turns turns the fewest cards win."""
        self._turn = (seat + self._direction) % self._players
        self._turns = turns = self._turns + 1
        if turns >= self._max_turns:
            self._step = None
            left = [self._left(s) for s in range(self._players)]
            self._winners = [s for s, n in enumerate(left) if n == min(left)]

    def _can_draw(self) -> bool:
        return bool(self._draw_pile) or len(self._discard_pile) > 1

    def _left(self, seat: int) -> int:
        return sum(map(len, self._stacks[seat]))

    def _reveal_range(self, seat: int) -> int:
        reach = 0
        for other, own in enumerate(self._stacks):
            if other != seat and len(own) > reach:
                reach = len(own)
        return reach


_APPLY: dict[str, Callable[..., None]] = {
    "play": FastSimulation._play, "draw": FastSimulation._draw, "pass": FastSimulation._pass,
    "play_drawn": FastSimulation._play, "keep": FastSimulation._keep, "attack": FastSimulation._attack,
    "swap": FastSimulation._swap, "peek": FastSimulation._peek, "reveal": FastSimulation._reveal_stack,
    "free_discard": FastSimulation._free_discard, "immunity": FastSimulation._use_immunity,
    "accept": FastSimulation._accept, "exchange": FastSimulation._exchange, "end_peek": FastSimulation._end_peek,
}


_PLAYOUT_STEP: dict[str, Callable[..., None]] = {
    "drawn": FastSimulation._play_pair,
    "choose": FastSimulation._play_move, "effect": FastSimulation._play_pair, "peek": FastSimulation._play_move}


class _Swaps:
    """A Swap's legal moves: every pair of different stacks on the table, in table order (seat, then
    position), each decoded when asked (hundreds of them at four seats, and a playout takes one). Valid
    until the next move, as the listed moves are. Greedy values them from the table it keeps."""

    __slots__ = ("sizes", "first", "table", "_count")

    def __init__(self, stacks: list[list[list[int]]]):
        self.sizes: list[list[int]] = []  # per owner, its stacks' sizes
        self.first: list[int] = []  # per owner, the table position of its first stack
        table = 0
        for own in stacks:
            self.sizes.append(list(map(len, own)))
            self.first.append(table)
            table += len(own)
        self.table, self._count = table, table * (table - 1) // 2

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, place: int) -> tuple:
        if not 0 <= place < self._count:
            raise IndexError(place)
        first = bisect_right(_row_starts(self.table), place) - 1  # the pair's first table position
        return ("swap", *self._owner(first), *self._owner(place - _rows(self.table)[first]))

    def _owner(self, position: int) -> tuple[int, int]:
        """The seat and its stack at this table position."""
        owner = bisect_right(self.first, position) - 1  # an owner without stacks shares the next one's first
        return owner, position - self.first[owner]


def _as_dict(move: tuple) -> dict:
    if len(move) == 1:
        return {"action": move[0]}
    if len(move) == 2:
        return {"action": move[0], KEYS[move[0]][1]: move[1]}
    return dict(zip(KEYS[move[0]], move))  # slower: the rarer moves of more fields


def _best_places(sizes: list[list[int]], first: list[int], table: int, group: tuple) -> list[int]:
    """The places in rules.legal_moves' Swaps of the pairs of a's stack and b's of the sizes the group names
    (a, b, size_a, size_b; sizes None: every pair of a's stacks), in increasing order: the Swap of table
    positions p < q is at place _rows(table)[p] + q."""
    a, b, size_a, size_b = group
    places: list[int] = []
    rows = _rows(table)
    if size_a is None:
        end = first[a] + len(sizes[a])
        for p in range(first[a], end):
            row = rows[p]
            places += range(row + p + 1, row + end)
        return places
    columns = _positions(sizes[b], size_b, first[b])
    for p in _positions(sizes[a], size_a, first[a]):
        row = rows[p]
        for q in columns:
            places.append(row + q)
    return places


def _positions(sizes: list[int], size: int, start: int) -> list[int]:
    """The table positions of an owner's stacks of this size (its first at `start`): a loop, as compress over
    map(size.__eq__) costs twice as much in calls of the method-wrapper."""
    positions = []
    for position, stack_size in enumerate(sizes, start):
        if stack_size == size:
            positions.append(position)
    return positions


@cache
def _exchanges(peeked: int, held: int) -> tuple[tuple, ...]:
    """A Peek's moves: an exchange of each peeked card with each held one, then end_peek."""
    return tuple(("exchange", i, j) for i in range(peeked) for j in range(held)) + (END_PEEK,)


@cache
def _row_starts(table: int) -> tuple[int, ...]:
    """The place of each table position's first Swap (with the next position)."""
    return tuple(row + p + 1 for p, row in enumerate(_rows(table)[:-1]))


@cache
def _rows(table: int) -> tuple[int, ...]:
    """For each table position p, the place of the Swap of p and a later position q, less q."""
    return tuple(p * (table - 1) - p * (p - 1) // 2 - p - 1 for p in range(table))

