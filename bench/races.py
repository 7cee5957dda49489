"""Races and retries over HTTP, at scale: what optimistic concurrency and idempotency keys promise.

- Races: for each of `--races` matches, `--racers` clients post a move at the same version at once;
  exactly one may be accepted (201), every other gets 409, and the log holds exactly one move.
- Retries: for each of `--retries` moves, `--retriers` clients send the same move with the same
  Idempotency-Key at once; every answer that is not a 409 must be the same 201, byte for byte, and the
  log must grow by that one move only.
Prints the counts; exits 1 if any promise is broken. Usage: python bench/races.py [--races 300] ...
"""
import argparse
import sys
import threading
import uuid

import requests

from common import NO_RATE_LIMITS, embedded_redis, gunicorn


def at_once(count: int, call) -> list[requests.Response]:
    """`count` calls started together (a barrier), their answers in order."""
    barrier, answers = threading.Barrier(count), [None] * count

    def run(i):
        session = requests.Session()
        barrier.wait()
        answers[i] = call(session)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def new_match(base: str) -> tuple[str, str, int]:
    created = requests.post(f"{base}/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]})
    created.raise_for_status()
    body = created.json()
    return body["id"], body["seats"][body["to_act"][0]]["token"], body["version"]


def moves_in_log(base: str, match_id: str) -> int:
    return sum(e["type"] == "moved" for e in requests.get(f"{base}/v1/matches/{match_id}/events").json()["events"])


def race(base: str, racers: int) -> tuple[int, int, bool]:
    """(accepted, refused with 409, the log holds exactly one move)"""
    match_id, token, version = new_match(base)
    answers = at_once(racers, lambda s: s.post(f"{base}/v1/matches/{match_id}/moves",
                                               headers={"Authorization": f"Bearer {token}"},
                                               json={"move": {"action": "score"}, "expected_version": version}))
    statuses = [a.status_code for a in answers]
    return statuses.count(201), statuses.count(409), moves_in_log(base, match_id) == 1


def retry(base: str, retriers: int) -> tuple[int, int, bool]:
    """(answers identical to the first 201, other answers, the log holds exactly one move)"""
    match_id, token, version = new_match(base)
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
    answers = at_once(retriers, lambda s: s.post(f"{base}/v1/matches/{match_id}/moves", headers=headers,
                                                 json={"move": {"action": "score"}, "expected_version": version}))
    accepted = [a.content for a in answers if a.status_code == 201]
    later = requests.post(f"{base}/v1/matches/{match_id}/moves", headers=headers,
                          json={"move": {"action": "score"}, "expected_version": version})
    same = sum(body == accepted[0] for body in accepted) + (later.content == accepted[0])
    return same, retriers + 1 - same, moves_in_log(base, match_id) == 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--races", type=int, default=300)
    parser.add_argument("--racers", type=int, default=8)
    parser.add_argument("--retries", type=int, default=300)
    parser.add_argument("--retriers", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with embedded_redis() as redis_url, \
            gunicorn("bootstrap.wsgi:app", redis_url, args.workers, settings=NO_RATE_LIMITS) as base:
        raced = [race(base, args.racers) for _ in range(args.races)]
        retried = [retry(base, args.retriers) for _ in range(args.retries)]
    winners = [won for won, _, _ in raced]
    print(f"races: {args.races} matches x {args.racers} clients at one version: one winner in "
          f"{winners.count(1)}, none in {winners.count(0)}, several in {sum(w > 1 for w in winners)}; "
          f"409s {sum(lost for _, lost, _ in raced)}; logs with exactly one move {sum(ok for *_, ok in raced)}")
    print(f"retries: {args.retries} moves x {args.retriers + 1} sends of one Idempotency-Key (one after the "
          f"rest): answers equal to the first 201 byte for byte {sum(s for s, _, _ in retried)}, other "
          f"answers (409 while the first was in flight) {sum(o for _, o, _ in retried)}; logs with exactly one "
          f"move {sum(ok for *_, ok in retried)}")
    broken = winners.count(1) != args.races or not all(ok for *_, ok in raced + retried)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
