"""Does a bot's think time show its hidden cards? ismcts bot turns through the service, side by side.

Plays all-ismcts matches in memory (the service over the in-memory store, no Redis) and times every bot
turn, with and without the steady think time the service adds (`BotKind.think_ms`, docs/fairness.md):
"no wait" is the turn without the wait, "turn" what an opponent sees in the event times. Turns are split by
whether the bot had one legal move (forced: the search answers at once) or several; in 9STAX and Blockers
that depends on the bot's hidden cards. The ratio choice/forced of "no wait" is the leak without the wait;
of "turn", what is left of it.

Usage: python bench/think_time.py [--budget-ms 100] [--matches 2]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from domain.games import get_game  # noqa: E402
from eventstore.memory import InMemoryEventStore  # noqa: E402
from service.matches import MatchService  # noqa: E402
from tests.support.service import RecordedBots  # noqa: E402

GAMES = ("9stax", "blockers")  # where the number of legal moves depends on hidden cards


def bot_turns(game_id: str, budget_ms: int, seed: str) -> list[tuple[bool, float, float]]:
    """(forced, ms without the wait, turn ms) for every bot turn of one all-ismcts match of two seats."""
    waits, bots = [], RecordedBots()

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    service = MatchService(InMemoryEventStore(), bots, sleep=sleep)
    seats = [{"bot": "ismcts", "bot_options": {"budget_ms": budget_ms}}] * 2
    match_id = service.create(game_id, {}, seats, seed=seed)["id"]
    timed = []
    while bots.scheduled:
        _, seat, version = turn = bots.scheduled.pop(0)
        started = time.perf_counter()
        service.play_bot_turn(*turn)
        turn_ms = (time.perf_counter() - started) * 1000
        timed.append((seat, version, turn_ms - waits[-1] * 1000, turn_ms))
    game = get_game(game_id)
    return [(len(game.legal_moves(service.state_at(match_id, None, version, full=True)["full_state"], seat)) == 1,
             unwaited, turn) for seat, version, unwaited, turn in timed]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget-ms", type=int, default=100)
    parser.add_argument("--matches", type=int, default=2)
    args = parser.parse_args()
    print(f"ismcts, budget {args.budget_ms} ms, 2 seats, {args.matches} matches per game; medians in ms")
    print("| game | forced turns | choice turns | no wait forced | no wait choice | no wait ratio "
          "| turn forced | turn choice | turn ratio |\n|---|---|---|---|---|---|---|---|---|")
    for game_id in GAMES:
        turns = [t for i in range(args.matches) for t in bot_turns(game_id, args.budget_ms, f"think:{game_id}:{i}")]
        forced, choice = [t for t in turns if t[0]], [t for t in turns if not t[0]]
        if not forced or not choice:
            print(f"| {game_id} | {len(forced)} | {len(choice)} | (no comparison) |")
            continue
        medians = [statistics.median(t[k] for t in group) for k in (1, 2) for group in (forced, choice)]
        print(f"| {game_id} | {len(forced)} | {len(choice)} | {medians[0]:.2f} | {medians[1]:.1f} | "
              f"{medians[1] / medians[0]:.0f} | {medians[2]:.1f} | {medians[3]:.1f} | {medians[3] / medians[2]:.2f} |")


if __name__ == "__main__":
    main()
