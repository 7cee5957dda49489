"""The viewer: pages for spectators, players reviewing a match and auditors (docs/viewer.md).

HTML shells: `/` (the listing), `/matches/<id>` (one match; `?version=N&seat=S` deep-links a moment
and a seat), `/tournaments` and `/tournaments/<id>` (standings, the ratings chart, the rounds), `/ratings/<game>` (a
ladder's leaderboard) and `/accounts/<id or name>` (ratings, their history charts, recent matches), and the plain ES modules and CSS under api/static/ that draw them from the public API. No
build step and nothing from another host: the browser loads the modules as they are in the repository.
"""
from pathlib import Path

from flask import Blueprint, send_from_directory

STATIC = Path(__file__).resolve().parent / "static"

viewer = Blueprint("viewer", __name__, static_folder=STATIC, static_url_path="/viewer")


@viewer.get("/")
def listing():
    return send_from_directory(STATIC, "index.html")


@viewer.get("/matches/<match_id>")
def match_page(match_id):
    """The same shell for every id: the page asks the API for the match and shows its 404 if there is none."""
    return send_from_directory(STATIC, "match.html")


@viewer.get("/tournaments")
def tournaments_listing():
    return send_from_directory(STATIC, "tournaments.html")


@viewer.get("/tournaments/<tournament_id>")
def tournament_page(tournament_id):
    """One shell for every id, as for a match: the page shows the API's 404 if there is none."""
    return send_from_directory(STATIC, "tournament.html")


@viewer.get("/ratings/<game>")
def leaderboard_page(game):
    """One shell for every game: the page shows the API's 404 for an unknown one."""
    return send_from_directory(STATIC, "ratings.html")


@viewer.get("/accounts/<reference>")
def account_page(reference):
    return send_from_directory(STATIC, "account.html")
