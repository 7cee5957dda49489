"""Over HTTP against gunicorn on Redis: two `cardroom bot` processes on two accounts play a match of every
game against each other from their feeds; one is SIGKILLed mid-match and started again, and every match
still finishes with a log the verifier accepts. The bot of docs/examples/minimal_bot.py plays a match too, and
a bot author's account plays a duplicate tournament it entered against a house bot."""
import importlib.util
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import requests

from cli import main
from service.tournament_audit import verify_tournament
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e

GAMES = [("mantis", {}), ("mantis", {"edition": "compact"}), ("9stax", {}), ("blockers", {}), ("flipout", {})]
EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "minimal_bot.py"


def account(server) -> tuple[str, str]:
    created = requests.post(f"{server}/v1/accounts", json={"name": f"bot-{uuid.uuid4().hex[:8]}", "kind": "bot"})
    assert created.status_code == 201, created.json()
    return created.json()["name"], created.json()["api_key"]


def start_bot(server, key, policy, log: Path) -> subprocess.Popen:
    with log.open("a") as out:
        return subprocess.Popen([sys.executable, "-m", "cli", "bot", "--url", server, "--key", key, "--policy", policy],
                                stdout=out, stderr=subprocess.STDOUT)


def tables(server, match_ids) -> list[dict]:
    return [requests.get(f"{server}/v1/matches/{match_id}").json() for match_id in match_ids]


def all_finished(found: list[dict]) -> list[dict]:
    return found if all(table["status"] == "finished" for table in found) else []


def test_two_bot_processes_play_every_game_and_one_killed_mid_match_loses_no_turn(server, tmp_path):
    (ann, ann_key), (bob, bob_key) = account(server), account(server)
    logs = {name: tmp_path / f"{name}.log" for name in (ann, bob)}
    bots = {ann: start_bot(server, ann_key, "greedy", logs[ann]), bob: start_bot(server, bob_key, "random", logs[bob])}
    try:
        match_ids = []
        for game, options in GAMES:
            # ann's key seats her and invites bob, whose bot accepts (cardroom bot's default)
            created = requests.post(f"{server}/v1/matches", headers={"Authorization": f"Bearer {ann_key}"},
                                    json={"game": game, "options": options, "seats": [{"account": ann}, {"account": bob}]})
            assert created.status_code == 201, created.json()
            match_ids.append(created.json()["id"])
        wait_for(lambda: sum(t["version"] for t in tables(server, match_ids)) > 100, "the bots to play", 60)
        bots[ann].send_signal(signal.SIGKILL)
        bots[ann].wait()
        # while ann is dead, her turns are owed and nobody plays them
        owed = wait_for(lambda: [t for t in tables(server, match_ids) if t["status"] == "active" and t["to_act"] == [0]],
                        "a turn owed to the killed bot", 30)
        time.sleep(1)
        assert [t["version"] for t in tables(server, [t["id"] for t in owed])] == [t["version"] for t in owed]
        bots[ann] = start_bot(server, ann_key, "greedy", logs[ann])
        finished = wait_for(lambda: all_finished(tables(server, match_ids)), "every match to finish", 300)
    finally:
        for process in bots.values():
            process.send_signal(signal.SIGINT)
            process.wait(timeout=10)
    for table in finished:
        audit = requests.get(f"{server}/v1/matches/{table['id']}/audit").json()
        assert audit["ok"], audit
        assert table["result"], table
    print("moves per game:", {f"{t['game']} {t['options']}": t["version"] for t in finished})


def test_the_minimal_example_bot_plays_a_match_to_its_end(server):
    spec = importlib.util.spec_from_file_location("minimal_bot", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    (name, key), (_, host) = account(server), account(server)
    player = threading.Thread(target=example.play, args=(server, key, 1), daemon=True)
    player.start()
    created = requests.post(f"{server}/v1/matches", headers={"Authorization": f"Bearer {host}"},  # the bot accepts
                            json={"game": "flipout", "seats": [{"account": name}, {"bot": "greedy"}]}).json()
    assert created["status"] == "waiting" and created["seats"][0]["invited"]
    player.join(timeout=120)
    assert not player.is_alive(), "the example bot did not see its match finish"
    table = requests.get(f"{server}/v1/matches/{created['id']}").json()
    assert table["status"] == "finished" and requests.get(f"{server}/v1/matches/{created['id']}/audit").json()["ok"]


def test_a_bot_authors_own_account_plays_every_rotation_of_a_duplicate_it_entered(server, tmp_path, capsys):
    name, key = account(server)
    player = start_bot(server, key, "greedy", tmp_path / "bot.log")
    try:  # the README's two commands: cardroom tournament with the author's key, cardroom bot playing its seats
        assert main(["tournament", "--url", server, "--key", key, "--accounts", name, "--bots", "random",
                     "--game", "mantis", "--format", "duplicate", "--deals", "2", "--max-parallel", "2",
                     "--poll", "0.2"]) == 0
    finally:
        player.send_signal(signal.SIGINT)
        player.wait(timeout=10)
    tournament_id = re.search(r"tournament (\w+):", capsys.readouterr().out).group(1)
    standings = requests.get(f"{server}/v1/tournaments/{tournament_id}/standings").json()
    assert [row["matches"] for row in standings["entrants"]] == [4, 4]
    export = requests.get(f"{server}/v1/tournaments/{tournament_id}/export").json()
    assert verify_tournament(export).ok, verify_tournament(export).summary()
    account_id = export["events"][0]["data"]["entrants"][0]["account"]
    assert {m["events"][0]["data"]["owner"] for m in export["matches"]} == {account_id}  # the seeds were its own
