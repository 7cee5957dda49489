"""The transparency log: every finished match's head hash is a leaf, appended once; the signed head, the inclusion and
consistency proofs check offline, and a rewritten log or tree does not (docs/fairness.md, "Transparency")."""
import json

import pytest

import cli

from eventstore.memory import InMemoryEventStore
from eventstore.transparency import InMemoryTransparencyStore
from service.errors import NotFound, Unavailable, Unprocessable
from service.signing import Signer
from service.transparency import NotProven, TransparencyService, check_consistency, check_head, check_inclusion
from tests.support.http import assert_error, finished_match, make_client
from tests.support.service import InlineBots, RecordedBots, make_service

BOTS = [{"bot": "greedy"}, {"bot": "greedy"}]


class Served:
    """A match service on the in-memory store whose finished matches go into a transparency log."""

    def __init__(self, transparency_of=lambda log: log, signer=None):
        self.store = InMemoryEventStore()
        self.leaves = InMemoryTransparencyStore()
        self.log = TransparencyService(self.leaves, self.store, signer or Signer.generated())
        self.matches = make_service(InlineBots(), store=self.store, transparency=transparency_of(self.log))

    def finish(self, count: int, game: str = "mantis") -> list[str]:
        return [self.matches.create(game, {}, BOTS)["id"] for _ in range(count)]

    def last_hash(self, match_id: str) -> str:
        return self.matches.export(match_id, None)["events"][-1]["hash"]


@pytest.fixture
def served():
    return Served()


def test_each_finished_match_is_a_leaf_in_the_order_they_finished_and_a_waiting_one_is_not(served):
    finished = served.finish(3)
    waiting = served.matches.create("mantis", {}, [{"name": "ann"}, {"open": True}])["id"]
    assert [served.leaves.index_of(match_id) for match_id in finished] == [0, 1, 2]
    with pytest.raises(NotFound) as refused:
        served.log.inclusion(waiting)
    assert refused.value.reason == "match_not_in_log"


def test_every_finished_match_s_export_checks_as_included_in_the_signed_head(served):
    finished = served.finish(5)
    head = served.log.head()
    check_head(head)
    assert head["tree_size"] == 5
    for match_id in finished:
        shown = check_inclusion(match_id, served.last_hash(match_id), head, served.log.inclusion(match_id))
        assert shown.startswith(f"match {match_id} is leaf")


def test_a_saved_head_checks_as_the_start_of_every_later_head(served):
    served.finish(3)
    saved = served.log.head()
    served.finish(4)
    later = served.log.head()
    check_head(later, saved["public_key"])
    assert "of 3 leaves is the start of the signed tree of 7" in check_consistency(
        saved, later, served.log.consistency(saved["tree_size"], later["tree_size"]))
    first = served.finish(1)[0]
    old_proof = served.log.inclusion(first, tree_size=8)
    check_inclusion(first, served.last_hash(first), served.log.head(), old_proof)


def test_a_rewritten_match_log_is_not_in_the_signed_tree(served):
    match_id = served.finish(2)[1]
    head = served.log.head()
    with pytest.raises(NotProven, match="not in the tree"):
        check_inclusion(match_id, "00" * 32, head, served.log.inclusion(match_id))


def test_a_tree_rebuilt_with_one_leaf_changed_is_not_consistent_with_a_saved_head():
    key = Signer.generated()
    served = Served(signer=key)
    matches = served.finish(3)
    saved = served.log.head()
    rebuilt = Served(signer=key)
    for index, match_id in enumerate(matches):  # the server rewrites the second match's log, then goes on
        rebuilt.leaves.append(match_id, served.leaves.leaves(index, index + 1)[0] if index != 1 else "ab" * 32)
    rebuilt.finish(2)
    later = rebuilt.log.head()
    check_head(later, saved["public_key"])
    with pytest.raises(NotProven, match="does not extend"):
        check_consistency(saved, later, rebuilt.log.consistency(3, 5))


def test_a_head_with_a_changed_root_or_signed_by_another_key_is_refused(served):
    served.finish(1)
    head = served.log.head()
    with pytest.raises(NotProven, match="signature"):
        check_head({**head, "root_hash": "00" * 32})
    with pytest.raises(NotProven, match="another key"):
        check_head(head, Signer.generated().public_key)


def test_tree_sizes_the_log_does_not_have_are_refused_with_a_reason(served):
    first, *_ = served.finish(3)
    for ask in (lambda: served.log.consistency(4, 3), lambda: served.log.consistency(1, 9),
                lambda: served.log.inclusion(first, tree_size=0), lambda: served.log.inclusion(first, tree_size=4),
                lambda: served.log.consistency(-1, 2)):
        with pytest.raises(Unprocessable) as refused:
            ask()
        assert refused.value.reason == "tree_size_out_of_range"


class DiesBeforeRecording:
    """A transparency log whose process dies between the finishing append and the leaf's append."""

    def __init__(self, log):
        self._log = log

    def note_due(self, match_id, since):
        self._log.note_due(match_id, since)

    def record(self, match_id, head):
        raise SystemExit("killed")


def test_a_leaf_lost_with_its_process_is_appended_once_by_the_janitor():
    served = Served(DiesBeforeRecording)
    with pytest.raises(SystemExit):
        served.finish(1)
    match_id = served.store.matches(None, None, 1)[0][1]
    assert served.leaves.size() == 0
    assert served.log.record_due(0) == [(match_id, "recorded")] and served.log.record_due(0) == []
    served.log.record(match_id, served.last_hash(match_id))
    assert served.leaves.size() == 1
    check_inclusion(match_id, served.last_hash(match_id), served.log.head(), served.log.inclusion(match_id))


def test_a_note_whose_finishing_append_never_happened_is_dropped():
    served = Served()
    match_id = make_service(RecordedBots(), store=served.store).create("mantis", {}, BOTS)["id"]
    served.log.note_due(match_id, 0.0)
    assert served.log.record_due(0) == [(match_id, "unfinished")] and served.leaves.size() == 0


def test_without_a_key_the_log_is_kept_but_no_head_is_signed():
    store = InMemoryEventStore()
    unsigned = TransparencyService(InMemoryTransparencyStore(), store, None)
    match_id = make_service(InlineBots(), store=store, transparency=unsigned).create("mantis", {}, BOTS)["id"]
    assert unsigned.inclusion(match_id)["leaf_index"] == 0
    for ask in (unsigned.head, unsigned.public_key):
        with pytest.raises(Unavailable) as refused:
            ask()
        assert refused.value.reason == "transparency_unsigned"


def test_over_http_the_head_and_proofs_are_served_and_bad_sizes_or_matches_get_reasons():
    client = make_client()
    match_id = finished_match(client)["id"]
    head = client.get("/v1/transparency/head").get_json()
    check_head(head, client.get("/v1/transparency/key").get_json()["public_key"])
    proof = client.get(f"/v1/transparency/proof/inclusion?match={match_id}&tree_size=1").get_json()
    last_hash = client.get(f"/v1/matches/{match_id}/export").get_json()["events"][-1]["hash"]
    check_inclusion(match_id, last_hash, head, proof)
    assert client.get("/v1/transparency/proof/consistency?first=0&second=1").get_json() == {
        "first": 0, "second": 1, "proof": []}
    assert_error(client.get("/v1/transparency/proof/inclusion?match=nope"), 404, "match_not_in_log")
    assert_error(client.get(f"/v1/transparency/proof/inclusion?match={match_id}&tree_size=2"), 422,
                 "tree_size_out_of_range")
    assert_error(client.get("/v1/transparency/proof/consistency?first=2&second=1"), 422, "tree_size_out_of_range")
    assert_error(client.get("/v1/transparency/proof/consistency?first=x"), 422)
    assert_error(client.get("/v1/transparency/proof/inclusion"), 422)


def saved(tmp_path, name, document) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def test_cardroom_verify_proves_offline_an_export_in_a_saved_head_and_a_saved_head_the_start_of_a_later_one(
        tmp_path, capsys):
    served = Served()
    first = served.finish(2)[0]
    head = saved(tmp_path, "head-2.json", served.log.head())
    served.finish(3)
    files = {"export": saved(tmp_path, "export.json", served.matches.export(first, None)),
             "inclusion": saved(tmp_path, "inclusion.json", served.log.inclusion(first, tree_size=2)),
             "later": saved(tmp_path, "head-5.json", served.log.head()),
             "consistency": saved(tmp_path, "consistency.json", served.log.consistency(2, 5))}
    assert cli.main(["verify", files["export"], "--head", head, "--proof", files["inclusion"]]) == 0
    assert f"OK: match {first} is leaf 0 of the signed tree of 2" in capsys.readouterr().out
    assert cli.main(["verify", head, "--head", files["later"], "--proof", files["consistency"]]) == 0
    assert "OK: the signed tree of 2 leaves is the start of the signed tree of 5" in capsys.readouterr().out
    assert cli.main(["verify", "--json", head, "--head", files["later"], "--proof", files["consistency"]]) == 0
    assert json.loads(capsys.readouterr().out)["transparency"]["ok"] is True


def test_cardroom_verify_says_not_proven_for_another_match_s_proof_or_a_rewritten_tree_and_2_without_a_proof(
        tmp_path, capsys):
    key = Signer.generated()
    served, rebuilt = Served(signer=key), Served(signer=key)
    first, second = served.finish(2)
    head = saved(tmp_path, "head.json", served.log.head())
    export = saved(tmp_path, "export.json", served.matches.export(first, None))
    other = saved(tmp_path, "other.json", {**served.log.inclusion(second), "match": first})
    assert cli.main(["verify", export, "--head", head, "--proof", other]) == 1
    assert "NOT PROVEN: match" in capsys.readouterr().out
    rebuilt.leaves.append(first, "ab" * 32)
    rebuilt.finish(2)
    later = saved(tmp_path, "later.json", rebuilt.log.head())
    proof = saved(tmp_path, "proof.json", rebuilt.log.consistency(2, 3))
    assert cli.main(["verify", head, "--head", later, "--proof", proof]) == 1
    assert "NOT PROVEN: the tree of 3 leaves does not extend the tree of 2" in capsys.readouterr().out
    assert cli.main(["verify", head, "--head", later]) == 2
    assert "--proof FILE" in capsys.readouterr().err
