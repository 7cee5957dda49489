"""What encoding the answers costs: Flask's own JSON provider against orjson's (api/json_provider.py), side
by side in one run.

Two figures per provider, rounds alternating so that noise hits both alike, per second of this process's CPU:
- encode: a 3-seat Mantis match's document as GET /v1/matches/<id> answers it, encoded alone;
- moves: 3-seat Mantis moves posted through the whole Flask app (Flask's test client, the in-memory store: no
  HTTP, no Redis), so the share of encoding in a move shows.
Usage: python bench/json_answers.py [--rounds 3] [--seconds 1]
"""
import argparse
import time

from flask.json.provider import DefaultJSONProvider

from common import median
from api.app import create_app
from api.json_provider import OrjsonProvider
from eventstore.memory import InMemoryEventStore
from service.matches import MatchService
from service.ports import NoBots

THREE = {"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]}


def per_cpu_second(step, seconds: float) -> float:
    started, done = time.process_time(), 0
    while time.process_time() - started < seconds:
        step()
        done += 1
    return done / (time.process_time() - started)


def mover(client):
    """One move a call, on a 3-seat Mantis match (each seat scores); a new match when one ends."""
    match = {}

    def move():
        if not match.get("to_act"):
            created = client.post("/v1/matches", json=THREE).get_json()
            match.update(id=created["id"], tokens=[s["token"] for s in created["seats"]],
                         version=created["version"], to_act=created["to_act"])
        answer = client.post(f"/v1/matches/{match['id']}/moves",
                             headers={"Authorization": f"Bearer {match['tokens'][match['to_act'][0]]}"},
                             json={"move": {"action": "score"}, "expected_version": match["version"]}).get_json()
        match.update(version=answer["version"], to_act=answer["to_act"])
    return move


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1)
    args = parser.parse_args()
    app = create_app(MatchService(InMemoryEventStore(), NoBots()), lambda: True)
    providers = {"flask": DefaultJSONProvider(app), "orjson": OrjsonProvider(app)}
    client = app.test_client()
    created = client.post("/v1/matches", json=THREE).get_json()
    document = client.get(f"/v1/matches/{created['id']}").get_json()
    size = len(client.get(f"/v1/matches/{created['id']}").get_data())
    move = mover(client)
    encode, moves = {name: [] for name in providers}, {name: [] for name in providers}
    with app.app_context():
        for _ in range(args.rounds):
            for name, provider in providers.items():
                app.json = provider
                encode[name].append(per_cpu_second(lambda: provider.response(document), args.seconds))
                moves[name].append(per_cpu_second(move, args.seconds))
    print(f"JSON answers ({size} bytes a match document), {args.rounds} rounds of {args.seconds}s CPU, medians")
    print(f"{'provider':<8} {'encodes/s':>10} {'moves/s':>8} {'x flask':>8}")
    for name in providers:
        print(f"{name:<8} {median(encode[name]):>10.0f} {median(moves[name]):>8.0f} "
              f"{median(moves[name]) / median(moves['flask']):>8.2f}")


if __name__ == "__main__":
    main()
