"""What the strict JSON parser for request bodies (api/limits.py) costs next to plain json.loads, side by side.

Three bodies: a typical create (113 bytes), a body near MAX_BODY_BYTES with 14,000 values, and the same with
escaped non-BMP characters in every string (which makes the parser check each string for lone surrogates).
Runs alternate between the two parsers so noise hits both alike.
Aim: a typical body within 0.1 ms; the largest body within 50 ms.
Usage: python bench/json_bodies.py [--rounds 5]
"""
import argparse
import json
import timeit

from flask import Flask

from api.limits import loads
from common import median

BODIES = {
    "a create": {"game": "mantis", "seed": "s",
                      "seats": [{"name": "ann"}, {"bot": "ismcts", "bot_options": {"budget_ms": 500}}]},
    "14,000 values": {"game": "mantis", "seats": [],
                      "options": {f"k{i}": [i, "text", {"a": i}] for i in range(2000)}},
    "14,000 values, escaped": {"game": "mantis", "seats": [],
                               "options": {f"k{i}": [i, "text\U0001f600", {"a": i}] for i in range(2000)}},
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with Flask("bench").app_context():  # loads refuses with flask_smorest.abort, which needs an app
        for name, document in BODIES.items():
            body = json.dumps(document).encode()
            number = 2000 if len(body) < 1000 else 20
            strict, plain = [], []
            for _ in range(args.rounds):
                strict.append(timeit.timeit(lambda: loads(body), number=number) / number)
                plain.append(timeit.timeit(lambda: json.loads(body), number=number) / number)
            print(f"{name} ({len(body):,} bytes): strict {median(strict) * 1e3:.3f} ms, "
                  f"json.loads {median(plain) * 1e3:.3f} ms, ratio {median(strict) / median(plain):.1f}x")


if __name__ == "__main__":
    main()
