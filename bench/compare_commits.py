"""The move path's CPU at two commits, side by side in one run: is a change faster, and by more than the noise?

Each version runs in a long-lived process of its own (the whole Flask app through its test client, on one
embedded Redis), and the processes take turns: one plays `--moves` random 3-seat Mantis moves, then the next,
`--rounds` times. Each turn is timed in CPU seconds of its process, so the other processes' work and the
machine's load move it little, and a slow spell of the machine hits every version alike. The first version
runs twice: the gap between its two copies is the noise floor of the run.

A version is a commit (its files extracted by bench/trees.py) or "." for the working tree. The virtualenv
installs the repository in editable mode, and its import finder would load the main checkout's packages
whatever the path says, so each process removes that finder before importing: otherwise both sides of a
comparison run the same code, and the "difference" measured is the order the processes ran in.
`--mode account-creates` times another path the same way: an account creating a match that seats it (its room
decided in the store) and resigning it.
Usage: python bench/compare_commits.py BEFORE [AFTER=.] [--rounds 30] [--moves 200]
       [--mode answers|read-then-post|account-creates]
"""
import argparse
import os
import random
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
THREE = {"game": "mantis", "options": {"edition": "classic"}, "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}


def serve(tree: str, redis_url: str, mode: str) -> None:
    """The child: plays moves on the code of `tree`, a turn of N moves for each N read from stdin."""
    sys.meta_path[:] = [finder for finder in sys.meta_path if "editable" not in repr(finder).lower()]
    sys.path.insert(0, tree)
    os.environ.update(REDIS_URL=redis_url, LIMIT_CREATE="", LIMIT_JOIN="", LIMIT_MOVES="", LIMIT_ACCOUNTS="",
                         LIMIT_CHALLENGES="", LIMIT_READS="")
    from bootstrap import build_app, settings
    client, pick, match = build_app(settings()).test_client(), random.Random(1), {}
    if mode == "account-creates":
        return serve_turns(account_creates(client))

    def move():
        if not match.get("to_act"):
            created = client.post("/v1/matches", json=THREE).get_json()
            match.update(id=created["id"], tokens=[s["token"] for s in created["seats"]],
                         version=created["version"], to_act=created["to_act"])
        if mode == "read-then-post":
            match.update({k: v for k, v in client.get(f"/v1/matches/{match['id']}").get_json().items()
                          if k in ("version", "to_act")})
        seat, target = match["to_act"][0], pick.randrange(3)
        body = {"move": {"action": "score"} if target == seat else {"action": "steal", "target": target},
                "expected_version": match["version"]}
        answer = client.post(f"/v1/matches/{match['id']}/moves", json=body,
                             headers={"Authorization": f"Bearer {match['tokens'][seat]}"})
        if answer.status_code != 201:
            raise RuntimeError(f"move refused: {answer.get_json()}")
        match.update(version=answer.get_json()["version"], to_act=answer.get_json()["to_act"])

    serve_turns(move)


def account_creates(client):
    """A step of the account-creates mode: an account creates a match seating itself beside a bot, which takes room
    among its open matches (docs/challenges.md, "Room"), and resigns it, so the room never fills."""
    name = f"bench{random.getrandbits(32):08x}"
    key = client.post("/v1/accounts", json={"name": name, "kind": "bot"}).get_json()["api_key"]
    auth = {"Authorization": f"Bearer {key}"}
    solo = {"game": "mantis", "seats": [{"account": name}, {"bot": "random"}]}

    def create_and_resign():
        created = client.post("/v1/matches", json=solo, headers=auth)
        if created.status_code != 201:
            raise RuntimeError(f"create refused: {created.get_json()}")
        client.post(f"/v1/matches/{created.get_json()['id']}/resign", headers=auth)

    return create_and_resign


def serve_turns(step) -> None:
    """Warms `step` up, then times a turn of N steps for each N read from stdin (CPU µs a step)."""
    for _ in range(200):  # warm: imports done, caches filled
        step()
    print("ready", flush=True)
    for line in sys.stdin:
        steps, started = int(line), time.process_time()
        for _ in range(steps):
            step()
        print((time.process_time() - started) / steps * 1e6, flush=True)


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before", nargs="?")
    parser.add_argument("after", nargs="?", default=".")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--moves", type=int, default=200, help="moves per turn")
    parser.add_argument("--mode", choices=["answers", "read-then-post", "account-creates"], default="answers")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)  # the child: tree, Redis URL, mode
    args = parser.parse_args()
    if args.serve:
        return serve(*args.serve)
    if args.before is None:
        parser.error("name the version to compare with (a commit)")
    sys.path.insert(0, str(REPOSITORY / "bench"))
    from common import embedded_redis
    from trees import source_tree
    labels = [args.before, f"{args.before} (again)", args.after]
    with ExitStack() as stack:
        before, after = (str(stack.enter_context(source_tree(version))) for version in (args.before, args.after))
        redis_url = stack.enter_context(embedded_redis())
        movers = [subprocess.Popen([sys.executable, __file__, "--serve", tree, redis_url, args.mode],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                  for tree in (before, before, after)]
        for mover in movers:
            if mover.stdout.readline().strip() != "ready":
                raise RuntimeError("a mover did not start")
        turns = [[] for _ in movers]
        for _ in range(args.rounds):
            for mover, taken in zip(movers, turns):
                mover.stdin.write(f"{args.moves}\n")
                mover.stdin.flush()
                taken.append(float(mover.stdout.readline()))
        for mover in movers:
            mover.stdin.close()
            mover.wait()
    step = "create and resign by an account" if args.mode == "account-creates" else "move"
    print(f"{args.mode}: CPU µs a {step} through the app in-process, {args.rounds} alternating turns of {args.moves} "
          f"steps; load average {os.getloadavg()[0]:.2f}")
    print(f"{'version':<28} {'median':>8} {'x first':>8} {'turns':>13}")
    for label, taken in zip(labels, turns):
        ratio = median([mine / first for mine, first in zip(taken, turns[0])])
        print(f"{label:<28} {median(taken):>8.0f} {ratio:>8.3f} {min(taken):>6.0f}-{max(taken):<6.0f}")
    print("the first version's two copies differ by the run's noise; a change smaller than that is not shown")


if __name__ == "__main__":
    sys.exit(main())
