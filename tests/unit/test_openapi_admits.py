"""What the OpenAPI document admits, the server accepts (issue #49: schemathesis found bodies and queries the document
admitted and the server refused). Each request below is checked both ways, against the published document and on the
server: one the server refuses is not admitted, and its nearest accepted neighbour is. A rule the document cannot
state is listed in its operation's description, with the reason the server gives."""
import pytest

from tests.support.http import assert_error, bearer, make_client
from tests.support.openapi import validator
from tests.unit.test_accounts import register
from tests.unit.test_openapi import walk

CLOCK = {"move_ms": 60_000}
TWO_BOTS = [{"bot": "greedy"}, {"bot": "random"}]
ROUND_ROBIN = {"game": "mantis", "format": "round_robin", "entrants": TWO_BOTS}
RATED = {"game": "mantis", "rated": True, "clock": CLOCK, "seats": [{"account": "ann"}, {"bot": "greedy"}]}
SEEK = {"game": "mantis", "players": 2}

BODIES = [
    # a seek's and a tournament's clock: ClockSpec or null, not any object
    ("/v1/seeks", {**SEEK, "clock": {"minutes": 5}}, False),
    ("/v1/seeks", {**SEEK, "clock": None}, True),
    ("/v1/tournaments", {**ROUND_ROBIN, "clock": {"minutes": 5}}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "clock": None}, True),
    # a tournament's entrant: a bot of a kind the server has, with its options, or an account alone
    ("/v1/tournaments", {**ROUND_ROBIN, "entrants": [{}, {}]}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "entrants": [{"bot": "greedy"}, {"bot": "chess"}]}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "entrants": [{"bot": "greedy"}, {"bot": "random", "bot_options": {"level": 2}}]},
     False),
    ("/v1/tournaments", {**ROUND_ROBIN, "entrants": [{"bot": "greedy"}, {"account": "ann", "name": "x"}]}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "entrants": [{"bot": "ismcts", "bot_options": {"level": 2}, "name": "i"},
                                                     {"account": "ann"}]}, True),
    # a tournament's rounds, deals and tables
    ("/v1/tournaments", {**ROUND_ROBIN, "format": "swiss"}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "format": "swiss", "rounds": 2}, True),
    ("/v1/tournaments", {**ROUND_ROBIN, "format": "duplicate"}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "table_size": 3}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "format": "duplicate", "deals": 1, "entrants": [*TWO_BOTS, {"bot": "ismcts"}]},
     False),
    ("/v1/tournaments", {**ROUND_ROBIN, "format": "duplicate", "deals": 1, "table_size": 3,
                         "entrants": [*TWO_BOTS, {"bot": "ismcts"}]}, True),
    ("/v1/tournaments", {**ROUND_ROBIN, "game": "blockers", "table_size": 5, "entrants": TWO_BOTS * 3}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "options": {"edition": "compact"}, "table_size": 5,
                         "entrants": TWO_BOTS * 3}, False),
    ("/v1/tournaments", {**ROUND_ROBIN, "table_size": 5, "entrants": TWO_BOTS * 3}, True),
    # a rated match: a clock, no seed, every seat an account or a house bot at a level
    ("/v1/matches", {**RATED, "clock": None}, False),
    ("/v1/matches", {key: value for key, value in RATED.items() if key != "clock"}, False),
    ("/v1/matches", {**RATED, "seed": "s" * 16}, False),
    ("/v1/matches", {**RATED, "seats": [{"account": "ann"}, {"open": True}]}, False),
    ("/v1/matches", {**RATED, "seats": [{"account": "ann"}, {"name": "bob"}]}, False),
    ("/v1/matches", {**RATED, "seats": [{"bot": "greedy"}, {"bot": "greedy"}]}, False),
    ("/v1/matches", {**RATED, "seats": [{"account": "ann"}, {"bot": "ismcts", "bot_options": {"budget_ms": 5}}]},
     False),
    ("/v1/matches", {**RATED, "seats": [{"account": "ann"}, {"bot": "ismcts", "bot_options": {"level": 2}}]}, True),
    ("/v1/matches", {**RATED, "rated": False, "seats": [{"name": "bob"}, {"bot": "greedy"}], "seed": "s" * 16}, True),
    # a seek: the game's players and options, a clock when rated, a house bot only with bot_after
    ("/v1/seeks", {**SEEK, "players": 7}, False),
    ("/v1/seeks", {**SEEK, "players": 5, "options": {"edition": "compact"}}, False),
    ("/v1/seeks", {**SEEK, "players": 4, "options": {"edition": "compact"}}, True),
    ("/v1/seeks", {**SEEK, "game": "blockers", "options": {"edition": "classic"}}, False),
    ("/v1/seeks", {**SEEK, "rated": True}, False),
    ("/v1/seeks", {**SEEK, "rated": True, "clock": None}, False),
    ("/v1/seeks", {**SEEK, "rated": True, "clock": CLOCK}, True),
    ("/v1/seeks", {**SEEK, "bot": "random"}, False),
    ("/v1/seeks", {**SEEK, "bot": "random", "bot_after": None}, False),
    ("/v1/seeks", {**SEEK, "bot": "random", "bot_after": 30}, True),
]
QUERIES = [  # a ladder's edition and player count: the editions and the player counts of every game
    ("mantis", {"edition": "deluxe"}, False),
    ("mantis", {"edition": "compact", "players": 4}, True),
    ("mantis", {"players": 7}, False),
    ("mantis", {"players": 6}, True),
    ("chess", {}, False),
]
# admitted by the document, refused for a rule it cannot state: each with the reason its operation's description lists
UNSTATED = [
    ("post", "/v1/matches", {**RATED, "seats": [{"bot": "greedy"}, {"bot": "greedy", "name": "g"}]},
     "rated_player_twice"),
    ("post", "/v1/matches", {"game": "mantis", "seats": [{"account": "ann"}, {"account": "ANN"}]},
     "account_seated_twice"),
    ("post", "/v1/tournaments", {**ROUND_ROBIN, "entrants": [{"account": "ann"}, {"account": "ANN"}]}, "entrant_twice"),
    ("post", "/v1/tournaments", {**ROUND_ROBIN, "entrants": [{"bot": "greedy"}, {"account": "nobody"}]},
     "account_not_found"),
    ("patch", "/v1/accounts/me", {"challenges": ["nobody"]}, "account_not_found"),
    ("get", "/v1/ratings/blockers", {"edition": "classic"}, "unknown_option"),
    ("get", "/v1/ratings/blockers", {"players": 5}, "invalid_player_count"),
]


@pytest.fixture(scope="module")
def document():
    return make_client().get("/openapi.json").get_json()


@pytest.fixture
def ann(client):
    return register(client, "ann")["api_key"]


def admits_body(document, method: str, path: str, body) -> bool:
    schema = document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    return validator(document, schema).is_valid(body)


def admits_query(document, game: str, query: dict) -> bool:
    operation = document["paths"]["/v1/ratings/{game}"]
    schemas = {p["name"]: p["schema"] for p in operation["parameters"] + operation["get"]["parameters"]}
    return all(validator(document, schemas[name]).is_valid(value) for name, value in {**query, "game": game}.items())


def assert_answered_as_admitted(answer, admitted: bool):
    """Admitted: accepted. Not admitted: refused with a 4xx and its reason."""
    if admitted:
        assert answer.status_code in (200, 201), answer.get_json()
    else:
        assert 400 <= answer.status_code < 500 and answer.get_json()["reason"], answer.get_json()


def test_a_nullable_nested_schema_is_that_schema_or_null_never_any_object(document):
    # apispec's form of a nullable nested schema was anyOf [the schema, {type: object, nullable: true}]
    alternatives = [schema for node in walk(document) for key in ("anyOf", "oneOf") for schema in node.get(key, [])
                    if isinstance(schema, dict)]
    assert alternatives and {"type": "object", "nullable": True} not in alternatives
    clocks = [document["components"]["schemas"][body]["properties"]["clock"] for body in ("CreateSeek",
                                                                                           "CreateTournament")]
    assert all(clock["allOf"] == [{"$ref": "#/components/schemas/ClockSpec"}] and clock["nullable"] for clock in clocks)


@pytest.mark.parametrize("path, body, admitted", BODIES)
def test_a_body_is_admitted_by_the_document_exactly_when_the_server_accepts_it(client, document, ann, path, body,
                                                                               admitted):
    # given a body, when the document is asked and the server is sent it with an account's key
    as_documented = admits_body(document, "post", path, body)
    answer = client.post(path, json=body, headers=bearer(ann))
    # then both answer as expected
    assert as_documented is admitted
    assert_answered_as_admitted(answer, admitted)


@pytest.mark.parametrize("game, query, admitted", QUERIES)
def test_a_ladders_query_is_admitted_by_the_document_exactly_when_the_server_answers_it(client, document, game, query,
                                                                                        admitted):
    as_documented = admits_query(document, game, query)
    answer = client.get(f"/v1/ratings/{game}", query_string=query)
    assert as_documented is admitted
    assert_answered_as_admitted(answer, admitted)


@pytest.mark.parametrize("method, url, sent, reason", UNSTATED)
def test_a_rule_the_document_cannot_state_is_listed_in_its_operations_description(client, document, ann, method, url,
                                                                                 sent, reason):
    # given a request the document admits (a body, or a ladder's query)
    if method == "get":
        path = "/v1/ratings/{game}"
        assert admits_query(document, url.rpartition("/")[2], sent)
        answer = client.get(url, query_string=sent)
    else:
        path = url
        assert admits_body(document, method, path, sent)
        answer = client.open(url, method=method, json=sent, headers=bearer(ann))
    # then the server refuses it with a reason that the operation's description lists
    assert_error(answer, 422, reason)
    assert f"(422 {reason})" in document["paths"][path][method]["description"]
