"""`cardroom verify` on a tournament's export, and the standings table `cardroom tournament` prints."""
import argparse
import io
import json

from cli import main
from cli.tournament import add_tournament_command, follow, table, tournament_spec
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


def test_accounts_are_entered_before_the_bots_and_a_duplicate_seats_every_entrant():
    command = argparse.ArgumentParser()
    add_tournament_command(command.add_subparsers())
    args = command.parse_args(["tournament", "--game", "flipout", "--key", "crk_x", "--accounts", "deep-flip",
                               "--bots", "ismcts,greedy", "--deals", "100"])
    assert tournament_spec(args) == {
        "game": "flipout", "format": "duplicate", "max_parallel": 8, "table_size": 3, "deals": 100,
        "entrants": [{"account": "deep-flip"}, {"bot": "ismcts"}, {"bot": "greedy"}]}


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Readings:
    """A server whose tournament is read as these documents, one a read."""

    def __init__(self, documents):
        self._documents = iter(documents)

    def call(self, method, path):
        return next(self._documents)


def reading(done, status="running", eta=None):
    return {"id": "t1", "status": status, "progress": {"done": done, "total": 4}, "eta_seconds": eta}


def test_on_a_terminal_the_progress_bar_follows_the_tournament_to_its_end():
    terminal = Terminal()
    server = Readings([reading(2, eta=3), reading(4, "finished")])
    finished = follow(server, reading(0, eta=9), poll=0, output=terminal)
    assert finished["status"] == "finished"
    drawn = terminal.getvalue()
    assert "0/4, ETA 9 s" in drawn and "2/4, ETA 3 s" in drawn and drawn.rstrip().endswith("4/4")
