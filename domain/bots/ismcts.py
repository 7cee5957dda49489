"""The `ismcts` bot: single-observer Information-Set Monte Carlo Tree Search, one implementation for all games.

The bot only gets its seat's view and what that seat was shown before (`seen`, domain/match.py), which the
game's recall turns once into a memory. The search runs in rounds; each round
    1. samples a full state consistent with that view and memory: game.determinize(view, seat, rng, memory);
    2. tries every searched root move in that same sample, with the same simulation seed (common random
       numbers: the moves are compared on the same deal, so the luck of the deal cancels out of the
       difference). For each root move, one iteration:
    3. descends the tree below it, at most `depth` moves (default 0: no tree, the playout starts at once),
       choosing among the moves legal in the sample by UCB1 (a child's exploration term counts the
       iterations it was available, not the parent's). The tree's nodes are the bot seat's information
       sets: after each move the search continues in the node for what the bot then sees (its view of the
       sample), so a card turned up splits the tree, and a hidden one never;
    4. adds one node (the mover's greedy move if untried, else an untried move at random);
    5. plays the sample out on the game's simulation (game.simulation: one state changed in place) with
       the game's greedy move for each mover's view of it (or, for the rest of `greedy_rollouts` percent,
       random legal moves), at most `playout_cap` moves;
    6. credits every node on the path with the result for the seat that made its move: its win share,
       1/len(winners) if that seat is a winner, else 0; a playout cut at the cap is scored by the game's
       evaluate(state, seat), a value in [0, 1].
The searched root moves are all the bot's legal moves, or greedy's move and a random choice of the others
when there are more than `root_moves`. The answer is greedy's move unless another move passes two tests:
    - selection: sequential halving over the moves other than greedy's, in the same samples, on half the
      budget, leaves one challenger;
    - confirmation: in fresh samples (the other half), the challenger and greedy's move are played in the same
      sample; over at least MIN_CONFIRMATIONS of them, the challenger must win more by more than `margin`
      hundredths of a standard error of the paired difference.
The held-out samples carry none of the selection's luck, so the best-looking of many moves that are all as
good as greedy's is not played on a false lead, however few the samples. With greedy playouts the search is a
policy improvement over the greedy bot: it plays another move only where greedy's own continuation says that
move wins more.
A phase stops before a round that would exceed its share of `iterations`, or would likely end after its share
of `budget_ms` (judged by the mean iteration so far). If the first iteration shows that a round of every
challenger and MIN_CONFIRMATIONS held-out rounds cannot fit, the bot answers greedy's move at once. With an
iteration budget only, the answer is a function of (view, seat, moves, rng state, options).
"""
import json
import math
import random
import time
from typing import Any

from domain.errors import IllegalMove
from domain.protocol import Option, Seen, fill_options

DEFAULT_BUDGET_MS = 800
DEFAULT_PLAYOUT_CAP = 0  # the game's own PLAYOUT_CAP, tuned per game
DEFAULT_EXPLORATION = 70  # hundredths: UCB1's c = 0.7, for rewards in [0, 1]
DEFAULT_GREEDY_ROLLOUTS = -1  # the game's own GREEDY_ROLLOUTS, tuned per game
DEFAULT_ROOT_MOVES = 1000  # most root moves searched: all of them (cut playouts are cheap, sequential halving sheds)
DEFAULT_MARGIN = 100  # hundredths of a standard error: how clearly a move must beat greedy's to be played
DEFAULT_DEPTH = 0  # moves of tree below the bot's own: 0 at the default budget (docs/bots.md says why)
# The caps a server can afford: one bot turn holds one worker for up to MAX_BUDGET_MS (and no longer
# than the job timeout, 60 s); beyond them a seat's options are refused (422), not silently cut.
MAX_BUDGET_MS = 10_000
MAX_ITERATIONS = 100_000
DEFAULT_ITERATIONS = MAX_ITERATIONS  # the turn's time decides
MIN_CONFIRMATIONS = 8  # held-out samples before greedy's move may be left: a standard error from fewer says little
SELECTION_SHARE = 0.5  # of the budget, for choosing the challenger; the rest holds it out against greedy's move
MAX_FAILED_SAMPLES = 10  # samples the rules rejected (a determinize bug) before the search gives up

OPTIONS = (
    Option("iterations", "integer", DEFAULT_ITERATIONS,
           "search iterations per turn (a descent, playout and update each; a round tries every searched "
           "root move in one sample)",
           bounds=(1, MAX_ITERATIONS)),
    Option("budget_ms", "integer", DEFAULT_BUDGET_MS,
           "wall-clock budget per turn in milliseconds; the search stops at whichever budget ends first",
           bounds=(1, MAX_BUDGET_MS)),
    Option("playout_cap", "integer", DEFAULT_PLAYOUT_CAP,
           "most moves in one playout; a playout cut there is scored by the game's evaluate of its state (0: the "
           "game's own cap, tuned per game: docs/bots.md)", bounds=(0, 100_000)),
    Option("exploration", "integer", DEFAULT_EXPLORATION,
           "UCB1 exploration constant in hundredths (70 = 0.7), for the tree below the root (depth > 0)",
           bounds=(0, 1000)),
    Option("greedy_rollouts", "integer", DEFAULT_GREEDY_ROLLOUTS,
           "percent of playout moves chosen by the game's greedy heuristic instead of at random (-1: the game's "
           "own, tuned per game: docs/bots.md)", bounds=(-1, 100)),
    Option("root_moves", "integer", DEFAULT_ROOT_MOVES,
           "most of the bot's own moves searched: greedy's move and a random choice of the others (the default "
           "searches them all)", bounds=(1, 1000)),
    Option("margin", "integer", DEFAULT_MARGIN,
           "how clearly the challenger must beat greedy's move in held-out samples to be played instead, in "
           "hundredths of a standard error of the paired difference (0: any gain)", bounds=(0, 1000)),
    Option("depth", "integer", DEFAULT_DEPTH,
           "most moves of search tree below the bot's own move (0: each iteration plays out right after it)",
           bounds=(0, 1000)),
)

# Levels a player can choose: each sets the iterations and the budget (options given with it still win).
# Level 4 is the default bot, the strongest that fits the default turn; level 1 plays greedy's move (a search
# of one iteration cannot leave it); level 5 takes more than the default turn.
LEVELS = {1: {"iterations": 1, "budget_ms": 200}, 2: {"iterations": 200, "budget_ms": 300},
          3: {"iterations": 1000, "budget_ms": 500},
          4: {"iterations": DEFAULT_ITERATIONS, "budget_ms": DEFAULT_BUDGET_MS},
          5: {"iterations": MAX_ITERATIONS, "budget_ms": 3000}}
LEVEL = Option("level", "integer", 4,
               "strength from 1 (greedy's move, 0.2 s a turn) to 5 (3 s a turn): sets iterations and budget_ms "
               "(1: 1 and 200, 2: 200 and 300, 3: 1000 and 500, 4: the defaults, 5: 100000 and 3000); options "
               "given with it win", bounds=(1, 5))


def at_level(raw: dict) -> dict:
    """The options with the chosen level's iterations and budget under those given; `level` itself goes."""
    if "level" not in raw:
        return raw
    level = fill_options("the ismcts bot", (LEVEL,), {"level": raw["level"]})["level"]
    return {**LEVELS[level], **{name: value for name, value in raw.items() if name != "level"}}


class FastRng(random.Random):
    """The domain.rng.Rng interface (below, shuffled, choice) on a Mersenne Twister: for simulations only,
    where the HMAC-SHA256 generator would cost more than the games. The games' determinize and greedy use
    random.Random's own methods (shuffle, random), which this keeps."""

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        # random.Random's own bounded draw (typeshed leaves it out): randrange(n) checks its arguments first
        return self._randbelow(n)  # type: ignore[attr-defined]

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


def ismcts_policy(game, view: dict, seat: int, moves: list[dict], rng, seen: Seen = (),
                  iterations: int = DEFAULT_ITERATIONS, budget_ms: int = DEFAULT_BUDGET_MS,
                  playout_cap: int = DEFAULT_PLAYOUT_CAP, exploration: int = DEFAULT_EXPLORATION,
                  greedy_rollouts: int = DEFAULT_GREEDY_ROLLOUTS, root_moves: int = DEFAULT_ROOT_MOVES,
                  margin: int = DEFAULT_MARGIN, depth: int = DEFAULT_DEPTH) -> dict:
    move, _ = search(game, view, seat, moves, rng, iterations, budget_ms, playout_cap, exploration, greedy_rollouts,
                     root_moves, margin, depth, seen)
    return move


def search(game, view: dict, seat: int, moves: list[dict], rng, iterations: int = DEFAULT_ITERATIONS,
           budget_ms: int = DEFAULT_BUDGET_MS, playout_cap: int = DEFAULT_PLAYOUT_CAP,
           exploration: int = DEFAULT_EXPLORATION, greedy_rollouts: int = DEFAULT_GREEDY_ROLLOUTS,
           root_moves: int = DEFAULT_ROOT_MOVES, margin: int = DEFAULT_MARGIN,
           depth: int = DEFAULT_DEPTH, seen: Seen = ()) -> tuple[dict, dict]:
    """The chosen move and what the search did: {iterations, rounds, failed, elapsed_ms, means: [per move, or
    None where not played], challenger: the move held out against greedy's (None if none was), confirmations:
    the held-out rounds, advantage: the challenger's mean gain over greedy's move in them}. `seen`: what the
    seat was shown before (domain/match.py `seen`); none, and the samples keep to the view alone."""
    if len(moves) == 1:
        return moves[0], {"iterations": 0, "rounds": 0, "failed": 0, "elapsed_ms": 0.0, "means": [None],
                          "challenger": None, "confirmations": 0, "advantage": None}
    sim = FastRng(rng.getrandbits(64) if hasattr(rng, "getrandbits") else rng.below(2**63))
    favourite = game.greedy(view, seat, moves, sim)
    candidates = _candidates(moves, favourite, root_moves, sim)
    memory = game.recall(seen, seat) if seen else None
    greedy_share = (game.GREEDY_ROLLOUTS if greedy_rollouts < 0 else greedy_rollouts) / 100
    run = Run(game, view, memory, seat, sim, Budget(iterations, budget_ms), len(candidates) - 1,
              {"c": exploration / 100, "cap": playout_cap or game.PLAYOUT_CAP, "greedy_share": greedy_share,
               "depth": depth})
    greedy_node, challengers = Node(candidates[0][1], seat), [Node(move, seat) for _, move in candidates[1:]]
    challenger, differences = None, []
    if challengers and run.least <= iterations:
        try:
            challenger = _select(run, challengers)
            differences = _confirm(run, greedy_node, challenger)
        except OutOfBudget:
            pass
    chosen = challenger if challenger and _clearly_better(differences, margin / 100) else greedy_node
    means = {move_key(node.move): node.reward / node.visits for node in [greedy_node] + challengers if node.visits}
    stats = {"iterations": run.budget.done, "rounds": run.rounds, "failed": run.failed,
             "elapsed_ms": run.budget.elapsed() * 1000, "means": [means.get(move_key(m)) for m in moves],
             "challenger": challenger.move if challenger else None, "confirmations": len(differences),
             "advantage": sum(differences) / len(differences) if differences else None}
    return chosen.move, stats


class OutOfBudget(Exception):
    """The budget cannot hold what the search needs to leave greedy's move: stop and answer greedy's."""


class Budget:
    """Iterations and wall-clock time, shared out between the search's phases by fractions of both. Whether
    more iterations fit is judged by the mean iteration so far, so a round that would likely overrun is not
    started."""

    def __init__(self, iterations: int, budget_ms: int):
        self.iterations, self.seconds = iterations, budget_ms / 1000
        self.started, self.done = time.perf_counter(), 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def fits(self, more: int, share: float = 1.0) -> bool:
        """Would `more` iterations end within `share` (0 to 1) of both budgets?"""
        if self.done + more > self.iterations * share:
            return False
        elapsed = self.elapsed()
        return not self.done or elapsed + elapsed / self.done * more <= self.seconds * share


class Run:
    """One search's game, view and memory, simulation rng and budget, and what it played: rounds of one sample
    each."""

    def __init__(self, game, view: dict, memory: dict | None, seat: int, sim: FastRng, budget: Budget, challengers: int,
                 playout_options: dict):
        self.game, self.view, self.memory, self.seat, self.sim, self.budget = game, view, memory, seat, sim, budget
        self.playout_options, self.seats = playout_options, {seat}
        self.rounds = self.failed = 0
        # the fewest iterations that could leave greedy's move: a round of each stage of the selection and the
        # held-out rounds
        self.least = sum(_halving(challengers)) + 2 * MIN_CONFIRMATIONS

    def round(self, nodes: list) -> list[float] | None:
        """Every node's move played in one new sample with one simulation seed (common random numbers): the
        bot's rewards, in node order; None if the rules rejected the sample (a bug in determinize). Raises
        OutOfBudget after the search's first iteration if the `least` it needs could not fit: a FlipOut greedy
        playout has cost 45-100 ms."""
        sample = self.game.determinize(self.view, self.seat, self.sim, self.memory)
        seed, rewards = self.sim.getrandbits(64), []
        try:
            for node in nodes:
                rewards.append(_iterate(self.game, sample, node, self.seat, self.seats, FastRng(seed),
                                        **self.playout_options))
                self.budget.done += 1
                if self.budget.done == 1 and not self.budget.fits(self.least - 1):
                    raise OutOfBudget
        except IllegalMove:
            self.failed += 1
            if self.failed > MAX_FAILED_SAMPLES:
                raise OutOfBudget from None  # determinize keeps failing: no evidence to leave greedy's move on
            return None
        self.rounds += 1
        return rewards


def _select(run: Run, challengers: list) -> Node:
    """The move to hold out against greedy's: sequential halving (Karnin, Koren and Somekh 2013) over the
    others, in SELECTION_SHARE of the budget split evenly between its stages. A stage plays its survivors in
    the same samples (at least once) and keeps the better half by their means over all the samples they
    shared."""
    survivors, stages = list(challengers), len(_halving(len(challengers)))
    for stage in range(1, stages + 1):
        while run.round(survivors) is None or run.budget.fits(len(survivors), SELECTION_SHARE * stage / stages):
            pass
        survivors.sort(key=lambda node: node.reward / node.visits, reverse=True)
        survivors = survivors[:math.ceil(len(survivors) / 2)]
    return survivors[0]


def _halving(challengers: int) -> list[int]:
    """The survivors in each stage of sequential halving (none for a single challenger): 11 -> [11, 6, 3, 2]."""
    sizes = []
    while challengers > 1:
        sizes.append(challengers)
        challengers = math.ceil(challengers / 2)
    return sizes


def _confirm(run: Run, greedy_node: Node, challenger: Node) -> list[float]:
    """The challenger's gain over greedy's move in fresh samples (the rest of the budget): held out from the
    selection, so they carry none of its luck (the best of 11 moves that are all as good as greedy's looks
    better in the samples that chose it, not in new ones)."""
    differences = []
    while run.budget.fits(2):
        rewards = run.round([greedy_node, challenger])
        if rewards is not None:
            differences.append(rewards[1] - rewards[0])
    return differences


def _clearly_better(differences: list[float], margin: float) -> bool:
    """Over at least MIN_CONFIRMATIONS held-out samples, is the mean gain positive and more than `margin`
    standard errors?"""
    n = len(differences)
    if n < MIN_CONFIRMATIONS:
        return False
    mean = sum(differences) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n)
    return mean > 0 and mean > margin * spread


def _candidates(moves: list[dict], favourite: dict, most: int, sim: FastRng) -> list[tuple]:
    """The root moves searched, greedy's first: all of them, or greedy's and a random choice of the others."""
    key = move_key(favourite)
    others = [(move_key(m), m) for m in moves if move_key(m) != key]
    if len(others) >= most:
        others = sim.sample(others, max(most - 1, 0))
    return [(key, favourite)] + others


def _iterate(game, sample: dict, node: Node, seat: int, seats: set, sim: FastRng, c: float, cap: int,
             greedy_share: float, depth: int) -> float:
    """One iteration below a root move in one sample: descend, expand, play out, update; the bot's reward.
    The tree's information sets are the bot's views of engine states; the playout runs on the game's
    simulation, which changes one state in place."""
    path = []
    if depth:
        state = apply_move(game, sample, seat, node.move, sim)
        children = node.after.setdefault(_observed(game, state, seat), {})
        path, state = _descend(game, state, children, seat, seats, sim, c, depth)
        simulation = game.simulation(state)
    else:
        simulation = game.simulation(sample)
        simulation.play(seat, node.move, sim)
    rewards = playout(simulation, cap, greedy_share, seats, sim)
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
    path: list[Node] = []
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


def playout(simulation, cap: int, greedy_share: float, seats: set, sim: FastRng) -> dict:
    """The game's greedy move for the mover's view of the simulated state, greedy_share of the time (random
    legal moves otherwise), to the end or the cap (Simulation.play_out); each seat's reward in [0, 1]: its win
    share at the end, the game's evaluate of the state reached at the cap."""
    simulation.play_out(cap, greedy_share, seats, sim)
    result = simulation.outcome()
    if result is not None:
        winners = result["winners"]
        return {s: 1 / len(winners) for s in winners} if winners else {}
    return {s: simulation.evaluate(s) for s in seats}
