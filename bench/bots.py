"""How strong the bots are: seeded matches in memory through domain.match (no Redis, no HTTP).

For every game in domain.games.GAMES, at 2 players and at the game's most players, two pairings:
    greedy vs random, ismcts vs greedy
One seat is the tested bot and every other seat the opponent. Duplicate deals: match i plays deal
i // players with the tested bot in seat i mod players, so each deal is played with the tested bot in every
seat in turn (give --matches as a multiple of the player count) and the luck of the deal cancels out. The
tested bot's win share in a match is 1/len(winners) if it is a winner, else 0; the table gives its mean with
a 95% Wilson interval, and the even-strength share 1/players to compare with.
Every match is reproducible: its seed is "bots:<game>:<players>:<tested>-<opponent>:<deal>", and the ismcts
bot runs on an iteration budget only (--budget-ms defaults to the maximum), so the machine's load does
not change a move.

    .venv/bin/python bench/bots.py --matches 4 --iterations 30             # a smoke run, about 2 minutes
    .venv/bin/python bench/bots.py                                         # 40 matches a cell, 100 iterations
    .venv/bin/python bench/bots.py --games mantis --matches 120            # one game, more matches
    .venv/bin/python bench/bots.py --turn-times 12                         # default ismcts turn times
    .venv/bin/python bench/bots.py --games mantis --players 2 --pairings ismcts:forgetful --iterations 200
                                                   # what remembering what the seat saw is worth
    .venv/bin/python bench/bots.py --games flipout --players 2 --pairings ismcts:filed --budget-ms 800
                                                   # today's bot against the one issue #27 found
    .venv/bin/python bench/bots.py --games mantis --players 6 --pairings "greedy[steal=45]:greedy" --matches 1200
                                                   # greedy with another weight (hundredths) against greedy
    .venv/bin/python bench/bots.py --games flipout --players 2 --game-options tokens=true \
        --pairings "greedy[token_deck=2400]:greedy"  # a weight only the tokens variant reads
"""
import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain import match  # noqa: E402
from domain.bots import BOTS, bot_options  # noqa: E402
from domain.bots.ismcts import MAX_BUDGET_MS, search  # noqa: E402
from domain.errors import InvalidSetup  # noqa: E402
from domain.games import GAMES  # noqa: E402
from domain.rng import Rng  # noqa: E402
from filed_ismcts import filed_policy  # noqa: E402  (bench/filed_ismcts.py: this script's folder is on the path)

PAIRINGS = (("greedy", "random"), ("ismcts", "greedy"))
FORGETFUL = "forgetful"  # for a pairing only: the ismcts bot with its options, given no `seen` (its view alone)
FILED = "filed"  # for a pairing only: the ismcts bot as issue #27 found it (bench/filed_ismcts.py)
SALT = "bench-salt"


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (a win share of ties counts as a fraction)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def player_counts(game, wanted: str) -> list[int]:
    counts = {"max": [game.INFO.max_players], "both": [2, game.INFO.max_players]}.get(wanted) or [int(wanted)]
    return sorted({n for n in counts if game.INFO.min_players <= n <= game.INFO.max_players})


def play_match(job: tuple) -> tuple:
    """One seeded match; (cell, tested bot's win share, seconds per tested search move, tested search moves)."""
    game_id, players, tested, opponent, index, options, game_options = job
    seed = f"bots:{game_id}:{players}:{tested}-{opponent}:{index // players}"
    tested_seat = index % players
    bots = [tested if s == tested_seat else opponent for s in range(players)]
    seats = [seat_spec(bot, options) for bot in bots]
    log = match.create(game_id, game_options, seats, match.commitment(seed, SALT), "bench")
    state = match.evolve_all(None, log)
    opening = match.open_events(state, seed)
    state, log = match.evolve_all(state, opening), log + opening
    game = GAMES[game_id]
    search_seconds, searched = 0.0, 0
    while state["status"] == match.ACTIVE:
        seat = match.to_act(state)[0]
        spec = state["seats"][seat]
        rng = Rng.derive(seed, f"bot:{seat}:{state['version']}").python_random()
        view, moves = match.view(state, seat), match.legal_moves(state, seat)
        started = time.perf_counter()
        kind, given = parsed(bots[seat])
        if kind == FILED:
            move = filed_policy(game, view, seat, moves, rng, **given)
        elif kind == "greedy" and given:
            move = game.greedy(view, seat, moves, rng, weights=greedy_weights(game, given))
        else:
            kind = BOTS[spec["bot"]]
            earlier = {"seen": match.seen(log, seat)} if kind.remembers and bots[seat] != FORGETFUL else {}
            move = kind.policy(game, view, seat, moves, rng, **earlier, **spec.get("bot_options", {}))
        if seat == tested_seat and parsed(bots[seat])[0] not in ("random", "greedy"):
            search_seconds += time.perf_counter() - started
            searched += 1
        events = match.decide(state, seat, move, seed, SALT)
        state, log = match.evolve_all(state, events), log + events
    return (game_id, players, tested, opponent), seat_share(state["result"], tested_seat), search_seconds, searched


def greedy_weights(game, given: dict):
    """The game's greedy weights with some given in hundredths: `greedy[score_miss=20]` in a pairing
    (ValueError for a game whose greedy takes none, or a weight it does not have)."""
    if not hasattr(game, "GREEDY_WEIGHTS"):
        raise ValueError(f"{game.INFO.id}'s greedy takes no weights")
    return game.GREEDY_WEIGHTS._replace(**{name: value / 100 for name, value in given.items()})


def seat_share(result: dict, seat: int) -> float:
    """The seat's win share of a finished match: 1/len(winners) if it is a winner, else 0."""
    winners = result["winners"]
    return 1 / len(winners) if seat in winners else 0.0


def seat_spec(bot: str, options: dict) -> dict:
    """The match's seat for a pairing's bot: `kind`, `ismcts[option=value;...]` (the ismcts bot with these
    options over --iterations and --budget-ms), FORGETFUL, or FILED[iterations=..;budget_ms=..] (a greedy seat
    in the log, played by filed_policy)."""
    kind, given = parsed(bot)
    if kind in (FILED, "greedy"):
        return {"bot": "greedy"}
    if kind == FORGETFUL:
        kind = "ismcts"
    chosen = {**options.get(kind, {}), **given}
    return {"bot": kind, **({"bot_options": chosen} if chosen else {})}


def parsed(bot: str) -> tuple[str, dict]:
    """`kind[option=value;...]` as the kind and its integer options."""
    kind, _, given = bot.partition("[")
    return kind, {name: int(value) for name, value in (item.split("=") for item in given.rstrip("]").split(";") if item)}


def players_wanted(text: str) -> str:
    if text in ("max", "both") or text.isdigit():
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not a count, max or both")


def game_options_wanted(text: str) -> dict:
    try:
        return {name: json.loads(value) for name, value in (item.split("=") for item in text.split(",") if item)}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not name=value,... with JSON values") from None


def run_table(games: list[str], matches: int, options: dict, processes: int, counts: str,
              pairings: tuple = PAIRINGS, first: int = 0, game_options: dict | None = None) -> list[dict]:
    jobs = [(game_id, players, tested, opponent, i, options, game_options or {})
            for game_id in games for players in player_counts(GAMES[game_id], counts)
            for tested, opponent in pairings for i in range(first, first + matches)]
    cells: dict[tuple, dict] = {}
    started = time.perf_counter()
    with multiprocessing.Pool(processes) as pool:
        for done, (cell, share, seconds, searched) in enumerate(pool.imap_unordered(play_match, jobs, chunksize=1), 1):
            row = cells.setdefault(cell, {"shares": [], "seconds": 0.0, "searched": 0})
            row["shares"].append(share)
            row["seconds"] += seconds
            row["searched"] += searched
            if done % max(1, len(jobs) // 20) == 0:
                print(f"  {done}/{len(jobs)} matches, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    rows = []
    for game_id in games:
        for players in player_counts(GAMES[game_id], counts):
            for tested, opponent in pairings:
                row = cells[(game_id, players, tested, opponent)]
                n, wins = len(row["shares"]), sum(row["shares"])
                low, high = wilson(wins, n)
                rows.append({"game": game_id, "players": players, "tested": tested, "opponent": opponent,
                             "matches": n, "share": wins / n, "low": low, "high": high, "even": 1 / players,
                             "ms_per_move": 1000 * row["seconds"] / row["searched"] if row["searched"] else None})
    return rows


def verdict(row: dict) -> str:
    if row["low"] > row["even"]:
        return "better"
    if row["high"] < row["even"]:
        return "worse"
    return "not separated"


def print_table(rows: list[dict]) -> None:
    print("| game | players | tested vs opponent | matches | tested win share [95% CI] | even share | verdict "
          "| ms per tested search move |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        ms = f"{r['ms_per_move']:.0f}" if r["ms_per_move"] is not None else "-"
        print(f"| {r['game']} | {r['players']} | {r['tested']} vs {r['opponent']} | {r['matches']} "
              f"| {r['share']:.3f} [{r['low']:.3f}, {r['high']:.3f}] | {r['even']:.3f} | {verdict(r)} | {ms} |")


# --- turn times -------------------------------------------------------------------------------------
def positions(game_id: str, players: int, count: int, label: str, pick: random.Random, bot: str = "random",
              per_match: int = 3) -> tuple[list[tuple], float]:
    """`count` positions (view, seat, moves, seen) where the seat to act has a choice, at most `per_match` (picked
    by `pick`) from each seeded match played by `bot` in every seat, `seen` what the seat was shown before
    (domain.match.seen, what a bot that remembers is given); and the mean number of such choices per seat and
    match. Match n has the seed "<label>:<n>", its bots draw from random.Random of that seed."""
    game, found, choices_seen, matches = GAMES[game_id], [], 0, 0
    while len(found) < count:
        seed = f"{label}:{matches}"
        matches += 1
        log = match.create(game_id, {}, [{"bot": bot}] * players, "c", "bench")
        state = match.evolve_all(None, log)
        opening = match.open_events(state, seed)
        state, log = match.evolve_all(state, opening), log + opening
        rng, choices = random.Random(seed), []
        while state["status"] == match.ACTIVE:
            seat = match.to_act(state)[0]
            moves, view = match.legal_moves(state, seat), match.view(state, seat)
            if len(moves) > 1:
                choices.append((view, seat, moves, len(log)))
            move = BOTS[bot].policy(game, view, seat, moves, rng)
            events = match.decide(state, seat, move, seed, SALT)
            state, log = match.evolve_all(state, events), log + events
        choices_seen += len(choices)
        picked = pick.sample(choices, min(len(choices), per_match, count - len(found)))
        found += [(view, seat, moves, match.seen(log[:length], seat)) for view, seat, moves, length in picked]
    return found, choices_seen / (matches * players)


def turn_times(games: list[str], count: int, counts: str) -> None:
    """The default ismcts turn (its default options) at positions from random matches, one process."""
    defaults = bot_options("ismcts", {})
    print(f"default ismcts options: {defaults}")
    print("| game | players | positions | turn ms median | turn ms max | iterations median | rounds median "
          "| rounds min |")
    print("|---|---|---|---|---|---|---|---|")
    for game_id in games:
        game = GAMES[game_id]
        for players in player_counts(game, counts):
            times, iterations, rounds = [], [], []
            label = f"turns:{game_id}:{players}"
            found, _ = positions(game_id, players, count, label, random.Random(label), per_match=max(1, count // 3))
            for i, (view, seat, moves, seen) in enumerate(found):
                started = time.perf_counter()
                _, stats = search(game, view, seat, moves, random.Random(i), seen=seen, **defaults)
                times.append(1000 * (time.perf_counter() - started))
                iterations.append(stats["iterations"])
                rounds.append(stats["rounds"])
            print(f"| {game_id} | {players} | {len(times)} | {statistics.median(times):.0f} | {max(times):.0f} "
                  f"| {statistics.median(iterations):.0f} | {statistics.median(rounds):.0f} | {min(rounds)} |",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids (default: all registered)")
    parser.add_argument("--matches", type=int, default=40, help="matches per cell (game, players, pairing)")
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first match: --first 40 --matches 80 plays matches 40-119, extending "
                             "an earlier run of 40 (match i has the same seed in every run)")
    parser.add_argument("--iterations", type=int, default=100, help="the ismcts bot's iterations per turn")
    parser.add_argument("--budget-ms", type=int, default=MAX_BUDGET_MS,
                        help="the ismcts bot's time budget per turn (default: the maximum, so iterations decide)")
    parser.add_argument("--ismcts", default="", help="more ismcts options, e.g. playout_cap=200,exploration=100")
    parser.add_argument("--players", default="both", type=players_wanted,
                        help="a count (2: the smallest table), max (the game's most) or both (2 and max)")
    parser.add_argument("--pairings", default=",".join(f"{t}:{o}" for t, o in PAIRINGS),
                        help=f"tested:opponent pairs (default: greedy:random,ismcts:greedy); {FORGETFUL}: the "
                             "ismcts bot with the same options, but given only its view (not what it saw before); "
                             f"{FILED}: the ismcts bot of issue #27's filing; ismcts[option=value;...]: with other "
                             "options, e.g. ismcts:ismcts[playout_cap=1000;root_moves=12]; greedy[weight=value;...]: "
                             "greedy with other weights (hundredths; the game's GREEDY_WEIGHTS), e.g. "
                             "greedy[steal=80]:greedy")
    parser.add_argument("--game-options", default={}, type=game_options_wanted,
                        help="the games' options in every match (default: none), name=value with JSON values, "
                             "comma-separated, e.g. tokens=true,stall_rounds=10")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--turn-times", type=int, default=0, metavar="N",
                        help="instead of matches: time the default ismcts turn at N positions per game and size")
    args = parser.parse_args()
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        parser.error(f"unknown games {unknown}; registered: {', '.join(GAMES)}")
    if args.turn_times:
        turn_times(games, args.turn_times, args.players)
        return
    extra = dict(item.split("=") for item in args.ismcts.split(",") if item)
    ismcts = bot_options("ismcts", {"iterations": args.iterations, "budget_ms": args.budget_ms,
                                    **{k: int(v) for k, v in extra.items()}})
    started = time.perf_counter()
    pairings = tuple(tuple(pair.split(":")) for pair in args.pairings.split(","))
    weighted = [given for kind, given in (parsed(bot) for pair in pairings for bot in pair) if kind == "greedy"]
    for game in map(GAMES.__getitem__, games):
        try:  # here, not in a pool's worker, where an error would leave the run waiting for its match
            for given in filter(None, weighted):
                greedy_weights(game, given)
            game.options(args.game_options, game.INFO.min_players)
        except (ValueError, InvalidSetup) as error:
            parser.error(str(error))
    rows = run_table(games, args.matches, {"ismcts": ismcts}, args.processes, args.players, pairings, args.first,
                     args.game_options)
    print(f"ismcts options: {ismcts}; game options: {args.game_options}; "
          f"matches {args.first}-{args.first + args.matches - 1} of each cell; "
          "duplicate deals (each deal once with the tested bot in every seat); "
          f"{time.perf_counter() - started:.0f} s on {args.processes} processes\n")
    print_table(rows)


if __name__ == "__main__":
    main()
