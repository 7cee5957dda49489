"""Takes docs/screenshots/<game>.png: each game's table (both Mantis editions) as the viewer draws it, from a
match two bots play on a throwaway service; and the leaderboard and an account's page after a few rated matches.
Run it by hand after changing the viewer: `make screenshots`."""
import sys
import tempfile
import time
from pathlib import Path

import requests

from tests.e2e.conftest import running_service
from tests.e2e.test_ladder_viewer import CLOCK, play_to_the_end
from tests.support.viewer import Viewer, chromium
from tests.support.waiting import wait_for

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# (file, game, options, seen by: "full" = the full table, "" = a spectator). Each is shown a third of the
# way into its match: a table in the middle of play has the most on it.
TABLES = [("mantis-classic", "mantis", {"edition": "classic"}, "full"),
          ("mantis-compact", "mantis", {"edition": "compact"}, "full"),
          ("9stax", "9stax", {}, "full"), ("9stax-spectator", "9stax", {}, ""),
          ("blockers", "blockers", {}, "full"), ("flipout", "flipout", {}, "full"), ("flipout-spectator", "flipout", {}, "")]


def finished_match(base: str, game: str, options: dict) -> str:
    match_id = requests.post(f"{base}/v1/matches", json={
        "game": game, "options": options, "seats": [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}]}).json()["id"]
    deadline = time.monotonic() + 60
    while requests.get(f"{base}/v1/matches/{match_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, f"the bots did not finish {game}"
        time.sleep(0.2)
    return match_id


def main() -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    # without REDIS_URL the service starts its own embedded Redis in the temporary DATA_DIR, as `make run` does
    with tempfile.TemporaryDirectory() as data_dir, running_service(Path(data_dir)) as base, chromium() as browser:
        viewer = Viewer(browser, base)
        for name, game, options, seen_by in TABLES:
            match_id = finished_match(base, game, options)
            replay = requests.get(f"{base}/v1/matches/{match_id}/moves").json()
            version = replay["moves"][len(replay["moves"]) // 3]["version"]
            viewer.open(f"/matches/{match_id}?version={version}&seat={seen_by}", version)
            viewer.page.wait_for_selector("#verdict")
            viewer.page.screenshot(path=SHOTS / f"{name}.png", full_page=True)
            print(f"{SHOTS / name}.png: {game} {options} at version {version}, seen by {seen_by or 'a spectator'}")
        viewer.page.goto(f"{base}/")
        viewer.page.wait_for_selector("#matches tbody tr")
        viewer.page.screenshot(path=SHOTS / "listing.png")
        ladder_pages(base, viewer)
        if viewer.errors:
            sys.exit(f"the pages logged errors: {viewer.errors}")


def ladder_pages(base: str, viewer: Viewer) -> None:
    """docs/screenshots/leaderboard.png and account.png: an account's rated matches against the house bots, and
    the bots' own against each other."""
    account = requests.post(f"{base}/v1/accounts", json={"name": "ann", "kind": "human"}).json()
    for bot in ("greedy", "random", "greedy", "random", "greedy", "random"):
        match = requests.post(f"{base}/v1/matches", headers={"Authorization": f"Bearer {account['api_key']}"}, json={
            "game": "mantis", "seats": [{"account": "ann"}, {"bot": bot}], "clock": CLOCK, "rated": True}).json()
        play_to_the_end(base, account["api_key"], match["id"])
    for seats in ([{"bot": "random"}, {"bot": "greedy"}], [{"bot": "ismcts", "bot_options": {"level": 1}}, {"bot": "random"}]):
        finished = requests.post(f"{base}/v1/matches", json={"game": "mantis", "seats": seats, "clock": CLOCK,
                                                               "rated": True}).json()["id"]
        wait_for(lambda: requests.get(f"{base}/v1/matches/{finished}").json()["status"] == "finished", "the bots")
    viewer.page.goto(f"{base}/ratings/mantis?provisional=true")  # six matches: everyone is still provisional
    viewer.page.wait_for_selector("[data-player='bot:ismcts:1']")
    viewer.page.screenshot(path=SHOTS / "leaderboard.png")
    viewer.page.goto(f"{base}/accounts/ann")
    viewer.page.wait_for_function("[...document.querySelectorAll('#charts img')].some(i => i.naturalWidth > 0)")
    viewer.page.screenshot(path=SHOTS / "account.png", full_page=True)


if __name__ == "__main__":
    main()
