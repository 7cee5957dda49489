"""The clients docs/api.md tells users to generate from the committed openapi.yaml build and work: given the document,
when openapi-python-client generates a Python client, then every module of it imports (create_match included), it
warns of nothing but the charts' images, and its classes carry moves, views and stream frames to and from the server;
when openapi-typescript generates the TypeScript types, then a client of the feed and the moves written against them
type-checks with `tsc --strict` (clients/contract-check, installed here with `npm ci`)."""
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from api import examples
from api.schemas.games import schema_name
from domain.games import GAMES
from tests.support.http import bearer, make_client

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "openapi.yaml"
TYPESCRIPT = ROOT / "clients" / "contract-check"
IMAGES = "Unsupported content_type image/svg+xml"  # the charts: a generated client has no use for an SVG
# the streams of exports (docs/archive.md) are NDJSON alone: a generated function would read a whole archive into
# memory, so they are read line by line (cardroom dump) and the generator leaves them out
EXPORTS = "Unsupported content_type application/x-ndjson"


def warnings_of(output: str) -> list[str]:
    """The generator's warnings, each with the line that says why."""
    lines = [line for line in output.splitlines() if line.strip()]
    return [f"{line} {lines[i + 1] if i + 1 < len(lines) else ''}" for i, line in enumerate(lines)
            if line.startswith(("WARNING", "Unable to process"))]


@pytest.fixture(scope="module")
def python_client(tmp_path_factory):
    """The package openapi-python-client generates, imported from a temporary directory."""
    where = tmp_path_factory.mktemp("python_client")
    generator = Path(sys.executable).parent / "openapi-python-client"
    generated = subprocess.run(
        [str(generator), "generate", "--path", str(DOCUMENT), "--meta", "none", "--output-path",
         str(where / "cardroom_client")], capture_output=True, text=True, timeout=120, cwd=where,
        env={"PATH": f"{generator.parent}:/usr/bin:/bin"})
    assert generated.returncode == 0, generated.stdout + generated.stderr
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module("cardroom_client"), generated.stdout + generated.stderr
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n.startswith("cardroom_client")]:
            del sys.modules[name]


def test_every_module_of_the_generated_python_client_imports_and_only_the_charts_are_left_out(python_client):
    package, output = python_client
    modules = [module.name for module in pkgutil.walk_packages(package.__path__, "cardroom_client.")]
    for name in modules:
        importlib.import_module(name)
    assert "cardroom_client.api.matches.create_match" in modules
    assert "cardroom_client.api.feed.stream_my_turns" in modules
    warnings = warnings_of(output)
    assert sorted(IMAGES if IMAGES in warning else EXPORTS if EXPORTS in warning else warning
                  for warning in warnings) == [EXPORTS] * 3 + [IMAGES] * 2, warnings


def test_the_generated_python_classes_carry_moves_views_and_frames_to_and_from_the_server(python_client):
    models = importlib.import_module("cardroom_client.models")
    for game_id, game in GAMES.items():
        assert hasattr(models, f"{schema_name(game_id)}View")
        for action in game.INFO.actions:
            assert hasattr(models, f"{schema_name(game_id)}{schema_name(action)}"), action
    client = make_client()
    created = client.post("/v1/matches", json=examples.CREATE_MATCH).get_json()
    token = created["seats"][0]["token"]
    seen = models.Match.from_dict(client.get(f"/v1/matches/{created['id']}", headers=bearer(token)).get_json())
    assert isinstance(seen.view, models.MantisView) and seen.view.turn == 0 and seen.result is None
    steal = models.MantisSteal(action=models.MantisStealAction.STEAL, target=1)
    body = models.MoveRequest(move=steal, expected_version=seen.version).to_dict()
    moved = client.post(f"/v1/matches/{created['id']}/moves", headers=bearer(token), json=body)
    assert moved.status_code == 201, moved.get_json()
    events = models.Moved.from_dict(moved.get_json()).events
    assert isinstance(events[0], models.MovedEvent) and events[0].data.seat == 0
    frames = client.get(f"/v1/matches/{created['id']}/stream", headers={**bearer(token),
                                                                         "Accept": "application/x-ndjson"},
                        buffered=False)
    document = models.MatchFrame.from_dict(json.loads(next(frames.response)))
    frames.close()
    assert document.version == models.Moved.from_dict(moved.get_json()).version and document.legal_moves == []


@pytest.fixture(scope="module")
def typescript_tools():
    """clients/contract-check's pinned openapi-typescript, openapi-fetch and typescript, installed by `npm ci` when
    node_modules is missing or older than the lock."""
    installed = TYPESCRIPT / "node_modules" / ".package-lock.json"
    lock = TYPESCRIPT / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        run(["npm", "ci", "--no-audit", "--no-fund"], timeout=300)
    return TYPESCRIPT


def run(command: list[str], timeout: int) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=TYPESCRIPT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_generated_typescript_types_type_check_a_feed_client_strictly(typescript_tools):
    run(["npm", "run", "--silent", "generate"], timeout=120)
    types = (TYPESCRIPT / "generated" / "cardroom.d.ts").read_text()
    assert 'result: components["schemas"]["Result"] | null;' in types
    assert 'type: "your_turn";' in types and 'type: "GameEvent"' not in types
    run(["npm", "run", "--silent", "check"], timeout=300)
