"""The tournament pages in headless Chromium against gunicorn and the workers: the listing links the
tournament, its page shows the standings the API gives, the ratings chart, and every table links its match."""
import time

import pytest
import requests

from tests.support.viewer import Viewer, chromium

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def finished_tournament(server):
    created = requests.post(f"{server}/v1/tournaments", json={
        "game": "mantis", "format": "duplicate", "deals": 2, "table_size": 2,
        "entrants": [{"bot": "random", "name": "rand"}, {"bot": "greedy", "name": "greed"}]}).json()
    deadline = time.monotonic() + 90
    while requests.get(f"{server}/v1/tournaments/{created['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.2)
    return created["id"]


def test_the_tournament_pages_show_standings_chart_and_matches(server, finished_tournament):
    standings = requests.get(f"{server}/v1/tournaments/{finished_tournament}/standings").json()
    document = requests.get(f"{server}/v1/tournaments/{finished_tournament}").json()
    with chromium() as browser:
        viewer = Viewer(browser, server)
        page = viewer.page
        page.goto(f"{server}/tournaments")
        page.wait_for_selector(f"[data-tournament='{finished_tournament}'] a")
        page.click(f"[data-tournament='{finished_tournament}'] a")
        page.wait_for_selector("body[data-status='finished']", timeout=10_000)
        names = page.eval_on_selector_all("#standings tbody tr td:nth-child(2)", "cells => cells.map(c => c.textContent)")
        assert names == [row["name"] for row in standings["entrants"]]
        page.wait_for_function("document.getElementById('chart').complete && "
                               "document.getElementById('chart').naturalWidth > 0", timeout=10_000)
        links = page.eval_on_selector_all("#rounds a", "links => links.map(a => a.getAttribute('href'))")
        assert links == [f"/matches/{t['match']}" for t in document["pairings"][0]["tables"]]
        page.close()
        assert viewer.errors == [], "the page logged errors"
