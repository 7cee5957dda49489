"""What no loss costs: moves per second over HTTP with the embedded Redis at `appendfsync everysec` (the
default; up to about a second of acknowledged moves can be lost when Redis dies) against `appendfsync always`
(none lost: tests/e2e/test_self_healing.py), side by side.

Rounds alternate (everysec, always, everysec, ...) so a noisy neighbour hits both alike; the ratio of the
medians is the result. Usage: python bench/durability.py [--seconds 4] [--rounds 3] [--clients 8] [--workers 2]
"""
import argparse
import tempfile
from pathlib import Path

from common import NO_RATE_LIMITS, gunicorn, measure, median, play_two_seat_matches
from bootstrap.embedded_redis import EmbeddedRedis


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    servers = {policy: EmbeddedRedis(Path(tempfile.mkdtemp(prefix=f"cardroom-{policy}-")), appendfsync=policy).start()
               for policy in ("everysec", "always")}
    rates = {policy: [] for policy in servers}
    try:
        serve = {policy: gunicorn("bootstrap.wsgi:app", servers[policy].url, args.workers, settings=NO_RATE_LIMITS)
                 for policy in servers}
        with serve["everysec"] as everysec, serve["always"] as always:
            for _ in range(args.rounds):
                for policy, base in (("everysec", everysec), ("always", always)):
                    rates[policy].append(measure(play_two_seat_matches, base, args.clients, args.seconds))
    finally:
        for server in servers.values():
            server.stop()
    everysec, always = median(rates["everysec"]), median(rates["always"])
    print(f"moves/s with appendfsync everysec: {everysec:.0f}, always: {always:.0f} "
          f"(always / everysec = {always / everysec:.2f}; {args.clients} clients, {args.workers} gunicorn workers)")


if __name__ == "__main__":
    main()
