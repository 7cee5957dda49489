"""The OpenAPI document is good enough to generate a typed client: typed moves and views for every game,
valid names, references and links that resolve, and examples that match their schemas (the generated clients
themselves: test_client_generation.py)."""
import random
import re

import pytest

from api import examples
from api.schemas.games import schema_name
from domain import match
from domain.games import GAMES
from tests.support.games import random_match
from tests.support.http import bearer, make_client
from tests.support.openapi import component, validator

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def document():
    return make_client().get("/openapi.json").get_json()


def operations(document):
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def parameter_names(document, path, operation):
    """The names of an operation's parameters, its path's included."""
    names = set()
    for parameter in document["paths"][path].get("parameters", []) + operation.get("parameters", []):
        if "$ref" in parameter:
            parameter = document["components"]["parameters"][parameter["$ref"].rsplit("/", 1)[1]]
        names.add(parameter["name"])
    return names


def walk(node):
    """Every dict inside a JSON value."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def test_schema_names_are_valid_identifiers_and_the_games_have_theirs(document):
    names = set(document["components"]["schemas"])
    assert all(IDENTIFIER.match(name) for name in names), sorted(n for n in names if not IDENTIFIER.match(n))
    assert {"NineStaxMove", "NineStaxView", "MantisSteal", "NineStaxPlayDrawn", "FlipoutSwap1"} <= names
    assert schema_name("9stax") == "NineStax" and schema_name("mantis") == "Mantis"


def test_every_reference_resolves(document):
    for node in walk(document):
        if "$ref" in node:
            kind, _, name = node["$ref"].removeprefix("#/components/").partition("/")
            assert name in document["components"][kind], node["$ref"]


def test_every_link_leads_to_an_operation_with_those_parameters(document):
    by_id = {operation["operationId"]: (path, operation) for path, _, operation in operations(document)}
    found = 0
    for _, _, operation in operations(document):
        for response in operation["responses"].values():
            for name, link in response.get("links", {}).items():
                known = parameter_names(document, *by_id[link["operationId"]])
                assert set(link["parameters"]) <= known, (name, link, known)
                found += 1
    assert found >= 8
    assert len(by_id) == len(list(operations(document))), "every operation has its own operationId"


def test_every_view_field_has_a_type(document):
    schemas = document["components"]["schemas"]
    for game_id in GAMES:
        view = schemas[f"{schema_name(game_id)}View"]
        assert set(view["required"]) == set(view["properties"]) == set(GAMES[game_id].INFO.view)
        for name, field in view["properties"].items():
            assert "type" in field or "$ref" in str(field), (game_id, name, field)
        for node in walk(view):  # arrays say what they hold
            if node.get("type") == "array":
                assert node.get("items"), (game_id, node)


def test_moves_and_views_refer_to_every_games_schemas(document):
    schemas = document["components"]["schemas"]
    moves = [{"$ref": f"#/components/schemas/{schema_name(g)}Move"} for g in GAMES]
    views = [{"$ref": f"#/components/schemas/{schema_name(g)}View"} for g in GAMES]
    assert schemas["MoveRequest"]["properties"]["move"]["anyOf"] == moves
    assert schemas["LegalMoves"]["properties"]["moves"]["items"]["anyOf"] == moves
    assert schemas["Step"]["properties"]["move"]["anyOf"] == moves
    assert schemas["Match"]["properties"]["view"]["oneOf"] == views
    mantis = schemas["MantisMove"]
    assert mantis["discriminator"]["mapping"] == {"score": "#/components/schemas/MantisScore",
                                                  "steal": "#/components/schemas/MantisSteal"}


def test_the_main_endpoints_have_examples_and_every_example_matches_its_schema(document):
    checked = set()
    for path, method, operation in operations(document):
        contents = [operation.get("requestBody", {}).get("content", {})]
        contents += [response.get("content", {}) for response in operation["responses"].values()]
        for content in contents:
            for media in content.values():
                if "example" in media:
                    failures = [str(e) for e in validator(document, media["schema"]).iter_errors(media["example"])]
                    assert not failures, (path, method, failures[:3])
                    checked.add((method, path))
    assert {("post", "/v1/matches"), ("get", "/v1/matches/{match_id}"), ("post", "/v1/matches/{match_id}/moves"),
            ("get", "/v1/matches/{match_id}/legal-moves")} <= checked


def test_the_examples_are_what_the_server_does():
    client = make_client()
    created = client.post("/v1/matches", json=examples.CREATE_MATCH)
    assert created.status_code == 201
    match_id, token = created.get_json()["id"], created.get_json()["seats"][0]["token"]
    legal = client.get(f"/v1/matches/{match_id}/legal-moves", headers=bearer(token)).get_json()
    assert legal["version"] == examples.MOVE["expected_version"] and examples.MOVE["move"] in legal["moves"]
    moved = client.post(f"/v1/matches/{match_id}/moves", headers=bearer(token), json=examples.MOVE)
    assert moved.status_code == 201
    assert [e["type"] for e in moved.get_json()["events"]] == [e["type"] for e in examples.MOVED["events"]]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_view_and_legal_move_of_random_matches_matches_the_published_schemas(document, game_id):
    game = GAMES[game_id]
    view, move = component(document, f"{schema_name(game_id)}View"), component(document, f"{schema_name(game_id)}Move")
    any_move = validator(document, document["components"]["schemas"]["MoveRequest"]["properties"]["move"])
    pick = random.Random(game_id)
    for players in (game.INFO.min_players, game.INFO.max_players):
        for state, _ in random_match(game_id, players, f"schema-{players}", options=_fitting(game_id, players)):
            seat = pick.choice([None, *range(players)])
            failures = [str(e) for e in view.iter_errors(match.view(state, seat))]
            assert not failures, failures[:3]
            for legal in match.legal_moves(state, pick.choice(range(players)))[:20]:
                assert move.is_valid(legal) and any_move.is_valid(legal), legal


def _fitting(game_id, players):
    return {"edition": "classic"} if game_id == "mantis" and players > 4 else None
