"""Over HTTP against gunicorn's workers on Redis: given one account, when its seeks and then its creates arrive all at
once, then exactly MAX_OPEN_SEEKS seeks open and its creates fill exactly what MAX_OPEN_MATCHES leaves beside them."""
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

pytestmark = pytest.mark.e2e
MAX_OPEN_MATCHES, MAX_OPEN_SEEKS = 100, 5  # the defaults the server runs with
GAMES = ("mantis", "flipout", "blockers", "9stax")
# terms no other test's seeks ask for: these seeks stay open, never paired, while the creates race them
TERMS = {"players": 2, "clock": {"move_ms": 43_210}}


def outcome(answer: requests.Response) -> str:
    return "created" if answer.status_code == 201 else f"{answer.status_code} {answer.json()['reason']}"


def raced(requests_, send) -> Counter:
    with ThreadPoolExecutor(max_workers=16) as racers:
        return Counter(racers.map(lambda request: outcome(send(request)), requests_))


def test_seeks_then_creates_raced_over_http_take_exactly_the_room(server):
    created = requests.post(f"{server}/v1/accounts", json={"name": f"racer-{uuid.uuid4().hex[:8]}", "kind": "bot"})
    auth = {"Authorization": f"Bearer {created.json()['api_key']}"}
    seeks = raced([game for game in GAMES for _ in range(4)], lambda game: requests.post(
        f"{server}/v1/seeks", json={"game": game, **TERMS}, headers=auth, timeout=30))
    assert seeks == {"created": MAX_OPEN_SEEKS, "409 too_many_seeks": 16 - MAX_OPEN_SEEKS}
    room = MAX_OPEN_MATCHES - MAX_OPEN_SEEKS
    solo = {"game": "mantis", "seats": [{"account": created.json()["id"]}, {"bot": "random"}]}
    creates = raced(range(room + 10), lambda _: requests.post(f"{server}/v1/matches", json=solo, headers=auth,
                                                                timeout=30))
    assert creates == {"created": room, "409 too_many_open_matches": 10}
    mine = requests.get(f"{server}/v1/accounts/me/seeks", headers=auth, timeout=30).json()["seeks"]
    assert len(mine) == MAX_OPEN_SEEKS
