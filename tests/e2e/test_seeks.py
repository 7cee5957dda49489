"""Over HTTP against gunicorn and the workers on Redis: two `cardroom bot --seek` processes on two accounts are paired
by the workers, play their match to the end from their feeds, and seek again."""
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import requests

from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e


def account(server) -> str:
    created = requests.post(f"{server}/v1/accounts", json={"name": f"seeker-{uuid.uuid4().hex[:8]}", "kind": "bot"})
    assert created.status_code == 201, created.json()
    return created.json()["api_key"]


def seeking_bot(server, key, log: Path, *terms: str) -> subprocess.Popen:
    with log.open("a") as out:
        return subprocess.Popen([sys.executable, "-m", "cli", "bot", "--url", server, "--key", key,
                                 "--policy", "greedy", "--seek", "flipout", "--clock", '{"move_ms": 20000}', *terms],
                                stdout=out, stderr=subprocess.STDOUT)


def stop(processes) -> None:
    for process in processes:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)


def matches_of(server, key, status=None) -> list[dict]:
    query = f"?status={status}" if status else ""
    return requests.get(f"{server}/v1/accounts/me/matches{query}", headers={"Authorization": f"Bearer {key}"}).json()[
        "matches"]


def ratings_of(server, key) -> list[dict]:
    me = requests.get(f"{server}/v1/accounts/me", headers={"Authorization": f"Bearer {key}"}).json()
    return requests.get(f"{server}/v1/accounts/{me['id']}").json()["ratings"]


def test_two_seeking_bots_are_paired_play_their_rated_match_to_the_end_and_seek_again(server, tmp_path):
    ann, bob = account(server), account(server)
    bots = [seeking_bot(server, key, tmp_path / f"{name}.log", "--rated") for name, key in (("ann", ann), ("bob", bob))]
    try:
        [first] = wait_for(lambda: matches_of(server, ann, "finished"), "ann's first match to finish", 180)
        assert first["id"] in {m["id"] for m in matches_of(server, bob)}
        table = requests.get(f"{server}/v1/matches/{first['id']}").json()
        assert table["game"] == "flipout" and table["clock"]["move_ms"] == 20000 and table["result"]
        assert table["rated"] is True
        [rating] = wait_for(lambda: ratings_of(server, ann), "ann's rating on the FlipOut ladder", 60)
        assert rating["game"] == "flipout" and rating["games"] >= 1
        assert [seat["timeouts"] for seat in table["clock"]["seats"]] == [0, 0]  # both bots played every turn
        assert requests.get(f"{server}/v1/matches/{first['id']}/audit").json()["ok"]
        wait_for(lambda: len(matches_of(server, ann)) >= 2, "the bots to be paired again", 120)
    finally:
        stop(bots)
    logs = "".join((tmp_path / f"{name}.log").read_text() for name in ("ann", "bob"))
    assert "seek paired: match " + first["id"] in logs


def test_a_bot_seeking_alone_plays_the_house_bot_after_its_bot_after(server, tmp_path):
    key = account(server)
    bots = [seeking_bot(server, key, tmp_path / "alone.log", "--bot-after", "1", "--players", "3")]
    try:
        [first] = wait_for(lambda: matches_of(server, key, "finished"), "the match with house bots to finish", 180)
    finally:
        stop(bots)
    table = requests.get(f"{server}/v1/matches/{first['id']}").json()
    assert sorted(seat["bot"] or "account" for seat in table["seats"]) == ["account", "greedy", "greedy"]
    assert requests.get(f"{server}/v1/matches/{first['id']}/audit").json()["ok"]
