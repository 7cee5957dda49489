"""The audit: an export of a finished match verifies, and every kind of tampering is caught and named."""
import copy
import json
import subprocess
import sys

import pytest

from eventstore.chain import GENESIS, event_hash
from service.audit import verify_export
from tests.support.http import assert_error, bearer, make_client
from tests.support.service import InlineBots, make_service

BOTS = [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}]


@pytest.fixture(scope="module")
def finished_export():
    service = make_service(InlineBots())
    created = service.create("mantis", {}, BOTS, seed="audit")
    return service.export(created["id"], None)


def rechained(document, renumber=False):
    """What a forger who rewrites history would do: fix up the versions and the hash chain."""
    prev = GENESIS
    for position, event in enumerate(document["events"], start=1):
        if renumber:
            event["version"] = position
        event["prev"] = prev
        event["hash"] = prev = event_hash(event)
    return document


def tampered(document, change, rechain=True, renumber=False):
    forged = copy.deepcopy(document)
    change(forged["events"])
    return rechained(forged, renumber) if rechain else forged


def first_of(events, kind):
    return next(e for e in events if e["type"] == kind)


def test_a_finished_match_verifies_completely(finished_export):
    verdict = verify_export(finished_export)
    assert verdict.ok and verdict.complete and verdict.first_bad_event is None
    assert verdict.checked == ["hash chain", "seed commitment", "by mantis rules version 1, engine version 1",
                               "deal and shuffles", "every move", "result"]


def swap_draw_cards(events):
    pile = first_of(events, "dealt")["data"]["draw_pile"]
    pile[0], pile[1] = pile[1], pile[0]


def edit_tank_card(events):
    card = first_of(events, "dealt")["data"]["tanks"][0][0]
    card["front"] = next(colour for colour in card["back"] if colour != card["front"])


def edit_move(events):
    move = first_of(events, "moved")["data"]
    move["move"] = {"action": "steal", "target": (move["seat"] + 1) % 3} if move["move"]["action"] == "score" \
        else {"action": "score"}


def edit_score(events):
    events[-1]["data"]["result"]["scores"]["0"] += 1


def edit_winner(events):
    events[-1]["data"]["result"]["winners"] = [9]


def reorder(events):
    i = events.index(first_of(events, "moved"))
    events[i], events[i + 1] = events[i + 1], events[i]


def drop_a_move(events):
    i = [n for n, e in enumerate(events) if e["type"] == "moved"][3]
    del events[i:i + 2]


def insert_an_event(events):
    events.insert(3, copy.deepcopy(events[3]))


def change_seed(events):
    events[-1]["data"]["seed"] = "another seed"


def change_commitment(events):
    events[0]["data"]["commitment"] = "0" * 64


@pytest.mark.parametrize("change", [swap_draw_cards, edit_tank_card, edit_move, edit_score, edit_winner, reorder,
                                    drop_a_move, insert_an_event, change_seed, change_commitment])
def test_tampering_is_caught_even_when_the_forger_rebuilds_the_hash_chain(finished_export, change):
    verdict = verify_export(tampered(finished_export, change, renumber=change in (drop_a_move, insert_an_event)))
    assert not verdict.ok and verdict.first_bad_event is not None and verdict.problem


@pytest.mark.parametrize("change", [swap_draw_cards, edit_move, edit_score, reorder, drop_a_move, insert_an_event])
def test_tampering_without_rebuilding_the_chain_breaks_the_chain(finished_export, change):
    verdict = verify_export(tampered(finished_export, change, rechain=False))
    assert not verdict.ok and any(word in verdict.problem for word in ("hash", "version", "prev"))


def test_a_rated_match_verifies_completely():
    service = make_service(InlineBots())
    created = service.create("mantis", {}, [{"bot": "random"}, {"bot": "greedy"}], clock_spec={"move_ms": 10_000},
                             rated=True)
    export = service.export(created["id"], None)
    assert export["events"][0]["data"]["rated"] is True
    verdict = verify_export(export)
    assert verdict.ok and verdict.complete, verdict.summary()


def test_the_verdict_names_the_first_bad_event(finished_export):
    verdict = verify_export(tampered(finished_export, swap_draw_cards))
    assert verdict.first_bad_event == first_of(finished_export["events"], "dealt")["version"]
    moved = first_of(finished_export["events"], "moved")
    assert verify_export(tampered(finished_export, edit_move)).first_bad_event == moved["version"] + 1


def test_a_wrong_commitment_is_named_as_such(finished_export):
    verdict = verify_export(tampered(finished_export, change_seed))
    assert verdict.first_bad_event == 1 and "commitment" in verdict.problem


def test_a_redacted_export_of_a_match_going_on_checks_its_links_only():
    service = make_service()
    created = service.create("mantis", {}, [{"name": "ann"}, {"name": "bob"}])
    token = created["seats"][0]["token"]
    service.move(created["id"], token, {"action": "score"}, 2)
    export = service.export(created["id"], token)
    assert export["complete"] is False and export["exported_for"] == 0
    assert export["events"][1]["data"]["draw_pile"][1] is None and "nonce" not in export["events"][1]
    verdict = verify_export(export)
    assert verdict.ok and not verdict.complete


def test_the_server_audits_a_match_still_going_on_with_its_secret_seed_without_revealing_it():
    service = make_service()
    created = service.create("mantis", {}, [{"name": "ann"}, {"name": "bob"}], seed="kept secret")
    service.move(created["id"], created["seats"][0]["token"], {"action": "score"}, 2)
    report = service.audit(created["id"])
    assert report["ok"] and "kept secret" not in json.dumps(report)


def test_the_cardroom_command_verifies_a_file_offline_and_exits_non_zero_on_a_fault(finished_export, tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(finished_export))
    bad.write_text(json.dumps(tampered(finished_export, edit_score)))
    ok = subprocess.run([sys.executable, "-m", "cli", "verify", str(good)], capture_output=True, text=True)
    fault = subprocess.run([sys.executable, "-m", "cli", "verify", str(bad)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("OK:")
    assert fault.returncode == 1 and fault.stdout.startswith(f"FAULT at event {len(finished_export['events'])}")
    unreadable = subprocess.run([sys.executable, "-m", "cli", "verify", str(tmp_path / "none.json")],
                                capture_output=True, text=True)
    assert unreadable.returncode == 2


def test_the_installed_cardroom_console_script_runs_the_verifier(finished_export, tmp_path):
    import pathlib
    document = tmp_path / "match.json"
    document.write_text(json.dumps(finished_export))
    script = pathlib.Path(sys.executable).parent / "cardroom"
    verified = subprocess.run([str(script), "verify", "--json", str(document)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["ok"] is True


def test_replay_of_a_finished_match_shows_any_seat_and_the_full_state_at_any_version():
    client = make_client(InlineBots())
    match_id = client.post("/v1/matches", json={"game": "mantis", "seats": BOTS, "seed": "replay"}).get_json()["id"]
    steps = client.get(f"/v1/matches/{match_id}/moves").get_json()["moves"]
    assert steps and {"version", "seat", "move"} <= set(steps[0])
    at = steps[2]["version"]
    full = client.get(f"/v1/matches/{match_id}/state?version={at}&full=true").get_json()
    as_seat = client.get(f"/v1/matches/{match_id}/state?version={at}&seat=1").get_json()
    assert len(full["full_state"]["draw_pile"]) == full["view"]["draw_pile"]["count"]
    assert as_seat["you"] == 1 and as_seat["view"]["own_score_pile"] is not None
    assert client.get(f"/v1/matches/{match_id}/audit").get_json()["ok"] is True
    exported = client.get(f"/v1/matches/{match_id}/export").get_json()
    assert verify_export(exported).ok


def test_other_seats_and_the_full_state_stay_hidden_until_the_end():
    client = make_client()
    created = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    state_url = f"/v1/matches/{created['id']}/state?version=2"
    assert_error(client.get(f"{state_url}&full=true"), 403, "match_not_finished")
    assert_error(client.get(f"{state_url}&seat=1", headers=bearer(created["seats"][0]["token"])), 403,
                 "match_not_finished")
