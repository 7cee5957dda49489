"""The `ismcts` bot: single-observer Information-Set Monte Carlo Tree Search, one implementation for all games.

The bot only gets its seat's view. The search runs in rounds; each round
    1. samples a full state consistent with that view: game.determinize(view, seat, rng);
    2. tries every searched root move in that same sample, with the same simulation seed (common random
       numbers: the moves are compared on the same deal, so the luck of the deal cancels out of the
       difference). For each root move, one iteration:
    3. descends the tree below it, at most `depth` moves (default 0: no tree, the playout starts at once),
       choosing among the moves legal in the sample by UCB1 (a child's exploration term counts the
       iterations it was available, not the parent's). The tree's nodes are the bot seat's information
       sets: after each move the search continues in the node for what the bot then sees (its view of the
       sample), so a card turned up splits the tree, and a hidden one never;
    4. adds one node (the mover's greedy move if untried, else an untried move at random);
    5. plays the sample out with the game's greedy move for each mover's view of the sample (or, for the
       rest of `greedy_rollouts` percent, random legal moves), at most `playout_cap` moves;
    6. credits every node on the path with the result for the seat that made its move: its win share,
       1/len(winners) if that seat is a winner, else 0. A playout cut at the cap scores a draw (1/n for
       each of the n seats the search has met) unless the game module offers the optional
       `evaluate(state)`, which then gives each seat a value in [0, 1].
The searched root moves are all the bot's legal moves, or greedy's move and a random choice of the others
when there are more than `root_moves`. The answer is greedy's move unless, over at least 4 rounds, another won
more in the same samples by more than `margin` hundredths of a standard error of the paired difference;
then the best mean.
With greedy playouts the search is a policy improvement over the greedy bot: it plays a move other than
greedy's only where greedy's own continuation says that move wins more.
The search stops when another round would exceed `iterations` iterations, or before a round that would
likely end after `budget_ms` milliseconds (judged by the mean round so far), whichever comes first; and
during the first round, as soon as its iterations show that 4 rounds cannot fit in `budget_ms` (then the
answer would be greedy's move anyway, so the bot gives it at once: FlipOut's greedy playouts are that slow). With an
iteration budget only, the answer is a function of (view, seat, moves, rng state, options).
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
DEFAULT_GREEDY_ROLLOUTS = 100  # percent of playout moves chosen by the game's greedy
DEFAULT_ROOT_MOVES = 12  # most root moves searched (greedy's and a random choice of the others)
DEFAULT_MARGIN = 100  # hundredths of a standard error: how clearly a move must beat greedy's to be played
DEFAULT_DEPTH = 0  # moves of tree below the bot's own: 0 at the default budget (docs/bots.md says why)
# The caps a server can afford: one bot turn holds one worker for up to MAX_BUDGET_MS (and no longer
# than the job timeout, 60 s); beyond them a seat's options are refused (422), not silently cut.
MAX_BUDGET_MS = 10_000
MAX_ITERATIONS = 100_000
MIN_ROUNDS_TO_OVERRIDE = 4  # a standard error from fewer samples says too little (2 equal wins give it 0)

OPTIONS = (
    Option("iterations", "integer", DEFAULT_ITERATIONS,
           "search iterations per turn (a descent, playout and update each; a round tries every searched "
           "root move in one sample)",
           bounds=(1, MAX_ITERATIONS)),
    Option("budget_ms", "integer", DEFAULT_BUDGET_MS,
           "wall-clock budget per turn in milliseconds; the search stops at whichever budget ends first",
           bounds=(1, MAX_BUDGET_MS)),
    Option("playout_cap", "integer", DEFAULT_PLAYOUT_CAP,
           "most moves in one playout; a playout cut there counts as a draw (or the game's evaluate)",
           bounds=(0, 100_000)),
    Option("exploration", "integer", DEFAULT_EXPLORATION,
           "UCB1 exploration constant in hundredths (70 = 0.7), for the tree below the root (depth > 0)",
           bounds=(0, 1000)),
    Option("greedy_rollouts", "integer", DEFAULT_GREEDY_ROLLOUTS,
           "percent of playout moves chosen by the game's greedy heuristic instead of at random",
           bounds=(0, 100)),
    Option("root_moves", "integer", DEFAULT_ROOT_MOVES,
           "most of the bot's own moves searched: greedy's move and a random choice of the others",
           bounds=(1, 1000)),
    Option("margin", "integer", DEFAULT_MARGIN,
           "how clearly a move must beat greedy's move in the same samples to be played instead, in hundredths "
           "of a standard error of the paired difference (0: the best mean wins)", bounds=(0, 1000)),
    Option("depth", "integer", DEFAULT_DEPTH,
           "most moves of search tree below the bot's own move (0: each iteration plays out right after it)",
           bounds=(0, 1000)),
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
    """A move out of one of the observer's information sets, with its statistics; `after` holds the
    information sets it leads to (each a dict of moves to Nodes), keyed by what the observer sees next."""
    __slots__ = ("move", "seat", "visits", "reward", "available", "after")

    def __init__(self, move: dict, seat: int):
        self.move = move          # the move
        self.seat = seat          # the seat that makes it: rewards here are from its point of view
        self.visits = 0
        self.reward = 0.0
        self.available = 1        # iterations in which this move was legal where it was tried
        self.after: dict[str, dict[Any, Node]] = {}

    def ucb(self, c: float) -> float:
        return self.reward / self.visits + c * math.sqrt(math.log(self.available) / self.visits)


def ismcts_policy(game, view: dict, seat: int, moves: list[dict], rng, iterations: int = DEFAULT_ITERATIONS,
                  budget_ms: int = DEFAULT_BUDGET_MS, playout_cap: int = DEFAULT_PLAYOUT_CAP,
                  exploration: int = DEFAULT_EXPLORATION, greedy_rollouts: int = DEFAULT_GREEDY_ROLLOUTS,
                  root_moves: int = DEFAULT_ROOT_MOVES, margin: int = DEFAULT_MARGIN,
                  depth: int = DEFAULT_DEPTH) -> dict:
    move, _ = search(game, view, seat, moves, rng, iterations, budget_ms, playout_cap, exploration, greedy_rollouts,
                     root_moves, margin, depth)
    return move


def search(game, view: dict, seat: int, moves: list[dict], rng, iterations: int = DEFAULT_ITERATIONS,
           budget_ms: int = DEFAULT_BUDGET_MS, playout_cap: int = DEFAULT_PLAYOUT_CAP,
           exploration: int = DEFAULT_EXPLORATION, greedy_rollouts: int = DEFAULT_GREEDY_ROLLOUTS,
           root_moves: int = DEFAULT_ROOT_MOVES, margin: int = DEFAULT_MARGIN,
           depth: int = DEFAULT_DEPTH) -> tuple[dict, dict]:
    """The chosen move and what the search did: {iterations, rounds, failed, elapsed_ms, means: [per move or
    None where not searched]}."""
    if len(moves) == 1:
        return moves[0], {"iterations": 0, "rounds": 0, "failed": 0, "elapsed_ms": 0.0, "means": [None]}
    started = time.perf_counter()
    deadline = started + budget_ms / 1000
    sim = FastRng(rng.getrandbits(64) if hasattr(rng, "getrandbits") else rng.below(2**63))
    favourite = game.greedy(view, seat, moves, sim)
    candidates = _candidates(moves, favourite, min(root_moves, iterations), sim)
    root = {key: Node(move, seat) for key, move in candidates}
    seats = {seat}  # every seat met so far: a draw at the playout cap is worth 1/len(seats)
    rounds: list[list[float]] = []  # per round (one sample), each candidate's reward, in candidate order
    done = failed = 0
    while (len(rounds) + failed + 1) * len(candidates) <= iterations:
        now = time.perf_counter()
        if rounds and now + (now - started) / (len(rounds) + failed) > deadline:  # the next round would overrun
            break
        sample, seed, rewards = game.determinize(view, seat, sim), sim.getrandbits(64), []
        try:
            for node in root.values():
                rewards.append(_iterate(game, sample, node, seat, seats, FastRng(seed), c=exploration / 100,
                                        cap=playout_cap, greedy_share=greedy_rollouts / 100, depth=depth))
                done += 1
                if not rounds and _hopeless(started, done, len(candidates), deadline):
                    break
        except IllegalMove:  # a determinization the game's rules reject: a bug in determinize; skip it
            failed += 1
            continue
        if len(rewards) < len(candidates):  # the budget cannot hold enough rounds to override greedy's move
            break
        rounds.append(rewards)
    means = dict(zip(root, (sum(column) / len(rounds) for column in zip(*rounds))))
    stats = {"iterations": done, "rounds": len(rounds), "failed": failed,
             "elapsed_ms": (time.perf_counter() - started) * 1000, "means": [means.get(move_key(m)) for m in moves]}
    return _choose(candidates, rounds, margin / 100), stats


def _hopeless(started: float, done: int, per_round: int, deadline: float) -> bool:
    """During the first round: would the rounds needed to override greedy's move overrun the budget?"""
    per_iteration = (time.perf_counter() - started) / done
    return started + per_iteration * per_round * MIN_ROUNDS_TO_OVERRIDE > deadline


def _candidates(moves: list[dict], favourite: dict, most: int, sim: FastRng) -> list[tuple]:
    """The root moves searched, greedy's first: all of them, or greedy's and a random choice of the others."""
    key = move_key(favourite)
    others = [(move_key(m), m) for m in moves if move_key(m) != key]
    if len(others) >= most:
        others = sim.sample(others, max(most - 1, 0))
    return [(key, favourite)] + others


def _choose(candidates: list[tuple], rounds: list[list[float]], margin: float) -> dict:
    """Greedy's move unless another wins more in the same samples by more than `margin` standard errors of
    the paired difference; among those, the best mean."""
    best, best_mean = candidates[0][1], 0.0
    n = len(rounds)
    if n < MIN_ROUNDS_TO_OVERRIDE:
        return best
    for i in range(1, len(candidates)):
        differences = [r[i] - r[0] for r in rounds]
        mean = sum(differences) / n
        spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n)
        if mean > margin * spread and mean > best_mean:
            best, best_mean = candidates[i][1], mean
    return best


def _iterate(game, sample: dict, node: Node, seat: int, seats: set, sim: FastRng, c: float, cap: int,
             greedy_share: float, depth: int) -> float:
    """One iteration below a root move in one sample: descend, expand, play out, update; the bot's reward."""
    state, path = apply_move(game, sample, seat, node.move, sim), []
    if depth:
        children = node.after.setdefault(_observed(game, state, seat), {})
        path, state = _descend(game, state, children, seat, seats, sim, c, depth)
    rewards = playout(game, state, cap, greedy_share, seats, sim)
    for visited in [node] + path:
        visited.visits += 1
        visited.reward += rewards.get(visited.seat, 0.0)
    return rewards.get(seat, 0.0)


def _observed(game, state: dict, seat: int) -> str:
    return json.dumps(game.view(state, seat))


def _descend(game, state: dict, children: dict, seat: int, seats: set, sim: FastRng, c: float, depth: int):
    """Selection and expansion in one sample, at most `depth` moves: the path of nodes (moves) taken and the
    state reached. After each move the search goes on in the information set of what the observer then sees
    (its view of the sample), so a card the bot would see turned up splits the tree and its later choices can
    depend on it. The mover's greedy move is expanded first, so a new node starts with the playout's move."""
    path = []
    while len(path) < depth:
        actors = game.to_act(state)
        if not actors:
            return path, state
        actor = actors[0]
        seats.add(actor)
        legal = [(move_key(m), m) for m in game.legal_moves(state, actor)]
        untried = []
        for key, move in legal:
            child = children.get(key)
            if child is None:
                untried.append((key, move))
            else:
                child.available += 1
        if untried:
            key, move = _first_untried(game, state, actor, legal, untried, sim)
            node = children[key] = Node(move, actor)
            path.append(node)
            return path, apply_move(game, state, actor, move, sim)
        node = max((children[key] for key, _ in legal), key=lambda child: child.ucb(c))
        path.append(node)
        state = apply_move(game, state, actor, node.move, sim)
        children = node.after.setdefault(_observed(game, state, seat), {})
    return path, state


def _first_untried(game, state: dict, actor: int, legal: list[tuple], untried: list[tuple], sim: FastRng) -> tuple:
    """The mover's greedy move if it is untried (a new node starts with what the playout would play), else a
    random untried move."""
    greedy = move_key(game.greedy(game.view(state, actor), actor, [move for _, move in legal], sim))
    return next((item for item in untried if item[0] == greedy), None) or untried[sim.below(len(untried))]


def apply_move(game, state: dict, seat: int, move: dict, sim: FastRng) -> dict:
    for event in game.decide(state, seat, move, sim):
        state = game.evolve(state, event)
    return state


def playout(game, state: dict, cap: int, greedy_share: float, seats: set, sim: FastRng) -> dict:
    """The game's greedy move for the mover's view of the sample, greedy_share of the time (random legal
    moves otherwise), to the end or the cap; each seat's reward in [0, 1]."""
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
        state = apply_move(game, state, actor, move, sim)
    result = game.outcome(state)
    if result is not None:
        winners = result["winners"]
        return {s: 1 / len(winners) for s in winners} if winners else {}
    evaluate = getattr(game, "evaluate", None)
    if evaluate is not None:
        return evaluate(state)
    return {s: 1 / len(seats) for s in seats}

