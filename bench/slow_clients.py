"""Slow clients against the whole service (`python -m bootstrap.run`, 2 web workers, default settings): one
address holds stalled request bodies and stalled header sends while another (127.0.0.2) asks /health and
creates a match and moves; prints how long each answer took. `--checkout DIR` runs another checkout's code
(e.g. the main branch's, to compare), with this one's client.
Usage: python bench/slow_clients.py [--bodies 5000] [--headers 5000] [--rounds 5] [--checkout DIR]"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.e2e import test_slow_clients as attack  # noqa: E402
from tests.e2e.conftest import running_service  # noqa: E402


def timed(what, *args) -> str:
    started = time.monotonic()
    try:
        what(*args)
        return f"{time.monotonic() - started:.2f} s"
    except Exception as error:  # noqa: BLE001 - a timeout or a refusal is the figure
        return f"failed after {time.monotonic() - started:.1f} s ({type(error).__name__})"


def health(address):
    assert attack.ask(address, "GET", "/health")[0] == 200


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bodies", type=int, default=5000)
    parser.add_argument("--headers", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parents[1])
    options = parser.parse_args()
    attack.STALLED_BODIES, attack.STALLED_HEADERS = options.bodies, options.headers
    attack.GENEROUS_SECONDS = 30
    os.chdir(options.checkout)  # bootstrap.run runs the code of the directory it starts in
    with running_service(Path(tempfile.mkdtemp(prefix="cardroom-slow-")), PYTHONPATH=str(options.checkout)) as base:
        host, port = base.removeprefix("http://").split(":")
        address = (host, int(port))
        print(f"{options.checkout}: /health {timed(health, address)} and create+move "
              f"{timed(attack.assert_answers_soon, address)} before the attack")
        started = time.monotonic()
        with attack.stalled_connections(address) as (bodies, headers):
            print(f"held {len(bodies)} stalled bodies and {len(headers)} stalled header sends "
                  f"(opened in {time.monotonic() - started:.1f} s)")
            for round_ in range(options.rounds):
                print(f"  round {round_ + 1}: /health {timed(health, address)}, "
                      f"create+move {timed(attack.assert_answers_soon, address)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
