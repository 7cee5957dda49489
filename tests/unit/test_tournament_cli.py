"""`cardroom verify` on a tournament's export, and the standings table `cardroom tournament` prints."""
import json

from cli import main
from cli.tournament import table
from tests.support.service import InlineTournaments, make_tournaments

SWISS = {"game": "mantis", "options": {}, "format": "swiss", "rounds": 2, "table_size": 2, "max_parallel": 4,
         "entrants": [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}]}


def test_verify_checks_a_tournament_export_offline_and_names_a_forgery(tmp_path, capsys):
    service = make_tournaments(InlineTournaments())
    tournament_id = service.create(SWISS)["id"]
    export = service.export(tournament_id)
    (tmp_path / "t.json").write_text(json.dumps(export))
    assert main(["verify", str(tmp_path / "t.json")]) == 0
    assert capsys.readouterr().out.startswith("OK")
    export["events"][-1]["data"]["seed"] = "0" * 64
    (tmp_path / "forged.json").write_text(json.dumps(export))
    assert main(["verify", str(tmp_path / "forged.json")]) == 1
    assert "FAULT" in capsys.readouterr().out


def test_the_standings_table_lists_every_entrant_best_first():
    service = make_tournaments(InlineTournaments())
    tournament_id = service.create(SWISS)["id"]
    rows = service.standings(tournament_id)["entrants"]
    lines = table(rows).splitlines()
    assert len(lines) == 1 + len(rows) and "win share (95%)" in lines[0]
    assert [line.split()[1] for line in lines[1:]] == [row["name"].split()[0] for row in rows]
