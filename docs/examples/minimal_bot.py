"""A minimal cardroom bot: a random legal move on every turn its account owes, and every challenge accepted
(docs/bot-api.md, docs/challenges.md).

    python docs/examples/minimal_bot.py http://localhost:8000 crk_...
"""
import json
import random
import sys
import time

import requests


def play(base: str, key: str, matches: int | None = None) -> None:
    """Plays every turn the account owes until `matches` of its matches have finished (None: forever)."""
    auth = {"Authorization": f"Bearer {key}"}
    position, finished = None, 0  # position: where the feed resumes after a drop
    while matches is None or finished < matches:
        try:
            # with=view: each your_turn carries the seat's view and legal moves, so a turn costs one request
            with requests.get(f"{base}/v1/accounts/me/stream", params={"after": position, "with": "view"}, stream=True,
                              headers={**auth, "Accept": "application/x-ndjson"}, timeout=60) as feed:
                feed.raise_for_status()
                for line in feed.iter_lines(chunk_size=None):
                    if not line:
                        continue  # a keep-alive
                    frame = json.loads(line)
                    position = frame["position"]
                    if frame["type"] == "your_turn" and frame["legal_moves"]:  # [] when the server plays the seat
                        move(base, auth, frame)
                    elif frame["type"] == "challenge":  # 409 if it was answered or expired meanwhile: let it be
                        requests.post(f"{base}/v1/matches/{frame['match']}/accept", headers=auth, timeout=30)
                    elif frame["type"] == "match_finished":
                        finished += 1
                        if finished == matches:
                            return
        except requests.RequestException:
            time.sleep(1)  # dropped or refused: connect again, and the feed tells every turn still owed


def move(base: str, auth: dict, turn: dict) -> None:
    """A 409 (the turn is gone: played by a retry, or timed out) needs nothing: the feed tells the next turn."""
    requests.post(f"{base}/v1/matches/{turn['match']}/moves", timeout=30,
                  headers={**auth, "Idempotency-Key": f"turn-{turn['version']}"},  # a retry never plays twice
                  json={"move": random.choice(turn["legal_moves"]), "expected_version": turn["version"]})


if __name__ == "__main__":
    play(sys.argv[1], sys.argv[2])
