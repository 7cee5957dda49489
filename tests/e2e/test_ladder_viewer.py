"""Rated play end to end, in headless Chromium against gunicorn and the workers: rated matches finish (the account's
moves over HTTP, the bots' in the workers), the leaderboard page shows the table the API gives and links the
account, and the account's page shows its rating, its history chart and its match linked to its replay."""
import uuid

import pytest
import requests

from tests.support.viewer import Viewer, chromium
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e
CLOCK = {"move_ms": 60_000}


def play_to_the_end(server, key, match_id):
    """The account's seat scores on each of its turns until the match is over (the bot plays in the workers)."""
    auth = {"Authorization": f"Bearer {key}"}

    def finished():
        match = requests.get(f"{server}/v1/matches/{match_id}", headers=auth).json()
        if match["you"] in match["to_act"]:
            requests.post(f"{server}/v1/matches/{match_id}/moves", headers=auth,
                          json={"move": {"action": "score"}, "expected_version": match["version"]})
        return match["status"] == "finished"

    wait_for(finished, f"match {match_id} to finish")


@pytest.fixture(scope="module")
def rated(server):
    name = f"ann-{uuid.uuid4().hex[:8]}"
    account = requests.post(f"{server}/v1/accounts", json={"name": name, "kind": "human"}).json()
    auth = {"Authorization": f"Bearer {account['api_key']}"}
    created = requests.post(f"{server}/v1/matches", headers=auth, json={
        "game": "mantis", "seats": [{"account": name}, {"bot": "greedy"}], "clock": CLOCK, "rated": True})
    assert created.status_code == 201, created.json()
    bots = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"bot": "random"}, {"bot": "greedy"}], "clock": CLOCK, "rated": True}).json()
    play_to_the_end(server, account["api_key"], created.json()["id"])
    wait_for(lambda: requests.get(f"{server}/v1/matches/{bots['id']}").json()["status"] == "finished",
             "the bots' rated match to finish")
    wait_for(lambda: requests.get(f"{server}/v1/accounts/{account['id']}").json()["ratings"],
             "the account's rating")
    return account, created.json()["id"]


def test_the_leaderboard_and_the_account_pages_show_the_ratings_and_link_the_replays(server, rated):
    account, match_id = rated
    with chromium() as browser:
        viewer = Viewer(browser, server)
        page = viewer.page
        page.goto(f"{server}/ratings/mantis")  # the ranked players: nobody has ten rated matches here
        page.wait_for_selector("#other[href*='provisional=true']", timeout=10_000)
        page.click("#other")  # the players listed apart
        page.wait_for_selector(f"[data-player='{account['id']}'] a", timeout=10_000)
        board = requests.get(f"{server}/v1/ratings/mantis?provisional=true").json()
        players = page.eval_on_selector_all("#leaderboard tbody tr", "rows => rows.map(r => r.dataset.player)")
        assert players == [entry["player"] for entry in board["entries"]]
        assert {"bot:greedy", "bot:random", account["id"]} <= set(players)
        assert page.is_hidden("#error")
        page.click(f"[data-player='{account['id']}'] a")
        page.wait_for_selector("#ratings tbody tr[data-ladder='mantis.classic.2p']", timeout=10_000)
        assert page.text_content("#name") == account["name"] and page.is_hidden("#error")
        page.wait_for_function("[...document.querySelectorAll('#charts img')].every(i => i.complete && "
                               "i.naturalWidth > 0)", timeout=10_000)
        links = page.eval_on_selector_all("#recent a", "links => links.map(a => a.getAttribute('href'))")
        assert links == [f"/matches/{match_id}"]
        page.click("#recent a")
        page.wait_for_selector("#table[data-version]", timeout=10_000)  # the replay opens
        page.close()
        assert viewer.errors == [], "the pages logged errors"
