"""The Flask application: blueprints, the one error shape, the OpenAPI document and /docs."""
import html
import json

from flask import Flask, Response
from flask_smorest import Api

from api import errors
from api.catalog import bots, games, health
from api.matches import matches
from api.schemas import Error
from domain.games import GAMES
from service.matches import MatchService

class CardroomApi(Api):
    """flask-smorest's Api with every HTTP error in cardroom's error shape."""

    ERROR_SCHEMA = Error

    def handle_http_exception(self, error):
        return errors.from_http_exception(error)


def create_app(service: MatchService, health_check, max_body_bytes: int = 65536) -> Flask:
    app = Flask("cardroom")
    app.config.update(
        API_TITLE="cardroom", API_VERSION="v1", OPENAPI_VERSION="3.0.3", OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json", MAX_CONTENT_LENGTH=max_body_bytes,
        API_SPEC_OPTIONS={"info": {"description": "An event-sourced server for hidden-information card games. "
                                                  "Every error is the Error schema."}},
    )
    app.extensions["cardroom.service"] = service
    app.extensions["cardroom.health"] = health_check
    api = CardroomApi(app)
    api.spec.components.security_scheme("seatToken", {"type": "http", "scheme": "bearer",
                                                      "description": "the seat token from creating or joining"})
    for game in GAMES.values():
        api.spec.components.schema(f"{_schema_name(game.INFO.id)}Move", move_schema(game.INFO))
        api.spec.components.schema(f"{_schema_name(game.INFO.id)}View", view_schema(game.INFO))
    for blueprint in (games, bots, matches, health):
        api.register_blueprint(blueprint)
    errors.register(app)
    app.add_url_rule("/docs", "docs", lambda: docs_page(api.spec.to_dict()))
    return app


def move_schema(info) -> dict:
    """A game's move vocabulary as a JSON schema: one alternative per action."""
    alternatives = []
    for action, (doc, fields) in info.actions.items():
        properties = {"action": {"type": "string", "enum": [action]}}
        for name, field in fields.items():
            properties[name] = {"type": field.type, "description": field.description,
                                **({"enum": list(field.choices)} if field.choices else {})}
        alternatives.append({"type": "object", "description": doc, "properties": properties,
                             "required": ["action", *[n for n, f in fields.items() if f.required]],
                             "additionalProperties": False})
    return {"description": f"a move in {info.name}", "oneOf": alternatives}


def view_schema(info) -> dict:
    """What a seat sees of a game (the `view` of a match), field by field; details in docs/games."""
    return {"type": "object", "description": f"the view of a {info.name} match (docs/games/{info.id}.md)",
            "properties": {name: {"description": meaning} for name, meaning in info.view.items()}}


def _schema_name(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.replace("-", "_").split("_"))


def docs_page(spec: dict) -> Response:
    """A self-contained page (no CDN) listing every endpoint, with the whole OpenAPI document below."""
    rows = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method in ("get", "post", "put", "patch", "delete"):
                rows.append(f"<tr><td><code>{method.upper()}</code></td><td><code>{html.escape(path)}</code></td>"
                            f"<td>{html.escape(operation.get('summary', ''))}</td></tr>")
    body = (f"<!doctype html><html><head><meta charset='utf-8'><title>cardroom API</title></head><body>"
            f"<h1>cardroom API {spec['info']['version']}</h1><p>{html.escape(spec['info']['description'])}</p>"
            f"<p>Machine-readable: <a href='/openapi.json'>/openapi.json</a>.</p>"
            f"<table border='1' cellpadding='4'><tr><th>method</th><th>path</th><th>what</th></tr>{''.join(rows)}"
            f"</table><h2>OpenAPI</h2><pre>{html.escape(json.dumps(spec, indent=2))}</pre></body></html>")
    return Response(body, mimetype="text/html")
