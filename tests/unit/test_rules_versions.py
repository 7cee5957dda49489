"""A match is replayed and verified by the rules version it was made with: the exports pinned from every version
still verify after the rules change, each by its own rules (docs/fairness.md, "Rules versions")."""
import copy
import json
import pathlib

import pytest

from domain import match
from domain.games import GAMES, get_game
from domain.errors import InvalidSetup
from service.audit import verify_export
from tests.support import mantis_v2
from tests.support.http import make_client
from tests.support.service import InlineBots, make_service
from tests.unit.test_audit import rechained

EXPORTS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "exports"
VERSION_1 = sorted(EXPORTS.glob("*-unversioned.json")) + sorted(EXPORTS.glob("*-rules-1.json"))


def pinned(name: str) -> dict:
    return json.loads((EXPORTS / name).read_text())


def tanks_dealt(document: dict) -> list[int]:
    return [len(tank) for tank in next(e for e in document["events"] if e["type"] == "dealt")["data"]["tanks"]]


def test_every_game_s_current_rules_are_version_1_and_a_new_match_logs_them_with_the_engine_s():
    assert {game.INFO.rules_version for game in GAMES.values()} == {1}
    created = match.create("blockers", {}, [{"bot": "greedy"}] * 2, "commitment", "server")[0]["data"]
    assert (created["rules_version"], created["engine_version"]) == (1, match.ENGINE_VERSION)


@pytest.mark.parametrize("path", VERSION_1, ids=lambda path: path.stem)
def test_an_export_pinned_from_version_1_verifies_by_version_1(path):
    verdict = verify_export(json.loads(path.read_text()))
    assert verdict.ok and verdict.complete, verdict.summary()
    assert f"rules version 1, engine version {match.ENGINE_VERSION}" in verdict.checked[2]


@pytest.mark.parametrize("name", ["mantis-unversioned.json", "mantis-rules-1.json"])
def test_when_mantis_s_rules_change_a_version_1_export_still_verifies_and_replays_by_version_1(name):
    document = pinned(name)
    with mantis_v2.registered():
        verdict = verify_export(document)
        replayed = match.evolve_all(None, document["events"])
    assert verdict.ok, verdict.summary()
    assert verdict.checked[2] == "by mantis rules version 1, engine version 1"
    assert tanks_dealt(document) == [4, 4]
    assert replayed["status"] == match.FINISHED and match.game_of(replayed) is GAMES["mantis"]


def test_an_export_pinned_from_version_2_verifies_and_replays_by_version_2():
    document = pinned("mantis-rules-2.json")
    with mantis_v2.registered():
        verdict = verify_export(document)
        replayed = match.evolve_all(None, document["events"])
        assert match.game_of(replayed) is mantis_v2
    assert verdict.ok and verdict.checked[2] == "by mantis rules version 2, engine version 1", verdict.summary()
    assert tanks_dealt(document) == [3, 3]


def test_without_version_2_s_rules_its_export_is_a_fault_naming_them():
    verdict = verify_export(pinned("mantis-rules-2.json"))
    assert not verdict.ok and verdict.first_bad_event == 1 and "unknown_rules_version" in verdict.problem


@pytest.mark.parametrize("forged_version", [1, 2])
def test_a_log_relabelled_with_other_rules_than_it_was_played_by_fails_at_the_deal(forged_version):
    name = {1: "mantis-rules-2.json", 2: "mantis-rules-1.json"}[forged_version]
    forged = copy.deepcopy(pinned(name))
    forged["events"][0]["data"]["rules_version"] = forged_version
    with mantis_v2.registered():
        verdict = verify_export(rechained(forged))
    assert not verdict.ok and verdict.first_bad_event == 2 and "'dealt'" in verdict.problem


def test_a_log_of_an_engine_version_the_verifier_does_not_know_is_a_fault():
    forged = copy.deepcopy(pinned("blockers-rules-1.json"))
    forged["events"][0]["data"]["engine_version"] = match.ENGINE_VERSION + 1
    verdict = verify_export(rechained(forged))
    assert not verdict.ok and verdict.first_bad_event == 1 and "engine version" in verdict.problem


def test_a_match_begun_before_a_rules_change_is_played_on_by_its_own_rules():
    service = make_service(InlineBots())
    created = service.create("mantis", {}, [{"name": "ann"}, {"bot": "greedy"}], seed="before the change")
    token = created["seats"][0]["token"]
    with mantis_v2.registered():
        later = service.create("mantis", {}, [{"bot": "greedy"}] * 2)
        while (table := service.get(created["id"], token))["status"] != match.FINISHED:
            moves = service.legal_moves(created["id"], token)["moves"]
            service.move(created["id"], token, moves[0], expected_version=table["version"])
        exports = [service.export(match_id, None) for match_id in (created["id"], later["id"])]
        assert [verify_export(document).ok for document in exports] == [True, True]
    assert [tanks_dealt(document) for document in exports] == [[4, 4], [3, 3]]
    assert [document["events"][0]["data"]["rules_version"] for document in exports] == [1, 2]


def test_an_unknown_rules_version_is_refused_with_its_reason():
    with pytest.raises(InvalidSetup) as refused:
        get_game("mantis", 7)
    assert refused.value.reason == "unknown_rules_version"


def test_the_catalog_says_which_rules_version_new_matches_get():
    client = make_client()
    with mantis_v2.registered():
        assert client.get("/v1/games/mantis").get_json()["rules_version"] == 2
    assert {game["id"]: game["rules_version"] for game in client.get("/v1/games").get_json()["games"]} == {
        game_id: 1 for game_id in GAMES}
