"""The viewer: pages for spectators, players reviewing a match and auditors (docs/viewer.md).

HTML shells: `/` (the listing), `/matches/<id>` (one match; `?version=N&seat=S` deep-links a moment
and a seat), `/tournaments` and `/tournaments/<id>` (standings, the ratings chart, the rounds), `/ratings/<game>` (a
ladder's leaderboard) and `/accounts/<id or name>` (ratings, their history charts, recent matches), and the plain ES modules and CSS under api/static/ that draw them from the public API. No
build step and nothing from another host: the browser loads the modules as they are in the repository. Each file is
read once per process and served from memory, gzipped when asked (api/static_answers.py).
"""
from pathlib import Path

from flask import Blueprint, Response, send_from_directory

from api.static_answers import serve

STATIC = Path(__file__).resolve().parent / "static"

viewer = Blueprint("viewer", __name__)


def static_file(name: str) -> Response:
    """A file of api/static/ (404 if there is none): the pages are the same shell for every id."""
    return serve(("viewer", name), lambda: send_from_directory(STATIC, name))


@viewer.get("/viewer/<path:name>")
def files(name):
    return static_file(name)


@viewer.get("/")
def listing():
    return static_file("index.html")


@viewer.get("/matches/<match_id>")
def match_page(match_id):
    """The same shell for every id: the page asks the API for the match and shows its 404 if there is none."""
    return static_file("match.html")


@viewer.get("/tournaments")
def tournaments_listing():
    return static_file("tournaments.html")


@viewer.get("/tournaments/<tournament_id>")
def tournament_page(tournament_id):
    """One shell for every id, as for a match: the page shows the API's 404 if there is none."""
    return static_file("tournament.html")


@viewer.get("/ratings/<game>")
def leaderboard_page(game):
    """One shell for every game: the page shows the API's 404 for an unknown one."""
    return static_file("ratings.html")


@viewer.get("/accounts/<reference>")
def account_page(reference):
    return static_file("account.html")
