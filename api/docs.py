"""The pages for people: Swagger UI over /openapi.json at /docs, and each game's rules page at
/docs/games/<game>, rendered from docs/games/*.md.

Swagger UI comes from the flask-swagger-ui package, which bundles Swagger UI's own built assets and serves
them from the app: the page loads nothing from another host. The rules pages are rendered with
Python-Markdown (tables, fenced code) from the same files the repository shows. All of them are built once per
process and served from memory (api/static_answers.py).
"""
import html
from collections.abc import Callable
from pathlib import Path
from typing import cast

import markdown
from flask import Blueprint, Flask, Response
from flask.typing import ResponseReturnValue
from flask_swagger_ui import get_swaggerui_blueprint

from api.static_answers import serve
from domain.games import GAMES
from service.errors import NotFound

RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "games"
STYLE = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top}"
         "code{background:#f4f4f4;padding:0 .2rem}")


def add_swagger_ui(app: Flask) -> None:
    """/docs: Swagger UI's page and files. The OAuth redirect is named, not taken from the first request's host: the
    page is built once for every host."""
    app.register_blueprint(get_swaggerui_blueprint("/docs", "/openapi.json", config={
        "app_name": "cardroom API", "oauth2RedirectUrl": "/docs/oauth2-redirect.html"}))
    show = cast(Callable[..., ResponseReturnValue], app.view_functions["swagger_ui.show"])  # not a coroutine
    app.view_functions["swagger_ui.show"] = lambda path=None: serve(("swagger_ui", path or "index.html"),
                                                                    lambda: show(path))


def rules_pages(rules_dir: Path | None = None) -> Blueprint:
    """/docs/games lists the games; /docs/games/<game> is that game's rules page. Every game's page must
    exist when the app starts (the container copies docs/), so a missing one fails at once, not on a click."""
    pages = {game_id: (rules_dir or RULES_DIR) / f"{game.__name__.rpartition('.')[2]}.md"
             for game_id, game in GAMES.items()}
    missing = [str(path) for path in pages.values() if not path.is_file()]
    if missing:
        raise RuntimeError(f"rules pages missing: {', '.join(missing)} (set RULES_DIR to the docs/games folder)")
    rules = Blueprint("rules", __name__, url_prefix="/docs/games")

    @rules.get("")
    def index():
        return serve(("rules", None), games_index)

    @rules.get("/<game_id>")
    def page(game_id):
        if game_id not in GAMES:
            raise NotFound("unknown_game", f"no game {game_id!r}; games: {', '.join(GAMES)}")
        return serve(("rules", game_id), lambda: rules_page(game_id, pages[game_id]))

    return rules


def games_index() -> Response:
    items = "".join(f"<li><a href='/docs/games/{game_id}'>{html.escape(game.INFO.name)}</a>: "
                    f"{html.escape(game.INFO.summary)}</li>" for game_id, game in GAMES.items())
    return _page("cardroom: the games", f"<h1>The games</h1><ul>{items}</ul><p><a href='/docs'>API docs</a></p>")


def rules_page(game_id: str, source: Path) -> Response:
    body = markdown.markdown(source.read_text(encoding="utf-8"), extensions=["tables", "fenced_code"])
    return _page(f"cardroom: {GAMES[game_id].INFO.name}", f"<p><a href='/docs/games'>All games</a></p>{body}")


def _page(title: str, body: str) -> Response:
    return Response(f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                    f"<style>{STYLE}</style></head><body>{body}</body></html>", mimetype="text/html")
