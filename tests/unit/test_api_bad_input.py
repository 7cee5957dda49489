"""Bad input the API once answered with a 500: each is a 4xx in the error shape and changes nothing."""
import io

import pytest

from api.app import create_app
from api.limits import MAX_HEADER_BYTES, MAX_JSON_DEPTH, MAX_PATH_PARAMETER_CHARS, MAX_URL_BYTES
from api.schemas.common import LARGEST
from tests.support.http import assert_error, bearer
from tests.support.service import make_service

TWO = '{"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]%s}'
BODY_LIMIT = 65536  # the server's default, so that 4,301 digits fit in a body


@pytest.fixture
def client():
    return create_app(make_service(), lambda: True, max_body_bytes=BODY_LIMIT).test_client()


@pytest.fixture
def created(client):
    return client.post("/v1/matches", data=TWO % "", content_type="application/json").get_json()


def post_json(client, url, text, **kwargs):
    return client.post(url, data=text, content_type="application/json", **kwargs)


def listed(client):
    return client.get("/v1/matches").get_json()["matches"]


BAD_CREATE_BODIES = [
    (TWO % (', "options": {"x": ' + "[" * 1000 + "]" * 1000 + "}"), "json_too_deep"),
    (TWO % (', "options": {"x": ' + "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1) + "}"), "json_too_deep"),
    (TWO % (', "options": {"x": ' + "9" * 4301 + "}"), "number_too_long"),
    (TWO % (', "options": {"x": ' + "9" * 101 + "}"), "number_too_long"),
    (TWO % ', "options": {"x": NaN}', "invalid_json"),
    (TWO % ', "options": {"x": -Infinity}', "invalid_json"),
    (TWO % ', "options": {"x": 1e400}', "number_too_large"),
    ('{"game": "mantis", "seats": [{"name": "\\ud800"}, {"name": "bob"}]}', "invalid_text"),
    (TWO % ', "seed": "\\udfff"', "invalid_text"),
    (TWO % ', "options": {"\\ud83d": 1}', "invalid_text"),
    (TWO % ', "seed": "\xff"', "invalid_json"),
    ("{", "invalid_json"),
]


@pytest.mark.parametrize("body,reason", BAD_CREATE_BODIES)
def test_a_create_with_a_bad_json_body_gets_400_with_a_reason_and_lists_no_match(client, body, reason):
    data = body.encode("latin-1") if "\xff" in body else body
    assert_error(post_json(client, "/v1/matches", data), 400, reason)
    assert listed(client) == []


def test_json_as_deep_as_the_limit_and_a_100_character_number_are_parsed(client):
    """The limits refuse beyond them, not at them: the game then refuses the unknown option itself."""
    deep = "[" * (MAX_JSON_DEPTH - 2) + "]" * (MAX_JSON_DEPTH - 2)
    assert_error(post_json(client, "/v1/matches", TWO % (', "options": {"x": ' + deep + "}")), 422, "unknown_option")
    assert_error(post_json(client, "/v1/matches", TWO % (', "options": {"x": ' + "9" * 100 + "}")), 422,
                 "unknown_option")


@pytest.mark.parametrize("move,reason", [
    ('{"move": {"action": "\\ud800"}, "expected_version": 2}', "invalid_text"),
    ('{"move": {"action": "score"}, "expected_version": ' + "2" * 4400 + "}", "number_too_long"),
    ('{"move": ' + '{"a":' * 1000 + "1" + "}" * 1000 + ', "expected_version": 2}', "json_too_deep"),
])
def test_a_move_with_a_bad_json_body_gets_400_and_the_match_stays_where_it_was(client, created, move, reason):
    token = created["seats"][0]["token"]
    assert_error(post_json(client, f"/v1/matches/{created['id']}/moves", move, headers=bearer(token)), 400, reason)
    assert client.get(f"/v1/matches/{created['id']}").get_json()["version"] == created["version"]


def test_a_join_with_a_lone_surrogate_in_the_name_gets_400_and_the_seat_stays_open(client):
    waiting = post_json(client, "/v1/matches", '{"game": "mantis", "seats": [{"name": "a"}, {"open": true}]}')
    match_id = waiting.get_json()["id"]
    assert_error(post_json(client, f"/v1/matches/{match_id}/join", '{"name": "\\ud800"}'), 400, "invalid_text")
    assert client.get(f"/v1/matches/{match_id}").get_json()["seats"][1]["open"] is True


@pytest.mark.parametrize("number", [LARGEST + 1, 2**64 - 1, 2**64, 10**30])
def test_versions_and_positions_beyond_the_stores_range_get_422(client, created, number):
    url, token = f"/v1/matches/{created['id']}", created["seats"][0]["token"]
    for query in (f"{url}/events?after={number}", f"{url}/state?version={number}", f"/v1/matches?cursor={number}"):
        assert_error(client.get(query), 422, "invalid_request")
    move = {"move": {"action": "score"}, "expected_version": number}
    assert_error(client.post(f"{url}/moves", json=move, headers=bearer(token)), 422, "invalid_request")
    assert client.get(url).get_json()["version"] == created["version"]


def test_the_openapi_document_states_the_largest_version_and_position(client):
    paths = client.get("/openapi.json").get_json()["paths"]
    maxima = {p["name"]: p["schema"].get("maximum") for path in ("/v1/matches/{match_id}/events",
                                                                   "/v1/matches/{match_id}/state", "/v1/matches")
              for p in paths[path]["get"]["parameters"] if p.get("schema", {}).get("type") == "integer"}
    assert maxima == {"after": LARGEST, "version": LARGEST, "cursor": LARGEST, "seat": 7, "limit": 100}
    move = client.get("/openapi.json").get_json()["components"]["schemas"]["MoveRequest"]
    assert move["properties"]["expected_version"]["maximum"] == LARGEST


@pytest.mark.parametrize("content_type,body", [("text/plain", TWO % ""), ("application/x-www-form-urlencoded",
                                                                        "game=mantis"), (None, TWO % "")])
def test_a_body_that_is_not_json_gets_415_and_creates_nothing(client, content_type, body):
    assert_error(client.post("/v1/matches", data=body, content_type=content_type), 415, "unsupported_media_type")
    assert listed(client) == []


def test_a_request_without_a_body_is_told_what_is_missing(client):
    body = assert_error(client.post("/v1/matches"), 422, "invalid_request")
    assert set(body["errors"]["json"]) == {"game", "seats"}


def post_chunked(client, body: bytes, server_reads_chunks=True):
    """A body without Content-Length, as gunicorn hands it on (wsgi.input_terminated) or as a server that
    cannot read chunked bodies would."""
    return client.post("/v1/matches", input_stream=io.BytesIO(body), content_type="application/json",
                       headers={"Transfer-Encoding": "chunked"},
                       environ_overrides={"wsgi.input_terminated": True} if server_reads_chunks else {})


def test_a_chunked_body_is_read_and_one_over_the_limit_gets_413_and_creates_nothing(client):
    assert post_chunked(client, (TWO % "").encode()).status_code == 201
    assert_error(post_chunked(client, (TWO % (', "seed": "' + "x" * BODY_LIMIT + '"')).encode()), 413,
                 "body_too_large")
    assert len(listed(client)) == 1


def test_a_chunked_body_the_server_cannot_read_gets_411_not_an_empty_body(client):
    assert_error(post_chunked(client, (TWO % "").encode(), server_reads_chunks=False), 411, "length_required")
    assert listed(client) == []


def test_a_url_beyond_the_limit_gets_414_in_the_error_shape(client, created):
    assert_error(client.get(f"/v1/matches/{created['id']}/events?pad={'x' * MAX_URL_BYTES}"), 414, "uri_too_long")
    assert client.get(f"/v1/matches/{created['id']}/events?{'limit=1&' * 125}after=0").status_code == 200


def test_a_query_parameter_the_operation_does_not_take_is_refused_not_dropped(client, created):
    # Given a match, when its events are asked for with a misspelt parameter, then 422 names it
    body = assert_error(client.get(f"/v1/matches/{created['id']}/events?afterr=3"), 422, "invalid_request")
    assert body["errors"]["query"] == {"afterr": ["Unknown field."]}


def test_a_path_parameter_beyond_its_documented_length_matches_no_route(client):
    assert_error(client.get(f"/v1/matches/{'x' * (MAX_PATH_PARAMETER_CHARS + 1)}"), 404, "not_found")
    assert_error(client.get(f"/v1/matches/{'x' * MAX_PATH_PARAMETER_CHARS}"), 404, "match_not_found")


def test_every_path_the_document_allows_fits_the_url_limit_with_room_for_the_query(client):
    # given every operation's path with each of its parameters at its documented maxLength of 4-byte characters
    document = client.get("/openapi.json").get_json()
    for path, operations in document["paths"].items():
        for operation in (o for o in operations.values() if isinstance(o, dict) and "responses" in o):
            bounds = [p["schema"]["maxLength"] for p in operation.get("parameters", []) if p.get("in") == "path"]
            # then it fits in a quarter of the limit (the query's parameters are enums, integers and short strings)
            assert len(path.encode()) + 4 * sum(bounds) <= MAX_URL_BYTES // 4, path


def test_headers_beyond_the_limit_get_431_in_the_error_shape(client):
    assert_error(client.get("/v1/games", headers={"X-Pad": "x" * MAX_HEADER_BYTES}), 431, "headers_too_large")
    assert client.get("/v1/games", headers={"X-Pad": "x" * 1000}).status_code == 200


def test_a_method_not_allowed_says_which_are(client, created):
    response = client.delete(f"/v1/matches/{created['id']}")
    assert_error(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}
    assert response.headers["Content-Type"] == "application/json"


@pytest.fixture
def played_to_the_end(client):
    """Two seats play their first legal move, each with its own Idempotency-Key, until the match is over.
    Gives the match's URL and every move's request and first answer."""
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}],
                                               "seed": "replay"}).get_json()
    url, tokens = f"/v1/matches/{created['id']}", [seat["token"] for seat in created["seats"]]
    plays, to_act = [], created["to_act"]
    while to_act:
        token = tokens[to_act[0]]
        legal = client.get(f"{url}/legal-moves", headers=bearer(token)).get_json()
        request = dict(json={"move": legal["moves"][0], "expected_version": legal["version"]},
                       headers={**bearer(token), "Idempotency-Key": f"move-{legal['version']}"})
        plays.append((request, client.post(f"{url}/moves", **request)))
        to_act = plays[-1][1].get_json()["to_act"]
    assert plays[-1][1].get_json()["status"] == "finished"
    return url, plays


def test_a_retry_after_the_match_ended_returns_the_first_answer_byte_for_byte(client, played_to_the_end):
    url, plays = played_to_the_end
    request, first = plays[0]
    assert first.get_json()["status"] == "active" and "nonce" not in first.get_json()["events"][0]
    retried = client.post(f"{url}/moves", **request)
    assert retried.status_code == 201 and retried.data == first.data


def test_a_retry_of_the_move_that_ended_the_match_returns_it_byte_for_byte_nonces_included(client,
                                                                                         played_to_the_end):
    url, plays = played_to_the_end
    request, last = plays[-1]
    assert len(plays) > 1 and all("nonce" in event for event in last.get_json()["events"])
    retried = client.post(f"{url}/moves", **request)
    assert retried.status_code == 201 and retried.data == last.data


def test_the_openapi_document_gives_each_game_its_seats_and_options(client):
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    alternatives = [schemas[ref["$ref"].rsplit("/", 1)[1]] for ref in schemas["NewMatch"]["oneOf"]]
    seats = {(a["properties"]["game"]["enum"][0],
              a["properties"]["options"]["properties"].get("edition", {}).get("enum", [None])[0]):
             (a["properties"]["seats"]["minItems"], a["properties"]["seats"]["maxItems"]) for a in alternatives}
    assert seats == {("mantis", "classic"): (2, 6), ("mantis", "compact"): (2, 4), ("blockers", None): (2, 4),
                     ("9stax", None): (2, 4), ("flipout", None): (2, 5)}
    flipout = next(a for a in alternatives if a["properties"]["game"]["enum"] == ["flipout"])
    stall = flipout["properties"]["options"]["properties"]["stall_rounds"]
    assert (stall["minimum"], stall["maximum"]) == (1, 100_000)
