"""The viewer's pages and modules are served by the app, each module they import exists, and every game
has a renderer of the same shape (the browser tests: tests/e2e/test_viewer.py)."""
import re
from pathlib import Path

import pytest

from domain.games import GAMES
from tests.support.http import assert_error

STATIC = Path(__file__).resolve().parents[2] / "api" / "static"
IMPORTS = re.compile(r'^import .* from "(\.[^"]+)";$', re.MULTILINE)


@pytest.mark.parametrize("path, shell", [("/", "listing.js"), ("/matches/any-id", "match.js"),
                                         ("/tournaments", "tournaments.js"), ("/tournaments/any-id", "tournament.js"),
                                         ("/ratings/mantis", "ratings.js"), ("/accounts/any-id", "account.js")])
def test_the_pages_are_html_shells_that_load_their_module(client, path, shell):
    page = client.get(path)
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert f'<script type="module" src="/viewer/{shell}">' in page.get_data(as_text=True)


def test_every_module_is_served_as_javascript_and_every_import_resolves(client):
    modules = sorted(STATIC.rglob("*.js"))
    assert len(modules) >= 4 + len(GAMES)
    for module in modules:
        served = client.get(f"/viewer/{module.relative_to(STATIC).as_posix()}")
        assert served.status_code == 200 and served.mimetype in ("text/javascript", "application/javascript")
        for imported in IMPORTS.findall(module.read_text()):
            assert (module.parent / imported).resolve().is_file(), f"{module.name} imports {imported}"


def renderers() -> dict:
    """match.js's RENDERERS, game id -> module file: `{ mantis, "9stax": ninestax, ... }`."""
    match_page = (STATIC / "match.js").read_text()
    files = dict(re.findall(r'^import \* as (\w+) from "\./games/(\w+)\.js";$', match_page, re.MULTILINE))
    table = re.search(r"const RENDERERS = \{(.*?)\};", match_page).group(1)
    entries = [entry.replace('"', "").split(":") for entry in table.replace(" ", "").split(",")]
    return {entry[0]: files[entry[-1]] for entry in entries}


def test_every_game_has_a_renderer_with_render_and_full_view():
    found = renderers()
    assert set(found) == set(GAMES)
    for module in found.values():
        source = (STATIC / "games" / f"{module}.js").read_text()
        assert "export function render(view, match)" in source and "export function fullView(state)" in source


def test_a_missing_static_file_is_a_404_in_the_error_shape(client):
    assert_error(client.get("/viewer/no-such-module.js"), 404)
