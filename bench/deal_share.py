"""How much of bench/engines.py's simulation rows is the deal they time with each playout, and so the most their
"x before" can show: each row's loop, and the deal alone (`dealt`: the game's deal with the seed's
HMAC-SHA256 Rng), taking turns in the same slices (engines.rates).
"ceiling" is the "x before" a simulation that cost nothing would reach: the before row's playout time over
the deal's. Usage: python bench/deal_share.py [--seconds 1] [--players 2] [--games mantis]
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.engines import dealt, greedy_playout, match_playout, rates, simulated_playout  # noqa: E402
from domain.games import GAMES, get_game  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=1.0, help="per loop and game")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=["mantis"])
    args = parser.parse_args()
    print(f"{args.players} players, {args.seconds}s of CPU a loop; times in microseconds a playout")
    print(f"{'game':<9} {'kind':<7} {'before':>8} {'deal':>6} {'simulation':>10} {'x before':>8} {'ceiling':>7}")
    for game_id in args.games:
        game, players = get_game(game_id), args.players
        loops = [lambda pick, n: match_playout(game_id, players, pick, n),
                 lambda pick, n: greedy_playout(game, players, pick, n, True),
                 lambda pick, n: (dealt(game, players, n), 0)[1],
                 lambda pick, n: simulated_playout(game, players, pick, n),
                 lambda pick, n: greedy_playout(game, players, pick, n, False)]
        match, greedy_engine, deal, simulation, greedy_simulation = (1e6 / playouts for playouts, _ in
                                                                     rates(loops, args.seconds))
        for kind, before, after in (("random", match, simulation), ("greedy", greedy_engine, greedy_simulation)):
            print(f"{game_id:<9} {kind:<7} {before:>8.0f} {deal:>6.0f} {after:>10.0f} {before / after:>8.1f} "
                  f"{before / deal:>7.1f}")


if __name__ == "__main__":
    main()
