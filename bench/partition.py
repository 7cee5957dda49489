"""How soon the bots play again after a network partition between the whole service and its Redis that heals with
dead connections (tests/support/relay.py: nothing relayed for `--partition` seconds, then only the connections
opened after the heal), before (a commit, default main) and after (the working tree): `python -m bootstrap.run` of
each tree (2 web workers, 2 RQ workers, the scheduler, default settings) with REDIS_URL pointing at the relay.

Each round: a human plays a greedy bot until the bot has answered, the partition begins, it heals, and the human
moves again (a client retrying what fails at once); printed, per round, the seconds from the heal until the move
was accepted and until the bot's next move was seen (polled every 0.05 s), or "none" after `--give-up` seconds.
Usage: python bench/partition.py [BEFORE=main] [--rounds 3] [--partition 10] [--give-up 120] [--only before|after]
"""
import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bootstrap.embedded_redis import EmbeddedRedis  # noqa: E402
from common import NO_RATE_LIMITS, median  # noqa: E402
from tests.e2e import test_partition as scenario  # noqa: E402
from tests.e2e.conftest import running_service  # noqa: E402
from trees import source_tree  # noqa: E402

POLL_SECONDS = 0.05


def bot_moved_after(base: str, match: str, version: int) -> bool:
    try:
        view = requests.get(f"{base}/v1/matches/{match}", timeout=10)
    except requests.RequestException:
        return False
    return view.status_code == 200 and view.json()["version"] > version


def first_seen(condition, give_up: float, since: float) -> float | None:
    """Seconds from `since` until `condition` held, or None if it did not within `give_up` seconds of `since`."""
    while not condition():
        if time.monotonic() - since > give_up:
            return None
        time.sleep(POLL_SECONDS)
    return time.monotonic() - since


def one_round(base: str, relay, args) -> tuple[float | None, float | None]:
    seat = scenario.HumanSeat(base)
    before = seat.move()
    scenario.wait_for(lambda: seat.bot_moved_after(before), "the bot's turn before the partition")
    scenario.partition(relay, args.partition)
    healed = time.monotonic()
    try:
        after = seat.move()
    except AssertionError as error:  # no answer but 503 in the tests' generous bound
        print(f"  the move after the heal: {error}")
        return None, None
    accepted = time.monotonic() - healed
    return accepted, first_seen(lambda: bot_moved_after(base, seat.match, after), args.give_up, healed)


def measure(tree: Path, args) -> list[tuple[float | None, float | None]]:
    redis_server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="cardroom-partition-")), persist=False).start()
    relay = scenario.relay_to(redis_server.url)
    os.chdir(tree)  # bootstrap.run runs the code of the directory it starts in
    try:
        with running_service(Path(tempfile.mkdtemp(prefix="cardroom-partition-")), PYTHONPATH=str(tree),
                             REDIS_URL=relay.url, QUEUE=f"bots-partition-{uuid.uuid4().hex[:8]}",
                             **NO_RATE_LIMITS) as base:
            return [one_round(base, relay, args) for _ in range(args.rounds)]
    finally:
        relay.close()
        redis_server.stop()


def shown(seconds: float | None) -> str:
    return "none" if seconds is None else f"{seconds:.1f}"


def report(label: str, rounds: list[tuple[float | None, float | None]]) -> None:
    print(f"{label}: heal -> move accepted, heal -> bot's move (s): "
          + ", ".join(f"{shown(accepted)} / {shown(bot)}" for accepted, bot in rounds))
    moved = [bot for _, bot in rounds if bot is not None]
    if moved:
        print(f"  bot's move after the heal: median {median(moved):.1f} s, max {max(moved):.1f} s, "
              f"{len(rounds) - len(moved)} of {len(rounds)} rounds with none in time")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", nargs="?", default="main")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--partition", type=float, default=10.0)
    parser.add_argument("--give-up", type=float, default=120.0)
    parser.add_argument("--only", choices=("before", "after"))
    args = parser.parse_args()
    trees = {"after": ("after (working tree)", "."), "before": (f"before ({args.before})", args.before)}
    for label, revision in [trees[args.only]] if args.only else trees.values():
        with source_tree(revision) as tree:
            report(label, measure(tree, args))


if __name__ == "__main__":
    main()
