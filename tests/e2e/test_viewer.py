"""The viewer in a real browser (headless Chromium) against gunicorn and the workers: every game's table
shows what the API says, stepping and deep links work, a spectator's page never holds a hidden card, a
live match is followed, the audit is shown, and no page logs a console error."""
import random
import time

import pytest
import requests

from tests.support.viewer import Viewer, chromium, count_faces, page_cards, shown_cards, shown_faces

pytestmark = pytest.mark.e2e

GAMES = {"mantis classic": ("mantis", {"edition": "classic"}), "mantis compact": ("mantis", {"edition": "compact"}),
         "9stax": ("9stax", {}), "blockers": ("blockers", {}), "flipout": ("flipout", {})}


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.fixture
def viewer(browser, server):
    viewer = Viewer(browser, server)
    yield viewer
    viewer.page.close()
    assert viewer.errors == [], "the page logged errors"


@pytest.fixture(scope="module")
def finished(server):
    """One finished match of two bots per game (and Mantis edition), by name; the bots play it in the workers."""
    ids = {name: requests.post(f"{server}/v1/matches", json={
        "game": game, "options": options, "seats": [{"bot": "random"}, {"bot": "greedy"}]}).json()["id"]
        for name, (game, options) in GAMES.items()}
    deadline = time.monotonic() + 45
    for match_id in ids.values():
        while requests.get(f"{server}/v1/matches/{match_id}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots did not finish their matches"
            time.sleep(0.1)
    return ids


def steps(server, match_id):
    replay = requests.get(f"{server}/v1/matches/{match_id}/moves").json()
    return [replay["start"]] + [step["version"] for step in replay["moves"]]


def state(server, match_id, version, **query):
    return requests.get(f"{server}/v1/matches/{match_id}/state", params={"version": version, **query}).json()


@pytest.mark.parametrize("name", GAMES)
def test_each_games_table_shows_the_cards_the_api_shows_at_several_versions_and_no_hidden_one(
        name, finished, server, viewer):
    match_id, game = finished[name], GAMES[name][0]
    versions = steps(server, match_id)
    for version in sorted({versions[0], versions[1], versions[len(versions) // 3], versions[len(versions) // 2],
                           versions[-2]}):
        viewer.open(f"/matches/{match_id}?version={version}", version)
        spectator = shown_cards(game, state(server, match_id, version)["view"])
        assert page_cards(viewer.page) == spectator, f"spectator at version {version}"
        assert count_faces(state(server, match_id, version, full="true")["full_state"]) > shown_faces(spectator), \
            "some cards are hidden from a spectator here, so the scan can find a leak"
        viewer.open(f"/matches/{match_id}?version={version}&seat=1", version)
        assert page_cards(viewer.page) == shown_cards(game, state(server, match_id, version, seat=1)["view"])
    # at the version last seen by the spectator (the final table can hold fewer cards than any before it)
    viewer.open(f"/matches/{match_id}?version={versions[-2]}&seat=full", versions[-2])
    assert shown_faces(page_cards(viewer.page)) > shown_faces(spectator), "the full table shows what was hidden"


def test_forward_back_the_scrubber_the_keys_and_play_step_through_the_moves(finished, server, viewer):
    match_id = finished["mantis classic"]
    versions = steps(server, match_id)
    page = viewer.open(f"/matches/{match_id}?version={versions[0]}", versions[0])
    page.click("#forward")
    viewer.wait_for_version(versions[1])
    page.click("#forward")
    viewer.wait_for_version(versions[2])
    page.click("#back")
    viewer.wait_for_version(versions[1])
    assert f"version={versions[1]}" in page.url, "the address is a deep link to the step shown"
    page.fill("#scrubber", str(len(versions) - 1))
    viewer.wait_for_version(versions[-1])
    page.keyboard.press("ArrowLeft")
    viewer.wait_for_version(versions[-2])
    page.click("#moves li:nth-child(4) a")
    viewer.wait_for_version(versions[3])
    page.select_option("#speed", "100")
    page.click("#play")
    page.wait_for_function(f"Number(document.querySelector('#table').dataset.version) >= {versions[6]}")
    page.click("#play")
    assert page.inner_text("#play") == "play"


def test_a_spectator_follows_a_live_match_and_never_sees_a_card_hidden_from_it(server, viewer):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "options": {"edition": "compact"}, "seats": [{"name": "ann"}, {"name": "bob"}]}).json()
    match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    viewer.open(f"/matches/{match_id}", created["version"])
    # the page follows the stream once its table and audit are shown: wait for it, not for a moment
    viewer.page.wait_for_selector("#live", state="visible", timeout=10_000)
    seen, pick, current = {}, random.Random(16), created
    while current["status"] == "active":
        seat = current["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = requests.get(f"{server}/v1/matches/{match_id}/legal-moves", headers=auth).json()
        current = requests.post(f"{server}/v1/matches/{match_id}/moves", headers=auth, json={
            "move": pick.choice(legal["moves"]), "expected_version": legal["version"]}).json()
        viewer.wait_for_version(current["version"])
        seen[current["version"]] = page_cards(viewer.page)
    viewer.page.wait_for_selector("#live", state="hidden", timeout=10_000)
    assert len(seen) > 10
    for version, cards in seen.items():  # after the end every view and the full state are public
        assert cards == shown_cards("mantis", state(server, match_id, version)["view"]), f"version {version}"
        assert count_faces(state(server, match_id, version, full="true")["full_state"]) > shown_faces(cards)


def test_a_token_entered_once_shows_that_seats_view_and_stays_out_of_the_address(server, viewer):
    created = requests.post(f"{server}/v1/matches", json={
        "game": "flipout", "seats": [{"name": "ann"}, {"name": "bob"}]}).json()
    match_id, token = created["id"], created["seats"][0]["token"]
    page = viewer.open(f"/matches/{match_id}", created["version"])
    page.fill("#token", token)
    page.click("#token-form button")
    viewer.wait_for_version(created["version"])
    page.wait_for_selector("#table [data-card^='inner-']")
    mine = requests.get(f"{server}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}).json()
    assert page_cards(page) == shown_cards("flipout", mine["view"])
    assert token not in page.url and page.evaluate(f"localStorage.getItem('cardroom.token.{match_id}')") == token
    page.reload()
    viewer.wait_for_version(created["version"])
    assert page_cards(page) == shown_cards("flipout", mine["view"]), "the token is remembered"


def test_the_audit_shows_the_commitment_the_revealed_seed_the_verdict_and_the_export(finished, server, viewer):
    match_id = finished["blockers"]
    match = requests.get(f"{server}/v1/matches/{match_id}").json()
    last = requests.get(f"{server}/v1/matches/{match_id}/events",
                        params={"after": match["version"] - 1}).json()["events"][0]
    page = viewer.open(f"/matches/{match_id}")
    page.wait_for_selector("#verdict")
    assert page.inner_text("#commitment") == match["commitment"]
    assert page.inner_text("#seed") == last["data"]["seed"]
    assert "passed" in page.inner_text("#verdict")
    export = requests.get(server + page.get_attribute("#export", "href")).json()
    assert export["match_id"] == match_id and export["complete"]


def test_the_listing_pages_through_the_matches(finished, server, viewer):
    page = viewer.page
    page.goto(f"{server}/?limit=2")
    page.wait_for_selector("#matches tbody tr")
    first = page.eval_on_selector_all("#matches tbody tr", "rows => rows.map(r => r.dataset.match)")
    page.click("#next")
    page.wait_for_url("**cursor=**")
    page.wait_for_selector("#matches tbody tr")
    second = page.eval_on_selector_all("#matches tbody tr", "rows => rows.map(r => r.dataset.match)")
    assert len(first) == len(second) == 2 and not set(first) & set(second)


def test_the_listing_filters_by_game_and_status_and_links_each_match(finished, server, viewer):
    page = viewer.page
    page.goto(f"{server}/?game=blockers&status=finished")
    page.wait_for_selector(f"tr[data-match='{finished['blockers']}']")
    games = page.eval_on_selector_all("#matches tbody tr td:nth-child(2)", "cells => cells.map(c => c.textContent)")
    assert set(games) == {"blockers"}
    page.select_option("#filters select[name=status]", "")
    page.wait_for_url(f"{server}/?game=blockers")
    page.wait_for_selector(f"tr[data-match='{finished['blockers']}']")
    page.click(f"tr[data-match='{finished['blockers']}'] a")
    viewer.wait_for_version(None)
    assert page.url.startswith(f"{server}/matches/{finished['blockers']}")
