"""The `ismcts` bot: single-observer Information-Set Monte Carlo Tree Search, one implementation for all games.

The bot only gets its seat's view. Each iteration
    1. samples a full state consistent with that view: game.determinize(view, seat, rng);
    2. descends the tree from the root, at each node choosing among the moves legal in *this* sample
       (UCB1 where a child's exploration term counts the iterations it was available, not the parent's);
    3. adds one node (an untried move, chosen at random);
    4. plays the sample out with random legal moves, at most `playout_cap` moves;
    5. credits every node on the path with the result for the seat that made its move: its win share,
       1/len(winners) if that seat is a winner, else 0. A playout cut at the cap scores a draw (1/n for
       each of the n seats the search has met) unless the game module offers the optional
       `evaluate(state)`, which then gives each seat a value in [0, 1] (see docs/bots.md).
The tree is keyed by moves only (one tree for all samples), so hidden cards never key a node: a node is
what the observer could tell apart. Where several seats are to act at once (a reaction window), the first
of `to_act(state)` is the one that acts at that node.

The answer is the root move visited most, where the game's greedy move is credited `greedy_prior` percent
of the iterations as extra visits (a prior: where the search cannot tell the moves apart, the bot plays
like greedy; it overrides greedy only by a clear margin). Ties go to the greedy move, then the higher mean.
The search stops after `iterations` iterations, or before an iteration that would likely end after
`budget_ms` milliseconds (judged by the mean iteration so far), whichever comes first. With an iteration
budget only, the answer is a function of (view, seat, moves, rng state, options).
"""
import json
import math
import random
import time
from typing import Any

from domain.errors import IllegalMove
from domain.protocol import Option

DEFAULT_ITERATIONS = 2000
DEFAULT_BUDGET_MS = 800
DEFAULT_PLAYOUT_CAP = 1000
DEFAULT_EXPLORATION = 70  # hundredths: UCB1's c = 0.7, for rewards in [0, 1]
DEFAULT_GREEDY_ROLLOUTS = 0  # percent of playout moves chosen by the game's greedy
DEFAULT_GREEDY_PRIOR = 25  # percent of the iterations credited to the greedy move when choosing

OPTIONS = (
    Option("iterations", "integer", DEFAULT_ITERATIONS,
           "search iterations per turn (one determinization, descent, playout and update each)",
           bounds=(1, 1_000_000)),
    Option("budget_ms", "integer", DEFAULT_BUDGET_MS,
           "wall-clock budget per turn in milliseconds; the search stops at whichever budget ends first",
           bounds=(1, 60_000)),
    Option("playout_cap", "integer", DEFAULT_PLAYOUT_CAP,
           "most moves in one random playout; a playout cut there counts as a draw (or the game's evaluate)",
           bounds=(0, 100_000)),
    Option("exploration", "integer", DEFAULT_EXPLORATION,
           "UCB1 exploration constant in hundredths (70 = 0.7)", bounds=(0, 1000)),
    Option("greedy_rollouts", "integer", DEFAULT_GREEDY_ROLLOUTS,
           "percent of playout moves chosen by the game's greedy heuristic instead of at random",
           bounds=(0, 100)),
    Option("greedy_prior", "integer", DEFAULT_GREEDY_PRIOR,
           "when choosing, the game's greedy move counts this percent of the iterations as extra visits: "
           "the search overrides the heuristic only by a clear margin", bounds=(0, 100)),
)


class FastRng(random.Random):
    """The domain.rng.Rng interface (below, shuffled, choice) on a Mersenne Twister: for simulations only,
    where the HMAC-SHA256 generator would cost more than the games. The games' determinize and greedy use
    random.Random's own methods (shuffle, random), which this keeps."""

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        return self._randbelow(n)

    def shuffled(self, items) -> list:
        result = list(items)
        self.shuffle(result)
        return result


def move_key(move: dict) -> Any:
    """A canonical, hashable key for a move (moves are flat JSON objects; anything nested goes through JSON)."""
    try:
        key = tuple(sorted(move.items()))
        hash(key)
        return key
    except TypeError:
        return json.dumps(move, sort_keys=True)


class Node:
    __slots__ = ("move", "seat", "children", "visits", "reward", "available")

    def __init__(self, move: dict | None, seat: int | None):
        self.move = move          # the move that leads here (None at the root)
        self.seat = seat          # the seat that made it: rewards here are from its point of view
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0        # iterations in which this move was legal at its parent

    def ucb(self, c: float) -> float:
        return self.reward / self.visits + c * math.sqrt(math.log(self.available) / self.visits)


def ismcts_policy(game, view: dict, seat: int, moves: list[dict], rng, iterations: int = DEFAULT_ITERATIONS,
                  budget_ms: int = DEFAULT_BUDGET_MS, playout_cap: int = DEFAULT_PLAYOUT_CAP,
                  exploration: int = DEFAULT_EXPLORATION, greedy_rollouts: int = DEFAULT_GREEDY_ROLLOUTS,
                  greedy_prior: int = DEFAULT_GREEDY_PRIOR) -> dict:
    move, _ = search(game, view, seat, moves, rng, iterations, budget_ms, playout_cap, exploration, greedy_rollouts,
                     greedy_prior)
    return move


def search(game, view: dict, seat: int, moves: list[dict], rng, iterations: int = DEFAULT_ITERATIONS,
           budget_ms: int = DEFAULT_BUDGET_MS, playout_cap: int = DEFAULT_PLAYOUT_CAP,
           exploration: int = DEFAULT_EXPLORATION, greedy_rollouts: int = DEFAULT_GREEDY_ROLLOUTS,
           greedy_prior: int = DEFAULT_GREEDY_PRIOR) -> tuple[dict, dict]:
    """The chosen move and what the search did: {iterations, failed, elapsed_ms, visits: [per move]}."""
    if len(moves) == 1:
        return moves[0], {"iterations": 0, "failed": 0, "elapsed_ms": 0.0, "visits": [0]}
    started = time.perf_counter()
    deadline = started + budget_ms / 1000
    sim = FastRng(rng.getrandbits(64) if hasattr(rng, "getrandbits") else rng.below(2**63))
    c = exploration / 100
    root = Node(None, None)
    favourite = move_key(game.greedy(view, seat, moves, sim))  # wins ties: a search too short to tell apart
    root_moves = sorted(((move_key(m), m) for m in moves), key=lambda km: km[0] != favourite)  # expanded first
    seats = {seat}  # every seat met so far: a draw at the playout cap is worth 1/len(seats)
    done = failed = 0
    while done < iterations:
        now = time.perf_counter()
        if done and now + (now - started) / done > deadline:  # the next iteration would likely overrun
            break
        done += 1
        try:
            path, state = _descend(game, game.determinize(view, seat, sim), root, seat, root_moves, favourite,
                                   seats, sim, c)
            rewards = _playout(game, state, playout_cap, greedy_rollouts / 100, seats, sim)
        except IllegalMove:  # a determinization the game's rules reject: a bug in determinize; skip it
            failed += 1
            continue
        for node in path:
            node.visits += 1
            node.reward += rewards.get(node.seat, 0.0)
    stats = _stats(done, failed, started, root, moves)
    if not root.children:
        return rng.choice(moves), stats
    order = {key: i for i, (key, _) in enumerate(root_moves)}
    bonus = greedy_prior / 100 * (done - failed)  # a prior: greedy's move keeps the turn unless clearly beaten
    best = max(root.children.items(),
               key=lambda item: (item[1].visits + (bonus if item[0] == favourite else 0), item[0] == favourite,
                                 item[1].reward / max(item[1].visits, 1), -order[item[0]]))
    return best[1].move, stats


def _stats(done: int, failed: int, started: float, root: Node, moves: list) -> dict:
    visits = [root.children[key].visits if key in root.children else 0 for key in map(move_key, moves)]
    return {"iterations": done, "failed": failed, "elapsed_ms": (time.perf_counter() - started) * 1000,
            "visits": visits}


def _descend(game, state: dict, root: Node, seat: int, root_moves: list, favourite: Any, seats: set, sim: FastRng,
             c: float):
    """Selection and expansion in one sample: the path of nodes below the root and the state reached."""
    path = []
    node = root
    while True:
        if node is root:
            actor, legal = seat, root_moves  # the bot's own legal moves are known, whatever the sample
        else:
            actors = game.to_act(state)
            if not actors:
                return path, state
            actor = actors[0]
            seats.add(actor)
            legal = [(move_key(m), m) for m in game.legal_moves(state, actor)]
        children = node.children
        untried = []
        for key, move in legal:
            child = children.get(key)
            if child is None:
                untried.append((key, move))
            else:
                child.available += 1
        if untried:
            first = node is root and untried[0][0] == favourite  # the greedy move is expanded first
            key, move = untried[0] if first or len(untried) == 1 else untried[sim.below(len(untried))]
            child = children[key] = Node(move, actor)
            child.available = 1
            path.append(child)
            return path, _apply(game, state, actor, move, sim)
        best, best_value = None, -1.0
        for key, _ in legal:
            child = children[key]
            value = child.ucb(c)
            if value > best_value:
                best, best_value = child, value
        path.append(best)
        node = best
        state = _apply(game, state, actor, best.move, sim)


def _apply(game, state: dict, seat: int, move: dict, sim: FastRng) -> dict:
    for event in game.decide(state, seat, move, sim):
        state = game.evolve(state, event)
    return state


def _playout(game, state: dict, cap: int, greedy_share: float, seats: set, sim: FastRng) -> dict:
    """Random legal moves (or, greedy_share of the time, the game's greedy move for the mover's view of the
    sample) to the end or the cap; each seat's reward in [0, 1]."""
    for _ in range(cap):
        actors = game.to_act(state)
        if not actors:
            break
        actor = actors[0]
        seats.add(actor)
        legal = game.legal_moves(state, actor)
        if greedy_share and len(legal) > 1 and sim.random() < greedy_share:
            move = game.greedy(game.view(state, actor), actor, legal, sim)
        else:
            move = legal[sim.below(len(legal))] if len(legal) > 1 else legal[0]
        state = _apply(game, state, actor, move, sim)
    result = game.outcome(state)
    if result is not None:
        winners = result["winners"]
        return {s: 1 / len(winners) for s in winners} if winners else {}
    evaluate = getattr(game, "evaluate", None)
    if evaluate is not None:
        return evaluate(state)
    return {s: 1 / len(seats) for s in seats}

