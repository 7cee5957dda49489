"""The invite link in headless Chromium against gunicorn and the workers: given a match with an open seat (a rematch
whose anonymous seat was opened, or a new match), when someone opens the link GET .../invite gives and takes the seat,
under a name or with an account key, then the API seats them and the page shows the table as their seat sees it."""
import pytest
import requests

from tests.support.viewer import Viewer, chromium, page_cards, shown_cards

pytestmark = pytest.mark.e2e


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


def bearer(credential: str) -> dict:
    return {"Authorization": f"Bearer {credential}"}


def take_the_seat(viewer, url: str, name: str = "", key: str = ""):
    """Opens the invite link, fills the offer and takes the seat; waits for the table as that seat sees it."""
    page = viewer.page
    page.goto(url)
    page.wait_for_selector("#join-form:not([hidden])", timeout=10_000)
    page.fill("#join-name", name)
    page.fill("#join-key", key)
    page.click("#join")
    page.wait_for_url(lambda url: "seat=you" in url, timeout=10_000)
    page.wait_for_selector("#table[data-version]", timeout=10_000)
    return page


def test_a_rematch_s_opened_seat_is_taken_with_an_account_key_through_the_invite_link(server, viewer):
    ann, dan = (requests.post(f"{server}/v1/accounts", json={"name": name, "kind": "human"}).json()["api_key"]
                for name in ("ann", "dan"))
    played = requests.post(f"{server}/v1/matches", headers=bearer(ann), json={
        "game": "mantis", "seats": [{"account": "ann"}, {"name": "cy"}]}).json()
    requests.post(f"{server}/v1/matches/{played['id']}/resign", headers=bearer(ann)).raise_for_status()
    asked = requests.post(f"{server}/v1/matches/{played['id']}/rematch", headers=bearer(ann))
    assert asked.status_code == 201
    rematch = asked.json()
    assert [(s["name"], s["open"]) for s in rematch["seats"]] == [(None, True), ("ann", False)]  # cy's seat, opened
    invite = requests.get(f"{server}/v1/matches/{rematch['id']}/invite").json()
    assert invite["open_seats"] == [0] and invite["url"] == f"{server}/matches/{rematch['id']}?join=1"
    page = take_the_seat(viewer, invite["url"], key=dan)
    seated = requests.get(f"{server}/v1/matches/{rematch['id']}", headers=bearer(dan)).json()
    assert seated["status"] == "active" and seated["you"] == 0 and seated["seats"][0]["name"] == "dan"
    assert page.eval_on_selector("#perspective", "select => select.value") == "you"
    assert page_cards(page) == shown_cards("mantis", seated["view"])
    assert page.eval_on_selector("#links", "links => links.textContent") == f"rematch of {played['id']}"


def test_an_open_seat_is_taken_under_a_name_and_the_link_then_says_none_is_left(server, viewer, browser):
    waiting = requests.post(f"{server}/v1/matches", json={
        "game": "mantis", "seats": [{"name": "ann"}, {"open": True}]}).json()
    invite = requests.get(f"{server}/v1/matches/{waiting['id']}/invite").json()
    page = take_the_seat(viewer, invite["url"], name="zoe")
    token = page.evaluate(f"localStorage.getItem('cardroom.token.{waiting['id']}')")
    seated = requests.get(f"{server}/v1/matches/{waiting['id']}", headers=bearer(token)).json()
    assert seated["you"] == 1 and seated["seats"][1]["name"] == "zoe" and seated["status"] == "active"
    assert page_cards(page) == shown_cards("mantis", seated["view"])
    assert requests.get(f"{server}/v1/matches/{waiting['id']}/invite").json()["reason"] == "no_open_seats"
    latecomer = Viewer(browser, server)  # another browser's page: it holds no seat of this match
    latecomer.page.goto(invite["url"])
    latecomer.page.wait_for_selector("#error:not([hidden])", timeout=10_000)
    assert latecomer.page.is_hidden("#join-form")
    assert "no_open_seats" in latecomer.page.text_content("#error")
    latecomer.page.close()
    assert latecomer.errors == []
