"""`cardroom dump` from a running server's public API and `cardroom verify DIR` offline (cli/archive.py): a file a
day and a manifest, written again only for the days not yet there; every match checked, failures named by match id;
and the DuckDB lines of docs/archive.md run as written on the dump."""
import gzip
import json
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import jsonschema_rs
import pytest
import redis

import cli
from cli import archive
from cli.bot import Client
from eventstore.redis_store import RedisEventStore
from tests.support.archive import seed_finished

pytestmark = pytest.mark.e2e
DOCS = Path(__file__).resolve().parents[2] / "docs" / "archive.md"
HOUR_MS = 3_600_000


def at(day: str, hour: int) -> int:
    """Milliseconds since the epoch of that hour of that day (UTC)."""
    return round(datetime.fromisoformat(f"{day}T{hour:02d}:00:00+00:00").timestamp() * 1000)


@pytest.fixture(scope="module")
def store(redis_url):
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield RedisEventStore(client)
    client.close()


@pytest.fixture(scope="module")
def seeded(store):
    """Matches finished on 2001-02-03 (5 of Mantis, 2 of Blockers), none on the 4th, 3 of Mantis on the 5th."""
    return {"2001-02-03": seed_finished(store, 5, at("2001-02-03", 1), HOUR_MS)
            + seed_finished(store, 2, at("2001-02-03", 20), HOUR_MS, game="blockers"),
            "2001-02-05": seed_finished(store, 3, at("2001-02-05", 23), 60_000)}


def dump(directory: Path, server: str, *options: str) -> int:
    return cli.main(["dump", str(directory), "--url", server, *options])


def documented_schemas() -> dict[str, dict]:
    """The JSON Schemas of docs/archive.md, by their $id."""
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOCS.read_text(), re.S)]
    return {schema["$id"]: schema for schema in blocks if "$id" in schema}


def file_ids(path: Path) -> list[str]:
    with gzip.open(path, "rb") as lines:
        return [json.loads(line)["match_id"] for line in lines]


def test_a_dump_holds_a_file_a_day_with_a_manifest_and_verifies_whole(server, seeded, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(archive, "MOST_PER_REQUEST", 2)  # several requests a day, each resumed after the last
    assert dump(tmp_path, server, "--since", "2001-02-03", "--until", "2001-02-06") == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert [(d["day"], d["matches"]) for d in manifest["days"]] == [("2001-02-03", 7), ("2001-02-04", 0),
                                                                     ("2001-02-05", 3)]
    assert file_ids(tmp_path / "2001-02-03.ndjson.gz") == seeded["2001-02-03"]
    assert file_ids(tmp_path / "2001-02-05.ndjson.gz") == seeded["2001-02-05"]
    assert not (tmp_path / "2001-02-04.ndjson.gz").exists()
    assert (manifest["matches"], manifest["first"], manifest["last"]) == (
        10, seeded["2001-02-03"][0], seeded["2001-02-05"][-1])
    assert manifest["sha256"] == archive.manifest_sha256(manifest)
    capsys.readouterr()
    assert cli.main(["verify", str(tmp_path)]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith("OK: 10 matches in 3 days") and printed.err == ""  # no bar: not a terminal


def test_verifying_a_dump_draws_a_progress_bar_when_its_output_is_a_terminal(server, seeded, tmp_path, capsys,
                                                                             monkeypatch):
    assert dump(tmp_path, server, "--since", "2001-02-05", "--until", "2001-02-06") == 0
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    capsys.readouterr()
    assert cli.main(["verify", str(tmp_path)]) == 0
    assert "3/3" in capsys.readouterr().err


def test_every_line_and_the_manifest_of_a_dump_follow_the_schemas_of_the_docs(server, seeded, tmp_path):
    assert dump(tmp_path, server, "--since", "2001-02-03", "--until", "2001-02-06") == 0
    schemas = documented_schemas()
    export, manifest = (jsonschema_rs.validator_for(schemas[name]) for name in ("cardroom-export/1", "cardroom-dump/1"))
    manifest.validate(json.loads((tmp_path / "manifest.json").read_text()))
    for day in tmp_path.glob("*.ndjson.gz"):
        with gzip.open(day, "rb") as lines:
            for line in lines:
                export.validate(json.loads(line))


def test_a_dump_of_one_game_holds_its_matches_only(server, seeded, tmp_path):
    assert dump(tmp_path, server, "--since", "2001-02-03", "--until", "2001-02-04", "--game", "blockers") == 0
    assert file_ids(tmp_path / "2001-02-03.ndjson.gz") == seeded["2001-02-03"][5:]
    assert dump(tmp_path, server, "--since", "2001-02-03", "--until", "2001-02-05") == 2  # not another game's dump


def test_a_second_dump_writes_only_the_days_not_yet_there(server, store, seeded, tmp_path, capsys):
    assert dump(tmp_path, server, "--since", "2001-02-03", "--until", "2001-02-05") == 0
    before = {path.name: path.stat().st_mtime_ns for path in tmp_path.glob("*.ndjson.gz")}
    capsys.readouterr()
    assert dump(tmp_path, server, "--since", "2001-02-03", "--until", "2001-02-06") == 0
    assert capsys.readouterr().out.strip() == "1 days written: 2001-02-05"
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.ndjson.gz") if p.name in before} == before
    assert json.loads((tmp_path / "manifest.json").read_text())["matches"] == 10
    assert cli.main(["verify", str(tmp_path)]) == 0


def test_a_day_not_yet_over_is_left_for_a_later_dump(server, seeded, tmp_path):
    client = Client(server)
    written = archive.dump(tmp_path, client, datetime(2001, 2, 3).date(), datetime(2001, 2, 6).date(), None,
                           source=server, now=lambda: datetime(2001, 2, 5, 12, tzinfo=timezone.utc))
    assert written == ["2001-02-03", "2001-02-04"]


def test_verifying_a_tampered_dump_names_the_match_and_the_file_and_fails(server, seeded, tmp_path, capsys):
    assert dump(tmp_path, server, "--since", "2001-02-05", "--until", "2001-02-06") == 0
    day = tmp_path / "2001-02-05.ndjson.gz"
    with gzip.open(day, "rb") as lines:
        documents = [json.loads(line) for line in lines]
    documents[1]["events"][-1]["data"]["result"] = {"tampered": True}
    del documents[2]["events"][0]["nonce"]
    with gzip.open(day, "wb") as out:
        out.writelines(json.dumps(d).encode() + b"\n" for d in documents)
    capsys.readouterr()
    assert cli.main(["verify", str(tmp_path)]) == 1
    printed = capsys.readouterr().out
    assert f"FAULT {seeded['2001-02-05'][1]}: " in printed
    assert "FAULT 2001-02-05.ndjson.gz: its sha256 is not the manifest's" in printed
    assert f"FAULT {seeded['2001-02-05'][2]}: an export the verifier cannot read (KeyError" in printed
    assert seeded["2001-02-05"][0] not in printed


def test_verifying_a_dump_whose_file_was_cut_short_names_the_file_and_fails(server, seeded, tmp_path, capsys):
    assert dump(tmp_path, server, "--since", "2001-02-05", "--until", "2001-02-06") == 0
    day = tmp_path / "2001-02-05.ndjson.gz"
    day.write_bytes(day.read_bytes()[:-100])
    capsys.readouterr()
    assert cli.main(["verify", str(tmp_path)]) == 1
    assert "FAULT 2001-02-05.ndjson.gz: " in capsys.readouterr().out


@pytest.mark.parametrize("days", [[{"day": "2001-02-03"}], [{"day": "2001-02-03", "file": "../../etc/passwd",
                                                               "matches": 1, "sha256": None, "first": None,
                                                               "last": None}], "all"])
def test_verifying_a_manifest_of_another_shape_is_a_fault_not_a_crash(tmp_path, capsys, days):
    (tmp_path / "manifest.json").write_text(json.dumps({"format": archive.DUMP_FORMAT, "days": days}))
    assert cli.main(["verify", str(tmp_path)]) == 1
    assert capsys.readouterr().out.startswith("FAULT manifest: not a cardroom-dump/1 manifest")


def test_verifying_a_manifest_that_is_not_an_object_is_a_fault_not_a_crash(tmp_path, capsys):
    (tmp_path / "manifest.json").write_text("[1, 2]")
    assert cli.main(["verify", str(tmp_path)]) == 1
    assert capsys.readouterr().out.startswith("FAULT manifest: not a cardroom-dump/1 manifest")


def test_verifying_a_directory_without_a_manifest_says_so(tmp_path, capsys):
    assert cli.main(["verify", str(tmp_path)]) == 2
    assert "no manifest.json" in capsys.readouterr().err


def test_the_duckdb_lines_of_the_docs_run_as_written_on_a_dump(server, seeded, tmp_path, monkeypatch):
    assert dump(tmp_path / "dump", server, "--since", "2001-02-03", "--until", "2001-02-06") == 0
    lines = re.search(r"```python\n(import duckdb\n.*?)```", DOCS.read_text(), re.S).group(1)
    assert len(lines.strip().splitlines()) <= 5
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(lines, namespace)
    assert [(game, count) for game, count, *_ in namespace["per_game"]] == [("blockers", 2), ("mantis", 8)]
