"""Tournaments: does the ranking come out right, does duplicate cut the noise, what does the machinery cost,
and how long does pairing a big Swiss take. Everything here but the throughput part runs in this process: the
tournament and match services on the in-memory store, bots playing inline (no HTTP, no Redis).

  ranking     per game: greedy vs random in duplicate, doubling the deals until greedy's 95% interval on its
              win share excludes 0.5 (or MAX_DEALS);
  noise       per game: the interval width from D duplicate deals (2D matches, the deal as the unit) against D
              independent pairs of matches (2D matches, each with its own cards, the match as the unit), same
              entrants, same interval formula; ratio < 1 is duplicate's gain;
  swiss       100 random bots on Mantis, Swiss, 7 rounds: time spent pairing each round, and the whole run;
  throughput  (with --throughput: needs 2 RQ workers and an embedded Redis) the matches of a duplicate
              tournament vs the same matches created directly, played by the same workers: matches per minute.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain import tournament  # noqa: E402
from domain.games import GAMES  # noqa: E402
from domain.standings import mean_interval  # noqa: E402
from eventstore.memory import InMemoryEventStore  # noqa: E402
from tests.support.service import InlineTournaments, make_tournaments  # noqa: E402

PAIR = [{"bot": "random"}, {"bot": "greedy"}]


def run(spec: dict):
    store = InMemoryEventStore()
    service = make_tournaments(InlineTournaments(), store=store, max_matches=100_000)
    started = time.perf_counter()
    created = service.create({"options": {}, "max_parallel": 64, **spec})
    elapsed = time.perf_counter() - started
    assert service.get(created["id"])["status"] == "finished"
    return service, created["id"], elapsed


def greedy_row(service, tournament_id):
    return next(r for r in service.standings(tournament_id)["entrants"] if r["bot"] == "greedy")


def ranking(game: str, most_deals: int) -> tuple[int, dict, float]:
    deals = 10
    while True:
        service, tournament_id, elapsed = run({"game": game, "format": "duplicate", "deals": deals, "table_size": 2,
                                               "entrants": PAIR})
        row = greedy_row(service, tournament_id)
        if row["share_low"] > 0.5 or deals >= most_deals:
            return deals, row, elapsed
        deals *= 2


def second_shares(game: str, deals: int, pair: list[dict]) -> list[tuple[int, int, float]]:
    """(deal, rotation, the second entrant's share) of every match of a duplicate tournament of `deals` deals."""
    service, tournament_id, _ = run({"game": game, "format": "duplicate", "deals": deals, "table_size": 2,
                                     "entrants": pair})
    tables = service.get(tournament_id)["pairings"][0]["tables"]
    return [(t["deal"], i % 2, tournament.shares(t)[t["entrants"].index(1)]) for i, t in enumerate(tables)]


def width(samples: list[float]) -> float:
    """The 95% interval's width by one formula for both (mean -+ 1.96 sd / sqrt(n)); 0 when there is no spread."""
    interval = mean_interval(samples)
    return interval[1] - interval[0] if interval else 0.0


def noise(game: str, deals: int, pair: list[dict]) -> tuple[float, float]:
    """(duplicate width, independent width) over 2 * deals matches each: duplicate's unit is the deal (the mean
    of its two rotations); independent is 2 * deals matches with their own cards, seats alternating (of 2 * deals
    duplicate deals only one rotation each is kept: deal d's rotation d % 2)."""
    duplicate = second_shares(game, deals, pair)
    by_deal = [sum(s for d, _, s in duplicate if d == deal) / 2 for deal in range(deals)]
    independent = [s for d, rotation, s in second_shares(game, 2 * deals, pair) if rotation == d % 2]
    return width(by_deal), width(independent)


def swiss_100() -> tuple[list[float], float]:
    timings = []
    original = tournament.pair_round

    def timed(state, seed):
        started = time.perf_counter()
        paired = original(state, seed)
        timings.append(time.perf_counter() - started)
        return paired

    tournament.pair_round = timed
    try:
        _, _, elapsed = run({"game": "mantis", "format": "swiss", "rounds": 7, "table_size": 2,
                             "entrants": [{"bot": "random"}] * 100})
    finally:
        tournament.pair_round = original
    return timings, elapsed


def throughput(deals: int, rounds: int = 2) -> tuple[float, float]:
    """Matches per minute: (tournament, direct), 2 RQ workers on an embedded Redis, the same 2 * deals matches
    (the direct ones dealt from the tournament's deal seeds). The workers are warmed up by one match first, and
    the two ways alternate, `rounds` times each, so neither gets the cold start or a quieter minute alone."""
    import redis
    from rq import Queue

    from common import embedded_redis
    from eventstore.redis_store import RedisEventStore
    from service.matches import MatchService
    from service.tournaments import TournamentService
    from workers.scheduler import RqBotScheduler, RqTournamentScheduler

    with embedded_redis() as url:
        env = {**os.environ, "REDIS_URL": url, "QUEUE": "bench-tournaments",
               "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        workers = [subprocess.Popen([sys.executable, "-m", "bootstrap.worker"], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL) for _ in range(2)]
        try:
            queue = Queue("bench-tournaments", connection=redis.Redis.from_url(url))
            store = RedisEventStore(redis.Redis.from_url(url, decode_responses=True))
            jobs = RqTournamentScheduler(queue)
            matches = MatchService(store, RqBotScheduler(queue), tournaments=jobs)
            tournaments = TournamentService(store, matches, jobs, max_matches=100_000)

            def finish(ids):
                while any(m and m["status"] != "finished" for m in store.metas(ids)):
                    time.sleep(0.05)

            def direct(seed):
                finish([matches.create("mantis", {}, [{"bot": PAIR[e]["bot"]} for e in rotation],
                                       tournament.deal_seed(seed, d))["id"]
                        for d in range(deals) for rotation in ([0, 1], [1, 0])])

            def through_tournament():
                created = tournaments.create({"game": "mantis", "options": {}, "format": "duplicate", "deals": deals,
                                              "table_size": 2, "max_parallel": 2 * deals, "entrants": PAIR})
                while tournaments.get(created["id"])["status"] != "finished":
                    time.sleep(0.05)
                return tournaments.get(created["id"])["seed"]

            finish([matches.create("mantis", {}, PAIR)["id"]])  # the workers are up and warm
            spent = {"tournament": 0.0, "direct": 0.0}
            for _ in range(rounds):
                started = time.perf_counter()
                seed = through_tournament()
                spent["tournament"] += time.perf_counter() - started
                started = time.perf_counter()
                direct(seed)
                spent["direct"] += time.perf_counter() - started
            played = 2 * deals * rounds
            return played / spent["tournament"] * 60, played / spent["direct"] * 60
        finally:
            for worker in workers:
                worker.kill()
                worker.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--throughput", type=int, default=0, help="deals for the throughput part (0: skip it)")
    parser.add_argument("--noise-deals", type=int, default=100)
    parser.add_argument("--most-deals", type=int, default=320, help="ranking: stop doubling the deals here")
    parser.add_argument("--noise-pair", default="random,greedy",
                        help="noise: the two built-in bots compared, e.g. greedy,ismcts")
    parser.add_argument("--ismcts-budget", type=int, default=20, help="noise: an ismcts entrant's budget_ms")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games (default: all)")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: ranking,noise,swiss")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    if "ranking" not in skip:
        print(f"ranking: greedy vs random, duplicate, deals doubled from 10 until greedy's 95% interval excludes 0.5 "
              f"(at most {args.most_deals})")
        for game in GAMES:
            deals, row, elapsed = ranking(game, args.most_deals)
            print(f"  {game:9} deals {deals:4} ({2 * deals} matches): greedy share {row['share']:.3f} "
                  f"[{row['share_low']:.3f}, {row['share_high']:.3f}]  mu {row['rating']['mu']:.1f}  ({elapsed:.1f} s)")
    if "noise" not in skip:
        pair = [{"bot": bot, **({"bot_options": {"budget_ms": args.ismcts_budget}} if bot == "ismcts" else {})}
                for bot in args.noise_pair.split(",")]
        print(f"noise: 95% interval width of {pair[1]['bot']}'s share against {pair[0]['bot']} over "
              f"{2 * args.noise_deals} matches, duplicate vs independent deals")
        for game in args.games.split(","):
            duplicate_width, independent_width = noise(game, args.noise_deals, pair)
            ratio = f"{duplicate_width / independent_width:.2f}" if independent_width else "- (no spread)"
            print(f"  {game:9} duplicate {duplicate_width:.3f}  independent {independent_width:.3f}  ratio {ratio}")
    if "swiss" not in skip:
        timings, elapsed = swiss_100()
        print("swiss: 100 random bots on Mantis, 7 rounds: pairing per round (ms) "
              + " ".join(f"{t * 1000:.1f}" for t in timings) + f"; total pairing {sum(timings) * 1000:.0f} ms; "
              f"whole tournament (350 matches, in process) {elapsed:.1f} s")
    if args.throughput:
        through_tournament, direct = throughput(args.throughput)
        print(f"throughput: 2 x {2 * args.throughput} Mantis matches on 2 workers: tournament {through_tournament:.0f}/min, "
              f"direct {direct:.0f}/min, ratio {through_tournament / direct:.2f}")


if __name__ == "__main__":
    main()
