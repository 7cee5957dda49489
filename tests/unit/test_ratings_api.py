"""Rated play over HTTP (the Flask test client on the in-memory service): rated: true on a new match, the
leaderboard of a game, and an account's public page with its ratings."""
import json

import pytest

import cli.admin
from cli import main
from cli.bot import HttpError
from tests.support.http import assert_error, bearer, make_client
from tests.support.service import InlineBots

CLOCK = {"move_ms": 60_000}


@pytest.fixture
def client():
    return make_client(InlineBots())


def register(client, name):
    return client.post("/v1/accounts", json={"name": name, "kind": "human"}).get_json()


def play_rated(client, account, seats):
    """A rated Mantis match created by `account`, its seat always scoring, played to its end."""
    created = client.post("/v1/matches", headers=bearer(account["api_key"]),
                          json={"game": "mantis", "seats": seats, "clock": CLOCK, "rated": True})
    assert created.status_code == 201, created.get_json()
    match = client.get(f"/v1/matches/{created.get_json()['id']}").get_json()  # the bots' turns played since
    while match["status"] != "finished":
        moved = client.post(f"/v1/matches/{match['id']}/moves", headers=bearer(account["api_key"]),
                            json={"move": {"action": "score"}, "expected_version": match["version"]})
        assert moved.status_code == 201, moved.get_json()
        match = client.get(f"/v1/matches/{match['id']}").get_json()
    return match


def test_a_rated_match_shows_rated_and_moves_the_leaderboard(client):
    ann = register(client, "ann")
    match = play_rated(client, ann, [{"account": ann["id"]}, {"bot": "greedy"}])
    assert match["rated"] is True
    # both are newcomers: listed apart, as provisional, and nobody is ranked yet
    assert client.get("/v1/ratings/mantis").get_json()["entries"] == []
    board = client.get("/v1/ratings/mantis?provisional=true").get_json()
    assert board["ladder"] == "mantis.classic.2p" and board["total"] == 2 and board["next_offset"] is None
    assert board["provisional"] is True and board["totals"] == {"established": 0, "provisional": 2}
    assert {entry["player"] for entry in board["entries"]} == {ann["id"], "bot:greedy"}
    assert all(entry["provisional"] for entry in board["entries"])
    first, second = board["entries"]
    assert (first["rank"], second["rank"]) == (1, 2) and first["ordinal"] >= second["ordinal"]
    assert first["low"] < first["mu"] < first["high"] and first["games"] == 1


def test_an_unrated_match_says_so_and_moves_no_leaderboard(client):
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"bot": "greedy"}, {"bot": "random"}]})
    assert created.get_json()["rated"] is False
    assert client.get("/v1/ratings/mantis").get_json()["entries"] == []


@pytest.mark.parametrize("seats, extra, reason", [
    ([{"open": True}, {"bot": "greedy"}], {"clock": CLOCK}, "rated_open_seat"),
    ([{"name": "guest"}, {"bot": "greedy"}], {"clock": CLOCK}, "rated_anonymous_seat"),
    ([{"bot": "random"}, {"bot": "greedy"}], {}, "rated_without_clock"),
    ([{"bot": "random"}, {"bot": "greedy"}], {"clock": CLOCK, "seed": "s" * 16}, "rated_with_seed"),
])
def test_a_rated_match_that_cannot_be_rated_is_refused_with_its_reason(client, seats, extra, reason):
    assert_error(client.post("/v1/matches", json={"game": "mantis", "seats": seats, "rated": True, **extra}), 422,
                 reason)


def test_a_leaderboard_is_paged_by_offset(client):
    ann = register(client, "ann")
    play_rated(client, ann, [{"account": ann["id"]}, {"bot": "greedy"}])
    first = client.get("/v1/ratings/mantis?provisional=true&limit=1").get_json()
    assert len(first["entries"]) == 1 and first["next_offset"] == 1
    second = client.get(f"/v1/ratings/mantis?provisional=true&limit=1&offset={first['next_offset']}").get_json()
    assert second["entries"][0]["rank"] == 2 and second["next_offset"] is None
    assert second["entries"][0]["player"] != first["entries"][0]["player"]


def test_an_edition_and_a_player_count_name_another_ladder(client):
    board = client.get("/v1/ratings/mantis?edition=compact&players=3").get_json()
    assert board["ladder"] == "mantis.compact.3p" and board["entries"] == []


def test_an_unknown_game_is_404_and_bad_paging_or_options_are_refused(client):
    assert_error(client.get("/v1/ratings/chess"), 404, "game_not_found")
    assert_error(client.get("/v1/ratings/mantis?limit=0"), 422, "invalid_request")
    assert_error(client.get("/v1/ratings/mantis?offset=-1"), 422, "invalid_request")
    assert_error(client.get("/v1/ratings/mantis?edition=huge"), 422)
    assert_error(client.get("/v1/ratings/blockers?players=7"), 422)
    assert_error(client.get("/v1/ratings/mantis?provisional=perhaps"), 422, "invalid_request")


def test_an_accounts_page_shows_its_ratings_with_their_history_and_its_recent_matches(client):
    ann = register(client, "ann")
    played = [play_rated(client, ann, [{"account": ann["id"]}, {"bot": bot}])["id"] for bot in ("greedy", "random")]
    page = client.get(f"/v1/accounts/{ann['id']}").get_json()
    assert page["name"] == "ann" and "api_key" not in page
    (rating,) = page["ratings"]
    assert rating["ladder"] == "mantis.classic.2p" and rating["games"] == 2
    assert [point["match"] for point in rating["history"]] == played
    assert [m["id"] for m in page["recent_matches"]] == played[::-1]
    assert client.get("/v1/accounts/ann").get_json()["id"] == ann["id"]  # by name too


def test_an_unknown_account_is_404(client):
    assert_error(client.get("/v1/accounts/nobody-here"), 404, "account_not_found")


ADMIN = "operator-secret"
WHY = {"reason": "the board was restored from an old backup", "by": "ops-ann"}


def test_the_operator_rebuilds_the_ratings_from_the_logs_and_gets_the_live_table_back():
    client = make_client(InlineBots(), admin_key=ADMIN)
    ann, bob = register(client, "ann"), register(client, "bob")
    play_rated(client, ann, [{"account": ann["id"]}, {"bot": "greedy"}])
    play_rated(client, bob, [{"bot": "random"}, {"account": bob["id"]}])
    live = client.get("/v1/ratings/mantis").get_json()
    rebuilt = client.post("/v1/admin/ratings/rebuild", json=WHY, headers=bearer(ADMIN))
    assert rebuilt.status_code == 200 and rebuilt.get_json() == {"ladders": 1, "matches": 2, "differences": []}
    assert client.get("/v1/ratings/mantis").get_json() == live
    assert_error(client.post("/v1/admin/ratings/rebuild", json=WHY, headers=bearer("guess")), 403, "not_admin")


def test_a_players_rating_history_is_drawn_with_a_point_per_rated_match(client):
    ann = register(client, "ann")
    played = [play_rated(client, ann, [{"account": ann["id"]}, {"bot": "greedy"}])["id"] for _ in range(3)]
    chart = client.get(f"/v1/ratings/mantis.classic.2p/players/{ann['id']}/chart.svg")
    assert chart.mimetype == "image/svg+xml" and chart.data.startswith(b"<svg")
    assert b"ann on mantis.classic.2p" in chart.data
    assert [f'data-match="{match_id}"'.encode() in chart.data for match_id in played] == [True] * 3
    assert_error(client.get("/v1/ratings/mantis.classic.2p/players/bot:nobody/chart.svg"), 404, "rating_not_found")


class ServerByTestClient:
    """cli.bot.Client's call, answered by the Flask test client: the CLI's requests as the server receives them."""

    def __init__(self, client, key):
        self._client, self._key = client, key

    def __call__(self, url, key):
        return self

    def call(self, method, path, body=None):
        answer = self._client.open(path, method=method, json=body, headers=bearer(self._key))
        if answer.status_code >= 400:
            raise HttpError(answer.status_code, answer.get_json(), None)
        return answer.get_json()


def test_cardroom_ratings_rebuild_asks_the_server_and_prints_what_it_rebuilt(monkeypatch, capsys):
    client = make_client(InlineBots(), admin_key=ADMIN)
    ann = register(client, "ann")
    play_rated(client, ann, [{"account": ann["id"]}, {"bot": "greedy"}])
    monkeypatch.setattr(cli.admin, "Client", ServerByTestClient(client, ADMIN))
    assert main(["ratings", "rebuild", "--url", "http://server", "--key", ADMIN, "--reason", "a test"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ladders": 1, "matches": 1, "differences": []}
    monkeypatch.setattr(cli.admin, "Client", ServerByTestClient(client, "guess"))
    assert main(["ratings", "rebuild", "--url", "http://server", "--key", "guess", "--reason", "a test"]) == 1
    assert "not_admin" in capsys.readouterr().err


def test_the_operator_voids_a_rating_over_http_and_with_cardroom_admin(monkeypatch, capsys):
    # given two rated matches of ann's
    client = make_client(InlineBots(), admin_key=ADMIN)
    ann = register(client, "ann")
    first, second = [play_rated(client, ann, [{"account": ann["id"]}, {"bot": bot}])["id"] for bot in ("greedy",
                                                                                                       "random")]
    # when the operator voids the first over HTTP, then ann's page has one rated match left
    voided = client.post(f"/v1/admin/ratings/{first}/void", json=WHY, headers=bearer(ADMIN))
    assert voided.status_code == 200, voided.get_json()
    # (the greedy bot played only that match; the random bot's is restated too: ann was rated otherwise)
    assert voided.get_json() == {"match": first, "ladder": "mantis.classic.2p",
                                 "players": sorted([ann["id"], "bot:greedy", "bot:random"])}
    (rating,) = client.get(f"/v1/accounts/{ann['id']}").get_json()["ratings"]
    assert rating["games"] == 1 and [point["match"] for point in rating["history"]] == [second]
    assert_error(client.post(f"/v1/admin/ratings/{first}/void", json=WHY, headers=bearer(ADMIN)), 409,
                 "rating_voided")
    assert_error(client.post("/v1/admin/ratings/nothing/void", json=WHY, headers=bearer(ADMIN)), 404,
                 "match_not_found")
    assert_error(client.post(f"/v1/admin/ratings/{second}/void", json={"by": "x"}, headers=bearer(ADMIN)), 422)
    assert_error(client.post(f"/v1/admin/ratings/{second}/void", json=WHY, headers=bearer("guess")), 403, "not_admin")
    # and `cardroom admin void-rating` voids the second the same way
    monkeypatch.setattr(cli.admin, "Client", ServerByTestClient(client, ADMIN))
    assert main(["admin", "--url", "http://server", "--key", ADMIN, "--by", "ops", "void-rating", second,
                 "--reason", "farmed"]) == 0
    assert json.loads(capsys.readouterr().out)["match"] == second
    assert client.get(f"/v1/accounts/{ann['id']}").get_json()["ratings"] == []


def test_a_matchs_rating_says_whether_it_was_rated_why_not_and_whether_it_was_voided():
    client = make_client(InlineBots(), admin_key=ADMIN)
    ann = register(client, "ann")
    # given a rated match played to its end, and one ann resigns before anyone moved
    played = play_rated(client, ann, [{"account": ann["id"]}, {"bot": "greedy"}])["id"]
    resigned = client.post("/v1/matches", headers=bearer(ann["api_key"]), json={
        "game": "mantis", "seats": [{"account": ann["id"]}, {"bot": "random"}], "clock": CLOCK,
        "rated": True}).get_json()["id"]
    assert client.post(f"/v1/matches/{resigned}/resign", headers=bearer(ann["api_key"])).status_code == 200
    # then the first is rated, with its seats' ratings before and after, and the second is not, with the reason
    rating = client.get(f"/v1/ratings/matches/{played}").get_json()
    assert (rating["ladder"], rating["rated"], rating["reason"], rating["voided"]) == (
        "mantis.classic.2p", True, None, None)
    assert [seat["player"] for seat in rating["seats"]] == [ann["id"], "bot:greedy"]
    assert all(seat["before"] == {"mu": 25.0, "sigma": 25 / 3} for seat in rating["seats"])
    unrated = client.get(f"/v1/ratings/matches/{resigned}").get_json()
    assert (unrated["rated"], unrated["reason"]) == (False, "first_moves_missing")
    # and once the first is voided it says by whom and why
    client.post(f"/v1/admin/ratings/{played}/void", json=WHY, headers=bearer(ADMIN))
    voided = client.get(f"/v1/ratings/matches/{played}").get_json()
    assert voided["rated"] is False and {k: voided["voided"][k] for k in ("by", "reason")} == WHY
    # and a match no ladder decided, or none at all, is 404 with the reason
    unrated_match = client.post("/v1/matches", json={"game": "mantis", "seats": [{"bot": "greedy"},
                                                                                 {"bot": "random"}]}).get_json()
    assert_error(client.get(f"/v1/ratings/matches/{unrated_match['id']}"), 404, "rating_not_found")
    assert_error(client.get("/v1/ratings/matches/nothing"), 404, "match_not_found")
