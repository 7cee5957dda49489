"""The HTTP surface: gzip (never for streams), ETag / If-None-Match, CORS, paged events, replay steps that
agree with time travel, and the docs pages the server serves."""
import gzip
import json
import re

import pytest
from flask import Response

from api.app import GZIP_MIN_BYTES, create_app
from api.docs import RULES_DIR, rules_pages
from domain.games import GAMES
from eventstore.memory import InMemoryEventStore
from tests.support.http import THREE, assert_error, bearer, make_client
from tests.support.service import InlineBots, make_service

BOTS = {"game": "mantis", "seats": [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}], "seed": "replay"}
GZIP = {"Accept-Encoding": "gzip"}


class CountingStore(InMemoryEventStore):
    """The in-memory store, noting each call a read makes: ("load", since) or ("meta",)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def load(self, match_id, upto=None, since=0):
        self.calls.append(("load", since))
        return super().load(match_id, upto, since)

    def meta(self, match_id):
        self.calls.append(("meta",))
        return super().meta(match_id)


def finished_bot_match():
    client = make_client(InlineBots())
    return client, client.post("/v1/matches", json=BOTS).get_json()["id"]


# --- gzip --------------------------------------------------------------------------------------------
def test_a_large_answer_is_gzipped_for_a_client_that_accepts_it_and_plain_for_one_that_does_not():
    client, match_id = finished_bot_match()
    zipped = client.get(f"/v1/matches/{match_id}/events", headers=GZIP)
    plain = client.get(f"/v1/matches/{match_id}/events")
    assert zipped.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain.headers
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()
    assert len(zipped.data) * 3 < len(plain.data)
    assert "Accept-Encoding" in zipped.headers["Vary"]


def test_a_small_answer_is_not_compressed(client):
    answer = client.get("/health", headers=GZIP)
    assert "Content-Encoding" not in answer.headers and answer.get_json()["status"] == "ok"


def test_a_moves_answer_fits_one_packet_and_goes_plain_even_to_a_client_that_accepts_gzip(client):
    created = client.post("/v1/matches", json=THREE).get_json()
    moved = client.post(f"/v1/matches/{created['id']}/moves", headers={**GZIP, **bearer(created["seats"][0]["token"])},
                        json={"move": {"action": "score"}, "expected_version": created["version"]})
    assert moved.status_code == 201 and "Content-Encoding" not in moved.headers
    assert 500 < len(moved.data) < GZIP_MIN_BYTES  # flask-compress alone would gzip it (its minimum: 500 bytes)


@pytest.mark.parametrize("mimetype", ["text/event-stream", "application/x-ndjson"])
def test_a_stream_passes_uncompressed_and_each_chunk_reaches_the_client_before_the_next_is_made(mimetype):
    app = create_app(make_service(), lambda: True)
    made = []

    def chunks():
        for n in range(3):
            made.append(n)
            yield f"data: {n} {'x' * 2000}\n\n"

    app.add_url_rule("/stream-probe", "stream_probe", lambda: Response(chunks(), mimetype=mimetype))
    answer = app.test_client().get("/stream-probe", headers=GZIP, buffered=False)
    assert "Content-Encoding" not in answer.headers and answer.is_streamed
    body = answer.response
    first = next(iter(body))
    assert first.startswith(b"data: 0") and made == [0], "the stream was buffered before the first chunk left"
    rest = b"".join(body)
    assert rest.count(b"data: ") == 2 and made == [0, 1, 2]
    answer.close()


# --- ETag / If-None-Match ---------------------------------------------------------------------------------
@pytest.fixture
def counted():
    """A client over a store that counts loads, and a match with three human seats."""
    store = CountingStore()
    client = create_app(make_service(store=store), lambda: True).test_client()
    return client, store, client.post("/v1/matches", json=THREE).get_json()


@pytest.mark.parametrize("encoding", [{}, GZIP], ids=["plain", "gzip"])
def test_a_match_read_makes_one_store_call_and_the_same_tag_back_gets_304_with_nothing_to_fold(counted, encoding):
    client, store, created = counted
    ann = {**bearer(created["seats"][0]["token"]), **encoding}
    store.calls.clear()
    first = client.get(f"/v1/matches/{created['id']}", headers=ann)
    tag = first.headers["ETag"]
    assert first.status_code == 200 and "Authorization" in first.headers["Vary"]
    assert tag.endswith(':gzip"') == bool(encoding)  # flask-compress tags a compressed answer apart
    again = client.get(f"/v1/matches/{created['id']}", headers={**ann, "If-None-Match": tag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag
    # one call each, asking only for the events after the current version: none to fold
    assert store.calls == [("load", created["version"])] * 2


def test_the_tag_changes_with_a_move_and_differs_between_seats(client, created):
    url = f"/v1/matches/{created['id']}"
    ann, bob = bearer(created["seats"][0]["token"]), bearer(created["seats"][1]["token"])
    tag = client.get(url, headers=ann).headers["ETag"]
    assert client.get(url, headers=bob).headers["ETag"] != tag
    assert client.get(url).headers["ETag"] != tag  # a spectator sees less
    client.post(f"{url}/moves", headers=ann, json={"move": {"action": "score"}, "expected_version": 2})
    moved_on = client.get(url, headers={**ann, "If-None-Match": tag})
    assert moved_on.status_code == 200 and moved_on.get_json()["version"] == 4 and moved_on.headers["ETag"] != tag


@pytest.mark.parametrize("read", ["", "/legal-moves", "/moves", "/events?after=1", "/state?version=2", "/audit"])
def test_every_tagged_read_answers_304_to_its_own_tag(client, created, read):
    url, ann = f"/v1/matches/{created['id']}{read}", bearer(created["seats"][0]["token"])
    first = client.get(url, headers=ann)
    assert first.status_code == 200 and first.headers["ETag"]
    assert client.get(url, headers={**ann, "If-None-Match": first.headers["ETag"]}).status_code == 304


def test_an_unknown_match_is_404_and_legal_moves_without_a_token_401_whatever_the_if_none_match(client, created):
    assert_error(client.get("/v1/matches/nope", headers={"If-None-Match": '"x"'}), 404, "match_not_found")
    spectators_tag = client.get(f"/v1/matches/{created['id']}").headers["ETag"]
    assert_error(client.get(f"/v1/matches/{created['id']}/legal-moves", headers={"If-None-Match": spectators_tag}),
                 401, "token_required")


# --- CORS ------------------------------------------------------------------------------------------
def test_any_origin_may_read_by_default_and_see_the_etag(client, created):
    answer = client.get(f"/v1/matches/{created['id']}", headers={"Origin": "https://app.example"})
    assert answer.headers["Access-Control-Allow-Origin"] in ("*", "https://app.example")
    assert "ETag" in answer.headers["Access-Control-Expose-Headers"]


def test_a_browser_may_send_a_move_with_its_token_and_idempotency_key(client, created):
    preflight = client.options(f"/v1/matches/{created['id']}/moves", headers={
        "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"})
    assert preflight.status_code == 200
    allowed = {h.strip().lower() for h in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key"} <= allowed
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]


def test_configured_origins_are_the_only_ones_allowed():
    client = create_app(make_service(), lambda: True, cors_origins=("https://play.example",)).test_client()
    allowed = client.get("/v1/games", headers={"Origin": "https://play.example"})
    other = client.get("/v1/games", headers={"Origin": "https://evil.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "Access-Control-Allow-Origin" not in other.headers


# --- /events pages ---------------------------------------------------------------------------------------
def test_the_log_pages_with_limit_and_next_after_to_the_same_events_as_one_read():
    client, match_id = finished_bot_match()
    whole = client.get(f"/v1/matches/{match_id}/events?limit=1000").get_json()
    assert whole["next_after"] is None and len(whole["events"]) == whole["version"]
    pages, after = [], 0
    while after is not None:
        page = client.get(f"/v1/matches/{match_id}/events?after={after}&limit=7").get_json()
        assert len(page["events"]) <= 7
        pages += page["events"]
        after = page["next_after"]
    assert pages == whole["events"]


def test_the_default_page_is_500_events_and_a_limit_outside_1_to_1000_is_refused(client, created):
    url = f"/v1/matches/{created['id']}/events"
    assert client.get(url).get_json()["next_after"] is None  # 2 events: one page
    assert_error(client.get(f"{url}?limit=0"), 422)
    assert_error(client.get(f"{url}?limit=1001"), 422)
    assert_error(client.get(f"{url}?limit=ten"), 422)
    document = client.get("/openapi.json").get_json()
    parameters = {p["name"]: p for p in document["paths"]["/v1/matches/{match_id}/events"]["get"]["parameters"]
                  if "name" in p}
    assert parameters["limit"]["schema"]["default"] == 500 and parameters["limit"]["schema"]["maximum"] == 1000


# --- replay steps ----------------------------------------------------------------------------------------
def test_replay_steps_tile_the_log_and_each_steps_version_shows_its_moves_effect():
    client, match_id = finished_bot_match()
    replay = client.get(f"/v1/matches/{match_id}/moves").get_json()
    steps = replay["moves"]
    assert steps[0]["at"] == replay["start"] and steps[-1]["version"] == replay["version"]
    assert all(later["at"] == earlier["version"] for earlier, later in zip(steps, steps[1:]))
    for step in steps:
        before = client.get(f"/v1/matches/{match_id}/state?version={step['at']}").get_json()
        after = client.get(f"/v1/matches/{match_id}/state?version={step['version']}").get_json()
        assert before["to_act"] == [step["seat"]], "the move was made by the seat to act at `at`"
        assert after["view"]["draw_pile"]["count"] == before["view"]["draw_pile"]["count"] - 1, \
            "every Mantis move flips one card: its effect shows at `version`"


def test_a_match_without_moves_starts_at_the_deal_and_one_waiting_for_seats_has_no_start(client, created):
    assert client.get(f"/v1/matches/{created['id']}/moves").get_json() == {"version": 2, "start": 2, "moves": []}
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"open": True}]}).get_json()
    assert client.get(f"/v1/matches/{waiting['id']}/moves").get_json() == {"version": 1, "start": None, "moves": []}


# --- the docs pages --------------------------------------------------------------------------------------
def test_docs_is_swagger_ui_served_from_the_app_itself(client):
    page = client.get("/docs", follow_redirects=True)
    assert page.status_code == 200 and b"swagger-ui" in page.data and b"/openapi.json" in page.data
    assets = re.findall(rb"""(?:src|href)=["']([^"']+)["']""", page.data)
    assert len(assets) >= 4
    for asset in assets:
        assert asset.startswith(b"/docs/"), f"{asset} is not served by the app"
        assert client.get(asset.decode()).status_code == 200, asset


def test_every_games_rules_page_is_served_as_html_and_the_catalog_links_to_it(client):
    index = client.get("/docs/games")
    assert index.status_code == 200
    for game in client.get("/v1/games").get_json()["games"]:
        assert f"href='{game['rules']}'".encode() in index.data
        page = client.get(game["rules"])
        assert page.status_code == 200 and page.mimetype == "text/html"
        assert b"<table>" in page.data and f"<h1>{GAMES[game['id']].INFO.name}".encode() in page.data
    assert_error(client.get("/docs/games/chess"), 404, "unknown_game")


def test_the_server_refuses_to_start_without_the_rules_pages(tmp_path):
    with pytest.raises(RuntimeError, match="rules pages missing"):
        rules_pages(tmp_path)


# --- answers built once per process ----------------------------------------------------------------------
def test_the_openapi_document_is_built_once_and_served_gzipped_or_plain_with_one_tag(monkeypatch):
    client, built = make_client(), []
    spec = client.application.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec
    document = spec.to_dict
    monkeypatch.setattr(spec, "to_dict", lambda: built.append(1) or document())
    plain = client.get("/openapi.json", headers={"Accept-Encoding": "identity"})
    zipped = client.get("/openapi.json", headers=GZIP)
    assert plain.status_code == zipped.status_code == 200 and zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json() == document()
    assert zipped.headers["ETag"] == plain.headers["ETag"][:-1] + ':gzip"'
    assert "Accept-Encoding" in zipped.headers["Vary"] and len(zipped.data) < len(plain.data) / 5
    for _ in range(3):
        assert client.get("/openapi.json", headers=GZIP).data == zipped.data
    assert len(built) == 1


@pytest.mark.parametrize("sent", ["plain", "gzip"])
def test_the_openapi_document_answers_304_to_either_of_its_tags(sent):
    client = make_client()
    tag = client.get("/openapi.json", headers=GZIP if sent == "gzip" else {}).headers["ETag"]
    for headers in ({}, GZIP):
        again = client.get("/openapi.json", headers={**headers, "If-None-Match": tag})
        assert again.status_code == 304 and again.data == b"" and again.headers["ETag"]
    assert client.get("/openapi.json", headers={"If-None-Match": '"another"'}).status_code == 200


@pytest.mark.parametrize("path", ["/docs/", "/docs/swagger-ui-bundle.js", "/docs/games/mantis", "/docs/games",
                                  "/", "/matches/any", "/viewer/match.js", "/viewer/style.css"])
def test_the_docs_and_viewer_files_are_served_from_memory_gzipped_when_asked_and_304_when_current(path):
    client = make_client()
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    zipped = client.get(path, headers=GZIP)
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    assert gzip.decompress(zipped.data) == plain.data and zipped.headers["Content-Encoding"] == "gzip"
    assert client.get(path, headers={"If-None-Match": plain.headers["ETag"]}).status_code == 304


def test_a_rules_page_is_rendered_once_per_process_so_editing_its_file_shows_after_a_restart(tmp_path):
    for game in GAMES.values():
        name = f"{game.__name__.rpartition('.')[2]}.md"
        (tmp_path / name).write_text((RULES_DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    app = create_app(make_service(), lambda: True, rules_dir=tmp_path)
    first = app.test_client().get("/docs/games/mantis").data
    (tmp_path / "mantis.md").write_text("# Edited", encoding="utf-8")
    assert app.test_client().get("/docs/games/mantis").data == first
    assert b"<h1>Edited</h1>" in create_app(make_service(), lambda: True, rules_dir=tmp_path).test_client().get(
        "/docs/games/mantis").data


def test_a_file_or_page_that_does_not_exist_is_404_and_is_not_kept():
    client = make_client()
    assert client.get("/viewer/nothing.js").status_code == 404
    assert_error(client.get("/docs/games/chess"), 404, "unknown_game")
    assert client.get("/docs/nothing.js").status_code == 404
    assert not client.application.extensions.get("cardroom.static_answers")
