"""The HTTP surface measured side by side on one gunicorn (the project's settings: gevent, keep-alive):

  keep-alive   match reads on one reused connection against a new connection per read (Connection: close)
  304          match reads answered 304 (If-None-Match, nothing changed) against full 200 answers
  gzip         the bytes of a finished match's whole log, gzipped against plain, and the read rate of each

Rounds alternate the two sides of each pair so a noisy neighbour hits both alike; ratios are of medians.
Usage: python bench/http_surface.py [--seconds 2] [--rounds 3] [--workers 2]
"""
import argparse
import time

import requests

from common import embedded_redis, gunicorn, median


def finished_match(base):
    """A two-seat Mantis match played to the end over HTTP: its id and a seat token."""
    created = requests.post(f"{base}/v1/matches",
                            json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).json()
    tokens = [seat["token"] for seat in created["seats"]]
    version, turn = created["version"], created["to_act"]
    while turn:
        moved = requests.post(f"{base}/v1/matches/{created['id']}/moves", json={
            "move": {"action": "score"}, "expected_version": version},
            headers={"Authorization": f"Bearer {tokens[turn[0]]}"}).json()
        version, turn = moved["version"], moved["to_act"]
    return created["id"], tokens[0]


def rate(read, seconds):
    """Reads per second: `read` called in a loop for `seconds`."""
    count, stop = 0, time.monotonic() + seconds
    while time.monotonic() < stop:
        read()
        count += 1
    return count / seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with embedded_redis() as redis_url, gunicorn("bootstrap.wsgi:app", redis_url, args.workers) as base:
        match_id, token = finished_match(base)
        url, seat = f"{base}/v1/matches/{match_id}", {"Authorization": f"Bearer {token}"}
        session = requests.Session()
        tag = session.get(url, headers=seat).headers["ETag"]
        log = f"{url}/events?limit=1000"
        plain = session.get(log, headers={"Accept-Encoding": "identity"})
        zipped = session.get(log, headers={"Accept-Encoding": "gzip"}, stream=True)
        zipped_bytes = len(zipped.raw.read())
        pairs = {
            "keep-alive": (lambda: session.get(url, headers=seat).raise_for_status(),
                           lambda: requests.get(url, headers={**seat, "Connection": "close"}).raise_for_status()),
            "304": (lambda: session.get(url, headers={**seat, "If-None-Match": tag}),
                    lambda: session.get(url, headers=seat).raise_for_status()),
            "gzip": (lambda: session.get(log, headers={"Accept-Encoding": "gzip"}).raise_for_status(),
                     lambda: session.get(log, headers={"Accept-Encoding": "identity"}).raise_for_status()),
        }
        results = {name: ([], []) for name in pairs}
        for _ in range(args.rounds):
            for name, (measured, against) in pairs.items():
                results[name][0].append(rate(measured, args.seconds))
                results[name][1].append(rate(against, args.seconds))
    print(f"gunicorn workers={args.workers}, {args.rounds} rounds of {args.seconds}s, one client, "
          f"a finished 2-seat Mantis match ({plain.json()['version']} events)")
    labels = {"keep-alive": ("reused conn", "new conn"), "304": ("304 reads", "200 reads"),
              "gzip": ("gzip log", "plain log")}
    for name, (measured, against) in results.items():
        a, b = labels[name]
        print(f"{name:>10}: {a} {median(measured):.0f}/s, {b} {median(against):.0f}/s, "
              f"ratio {median(measured) / median(against):.2f}")
    print(f"{'bytes':>10}: whole log {len(plain.content)} plain, {zipped_bytes} gzipped, "
          f"ratio {zipped_bytes / len(plain.content):.3f}")


if __name__ == "__main__":
    main()
