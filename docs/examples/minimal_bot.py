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
            with requests.get(f"{base}/v1/accounts/me/stream", params={"after": position}, stream=True,
                              headers={**auth, "Accept": "application/x-ndjson"}, timeout=60) as feed:
                feed.raise_for_status()
                for line in feed.iter_lines(chunk_size=None):
                    if not line:
                        continue  # a keep-alive
                    frame = json.loads(line)
                    position = frame["position"]
                    if frame["type"] == "your_turn":
                        move(base, auth, frame["match"], frame["version"])
                    elif frame["type"] == "challenge":  # 409 if it was answered or expired meanwhile: let it be
                        requests.post(f"{base}/v1/matches/{frame['match']}/accept", headers=auth, timeout=30)
                    elif frame["type"] == "match_finished":
                        finished += 1
                        if finished == matches:
                            return
        except requests.RequestException:
            time.sleep(1)  # dropped or refused: connect again, and the feed tells every turn still owed


def move(base: str, auth: dict, match_id: str, version: int) -> None:
    legal = requests.get(f"{base}/v1/matches/{match_id}/legal-moves", headers=auth, timeout=30).json()
    if legal["version"] == version and legal["moves"]:  # else the turn is gone: the feed tells the next
        requests.post(f"{base}/v1/matches/{match_id}/moves", timeout=30,
                      headers={**auth, "Idempotency-Key": f"turn-{version}"},  # a retry never plays twice
                      json={"move": random.choice(legal["moves"]), "expected_version": version})


if __name__ == "__main__":
    play(sys.argv[1], sys.argv[2])
